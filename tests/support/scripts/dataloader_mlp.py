"""Train an MLP on a Dataset through a DataLoader with worker processes, as most training
scripts feed their model: argparse options, `if __name__ == "__main__":`, epochs of batches."""

import argparse

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset


class Squares(Dataset):
    """x -> the sum of its squares, each sample made from its index (so every worker agrees)."""

    def __init__(self, size: int, features: int) -> None:
        self.size, self.features = size, features

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, i: int):
        g = torch.Generator().manual_seed(i)
        x = torch.randn(self.features, generator=g)
        return x, x.pow(2).sum(dim=0, keepdim=True)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--num-workers", type=int, default=2)
    parser.add_argument("--features", type=int, default=16)
    args = parser.parse_args()

    model = nn.Sequential(nn.Linear(args.features, 64), nn.ReLU(), nn.Linear(64, 1))
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    loader = DataLoader(
        Squares(512, args.features),
        batch_size=args.batch_size,
        shuffle=True,
        num_workers=args.num_workers,
    )
    for epoch in range(args.epochs):
        total = 0.0
        for x, y in loader:
            loss = nn.functional.mse_loss(model(x), y)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            total += loss.item()
        print(f"epoch {epoch}: mean loss {total / len(loader):.4f}")


if __name__ == "__main__":
    main()
