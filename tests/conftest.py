"""Suite-wide settings.

BLAS threads spin against each other on the small shared CI machine (2 cores, pytest-xdist and lit
workers running beside them): a 128x128x512 matmul can take ~100x longer than single-threaded.
These must be set before numpy is first imported, which is why they live in the root conftest;
a value already in the environment wins.
"""

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

# Fixtures shared across folders (the test-only backends).
pytest_plugins = ("tirx_testing.backend_fixtures",)
