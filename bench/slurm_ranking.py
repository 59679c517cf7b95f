#!/usr/bin/env python3
"""Issue 45: hopmap beside Slurm 26's own node ranking, read from a real Slurm 26.05.

Called by bench/slurm_ranking.sh, which builds Slurm and hopmap; this script starts a
Slurm 26.05 cluster on loopback (tests/slurm/slurm_cluster.sh: munged, slurmctld and
one slurmd per node, n1..nN) whose topology.yaml holds three topologies over the same
nodes, one partition each:
  torus  torus3d X x Y x Z, nodes n[1-N] in x-major order
  tree   leaf switches of LEAF nodes, pods of 8 leaves, one top switch
  block  base blocks of BLOCK nodes (block_sizes [BLOCK])
For each job (a partition, an allocation given to Slurm with -w, a graph) it runs
`srun -p P -w NODES --ntasks-per-node=1 -l` printing SLURM_NODEID and SLURMD_NODENAME
to read the order Slurm 26 ranks the job's nodes in (its torus3d Morton order; block
and switch order; KEEP_WORK's P-ALLOCATION.ranks keeps SLURM_PROCID, SLURM_NODEID and
the host of each rank),
then asks hopmap, as a user would, with the nodes listed in that order:
  hopmap map --machine slurm-topology:topology.yaml:P --nodes @ORDER --cores C
  hopmap simulate ... --pattern graph --mapping MAP.json
Slurm's placement is the in-order one on that node list (srun's block distribution
fills each node's C CPUs in rank order), so map's baseline_hop_bytes and simulate's
in-order time are Slurm's, measured on the same graph in the same run; `hopmap eval`
of the identity mapping gives Slurm's longest route (max_dilation), map's report
hopmap's.
Bytes crossing switches (tree: between two leaf switches) or blocks come from the
graph and each placement's node of every task.
"""
import argparse
import json
import math
import os
import random
import re
import socket
import subprocess
import sys
import time


# Bytes per message (hopmap gen --bytes): gen's default, where a message's latency
# weighs as much as its bytes, and a bandwidth-bound halo (a 64^3 subdomain's face in
# doubles is 32 KiB).
MESSAGE_BYTES = (1024, 65536)
# hopmap's answers besides the default objective's (hop-bytes): placement, objective.
OTHER_OBJECTIVES = [("hopmap-congestion", "congestion"), ("hopmap-dilation", "dilation"),
                    ("hopmap-time", "time")]
# Communication graphs recorded from proxy applications (data/commgraphs/SOURCES.md),
# by task count.
RECORDED = {1024: ["cnca_minife_1024", "cnca_minimd_1024", "cnca_npb_cg_C_1024",
                   "cnca_npb_mg_C_1024"]}


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, text=True, capture_output=True, **kw)


def free_ports(count):
    socks, ports = [], []
    for _ in range(count):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        socks.append(s)
        ports.append(s.getsockname()[1])
    for s in socks:
        s.close()
    return ports


def topology_yaml(nodes, dims, leaf, block):
    x, y, z = dims
    lines = ["---", "- topology: torus", "  cluster_default: true", "  torus3d:",
             "    toruses:", "      - name: t1", f"        dims: {{x: {x}, y: {y}, z: {z}}}",
             f"        nodes: n[1-{nodes}]", "- topology: tree", "  tree:", "    switches:"]
    leaves = nodes // leaf
    pods = (leaves + 7) // 8
    lines += ["      - switch: top", f"        children: p[1-{pods}]"]
    for p in range(pods):
        last = min(leaves, p * 8 + 8)
        lines += [f"      - switch: p{p + 1}", f"        children: s[{p * 8 + 1}-{last}]"]
    for s in range(leaves):
        lines += [f"      - switch: s{s + 1}",
                  f"        nodes: n[{s * leaf + 1}-{s * leaf + leaf}]"]
    lines += ["- topology: block", "  block:", f"    block_sizes: [{block}]", "    blocks:"]
    for b in range(nodes // block):
        lines += [f"      - block: b{b + 1}",
                  f"        nodes: n[{b * block + 1}-{b * block + block}]"]
    return "\n".join(lines) + "\n"


def near_cube(tasks, parts):
    """Dims of `parts` near-equal factors whose product is `tasks`."""
    best = None
    def rec(rest, k, acc):
        nonlocal best
        if k == 1:
            dims = acc + [rest]
            spread = max(dims) / min(dims)
            if best is None or spread < best[0]:
                best = (spread, dims)
            return
        for f in range(1, rest + 1):
            if rest % f == 0:
                rec(rest // f, k - 1, acc + [f])
    rec(tasks, parts, [])
    return "x".join(str(d) for d in sorted(best[1], reverse=True))


def pieces_allocation(rng, nodes, count, pieces):
    """`count` nodes in `pieces` runs of consecutive names at random places (what a
    scheduler that fills free nodes in name order leaves a job on a busy machine)."""
    cuts = sorted(rng.sample(range(1, count), pieces - 1))
    sizes = [b - a for a, b in zip([0] + cuts, cuts + [count])]
    while True:
        starts = sorted(rng.sample(range(nodes), pieces))
        chosen, ok = [], True
        for start, size in zip(starts, sizes):
            run_nodes = list(range(start, start + size))
            if run_nodes[-1] >= nodes or any(n in chosen for n in run_nodes):
                ok = False
                break
            chosen += run_nodes
        if ok and len(set(chosen)) == count:
            return sorted(chosen)


def block_allocation(rng, nodes, count, block):
    """`count` nodes over the fewest blocks Slurm's block plugin allows
    (ceil(count / block)), the blocks at random, one of them partial."""
    blocks = math.ceil(count / block)
    chosen_blocks = sorted(rng.sample(range(nodes // block), blocks))
    partial = rng.randrange(blocks)
    rest = count - (blocks - 1) * block
    chosen = []
    for i, b in enumerate(chosen_blocks):
        take = rest if i == partial else block
        offset = rng.randrange(block - take + 1)
        chosen += list(range(b * block + offset, b * block + offset + take))
    return sorted(chosen)


def read_edges(path):
    edges = []
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            u, v, w = line.split()
            edges.append((int(u), int(v), int(w)))
    return edges


def crossing_bytes(edges, node_of_task, group_of_node):
    return sum(w for u, v, w in edges
               if group_of_node[node_of_task[u]] != group_of_node[node_of_task[v]])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["quick", "full"])
    ap.add_argument("--hopmap", required=True)
    ap.add_argument("--slurm-prefix", required=True)
    ap.add_argument("--repo", required=True)
    ap.add_argument("--work", required=True)
    ap.add_argument("-o", "--output", required=True)
    args = ap.parse_args()

    full = args.mode == "full"
    dims = (8, 8, 8) if full else (4, 4, 4)
    nodes = dims[0] * dims[1] * dims[2]
    leaf, block, cores = (16, 16, 4) if full else (8, 8, 4)
    rng = random.Random(45)
    work = args.work
    os.makedirs(work, exist_ok=True)
    topo = os.path.join(work, "topology.yaml")
    with open(topo, "w") as f:
        f.write(topology_yaml(nodes, dims, leaf, block))
    with open(os.path.join(work, "partitions.conf"), "w") as f:
        for name in ("torus", "tree", "block"):
            f.write(f"PartitionName={name} Nodes=ALL Topology={name} "
                    f"{'Default=YES ' if name == 'torus' else ''}MaxTime=INFINITE State=UP\n")
    prolog = os.path.join(work, "prolog")
    with open(prolog, "w") as f:
        f.write("#!/bin/sh\nexit 0\n")
    os.chmod(prolog, 0o755)
    env = dict(os.environ, SLURM_CONF=os.path.join(work, "slurm.conf"),
               PATH=f"{args.slurm_prefix}/bin:{os.environ['PATH']}",
               HOPMAP_SLURM_PREFIX=args.slurm_prefix, HOPMAP_SLURM_START_WAIT="300")
    cluster = os.path.join(args.repo, "tests/slurm/slurm_cluster.sh")
    ports = free_ports(nodes + 2)
    print(f"slurm_ranking: starting Slurm {args.slurm_prefix.rsplit('/', 1)[-1]} with "
          f"{nodes} slurmd", file=sys.stderr)
    if subprocess.run(["bash", cluster, "start", work] + [str(p) for p in ports] +
                      [prolog, prolog], env=env).returncode != 0:
        sys.exit("slurm_ranking: the Slurm cluster did not start (its logs' tails are above)")
    rows = []
    try:
        # (partition, allocation name, node indices)
        jobs = []
        if full:
            jobs.append(("torus", "whole-8x8x8", list(range(nodes))))
            for i, (count, pieces) in enumerate([(128, 3), (192, 3), (256, 4), (160, 5)]):
                jobs.append(("torus", f"fragmented-{count}n-{pieces}p",
                             pieces_allocation(rng, nodes, count, pieces)))
            for count, pieces in [(96, 3), (160, 4), (200, 5)]:
                jobs.append(("tree", f"partial-leaves-{count}n-{pieces}p",
                             pieces_allocation(rng, nodes, count, pieces)))
            for count in (40, 100, 168):
                jobs.append(("block", f"partial-blocks-{count}n",
                             block_allocation(rng, nodes, count, block)))
            # 256 nodes x 4 cores: the recorded graphs of 1,024 ranks fill them.
            jobs.append(("tree", "partial-leaves-256n-4p", pieces_allocation(rng, nodes, 256, 4)))
            jobs.append(("block", "scattered-blocks-256n",  # 16 whole blocks
                         block_allocation(rng, nodes, 256, block)))
        else:
            jobs.append(("torus", "whole-4x4x4", list(range(nodes))))
            jobs.append(("torus", "fragmented-24n-3p", pieces_allocation(rng, nodes, 24, 3)))
            jobs.append(("tree", "partial-leaves-20n-3p", pieces_allocation(rng, nodes, 20, 3)))
            jobs.append(("block", "partial-blocks-20n", block_allocation(rng, nodes, 20, block)))
        for partition, alloc, chosen in jobs:
            names = [f"n{i + 1}" for i in chosen]
            wfile = os.path.join(work, f"{partition}-{alloc}.nodes")
            with open(wfile, "w") as f:
                f.write("\n".join(names) + "\n")
            out = subprocess.run(
                ["srun", "-p", partition, "-w", wfile, "-N", str(len(names)),
                 "--ntasks-per-node=1", "-l", "sh", "-c", 'echo "$SLURM_NODEID $SLURMD_NODENAME"'],
                env=env, text=True, capture_output=True)
            if out.returncode != 0:
                sys.exit(f"slurm_ranking: Slurm refused {partition} {alloc}: "
                         f"{[l for l in out.stderr.splitlines() if 'error' in l][:1]}")
            # Per rank (SLURM_PROCID, srun -l's label): SLURM_NODEID and the host.
            order, node_ids = [None] * len(names), [None] * len(names)
            for line in out.stdout.splitlines():
                m = re.match(r"\s*(\d+): (\d+) (\S+)", line)
                if m:
                    node_ids[int(m.group(1))] = m.group(2)
                    order[int(m.group(1))] = m.group(3)
            if None in order or sorted(order) != sorted(names):
                sys.exit(f"slurm_ranking: srun's ranks do not cover {alloc}: {out.stdout[:200]}")
            order_file = os.path.join(work, f"{partition}-{alloc}.order")
            with open(order_file, "w") as f:
                f.write("\n".join(order) + "\n")
            with open(os.path.join(work, f"{partition}-{alloc}.ranks"), "w") as f:
                f.write("# SLURM_PROCID SLURM_NODEID host (one task per node)\n")
                for rank, (node_id, host) in enumerate(zip(node_ids, order)):
                    f.write(f"{rank} {node_id} {host}\n")
            tasks = len(order) * cores
            group_size = leaf if partition == "tree" else block
            group_of = {f"n{i + 1}": i // group_size for i in range(nodes)}
            graphs = [(f"{name}", kind, size) for size in MESSAGE_BYTES
                      for name, kind in [("3d-halo", ["stencil3d-7", "--dims", near_cube(tasks, 3)]),
                                         ("2d-9point", ["stencil2d-9", "--dims", near_cube(tasks, 2)]),
                                         ("irregular", ["random-geometric", "--tasks", str(tasks)])]]
            # Graphs recorded from real applications (data/commgraphs: their own
            # message sizes) on the jobs whose slots they fill exactly.
            graphs += [(name, None, "recorded") for name in RECORDED.get(tasks, [])]
            for graph_name, gen, size in graphs:
                if gen is None:
                    graph = os.path.join(args.repo, "data/commgraphs", graph_name + ".edgelist")
                else:
                    graph = os.path.join(work, f"{graph_name}-{tasks}-{size}.edgelist")
                if not os.path.exists(graph):
                    run([args.hopmap, "gen"] + gen + ["--bytes", str(size), "-o", graph])
                machine = f"slurm-topology:{topo}:{partition}"
                common = ["--local", "--machine", machine, "--nodes", "@" + order_file,
                          "--cores", str(cores), "--graph", graph]
                map_json = os.path.join(work, f"{partition}-{alloc}-{graph_name}-{size}.map.json")
                started = time.monotonic()
                run([args.hopmap, "map"] + common + ["--format", "json", "-o", map_json])
                map_seconds = time.monotonic() - started
                with open(map_json) as f:
                    mapped = json.load(f)
                # The other objectives: the busiest link (what a user whose messages
                # are large asks for), the longest route (small messages), and the
                # estimated time, which weighs both.
                answers = {"hopmap": (map_json, mapped)}
                for placement, objective in OTHER_OBJECTIVES:
                    other_json = map_json.replace(".map.json", f".{objective}.map.json")
                    run([args.hopmap, "map"] + common +
                        ["--objective", objective, "--format", "json", "-o", other_json])
                    with open(other_json) as f:
                        answers[placement] = (other_json, json.load(f))
                simulate = [args.hopmap, "simulate"] + common + ["--pattern", "graph"]
                for mapping_json, _ in answers.values():
                    simulate += ["--mapping", mapping_json]
                sim = json.loads(run(simulate + ["--format", "json"]).stdout)
                # The longest route a message takes (hops of the most dilated edge):
                # with small messages the time is its latency (docs/simulate.md).
                identity = os.path.join(work, f"identity-{tasks}.perm")
                if not os.path.exists(identity):
                    with open(identity, "w") as f:
                        f.write("".join(f"{t}\n" for t in range(tasks)))
                slurm_eval = json.loads(run([args.hopmap, "eval"] + common +
                                            ["--mapping", identity, "--format", "json"]).stdout)
                # In the order given: in-order (Slurm's), then the answers in order.
                times = [s["time_s"] for s in sim["simulations"]]
                edges = read_edges(graph)
                placements = [("slurm", mapped["baseline_hop_bytes"], times[0],
                               slurm_eval["max_dilation"], list(range(tasks)),
                               mapped.get("baseline_exchange_seconds"))]
                for (placement, (_, answer)), t in zip(answers.items(), times[1:]):
                    placements.append((placement, answer["hop_bytes"], t,
                                       answer["max_dilation"], answer["slot_of_task"],
                                       answer.get("exchange_seconds")))
                for placement, hb, t, longest, slots, estimate in placements:
                    node_of_task = [order[s // cores] for s in slots]
                    row = {"topology": partition, "allocation": alloc, "nodes": len(order),
                           "graph": graph_name, "message_bytes": size, "tasks": tasks,
                           "placement": placement,
                           "hop_bytes": hb, "comm_time_s": t, "longest_route_hops": longest,
                           "estimated_time_s": estimate,
                           "crossing_bytes": (crossing_bytes(edges, node_of_task, group_of)
                                              if partition != "torus" else None)}
                    if placement == "hopmap":
                        row["map_seconds"] = round(map_seconds, 2)
                    rows.append(row)
                print(f"slurm_ranking: {partition} {alloc} {graph_name} {size} B: done",
                      file=sys.stderr)
    finally:
        subprocess.run(["bash", cluster, "stop", work], env=env)
    with open(args.output, "w") as f:
        json.dump({"date": time.strftime("%Y-%m-%d"), "mode": args.mode,
                   "slurm": os.path.basename(args.slurm_prefix), "cores_per_node": cores,
                   "runs": rows}, f, indent=1)
    report(rows)


def report(rows):
    pairs = {}
    for r in rows:
        key = (r["topology"], r["allocation"], r["graph"], r["message_bytes"])
        pairs.setdefault(key, {})[r["placement"]] = r
    print(f"{'topology':8} {'allocation':24} {'graph':10} {'bytes':>6} {'tasks':>5} "
          f"{'hop-bytes':>9} {'time':>6} {'crossing':>8} {'longest':>7} {'time(c)':>7} "
          f"{'time(d)':>7} {'long(d)':>7} {'time(t)':>7} {'long(t)':>7} {'est/sim':>7}  "
          f"(hopmap / Slurm 26's ranking; longest: the longest route's hops, hopmap/Slurm; "
          f"time(c), time(d), time(t): with --objective congestion, dilation, time; long(d), "
          f"long(t): their longest routes; est/sim: the time objective's estimate of its "
          f"answer over the simulated time)")
    torus_hb, cross = [], []
    # Per placement, per message size: the time ratios on fragmented tori.
    torus_t = {}
    estimate_ratios = []
    worst_cross = 0.0
    ratio = lambda a, b: a / b if b else 1.0
    for (topo, alloc, graph, size), p in pairs.items():
        s, h = p["slurm"], p["hopmap"]
        hb = ratio(h["hop_bytes"], s["hop_bytes"])
        shown_t = {}
        for placement in ["hopmap"] + [name for name, _ in OTHER_OBJECTIVES]:
            if placement in p:
                shown_t[placement] = ratio(p[placement]["comm_time_s"], s["comm_time_s"])
        shown = ""
        if s["crossing_bytes"] is not None:
            c = h["crossing_bytes"] / s["crossing_bytes"] if s["crossing_bytes"] else (
                1.0 if h["crossing_bytes"] == 0 else float("inf"))
            cross.append(max(c, 1e-9))
            worst_cross = max(worst_cross, c)
            shown = f"{c:.3f}"
        elif alloc.startswith("fragmented"):
            torus_hb.append(hb)
            for placement, t in shown_t.items():
                torus_t.setdefault(placement, {}).setdefault(size, []).append(t)
        longest = f"{h['longest_route_hops']}/{s['longest_route_hops']}"
        cell = lambda placement: f"{shown_t[placement]:.3f}" if placement in shown_t else "-"
        hops = lambda placement: (f"{p[placement]['longest_route_hops']}/"
                                  f"{s['longest_route_hops']}" if placement in p else "-")
        est = "-"
        if "hopmap-time" in p and p["hopmap-time"]["estimated_time_s"]:
            e = p["hopmap-time"]["estimated_time_s"] / p["hopmap-time"]["comm_time_s"]
            estimate_ratios.append(e)
            est = f"{e:.3f}"
        print(f"{topo:8} {alloc:24} {graph:10} {size:>6} {s['tasks']:>5} {hb:>9.3f} "
              f"{shown_t['hopmap']:>6.3f} {shown:>8} {longest:>7} {cell('hopmap-congestion'):>7} "
              f"{cell('hopmap-dilation'):>7} {hops('hopmap-dilation'):>7} "
              f"{cell('hopmap-time'):>7} {hops('hopmap-time'):>7} {est:>7}")
    gm = lambda v: math.exp(sum(math.log(x) for x in v) / len(v)) if v else float("nan")
    by_size = lambda placement: ", ".join(
        f"{gm(v):.3f}x with {size}" + (" B messages" if size != "recorded" else " graphs")
        for size, v in sorted(torus_t.get(placement, {}).items(), key=lambda kv: str(kv[0])))
    print(f"fragmented tori: hop-bytes {gm(torus_hb):.3f}x Slurm's; predicted time "
          f"{by_size('hopmap')} (geometric means; targets <= 0.40x)")
    for placement, objective in OTHER_OBJECTIVES:
        if placement in torus_t:
            print(f"fragmented tori, hopmap --objective {objective}: predicted time "
                  f"{by_size(placement)}")
    if estimate_ratios:
        print(f"the time objective's estimate over the simulated time of its answer: "
              f"{min(estimate_ratios):.3f}x to {max(estimate_ratios):.3f}x, geometric mean "
              f"{gm(estimate_ratios):.3f}x")
    print(f"trees and blocks: crossing bytes {gm(cross):.3f}x Slurm's (geometric mean; target "
          f"<= 0.85x), worst job {worst_cross:.3f}x (target <= 1.00x)")


if __name__ == "__main__":
    main()
