"""scripts/cell/load_library.py: a package that imports fine while declining its own compiled
extension (a warning, a log record or a print, then a Python fallback) says so in the import's
"declined", in its own words; a package that says nothing of the kind has none."""
import os
import pathlib
import sys

import pytest

from conftest import run_json

PACKAGES = {
    # xformers' words when its _C.so was built for another torch
    "warnspkg": 'import warnings\nwarnings.warn("WARNING[XFORMERS]: xFormers can\'t load C++/CUDA extensions. '
                'xFormers was built for: PyTorch 2.5.1+cu124 (you have 2.15.0)")\n',
    # torchao's, through logging
    "logspkg": 'import logging\nlogging.getLogger(__name__).warning("Skipping import of cpp extensions due to '
               'incompatible torch version 2.15.0 for torchao version 0.7.0")\n',
    # a print on stdout
    "printpkg": 'print("native kernels not loaded: falling back to the pure Python implementation")\n',
    # dgl 2.1.0's: packaging, else setuptools' vendored copy
    "fallbackpkg": 'try:\n    from opmatrix_absent_packaging import version\nexcept ImportError:\n'
                   '    from opmatrix_absent_setuptools.extern.packaging import version\n',
    # IPEX 2.8.0's version check, then its broken exit
    "refusingpkg": 'import os\nprint("ERROR! Intel(R) Extension for PyTorch* needs to work with PyTorch 2.8.*, but '
                   'PyTorch 2.6.0 is found. Please switch to the matching version and run again.")\nos.exit(127)\n',
    # torchao 0.18.0 in torch 2.8: its warning, then an ImportError of a torch 2.11 API
    "upgradepkg": 'import logging\nlogging.getLogger(__name__).warning("Skipping import of cpp extensions due to '
                  'incompatible torch version. Please upgrade to torch >= 2.11.0 (found 2.8.0+cu128).")\n'
                  'from torch.nn.functional import OpmatrixAbsentScalingType\n',
    # fbgemm-gpu-cpu 1.5.0 in Debian's torch 2.6: its words about the torch it needs, then an abort
    "abortingpkg": 'import os, sys\nprint("Please refer to the FBGEMM-PyTorch compatibility table.", file=sys.stderr)\n'
                   'print("terminate called after throwing an instance of \'std::bad_alloc\'\\n  what():  std::bad_alloc", '
                   'file=sys.stderr, flush=True)\nos.abort()\n',
    # fbgemm_gpu 1.9.0 beside Debian's CPU torch 2.6: a coloured caution wrapped over indented
    # lines, then its CUDA torch's library missing
    "cautionpkg": 'import sys\nprint("\\n            \\x1b[31m\\n            FBGEMM_GPU version is 1.9.0, which is not '
                  'guaranteed to be\\n            compatible with PyTorch 2.6.0+debian; library loading might\\n'
                  '            crash!\\n            \\x1b[0m", file=sys.stderr)\n'
                  'raise OSError("libopmatrix_absent_cuda.so: cannot open shared object file: No such file or directory")\n',
    # a refusal wrapped over indented lines
    "wrappedpkg": 'print("    FooLib needs PyTorch 2.8.*,\\n    but PyTorch 2.6.0 is found; install the matching build")\n'
                  'raise ImportError("FooLib stops here")\n',
    # torchpipe 0.2.25 beside torch 2.14, which it has no build for: its compile at import fails
    # (its -std=c++17 against torch's C++20 headers) and it goes on without its extension
    "jitpkg": 'import logging\nprint("/usr/include/torch/all.h:5:2: error: #error C++20 or later compatible '
              'compiler is required to use PyTorch.")\nlogging.getLogger(__name__).warning("Failed to load or JIT '
              'compile builtin extensions: Command returned non-zero exit status 1.")\n',
    # nexfort 0.1.dev330 beside torch 2.4.1: its version check raises its refusal
    "raisingpkg": 'raise Exception("The torch version(torch==2.4.0+cu121) of raisingpkg\'s compilation environment '
                  'conflicts with the current environment(torch==2.4.1+cu121)!")\n',
    # torchcodec 0.10.0 where none of its FFmpeg builds loads: a list of likely causes, no refusal
    "causespkg": 'raise RuntimeError("Could not load libtorchcodec. Likely causes:\\n  1. FFmpeg is not properly '
                 'installed in your environment.\\n  2. The PyTorch version (2.12.1+cu130) is not compatible with\\n'
                 '     this version of TorchCodec.")\n',
    "quietpkg": 'import warnings\nwarnings.warn("this API is deprecated", DeprecationWarning)\nVALUE = 1\n',
}


@pytest.fixture(scope="module")
def site(build_root):
    site = build_root / "declined-site"
    for name, init in PACKAGES.items():
        (site / name).mkdir(parents=True, exist_ok=True)
        (site / name / "__init__.py").write_text(init)
    return site


@pytest.mark.parametrize("package,words", [
    ("warnspkg", "xFormers can't load C++/CUDA extensions"),
    ("logspkg", "Skipping import of cpp extensions due to incompatible torch version"),
    ("printpkg", "falling back to the pure Python implementation"),
])
def test_a_package_declining_its_extension_says_so_in_its_own_words(site, package, words):
    env = dict(os.environ, PYTHONPATH=str(site), PYTHONDONTWRITEBYTECODE="1")
    out, ran = run_json("load_library.py", "--import", package, "--find", str(site / package), env=env)
    assert out["import"]["ok"] is True, out["import"]
    assert any(words in line for line in out["import"].get("declined", [])), out["import"]
    assert words in ran.stderr, "the step's log keeps what the import said"


def test_a_compile_at_import_that_fails_is_declined_with_the_compilers_words(site):
    env = dict(os.environ, PYTHONPATH=str(site), PYTHONDONTWRITEBYTECODE="1")
    out, _ = run_json("load_library.py", "--import", "jitpkg", "--find", str(site / "jitpkg"), env=env)
    assert out["import"]["ok"] is True, out["import"]
    assert out["import"]["declined"] == ["Failed to load or JIT compile builtin extensions: Command returned non-zero "
                                         "exit status 1."]
    assert out["import"]["compile_errors"] == ["/usr/include/torch/all.h:5:2: error: #error C++20 or later compatible "
                                               "compiler is required to use PyTorch."]
    quiet, _ = run_json("load_library.py", "--import", "warnspkg", "--find", str(site / "warnspkg"), env=env)
    assert "compile_errors" not in quiet["import"], "a package that compiled nothing has no compile errors"


def test_a_quiet_package_declines_nothing(site):
    env = dict(os.environ, PYTHONPATH=str(site), PYTHONDONTWRITEBYTECODE="1")
    out, _ = run_json("load_library.py", "--import", "quietpkg", "--find", str(site / "quietpkg"), env=env)
    assert out["import"]["ok"] is True, out["import"]
    assert "declined" not in out["import"], out["import"]


def test_a_module_it_fell_back_from_is_named_first(site):
    env = dict(os.environ, PYTHONPATH=str(site), PYTHONDONTWRITEBYTECODE="1")
    out, _ = run_json("load_library.py", "--import", "fallbackpkg", "--find", str(site / "fallbackpkg"), env=env)
    assert out["import"]["ok"] is False
    assert out["import"]["missing_modules"] == ["opmatrix_absent_packaging", "opmatrix_absent_setuptools"]


def test_a_version_check_refusing_this_torch_is_kept_in_its_words(site):
    env = dict(os.environ, PYTHONPATH=str(site), PYTHONDONTWRITEBYTECODE="1")
    out, _ = run_json("load_library.py", "--import", "refusingpkg", "--find", str(site / "refusingpkg"), env=env)
    assert out["import"]["ok"] is False
    assert "has no attribute 'exit'" in out["import"]["error"]
    assert out["import"]["refused"] == ["ERROR! Intel(R) Extension for PyTorch* needs to work with PyTorch 2.8.*, but "
                                        "PyTorch 2.6.0 is found. Please switch to the matching version and run again."]
    fallback, _ = run_json("load_library.py", "--import", "fallbackpkg", "--find", str(site / "fallbackpkg"), env=env)
    assert "refused" not in fallback["import"], "a missing module is no refusal"
    causes, _ = run_json("load_library.py", "--import", "causespkg", "--find", str(site / "causespkg"), env=env)
    assert causes["import"]["ok"] is False and "Likely causes" in causes["import"]["error"]
    assert "refused" not in causes["import"], "likely causes listed under the error's first line are no refusal"


@pytest.mark.parametrize("package,error,refusal", [
    # torchao 0.18.0: an upgrade it asks for, then an ImportError of another cause
    ("upgradepkg", "OpmatrixAbsentScalingType", "Skipping import of cpp extensions due to incompatible torch version. "
                                                "Please upgrade to torch >= 2.11.0 (found 2.8.0+cu128)."),
    # nexfort 0.1.dev330: the refusal is the exception it raises
    ("raisingpkg", "conflicts with", "Exception: The torch version(torch==2.4.0+cu121) of raisingpkg's compilation "
                                     "environment conflicts with the current environment(torch==2.4.1+cu121)!"),
])
def test_a_refusal_before_or_in_the_error_is_kept_in_its_words(site, package, error, refusal):
    env = dict(os.environ, PYTHONPATH=str(site), PYTHONDONTWRITEBYTECODE="1")
    out, _ = run_json("load_library.py", "--import", package, "--find", str(site / package), env=env)
    assert out["import"]["ok"] is False and error in out["import"]["error"]
    assert out["import"]["refused"] == [refusal]


def test_a_refusal_raised_inside_a_requirement_names_that_requirement(site, build_root):
    # vptq 0.0.5.post1 beside torch 2.5.1: `import vptq` imports transformers 5, which prints that
    # it disables torch before 2.6, then fails inside itself (NameError: name 'nn' is not defined).
    deps = build_root / "declined-deps"
    (deps / "refusingdep").mkdir(parents=True, exist_ok=True)
    (deps / "refusingdep" / "__init__.py").write_text(
        'print("[refusingdep] Disabling PyTorch because PyTorch >= 2.6 is required but found 2.5.1")\n'
        'class Model(nn.Module):\n    pass\n')
    (site / "userpkg").mkdir(exist_ok=True)
    (site / "userpkg" / "__init__.py").write_text("import refusingdep\n")
    env = dict(os.environ, PYTHONPATH="%s:%s" % (site, deps), PYTHONDONTWRITEBYTECODE="1")
    out, _ = run_json("load_library.py", "--import", "userpkg", "--find", str(site / "userpkg"), env=env)
    assert out["import"]["ok"] is False and "NameError" in out["import"]["error"]
    assert out["import"]["refused"] == ["[refusingdep] Disabling PyTorch because PyTorch >= 2.6 is required but "
                                        "found 2.5.1"]
    assert out["import"]["failed_in"] == "refusingdep"
    # The package's own refusal names no other module.
    own, _ = run_json("load_library.py", "--import", "refusingpkg", "--find", str(site / "refusingpkg"), env=env)
    assert "failed_in" not in own["import"], own["import"]


@pytest.mark.parametrize("hub,refusal_kept", [
    # transformers 5's hub.py: create_repo in a comment and as an attribute, bound nowhere
    ("# Routing Hub calls (create_repo, ...)\ndef push(api):\n    return api.create_repo('x')\n", False),
    # bound under a condition the refusal may have decided
    ("import os\nif os.environ.get('OPMATRIX_ABSENT_FLAG'):\n    def create_repo():\n        pass\n", True),
    # a module that makes names at run time
    ("def __getattr__(name):\n    raise AttributeError(name)\n", True),
    ("from os.path import *\n", True),
])
def test_a_refusal_before_a_name_its_module_never_binds_is_not_the_cause(site, build_root, hub, refusal_kept):
    # auto-gptq 0.5.1 beside torch 2.4.1: transformers 5 prints that it disables torch before 2.6,
    # then `from transformers.utils.hub import create_repo` fails: hub.py binds that name nowhere,
    # beside any torch. The refusal stays where the name could depend on it.
    deps = build_root / ("hub-deps-%d" % abs(hash(hub)))
    (deps / "disablingdep").mkdir(parents=True, exist_ok=True)
    (deps / "disablingdep" / "__init__.py").write_text(
        'print("[disablingdep] Disabling PyTorch because PyTorch >= 2.6 is required but found 2.4.1")\n')
    (deps / "disablingdep" / "hub.py").write_text(hub)
    (site / "hubuser").mkdir(exist_ok=True)
    (site / "hubuser" / "__init__.py").write_text("from disablingdep.hub import create_repo\n")
    env = dict(os.environ, PYTHONPATH="%s:%s" % (site, deps), PYTHONDONTWRITEBYTECODE="1")
    out, _ = run_json("load_library.py", "--import", "hubuser", "--find", str(site / "hubuser"), env=env)
    assert out["import"]["ok"] is False and "cannot import name 'create_repo'" in out["import"]["error"]
    assert ("refused" in out["import"]) == refusal_kept, out["import"]
    assert ("never_bound" in out["import"]) != refusal_kept, out["import"]
    if not refusal_kept:
        assert out["import"]["never_bound"] == "create_repo' from 'disablingdep.hub"


def test_an_import_that_kills_its_process_is_a_crash_and_the_report_survives(site):
    # The import is tried in a child first: the report (every library's load included) is still
    # printed, the import a crash with its signal and last words.
    env = dict(os.environ, PYTHONPATH=str(site), PYTHONDONTWRITEBYTECODE="1")
    out, ran = run_json("load_library.py", "--import", "abortingpkg", "--namespace", "abortingpkg",
                        "--find", str(site / "abortingpkg"), env=env)
    assert ran.returncode == 0, ran.stderr
    assert out["import"]["ok"] is False and out["import"]["crash"] == "SIGABRT", out["import"]
    assert out["import"]["error"] == "the import killed its process (SIGABRT): what():  std::bad_alloc"
    assert "FBGEMM-PyTorch compatibility table" in out["import"]["traceback"]
    assert out["ops"] == {}


def installed_site(root, dist, files):
    """A folder as pip leaves a wheel installed in it: FILES (path -> text) and the dist-info
    whose RECORD lists them."""
    root.mkdir(parents=True, exist_ok=True)
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)
    info = root / (dist + "-1.0.dist-info")
    info.mkdir(exist_ok=True)
    (info / "top_level.txt").write_text(dist + "\n")  # as deepspeed-kernels': a name it does not ship
    (info / "RECORD").write_text("".join("%s,sha256=x,1\n" % p for p in list(files) + [info.name + "/RECORD"]))
    return root


def test_an_import_naming_a_module_the_package_lacks_lists_the_modules_it_holds(build_root):
    # deepspeed-kernels 0.0.1: its wheel holds `dskernels`; an import of `deepspeed_kernels` fails
    # for want of the very module it names, and the package is not at fault.
    site = installed_site(build_root / "misnamed-site", "opmatrix_misnamed_kernels", {
        "opmatrixdsk/__init__.py": "VALUE = 1\n", "opmatrix_top_mod.py": "VALUE = 2\n", "LICENSE": "x\n",
        "opmatrix_misnamed_kernels.libs/libx.so": "x\n"})  # auditwheel's folder: no module
    env = dict(os.environ, PYTHONPATH=str(site), PYTHONDONTWRITEBYTECODE="1")
    out, _ = run_json("load_library.py", "--import", "opmatrix_misnamed_kernels", "--find", str(site), env=env)
    assert out["import"]["ok"] is False
    assert out["import"]["package_modules"] == ["opmatrix_top_mod", "opmatrixdsk"]
    # Its real module imports; a module missing inside it is its own failure, with no such list.
    good, _ = run_json("load_library.py", "--import", "opmatrixdsk", "--find", str(site), env=env)
    assert good["import"]["ok"] is True, good["import"]
    (site / "opmatrixdsk" / "broken.py").write_text("import opmatrix_absent_dependency\n")
    broken, _ = run_json("load_library.py", "--import", "opmatrixdsk.broken", "--find", str(site), env=env)
    assert broken["import"]["ok"] is False and "package_modules" not in broken["import"], broken["import"]


def test_a_first_use_compile_that_fails_at_import_keeps_its_compiler_errors(tmp_path):
    # torch-encoding 1.2.1 compiles its ops at import; torch's "Error building extension" quotes
    # the whole ninja log, whose error lines sit before 3000 characters of warnings.
    pkg = tmp_path / "site" / "opmatrix_jitpkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(
        "raise RuntimeError(\"Error building extension 'enclib_cpu': [1/7] c++ -c a.cpp\\n\"\n"
        "    \"/tmp/d/encoding/lib/cpu/roi_align_cpu.cpp:413:3: error: cannot convert "
        "'const at::DeprecatedTypeProperties' to 'c10::ScalarType'\\n\" + 'warning: x\\n' * 600)\n")
    env = dict(os.environ, PYTHONPATH=str(tmp_path / "site"), PYTHONDONTWRITEBYTECODE="1")
    out, _ = run_json("load_library.py", "--import", "opmatrix_jitpkg", "--find", str(tmp_path / "site"), env=env)
    assert out["import"]["ok"] is False
    assert out["import"]["traceback"].startswith(
        "/tmp/d/encoding/lib/cpu/roi_align_cpu.cpp:413:3: error: cannot convert"), out["import"]["traceback"][:300]


def test_a_caution_is_no_refusal_and_a_wrapped_refusal_is_read_whole(site):
    env = dict(os.environ, PYTHONPATH=str(site), PYTHONDONTWRITEBYTECODE="1")
    caution, _ = run_json("load_library.py", "--import", "cautionpkg", "--find", str(site / "cautionpkg"), env=env)
    assert caution["import"]["ok"] is False
    assert "refused" not in caution["import"], caution["import"]
    assert "libopmatrix_absent_cuda.so" in caution["import"]["error"]
    wrapped, _ = run_json("load_library.py", "--import", "wrappedpkg", "--find", str(site / "wrappedpkg"), env=env)
    assert wrapped["import"]["refused"] == ["FooLib needs PyTorch 2.8.*, but PyTorch 2.6.0 is found; install the "
                                            "matching build"], wrapped["import"]


def test_the_import_says_whether_it_brought_torchvision_in(site, tmp_path):
    """A project whose import leaves torchvision out is not judged by the cell's torchvision."""
    (tmp_path / "visionpkg").mkdir()
    (tmp_path / "visionpkg" / "__init__.py").write_text("import torchvision\n")
    # A stand-in only where the machine has no torchvision: what is read is whether it was imported.
    if not any((pathlib.Path(p) / "torchvision").is_dir() for p in sys.path if p):
        (tmp_path / "torchvision").mkdir()
        (tmp_path / "torchvision" / "__init__.py").write_text("")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(site)]), PYTHONDONTWRITEBYTECODE="1")
    uses, _ = run_json("load_library.py", "--import", "visionpkg", "--find", str(tmp_path / "visionpkg"), env=env)
    assert uses["import"]["ok"] is True and uses["import"]["torchvision_loaded"] is True, uses["import"]
    quiet, _ = run_json("load_library.py", "--import", "quietpkg", "--find", str(site / "quietpkg"), env=env)
    assert quiet["import"]["torchvision_loaded"] is False, quiet["import"]
