"""A tiny token-id language model trained as nanoGPT trains: the model made inside a function,
its optimizer made by the model's own method (where the model is `self`), gradient
accumulation of 2 micro-batches of B x T token ids per optimizer step, and a file it writes."""

import torch
from torch import nn

VOCAB, B, T, ACCUM = 32, 3, 5, 2


class TinyLM(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.emb = nn.Embedding(VOCAB, 8)
        self.head = nn.Linear(8, VOCAB)

    def forward(self, idx, targets):
        logits = self.head(self.emb(idx))
        return nn.functional.cross_entropy(logits.view(-1, VOCAB), targets.view(-1))

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=1e-3)


def main() -> None:
    model = TinyLM()
    optimizer = model.configure_optimizers()
    for it in range(40):
        for _ in range(ACCUM):
            x = torch.randint(0, VOCAB, (B, T))
            loss = model(x, x) / ACCUM
            loss.backward()
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
        with open("lm_log.txt", "w") as log:
            log.write(f"{it} {loss.item()}\n")


main()
