"""A causal language model trained with Hugging Face Transformers' `Trainer`, as its
documentation writes it: a model built from its config (no download), a dataset of token ids,
`TrainingArguments` and `trainer.train()`. The Trainer owns the loop, the seeds and the logging;
nothing is saved and nothing is reported anywhere."""

import argparse

import torch
from torch.utils.data import Dataset
from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainingArguments


class RandomTokens(Dataset):
    """Random token ids, each sample its own labels (the model shifts them)."""

    def __init__(self, size: int, seq_len: int, vocab_size: int) -> None:
        g = torch.Generator().manual_seed(0)
        self.ids = torch.randint(0, vocab_size, (size, seq_len), generator=g)

    def __len__(self) -> int:
        return len(self.ids)

    def __getitem__(self, i: int) -> dict:
        return {"input_ids": self.ids[i], "labels": self.ids[i]}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--max-steps", type=int, default=40)
    parser.add_argument("--batch-size", type=int, default=8)
    parser.add_argument("--seq-len", type=int, default=32)
    parser.add_argument("--layers", type=int, default=1)
    parser.add_argument("--embd", type=int, default=32)
    parser.add_argument("--out", default="hf_out")
    parser.add_argument(
        "--compile", action="store_true", help="TrainingArguments(torch_compile=True)"
    )
    args = parser.parse_args()

    config = GPT2Config(
        n_layer=args.layers,
        n_embd=args.embd,
        n_head=2,
        vocab_size=128,
        n_positions=args.seq_len,
        bos_token_id=0,
        eos_token_id=0,
    )
    model = GPT2LMHeadModel(config)
    training_args = TrainingArguments(
        output_dir=args.out,
        max_steps=args.max_steps,
        per_device_train_batch_size=args.batch_size,
        learning_rate=1e-3,
        logging_steps=10,
        save_strategy="no",
        report_to="none",
        use_cpu=not torch.cuda.is_available(),
        dataloader_num_workers=0,
        disable_tqdm=True,
        torch_compile=args.compile,
    )
    trainer = Trainer(
        model=model,
        args=training_args,
        train_dataset=RandomTokens(args.batch_size * args.max_steps, args.seq_len, 128),
    )
    trainer.train()


if __name__ == "__main__":
    main()
