import torch

import tallyops

print(tallyops.table({"ones": torch.ones(4), "ramp": torch.arange(4.0)}))
