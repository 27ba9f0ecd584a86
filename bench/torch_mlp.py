# A 1000-step MLP in PyTorch (Debian's python3-torch): the big program of bench/big.sh.
# Fixed seed and sizes, one thread, so that runs compare.
import sys
import time

import torch

torch.manual_seed(0)
torch.set_num_threads(1)
steps = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
model = torch.nn.Sequential(
    torch.nn.Linear(256, 512), torch.nn.ReLU(),
    torch.nn.Linear(512, 512), torch.nn.ReLU(),
    torch.nn.Linear(512, 10))
opt = torch.optim.SGD(model.parameters(), lr=0.01)
loss_fn = torch.nn.CrossEntropyLoss()
x = torch.randn(64, 256)
y = torch.randint(0, 10, (64,))
for _ in range(steps):
    opt.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    opt.step()
print("loss %.4f" % loss.item())
# the report time of bench/big.py is counted from here
print("main returns at %.6f" % time.time(), file=sys.stderr)
