#!/usr/bin/env python3
"""HopmapLB's comparison problem without Charm++'s noise: the 16x16 jacobi2d stencil
(1024 bytes per halo) with the work factors of its last balancing phase times a
random factor in 0.7..1.3 (measured loads are that noisy on the oversubscribed
machine), placed on a ring of 8 nodes by hopmap's `partition` and by Scotch's gmap
(-b0.05, the same epsilon) on the same loads; both evaluated by `hopmap eval`.

Usage: python3 bench/ring_vs_scotch.py [SEEDS]   (needs build/client/hopmap and
scotch_gmap-int64 from Debian's scotch package)
"""
import json
import math
import os
import random
import subprocess
import sys
import tempfile

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HOPMAP = os.path.join(REPO, "build", "client", "hopmap")
BX = BY = 16
ITERATIONS = 60


def work_factor(x, y, i):  # as tests/client/charm/jacobi2d.C
    cx = BX * (0.25 + 0.5 * i / max(1, ITERATIONS - 1))
    cy = BY / 2
    s = max(1, BX / 6)
    dx = abs(x + 0.5 - cx)
    dy = abs(y + 0.5 - cy)
    dx = min(dx, BX - dx)
    dy = min(dy, BY - dy)
    return round(1 + 3 * math.exp(-(dx * dx + dy * dy) / (2 * s * s)))


def neighbours(v):
    x, y = v % BX, v // BX
    return [(x + 1) % BX + BX * y, (x - 1) % BX + BX * y, x + BX * ((y + 1) % BY),
            x + BX * ((y - 1) % BY)]


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, check=True, **kw)


def main():
    seeds = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    n = BX * BY
    machine = "torus:8:cores=1"
    with tempfile.TemporaryDirectory() as tmp:
        graph = os.path.join(tmp, "g.edgelist")
        run([HOPMAP, "gen", "stencil2d-5", "--dims", f"{BX}x{BY}", "--wrap", "--bytes", "1024",
             "-o", graph])
        with open(os.path.join(tmp, "t.tgt"), "w") as f:
            f.write("torus3D 8 1 1\n")
        print("seed  hopmap hop-bytes  max/avg   scotch hop-bytes  max/avg")
        for seed in range(seeds):
            rng = random.Random(seed)
            loads = [sum(work_factor(v % BX, v // BX, i) for i in range(40, 50)) / 10 *
                     rng.uniform(0.7, 1.3) for v in range(n)]
            loads_file = os.path.join(tmp, "loads")
            with open(loads_file, "w") as f:
                f.write("".join(f"{l:g}\n" for l in loads))
            with open(os.path.join(tmp, "g.grf"), "w") as f:
                f.write(f"0\n{n} {4 * n}\n0 011\n")
                for v in range(n):
                    edges = " ".join(f"1024 {u}" for u in neighbours(v))
                    f.write(f"{max(1, round(loads[v] * 1000))} 4 {edges}\n")
            env = dict(os.environ, LD_LIBRARY_PATH="/usr/lib/x86_64-linux-gnu/scotch-int64")
            run(["scotch_gmap-int64", "-Cd", "-b0.05", "g.grf", "t.tgt", "m.map"], cwd=tmp,
                env=env)
            position = [0] * n
            with open(os.path.join(tmp, "m.map")) as f:
                for line in f.read().split("\n")[1:]:
                    if line.strip():
                        task, node = line.split()
                        position[int(task)] = int(node)
            results = []
            for name, perm in (("hopmap", None), ("scotch", position)):
                perm_file = os.path.join(tmp, name + ".perm")
                if perm is None:
                    run([HOPMAP, "map", "--local", "--machine", machine, "--graph", graph,
                         "--loads", loads_file, "--algorithm", "partition", "--format", "perm",
                         "-q", "-o", perm_file])
                else:
                    with open(perm_file, "w") as f:
                        f.write("".join(f"{p}\n" for p in perm))
                report = json.loads(run([HOPMAP, "eval", "--local", "--machine", machine,
                                         "--graph", graph, "--balance", "--loads", loads_file,
                                         "--mapping", perm_file]).stdout)
                results.append((report["hop_bytes"], report["balance"]["max_over_avg"]))
            print(f"{seed:4d}  {results[0][0]:17d}  {results[0][1]:7.3f}   "
                  f"{results[1][0]:16d}  {results[1][1]:7.3f}")


if __name__ == "__main__":
    main()
