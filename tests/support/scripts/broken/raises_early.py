"""A script that fails while setting up, before its first optimizer step."""

import torch


def build():
    raise ValueError("the data folder is missing")


model = torch.nn.Linear(4, 1)
build()
