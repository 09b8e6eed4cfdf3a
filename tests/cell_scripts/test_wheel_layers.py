"""scripts/cell/wheel-layers.py: the files one pip resolution of a torch names, split into the
pin files of the pypi image's layers. File names as pip downloads them (real ones, from the
resolutions of torch 2.9.1 and 2.11.0 on PyPI)."""
import os

from conftest import run_script

RESOLVED_2_9_1 = """/wh/torch-2.9.1-cp311-cp311-manylinux_2_28_x86_64.whl
/wh/torchvision-0.24.1-cp311-cp311-manylinux_2_28_x86_64.whl
/wh/triton-3.5.1-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl
/wh/nvidia_cublas_cu12-12.8.4.1-py3-none-manylinux_2_27_x86_64.whl
/wh/nvidia_cuda_runtime_cu12-12.8.90-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl
/wh/nvidia_cusparse_cu12-12.5.8.93-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl
/wh/nvidia_cusparselt_cu12-0.7.1-py3-none-manylinux2014_x86_64.whl
/wh/nvidia_cudnn_cu12-9.10.2.21-py3-none-manylinux_2_27_x86_64.whl
/wh/nvidia_nccl_cu12-2.27.5-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl
/wh/nvidia_nvjitlink_cu12-12.8.93-py3-none-manylinux2010_x86_64.manylinux_2_12_x86_64.whl
/wh/nvidia_nvshmem_cu12-3.3.20-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl
/wh/typing_extensions-4.16.0-py3-none-any.whl
/wh/MarkupSafe-3.0.4-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl
"""


def layers(tmp_path, *listings):
    paths = []
    for i, text in enumerate(listings):
        p = tmp_path / ("resolved%d" % i)
        p.write_text(text)
        paths.append(p)
    out = tmp_path / "pins"
    r = run_script("wheel-layers.py", out, *paths)
    assert r.returncode == 0, r.stderr
    return {f: (out / f).read_text().splitlines() for f in sorted(os.listdir(str(out)))}, r.stdout


def test_each_wheel_lands_in_its_layer(tmp_path):
    got, printed = layers(tmp_path, RESOLVED_2_9_1)
    assert got == {
        "1-cuda-libs.txt": ["nvidia-cuda-runtime-cu12==12.8.90", "nvidia-cusparse-cu12==12.5.8.93"],
        "2-cublas.txt": ["nvidia-cublas-cu12==12.8.4.1"],
        "3-cudnn.txt": ["nvidia-cudnn-cu12==9.10.2.21"],
        "4-cusparselt.txt": ["nvidia-cusparselt-cu12==0.7.1"],
        "5-nccl.txt": ["nvidia-nccl-cu12==2.27.5"],
        # nvJitLink is left unpinned by some torches (the newest is taken): not with the CUDA libraries.
        "6-nvidia-other.txt": ["nvidia-nvjitlink-cu12==12.8.93", "nvidia-nvshmem-cu12==3.3.20"],
        "7-torch.txt": ["markupsafe==3.0.4", "torch==2.9.1", "torchvision==0.24.1", "triton==3.5.1",
                        "typing-extensions==4.16.0"],
    }
    assert "wheel-layers: 3-cudnn: nvidia-cudnn-cu12==9.10.2.21\n" in printed


def test_cuda13_names_and_an_empty_layer(tmp_path):
    # CUDA 13 wheels drop the -cuNN suffix for the toolkit's libraries; cuda-bindings and the
    # cuda-toolkit metapackage are NVIDIA's too. No cuDNN here: its layer's file is empty.
    got, printed = layers(tmp_path, "/wh/nvidia_cublas-13.1.0.3-py3-none-manylinux_2_27_x86_64.whl\n"
                                    "/wh/nvidia_cufft-12.0.0.61-py3-none-manylinux2014_x86_64.whl\n"
                                    "/wh/cuda_bindings-13.5.0-cp311-cp311-manylinux_2_24_x86_64.whl\n"
                                    "/wh/cuda_toolkit-13.0.2-py2.py3-none-any.whl\n",
                          # a second resolution (torchvision --no-deps) adds to the first; a repeat counts once
                          "/wh/torch-2.11.0-cp311-cp311-manylinux_2_28_x86_64.whl\n"
                          "/wh/nvidia_cufft-12.0.0.61-py3-none-manylinux2014_x86_64.whl\n")
    assert got["1-cuda-libs.txt"] == ["nvidia-cufft==12.0.0.61"]
    assert got["2-cublas.txt"] == ["nvidia-cublas==13.1.0.3"]
    assert got["3-cudnn.txt"] == []
    assert got["6-nvidia-other.txt"] == ["cuda-bindings==13.5.0", "cuda-toolkit==13.0.2"]
    assert got["7-torch.txt"] == ["torch==2.11.0"]
    assert "wheel-layers: 3-cudnn: (nothing)" in printed


def test_an_sdist_is_pinned_too(tmp_path):
    got, _ = layers(tmp_path, "/wh/lit-18.1.8.tar.gz\n/wh/torch-2.0.1-cp311-cp311-manylinux1_x86_64.whl\n")
    assert got["7-torch.txt"] == ["lit==18.1.8", "torch==2.0.1"]


def test_a_file_that_is_no_wheel_is_an_error(tmp_path):
    listing = tmp_path / "resolved"
    listing.write_text("/wh/README\n")
    r = run_script("wheel-layers.py", tmp_path / "pins", listing)
    assert r.returncode == 1
    assert r.stderr.strip() == "wheel-layers: not a wheel or sdist file name: README"
    assert not (tmp_path / "pins").exists()


def test_usage(tmp_path):
    r = run_script("wheel-layers.py", tmp_path)
    assert r.returncode == 2
    assert r.stderr.startswith("usage: wheel-layers.py OUTDIR LIST...")


def test_the_venvs_own_build_tools_are_never_replaced(tmp_path):
    # torch 2.0.1's resolution (triton 2.0.0 requires cmake; wheel and setuptools ride along):
    # installed with the torch they would replace the venv's setuptools, whose pkg_resources
    # torch 2.0's cpp_extension imports (setuptools 82 removed it), and its CMake 3.31.
    got, printed = layers(tmp_path, """/wh/torch-2.0.1-cp311-cp311-manylinux1_x86_64.whl
/wh/triton-2.0.0-1-cp311-cp311-manylinux2014_x86_64.manylinux_2_17_x86_64.whl
/wh/cmake-4.4.5-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl
/wh/setuptools-84.2.1-py3-none-any.whl
/wh/wheel-0.48.0-py3-none-any.whl
/wh/lit-23.1.5-py3-none-any.whl
""")
    assert got["7-torch.txt"] == ["lit==23.1.5", "torch==2.0.1", "triton==2.0.0"]
    assert "not pinned, the venv's own are kept: cmake==4.4.5 setuptools==84.2.1 wheel==0.48.0" in printed
