"""The behaviour checks (opcheck_check.py, compile_check.py, export_check.py, fake_device.py)
and their shared op_samples.py. With the host's torch (Debian's 1.13: no opcheck, no compile,
no export, CPU-only) the contract, the skip reasons, the samples-file errors, labels, sample
descriptions and output comparison. Tests that need torch >= 2.4 run when OPMATRIX_TEST_PYTHON
names a Python with it (a wrapper around `podman run` of a cell image will do) and skip with the
reason otherwise. The ops are real: aten's, torchvision's, and ops a samples file defines with
torch.library."""
import json
import os
import subprocess
import sys
import textwrap

import pytest

from conftest import CELL, CELL_PYTHON, cell_env, run_json

sys.path.insert(0, str(CELL))
import op_samples  # noqa: E402

SCRIPTS = {"opcheck_check.py": "opcheck", "compile_check.py": "compile", "export_check.py": "export",
           "fake_device.py": "fake-device"}

ADD_SAMPLES = """
import torch
def samples(device):
    return [("aten::add.Tensor", (torch.ones(2, 3, device=device), torch.ones(2, 3, device=device)), {})]
"""


def cell_torch(python):
    p = subprocess.run([python, "-c", "import torch; print(torch.__version__); print(torch.version.cuda)"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True, timeout=300)
    if p.returncode != 0:
        return None, None
    version, cuda = p.stdout.split()[-2:]
    return version, None if cuda == "None" else cuda


def version_tuple(v):
    return tuple(int(x) for x in v.split("+")[0].split(".")[:2] if x.isdigit())


@pytest.fixture(scope="module")
def host_torch():
    version, cuda = cell_torch(CELL_PYTHON)
    if version is None:
        pytest.skip("%s cannot import torch" % CELL_PYTHON)
    return version, cuda


@pytest.fixture(scope="module")
def torch2():
    """The cell Python when its torch is >= 2.4 (opcheck, compile, export, fake CUDA tensors)."""
    version, cuda = cell_torch(CELL_PYTHON)
    if version is None or version_tuple(version) < (2, 4):
        why = "OPMATRIX_TEST_PYTHON=%s has torch %s, these tests need >= 2.4" % (CELL_PYTHON, version)
        print(why)
        pytest.skip(why)
    return version, cuda


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text))
    return str(path)


def run_check(script, tmp_path, samples="", ops="", namespace="opmatrix", libs=(), extra=None, timeout=600):
    env = cell_env(OPMATRIX_NAMESPACE=namespace, OPMATRIX_OPS=ops, OPMATRIX_SAMPLES=samples, OPMATRIX_IMPORT="",
                   OPMATRIX_EXPECT_CUDA="0", **(extra or {}))
    out, _ = run_json(script, *libs, env=env, timeout=timeout, cwd=str(tmp_path))
    assert set(c["check"] for c in out["checks"]) <= {SCRIPTS[script]}
    for c in out["checks"]:
        assert c["status"] in ("pass", "fail", "skip", "error"), c
        assert c["status"] != "fail" or c["diagnosis"]["kind"], c
    return out["checks"]


def by_op(checks):
    return {c.get("op", ""): c for c in checks}


# --- op_samples.py, in this process ---------------------------------------------------------------

def test_labels_are_short_inside_the_namespace_and_qualified_elsewhere():
    assert op_samples.label("opmatrix::nms", "opmatrix") == "nms"
    assert op_samples.label("opmatrix::nms.default", "opmatrix") == "nms"
    assert op_samples.label("torchvision::nms", "opmatrix") == "torchvision::nms"
    assert op_samples.split_name("boxops::box_iou.out") == ("boxops", "box_iou", "out")
    with pytest.raises(ValueError):
        op_samples.split_name("nms")


def test_sample_description_names_dtypes_shapes_and_constants():
    import torch
    d = op_samples.describe("torchvision::nms", (torch.zeros(8, 4), torch.zeros(8, dtype=torch.float64), 0.5), {})
    assert d == "nms(f32[8,4], f64[8], 0.5)"
    d = op_samples.describe("ns::op.out", (torch.zeros(0, dtype=torch.int64), [1, 2]), {"flag": True})
    assert d == "op.out(i64[0], [1, 2], flag=True)"


def test_compare_tolerates_rounding_but_not_integers_shapes_or_arity():
    import torch
    x = torch.tensor([1.0, 2.0])
    assert op_samples.compare(x + 1e-7, x) is None
    assert "values differ" in op_samples.compare(x + 1e-3, x)
    assert "must be equal" in op_samples.compare(torch.tensor([1, 3]), torch.tensor([1, 2]))
    assert "shape [3], expected [2]" in op_samples.compare(torch.zeros(3), torch.zeros(2))
    assert "dtype" in op_samples.compare(x.double(), x)
    assert "expected 2 outputs" in op_samples.compare((x,), (x, x))
    assert "output[1]" in op_samples.compare((x, x), (x, x + 1))
    assert op_samples.compare(torch.tensor([float("nan")]), torch.tensor([float("nan")])) is None


def test_excerpt_keeps_the_type_and_the_cause_and_is_cut():
    try:
        try:
            raise RuntimeError("x" * 2000)
        except RuntimeError as inner:
            raise ValueError("wrapped") from inner
    except ValueError as e:
        text = op_samples.excerpt(e)
    assert text.startswith("ValueError (from RuntimeError): wrapped")
    try:
        raise RuntimeError("y" * 2000)
    except RuntimeError as e:
        assert len(op_samples.excerpt(e)) == op_samples.MESSAGE_CHARS


def test_a_failure_from_a_requirement_beside_torch_names_it(tmp_path):
    # Debian's torch 2.6 beside the triton 3.9 an unpinned `triton` brings: torch's own compile
    # machinery raises "cannot import name 'AttrsDescriptor' from 'triton.compiler.compiler'
    # (/build/deps/triton/compiler/compiler.py)" for every op; the package is at fault, not the op.
    deps = tmp_path / "deps" / "opm_req"
    deps.mkdir(parents=True)
    (deps / "__init__.py").write_text("")
    (deps / "compiler.py").write_text("def go():\n    raise ImportError('cannot import name X')\n")
    sys.path.insert(0, str(tmp_path / "deps"))
    try:
        import opm_req.compiler
        try:
            opm_req.compiler.go()
        except ImportError as e:
            raised = e
        env = {"OPMATRIX_BUILD": str(tmp_path)}
        assert op_samples.requirement_at_fault(raised, env) == ("opm_req", "")
        # Named only in the message, as torch re-raises it (the frames are torch's).
        named = ImportError("cannot import name 'AttrsDescriptor' from 'triton.compiler.compiler' (%s)"
                            % (tmp_path / "deps" / "triton" / "compiler" / "compiler.py"))
        assert op_samples.requirement_at_fault(named, env) == ("triton", "")
        # Met through BUILD/site, where build_wheel.py links the requirement's folder (torch-blocksparse
        # 1.1.1's unpinned `triton`: "... (/build/site/triton/compiler/compiler.py)").
        (tmp_path / "deps" / "triton").mkdir()
        (tmp_path / "site").mkdir()
        (tmp_path / "site" / "triton").symlink_to(os.path.join("..", "deps", "triton"))
        (tmp_path / "site" / "own_package").mkdir()
        via_site = ImportError("cannot import name 'AttrsDescriptor' from 'triton.compiler.compiler' (%s)"
                               % (tmp_path / "site" / "triton" / "compiler" / "compiler.py"))
        assert op_samples.requirement_at_fault(via_site, env) == ("triton", "")
        own = ImportError("cannot import name 'x' from 'own_package' (%s)" % (tmp_path / "site" / "own_package" / "__init__.py"))
        assert op_samples.requirement_at_fault(own, env) is None  # the package's own file: not a requirement's
        assert op_samples.requirement_at_fault(RuntimeError("the op's own error"), env) is None
        # Any other failure inside a requirement's code (an op that runs through it) stays the op's.
        try:
            exec(compile("raise RuntimeError('a kernel failed')", str(deps / "compiler.py"), "exec"))
        except RuntimeError as inner:
            assert op_samples.requirement_at_fault(inner, env) is None
        assert op_samples.requirement_at_fault(raised, {}) is None
        # fake_device.py tells it the same way (torch-blocksparse 1.1.1 beside Debian's CUDA torch 2.6:
        # "on fake CUDA tensors, nms(...) raises ImportError ..." with the fix for a fake kernel). Its
        # fake-tensor machinery stood in for (this torch has none): the op runs eagerly, then raises
        # inside the mode.
        import contextlib
        import types
        import fake_device
        calls = []

        def op(*args):
            calls.append(args)
            if len(calls) > 1:
                raise via_site
            return args[0]
        sample = types.SimpleNamespace(op=op, args=(1,), kwargs={}, description="nms(f32[8,4], f32[8], 0.5)")
        saved = fake_device.fake_mode, fake_device.fake_cuda, os.environ.get("OPMATRIX_BUILD")
        fake_device.fake_mode, fake_device.fake_cuda = contextlib.nullcontext, lambda torch, x: x
        os.environ["OPMATRIX_BUILD"] = str(tmp_path)
        try:
            import torch
            r = fake_device.check_op(torch, "torchvision::nms", [sample])
        finally:
            fake_device.fake_mode, fake_device.fake_cuda = saved[0], saved[1]
            if saved[2] is None:
                os.environ.pop("OPMATRIX_BUILD")
            else:
                os.environ["OPMATRIX_BUILD"] = saved[2]
        assert r["diagnosis"]["kind"] == "requirement_breaks_torch" and r["op"] == "torchvision::nms"
        r = op_samples.requirement_fault_result("opcheck", ("triton", "3.9.0"), named, op="torchvision::nms")
        assert r["diagnosis"]["kind"] == "requirement_breaks_torch"
        assert r["message"].startswith("triton 3.9.0, installed by the project's requirements, breaks torch's own "
                                       "machinery here: ImportError: cannot import name 'AttrsDescriptor'")
    finally:
        sys.path.remove(str(tmp_path / "deps"))


def test_samples_file_without_samples_function_raises_naming_it(tmp_path):
    path = write(tmp_path, "empty_samples.py", "X = 1\n")
    with pytest.raises(ValueError, match="empty_samples.py defines no samples"):
        op_samples.load_samples_module(path)


# --- the scripts, as the harness runs them, with the host's torch -----------------------------------

@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_no_samples_file_is_one_skip_per_op(script, tmp_path, host_torch):
    checks = run_check(script, tmp_path, ops="nms,roi_align", extra={"PYTHONPATH": str(tmp_path / "notv")})
    own = [c for c in checks if not c.get("op", "").startswith("torchvision::")]
    assert [(c["op"], c["status"]) for c in own] == [("nms", "skip"), ("roi_align", "skip")]
    assert all(c["message"] == op_samples.NO_SAMPLES_FILE for c in own)


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_an_op_under_test_without_a_sample_is_a_skip_naming_the_file(script, tmp_path, host_torch):
    samples = write(tmp_path, "s.py", ADD_SAMPLES)
    checks = by_op(run_check(script, tmp_path, samples=samples, ops="box_iou", namespace="boxops"))
    assert checks["box_iou"]["status"] == "skip"
    assert "no sample for boxops::box_iou in %s" % samples in checks["box_iou"]["message"]
    assert "add one" in checks["box_iou"]["message"]
    assert "aten::add" in checks  # an op of another namespace is labelled qualified


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_samples_file_without_samples_is_an_error_naming_it(script, tmp_path, host_torch):
    samples = write(tmp_path, "broken.py", "import torch\n")
    checks = run_check(script, tmp_path, samples=samples, ops="nms")
    own = by_op(checks)["nms"]
    assert own["status"] == "error" and samples in own["message"] and "defines no samples" in own["message"]


def test_samples_file_that_raises_is_an_error_with_the_exception(tmp_path, host_torch):
    samples = write(tmp_path, "raises.py", "def samples(device):\n    raise KeyError('no such case')\n")
    checks = by_op(run_check("compile_check.py", tmp_path, samples=samples, ops="nms"))
    assert checks["nms"]["status"] == "error"
    assert "KeyError" in checks["nms"]["message"] and "no such case" in checks["nms"]["message"]


def test_an_unregistered_op_is_an_error(tmp_path, host_torch):
    samples = write(tmp_path, "s.py", """
        import torch
        def samples(device):
            return [("nosuchns::frob", (torch.ones(1),), {})]
        """)
    checks = by_op(run_check("export_check.py", tmp_path, samples=samples, ops=""))
    assert checks["nosuchns::frob"]["status"] == "error"
    assert "not registered" in checks["nosuchns::frob"]["message"]


def test_a_library_that_does_not_load_is_an_error_per_op(tmp_path, host_torch):
    checks = run_check("opcheck_check.py", tmp_path, ops="nms,roi_align", libs=[tmp_path / "libmissing.so"])
    own = by_op(checks)
    assert own["nms"]["status"] == own["roi_align"]["status"] == "error"
    assert "torch.ops.load_library failed" in own["nms"]["message"] and "libmissing.so" in own["nms"]["message"]


@pytest.mark.parametrize("script", ["opcheck_check.py", "fake_device.py"])
def test_a_torchvision_that_does_not_import_is_a_skip_per_op(script, tmp_path, host_torch):
    broken = tmp_path / "site" / "torchvision"
    broken.mkdir(parents=True)
    (broken / "__init__.py").write_text("raise RuntimeError('operator torchvision::nms does not exist')\n")
    checks = by_op(run_check(script, tmp_path, extra={"PYTHONPATH": str(tmp_path / "site")}))
    for op in ("nms", "roi_align", "roi_pool", "ps_roi_align", "ps_roi_pool", "deform_conv2d"):
        c = checks["torchvision::" + op]
        assert c["status"] == "skip" and "torchvision does not import: RuntimeError" in c["message"]
        assert "operator torchvision::nms does not exist" in c["message"]


@pytest.mark.parametrize("script,since,why", [
    ("opcheck_check.py", (2, 1), "has neither torch.library.opcheck"),
    ("compile_check.py", (2, 0), "has no torch.compile (torch >= 2.0)"),
    ("export_check.py", (2, 1), "has no torch.export (torch >= 2.1)"),
])
def test_a_torch_without_the_api_skips_with_the_reason(script, since, why, tmp_path, host_torch):
    if version_tuple(host_torch[0]) >= since:
        pytest.skip("torch %s is new enough to have what %s needs" % (host_torch[0], script))
    samples = write(tmp_path, "s.py", ADD_SAMPLES)
    c = by_op(run_check(script, tmp_path, samples=samples))["aten::add"]
    assert c["status"] == "skip" and why in c["message"] and host_torch[0] in c["message"]


def test_fake_device_skips_on_a_cpu_only_torch(tmp_path, host_torch):
    if host_torch[1] is not None:
        pytest.skip("torch %s is a CUDA build" % host_torch[0])
    samples = write(tmp_path, "s.py", ADD_SAMPLES)
    c = by_op(run_check("fake_device.py", tmp_path, samples=samples))["aten::add"]
    assert c["status"] == "skip" and "CPU-only build (torch.version.cuda is None)" in c["message"]


# --- torch >= 2.4 (OPMATRIX_TEST_PYTHON) -----------------------------------------------------------

# Ops a project might ship, defined with torch.library: a good one, one whose fake kernel puts
# its output on the CPU, one with no fake kernel at all.
CUSTOM_SAMPLES = """
import torch
lib = torch.library.Library("opmtest", "DEF")
lib.define("good(Tensor x) -> Tensor")
lib.define("cpu_fake(Tensor x) -> Tensor")
lib.define("no_fake(Tensor x) -> Tensor")
for name in ("good", "cpu_fake", "no_fake"):
    lib.impl(name, lambda x: x * 2, "CPU")
    lib.impl(name, lambda x: x * 2, "CUDA")
torch.library.register_fake("opmtest::good", lambda x: torch.empty_like(x), lib=lib)
torch.library.register_fake("opmtest::cpu_fake", lambda x: torch.empty(x.shape, device="cpu"), lib=lib)

def samples(device):
    x = torch.rand(3, 4, device=device)
    return [("opmtest::" + n, (x,), {}) for n in ("good", "cpu_fake", "no_fake")]
"""


def test_opcheck_reports_each_subtest_and_torchs_message(tmp_path, torch2):
    samples = write(tmp_path, "custom.py", CUSTOM_SAMPLES)
    checks = run_check("opcheck_check.py", tmp_path, samples=samples, namespace="opmtest", ops="good,no_fake")
    got = {(c.get("op"), c.get("subtest")): c for c in checks}
    assert all(got[("good", s)]["status"] == "pass" for s in ("test_schema", "test_faketensor"))
    assert "1 sample(s) pass test_faketensor (torch.library.opcheck)" in got[("good", "test_faketensor")]["message"]
    bad = got[("no_fake", "test_faketensor")]
    assert bad["status"] == "fail" and bad["sample"] == "no_fake(f32[3,4])"
    assert "OpCheckError" in bad["message"] and bad["diagnosis"]["kind"] == "opcheck_test_faketensor"
    assert got[("torchvision::roi_align", "test_schema")]["status"] == "pass"  # torchvision runs in every cell


def test_compile_and_export_pass_a_good_op_and_fail_one_without_fake_kernel(tmp_path, torch2):
    samples = write(tmp_path, "custom.py", CUSTOM_SAMPLES)
    for script in ("compile_check.py", "export_check.py"):
        checks = by_op(run_check(script, tmp_path, samples=samples, namespace="opmtest", ops="good,no_fake"))
        assert checks["good"]["status"] == "pass", checks["good"]
        assert checks["no_fake"]["status"] == "fail" and checks["no_fake"]["sample"] == "no_fake(f32[3,4])"
        assert not any(op.startswith("torchvision::") for op in checks)  # the cell's own ops only
        if script == "compile_check.py":
            assert "capture_dynamic_output_shape_ops=True" in checks["good"]["message"]


QUERY_SAMPLES = """
import torch
lib = torch.library.Library("opmquery", "DEF")
lib.define("cuda_version() -> int")
lib.impl("cuda_version", lambda: -1, "CompositeExplicitAutograd")

def samples(device):
    return [("opmquery::cuda_version", (), {})]
"""


def test_an_op_without_tensors_in_or_out_has_nothing_to_trace(tmp_path, torch2):
    # torch_spline_conv::cuda_version() -> int: a query of the build, never a graph's red.
    samples = write(tmp_path, "query.py", QUERY_SAMPLES)
    for script in ("compile_check.py", "export_check.py"):
        checks = by_op(run_check(script, tmp_path, samples=samples, namespace="opmquery", ops="cuda_version"))
        assert checks["cuda_version"]["status"] == "skip", checks["cuda_version"]
        assert checks["cuda_version"]["message"].startswith("nothing to trace: opmquery::cuda_version() -> int")


def test_fake_device_catches_a_fake_kernel_that_returns_cpu(tmp_path, torch2):
    if torch2[1] is None:
        pytest.skip("torch %s is CPU-only: fake-device skips (tested above)" % torch2[0])
    samples = write(tmp_path, "custom.py", CUSTOM_SAMPLES)
    checks = by_op(run_check("fake_device.py", tmp_path, samples=samples, namespace="opmtest", ops="good,cpu_fake"))
    assert checks["good"]["status"] == "pass"
    assert checks["cpu_fake"]["status"] == "fail" and "is on cpu, not cuda" in checks["cpu_fake"]["message"]
    assert checks["torchvision::nms"]["status"] == "pass"
    assert "symbolic (data-dependent) sizes count as matching" in checks["torchvision::nms"]["message"]


def test_a_sample_the_real_kernel_rejects_is_a_broken_sample_not_a_finding():
    """opcheck runs each sample eagerly first: a sample its real kernel raises on is an `error`
    naming the sample and the samples file, and no sub-test verdict is given on it."""
    class Sample:
        description = "boom(f32[2])"
        args, kwargs = (), {}

        @staticmethod
        def op():
            raise ValueError("shape [2] is not [4]")

    class Fine(Sample):
        @staticmethod
        def op():
            return 1

    out = op_samples.broken_sample("opcheck", "boom", [Fine(), Sample()], "lib/opmatrix_samples.py")
    assert out["status"] == "error" and out["op"] == "boom" and out["sample"] == "boom(f32[2])"
    assert "ValueError: shape [2] is not [4]" in out["message"]
    assert "lib/opmatrix_samples.py" in out["diagnosis"]["fix"]
    assert op_samples.broken_sample("opcheck", "fine", [Fine()], "f.py") is None


def test_a_fake_kernel_that_answers_wrong_is_a_wrong_result_not_a_missing_one():
    # opcheck.yaml's wrong_result_kinds: a wrong fake size breaks a cell, a missing fake kernel
    # is a limit. The words are torch's own (2.4+ and 2.1-2.3).
    sys.path.insert(0, str(CELL))
    try:
        from opcheck_check import failure_kind
    finally:
        sys.path.remove(str(CELL))
    wrong = ("OpCheckError (from MetadataMismatchError): opcheck(op, ...): test_faketensor failed with When "
             "comparing the output of opmatrix.nms.default on FakeTensor and concrete Tensors, found mismatched "
             "tensor size")
    assert failure_kind("test_faketensor", Exception(wrong)) == "opcheck_test_faketensor_mismatch"
    assert failure_kind("test_faketensor", Exception("found mismatched tensor metadata")) == \
        "opcheck_test_faketensor_mismatch"
    missing = "OpCheckError: opcheck(op, ...): test_faketensor failed with no fake impl registered for opmtest.no_fake"
    assert failure_kind("test_faketensor", Exception(missing)) == "opcheck_test_faketensor"
    assert failure_kind("test_aot_dispatch_dynamic", Exception(wrong)) == "opcheck_test_aot_dispatch_dynamic"


def test_ops_the_imported_module_says_have_no_fake_kernel_here_are_named(monkeypatch):
    # op_samples.fakes_unavailable: what the behaviour checks skip (with the module's reason)
    # instead of failing, as for a torch without the tool.
    import types
    module = types.ModuleType("opm_fake_module")
    module.unavailable_fakes = lambda: {"nms": "nms has no fake kernel in torch 2.0.1"}
    monkeypatch.setitem(sys.modules, "opm_fake_module", module)
    cell = op_samples.Cell({"OPMATRIX_NAMESPACE": "opmatrix", "OPMATRIX_IMPORT": "opm_fake_module"})
    assert op_samples.fakes_unavailable(cell) == {"nms": "nms has no fake kernel in torch 2.0.1"}
    assert op_samples.fakes_unavailable(op_samples.Cell({"OPMATRIX_IMPORT": ""})) == {}


def test_a_torch_whose_compile_refuses_this_python_is_not_the_ops_doing():
    # torch 2.0.1 on Python 3.11: Dynamo's own check raises "Python 3.11+ not yet supported for
    # torch.compile"; every op's compile failed with it before.
    import types
    sys.path.insert(0, str(CELL))
    import compile_check

    def refuse():
        raise RuntimeError("Python 3.11+ not yet supported for torch.compile")
    fake = types.SimpleNamespace(__version__="2.0.1+cu117", compile=object(),
                                 _dynamo=types.SimpleNamespace(eval_frame=types.SimpleNamespace(
                                     check_if_dynamo_supported=refuse)))
    assert compile_check.no_compile(fake) == ("torch 2.0.1+cu117's torch.compile does not run on this Python: "
                                              "Python 3.11+ not yet supported for torch.compile")
    fake._dynamo.eval_frame.check_if_dynamo_supported = lambda: None
    assert compile_check.no_compile(fake) is None
