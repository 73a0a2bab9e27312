#!/usr/bin/env bash
# Speed on a GPU: our GEMMs next to torch.matmul (cuBLAS) and Triton, our memory-bound kernels
# next to the copy bandwidth (bench/gpu/gemm.py says what and how), for a machine with an NVIDIA
# GPU, its driver, cuda-bindings, and torch/triton where they are installed:
#
#   bench/gpu/gemm.sh [--size 4096] [--elems N] [--repeat N] [--dry-run]
#
# PYTHON=... picks the interpreter (one with the project installed: pip install -e '.[cuda]').
# --dry-run compiles everything and prints the launches without a GPU. Without a GPU (and
# without --dry-run) it says why and exits with status 2; a result that disagrees with torch
# exits with 1.
exec "${PYTHON:-python3}" "$(cd "$(dirname "$0")" && pwd)/gemm.py" "$@"
