"""A LightningModule trained by Lightning's `Trainer`, as its documentation writes it: the
module owns its `training_step`, `validation_step` and `configure_optimizers`, and the
Trainer's optimizer step runs a closure that does the forward and backward. Before training the
Trainer's sanity check runs two validation batches (under no_grad, the model in eval mode): a
compiled model's first compile happens there, before the first optimizer step. No checkpoints,
no logger."""

import argparse

import pytorch_lightning as pl
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class LitRegressor(pl.LightningModule):
    def __init__(self, features: int = 16, hidden: int = 64) -> None:
        super().__init__()
        self.net = nn.Sequential(nn.Linear(features, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.net(x)

    def training_step(self, batch, batch_idx):
        x, y = batch
        loss = nn.functional.mse_loss(self(x), y)
        self.log("train_loss", loss)
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        self.log("val_loss", nn.functional.mse_loss(self(x), y))

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-3)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--max-steps", type=int, default=40)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--features", type=int, default=16)
    args = parser.parse_args()

    pl.seed_everything(0)
    x = torch.randn(args.batch_size * args.max_steps, args.features)
    y = x.pow(2).sum(dim=1, keepdim=True)
    loader = DataLoader(TensorDataset(x, y), batch_size=args.batch_size, shuffle=True)
    val_x = torch.randn(2 * args.batch_size, args.features)
    val_loader = DataLoader(
        TensorDataset(val_x, val_x.pow(2).sum(dim=1, keepdim=True)), args.batch_size
    )
    model = LitRegressor(args.features)
    trainer = pl.Trainer(
        max_steps=args.max_steps,
        accelerator="auto",
        devices=1,
        logger=False,
        enable_checkpointing=False,
        enable_progress_bar=False,
        enable_model_summary=False,
    )
    trainer.fit(model, train_dataloaders=loader, val_dataloaders=val_loader)


if __name__ == "__main__":
    main()
