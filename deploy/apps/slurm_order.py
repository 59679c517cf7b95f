#!/usr/bin/env python3
"""Slurm 26's own ranking of a job's nodes, as srun's block distribution uses it.

  python3 deploy/apps/slurm_order.py KIND DIMS NODES
  (KIND torus|fattree|dragonfly, DIMS like 8x8x8, NODES like 0-99,200-299)

prints the node ids in rank order, one per line. tests/slurm/slurm26_test.cc checks
it against the real Slurm 26.05 on a torus3d topology.
"""
import sys


def slurm_order(kind, dims, nodes):
    """Slurm 26's ranking of the job's nodes (its node ids, in rank order).

    torus3d (src/plugins/topology/torus3d, topology_p_get_rank): the Morton (Z-order)
    code of each node's coordinates relative to the smallest wrap-aware box around the
    allocation (the whole torus: absolute coordinates), x bit first; srun's block
    distribution then fills the nodes in that order. Trees and blocks rank nodes by
    name, which for these machines is their id: in-order."""
    if kind != "torus":
        return sorted(nodes)
    X, Y, Z = (dims + [1, 1])[:3]
    coords = {n: (n % X, (n // X) % Y, n // (X * Y)) for n in nodes}
    whole = len(nodes) == X * Y * Z

    def span(axis, size):
        used = sorted({c[axis] for c in coords.values()})
        if whole or len(used) == size:
            return 0, size
        if len(used) == 1:
            return used[0], 1
        first, last = used[0], used[-1]
        if 2 * (last - first) < size + len(used):  # Slurm's shortcut (_min_wrap_span)
            return first, last - first + 1
        max_gap, start = size - (last - first + 1), first
        for prev, cur in zip(used, used[1:]):
            if cur - prev - 1 > max_gap:
                max_gap, start = cur - prev - 1, cur
        return start, size - max_gap

    boxes = [span(a, s) for a, s in enumerate((X, Y, Z))]
    bits = [max(0, (sp - 1).bit_length()) for _, sp in boxes]
    while sum(bits) > 16:  # TOPO_RANK_ID_SHIFT: the largest axis loses a bit first
        bits[max(range(3), key=lambda a: (bits[a], -a))] -= 1
    shift = [max(0, (sp - 1).bit_length()) - b for (_, sp), b in zip(boxes, bits)]

    def morton(n):
        rel = [((coords[n][a] + size - boxes[a][0]) % size) >> shift[a]
               for a, size in enumerate((X, Y, Z))]
        code, pos = 0, 0
        for i in range(max(bits)):
            for a in range(3):
                if i < bits[a]:
                    code |= ((rel[a] >> i) & 1) << pos
                    pos += 1
        return code

    return sorted(nodes, key=lambda n: (morton(n), n))  # ties: Slurm's node index order


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__.strip().split("\n\n")[1])
    kind, dims = sys.argv[1], [int(d) for d in sys.argv[2].split("x")]
    nodes = []
    for part in sys.argv[3].split(","):
        lo, _, hi = part.partition("-")
        nodes.extend(range(int(lo), int(hi or lo) + 1))
    print("\n".join(map(str, slurm_order(kind, dims, nodes))))


if __name__ == "__main__":
    main()
