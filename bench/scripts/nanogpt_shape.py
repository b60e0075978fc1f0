"""A plain training script of nanoGPT's shape, for timing `tcprof run -- python` on it: a GPT of
2 layers, 64 wide (2 heads), block 64, batch 8, gradient accumulation 2, AdamW, an evaluation
under no_grad before training (as nanoGPT's train.py does at iteration 0) and every
`--eval-interval` steps, `torch.compile` when `--compile` is given. The data is a seeded random
token stream made in memory (every other token a function of the one before it, so the loss
falls): nothing is downloaded or written.

    python bench/scripts/nanogpt_shape.py [--max-iters 400] [--compile]
    tcprof run -- python bench/scripts/nanogpt_shape.py
"""

import argparse
import math

import torch
from torch import nn
from torch.nn import functional as F

parser = argparse.ArgumentParser()
parser.add_argument("--max-iters", type=int, default=400)
parser.add_argument("--eval-interval", type=int, default=100)
parser.add_argument("--eval-iters", type=int, default=4)
parser.add_argument("--compile", action="store_true")
args = parser.parse_args()

N_LAYER, N_HEAD, N_EMBD, BLOCK, BATCH, ACCUM, VOCAB = 2, 2, 64, 64, 8, 2, 256

torch.manual_seed(1337)
tokens = torch.randint(0, VOCAB, (50_000,), generator=torch.Generator().manual_seed(0))
tokens[1::2] = (tokens[::2] * 7 + 3) % VOCAB  # something to learn
split = int(len(tokens) * 0.9)
data = {"train": tokens[:split], "val": tokens[split:]}


def get_batch(name: str) -> tuple[torch.Tensor, torch.Tensor]:
    stream = data[name]
    ix = torch.randint(len(stream) - BLOCK, (BATCH,))
    x = torch.stack([stream[i : i + BLOCK] for i in ix])
    y = torch.stack([stream[i + 1 : i + 1 + BLOCK] for i in ix])
    return x, y


class Block(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.ln_1 = nn.LayerNorm(N_EMBD)
        self.c_attn = nn.Linear(N_EMBD, 3 * N_EMBD)
        self.c_proj = nn.Linear(N_EMBD, N_EMBD)
        self.ln_2 = nn.LayerNorm(N_EMBD)
        self.mlp = nn.Sequential(
            nn.Linear(N_EMBD, 4 * N_EMBD), nn.GELU(), nn.Linear(4 * N_EMBD, N_EMBD)
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, c = x.size()
        q, k, v = self.c_attn(self.ln_1(x)).split(N_EMBD, dim=2)
        q, k, v = (z.view(b, t, N_HEAD, c // N_HEAD).transpose(1, 2) for z in (q, k, v))
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.c_proj(y.transpose(1, 2).contiguous().view(b, t, c))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.wte = nn.Embedding(VOCAB, N_EMBD)
        self.wpe = nn.Embedding(BLOCK, N_EMBD)
        self.h = nn.ModuleList([Block() for _ in range(N_LAYER)])
        self.ln_f = nn.LayerNorm(N_EMBD)
        self.lm_head = nn.Linear(N_EMBD, VOCAB, bias=False)
        self.wte.weight = self.lm_head.weight  # weight tying

    def forward(self, idx: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
        pos = torch.arange(idx.size(1), device=idx.device)
        x = self.wte(idx) + self.wpe(pos)
        for block in self.h:
            x = block(x)
        logits = self.lm_head(self.ln_f(x))
        return F.cross_entropy(logits.view(-1, VOCAB), targets.view(-1))


model = GPT()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.95), weight_decay=0.1)
if args.compile:
    model = torch.compile(model)


@torch.no_grad()
def estimate_loss() -> dict[str, float]:
    model.eval()
    out = {}
    for name in ("train", "val"):
        out[name] = sum(float(model(*get_batch(name))) for _ in range(args.eval_iters))
        out[name] /= args.eval_iters
    model.train()
    return out


def lr_at(it: int) -> float:
    warmup = 20
    if it < warmup:
        return 1e-3 * (it + 1) / warmup
    return 1e-4 + 0.5 * (1 + math.cos(math.pi * it / args.max_iters)) * (1e-3 - 1e-4)


for it in range(args.max_iters):
    if it % args.eval_interval == 0:  # at 0: an evaluation before training
        losses = estimate_loss()
        print(f"step {it}: train loss {losses['train']:.4f}, val loss {losses['val']:.4f}")
    for group in optimizer.param_groups:
        group["lr"] = lr_at(it)
    for _ in range(ACCUM):
        x, y = get_batch("train")
        loss = model(x, y) / ACCUM
        loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
