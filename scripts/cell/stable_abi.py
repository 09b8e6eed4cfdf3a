"""Check `stable-abi`: the LibTorch stable-ABI build of opmatrix's kernels keeps its promise in
this cell (docs/stable-abi.md).

    stable_abi.py [LIBRARY...]

Builds target opmatrix_ops_stable in $OPMATRIX_BUILD (configured by the cell's configure step,
TORCH_TARGET_VERSION from OPMATRIX_STABLE_TARGET in its CMakeCache.txt), then reports:
  - subtest `build`: torch >= target must compile it; torch < target must FAIL to compile (the
    headers refuse a target newer than themselves, or have no stable ABI): either way a pass when
    the outcome is the promised one, a fail with the compiler's first error otherwise;
  - subtest `imports`: every symbol the library takes from libtorch is a C symbol of the stable
    shim (no mangled C++ name of c10/at/torch), read with `nm -D --undefined-only`.
Prints {"checks": [...]} as the harness's script checks read it; never raises."""
import os
import re
import subprocess
import sys

from script_check import result, run

CHECK = "stable-abi"
LIBRARY = "libopmatrix_ops_stable.so"
# Undefined symbols the C and C++ runtimes provide: not libtorch's.
RUNTIME_VERSION = re.compile(r"@(GLIBC|GLIBCXX|CXXABI|GCC)_")
# A C++ name from torch's own namespaces: not stable across torch versions.
TORCH_CXX = re.compile(r"\b(c10|at|torch|caffe2)::")


def version_tuple(text):
    m = re.match(r"(\d+)\.(\d+)", text or "")
    return (int(m.group(1)), int(m.group(2))) if m else None


def cache_value(build, name):
    try:
        with open(os.path.join(build, "CMakeCache.txt"), encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith(name + ":"):
                    return line.split("=", 1)[1].strip()
    except OSError:
        pass
    return ""


def torch_version():
    import torch  # noqa: PLC0415 - the cell's torch, imported only here
    return torch.__version__.split("+")[0]


def first_error(log):
    for line in log.splitlines():
        if "error" in line and ("#error" in line or "error:" in line or "fatal error" in line):
            return line.strip()[:400]
    tail = [l for l in log.splitlines() if l.strip()]
    return tail[-1][:400] if tail else "(no output)"


def foreign_imports(library):
    """The library's undefined symbols from libtorch: (C shim names, C++ names of c10/at/torch).
    Symbols of the C and C++ runtimes (versioned GLIBC/GLIBCXX/CXXABI/GCC, std::) are neither."""
    def undefined(demangle):
        argv = ["nm", "-D", "--undefined-only"] + (["-C"] if demangle else [])
        out = subprocess.run(argv + [library], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             universal_newlines=True, check=True).stdout
        return [line.split(None, 1)[1].strip() for line in out.splitlines() if len(line.split(None, 1)) == 2]
    raw, plain = undefined(False), undefined(True)
    c_shim, cxx = [], []
    for mangled, text in zip(raw, plain):
        name = mangled.split(None, 1)[-1]
        if RUNTIME_VERSION.search(name):
            continue
        if name.startswith("_Z"):
            if TORCH_CXX.search(text):
                cxx.append(text)
        elif not name.startswith(("_ITM_", "__gmon_start__", "__cxa_")):
            c_shim.append(name)
    return c_shim, cxx


def report():
    build = os.environ.get("OPMATRIX_BUILD", "")
    target_text = cache_value(build, "OPMATRIX_STABLE_TARGET")
    target = version_tuple(target_text)
    if not build or target is None:
        return [result(CHECK, "skip", "this build has no opmatrix_ops_stable target (no OPMATRIX_STABLE_TARGET in "
                       "its CMakeCache.txt)", subtest="build")]
    torch_text = torch_version()
    torch = version_tuple(torch_text)
    jobs = os.environ.get("OPMATRIX_BUILD_JOBS", "2")
    p = subprocess.run(["cmake", "--build", build, "--target", "opmatrix_ops_stable", "-j", jobs],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True)
    sys.stderr.write(p.stdout[-20000:])
    built = p.returncode == 0
    promised = torch >= target
    library = os.path.join(build, "kernels", LIBRARY)
    checks = []
    if built and promised:
        checks.append(result(CHECK, "pass", f"{LIBRARY} builds against torch {torch_text} for target {target_text}",
                             subtest="build"))
    elif not built and not promised:
        checks.append(result(CHECK, "pass", f"torch {torch_text} is older than the target {target_text}: the build "
                             f"fails at compile time, as promised ({first_error(p.stdout)})", subtest="build"))
    elif built:
        checks.append(result(CHECK, "fail", f"{LIBRARY} built against torch {torch_text}, older than its target "
                             f"{target_text}: the headers did not refuse it",
                             kind="stable_abi_promise", subtest="build",
                             fix="TORCH_TARGET_VERSION must be rejected by older headers; check torch/csrc/stable/version.h",
                             evidence=library))
        return checks
    else:
        return [result(CHECK, "fail", f"{LIBRARY} does not build against torch {torch_text} (target {target_text}): "
                       f"{first_error(p.stdout)}", kind="build_error", subtest="build",
                       fix="use only stable API that torch/csrc/stable offers at the target version (look for "
                           "TORCH_FEATURE_VERSION guards in the headers)",
                       evidence=p.stdout[-3000:])]
    if not built:
        return checks
    c_shim, cxx = foreign_imports(library)
    if cxx:
        checks.append(result(CHECK, "fail", f"{LIBRARY} takes {len(cxx)} C++ symbols from libtorch (not stable "
                             f"across versions), e.g. {cxx[0]}", kind="stable_abi_cxx_import", subtest="imports",
                             fix="include only torch/csrc/stable and torch/headeronly headers in the stable build",
                             evidence="\n".join(cxx[:50])))
    else:
        checks.append(result(CHECK, "pass", f"{LIBRARY} takes only the stable C shim from libtorch "
                             f"({len(c_shim)} symbols, e.g. {', '.join(sorted(c_shim)[:3])})", subtest="imports"))
    return checks


if __name__ == "__main__":
    run(CHECK, report)
