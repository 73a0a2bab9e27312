"""``cuda-hoist-invariants``: invariant integer arithmetic leaves its loop from any depth
(``scf.if`` included), what depends on the loop or could fault stays, and the kernel computes
the same (SIMT interpreter)."""

from __future__ import annotations

import numpy as np
from xdsl.context import Context
from xdsl.dialects import scf

from tirx_mlir.backends.cuda.transforms.hoist_invariants import CudaHoistInvariantsPass
from tirx_mlir.located_parser import parse_module
from tirx_testing.simt import cuda_kernel, run_simt

G = "!tirx.buffer<1024xf32, global>"
BODY = f"""  %t = cuda.thread_idx x : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c8 = arith.constant 8 : index
  %c128 = arith.constant 128 : index
  %n = arith.constant 5 : index
  scf.for %k = %c0 to %c8 step %c1 {{
    %odd = arith.remui %k, %c3 : index
    %go = arith.cmpi ne, %odd, %c0 : index
    scf.if %go {{
      %sw = arith.xori %t, %c3 : index
      %q = arith.divui %sw, %c3 : index
      %d = arith.divui %sw, %n : index
      %kt = arith.muli %k, %c128 : index
      %i = arith.addi %kt, %sw : index
      %x = cuda.load %X, %i : {G}, index -> f32
      cuda.store %Y, %i, %x : {G}, index, f32
    }}
  }}
"""
TEXT = cuda_kernel(f"(%X: {G}) -> (%Y: {G})", BODY, "grid [1] threads [128]", "cuda -arch=sm_80")


def hoisted(text: str):
    module = parse_module(text, "k.mlir")
    CudaHoistInvariantsPass().apply(Context(), module)
    module.verify()
    return module


def inside_the_loop(module) -> set[str]:
    loop = next(op for op in module.walk() if isinstance(op, scf.ForOp))
    return {op.results[0].name_hint for op in loop.body.walk() if op.results}


def test_invariant_ops_leave_the_loop_and_the_branch():
    inside = inside_the_loop(hoisted(TEXT))
    assert "sw" not in inside and "q" not in inside  # divui by a non-zero constant moves
    assert {"odd", "go", "kt", "i", "x"} <= inside   # they read %k (or memory)


def test_a_division_by_a_value_that_could_be_zero_stays():
    text = TEXT.replace("%n = arith.constant 5 : index",
                        "%n = arith.subi %c128, %t : index")
    assert "d" in inside_the_loop(hoisted(text))


def test_the_kernel_computes_the_same():
    x = np.random.default_rng(0).random(1024, dtype=np.float32)
    (before,), _ = run_simt(TEXT, x)
    (after,), _ = run_simt(str(hoisted(TEXT)), x)
    np.testing.assert_array_equal(after, before)
    assert not np.isnan(before[128:256]).any() and np.isnan(before[:128]).all()  # k = 0 skipped


SUM = f"""  %t = cuda.thread_idx x : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  scf.for %k = %c0 to %c8 step %c1 {{
    %a = arith.muli %t, %c4 : index
    %b = arith.divui %t, %c8 : index
    %k64 = arith.muli %k, %c64 : index
    %s1 = arith.addi %k64, %a : index
    %s2 = arith.addi %s1, %b : index
    %i = arith.addi %s2, %c4 : index
    %x = cuda.load %X, %i : {G}, index -> f32
    cuda.store %Y, %i, %x : {G}, index, f32
  }}
"""
SUM_TEXT = cuda_kernel(f"(%X: {G}) -> (%Y: {G})", SUM, "grid [1] threads [32]",
                       "cuda -arch=sm_80")


def test_a_sum_of_invariant_terms_is_regrouped_and_leaves_the_loop():
    from xdsl.dialects import arith

    module = hoisted(SUM_TEXT)
    loop = next(op for op in module.walk() if isinstance(op, scf.ForOp))
    adds = [op for op in loop.body.walk() if isinstance(op, arith.AddiOp)]
    # (k*64 + (a + b)) + 4: one add of the hoisted a + b, the constant outermost
    assert len(adds) == 2
    outer = next(op for op in adds if op.rhs.owner.name == "arith.constant")
    assert outer.lhs.owner in adds
    x = np.random.default_rng(1).random(1024, dtype=np.float32)
    (before,), _ = run_simt(SUM_TEXT, x)
    (after,), _ = run_simt(str(module), x)
    np.testing.assert_array_equal(after, before)
    assert np.isfinite(before).sum() > 8 * 16


ADDRESS = f"""  %t = cuda.thread_idx x : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c64 = arith.constant 64 : index
  %a = arith.muli %t, %c4 : index
  scf.for %k = %c0 to %c8 step %c1 {{
    %k64 = arith.muli %k, %c64 : index
    %s = arith.addi %k64, %a : index
    %i = arith.addi %s, %c4 : index
    %p = cuda.address %X, %i : {G}, index -> i64
    %x = ptx.ld "global.f32" [%p] : (i64) -> f32
    cuda.store %Y, %i, %x : {G}, index, f32
  }}
"""
ADDRESS_TEXT = cuda_kernel(f"(%X: {G}) -> (%Y: {G})", ADDRESS, "grid [1] threads [16]",
                           "cuda -arch=sm_80")


def test_an_address_of_the_loop_is_its_hoisted_invariant_part_plus_bytes():
    """&X[k*64 + a + 4] -> (&X[a] before the loop) + k*64*4 + 16: no cuda.address is left in
    the loop, the constant's bytes are the outermost add (an immediate)."""
    from xdsl.dialects import arith

    from tirx_mlir.backends.cuda.dialects.cuda.address import AddressOp

    module = hoisted(ADDRESS_TEXT)
    loop = next(op for op in module.walk() if isinstance(op, scf.ForOp))
    assert not [op for op in loop.body.walk() if isinstance(op, AddressOp)]
    before = [op for op in loop.parent_block().ops if isinstance(op, AddressOp)]
    assert len(before) == 1 and before[0].index.name_hint != "i"
    ld = next(op for op in loop.body.walk() if op.name == "ptx.ld")
    outer = ld.operands[0].owner
    assert isinstance(outer, arith.AddiOp) and outer.rhs.owner.value.value.data == 16
    assert isinstance(outer.lhs.owner, arith.AddiOp) and outer.lhs.owner.lhs is before[0].result
    x = np.random.default_rng(2).random(1024, dtype=np.float32)
    (ref,), _ = run_simt(ADDRESS_TEXT, x)
    (got,), _ = run_simt(str(module), x)
    np.testing.assert_array_equal(got, ref)
    assert np.isfinite(ref).sum() == 8 * 16


TWO_TERMS = ADDRESS.replace("%a = arith.muli %t, %c4 : index",
                            "%a = arith.muli %t, %c4 : index\n  %b = arith.muli %t, %c8 : index") \
    .replace("%s = arith.addi %k64, %a : index",
             "%sb = arith.addi %k64, %b : index\n    %s = arith.addi %sb, %a : index") \
    .replace("cuda.store %Y, %i, %x", "cuda.store %Y, %sb, %x : {G}, index, f32\n"
             "    cuda.store %Y, %i, %x".format(G=G))
"""%sb used twice: cuda-hoist-invariants' regrouping leaves it, the split sums %b and %a."""


def test_a_split_address_is_the_same_whatever_the_objects_addresses(monkeypatch):
    """The invariant terms of a split address are summed in the order the IR defines them
    (%a then %b), not in the order of the Python objects' ids: the same IR in, the same text
    out (an id-ordered sum printed differently from run to run)."""
    import builtins

    from tirx_mlir.backends.cuda.transforms import hoist_invariants

    text = cuda_kernel(f"(%X: {G}) -> (%Y: {G})", TWO_TERMS, "grid [1] threads [16]",
                       "cuda -arch=sm_80")
    plain = str(hoisted(text))
    monkeypatch.setattr(hoist_invariants, "id", lambda v: -builtins.id(v), raising=False)
    assert str(hoisted(text)) == plain  # ids in the other order: the same output
    module = hoisted(text)
    base = next(op for op in module.walk() if op.name == "cuda.address")
    assert [v.name_hint for v in base.index.owner.operands] == ["a", "b"]
