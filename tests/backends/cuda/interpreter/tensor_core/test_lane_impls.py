"""The tensor-core ops on the SIMT interpreter: mma.sync, ldmatrix and stmatrix in kernels
(examples/cuda/mma_tile.mlir and gemm_mma_sync.mlir against numpy, every ldmatrix/stmatrix
variant against the PTX ISA formulas), their warp-collective checks, and the located errors of
the lane implementations."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from tirx_mlir.interpreter.runtime import InterpretError
from tirx_testing.ptx_isa_fragments import isa_ldmatrix, isa_ldmatrix_address_lane
from tirx_testing.simt import cuda_kernel, run_simt

EXAMPLES = Path(__file__).resolve().parents[5] / "examples" / "cuda"


def test_mma_tile_example_matches_numpy() -> None:
    rng = np.random.default_rng(0)
    a = rng.integers(-8, 9, 256).astype(np.float16)       # small integers: the f32 sum is exact
    bt = rng.integers(-8, 9, 128).astype(np.float16)
    (d,), _ = run_simt((EXAMPLES / "mma_tile.mlir").read_text(), a, bt)
    want = a.reshape(16, 16).astype(np.float32) @ bt.reshape(8, 16).T.astype(np.float32)
    np.testing.assert_array_equal(d.reshape(16, 8), want)


def test_gemm_mma_sync_example_matches_numpy() -> None:
    rng = np.random.default_rng(1)
    a = rng.standard_normal(256 * 256).astype(np.float16)
    bt = rng.standard_normal(256 * 256).astype(np.float16)
    (d,), run = run_simt((EXAMPLES / "gemm_mma_sync.mlir").read_text(), a, bt)
    want = a.reshape(256, 256).astype(np.float64) @ bt.reshape(256, 256).T.astype(np.float64)
    np.testing.assert_allclose(d.reshape(256, 256), want, rtol=1e-5, atol=1e-4)
    assert run.stats.ctas == 16


def _generator():
    spec = importlib.util.spec_from_file_location("gen_gemm_mma_sync",
                                                  EXAMPLES / "gen_gemm_mma_sync.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_gemm_mma_sync_example_is_what_its_generator_writes() -> None:
    assert _generator().kernel() == (EXAMPLES / "gemm_mma_sync.mlir").read_text()


@pytest.mark.parametrize("swizzle", [True, False])
def test_gemm_swizzle_removes_the_ldmatrix_bank_conflicts(swizzle: bool) -> None:
    pytest.importorskip("tirx_mlir.backends.cuda.interpreter.checks.banks",
                        reason="bank-conflict counting is not merged yet")
    rng = np.random.default_rng(2)
    a = rng.standard_normal(256 * 256).astype(np.float16)
    bt = rng.standard_normal(256 * 256).astype(np.float16)
    (d,), run = run_simt(_generator().kernel(swizzle), a, bt)
    want = a.reshape(256, 256).astype(np.float64) @ bt.reshape(256, 256).T.astype(np.float64)
    np.testing.assert_allclose(d.reshape(256, 256), want, rtol=1e-5, atol=1e-4)
    ldsm = [c for op, c in run.stats.per_op.items() if op.name == "ptx.ldmatrix"]
    assert len(ldsm) == 8 and all(c["ideal_wavefronts"] == 2048 for c in ldsm)
    # unswizzled 64-byte rows: the 8 rows of a phase share 2 groups of banks, 4-way conflicts
    assert all(c["wavefronts"] == (2048 if swizzle else 4 * 2048) for c in ldsm)
    assert (run.stats.bank_conflicts == 0) == swizzle


SMEM = "!tirx.buffer<2048xf16, shared>"


def _ldmatrix_kernel(mods: str, num: int, store: bool) -> str:
    """32 threads: copy 2048 f16 into shared memory, lane l points at row ``Rows[l]`` (16-byte
    rows), ldmatrix ``mods``, write the registers to ``Out[l * num + i]``; with ``store``, also
    stmatrix them (same variant) at rows ``Rows[l] + 64`` of a second buffer copied out to
    ``Back``."""
    regs = ", ".join(["i32"] * num)
    body = f"""
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %cnum = arith.constant {num} : index
  %s = cuda.shared_alloc align 128 : {SMEM}
  %s2 = cuda.shared_alloc align 128 : {SMEM}
  %t2 = arith.muli %t, %c64 : index
  scf.for %j = %c0 to %c64 step %c1 {{
    %i = arith.addi %t2, %j : index
    %v = cuda.load %In, %i : !tirx.buffer<2048xf16, global>, index -> f16
    cuda.store %s, %i, %v : {SMEM}, index, f16
    %ones = arith.constant 0.0 : f16
    cuda.store %s2, %i, %ones : {SMEM}, index, f16
  }}
  cuda.sync_threads
  %row32 = cuda.load %Rows, %t : !tirx.buffer<32xi32, global>, index -> i32
  %row = arith.index_cast %row32 : i32 to index
  %e = arith.muli %row, %c8 : index
  %p = cuda.address %s, %e : {SMEM}, index -> i32
  %r:{num} = ptx.ldmatrix "{mods}" [%p] : (i32) -> ({regs})
  %o = arith.muli %t, %cnum : index
""" + "".join(f"""  %o{i} = arith.addi %o, %c{i}_ : index
  cuda.store %Out, %o{i}, %r#{i} : !tirx.buffer<{32 * num}xi32, global>, index, i32
""" for i in range(num))
    consts = "".join(f"  %c{i}_ = arith.constant {i} : index\n" for i in range(num))
    back = "" if not store else f"""
  %e2 = arith.addi %e, %c512 : index
  %p2 = cuda.address %s2, %e2 : {SMEM}, index -> i32
  ptx.stmatrix "{mods}" [%p2], {{{", ".join(f"%r#{i}" for i in range(num))}}} : (i32, {regs}) -> ()
  cuda.sync_threads
  scf.for %j = %c0 to %c64 step %c1 {{
    %i = arith.addi %t2, %j : index
    %v = cuda.load %s2, %i : {SMEM}, index -> f16
    cuda.store %Back, %i, %v : !tirx.buffer<2048xf16, global>, index, f16
  }}"""
    sig = (f"(%In: !tirx.buffer<2048xf16, global>, %Rows: !tirx.buffer<32xi32, global>) -> "
           f"(%Out: !tirx.buffer<{32 * num}xi32, global>, %Back: !tirx.buffer<2048xf16, global>)")
    head = ("  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n"
            "  %c512 = arith.constant 512 : index\n  %t = cuda.thread_idx x : index\n")
    return cuda_kernel(sig, head + consts + body + back)


@pytest.mark.parametrize("num", [1, 2, 4])
@pytest.mark.parametrize("trans", [False, True])
def test_ldmatrix_and_stmatrix_in_a_kernel(num: int, trans: bool) -> None:
    mods = f"x{num}{'.trans' if trans else ''}.shared::cta"
    rng = np.random.default_rng(num + 3 * trans)
    values = rng.permutation(2048).astype(np.float16)        # distinct per position (f16 ints)
    rows = rng.choice(64, size=32, replace=False).astype(np.int32)   # rows 0..63 of 16 bytes
    (out, back), run = run_simt(_ldmatrix_kernel(mods, num, store=True), values, rows)
    halves = out.view(np.float16).reshape(32, num, 2)
    expect_back = np.zeros(2048, np.float16)
    for lane in range(32):
        for reg in range(num):
            for half in range(2):
                m, r, c = isa_ldmatrix(lane, reg, half, trans)
                row = rows[isa_ldmatrix_address_lane(m, r)]
                assert halves[lane, reg, half] == values[row * 8 + c]
                expect_back[(row + 64) * 8 + c] = values[row * 8 + c]
    np.testing.assert_array_equal(back, expect_back)


def test_mma_in_divergent_code_names_the_missing_threads() -> None:
    body = """
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %z = arith.constant 0 : i32
  %zf = arith.constant 0.0 : f32
  %t = cuda.thread_idx x : index
  %low = arith.cmpi ult, %t, %c16 : index
  scf.if %low {
    %d:4 = ptx.mma_sync "m16n8k16.f32.f16.f16.f32" {%z, %z, %z, %z}, {%z, %z}, {%zf, %zf, %zf, %zf} : (i32, i32, i32, i32, i32, i32, f32, f32, f32, f32) -> (f32, f32, f32, f32)
    cuda.store %Out, %t, %d#0 : !tirx.buffer<32xf32, global>, index, f32
  }"""
    text = cuda_kernel("() -> (%Out: !tirx.buffer<32xf32, global>)", body)
    with pytest.raises(InterpretError, match=r"ptx.mma_sync is warp-collective .* every thread "
                                             r"of the warp must execute it.*threads 16-31"):
        run_simt(text)


def test_ldmatrix_misaligned_row_is_a_located_error() -> None:
    rows = np.zeros(32, np.int32)
    text = _ldmatrix_kernel("x1.shared::cta", 1, store=False).replace(
        "%e = arith.muli %row, %c8 : index", "%e0 = arith.muli %row, %c8 : index\n"
        "  %e = arith.addi %e0, %c1 : index")
    with pytest.raises(InterpretError, match=r"<test>:\d+:\d+.*misaligned 16-byte access"):
        run_simt(text, np.zeros(2048, np.float16), rows)
