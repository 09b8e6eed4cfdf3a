"""scripts/cell/dispatcher.py: kernel_table / served_by follow the C++ cases' rule
(kernelServing() in cases/common/dispatch.cpp): the key itself; for Autograd then AutogradCPU,
AutogradCUDA; for other keys then CompositeExplicitAutograd, BackendSelect; finally
CompositeImplicitAutograd."""
import importlib
import itertools
import json
import re
import subprocess
import sys

import pytest

from conftest import CELL, CELL_PYTHON, REPO, cell_env

sys.path.insert(0, str(CELL))
dispatcher = importlib.import_module("dispatcher")

CEA, CIA, BS = "CompositeExplicitAutograd", "CompositeImplicitAutograd", "BackendSelect"


def rule(registered, key):
    """The rule as cases/common/dispatch.cpp states it, written out independently."""
    order = [key] + (["AutogradCPU", "AutogradCUDA"] if key == "Autograd" else [CEA, BS]) + [CIA]
    return next((k for k in order if k in registered), None)


# ---------------------------------------------------------------------------------------------
# The constant mirrors the C++ source.

def test_serving_order_mirrors_the_cpp_cases():
    src = (REPO / "cases" / "common" / "dispatch.cpp").read_text()
    body = src[src.index("kernelServing("):src.index("std::string dispatchTable")]
    assert re.search(r"std::vector<K> candidates\{key\};", body), "the C++ no longer starts with the key itself"
    m = re.search(r"if \(key == K::(\w+)\) \{(.*?)\} else \{(.*?)\}(.*?)for \(", body, re.S)
    assert m, "kernelServing() changed shape: update dispatcher.SERVING_ORDER and this test together"
    pushed = lambda text: tuple(re.findall(r"candidates\.push_back\(K::(\w+)\)", text))  # noqa: E731
    special, special_then, other_then, finally_ = m.group(1), pushed(m.group(2)), pushed(m.group(3)), pushed(m.group(4))
    assert set(dispatcher.SERVING_ORDER) == {special, "*"}
    assert dispatcher.SERVING_ORDER[special] == ("{key}",) + special_then + finally_
    assert dispatcher.SERVING_ORDER["*"] == ("{key}",) + other_then + finally_


def test_candidates():
    assert dispatcher.candidates("Autograd") == ["Autograd", "AutogradCPU", "AutogradCUDA", CIA]
    assert dispatcher.candidates("CPU") == ["CPU", CEA, BS, CIA]
    assert dispatcher.candidates("Meta") == ["Meta", CEA, BS, CIA]
    # Only the alias key Autograd has the per-backend fallbacks (as in the C++).
    assert dispatcher.candidates("AutogradCPU") == ["AutogradCPU", CEA, BS, CIA]


# ---------------------------------------------------------------------------------------------
# The rule against a stand-in dispatcher: every combination of registrations, no torch needed.

class FakeC:
    KNOWN = {"CPU", "CUDA", "Meta", "Autograd", "AutogradCPU", "AutogradCUDA", CEA, BS, CIA}

    def __init__(self, ops):
        self.ops = ops  # {"ns::op": set of keys with a kernel}
        self.calls = []

    def _dispatch_has_kernel_for_dispatch_key(self, name, key):
        self.calls.append((name, key))
        if name not in self.ops:
            raise RuntimeError("operator %s does not exist" % name)
        if key not in self.KNOWN:
            raise RuntimeError("could not parse dispatch key: %s" % key)
        return key in self.ops[name]


    def _dispatch_get_all_op_names(self):
        return list(self.ops)


class FakeTorch:
    def __init__(self, ops):
        self._C = FakeC(ops)


REGISTRABLE = ["CPU", "CUDA", "Meta", "Autograd", "AutogradCPU", "AutogradCUDA", CEA, BS, CIA]


def test_every_combination_follows_the_rule():
    combos = [frozenset(c) for n in range(len(REGISTRABLE) + 1) for c in itertools.combinations(REGISTRABLE, n)]
    ops = {"ns::op%d" % i: set(c) for i, c in enumerate(combos)}
    torch = FakeTorch(ops)
    names = ["op%d" % i for i in range(len(combos))]
    served = dispatcher.served_by(torch, "ns", names)
    table = dispatcher.kernel_table(torch, "ns", names)
    for i, c in enumerate(combos):
        for key in dispatcher.KEYS:
            assert served["op%d" % i][key] == rule(c, key), (sorted(c), key)
            assert table["op%d" % i][key] is (rule(c, key) is not None), (sorted(c), key)


def test_first_candidate_wins():
    torch = FakeTorch({"ns::all": set(REGISTRABLE), "ns::late": {"AutogradCUDA", CEA, CIA}})
    served = dispatcher.served_by(torch, "ns", ["all", "late"])
    assert served["all"] == {"CPU": "CPU", "CUDA": "CUDA", "Meta": "Meta", "Autograd": "Autograd"}
    assert served["late"] == {"CPU": CEA, "CUDA": CEA, "Meta": CEA, "Autograd": "AutogradCUDA"}


def test_missing_op_is_none_in_both_tables():
    torch = FakeTorch({"ns::there": {"CPU"}})
    assert dispatcher.kernel_table(torch, "ns", ["gone"]) == {"gone": {k: None for k in dispatcher.KEYS}}
    assert dispatcher.served_by(torch, "ns", ["gone"]) == {"gone": {k: None for k in dispatcher.KEYS}}
    assert dispatcher.kernel_table(torch, "ns", ["there"])["there"]["CPU"] is True


def test_an_op_defined_by_its_out_variant_alone_answers_by_that_name():
    # zentorch 2.14.0.1 defines zentorch_group_matmul.out and no default overload: registered.
    torch = FakeTorch({"ns::grouped.out": {"CPU", "Meta"}, "ns::grouped_other.default": {"CPU"}})
    assert dispatcher.kernel_table(torch, "ns", ["grouped"]) == {"grouped": {"CPU": True, "CUDA": False, "Meta": True,
                                                                             "Autograd": False}}
    assert dispatcher.kernel_table(torch, "ns", ["gone"]) == {"gone": {k: None for k in dispatcher.KEYS}}


def test_unknown_key_gives_no_answer():
    torch = FakeTorch({"ns::op": {CIA}})
    assert dispatcher.kernel_table(torch, "ns", ["op"], keys=["NoSuchKey", "CPU"]) == {"op": {"NoSuchKey": None, "CPU": True}}
    assert dispatcher.served_by(torch, "ns", ["op"], keys=["NoSuchKey", "CPU"]) == {"op": {"NoSuchKey": None, "CPU": CIA}}


def test_fallback_key_this_torch_lacks_is_skipped():
    # An old torch without one of the fallback keys: the rest of the order still applies.
    torch = FakeTorch({"ns::op": {CIA}, "ns::cpu": {"CPU"}})
    torch._C.KNOWN = FakeC.KNOWN - {CEA}
    assert dispatcher.served_by(torch, "ns", ["op"]) == {"op": {k: CIA for k in dispatcher.KEYS}}
    assert dispatcher.kernel_table(torch, "ns", ["cpu"]) == {"cpu": {"CPU": True, "CUDA": False, "Meta": False,
                                                                     "Autograd": False}}


def test_torch_without_the_query_gives_none():
    class Bare:
        _C = object()
    assert dispatcher.kernel_table(Bare(), "ns", ["op"]) == {"op": {k: None for k in dispatcher.KEYS}}
    assert dispatcher.served_by(Bare(), "ns", ["op"]) == {"op": {k: None for k in dispatcher.KEYS}}


def test_keys_argument_and_order_are_kept():
    torch = FakeTorch({"ns::op": {"AutogradCPU"}})
    keys = ["Autograd", "AutogradCPU", "CPU"]
    row = dispatcher.served_by(torch, "ns", ["op"], keys=keys)["op"]
    assert list(row) == keys
    assert row == {"Autograd": "AutogradCPU", "AutogradCPU": "AutogradCPU", "CPU": None}


def test_ops_in_namespace_stand_in():
    class C:
        @staticmethod
        def _dispatch_get_all_op_names():
            return ["ns::b.out", "ns::a", "ns::b", "other::a", "nsx::c"]

    class T:
        _C = C()
    assert dispatcher.ops_in_namespace(T(), "ns") == ["a", "b"]

    class Old:
        _C = object()
    assert dispatcher.ops_in_namespace(Old(), "ns") is None


# ---------------------------------------------------------------------------------------------
# The real dispatcher: ops defined from Python with torch.library, in the cell Python.

DRIVER = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import torch
from torch.library import Library
import dispatcher
spec = json.loads(sys.argv[2])
lib = Library("opm_pydisp", "DEF")
impls = []
for op, keys in spec.items():
    lib.define("%s(Tensor x) -> Tensor" % op)
    for key in keys:
        lib.impl(op, lambda x: x, key)
ops = list(spec) + ["not_defined"]
keys = dispatcher.KEYS + ["AutogradCPU"]
raw = {op: {k: bool(torch._C._dispatch_has_kernel_for_dispatch_key("opm_pydisp::" + op, k))
            for k in ["CPU", "CUDA", "Meta", "Autograd", "AutogradCPU", "AutogradCUDA",
                      "CompositeExplicitAutograd", "BackendSelect", "CompositeImplicitAutograd"]} for op in spec}
print(json.dumps({"table": dispatcher.kernel_table(torch, "opm_pydisp", ops, keys),
                  "served": dispatcher.served_by(torch, "opm_pydisp", ops, keys),
                  "default_keys": dispatcher.served_by(torch, "opm_pydisp", ops[:1]),
                  "listed": dispatcher.ops_in_namespace(torch, "opm_pydisp"),
                  "can_list": hasattr(torch._C, "_dispatch_get_all_op_names"),
                  "raw": raw}))
"""

SPEC = {
    "cpu_only": ["CPU"],
    "explicit": [CEA],
    "implicit": [CIA],
    "cpu_and_explicit": ["CPU", CEA],
    "meta_and_implicit": ["Meta", CIA],
    "autograd_alias": ["Autograd", "CPU"],
    "autograd_cpu": ["AutogradCPU"],
    "autograd_cuda_and_explicit": ["AutogradCUDA", CEA],
    "autograd_both": ["AutogradCUDA", "AutogradCPU"],
    # torchcodec's ops (most of them take no tensor) are registered for BackendSelect alone.
    "backend_select": [BS],
    "nothing": [],
}


@pytest.fixture(scope="module")
def real(torch_info):
    p = subprocess.run([CELL_PYTHON, "-c", DRIVER, str(CELL), json.dumps(SPEC)], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True, env=cell_env(), timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    return json.loads(p.stdout.strip().splitlines()[-1])


def test_real_registrations_are_what_was_registered(real):
    # The premise: torch reports exactly the registrations made (no implicit extra kernels).
    for op, keys in SPEC.items():
        assert {k for k, v in real["raw"][op].items() if v} == set(keys), op


@pytest.mark.parametrize("op", sorted(SPEC))
def test_real_served_by_follows_the_rule(real, op):
    for key in dispatcher.KEYS + ["AutogradCPU"]:
        assert real["served"][op][key] == rule(set(SPEC[op]), key), key
        assert real["table"][op][key] is (rule(set(SPEC[op]), key) is not None), key


def test_real_spot_checks(real):
    s = real["served"]
    # CompositeExplicitAutograd serves every backend key but not Autograd.
    assert s["explicit"] == {"CPU": CEA, "CUDA": CEA, "Meta": CEA, "Autograd": None, "AutogradCPU": CEA}
    # CompositeImplicitAutograd serves everything.
    assert set(s["implicit"].values()) == {CIA}
    # The key's own kernel comes before the composite one.
    assert s["cpu_and_explicit"]["CPU"] == "CPU" and s["cpu_and_explicit"]["CUDA"] == CEA
    assert s["autograd_both"]["Autograd"] == "AutogradCPU"
    assert s["autograd_cuda_and_explicit"]["Autograd"] == "AutogradCUDA"
    assert s["nothing"] == {k: None for k in s["nothing"]}
    # Before the change kernel_table asked for the exact key only: explicit's CPU was False.
    assert real["table"]["explicit"]["CPU"] is True
    assert real["default_keys"] == {"cpu_only": {"CPU": "CPU", "CUDA": None, "Meta": None, "Autograd": None}}


def test_real_missing_op(real):
    assert real["table"]["not_defined"] == {k: None for k in dispatcher.KEYS + ["AutogradCPU"]}
    assert real["served"]["not_defined"] == {k: None for k in dispatcher.KEYS + ["AutogradCPU"]}


def test_real_ops_in_namespace(real):
    if real["can_list"]:
        assert real["listed"] == sorted(SPEC)
    else:  # torch 1.13 has no _dispatch_get_all_op_names: the caller must name the ops
        assert real["listed"] is None


SITES = r"""
import json, sys
sys.path.insert(0, sys.argv[1])
import torch
from torch.library import Library
import dispatcher
lib = Library("opm_sites", "DEF")
lib.define("py_cpu(Tensor x) -> Tensor")
lib.impl("py_cpu", lambda x: x, "CPU")
lib.define("nothing(Tensor x) -> Tensor")
print(json.dumps(dispatcher.registration_sites(torch, "opm_sites", ["py_cpu", "nothing", "not_defined"])))
"""


def test_registration_sites_say_where_each_kernel_was_registered(torch_info):
    # The file and line the dispatcher recorded: a Python one's for torch.library, a C++ source's
    # for TORCH_LIBRARY_IMPL (torchcodec's custom_ops.cpp:657); ops without a kernel, or not
    # defined, are left out.
    p = subprocess.run([CELL_PYTHON, "-c", SITES, str(CELL)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, env=cell_env(), timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    sites = json.loads(p.stdout.strip().splitlines()[-1])
    assert list(sites) == ["py_cpu"], sites
    assert list(sites["py_cpu"]) == ["CPU"]
    # A Python file's line, or /dev/null's where torch found no Python frame to name (python -c).
    assert re.search(r"\.py:\d+$|^/dev/null:\d+$", sites["py_cpu"]["CPU"]), sites
