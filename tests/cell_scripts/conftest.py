"""Shared helpers for the tests of scripts/cell/*: each script runs as the harness runs it, a
subprocess of the cell's Python (here the host's /usr/bin/python3, which imports Debian's
torch), and what it prints must be ONE JSON object. The parts are real: the host's torch,
shared libraries and fat binaries compiled here with g++ / nvcc into pytest's temporary
folder (compiled once per session). Tests that need a missing part skip with the reason.

Environment:
  OPMATRIX_TEST_PYTHON     the cell Python (default /usr/bin/python3)
  OPMATRIX_TEST_NVCC       nvcc to build fat binaries (default: /usr/local/cuda/bin/nvcc, PATH)
  OPMATRIX_TEST_CUOBJDUMP  cuobjdump for the fatbin.py cross-check (default: next to nvcc, PATH)
"""
import base64
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

sys.dont_write_bytecode = True  # nothing written into the source tree

REPO = Path(__file__).resolve().parents[2]
CELL = REPO / "scripts" / "cell"
CELL_PYTHON = os.environ.get("OPMATRIX_TEST_PYTHON", "/usr/bin/python3")


def cell_env(**extra):
    """The environment a script runs in: ours, no bytecode files, plus `extra` (None removes)."""
    env = dict(os.environ)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    for k, v in extra.items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    return env


class ScriptRun:
    def __init__(self, proc):
        self.returncode = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        self.json = None
        text = proc.stdout.strip()
        if text:
            try:
                self.json = json.loads(text)
            except ValueError:
                pass


def sdist(path, members, top):
    """A .tar.gz or .zip of {name: text}, under one top-level folder."""
    if str(path).endswith(".zip"):
        with zipfile.ZipFile(str(path), "w") as z:
            for name, text in members.items():
                z.writestr(top + "/" + name, text)
        return path
    with tarfile.open(str(path), "w:gz") as t:
        for name, text in members.items():
            data = text.encode()
            info = tarfile.TarInfo(top + "/" + name)
            info.size, info.mtime = len(data), 1700000000
            t.addfile(info, io.BytesIO(data))
    return path


def make_wheel(folder, requires, data=None, name="mylib", version="0.1", module=b""):
    """A pure-Python wheel NAME VERSION (module NAME, its __init__.py MODULE) requiring REQUIRES, in
    FOLDER; DATA ({path under NAME-VERSION.data/data: bytes}): its data scheme."""
    stem = "%s-%s" % (name, version)
    files = {name + "/__init__.py": module, stem + ".dist-info/WHEEL": b"Wheel-Version: 1.0\nTag: py3-none-any\n",
             stem + ".dist-info/METADATA": ("Metadata-Version: 2.1\nName: %s\nVersion: %s\n" % (name, version) +
                                            "".join("Requires-Dist: %s\n" % r for r in requires)).encode()}
    files.update({stem + ".data/data/" + p: b for p, b in (data or {}).items()})
    record = "".join("%s,sha256=%s,%d\n" % (p, base64.urlsafe_b64encode(hashlib.sha256(b).digest()).rstrip(b"=").decode(),
                                            len(b)) for p, b in files.items()) + stem + ".dist-info/RECORD,,\n"
    files[stem + ".dist-info/RECORD"] = record.encode()
    with zipfile.ZipFile(str(folder / (stem + "-py3-none-any.whl")), "w") as z:
        for p, b in files.items():
            z.writestr(p, b)
    return folder / (stem + "-py3-none-any.whl")


def run_script(script, *args, env=None, python=None, python_args=(), timeout=300, cwd=None):
    """Runs scripts/cell/SCRIPT with the cell Python; returns its exit code, output and JSON."""
    argv = [python or CELL_PYTHON] + list(python_args) + [str(CELL / script)] + [str(a) for a in args]
    proc = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                          env=env or cell_env(), timeout=timeout, cwd=cwd or str(REPO))
    return ScriptRun(proc)


def run_json(script, *args, **kw):
    """run_script, asserting the contract: exit 0 and stdout is exactly one JSON object."""
    r = run_script(script, *args, **kw)
    assert r.returncode == 0, "%s exited %d\nstdout: %s\nstderr: %s" % (script, r.returncode, r.stdout, r.stderr[-3000:])
    lines = r.stdout.strip().splitlines()
    assert len(lines) == 1, "%s printed %d lines on stdout, not one JSON object:\n%s" % (script, len(lines), r.stdout)
    assert isinstance(r.json, dict), "%s printed no JSON object: %r\nstderr: %s" % (script, r.stdout, r.stderr[-3000:])
    return r.json, r


def run_shell(script, *args, env=None, timeout=120):
    argv = ["bash", str(CELL / script)] + [str(a) for a in args]
    return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True,
                          env=env or cell_env(), timeout=timeout)


def compile_or_fail(argv, what, cwd=None):
    p = subprocess.run([str(a) for a in argv], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                       universal_newlines=True, cwd=cwd, timeout=600)
    assert p.returncode == 0, "building %s failed: %s\n%s" % (what, " ".join(map(str, argv)), p.stdout[-4000:])


# ---------------------------------------------------------------------------------------------
# What this machine has

@pytest.fixture(scope="session")
def build_root(tmp_path_factory):
    """One folder for everything compiled in this session (pytest's temp dir, not the tree)."""
    return tmp_path_factory.mktemp("cell-scripts-build")


@pytest.fixture(scope="session")
def torch_info():
    """What the cell Python's torch is; skips when it has none."""
    if not os.access(CELL_PYTHON, os.X_OK):
        pytest.skip("no cell Python %s (set OPMATRIX_TEST_PYTHON)" % CELL_PYTHON)
    return cell_python_json(
        "import json, torch, torch.utils.cpp_extension as c\n"
        "print(json.dumps({'version': str(torch.__version__), 'cuda': torch.version.cuda,\n"
        "  'abi': bool(torch._C._GLIBCXX_USE_CXX11_ABI), 'path': torch.__file__,\n"
        "  'include': c.include_paths(), 'libs': c.library_paths()}))\n",
        "cannot import torch (install python3-torch)", lambda err: err.strip())


def cell_python_json(code, cannot, tail_of=lambda err: err):
    """What CODE, run by the cell Python, prints as its last line (JSON); skips, saying it
    CANNOT and the end of stderr, when the code fails (a module the cell Python lacks)."""
    p = subprocess.run([CELL_PYTHON, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       universal_newlines=True, env=cell_env(), timeout=300)
    if p.returncode != 0:
        pytest.skip("%s %s: %s" % (CELL_PYTHON, cannot, tail_of(p.stderr)[-300:]))
    return json.loads(p.stdout.strip().splitlines()[-1])


def first_on_path(names, missing):
    """The first of NAMES on PATH; skips with MISSING when none is."""
    for name in names:
        if shutil.which(name):
            return shutil.which(name)
    pytest.skip(missing)


@pytest.fixture(scope="session")
def cc():
    return first_on_path(("gcc", "cc"), "no C compiler (gcc) on PATH")


@pytest.fixture(scope="session")
def cxx():
    return first_on_path(("g++", "c++"), "no C++ compiler (g++) on PATH")


def find_nvcc():
    for c in [os.environ.get("OPMATRIX_TEST_NVCC", ""), "/usr/local/cuda/bin/nvcc", shutil.which("nvcc") or ""]:
        if c and os.access(c, os.X_OK):
            return c
    return None


def nvcc_or_skip(missing):
    """find_nvcc's nvcc; skips with MISSING (what cannot be done without one) when there is none."""
    n = find_nvcc()
    if n is None:
        pytest.skip(missing)
    return n


def toolkit_root(nvcc):
    """The CUDA toolkit folder NVCC belongs to (ROOT/bin/nvcc, links followed)."""
    return os.path.dirname(os.path.dirname(os.path.realpath(nvcc)))


@pytest.fixture(scope="session")
def nvcc():
    return nvcc_or_skip("no nvcc (/usr/local/cuda/bin/nvcc, PATH or OPMATRIX_TEST_NVCC): fat binaries cannot be built")


@pytest.fixture(scope="session")
def cuobjdump():
    n = find_nvcc()
    for c in [os.environ.get("OPMATRIX_TEST_CUOBJDUMP", ""),
              os.path.join(os.path.dirname(n), "cuobjdump") if n else "", shutil.which("cuobjdump") or ""]:
        if c and os.access(c, os.X_OK):
            return c
    pytest.skip("no cuobjdump (not next to nvcc, not on PATH; the CUDA 13 toolkit here ships none): "
                "set OPMATRIX_TEST_CUOBJDUMP, e.g. from PyPI's nvidia-cuda-cuobjdump")


# ---------------------------------------------------------------------------------------------
# Libraries built for the tests

# An op library: namespace opm_cellscripts, one op per registration pattern of the rule.
OPS_NAMESPACE = "opm_cellscripts"
OPS_CPP = r"""
#include <ATen/core/Tensor.h>
#include <torch/library.h>

namespace {
at::Tensor same(const at::Tensor& x) { return x; }
}

TORCH_LIBRARY(opm_cellscripts, m) {
  m.def("cpu_only(Tensor x) -> Tensor");
  m.def("explicit(Tensor x) -> Tensor");
  m.def("cpu_and_explicit(Tensor x) -> Tensor");
  m.def("implicit(Tensor x) -> Tensor");
  m.def("autograd(Tensor x) -> Tensor");
  m.def("autograd_cuda(Tensor x) -> Tensor");
  m.def("schema_only(Tensor x) -> Tensor");
}
TORCH_LIBRARY_IMPL(opm_cellscripts, CPU, m) {
  m.impl("cpu_only", same);
  m.impl("cpu_and_explicit", same);
  m.impl("autograd", same);
}
TORCH_LIBRARY_IMPL(opm_cellscripts, CompositeExplicitAutograd, m) {
  m.impl("explicit", same);
  m.impl("cpu_and_explicit", same);
}
TORCH_LIBRARY_IMPL(opm_cellscripts, CompositeImplicitAutograd, m) { m.impl("implicit", same); }
TORCH_LIBRARY_IMPL(opm_cellscripts, Autograd, m) { m.impl("autograd", same); }
TORCH_LIBRARY_IMPL(opm_cellscripts, AutogradCUDA, m) { m.impl("autograd_cuda", same); }
TORCH_LIBRARY_IMPL(opm_cellscripts, Meta, m) { m.impl("autograd_cuda", same); }
"""


def compile_op_library(torch_info, cxx, build_root, name, source, extra=()):
    """lib<name>.so from C++ `source`, compiled against the cell Python's own libtorch (and
    `extra` flags: a Python extension module's include folder)."""
    include = [p for p in torch_info["include"] if os.path.isfile(os.path.join(p, "torch", "library.h"))]
    if not include and os.path.isfile("/usr/include/torch/library.h"):
        include = ["/usr/include"]
    if not include:
        pytest.skip("no torch/library.h next to %s's torch (install libtorch-dev)" % CELL_PYTHON)
    d = build_root / name
    d.mkdir(exist_ok=True)
    src = d / "ops.cpp"
    src.write_text(source)
    lib = d / ("lib%s.so" % name)
    argv = [cxx, "-std=c++17", "-O0", "-shared", "-fPIC", "-D_GLIBCXX_USE_CXX11_ABI=%d" % torch_info["abi"]]
    argv += ["-I" + p for p in include] + list(extra) + [src, "-o", lib]
    argv += ["-L" + p for p in torch_info["libs"]] + ["-Wl,-rpath," + p for p in torch_info["libs"]]
    argv += ["-ltorch_cpu", "-lc10"]
    compile_or_fail(argv, "the op library " + name)
    return str(lib)


@pytest.fixture(scope="session")
def op_library(torch_info, cxx, build_root):
    """libopm_cellscripts.so, compiled against the cell Python's own libtorch."""
    return compile_op_library(torch_info, cxx, build_root, "opm_cellscripts", OPS_CPP)


# Plain C libraries (gcc, well under a second each).
C_LIBS = {
    # Resolvable through its RUNPATH ($ORIGIN/helper): helper_fn. Missing: opm_missing_c and
    # the C++ opm::gone(int). Weak (may stay unresolved): opm_weak.
    "undef": (r"""
extern int helper_fn(int);
extern void opm_missing_c(void);
extern void _ZN3opm4goneEi(int);  /* opm::gone(int) */
extern void opm_weak(void) __attribute__((weak));
int use(int x) { opm_missing_c(); _ZN3opm4goneEi(x); if (opm_weak) opm_weak(); return helper_fn(x); }
""", ["-Lhelper", "-lopmhelper", "-Wl,-rpath,$ORIGIN/helper"]),
    # The same with the old DT_RPATH instead of DT_RUNPATH.
    "undef_rpath": (None, ["-Lhelper", "-lopmhelper", "-Wl,-rpath,$ORIGIN/helper", "-Wl,--disable-new-dtags"]),
    # Prints to stdout while it loads: the scripts must keep stdout for their JSON.
    "noisy": (r"""
#include <stdio.h>
__attribute__((constructor)) static void hello(void) { printf("opm-noisy: printed at load time\n"); fflush(stdout); }
int opm_noisy(void) { return 1; }
""", []),
    # Kills the process that loads it (a library built against another torch can).
    "abort": (r"""
#include <stdlib.h>
__attribute__((constructor)) static void die(void) { abort(); }
""", []),
    # Never finishes loading.
    "hang": (r"""
#include <unistd.h>
__attribute__((constructor)) static void wait_forever(void) { for (;;) sleep(60); }
""", []),
    # No device code at all.
    "plain": ("int opm_plain(int x) { return x * 2; }\n", []),
    # Binds a compat symbol of glibc's libm (non-default version: glibc >= 2.31 keeps
    # __expf_finite@GLIBC_2.15 only for binaries linked against it, and dlsym never returns it),
    # beside one symbol nothing defines.
    "compat": (r"""
__asm__(".symver expf_compat, __expf_finite@GLIBC_2.15");
extern float expf_compat(float);
extern int opm_missing_c(void);
float opm_use(float x) { return expf_compat(x) + (float)opm_missing_c(); }
""", ["-lm"]),
}


@pytest.fixture(scope="session")
def c_libs(cc, build_root):
    """{name: path} of the C libraries above, plus "needy": one that NEEDs libopm_ghost.so.1,
    which is deleted after linking."""
    d = build_root / "clibs"
    (d / "helper").mkdir(parents=True, exist_ok=True)
    (d / "ghost").mkdir(exist_ok=True)
    (d / "helper" / "helper.c").write_text("int helper_fn(int x) { return x + 1; }\n")
    compile_or_fail([cc, "-shared", "-fPIC", "helper/helper.c", "-o", "helper/libopmhelper.so",
                     "-Wl,-soname,libopmhelper.so"], "helper", cwd=d)
    out = {}
    for name, (src, flags) in C_LIBS.items():
        (d / (name + ".c")).write_text(src if src is not None else C_LIBS[name.split("_")[0]][0])
        compile_or_fail([cc, "-shared", "-fPIC", name + ".c", "-o", "lib%s.so" % name] + flags, name, cwd=d)
        out[name] = str(d / ("lib%s.so" % name))
    (d / "ghost" / "ghost.c").write_text("int opm_ghost(void) { return 7; }\n")
    compile_or_fail([cc, "-shared", "-fPIC", "ghost/ghost.c", "-o", "ghost/libopm_ghost.so.1",
                     "-Wl,-soname,libopm_ghost.so.1"], "ghost", cwd=d)
    (d / "needy.c").write_text("extern int opm_ghost(void);\nint opm_needy(void) { return opm_ghost(); }\n")
    compile_or_fail([cc, "-shared", "-fPIC", "needy.c", "-o", "libneedy.so", "ghost/libopm_ghost.so.1"], "needy", cwd=d)
    (d / "ghost" / "libopm_ghost.so.1").unlink()
    out["needy"] = str(d / "libneedy.so")
    return out
