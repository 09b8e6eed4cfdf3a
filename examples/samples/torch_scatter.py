"""Samples for PyG's torch-scatter 2.1.2 (the torchscatter-* cells of matrix.yaml, built from its
PyPI sdist): the calls `torch_scatter.scatter(src, index, 0, reduce="sum")` and friends make
into its C++ ops, with the index already broadcast as torch_scatter's Python side does."""
import torch


def samples(device):
    src = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0]], device=device, requires_grad=True)
    index = torch.tensor([0, 0, 1, 2], device=device)  # sorted: gather_coo and the CSR ops expect that
    broadcast = index.view(-1, 1).expand_as(src).contiguous()
    indptr = torch.tensor([0, 2, 4], device=device)
    return [
        ("torch_scatter::scatter_sum", (src, broadcast, 0, None, 3), {}),
        ("torch_scatter::scatter_max", (src, broadcast, 0, None, 3), {}),
        ("torch_scatter::segment_sum_csr", (src, indptr, None), {}),
        ("torch_scatter::gather_coo", (src, index, None), {}),
    ]
