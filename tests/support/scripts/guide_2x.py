import torch
import torch.nn as nn
import torch.optim as optim

class SimpleModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(10, 1)

    def forward(self, x):
        return self.fc(x)

# 컴파일 추가
model = torch.compile(SimpleModel())
optimizer = optim.SGD(model.parameters(), lr=0.01)

# Training loop (변경 없음)
for epoch in range(10):
    inputs = torch.randn(32, 10)
    labels = torch.randn(32, 1)
    outputs = model(inputs)
    loss = torch.nn.functional.mse_loss(outputs, labels)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
