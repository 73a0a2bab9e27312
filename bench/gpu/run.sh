#!/usr/bin/env bash
# The GPU check of the runtime, for a machine with an NVIDIA GPU, its driver and cuda-bindings:
#
#   bench/gpu/run.sh [--repeat N]        (from anywhere; PYTHON=... picks the interpreter)
#
# Runs every CUDA example (examples/cuda) on the CUDA device and compares it with the interpreter
# device where that can run CUDA-level IR, prints the CUDA device's pool statistics, and times
# vector_add against the device-to-device copy bandwidth (bench/gpu/check.py). Without a GPU it
# says why (e.g. CUDA error 35: no driver) and exits with status 2; a mismatch exits with 1.
set -u
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
PY="${PYTHON:-python3}"
export PYTHONPATH="$ROOT${PYTHONPATH:+:$PYTHONPATH}"
if ! "$PY" -c "import xdsl, numpy, ml_dtypes" 2>/dev/null; then
  echo "bench/gpu: $PY lacks xdsl/numpy/ml_dtypes: pip install -e '$ROOT[cuda]' first" >&2
  exit 2
fi
cd "$ROOT" && exec "$PY" bench/gpu/check.py "$@"
