#!/usr/bin/env python3
"""Record, map and run one real MPI application on one simulated machine (issue 44).

  python3 deploy/apps/run_app.py APP RANKS --machine SPEC [--nodes LIST] [-o FILE.json]

1. record: the application built with a real MPI (MPICH by default, --mpi openmpi
   for Open MPI) runs RANKS ranks on this host (oversubscribed) with libhopmap_mpi
   recording its communication graph;
2. profile: the application built with SMPI's compilers runs once under
   `hopmap simulate --mpi` with hopmap's compute profile measuring every compute
   burst of every rank (HOPMAP_SMPI_COMPUTE=measure:DIR);
3. map: four placements of the ranks on the allocation: in-order, Slurm 26's own
   topology ranking, Scotch 7 (scotch_gmap on the recorded graph) and hopmap (`auto`);
4. run: `hopmap simulate --mpi` runs the SMPI build once per placement, replaying the
   profile, and reports SMPI's clock when the program ends (run time), the time the
   ranks spent in MPI, and the hop-bytes. By default each code region between two
   MPI calls costs its median over all ranks and repeats
   (HOPMAP_SMPI_COMPUTE=replay-median:DIR); --compute measured replays every burst
   as measured (replay:DIR).

Steps 1 and 2 depend only on (APP, RANKS, SIZE) and are kept in --work: a second
machine reuses them. The same command gives the same times (docs/apps.md).

One rank per node: the machine's spec gets cores=1 (hybrid MPI jobs run one rank per
node; Scotch's targets then are the allocation's nodes exactly).
Errors are one line naming the application and the step; files already written stay.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import time

from slurm_order import slurm_order

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PLACEMENTS = ["in-order", "slurm", "scotch", "hopmap"]
# Asked for by name only: hopmap with another objective (hopmap map --objective).
OTHER_PLACEMENTS = {"hopmap-congestion": "congestion", "hopmap-dilation": "dilation",
                    "hopmap-time": "time"}
# SimGrid settings for every SMPI run of an application (docs/apps.md): Open MPI's
# collective algorithms, as a real run would use (SMPI's default selector has a
# linear MPI_Gather at the root, quadratic in the ranks).
SMPI_CONFIG = ["smpi/coll-selector:ompi"]


class StepError(Exception):
    pass


def run(cmd, step, app, env=None, cwd=None, quiet=True):
    try:
        out = subprocess.run(cmd, env=env, cwd=cwd, text=True, capture_output=quiet)
    except OSError as e:
        raise StepError(f"{app} ({step}): cannot run {cmd[0]}: {e.strerror}")
    if out.returncode != 0:
        text = ((out.stderr or "") + "\n" + (out.stdout or "")).strip().splitlines()
        last = [l for l in text if l.strip().strip("-")][-1:] or [f"exit code {out.returncode}"]
        raise StepError(f"{app} ({step}): {os.path.basename(cmd[0])} failed: {last[0].strip()}")
    return out


def expand(spec):
    """'0-3,7' -> [0, 1, 2, 3, 7]"""
    nodes = []
    for part in spec.split(","):
        if "-" in part:
            lo, hi = part.split("-")
            nodes.extend(range(int(lo), int(hi) + 1))
        else:
            nodes.append(int(part))
    return nodes


def machine_facts(hopmap, spec):
    out = run([hopmap, "machines", spec], "machine", "-").stdout
    facts = dict(line.split(None, 1) for line in out.splitlines() if " " in line.strip())
    kind = facts["kind"].strip()
    dims = [int(d) for d in facts["dims"].split("=")[1].strip().replace(",", "x").split("x")]
    return kind, dims, int(facts["nodes"])


def scotch_target(kind, dims, nodes):
    """Scotch 7's target for the allocation (one rank per node)."""
    if kind == "torus":
        arch = "torus3D " + " ".join(str(d) for d in (dims + [1, 1])[:3])
    elif kind == "fattree" and len(dims) == 2:
        arch = f"tleaf 2 {dims[0]} 4 {dims[1]} 2"  # 2 hops inside a leaf, 4 across
    elif kind == "dragonfly":
        # Scotch has no dragonfly: its hierarchy (groups, routers, nodes) as a tree
        # with the hops between two nodes at each level (5, 3, 2).
        arch = f"tleaf 3 {dims[0]} 5 {dims[1]} 3 {dims[2]} 2"
    else:
        raise StepError(f"no Scotch target for a {kind} machine")
    return f"sub {len(nodes)} {' '.join(map(str, nodes))}\n{arch}\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("app", choices=["lulesh", "hpcg", "minighost"])
    ap.add_argument("ranks", type=int)
    ap.add_argument("--machine", required=True, help="a machine spec or catalog name")
    ap.add_argument("--nodes", help="the allocation (node ids: 0-99,200-299); default: "
                    "the first RANKS nodes")
    ap.add_argument("--size", default="bench", choices=["small", "bench"],
                    help="the problem size (deploy/apps/app_args.sh)")
    ap.add_argument("--work", default=os.path.join(REPO, "out", "apps"),
                    help="where recordings, profiles and placements are kept")
    ap.add_argument("--hopmap", default=os.path.join(REPO, "build", "client", "hopmap"))
    ap.add_argument("--mpi", default="mpich", choices=["mpich", "openmpi"],
                    help="the real MPI that records the graph (default mpich: its hydra "
                    "starts 512 ranks on a 2-core machine, Open MPI 4.1 does not)")
    ap.add_argument("--mpi-lib", help="libhopmap_mpi for that MPI (default: the build's, "
                    "build/client/mpi/libhopmap_mpi_mpich.so or libhopmap_mpi.so)")
    ap.add_argument("--apps-prefix", help="where the applications' builds are (default: what "
                    "deploy/apps/build-apps.sh --find prints)")
    ap.add_argument("--smpi-cfg", action="append", metavar="KEY:VALUE",
                    help="a SimGrid setting for the SMPI runs, repeatable; replaces the "
                    f"default ({' '.join(SMPI_CONFIG)})")
    ap.add_argument("--placements", default=",".join(PLACEMENTS),
                    help="which placements besides in-order (comma-separated; also "
                    f"{', '.join(OTHER_PLACEMENTS)}: hopmap map --objective congestion, "
                    "dilation or time)")
    ap.add_argument("--compute", default="median", choices=["median", "measured"],
                    help="the computation the runs replay: each code region's median over "
                    "ranks and repeats (default), or every burst as measured")
    ap.add_argument("-o", "--output", help="also write the rows as JSON here")
    ap.add_argument("--draw", help="also draw the run times as bars (.svg, .png or .pdf; "
                    "hopmap simulate --draw)")
    args = ap.parse_args()
    try:
        rows = run_app(args)
    except StepError as e:
        sys.exit(f"run_app: {e}")
    text = json.dumps({"runs": rows}, indent=1) + "\n"
    if args.output:
        tmp = args.output + ".tmp"
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, args.output)
    print_rows(rows)


def print_rows(rows):
    print(f"{'app':9} {'ranks':>5} {'machine':24} {'placement':9} {'run_time_s':>12} "
          f"{'mpi_time_s':>12} {'collective_s':>12} {'hop_bytes':>16}")
    for r in rows:
        print(f"{r['app']:9} {r['ranks']:5d} {r['machine']:24} {r['placement']:9} "
              f"{r['run_time_s']:12.6f} {r['mpi_time_s']:12.6f} {r['collective_s']:12.6f} "
              f"{r['hop_bytes']:16d}")


def run_app(args):
    app, ranks = args.app, args.ranks
    toolchain = "mpich" if args.mpi == "mpich" else "mpi"
    if args.mpi_lib is None:
        args.mpi_lib = os.path.join(REPO, "build", "client", "mpi", "libhopmap_mpi" +
                                    ("_mpich" if args.mpi == "mpich" else "") + ".so")
    wanted = [p for p in args.placements.split(",") if p and p != "in-order"]
    unknown = [p for p in wanted if p not in PLACEMENTS and p not in OTHER_PLACEMENTS]
    if unknown:
        raise StepError(f"{app} (setup): --placements: unknown placement '{unknown[0]}' "
                        f"(one of {', '.join(PLACEMENTS + list(OTHER_PLACEMENTS))})")
    for tool, what in [(args.hopmap, "hopmap (bash deploy/build.sh)"),
                       (args.mpi_lib, "libhopmap_mpi.so (bash deploy/build.sh)")]:
        if not os.path.exists(tool):
            raise StepError(f"{app} (setup): {tool} not found: build {what}")
    prefix = args.apps_prefix
    if prefix is None:
        found = subprocess.run(["bash", os.path.join(REPO, "deploy/apps/build-apps.sh"), "--find"],
                               text=True, capture_output=True)
        if found.returncode != 0:
            raise StepError(f"{app} (setup): the applications are not built: "
                            "bash deploy/apps/build-apps.sh")
        prefix = found.stdout.strip().splitlines()[-1]
    def program_in(folder):
        path = os.path.join(prefix, app, folder)
        found = [os.path.join(path, f) for f in os.listdir(path)] if os.path.isdir(path) else []
        found = [f for f in found if os.access(f, os.X_OK) and os.path.isfile(f)]
        if len(found) != 1:
            raise StepError(f"{app} (setup): expected one program in {path}: "
                            "bash deploy/apps/build-apps.sh")
        return found[0]
    mpi_exe, smpi_exe = program_in(toolchain), program_in("smpi")
    app_args = run(["bash", os.path.join(REPO, "deploy/apps/app_args.sh"), app, str(ranks),
                    args.size], "arguments", app).stdout.split("\n")
    app_args = [a for a in app_args if a != ""]

    spec = args.machine + ("" if ":cores=" in args.machine else ":cores=1")
    kind, dims, machine_nodes = machine_facts(args.hopmap, spec)
    nodes = expand(args.nodes) if args.nodes else list(range(ranks))
    if len(nodes) != ranks or len(set(nodes)) != ranks or max(nodes) >= machine_nodes:
        raise StepError(f"{app} (setup): --nodes must list {ranks} distinct nodes of the "
                        f"{machine_nodes} of {args.machine}")
    node_spec = args.nodes or f"0-{ranks - 1}"

    base = os.path.join(os.path.abspath(args.work), f"{app}-{ranks}-{args.size}")
    os.makedirs(base, exist_ok=True)
    graph = os.path.join(base, "graph.edgelist")
    if not os.path.exists(graph):
        rundir = os.path.join(base, "record-run")
        os.makedirs(rundir, exist_ok=True)
        preload = os.path.abspath(args.mpi_lib)
        if args.mpi == "mpich":
            print(f"run_app: {app} {ranks}: recording with MPICH", file=sys.stderr)
            run(["mpiexec.mpich", "-n", str(ranks), "-genv", "LD_PRELOAD", preload,
                 "-genv", "HOPMAP_RECORD", graph + ".tmp", mpi_exe] + app_args,
                "record", app, cwd=rundir)
        else:
            print(f"run_app: {app} {ranks}: recording with Open MPI", file=sys.stderr)
            run(["mpirun", "--oversubscribe", "--bind-to", "none", "--mca", "mpi_yield_when_idle",
                 "1", "-np", str(ranks), "-x", "LD_PRELOAD=" + preload,
                 "-x", "HOPMAP_RECORD=" + graph + ".tmp", mpi_exe] + app_args,
                "record", app, cwd=rundir,
                # Open MPI refuses root unless told (CI's containers run as root).
                env=dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1",
                         OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1"))
        if not os.path.exists(graph + ".tmp"):
            raise StepError(f"{app} (record): libhopmap_mpi wrote no graph")
        os.replace(graph + ".tmp", graph)
    profile = os.path.join(base, "profile")
    common = ["--local", "--machine", spec, "--nodes", node_spec, "--graph", graph]
    mpi_flags = ["--mpi", smpi_exe] + [x for a in app_args for x in ("--mpi-arg", a)]
    mpi_flags += [x for c in (args.smpi_cfg or SMPI_CONFIG) for x in ("--smpi-cfg", c)]
    # A profile measured before the wrapper recorded code regions has no medians.
    if not all(os.path.exists(os.path.join(profile, f)) for f in ("complete", "sites.median")):
        shutil.rmtree(profile, ignore_errors=True)
        os.makedirs(profile)
        print(f"run_app: {app} {ranks}: measuring the compute bursts under SMPI", file=sys.stderr)
        # In a folder of its own: HPCG and miniGhost write their reports where they run.
        rundir = os.path.join(base, "profile-run")
        os.makedirs(rundir, exist_ok=True)
        run([os.path.abspath(args.hopmap), "simulate"] + common + mpi_flags +
            ["--format", "json"], "profile", app, cwd=rundir,
            env=dict(os.environ, HOPMAP_SMPI_COMPUTE="measure:" + profile))
        open(os.path.join(profile, "complete"), "w").close()

    # The placements.
    tag = args.machine.replace(":", "_").replace("/", "_") + "-" + node_spec.replace(",", "_")
    pdir = os.path.join(base, tag)
    os.makedirs(pdir, exist_ok=True)
    mappings = []
    if "slurm" in wanted:
        position = {n: i for i, n in enumerate(nodes)}
        perm = [position[n] for n in slurm_order(kind, dims, nodes)]
        path = os.path.join(pdir, "slurm.perm")
        with open(path, "w") as f:
            f.write("\n".join(map(str, perm)) + "\n")
        mappings.append(("slurm", path, perm == list(range(ranks))))
    if "scotch" in wanted:
        grf, tgt, smap = (os.path.join(pdir, n) for n in ("graph.grf", "target.tgt", "scotch.map"))
        run([args.hopmap, "convert", graph, "-o", grf], "scotch", app)
        with open(tgt, "w") as f:
            f.write(scotch_target(kind, dims, nodes))
        run(["scotch_gmap-int64", "-Cd", "-b0", grf, tgt, smap], "scotch", app)
        slot = {}
        with open(smap) as f:
            for line in f.read().split("\n")[1:]:
                if line.strip():
                    task, target = map(int, line.split())
                    slot[task] = target
        if sorted(slot) != list(range(ranks)) or sorted(slot.values()) != list(range(ranks)):
            raise StepError(f"{app} (scotch): Scotch's mapping is not one rank per node")
        path = os.path.join(pdir, "scotch.perm")
        with open(path, "w") as f:
            f.write("\n".join(str(slot[t]) for t in range(ranks)) + "\n")
        mappings.append(("scotch", path, False))
    if "hopmap" in wanted:
        path = os.path.join(pdir, "hopmap.json")
        run([args.hopmap, "map"] + common + ["--format", "json", "-o", path], "map", app)
        mappings.append(("hopmap", path, False))
    for name, objective in OTHER_PLACEMENTS.items():
        if name not in wanted:
            continue
        path = os.path.join(pdir, name + ".json")
        run([args.hopmap, "map"] + common + ["--objective", objective, "--format", "json",
                                              "-o", path], "map", app)
        mappings.append((name, path, False))

    # The runs: every placement that differs from in-order, replaying the profile.
    print(f"run_app: {app} {ranks} on {args.machine}: running {1 + len(mappings)} placements "
          "under SMPI", file=sys.stderr)
    started = time.monotonic()
    # From the placements' folder, so the report (and the bars) name them "slurm.perm",
    # "scotch.perm", "hopmap.json".
    flags = [x for name, path, same in mappings if not same
             for x in ("--mapping", os.path.basename(path))]
    draw = ["--draw", os.path.abspath(args.draw)] if args.draw else []
    replay = "replay-median:" if args.compute == "median" else "replay:"
    sim = json.loads(run([os.path.abspath(args.hopmap), "simulate"] + common + flags + mpi_flags +
                         ["--format", "json"] + draw, "run", app, cwd=pdir,
                         env=dict(os.environ, HOPMAP_SMPI_COMPUTE=replay + profile)).stdout)
    by_path = {s["mapping"]: s for s in sim["simulations"]}
    rows = []
    for name, path in [("in-order", "in-order")] + [(n, p) for n, p, _ in mappings]:
        same = any(n == name and s for n, _, s in mappings)
        s = by_path["in-order" if same else os.path.basename(path)]
        if s.get("unmatched_calls", 0):
            print(f"run_app: warning: {app} {name}: {s['unmatched_calls']} MPI calls past the "
                  "profile's end were charged no computation", file=sys.stderr)
        rows.append({"app": app, "ranks": ranks, "machine": args.machine, "nodes": node_spec,
                     "placement": name, "run_time_s": s["time_s"],
                     "mpi_time_s": s.get("mpi_time_s", 0.0),
                     "collective_s": s.get("collective_s", 0.0), "compute_s": s.get("compute_s", 0.0),
                     "hop_bytes": s["hop_bytes"], "same_as_in_order": same})
    print(f"run_app: {app} {ranks} on {args.machine}: {time.monotonic() - started:.0f} s",
          file=sys.stderr)
    return rows


if __name__ == "__main__":
    main()
