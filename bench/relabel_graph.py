#!/usr/bin/env python3
"""Writes an edge list (hopmap's format) with its tasks renumbered by a random
permutation drawn from SEED: the same graph as another program would number it.
Hop-bytes are the same for a mapping and its renumbered twin, so the cost of a
mapping of the renumbered graph compares directly with one of the original.

Usage: relabel_graph.py IN.edgelist OUT.edgelist SEED
"""
import random
import sys


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: relabel_graph.py IN.edgelist OUT.edgelist SEED")
    src, dst, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
    edges, tasks, header = [], 0, []
    with open(src) as f:
        for number, line in enumerate(f, 1):
            if line.startswith("#") or not line.strip():
                header.append(line)
                if line.startswith("# tasks:"):
                    tasks = int(line.split(":")[1])
                continue
            fields = line.split()
            try:
                u, v = int(fields[0]), int(fields[1])
            except (IndexError, ValueError):
                sys.exit(f"relabel_graph: {src}:{number}: not an edge 'u v [w]'")
            edges.append((u, v, fields[2:]))
            tasks = max(tasks, u + 1, v + 1)
    perm = list(range(tasks))
    random.Random(seed).shuffle(perm)
    with open(dst, "w") as f:
        f.writelines(header)
        for u, v, rest in edges:
            f.write(" ".join([str(perm[u]), str(perm[v])] + rest) + "\n")


if __name__ == "__main__":
    main()
