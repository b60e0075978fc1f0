"""A sequence model whose batches vary in length, as real text batches do: each batch is padded
to its own longest sequence, so the time dimension changes from one step to the next."""

import argparse

import torch
from torch import nn


class Tagger(nn.Module):
    def __init__(self, vocab: int = 100, dim: int = 32, classes: int = 5) -> None:
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.mix = nn.Linear(dim, dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        h = torch.tanh(self.mix(self.embed(tokens)))
        return self.head(h.mean(dim=1))


def batches(steps: int, batch: int, lengths: list[int]):
    g = torch.Generator().manual_seed(0)
    for i in range(steps):
        length = lengths[i % len(lengths)]
        yield (
            torch.randint(0, 100, (batch, length), generator=g),
            torch.randint(0, 5, (batch,), generator=g),
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--lengths", default="12,20,28,36")
    args = parser.parse_args()
    model = Tagger()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
    lengths = [int(n) for n in args.lengths.split(",")]
    for tokens, labels in batches(args.steps, args.batch, lengths):
        loss = nn.functional.cross_entropy(model(tokens), labels)
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()


if __name__ == "__main__":
    main()
