#!/usr/bin/env bash
# Speed on a GPU: our GEMMs next to torch.matmul (cuBLAS) and Triton, our memory-bound kernels
# next to the copy bandwidth (bench/gpu/gemm.py), for a machine with an NVIDIA GPU, its driver,
# cuda-bindings, and torch/triton where they are installed:
#
#   bench/gpu/gemm.sh [--size 4096] [--elems N] [--repeat N] [--dry-run]   (PYTHON=... picks
#   the interpreter)
#
# --dry-run compiles everything and prints the launches without a GPU. Without a GPU (and
# without --dry-run) it says why and exits with status 2; a result that disagrees with torch
# exits with 1.
set -u
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
PY="${PYTHON:-python3}"
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"
if ! "$PY" -c "import xdsl, numpy, ml_dtypes" 2>/dev/null; then
  echo "bench/gpu: $PY lacks xdsl/numpy/ml_dtypes: pip install -e '$ROOT[cuda]' first" >&2
  exit 2
fi
cd "$ROOT" && exec "$PY" bench/gpu/gemm.py "$@"
