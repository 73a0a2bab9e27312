"""Suite-wide settings.

BLAS threads spin against each other on the small shared CI machine (2 cores, pytest-xdist and lit
workers running beside them): a 128x128x512 matmul can take ~100x longer than single-threaded.
These must be set before numpy is first imported, which is why they live in the root conftest;
a value already in the environment wins. The suite also audits the passes' change reports
(``TIRX_VERIFY_AUDIT``, below).
"""

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

# Every verification from a pass's change report is checked against a full one
# (`tirx_mlir.verification.AUDIT_ENV`): a pass stating REPORTS_CHANGES that changes an op without
# reporting it fails the test that ran it.
os.environ.setdefault("TIRX_VERIFY_AUDIT", "1")

# Fixtures shared across folders (the test-only backends).
pytest_plugins = ("tirx_testing.backend_fixtures",)
