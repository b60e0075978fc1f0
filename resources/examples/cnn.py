"""A small CNN for 3x32x32 images (CIFAR-sized), with BatchNorm and a classifier head."""

import torch
import torch.nn as nn


class SmallCNN(nn.Module):
    def __init__(self, num_classes: int = 10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 32, 3, padding=1),
            nn.BatchNorm2d(32),
            nn.ReLU(),
            nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1),
            nn.BatchNorm2d(64),
            nn.ReLU(),
            nn.MaxPool2d(2),
        )
        self.head = nn.Linear(64 * 8 * 8, num_classes)

    def forward(self, x):
        return self.head(torch.flatten(self.features(x), 1))


def make_batch(batch_size, device):
    """Images and integer class labels, so the loss is cross-entropy."""
    images = torch.randn(batch_size, 3, 32, 32, device=device)
    labels = torch.randint(0, 10, (batch_size,), device=device)
    return images, labels
