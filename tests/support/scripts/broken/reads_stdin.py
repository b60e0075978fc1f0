"""A script that asks its user a question before training."""

import torch

model = torch.nn.Linear(4, 1)
answer = input("train for how many epochs? ")
