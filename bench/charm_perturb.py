#!/usr/bin/env python3
"""Solves HopmapLB's balancing steps again with perturbed loads, as a loaded machine
measures them, and counts the answers that miss the load cap without a proven
reason (the note of such an answer blames the search: "no object move lowers it").

The steps come from a run with `+hopmapDump DIR` (docs/charm.md): DIR/stepK.graph,
.loads, .initial, .fixed, .state-bytes and .background. Each trial multiplies every
object's load by a factor drawn from [0.5, 2] (and, with probability
--spike-probability, from [3, 12]: an object preempted while it was measured) and
every PE's background load by one from --background-scale, then runs `hopmap map
--local` with the step's options (--imbalance 0.05, the default algorithm and a 5 s
budget). Trial t draws from random.Random(t): the same command draws the same loads.

Usage: python3 bench/charm_perturb.py DIR [--steps 1,2,3] [--trials 150]
           [--hopmap build/client/hopmap] [--machine torus:2x2:cores=1] [--nodes 0-3]
Prints one line per unproven miss and, per step, how many of the trials missed.
"""

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

PROVEN = "no placement meets the cap"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dump", help="the +hopmapDump directory")
    ap.add_argument("--steps", default="1,2,3")
    ap.add_argument("--trials", type=int, default=150)
    ap.add_argument("--hopmap", default=os.path.join(os.path.dirname(__file__), "..", "build",
                                                     "client", "hopmap"))
    ap.add_argument("--machine", default="torus:2x2:cores=1")
    ap.add_argument("--nodes", default="0-3")
    ap.add_argument("--spike-probability", type=float, default=0.08)
    ap.add_argument("--background-scale", default="0,0.08",
                    help="LO,HI: each PE's background load times a factor from [LO, HI]")
    args = ap.parse_args()
    lo, hi = (float(x) for x in args.background_scale.split(","))
    total_missed = 0
    with tempfile.TemporaryDirectory() as scratch:
        for step in args.steps.split(","):
            base = os.path.join(args.dump, f"step{step}")
            if not os.path.exists(base + ".loads"):
                sys.exit(f"charm_perturb: {base}.loads: no such file (run with +hopmapDump)")
            loads = [float(x) for x in open(base + ".loads")]
            background = [float(x) for x in open(base + ".background")]
            missed = 0
            for trial in range(args.trials):
                rnd = random.Random(trial)
                perturbed = [l * (rnd.uniform(3, 12) if rnd.random() < args.spike_probability
                                  else rnd.uniform(0.5, 2.0)) for l in loads]
                bg = [b * rnd.uniform(lo, hi) for b in background]
                loads_file = os.path.join(scratch, "loads")
                bg_file = os.path.join(scratch, "background")
                with open(loads_file, "w") as f:
                    f.write("".join(f"{x!r}\n" for x in perturbed))
                with open(bg_file, "w") as f:
                    f.write("".join(f"{x!r}\n" for x in bg))
                out = subprocess.run(
                    [args.hopmap, "map", "--local", "--machine", args.machine, "--nodes",
                     args.nodes, "--cores", "1", "--graph", base + ".graph", "--loads",
                     loads_file, "--initial", base + ".initial", "--fixed", base + ".fixed",
                     "--state-bytes", base + ".state-bytes", "--background", bg_file,
                     "--imbalance", "0.05", "--time-limit", "5", "-q"],
                    capture_output=True, text=True)
                if out.returncode != 0:
                    sys.exit(f"charm_perturb: step {step} trial {trial}: {out.stderr.strip()}")
                balance = json.loads(out.stdout)["balance"]
                if not balance["balanced"] and PROVEN not in balance["note"]:
                    missed += 1
                    print(f"step {step} trial {trial}: max/avg {balance['max_over_avg']:.4f}: "
                          f"{balance['note']}")
            print(f"step {step}: {missed} of {args.trials} trials missed the cap without a "
                  "proven reason")
            total_missed += missed
    sys.exit(1 if total_missed else 0)


if __name__ == "__main__":
    main()
