#!/usr/bin/env python3
"""An allocation of a GPU cluster and the topology-sorted placement on it (issue 48).

Reads the cluster as `kubectl get nodes -o json` prints it (bench/gpu_cluster_nodes.py
writes one) and writes:
  --alloc-out FILE   the allocation, one host per line in host-name order: the order
                     Slurm's node list and kubectl give, which torchrun's hosts follow
                     when nobody sorts them (so hopmap's in-order placement on it is
                     the "hostname" placement);
  --sorted-out FILE  the topology-sorted placement as a perm file (line r: the slot of
                     rank r): hosts ordered by block (leaf group), then sub-block
                     (NVLink domain), then name, as the clouds' host-sorting scripts
                     and Slurm 26's block and tree ranking order them; rank r on the
                     (r // G)-th host, GPU r % G.

Allocations (--kind):
  whole       the first blocks, whole, in block order (hosts / hosts-per-block of them);
  fragmented  --hosts hosts drawn at random (seeded) from the first --span blocks, so
              that every block and NVLink domain they touch is partly someone else's.

Usage: gpu_training_setup.py --nodes FILE --hosts N --kind whole|fragmented
                             [--span B] [--seed S] --alloc-out FILE --sorted-out FILE
"""

import argparse
import json
import random
import sys

BLOCK = "cloud.google.com/gce-topology-block"
SUB_BLOCK = "cloud.google.com/gce-topology-subblock"


def natural_key(text):
    """b-2 before b-10."""
    head = text.rstrip("0123456789")
    tail = text[len(head):]
    return (head, int(tail) if tail else -1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nodes", required=True)
    parser.add_argument("--hosts", type=int, required=True)
    parser.add_argument("--kind", choices=["whole", "fragmented"], required=True)
    parser.add_argument("--span", type=int, default=0,
                        help="fragmented: blocks to draw from (0: all)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--alloc-out", required=True)
    parser.add_argument("--sorted-out", required=True)
    args = parser.parse_args()

    with open(args.nodes, encoding="utf-8") as f:
        items = json.load(f)["items"]
    hosts = []  # (block, sub_block, name, gpus)
    for item in items:
        labels = item["metadata"]["labels"]
        hosts.append((labels[BLOCK], labels.get(SUB_BLOCK, ""), item["metadata"]["name"],
                      int(item["status"]["capacity"]["nvidia.com/gpu"])))
    blocks = sorted({h[0] for h in hosts}, key=natural_key)
    by_block = {b: sorted((h for h in hosts if h[0] == b), key=lambda h: h[2]) for b in blocks}

    if args.kind == "whole":
        chosen = []
        for b in blocks:
            if len(chosen) >= args.hosts:
                break
            chosen += by_block[b]
        if len(chosen) != args.hosts:
            sys.exit(f"gpu_training_setup: {args.hosts} hosts are not whole blocks "
                     f"(blocks of {len(by_block[blocks[0]])})")
    else:
        span = blocks[:args.span] if args.span > 0 else blocks
        pool = [h for b in span for h in by_block[b]]
        if args.hosts > len(pool):
            sys.exit(f"gpu_training_setup: {args.hosts} hosts asked, {len(pool)} in the span")
        chosen = random.Random(args.seed).sample(pool, args.hosts)

    gpus = chosen[0][3]
    in_name_order = sorted(chosen, key=lambda h: h[2])
    position = {h[2]: i for i, h in enumerate(in_name_order)}
    with open(args.alloc_out, "w", encoding="utf-8") as out:
        out.write(f"# {args.kind}: {len(chosen)} hosts in host-name order\n")
        for h in in_name_order:
            out.write(h[2] + "\n")
    topology_order = sorted(chosen, key=lambda h: (natural_key(h[0]), natural_key(h[1]), h[2]))
    with open(args.sorted_out, "w", encoding="utf-8") as out:
        for rank in range(len(chosen) * gpus):
            host = topology_order[rank // gpus]
            out.write(f"{position[host[2]] * gpus + rank % gpus}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
