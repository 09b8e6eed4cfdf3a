"""Samples of verdictops (tests/verdicts): one small input per op. count_positive's input has
positive and negative values, so its output length depends on them."""
import torch


def samples(device):
    x = torch.linspace(-1.0, 1.0, 6, device=device)
    return [("verdictops::scale", (x, 2.0), {}),
            ("verdictops::cuda_only", (x,), {}),
            ("verdictops::add_out", (x, x, torch.empty_like(x)), {}),
            ("verdictops::count_positive", (x,), {}),
            ("verdictops::wrong_fake", (x,), {}),
            ("verdictops::gpu_gated", (x,), {})]
