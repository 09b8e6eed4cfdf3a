"""scripts/cell/assemble-cuda-root.sh: one CUDA root out of a venv's nvidia wheels (+ an nvcc
toolchain). The wheels are stood in for by folders laid out as pip lays them out; the
toolchain is the host's real CUDA toolkit, and the assembled root must compile and link."""
import os
import shutil
import subprocess

import pytest

from conftest import cell_env, compile_or_fail, nvcc_or_skip, run_shell, toolkit_root

SCRIPT = "assemble-cuda-root.sh"
KERNEL = 'extern "C" __global__ void opm_k(float* x) { x[threadIdx.x] += 1.0f; }\nint main() { return 0; }\n'


def site_packages(venv):
    sp = venv / "lib" / "python3.11" / "site-packages" / "nvidia"
    sp.mkdir(parents=True)
    return sp


def write(path, text=""):
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.fixture(scope="module")
def toolkit():
    root = toolkit_root(nvcc_or_skip("no nvcc: no toolchain to assemble a root around"))
    if not os.access(os.path.join(root, "nvvm", "bin", "cicc"), os.X_OK):
        pytest.skip("%s has no nvvm/bin/cicc" % root)
    return root


@pytest.mark.parametrize("args, message", [
    ([], "usage: assemble-cuda-root.sh [--nvcc-root DIR] VENV DEST"),
    (["only-one"], "usage: assemble-cuda-root.sh [--nvcc-root DIR] VENV DEST"),
    (["--bogus", "a", "b"], "unknown option --bogus"),
])
def test_argument_errors(args, message):
    r = run_shell(SCRIPT, *args)
    assert r.returncode == 1 and r.stderr.strip() == "assemble-cuda-root: " + message


def test_help():
    r = run_shell(SCRIPT, "--help")
    assert r.returncode == 0 and "usage: assemble-cuda-root.sh [--nvcc-root DIR] VENV DEST" in r.stdout


def test_venv_without_nvidia_wheels(tmp_path):
    (tmp_path / "venv" / "lib" / "python3.11" / "site-packages").mkdir(parents=True)
    r = run_shell(SCRIPT, tmp_path / "venv", tmp_path / "dest")
    assert r.returncode == 1 and "no site-packages/nvidia under %s" % (tmp_path / "venv") in r.stderr
    assert not (tmp_path / "dest").exists()


def test_cu12_wheels_need_an_nvcc_root(tmp_path):
    # The cu11/cu12 nvidia-cuda-nvcc wheel carries ptxas, not nvcc: say so, name the way out.
    sp = site_packages(tmp_path / "venv")
    ptxas = write(sp / "cuda_nvcc" / "bin" / "ptxas")
    ptxas.chmod(0o755)
    r = run_shell(SCRIPT, tmp_path / "venv", tmp_path / "dest")
    assert r.returncode == 1
    assert "(only %s: the cu11/cu12 nvidia-cuda-nvcc wheels carry ptxas, not nvcc)" % ptxas in r.stderr
    assert r.stderr.strip().endswith("pass --nvcc-root DIR")


def test_nvcc_root_without_nvcc(tmp_path):
    site_packages(tmp_path / "venv")
    (tmp_path / "empty").mkdir()
    r = run_shell(SCRIPT, "--nvcc-root", tmp_path / "empty", tmp_path / "venv", tmp_path / "dest")
    assert r.returncode == 1 and "--nvcc-root %s has no bin/nvcc" % (tmp_path / "empty") in r.stderr


@pytest.fixture(scope="module")
def wheel_libs(cc, tmp_path_factory):
    """Two real shared libraries to stand in for wheel libraries."""
    d = tmp_path_factory.mktemp("wheel-libs")
    write(d / "w.c", "int opm_wheel_only(void) { return 1; }\n")
    compile_or_fail([cc, "-shared", "-fPIC", "-o", "libopm_wheel_only.so.3", "w.c"], "wheel lib", cwd=d)
    return str(d / "libopm_wheel_only.so.3")


def test_nvcc_root_plus_wheels(toolkit, wheel_libs, tmp_path):
    venv = tmp_path / "venv"
    sp = site_packages(venv)
    # A runtime wheel: a header and a library only it has, a header the toolchain also has
    # (the toolchain's must win: headers must match the compiler), packaging files to drop.
    write(sp / "cuda_runtime" / "include" / "opm_wheel_only.h", "#define OPM_WHEEL_ONLY 1\n")
    write(sp / "cuda_runtime" / "include" / "cuda_runtime.h", "#error the wheel's copy must not win\n")
    write(sp / "cuda_runtime" / "include" / "__init__.py")
    (sp / "cuda_runtime" / "lib").mkdir()
    shutil.copy(wheel_libs, str(sp / "cuda_runtime" / "lib"))
    tool = write(sp / "cuda_nvcc" / "bin" / "opm-wheel-tool", "#!/bin/sh\n")
    tool.chmod(0o755)
    write(sp / "__pycache__" / "x.pyc")
    dest = tmp_path / "dest"
    write(dest / "stale-file")  # DEST is replaced, not merged into
    r = run_shell(SCRIPT, "--nvcc-root", toolkit, venv, dest, timeout=300)
    assert r.returncode == 0, r.stderr
    assert not (dest / "stale-file").exists()
    # bin: nvcc copied (it finds its toolchain next to itself), the rest linked, our profile.
    assert (dest / "bin" / "nvcc").is_file() and not (dest / "bin" / "nvcc").is_symlink()
    assert os.readlink(str(dest / "bin" / "ptxas")) == os.path.join(toolkit, "bin", "ptxas")
    assert os.readlink(str(dest / "bin" / "opm-wheel-tool")) == str(tool)
    assert os.path.realpath(str(dest / "bin" / "g++")) == os.path.realpath(shutil.which("g++"))
    profile = (dest / "bin" / "nvcc.profile").read_text()
    assert "TOP              = $(_HERE_)/.." in profile and "from %s" % toolkit in profile
    assert os.readlink(str(dest / "nvvm")) == os.path.join(toolkit, "nvvm")
    # include: first source wins; packaging files gone.
    assert os.path.realpath(str(dest / "include" / "cuda_runtime.h")) == \
        os.path.realpath(os.path.join(toolkit, "include", "cuda_runtime.h"))
    link = os.readlink(str(dest / "include" / "opm_wheel_only.h"))  # cp -s writes SRC/./NAME
    assert os.path.normpath(link) == str(sp / "cuda_runtime" / "include" / "opm_wheel_only.h")
    assert not (dest / "include" / "__init__.py").exists()
    # lib64: the wheel's library linked, its unversioned name made; lib -> lib64.
    assert os.readlink(str(dest / "lib64" / "libopm_wheel_only.so.3")) == str(sp / "cuda_runtime" / "lib" / "libopm_wheel_only.so.3")
    assert os.readlink(str(dest / "lib64" / "libopm_wheel_only.so")) == "libopm_wheel_only.so.3"
    assert os.readlink(str(dest / "lib")) == "lib64"
    assert (dest / "lib64" / "libcudart.so").exists() and (dest / "lib64" / "libcudadevrt.a").exists()
    assert "assemble-cuda-root: %s: nvcc " % dest in r.stderr
    # The root works: its nvcc compiles and links an executable and a shared library.
    (tmp_path / "k.cu").write_text(KERNEL)
    nvcc = str(dest / "bin" / "nvcc")
    env = cell_env(PATH="/usr/bin:/bin")
    for args in (["-o", "k"], ["-shared", "-Xcompiler", "-fPIC", "-o", "libk.so"]):
        p = subprocess.run([nvcc, "-gencode", "arch=compute_80,code=sm_80", "k.cu"] + args, cwd=str(tmp_path),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, universal_newlines=True, env=env)
        assert p.returncode == 0, p.stdout
    assert subprocess.run([str(tmp_path / "k")], env=cell_env(LD_LIBRARY_PATH=str(dest / "lib64"))).returncode == 0


def test_cu13_wheel_tree_alone(toolkit, tmp_path):
    # CUDA 13 wheels: one prefix, nvidia/cu13, with nvcc and nvvm in it (here: the toolkit).
    venv = tmp_path / "venv"
    sp = site_packages(venv)
    os.symlink(toolkit, str(sp / "cu13"))
    dest = tmp_path / "dest"
    r = run_shell(SCRIPT, venv, dest, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "nvcc" in r.stderr and "from %s" % (sp / "cu13") in r.stderr
    assert os.readlink(str(dest / "nvvm")) == str(sp / "cu13" / "nvvm")
    p = subprocess.run([str(dest / "bin" / "nvcc"), "--version"], stdout=subprocess.PIPE, universal_newlines=True)
    assert p.returncode == 0 and "release" in p.stdout
