"""Reading kernel arguments from .npy files (tirx_mlir.tools.npy_input): every file that is not
one plain array is refused with an error naming the file, before anything large is allocated."""

from __future__ import annotations

import io

import ml_dtypes
import numpy as np
import pytest

from tirx_mlir.tools.npy_input import NpyInputError, read_npy

F32 = np.dtype(np.float32)
BF16 = np.dtype(ml_dtypes.bfloat16)


def header(descr: str, shape: tuple[int, ...], fortran: bool = False) -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, {"descr": descr, "fortran_order": fortran,
                                               "shape": shape})
    return buf.getvalue()


def refused(path, want=F32) -> str:
    with pytest.raises(NpyInputError) as info:
        read_npy(str(path), want)
    assert f"'{path}'" in str(info.value)
    return str(info.value)


def test_plain_arrays_read_back(tmp_path):
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    np.save(tmp_path / "c.npy", a)
    np.save(tmp_path / "f.npy", np.asfortranarray(a))
    np.save(tmp_path / "e.npy", np.zeros((0, 4), np.float32))
    for name in ("c", "f"):
        got = read_npy(str(tmp_path / f"{name}.npy"), F32)
        np.testing.assert_array_equal(got, a)
        assert got.flags.writeable
    assert read_npy(str(tmp_path / "e.npy"), F32).shape == (0, 4)


def test_bf16_raw_records_read_back_as_the_parameter_type(tmp_path):
    a = np.arange(6, dtype=np.float32).astype(BF16)
    np.save(tmp_path / "b.npy", a)  # numpy stores bf16 as 2-byte raw records
    got = read_npy(str(tmp_path / "b.npy"), BF16)
    assert got.dtype == BF16
    np.testing.assert_array_equal(got.astype(np.float32), a.astype(np.float32))


def test_an_empty_file(tmp_path):
    (tmp_path / "x.npy").write_bytes(b"")
    assert "is empty, not a .npy file" in refused(tmp_path / "x.npy")


def test_an_npz_archive(tmp_path):
    np.savez(tmp_path / "x.npz", a=np.zeros(4, np.float32))
    assert "is an .npz archive" in refused(tmp_path / "x.npz")


def test_not_npy_at_all(tmp_path):
    (tmp_path / "x.npy").write_bytes(b"hello world")
    assert "does not start with the .npy magic string" in refused(tmp_path / "x.npy")


def test_a_malformed_header(tmp_path):
    (tmp_path / "x.npy").write_bytes(b"\x93NUMPY\x01\x00\x10\x00{'descr': zz}   \n")
    assert "malformed .npy header" in refused(tmp_path / "x.npy")


def test_a_header_promising_terabytes_is_refused_before_reading(tmp_path):
    (tmp_path / "x.npy").write_bytes(header("<f4", (1_000_000, 1_000_000)) + b"\0" * 16)
    assert "3.64 TiB" in refused(tmp_path / "x.npy")


def test_a_truncated_file(tmp_path):
    (tmp_path / "x.npy").write_bytes(header("<f4", (4,)) + b"\0" * 7)
    text = refused(tmp_path / "x.npy")
    assert "is truncated: its header promises a [4] f32 array (16 bytes), but the file holds " \
           "7 bytes of data" in text


def test_structured_records_are_refused(tmp_path):
    np.save(tmp_path / "x.npy", np.zeros(4, dtype=[("a", "<f2"), ("b", "<f2")]))
    assert "holds structured records" in refused(tmp_path / "x.npy")


def test_raw_records_are_not_reinterpreted_as_f32(tmp_path):
    np.save(tmp_path / "x.npy", np.zeros(4, np.float32).view("V4"))
    assert "raw 4-byte records (void dtype), but the parameter is f32" in \
        refused(tmp_path / "x.npy")
    np.save(tmp_path / "y.npy", np.zeros(4, np.float16).view("V2"))
    assert "but the parameter is f16" in refused(tmp_path / "y.npy", np.dtype(np.float16))


def test_pickles_stay_refused(tmp_path):
    np.save(tmp_path / "x.npy", np.array([1, "a", None], dtype=object), allow_pickle=True)
    assert "holds Python objects (a pickle)" in refused(tmp_path / "x.npy")


def test_a_missing_file(tmp_path):
    assert "No such file" in refused(tmp_path / "nope.npy")
