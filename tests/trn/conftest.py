"""Makes the shared helpers of tests/trn (trn_testing.py) importable under importlib mode."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

# BLAS threads spin against each other when the 2-core CI machine is busy (a 128x128x512
# matmul then takes ~100x longer); one thread is faster here. Effective when numpy is not yet
# imported (running tests/trn alone).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
