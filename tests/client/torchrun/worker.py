"""The torchrun test's worker: one all-reduce over gloo (CPU), then where it ran.

Prints "hopmap-worker RANK LOCAL_RANK HOST GPU SUM": HOST is the host its torchrun
plays (HOPMAP_HOST), GPU the device CUDA_VISIBLE_DEVICES gives its local rank, SUM
the all-reduce of every rank's rank + 1 (so the ranks really formed one job).
"""
import os

import torch
import torch.distributed as dist


def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    local_rank = int(os.environ["LOCAL_RANK"])
    total = torch.tensor([rank + 1], dtype=torch.int64)
    dist.all_reduce(total)
    gpu = os.environ["CUDA_VISIBLE_DEVICES"].split(",")[local_rank]
    print("hopmap-worker", rank, local_rank, os.environ["HOPMAP_HOST"], gpu, int(total.item()),
          flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
