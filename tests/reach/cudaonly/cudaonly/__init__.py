"""cudaonly: its ops are CUDA-only (see setup.py)."""
