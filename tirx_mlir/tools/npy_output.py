"""Writing a kernel argument as a ``.npy`` file that numpy + ml_dtypes load back as the same values.

    write_npy(f, arr)          # f: a binary file; what ``tirx-run --save`` writes

numpy's ``np.save`` stores an ml_dtypes array (bf16, fp8) under the descriptor numpy derives from
it: ``|V2`` raw records for bf16 (``np.load`` returns bytes, not numbers), ``<f1`` for
``float8_e5m2`` (which ``np.load`` rejects). Here such an array is stored under its ml_dtypes
name (``'bfloat16'``, ``'float8_e4m3fn'``, ``'float8_e5m2'``), which ``np.load`` resolves to the
ml_dtypes type once ``ml_dtypes`` is imported::

    import ml_dtypes, numpy as np
    np.load("out/Y.npy")        # array([...], dtype=bfloat16)

Without ``import ml_dtypes`` the same call fails with numpy's ``descr is not a valid dtype
descriptor: 'bfloat16'``, which names the type to import. Every other dtype goes through
``np.save`` unchanged. `npy_input.read_npy` (``tirx-run --inputs``) reads both forms back.
"""

from __future__ import annotations

from typing import IO

import numpy as np


def ml_dtypes_name(dt: np.dtype) -> str | None:
    """The ml_dtypes name of ``dt`` (``'bfloat16'``), None for numpy's own dtypes."""
    if not dt.type.__module__.startswith("ml_dtypes"):
        return None
    return dt.name


def write_npy(f: IO[bytes], arr: np.ndarray) -> None:
    """``arr`` as a format-1.0 ``.npy`` file (C order), ml_dtypes types under their names."""
    name = ml_dtypes_name(arr.dtype)
    if name is None:
        np.save(f, arr, allow_pickle=False)
        return
    np.lib.format.write_array_header_1_0(
        f, {"descr": name, "fortran_order": False, "shape": tuple(arr.shape)})
    f.write(np.ascontiguousarray(arr).tobytes())
