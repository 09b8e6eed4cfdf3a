"""The assertions of run_reach.sh on the two cells' results and the run's JSON report. Prints
each expectation; exits 1 naming those that do not hold."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "scripts"))
from fixture_checks import expect, finish, of, read_cell  # noqa: E402

results, report = sys.argv[1], sys.argv[2]


def cell(name):
    return read_cell(results, name)


def verdict(cell_id):
    for c in json.load(open(report))["cells"]:
        if c["cell"]["id"] == cell_id:
            return c.get("verdict", {})
    return {}


# A package that imports its extension when first used.
reach = cell("reachops-trixie-torch2.6-cpu")
for op in ("double_it", "half_it"):
    reg = of(reach, "registration", op)
    expect("reachops::%s is registered, once reachops._C is imported" % op,
           len(reg) == 1 and reg[0]["status"] == "pass"
           and "registered once reachops._C is imported; `import reachops` alone does not load it" in reg[0]["message"],
           [c["message"] for c in reg])
imported = [c for c in of(reach, "load") if c.get("subtest") == "import"]
expect("the import says which module brings the ops",
       imported and imported[0]["status"] == "pass" and "its ops register once reachops._C is imported" in imported[0]["message"],
       [c["message"] for c in imported])
half = [c for c in of(reach, "opcheck", "half_it")]
expect("half_it (a function-pointer def) is opchecked on a sample made from its runtime schema",
       half and all(c["status"] == "pass" for c in half)
       and all("sample made from the runtime schema" in (c.get("sample", "") + c["message"]) for c in half),
       [(c["status"], c.get("sample"), c["message"][:160]) for c in half])
expect("double_it keeps its samples file's sample", any(c["status"] == "pass" for c in of(reach, "opcheck", "double_it")),
       [c["message"][:160] for c in of(reach, "opcheck", "double_it")])
tests = of(reach, "tests")
expect("its own tests pass", any(c["status"] == "pass" for c in tests) and not any(c["status"] in ("fail", "error") for c in tests),
       [c["message"] for c in tests])
expect("reachops works (no red, no limit from how its ops are reached)", verdict("reachops-trixie-torch2.6-cpu").get("verdict") == "pass",
       verdict("reachops-trixie-torch2.6-cpu"))

# No compiled extension in a CPU runtime, by design.
gated = cell("cudagated-trixie-torch2.6-cpu")
build = of(gated, "build")
expect("the build passes and names setup.py's own line and words",
       build and build[0]["status"] == "pass" and "no compiled extension in this runtime, by design: setup.py:8" in build[0]["message"]
       and "Compiling without CUDA" in build[0]["message"], [c["message"] for c in build])
lib = [c for c in of(gated, "load") if c.get("subtest") == "library"]
expect("load: no library to load is a limit by design, not an error",
       len(lib) == 1 and lib[0]["status"] == "skip" and (lib[0].get("diagnosis") or {}).get("kind") == "no_extension_by_design",
       [(c["status"], c["message"]) for c in lib])
imported = [c for c in of(gated, "load") if c.get("subtest") == "import"]
expect("import cudagated passes (its fallback)", imported and imported[0]["status"] == "pass", [c["message"] for c in imported])
reg = of(gated, "registration", "scale_boxes")
expect("scale_boxes is not checked here, for want of an extension (never 'not registered at all')",
       len(reg) == 1 and reg[0]["status"] == "skip" and "no compiled extension in this runtime" in reg[0]["message"],
       [c["message"] for c in reg])
tests = of(gated, "tests")
expect("its own test passes, though one test file cannot be collected",
       any(c["status"] == "pass" and c["message"].startswith("1 test passes") for c in tests)
       or any(c["status"] == "pass" and "1 test" in c["message"] for c in tests), [c["message"] for c in tests])
needs = [c for c in tests if (c.get("diagnosis") or {}).get("kind") == "suite_needs_module"]
expect("the file that imports onnx is one finding: the suite needs onnx, which the matrix does not install",
       len(needs) == 1 and needs[0]["status"] == "skip" and "'onnx'" in needs[0]["message"]
       and "test/test_export_onnx.py" in needs[0]["message"] and "add onnx to test_requires" in needs[0]["message"],
       [(c["status"], c["message"]) for c in tests])
v = verdict("cudagated-trixie-torch2.6-cpu")
expect("cudagated: works with limits, naming the missing extension and the module the suite needs",
       v.get("verdict") == "limits" and any("no compiled extension in this runtime" in l for l in v.get("limits", []))
       and any("onnx" in l for l in v.get("limits", [])), v)

# An op with no tensor in or out: nothing to trace, never a compile or export red.
for check in ("compile", "export"):
    query = of(reach, check, "abi_version")
    expect("reachops::abi_version() -> int: %s has nothing to trace" % check,
           len(query) == 1 and query[0]["status"] == "skip" and query[0]["message"].startswith("nothing to trace"),
           [(c["status"], c["message"][:160]) for c in query])

# A scikit-build-core project: its build backend fetched for the build, the op built and checked.
skb = cell("skbuildops-trixie-torch2.6-cpu")
req = of(skb, "requirements")
expect("the requirements step fetched scikit-build-core for the build and says so",
       len(req) == 1 and req[0]["status"] == "pass" and "for its build: scikit-build-core==" in req[0]["message"],
       [c["message"] for c in req])
build = of(skb, "build")
expect("skbuildops builds as pip builds it", build and build[0]["status"] == "pass", [c["message"] for c in build])
reg = of(skb, "registration", "triple")
expect("skbuildops::triple has its CPU and Meta kernels", reg and reg[0]["status"] == "pass", [c["message"] for c in reg])
expect("skbuildops works", verdict("skbuildops-trixie-torch2.6-cpu").get("verdict") == "pass",
       verdict("skbuildops-trixie-torch2.6-cpu"))

# What the cell lacks: not checked here, never a red, the run not failed by it.
for name, kind, words in (("cudaonly", "needs_cuda_to_build", "a CUDA-only build"),
                          ("syshdr", "needs_system_headers", "needs the system header google/dense_hash_set")):
    c = cell("%s-trixie-torch2.6-cpu" % name)
    build = of(c, "build")
    expect("%s: the build is not checked here (%s)" % (name, kind),
           len(build) == 1 and build[0]["status"] == "skip" and (build[0].get("diagnosis") or {}).get("kind") == kind
           and words in build[0]["message"], [(b["status"], b["message"]) for b in build])
    v = verdict("%s-trixie-torch2.6-cpu" % name)
    expect("%s: ○ not run, naming why" % name, v.get("verdict") == "notrun" and words in v.get("not_run", ""), v)
    expect("%s: meets its expectations (no exit 1 for what the cell lacks)" % name, c["meets_expectations"], c["status"])

cells = ("reachops", "cudagated", "skbuildops", "cudaonly", "syshdr")
expect("no cell is an error", all(cell(n + "-trixie-torch2.6-cpu")["status"] != "error" for n in cells))
finish()
