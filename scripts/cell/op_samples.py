"""What the behaviour checks (opcheck, compile, export, fake-device) share: the cell's ops loaded
as a user gets them, the samples they run on, and how a sample and an output are told apart.

The harness gives every behaviour script the same environment:
  OPMATRIX_NAMESPACE   the cell's op namespace (labels of its ops are their short names)
  OPMATRIX_OPS         comma-separated short names of the ops under test
  OPMATRIX_IMPORT      a Python module to import instead of loading the libraries (may be empty)
  OPMATRIX_SAMPLES     a samples file: samples(device) -> [(qualified name, args, kwargs)]
  OPMATRIX_EXPECT_CUDA "1" when the cell promises CUDA
Nothing here prints: stdout belongs to the script's one JSON object."""
import collections
import importlib
import importlib.util
import os
import sys

from script_check import result, run

MESSAGE_CHARS = 600
NO_SAMPLES_FILE = "no samples declared (samples: FILE in the project)"
# What tracing an op with fake tensors (compile, export) needs of it: the start of their fixes.
FAKE_KERNEL_FIX = ("give the op a fake kernel (a Meta TORCH_LIBRARY_IMPL or torch.library.register_fake) that gives "
                   "the real kernel's sizes, dtype and device")

Sample = collections.namedtuple("Sample", "qualified op args kwargs description")


class Cell:
    """The environment the harness set, read once."""

    def __init__(self, environ=None):
        env = os.environ if environ is None else environ
        self.namespace = env.get("OPMATRIX_NAMESPACE", "")
        self.ops = [o for o in env.get("OPMATRIX_OPS", "").split(",") if o]
        self.module = env.get("OPMATRIX_IMPORT", "")
        self.samples_file = env.get("OPMATRIX_SAMPLES", "")
        self.expect_cuda = env.get("OPMATRIX_EXPECT_CUDA", "0") == "1"

    def labels(self):
        return [label(self.namespace + "::" + op, self.namespace) for op in self.ops]


def requirement_at_fault(e, environ=None):
    """The distribution a failure comes from where it is one the project's requirements installed
    beside torch ($OPMATRIX_BUILD/deps), not torch or the op: its frames, or an ImportError naming
    a file there (Debian's torch 2.6 beside the triton 3.9 torch-linear-assignment's unpinned
    `triton` brings: "cannot import name 'AttrsDescriptor' from 'triton.compiler.compiler'
    (/build/deps/triton/compiler/compiler.py)", raised in torch's own compile machinery, for
    every op). (top-level package, its version or "") or None."""
    env = os.environ if environ is None else environ
    build = env.get("OPMATRIX_BUILD", "")
    # Version skew shows as a name one side no longer has; any other failure in a requirement's
    # code (an op that runs through it) stays the op's.
    if not build or not any(isinstance(x, (ImportError, AttributeError)) for x in exception_chain(e)):
        return None
    # Python meets a requirement's files through BUILD/site too, where build_wheel.py links each
    # folder of DEPS the package lacks (/build/site/triton -> ../deps/triton): where a file lies is
    # where its path leads. Only a path under BUILD can lead there (torch's own files and frames
    # named "<string>" are not resolved).
    deps = os.path.realpath(os.path.join(build, "deps")) + os.sep
    paths = []
    for x in exception_chain(e):
        paths += [getattr(x, "path", None) or ""] + [f.filename for f in traceback_frames(x.__traceback__)]
        paths += [w.strip("()'\"") for w in str(x).split()]
    for path in (os.path.realpath(p) for p in paths if p.startswith(os.path.join(build, ""))):
        if path.startswith(deps):
            package = path[len(deps):].split(os.sep)[0]
            try:
                from importlib import metadata
                version = metadata.version(package)
            except Exception:  # noqa: BLE001 - a module whose distribution is named otherwise
                version = ""
            return package, version
    return None


def exception_chain(e):
    """e and the exceptions it was raised from or during, each once."""
    seen = []
    while e is not None and all(e is not x for x in seen):
        seen.append(e)
        e = e.__cause__ or e.__context__
    return seen


def traceback_frames(tb):
    import traceback
    return traceback.extract_tb(tb) if tb is not None else []


def requirement_fault_result(check, fault, e, **where):
    """The result of a failure that a requirement of the project brought (requirement_at_fault):
    its package named, the fix the project's."""
    package, version = fault
    return result(check, "fail", "%s %s, installed by the project's requirements, breaks torch's own machinery here: "
                  "%s" % (package, version or "(its version unread)", excerpt(e)),
                  kind="requirement_breaks_torch",
                  fix="bound the project's requirement on %s to the releases this torch works with (or leave it to "
                      "torch's own requirements): unpinned, pip brings its newest, which this torch's code cannot "
                      "use" % package, **where)


def excerpt(e):
    """torch's own text for an exception, its type first, cut to what a report line can hold.
    A wrapper's cause (opcheck's OpCheckError from the real error) is named up front so the
    cut never hides it."""
    cause = e.__cause__
    kind = type(e).__name__ + (" (from %s)" % type(cause).__name__ if cause is not None else "")
    return ("%s: %s" % (kind, e))[:MESSAGE_CHARS]


def split_name(qualified):
    """'ns::name.overload' -> (ns, name, overload); the overload is 'default' when none."""
    if "::" not in qualified:
        raise ValueError("op name %r is not qualified as 'namespace::name[.overload]'" % qualified)
    ns, rest = qualified.split("::", 1)
    name, _, overload = rest.partition(".")
    return ns, name, overload or "default"


def label(qualified, namespace):
    """An op's name in results: short inside the cell's namespace, qualified elsewhere."""
    ns, name, _ = split_name(qualified)
    return name if ns == namespace else "%s::%s" % (ns, name)


def resolve(qualified):
    """The torch.ops OpOverload a qualified name means; raises with the reason when there is none."""
    import torch
    ns, name, overload = split_name(qualified)
    packet = getattr(getattr(torch.ops, ns), name)  # raises AttributeError/RuntimeError naming the op
    return getattr(packet, overload)


# --- describing and comparing ------------------------------------------------------------------

DTYPE_SHORT = {"float32": "f32", "float64": "f64", "float16": "f16", "bfloat16": "bf16", "int64": "i64",
               "int32": "i32", "int16": "i16", "int8": "i8", "uint8": "u8", "bool": "b8",
               "complex64": "c64", "complex128": "c128"}


def describe_value(v):
    import torch
    if isinstance(v, torch.Tensor):
        dtype = str(v.dtype).replace("torch.", "")
        text = "%s[%s]" % (DTYPE_SHORT.get(dtype, dtype), ",".join(str(d) for d in v.shape))
        return text + ("" if v.device.type == "cpu" else "@" + v.device.type)
    if isinstance(v, (list, tuple)):
        inner = ", ".join(describe_value(x) for x in v)
        return "[%s]" % inner if isinstance(v, list) else "(%s)" % inner
    return repr(v)


def describe(qualified, args, kwargs):
    """'nms(f32[8,4], f32[8], 0.5)': enough to tell which sample failed, no values."""
    _, name, overload = split_name(qualified)
    parts = [describe_value(a) for a in args] + ["%s=%s" % (k, describe_value(v)) for k, v in kwargs.items()]
    return "%s%s(%s)" % (name, "" if overload == "default" else "." + overload, ", ".join(parts))


# torch.testing.assert_close's defaults; integers and bools must be equal.
TOLERANCES = {"float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5), "float32": (1.3e-6, 1e-5),
              "float64": (1e-7, 1e-7), "complex64": (1.3e-6, 1e-5), "complex128": (1e-7, 1e-7)}


def compare(actual, expected, where="output"):
    """None when `actual` matches `expected` (tensors, nested tuples/lists of them, scalars);
    else the first difference, in words."""
    import torch
    if isinstance(expected, torch.Tensor):
        if not isinstance(actual, torch.Tensor):
            return "%s: expected a tensor, got %s" % (where, type(actual).__name__)
        if actual.shape != expected.shape:
            return "%s: shape %s, expected %s" % (where, list(actual.shape), list(expected.shape))
        if actual.dtype != expected.dtype:
            return "%s: dtype %s, expected %s" % (where, actual.dtype, expected.dtype)
        a, e = actual.detach().cpu(), expected.detach().cpu()
        tol = TOLERANCES.get(str(e.dtype).replace("torch.", ""))
        if tol is None:
            same = bool(torch.equal(a, e))
        else:
            same = bool(torch.allclose(a, e, rtol=tol[0], atol=tol[1], equal_nan=True))
        if same:
            return None
        if e.numel() and tol is not None:
            diff = (a.double() - e.double()).abs().nan_to_num(float("inf")).max().item()
            return "%s: values differ (max abs difference %.3g, rtol %g, atol %g)" % (where, diff, tol[0], tol[1])
        return "%s: values differ (%s must be equal)" % (where, e.dtype)
    if isinstance(expected, (tuple, list)):
        if not isinstance(actual, (tuple, list)) or len(actual) != len(expected):
            got = len(actual) if isinstance(actual, (tuple, list)) else type(actual).__name__
            return "%s: expected %d outputs, got %s" % (where, len(expected), got)
        for i, (a, e) in enumerate(zip(actual, expected)):
            why = compare(a, e, "%s[%d]" % (where, i))
            if why:
                return why
        return None
    return None if actual == expected else "%s: %r, expected %r" % (where, actual, expected)


# --- loading ------------------------------------------------------------------------------------

def load_ops(libraries, module, qualified_ops=()):
    """Registers the cell's ops as users get them: `import module` when the project names one
    (a package may ship variants of one library that abort when both are loaded; its import
    picks one) and, for ops still missing, the package's extension modules its own code imports
    when first used (`pkg._C`, load_library.py's reach); else torch.ops.load_library of every
    built library."""
    import torch
    if module:
        importlib.import_module(module)
        reach_extension_modules(module, libraries, qualified_ops)
        return
    for lib in libraries:
        torch.ops.load_library(lib)


def has_schema(qualified):
    try:
        resolve(qualified)
        return True
    except Exception:  # noqa: BLE001 - not registered (yet)
        return False


def reach_extension_modules(module, libraries, qualified_ops):
    """Imports the package's extension modules, shallowest first, while an op has no schema."""
    from load_library import extension_modules, package_site
    site = package_site(module)
    if not site:
        return
    for name, _ in extension_modules(libraries, site):
        if all(has_schema(q) for q in qualified_ops):
            return
        try:
            importlib.import_module(name)
        except Exception:  # noqa: BLE001 - the op's own result says it is not registered
            pass


# Placeholders for a schema's argument types (the prefix of the type as the schema prints it),
# first match wins: the same values `opmatrix init` writes into a samples file
# (harness/src/init/init_samples.cpp). An optional argument gets None.
PLACEHOLDERS = (
    ("Tensor[]", lambda torch, device: [torch.rand(4, 4, device=device)]),
    ("Tensor?[]", lambda torch, device: [torch.rand(4, 4, device=device)]),
    ("Tensor", lambda torch, device: torch.rand(4, 4, device=device)),
    ("int[", lambda torch, device: [1, 1]),
    ("SymInt[", lambda torch, device: [1, 1]),
    ("float[", lambda torch, device: [1.0, 1.0]),
    ("bool[", lambda torch, device: [False, False]),
    ("int", lambda torch, device: 1),
    ("SymInt", lambda torch, device: 1),
    ("Scalar", lambda torch, device: 1),
    ("float", lambda torch, device: 0.5),
    ("bool", lambda torch, device: False),
    ("str", lambda torch, device: ""),
    ("ScalarType", lambda torch, device: torch.float32),
)
RUNTIME_SAMPLE = "sample made from the runtime schema"


def placeholder(torch, type_name, device):
    """init's value for an argument of `type_name` (sample_argument in init_samples.cpp)."""
    if type_name.endswith("?"):
        return None
    for prefix, make in PLACEHOLDERS:
        if type_name == prefix or type_name.startswith(prefix if prefix.endswith("[") else prefix + "("):
            return make(torch, device)
    raise ValueError("no placeholder for an argument of type %s" % type_name)


def schema_arguments(schema):
    """The arguments of "ns::op(Tensor a, int[2] k=[1, 1], *, bool f=False) -> Tensor", split at
    top-level commas, as init reads a schema string."""
    text = schema[schema.index("(") + 1:]
    out, depth, cur = [], 0, ""
    for c in text:
        if c in "([":
            depth += 1
        if c == "]":
            depth -= 1
        if c == ")":
            if depth == 0:
                break
            depth -= 1
        if c == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += c
    return out + ([cur.strip()] if cur.strip() else [])


def runtime_sample(qualified, device):
    """A Sample for `qualified` from the schema the dispatcher holds (an op defined by a function
    pointer, whose schema no source states), with the typed placeholders `opmatrix init` writes;
    raises ValueError when an argument has a type without one."""
    import torch
    op = resolve(qualified)
    args, kwargs, keyword = [], {}, False
    for a in schema_arguments(str(op._schema)):
        if a == "*":
            keyword = True
            continue
        if "=" in a:
            continue  # its default is a valid sample already
        type_name, _, name = a.rpartition(" ")
        value = placeholder(torch, type_name or name, device)
        if keyword:
            kwargs[name] = value
        else:
            args.append(value)
    return Sample(qualified, op, tuple(args), kwargs, "%s (%s)" % (describe(qualified, args, kwargs), RUNTIME_SAMPLE))


def runtime_targets(check, cell, ops, devices):
    """([(label, [Sample])], [skips]) for `ops` (short names) from their runtime schemas. A
    placeholder the real kernel rejects is no sample: that op skips, saying where to add one."""
    targets, problems = [], []
    for op in ops:
        qualified = cell.namespace + "::" + op
        try:
            samples = [runtime_sample(qualified, device) for device in devices]
            for s in samples:
                s.op(*s.args, **s.kwargs)
            targets.append((op, samples))
        except Exception as e:  # noqa: BLE001 - why no sample could be made, in the op's own skip
            problems.append(result(check, "skip", "no sample for %s: the placeholder %s cannot run it (%s): add "
                                   "its inputs to a samples file (samples: FILE)" % (qualified, RUNTIME_SAMPLE, excerpt(e)),
                                   op=op))
    return targets, problems


def fakes_unavailable(cell):
    """{op label: why} for the ops whose fake kernel the imported module says this torch cannot
    have (opmatrix_ops.unavailable_fakes(): nms in a torch without a data-dependent fake-kernel
    API). What needs that kernel skips them with that reason, as for a torch without the tool."""
    module = sys.modules.get(cell.module) if cell.module else None
    ask = getattr(module, "unavailable_fakes", None)
    if not callable(ask):
        return {}
    return {label(cell.namespace + "::" + op, cell.namespace): why for op, why in ask().items()}


def load_samples_module(path):
    """The samples file as a module; raises ValueError naming the file when it defines no samples()."""
    if not os.path.isfile(path):
        raise ValueError("samples file %s does not exist" % path)
    spec = importlib.util.spec_from_file_location("opmatrix_cell_samples", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    if not callable(getattr(module, "samples", None)):
        raise ValueError("samples file %s defines no samples(device) function" % path)
    return module


def make_samples(samples_fn, device, source):
    """[Sample] from samples_fn(device); a malformed entry raises ValueError naming `source`."""
    out = []
    for i, entry in enumerate(samples_fn(device)):
        if not (isinstance(entry, (tuple, list)) and len(entry) == 3 and isinstance(entry[0], str)):
            raise ValueError("%s: samples(%r)[%d] is not (qualified_name, args, kwargs)" % (source, device, i))
        qualified, args, kwargs = entry[0], tuple(entry[1]), dict(entry[2] or {})
        out.append(Sample(qualified, None, args, kwargs, describe(qualified, args, kwargs)))
    return out


def group(samples, namespace):
    """{label: [Sample]} in the samples' order."""
    grouped = collections.OrderedDict()
    for s in samples:
        grouped.setdefault(label(s.qualified, namespace), []).append(s)
    return grouped


def with_ops(samples):
    """Each Sample with its OpOverload resolved; raises when the op is not registered."""
    return [s._replace(op=resolve(s.qualified)) for s in samples]


def cell_targets(check, cell, libraries, devices=("cpu",)):
    """The cell's own ops with their samples: ([(label, [Sample])], [results for ops that cannot
    run]). Every op under test appears in one of the two lists: an op with no sample is a skip
    that says where to add one, never a silent pass."""
    problems = []
    try:
        load_ops(libraries, cell.module, [cell.namespace + "::" + op for op in cell.ops])
    except Exception as e:  # noqa: BLE001 - every op's result says why
        how = "import %s" % cell.module if cell.module else "torch.ops.load_library"
        return [], [result(check, "error", "%s failed: %s" % (how, excerpt(e)), op=op) for op in cell.labels()]
    if not cell.samples_file:
        return [], [result(check, "skip", NO_SAMPLES_FILE, op=op) for op in cell.labels()]
    try:
        module = load_samples_module(cell.samples_file)
        samples = []
        for device in devices:
            samples += make_samples(module.samples, device, cell.samples_file)
    except Exception as e:  # noqa: BLE001
        message = "samples file %s: %s" % (cell.samples_file, excerpt(e))
        return [], [result(check, "error", message, kind="samples_file", evidence=cell.samples_file, op=op)
                    for op in (cell.labels() or ["samples"])]
    grouped = group(samples, cell.namespace)
    targets = []
    for name, ops_samples in grouped.items():
        try:
            targets.append((name, with_ops(ops_samples)))
        except Exception as e:  # noqa: BLE001
            problems.append(result(check, "error", "%s is not registered after loading: %s"
                                   % (ops_samples[0].qualified, excerpt(e)), op=name))
    # An op the samples file has no call for (init could not read its schema: an op defined by a
    # function pointer) gets init's placeholders from the schema the dispatcher holds now.
    unsampled = [op for op in cell.labels() if op not in grouped]
    known = [op for op in unsampled if has_schema(cell.namespace + "::" + op)]
    from_runtime, skips = runtime_targets(check, cell, known, devices)
    targets += from_runtime
    problems += skips
    for op in unsampled:
        if op not in known:
            problems.append(result(check, "skip", "no sample for %s::%s in %s: add one to its samples(device)"
                                   % (cell.namespace, op, cell.samples_file), op=op))
    return targets, problems


def judge_each_op(check, cell, found, missing_tool, run_one):
    """What the behaviour checks share, over `found` = (targets, checks) from cell_targets (and
    torchvision_targets): every op skips with `missing_tool(torch)` (why this torch lacks the tool;
    None when it has it), an op whose fake kernel this torch cannot have skips with that reason,
    and run_one(torch, name, samples) judges each other op."""
    import torch
    targets, checks = found
    why_not = missing_tool(torch)
    if why_not:
        return checks + [result(check, "skip", why_not, op=name) for name, _ in targets]
    unavailable = fakes_unavailable(cell)
    for name, samples in targets:
        why = unavailable.get(name)
        checks.append(result(check, "skip", why, op=name) if why else run_one(torch, name, samples))
    return checks


def no_tensor_in_or_out(op):
    """An op that takes and returns no tensor (torch_spline_conv::cuda_version() -> int): a query of
    the build, not a computation a graph holds; its schema text, or None for a tensor op."""
    schema = getattr(op, "_schema", None)
    if schema is None:
        return None
    types = [str(a.type) for a in schema.arguments] + [str(r.type) for r in schema.returns]
    return None if any("Tensor" in t for t in types) else str(schema)


def run_on_first_samples(check, missing_tool, run_one):
    """The whole of compile_check.py and export_check.py: each of the cell's ops judged by
    run_one(torch, name, its first sample) against eager, one {"checks": [...]} printed. An op
    with no tensor in or out has nothing to trace: a skip that says so."""
    def first(torch, name, samples):
        query = no_tensor_in_or_out(samples[0].op)
        if query:
            return result(check, "skip", "nothing to trace: %s takes and returns no tensor (a query of the build, "
                          "not a computation a graph holds)" % query, op=name)
        return run_one(torch, name, samples[0])

    def report(libraries):
        cell = Cell()
        return judge_each_op(check, cell, cell_targets(check, cell, libraries), missing_tool, first)
    run(check, stdout_to_stderr(lambda: report(sys.argv[1:])))


def torchvision_targets(check, devices=("cpu",)):
    """torchvision's own ops with torchvision_samples.py's samples, like cell_targets. A
    torchvision that does not import is one skip per op (the torchvision check reports it)."""
    import torchvision_samples
    labels = ["torchvision::" + op for op in torchvision_samples.OPS]
    try:
        import torchvision  # noqa: F401 - registers torchvision's ops and their Python fake kernels
    except Exception as e:  # noqa: BLE001
        return [], [result(check, "skip", "torchvision does not import: %s" % excerpt(e), op=op) for op in labels]
    samples = []
    for device in devices:
        samples += make_samples(torchvision_samples.samples, device, "torchvision_samples.py")
    targets, problems = [], []
    for name, ops_samples in group(samples, "").items():
        try:
            targets.append((name, with_ops(ops_samples)))
        except Exception as e:  # noqa: BLE001 - an older torchvision may lack an op
            problems.append(result(check, "skip", "this torchvision has no %s: %s" % (name, excerpt(e)), op=name))
    return targets, problems


def sample_devices():
    """CPU, and CUDA where a GPU is visible."""
    import torch
    return ("cpu", "cuda") if torch.cuda.is_available() else ("cpu",)


def tensor_inputs(args, kwargs):
    """Positions of tensor arguments: ([i], [k]); the rest are constants of the op's call."""
    import torch
    return ([i for i, a in enumerate(args) if isinstance(a, torch.Tensor)],
            [k for k, v in kwargs.items() if isinstance(v, torch.Tensor)])


def broken_sample(check, name, samples, samples_file):
    """An `error` result when the real kernel itself raises on one of the op's samples: the sample
    is wrong (a shape the op rejects), and every verdict on it would be about the sample."""
    for s in samples:
        try:
            s.op(*s.args, **s.kwargs)
        except Exception as e:  # noqa: BLE001
            return result(check, "error", "the sample is broken: the op raises on %s with its real kernel: %s"
                          % (s.description, excerpt(e)), kind="broken_sample",
                          fix="give this call the inputs the op accepts in %s" % (samples_file or "the samples file"),
                          op=name, sample=s.description)
    return None


def consumed(out):
    """The op's outputs, each next to what the model's next layer makes of it. Inductor sizes
    that next buffer from the op's fake kernel (the op's own output buffer is the real kernel's),
    so a fake kernel with the wrong size shows as a wrong size; were the output not kept, Inductor
    would reuse its buffer in place and write past its end unseen (measured: torch 2.5.1)."""
    import torch
    if isinstance(out, torch.Tensor):
        return out, (~out if out.dtype == torch.bool else out * 2)
    if isinstance(out, (tuple, list)):
        return type(out)(consumed(o) for o in out)
    return out


def op_module(sample):
    """A torch.nn.Module whose forward(*tensors) calls the op and uses its outputs (consumed):
    non-tensor arguments are fixed, as a model's are, so compile and export see only tensors as
    inputs."""
    import torch
    positions, keys = tensor_inputs(sample.args, sample.kwargs)

    class OpCall(torch.nn.Module):
        def forward(self, *tensors):
            args, kwargs = list(sample.args), dict(sample.kwargs)
            for i, t in zip(positions + keys, tensors):
                if isinstance(i, int):
                    args[i] = t
                else:
                    kwargs[i] = t
            return consumed(sample.op(*args, **kwargs))

    inputs = [sample.args[i].detach() for i in positions] + [sample.kwargs[k].detach() for k in keys]
    return OpCall(), inputs


def against_eager(check, name, sample, transform, what, fix, note=""):
    """The op's module (op_module) made by `transform(module, inputs)` into a compiled or exported
    one, run on the op's sample and compared with eager: one result of `check`, whose messages
    name `what` ran. The transform's own error text is the finding."""
    module, inputs = op_module(sample)
    where = dict(op=name, sample=sample.description)
    try:
        expected = module(*inputs)
    except Exception as e:  # noqa: BLE001
        return result(check, "error", "the op fails eagerly on its first sample %s: %s"
                      % (sample.description, excerpt(e)), **where)
    try:
        got = transform(module, inputs)(*inputs)
    except Exception as e:  # noqa: BLE001
        fault = requirement_at_fault(e)
        if fault:
            return requirement_fault_result(check, fault, e, **where)
        return result(check, "fail", "%s fails on %s: %s" % (what, sample.description, excerpt(e)),
                      kind=check, fix=fix, **where)
    why = compare(got, expected)
    if why:
        return result(check, "fail", "%s output differs from eager on %s: %s" % (what, sample.description, why),
                      kind=check + "_mismatch", fix=fix, **where)
    return result(check, "pass", "%s matches eager on %s%s" % (what, sample.description, note), **where)


def stdout_to_stderr(report):
    """`report` with anything printed while it runs (a kernel's printf, a compiler's chatter) sent
    to stderr: stdout carries the one JSON object alone."""
    import sys

    def quiet():
        sys.stdout.flush()
        saved = os.dup(1)
        os.dup2(2, 1)
        try:
            return report()
        finally:
            sys.stdout.flush()
            os.dup2(saved, 1)
            os.close(saved)
    return quiet
