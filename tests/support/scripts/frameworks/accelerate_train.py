"""A training loop on Hugging Face Accelerate, as its documentation writes it: model,
optimizer and dataloader through `accelerator.prepare`, the backward through
`accelerator.backward`."""

import argparse

import torch
from accelerate import Accelerator
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class MLP(nn.Module):
    def __init__(self, features: int, hidden: int) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(features, hidden), nn.GELU(), nn.Linear(hidden, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--features", type=int, default=16)
    parser.add_argument("--batches", type=int, default=20)
    parser.add_argument("--compile", action="store_true", help="Accelerator(dynamo_backend=...)")
    args = parser.parse_args()

    accelerator = Accelerator(dynamo_backend="inductor" if args.compile else None)
    torch.manual_seed(0)
    x = torch.randn(args.batch_size * args.batches, args.features)
    y = x.pow(2).sum(dim=1, keepdim=True)
    dataloader = DataLoader(TensorDataset(x, y), batch_size=args.batch_size, shuffle=True)
    model = MLP(args.features, 64)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    model, optimizer, dataloader = accelerator.prepare(model, optimizer, dataloader)

    for epoch in range(args.epochs):
        model.train()
        for inputs, targets in dataloader:
            optimizer.zero_grad()
            loss = nn.functional.mse_loss(model(inputs), targets)
            accelerator.backward(loss)
            optimizer.step()
        accelerator.print(f"epoch {epoch}: loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
