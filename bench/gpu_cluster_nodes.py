#!/usr/bin/env python3
"""Writes a GPU cluster as `kubectl get nodes -o json` prints it (issue 48's bench).

The nodes carry the topology labels GKE puts on GPU nodes for Kueue's Topology Aware
Scheduling (cloud.google.com/gce-topology-block, -subblock, -host) and cloud-style
host names (a node pool and random suffixes, as GKE names its nodes), so that the
host names say nothing of where a host sits: the order torchrun gets by default.

The block label is the leaf group (the hosts under one set of rail leaf switches);
with --domain above 1, the sub-block label is the NVLink domain (--domain hosts
each, e.g. 18 hosts of 4 GPUs in a GB200 NVL72 rack).

Usage: gpu_cluster_nodes.py --groups N --hosts-per-group M --gpus G [--domain D]
                            [--pool NAME] [--seed S] -o FILE
"""

import argparse
import json
import random
import string
import sys


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--groups", type=int, required=True, help="leaf groups (blocks)")
    parser.add_argument("--hosts-per-group", type=int, required=True)
    parser.add_argument("--gpus", type=int, default=8, help="GPUs per host")
    parser.add_argument("--domain", type=int, default=1,
                        help="hosts per NVLink domain (sub-block); 1: NVLink inside a host only")
    parser.add_argument("--pool", default="a3-mega-pool", help="node pool in the host names")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    if args.groups < 1 or args.hosts_per_group < 1 or args.gpus < 1 or args.domain < 1:
        parser.error("--groups, --hosts-per-group, --gpus and --domain must be at least 1")
    if args.hosts_per_group % args.domain != 0:
        parser.error(f"--hosts-per-group {args.hosts_per_group} is not a multiple of "
                     f"--domain {args.domain}")

    rng = random.Random(args.seed)
    names = set()
    items = []
    for group in range(args.groups):
        for host in range(args.hosts_per_group):
            while True:
                name = "gke-{}-{}-{}".format(
                    args.pool, "".join(rng.choices("0123456789abcdef", k=8)),
                    "".join(rng.choices(string.ascii_lowercase + string.digits, k=4)))
                if name not in names:
                    break
            names.add(name)
            labels = {
                "cloud.google.com/gke-nodepool": args.pool,
                "cloud.google.com/gce-topology-block": f"b-{group + 1}",
                "cloud.google.com/gce-topology-host": f"h-{host + 1:03d}",
                "kubernetes.io/hostname": name,
            }
            if args.domain > 1:
                labels["cloud.google.com/gce-topology-subblock"] = \
                    f"sb-{host // args.domain + 1}"
            gpus = str(args.gpus)
            items.append({
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {"name": name, "labels": labels},
                "status": {"capacity": {"nvidia.com/gpu": gpus},
                           "allocatable": {"nvidia.com/gpu": gpus}},
            })
    # kubectl lists nodes by name.
    items.sort(key=lambda item: item["metadata"]["name"])
    with open(args.output, "w", encoding="utf-8") as out:
        json.dump({"apiVersion": "v1", "kind": "List", "items": items,
                   "metadata": {"resourceVersion": ""}}, out, indent=1)
        out.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
