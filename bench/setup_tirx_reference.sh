#!/usr/bin/env bash
# Create the TIRx reference environment the compile benches compare against:
#   bench/setup_tirx_reference.sh [DIR]
# DIR defaults to $TIRX_REF_VENV, else tirx_ref_venv next to the repository, which is where
# bench/trn_compile.py looks by default (bench/timing.py: reference_venv). The environment holds
# only apache-tvm-tirx 0.1.0a4 (TIRx's wheel, with its own TVM runtime); tirx_mlir never imports
# it: the benches run bench/trn_tirx_reference.py with this environment's Python.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="${1:-${TIRX_REF_VENV:-$(dirname "$repo")/tirx_ref_venv}}"
python="${PYTHON:-python3}"
if [[ -x "$dir/bin/python" ]] && "$dir/bin/python" -c "import tvm_tirx" 2>/dev/null; then
  echo "TIRx reference environment already at $dir"
else
  "$python" -m venv "$dir"
  "$dir/bin/pip" install -q --upgrade pip
  "$dir/bin/pip" install -q "apache-tvm-tirx==0.1.0a4"
fi
"$dir/bin/python" -c "import tvm_tirx; print('tvm_tirx', tvm_tirx.__version__, 'at', '$dir')"
if [[ "$dir" != "$(dirname "$repo")/tirx_ref_venv" ]]; then
  echo "not the default place: run the benches with TIRX_REF_VENV=$dir (or --tirx-venv $dir)"
fi
