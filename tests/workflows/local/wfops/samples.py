"""Sample calls of wfops' op, for opcheck, compile, export and the fake device."""
import torch


def samples(device):
    return [("wfops::scale", (torch.rand(4, 4, device=device), 3.0), {})]
