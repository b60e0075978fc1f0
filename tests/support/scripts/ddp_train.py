"""A data parallel training script written for torchrun: it joins its process group from the
environment torchrun sets (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT), wraps its
model in DistributedDataParallel, trains on its own shard of the data, and leaves the group in
a `finally` block. Run by hand: torchrun --nproc-per-node 2 ddp_train.py --steps 20."""

import argparse
import os

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel


class Regressor(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(16, 64)
        self.fc2 = nn.Linear(64, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(torch.relu(self.fc1(x)))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--batch", type=int, default=16)
    args = parser.parse_args()
    dist.init_process_group("gloo")  # env:// from torchrun's variables
    try:
        rank, world = dist.get_rank(), dist.get_world_size()
        assert world == int(os.environ["WORLD_SIZE"])
        model = DistributedDataParallel(Regressor())
        optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
        g = torch.Generator().manual_seed(1000 + rank)  # each rank its own shard
        for step in range(args.steps):
            x = torch.randn(args.batch, 16, generator=g)
            loss = nn.functional.mse_loss(model(x), x.sum(dim=1, keepdim=True))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if rank == 0 and step % 10 == 0:
                print(f"step {step} loss {loss.item():.4f}", flush=True)
    finally:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
