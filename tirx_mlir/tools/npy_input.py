"""Reading a kernel argument from a ``.npy`` file, refusing anything that is not one plain array.

    arr = read_npy("a.npy", want=np.dtype(np.float32))     # NpyInputError names the file

numpy's own ``np.load`` trusts the file: an empty file raises ``EOFError``, an ``.npz`` archive
returns an archive object, a header that promises terabytes is allocated before the data is
read, and a structured or raw-record (void) dtype loads as bytes that a caller may reinterpret
as anything. Here the header is read and checked first:

* the file must start with the ``.npy`` magic string (``.npz`` archives and empty files are
  named as such) and hold a format-1.0 or 2.0 header;
* object dtypes (pickles) and structured or sub-array dtypes are refused;
* bf16/fp8 data is read under its ml_dtypes name (``'bfloat16'``: what `npy_output` writes);
  raw records (void dtype, no fields: what ``np.save`` makes of bf16, and older tirx-run runs
  saved) are accepted only as bf16/fp8 data, read back as ``want`` when ``want`` is bf16 or
  fp8 of the same size, refused otherwise;
* the promised size is checked against the interpreter's buffer limit
  (`runtime.check_allocation`) and against the bytes the file really holds (a truncated file).
"""

from __future__ import annotations

import math
import os

import numpy as np

from tirx_mlir.interpreter import runtime
from tirx_mlir.tools.npy_output import ml_dtypes_name

_NPY_MAGIC = b"\x93NUMPY"
_ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06")
_MAX_HEADER_BYTES = 10_000


class NpyInputError(ValueError):
    """A ``.npy`` file that cannot be a kernel argument; the message names the file."""


def _header(f, path: str) -> tuple[tuple[int, ...], bool, np.dtype]:
    magic = f.read(len(_NPY_MAGIC))
    if not magic:
        raise NpyInputError(f"'{path}' is empty, not a .npy file")
    if magic.startswith(_ZIP_MAGICS):
        raise NpyInputError(f"'{path}' is an .npz archive; pass one .npy file per argument "
                            f"(extract them with numpy.load(path)[name])")
    if magic != _NPY_MAGIC:
        raise NpyInputError(f"'{path}' is not a .npy file (it does not start with the .npy "
                            f"magic string)")
    version = f.read(2)
    readers = {b"\x01\x00": np.lib.format.read_array_header_1_0,
               b"\x02\x00": np.lib.format.read_array_header_2_0}
    if version not in readers:
        raise NpyInputError(f"'{path}' uses .npy format version {tuple(version)}; tirx-run reads "
                            f"versions 1.0 and 2.0")
    try:
        return readers[version](f, max_header_size=_MAX_HEADER_BYTES)
    except (ValueError, SyntaxError, EOFError, OSError) as err:
        reason = str(err).split(":")[0].strip() or type(err).__name__
        raise NpyInputError(f"'{path}' has a malformed .npy header ({reason})") from None


def _check_dtype(path: str, dt: np.dtype, want: np.dtype | None) -> np.dtype:
    """The dtype to read the data as (``want`` for bf16/fp8 raw records)."""
    if dt.hasobject:
        raise NpyInputError(f"'{path}' holds Python objects (a pickle); tirx-run refuses "
                            f"pickled data")
    if dt.fields is not None or dt.subdtype is not None:
        raise NpyInputError(f"'{path}' holds structured records ({dt}); a kernel argument is an "
                            f"array of one element type")
    if dt.kind != "V" or ml_dtypes_name(dt) is not None:
        return dt  # numpy's own dtypes, and ml_dtypes' under their names
    if want is not None and runtime.is_float_dtype(want) and want.kind != "f" and \
            want.itemsize == dt.itemsize:
        return want  # bf16/fp8, saved as raw records of their size
    expect = f"the parameter is {runtime.dtype_name(want)}" if want is not None else \
        "only bf16/fp8 data is stored that way"
    raise NpyInputError(f"'{path}' holds raw {dt.itemsize}-byte records (void dtype), but "
                        f"{expect}; raw records are read back only as bf16 or fp8")


def read_npy(path: str, want: np.dtype | None = None) -> np.ndarray:
    """The array in ``path``, checked as the module docstring says; ``want`` is the dtype of the
    parameter it is for (used only to read bf16/fp8 raw records)."""
    try:
        f = open(path, "rb")
    except OSError as err:
        raise NpyInputError(f"cannot read '{path}': {err.strerror or err}") from None
    with f:
        shape, fortran_order, dt = _header(f, path)
        dt = _check_dtype(path, dt, want)
        try:
            runtime.check_allocation(shape, dt, f"the array in '{path}'")
        except runtime.InterpretError as err:
            raise NpyInputError(err.message) from None
        need = math.prod(shape) * dt.itemsize
        held = os.fstat(f.fileno()).st_size - f.tell()
        if held < need:
            raise NpyInputError(
                f"'{path}' is truncated: its header promises a {list(shape)} "
                f"{runtime.dtype_name(dt)} array ({runtime.format_bytes(need)}), but the file "
                f"holds {runtime.format_bytes(held)} of data")
        data = np.frombuffer(f.read(need), dtype=dt, count=math.prod(shape))
    order = "F" if fortran_order else "C"
    return data.reshape(shape, order=order).copy(order=order)
