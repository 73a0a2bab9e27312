"""Atomics on the SIMT interpreter: ``cuda.atomic``/``atomic_cas`` and ``ptx.atom``/``atom_cas``/
``red``/``red_vec``, on global and shared memory, against hand-computed results; many lanes on
one address are ordered by lane (a float sum asserts the exact lane-order rounding)."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from tirx_testing.simt import cuda_kernel, run_simt
from tirx_mlir.interpreter.runtime import InterpretError


def atomic_kernel(op: str, t: str, n: int, threads: int, value: str, index: str = "%c0",
                  extra: str = "", grid: int = 1) -> str:
    """Every thread does ``old = atomic <op> Acc[index], V[gid]`` and stores ``old`` at
    ``Old[gid]``."""
    total = threads * grid
    buf = f"!tirx.buffer<{n}x{t}, global>"
    vec = f"!tirx.buffer<{total}x{t}, global>"
    return cuda_kernel(f"(%V: {vec}) -> (%Acc: {buf}, %Old: {vec})", f"""
  %c0 = arith.constant 0 : index
  %tx = cuda.thread_idx x : index
  %b = cuda.block_idx x : index
  %bd = arith.constant {threads} : index
  %base = arith.muli %b, %bd : index
  %t = arith.addi %base, %tx : index
  %v = cuda.load %V, %t : {vec}, index -> {t}
{extra}
  %old = {op.format(buf=buf, index=index, value=value)}
  cuda.store %Old, %t, %old : {vec}, index, {t}""", f"grid [{grid}] threads [{threads}]")


def run_atomic(kind: str, t: str, values: np.ndarray, init: np.ndarray, **kw):
    op = f"cuda.atomic {kind} %Acc, {{index}}, {{value}} : {{buf}}, index, {t} -> {t}"
    text = atomic_kernel(op, t, len(init), kw.pop("threads", len(values)), "%v", **kw)
    (acc, old), _ = run_simt(text, values, init.copy(), np.zeros_like(values))
    return acc, old


def lane_order(values: np.ndarray, start, combine):
    """(final, olds) of applying the values one by one in lane order."""
    acc = start
    olds = []
    for v in values:
        olds.append(acc)
        acc = combine(acc, v)
    return acc, np.array(olds, dtype=values.dtype)


def test_float_add_from_many_lanes_on_one_address_rounds_in_lane_order():
    rng = np.random.default_rng(8)
    values = (rng.standard_normal(256) * 10.0 ** rng.integers(-3, 8, 256)).astype(np.float32)
    acc, old = run_atomic("add", "f32", values, np.zeros(1, np.float32), threads=128, grid=2)
    final, olds = lane_order(values, np.float32(0), lambda a, b: np.float32(a + b))
    assert acc[0] == final
    np.testing.assert_array_equal(old, olds)
    reverse, _ = lane_order(values[::-1], np.float32(0), lambda a, b: np.float32(a + b))
    assert reverse != final  # the order is observable, so asserting it means something


@pytest.mark.parametrize("t, dtype", [("f16", np.float16), ("bf16", ml_dtypes.bfloat16),
                                      ("f64", np.float64)])
def test_float_add_in_other_types_rounds_each_step(t, dtype):
    values = np.linspace(0.1, 7.3, 64).astype(dtype)
    acc, old = run_atomic("add", t, values, np.zeros(1, dtype))
    final, olds = lane_order(values, dtype(0), lambda a, b: dtype(a + b))
    assert acc[0] == final
    np.testing.assert_array_equal(old, olds)


def test_integer_add_returns_each_lane_its_ticket_and_wraps():
    ones = np.ones(64, np.int32)
    acc, old = run_atomic("add", "i32", ones, np.array([2**31 - 10], np.int32))
    np.testing.assert_array_equal(old, (np.arange(64) + 2**31 - 10).astype(np.int64)
                                  .astype(np.uint32).view(np.int32))
    assert acc[0] == -(2**31) + 54  # 2**31 - 10 + 64 wraps


@pytest.mark.parametrize("kind, t", [("max", "i32"), ("min", "i32"), ("max", "ui32"),
                                     ("min", "ui32"), ("exch", "i32"), ("and", "i32"),
                                     ("or", "i64"), ("xor", "i32"), ("exch", "f32")])
def test_integer_and_exchange_atomics_in_lane_order(kind, t):
    dtype = {"i32": np.int32, "ui32": np.uint32, "i64": np.int64, "f32": np.float32}[t]
    rng = np.random.default_rng(9)
    values = rng.integers(-2**31, 2**31, 32).astype(dtype) if t != "f32" else \
        rng.standard_normal(32).astype(dtype)
    init = np.array([values[5] // 2 if t != "f32" else 1.5], dtype)
    acc, old = run_atomic(kind, t, values, init)
    combine = {"max": max, "min": min, "exch": lambda a, b: b, "and": lambda a, b: a & b,
               "or": lambda a, b: a | b, "xor": lambda a, b: a ^ b}[kind]
    final, olds = lane_order(values, init[0], combine)
    assert acc[0] == final
    np.testing.assert_array_equal(old, olds)


def test_shared_histogram_with_atomics():
    text = cuda_kernel("(%V: !tirx.buffer<128xi32, global>) -> (%H: !tirx.buffer<8xi32, global>)",
                       """
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %zero = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %t = cuda.thread_idx x : index
  %bins = cuda.shared_alloc : !tirx.buffer<8xi32, shared>
  %first = arith.cmpi ult, %t, %c8 : index
  scf.if %first {
    cuda.store %bins, %t, %zero : !tirx.buffer<8xi32, shared>, index, i32
  }
  cuda.sync_threads
  %v = cuda.load %V, %t : !tirx.buffer<128xi32, global>, index -> i32
  %bin = arith.index_cast %v : i32 to index
  %old = cuda.atomic add %bins, %bin, %one scope cta : !tirx.buffer<8xi32, shared>, index, i32 -> i32
  cuda.sync_threads
  scf.if %first {
    %n = cuda.load %bins, %t : !tirx.buffer<8xi32, shared>, index -> i32
    cuda.store %H, %t, %n : !tirx.buffer<8xi32, global>, index, i32
  }""", "grid [1] threads [128]")
    values = np.random.default_rng(10).integers(0, 8, 128).astype(np.int32)
    (hist,), _ = run_simt(text, values)
    np.testing.assert_array_equal(hist, np.bincount(values, minlength=8))


def test_compare_and_swap_chain_in_lane_order():
    # lane l swaps l -> l + 1: in lane order every compare succeeds
    op = ("cuda.atomic_cas %Acc, {index}, %cmp, %new : {buf}, index, i32, i32 -> i32")
    extra = """  %cmp = arith.index_cast %t : index to i32
  %c1 = arith.constant 1 : i32
  %new = arith.addi %cmp, %c1 : i32"""
    text = atomic_kernel(op, "i32", 1, 32, "%new", extra=extra)
    (acc, old), _ = run_simt(text, np.zeros(32, np.int32), np.zeros(1, np.int32),
                             np.zeros(32, np.int32))
    assert acc[0] == 32
    np.testing.assert_array_equal(old, np.arange(32))
    # from 7, lanes 0-6 compare and fail (the value stays, they get it), lane 7 succeeds
    (acc, old), _ = run_simt(text, np.zeros(32, np.int32), np.array([7], np.int32),
                             np.zeros(32, np.int32))
    assert acc[0] == 32
    np.testing.assert_array_equal(old, _cas_chain(7))
    assert (old[:8] == 7).all()


def _cas_chain(start: int) -> np.ndarray:
    value, olds = start, []
    for lane in range(32):
        olds.append(value)
        if value == lane:
            value = lane + 1
    return np.array(olds)


def test_atomic_index_out_of_bounds_is_located():
    op = "cuda.atomic add %Acc, {index}, {value} : {buf}, index, i32 -> i32"
    text = atomic_kernel(op, "i32", 16, 32, "%v", index="%t")
    with pytest.raises(InterpretError, match=r"index 16 is out of bounds of %Acc .*threads "
                                             r"16-31 of CTA \(0,0,0\)"):
        run_simt(text, np.ones(32, np.int32), np.zeros(16, np.int32), np.zeros(32, np.int32))


# ---- ptx ----

def ptx_kernel(body: str, t: str = "i32", n: int = 4) -> str:
    buf = f"!tirx.buffer<{n}x{t}, global>"
    return cuda_kernel(f"() -> (%Acc: {buf}, %Old: !tirx.buffer<32x{t}, global>)", f"""
  %c0 = arith.constant 0 : index
  %t = cuda.thread_idx x : index
  %t32 = arith.index_cast %t : index to i32
  %p = cuda.address %Acc, %c0 : {buf}, index -> i64
{body}
  cuda.store %Old, %t, %old : !tirx.buffer<32x{t}, global>, index, {t}""")


@pytest.mark.parametrize("op, init, value, combine", [
    ("inc.u32", 5, 9, lambda a, v: 0 if a >= v else a + 1),
    ("dec.u32", 3, 9, lambda a, v: v if a == 0 or a > v else a - 1),
    ("add.u32", 0, 3, lambda a, v: a + v),
    ("max.u32", 0, 0, lambda a, v: max(a, v)),
])
def test_ptx_atom_integer_ops(op, init, value, combine):
    body = f"""  %v = arith.constant {value} : i32
  %old = ptx.atom "global.{op}" [%p], %v : (i64, i32) -> i32"""
    (acc, old), _ = run_simt(ptx_kernel(body), np.array([init, 0, 0, 0], np.int32))
    final, olds = lane_order(np.full(32, value), init, combine)
    assert acc[0] == final
    np.testing.assert_array_equal(old, olds)


def test_ptx_atom_max_u32_compares_unsigned():
    body = """  %v = arith.muli %t32, %t32 : i32
  %big = arith.constant -2 : i32
  %lane5 = arith.constant 5 : i32
  %is5 = arith.cmpi eq, %t32, %lane5 : i32
  %w = arith.select %is5, %big, %v : i32
  %old = ptx.atom "global.max.u32" [%p], %w : (i64, i32) -> i32"""
    (acc, old), _ = run_simt(ptx_kernel(body), np.zeros(4, np.int32))
    assert acc[0] == -2  # 0xFFFFFFFE is the largest u32
    assert (old[6:] == -2).all()


def test_ptx_atom_exch_of_an_f32_register_and_cas_b64():
    body = """  %f = arith.constant 2.5 : f32
  %old = ptx.atom "global.exch.b32" [%p], %f : (i64, f32) -> f32"""
    (acc, old), _ = run_simt(ptx_kernel(body, "f32"), np.zeros(4, np.float32))
    assert acc[0] == 2.5 and old[0] == 0 and (old[1:] == 2.5).all()
    body = """  %t64 = arith.index_cast %t : index to i64
  %c1 = arith.constant 1 : i64
  %n = arith.addi %t64, %c1 : i64
  %old = ptx.atom_cas "global.b64" [%p], %t64, %n : (i64, i64, i64) -> i64"""
    (acc, old), _ = run_simt(ptx_kernel(body, "i64"), np.zeros(4, np.int64))
    assert acc[0] == 32
    np.testing.assert_array_equal(old, np.arange(32))


def test_ptx_atom_on_shared_memory_and_red_f32():
    text = cuda_kernel("() -> (%Out: !tirx.buffer<2xf32, global>)", """
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %t = cuda.thread_idx x : index
  %s = cuda.shared_alloc : !tirx.buffer<1xf32, shared>
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %first = arith.cmpi eq, %t, %c0 : index
  scf.if %first {
    cuda.store %s, %c0, %zero : !tirx.buffer<1xf32, shared>, index, f32
  }
  cuda.sync_threads
  %a = cuda.address %s, %c0 : !tirx.buffer<1xf32, shared>, index -> i32
  %old = ptx.atom "shared::cta.add.f32" [%a], %half : (i32, f32) -> f32
  %g = cuda.address %Out, %c1 : !tirx.buffer<2xf32, global>, index -> i64
  ptx.red "global.add.f32" [%g], %half : (i64, f32) -> ()
  cuda.sync_threads
  scf.if %first {
    %total = cuda.load %s, %c0 : !tirx.buffer<1xf32, shared>, index -> f32
    cuda.store %Out, %c0, %total : !tirx.buffer<2xf32, global>, index, f32
  }""")
    (out,), _ = run_simt(text, np.array([0, 1], np.float32))
    np.testing.assert_array_equal(out, [16, 17])


def test_ptx_red_f16x2_adds_each_half():
    text = cuda_kernel("() -> (%Acc: !tirx.buffer<2xf16, global>)", """
  %c0 = arith.constant 0 : index
  %p = cuda.address %Acc, %c0 : !tirx.buffer<2xf16, global>, index -> i64
  %packed = arith.constant 1073757184 : i32
  ptx.red "global.add.noftz.f16x2" [%p], %packed : (i64, i32) -> ()""")
    # 1073757184 = 0x4000_3C00: low half 1.0, high half 2.0
    (acc,), _ = run_simt(text, np.array([0.5, 0.25], np.float16))
    np.testing.assert_array_equal(acc, np.array([32.5, 64.25], np.float16))


def test_ptx_red_vec_adds_a_vector_and_checks_its_alignment():
    body = """
  %c0 = arith.constant 0 : index
  %t = cuda.thread_idx x : index
  %i = arith.constant INDEX : index
  %p = cuda.address %Acc, %i : !tirx.buffer<8xf32, global>, index -> i64
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  ptx.red_vec "v4" [%p], {%one, %two, %one, %two} : (i64, f32, f32, f32, f32) -> ()"""
    text = cuda_kernel("() -> (%Acc: !tirx.buffer<8xf32, global>)", body.replace("INDEX", "4"))
    (acc,), _ = run_simt(text, np.zeros(8, np.float32))
    np.testing.assert_array_equal(acc, [0, 0, 0, 0, 32, 64, 32, 64])
    text = cuda_kernel("() -> (%Acc: !tirx.buffer<8xf32, global>)", body.replace("INDEX", "2"))
    with pytest.raises(InterpretError, match="misaligned 16-byte access"):
        run_simt(text, np.zeros(8, np.float32))
