"""scripts/cell/op_samples.py: samples made from the schema the dispatcher holds, with the typed
placeholders `opmatrix init` writes (harness/src/init/init_samples.cpp), for ops no samples file
has a call for (an op defined by a function pointer has no schema text to read)."""
from conftest import cell_python_json, CELL


def made(qualified):
    code = ("import json, sys; sys.path.insert(0, %r); import torch, op_samples as o\n"
            "s = o.runtime_sample(%r, 'cpu')\n"
            "print(json.dumps([s.description, [type(a).__name__ for a in s.args], sorted(s.kwargs)]))"
            % (str(CELL), qualified))
    return cell_python_json(code, "cannot make a runtime sample")


def test_tensors_and_scalars_get_inits_placeholders():
    description, types, kwargs = made("aten::add.Tensor")
    assert types == ["Tensor", "Tensor"] and kwargs == []  # alpha=1 keeps its default
    assert description.endswith("(sample made from the runtime schema)")


def test_optional_and_list_arguments():
    _, types, _ = made("aten::sum.dim_IntList")  # (Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None)
    assert types == ["Tensor", "NoneType"]


def test_mutated_tensors_are_tensors_too():
    _, types, _ = made("aten::add_.Tensor")  # Tensor(a!) self
    assert types == ["Tensor", "Tensor"]
