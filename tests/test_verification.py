"""`tirx_mlir.verification.ModuleVerifier`: the memo of op checks never hides a new error.

Ops change in place during rewriting (attributes set, operands replaced, properties swapped), so
each test verifies a module (filling the memo), makes one such change that breaks a rule, and
expects the same verifier to report exactly what xDSL's plain ``module.verify()`` reports.
"""

from __future__ import annotations

import pytest
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import IndexType, IntegerAttr, IntegerType, StringAttr, UnitAttr, i64
from xdsl.utils.exceptions import VerifyException

from tirx_mlir.backends.trn.dialects.nki.tensor_engine import MatmulOp
from tirx_mlir.dialects.tirx.buffer_ops import AllocOp, SliceOp
from tirx_mlir.dialects.tirx.kernel import KernelOp, int_array
from tirx_mlir.dialects.tirx.tile_base import DISPATCHED_ATTR
from tirx_mlir.dialects.tirx.tile_ops import CopyOp
from tirx_mlir.located_parser import parse_module
from tirx_mlir.verification import ModuleVerifier, UnreportedChange, reads_of
from tirx_testing.reports import ReportingPass

T = 'target "aws/trn1/trn1.2xlarge"'
SB = "!tirx.buffer<128x128xf32, trn.sbuf>"
PS = "!tirx.buffer<128x128xf32, trn.psum>"
G = "!tirx.buffer<128x128xf32, global>"
MATMUL = f"""
tirx.kernel @mm(%AT: {G}, %B: {G}) -> (%C: {G}) grid [1] threads [1] {T} {{
  %at = tirx.alloc {{trn.addr = 0 : i64}} : {SB}
  %b = tirx.alloc {{trn.addr = 512 : i64}} : {SB}
  %c = tirx.alloc {{trn.addr = 0 : i64}} : {SB}
  nki.load %at, %AT : {SB}, {G}
  nki.load %b, %B : {SB}, {G}
  %p = tirx.alloc {{trn.addr = 0 : i64}} : {PS}
  nki.matmul %p, %at, %b : {PS}, {SB}, {SB}
  nki.tensor_copy %c, %p : {SB}, {PS}
  nki.store %C, %c : {G}, {SB}
  tirx.return
}}
"""
SLICED = f"""
tirx.kernel @s(%A: !tirx.buffer<128x512xf32, global>) -> (%B: !tirx.buffer<128x512xf32, global>) grid [1] threads [1] {T} {{
  %a = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  %v = tirx.slice %a[0, 0] [128, 256] : !tirx.buffer<128x512xf32, trn.sbuf> -> !tirx.buffer<128x256xf32, trn.sbuf>
  tirx.return
}}
"""


def plain_error(module) -> str:
    with pytest.raises(VerifyException) as err:
        module.verify()
    return str(err.value)


def memo_error(verifier: ModuleVerifier, module) -> str:
    with pytest.raises(VerifyException) as err:
        verifier.verify(module)
    return str(err.value)


def known_good(text: str):
    """The module of ``text`` and a verifier that has checked it (its memo filled)."""
    module = parse_module(text)
    verifier = ModuleVerifier()
    verifier.verify(module)
    return module, verifier


def assert_caught(verifier: ModuleVerifier, module, fragment: str = "") -> None:
    """The memoising verifier reports the change's error, worded as the plain verifier does."""
    got = memo_error(verifier, module)
    assert fragment in got
    assert got == plain_error(module)


def count_calls(monkeypatch, cls, method: str) -> list:
    """The ops whose ``cls.method`` runs from now on (in this test), in call order."""
    calls: list = []
    original = getattr(cls, method)
    monkeypatch.setattr(cls, method, lambda self, *args: (calls.append(self),
                                                          original(self, *args))[1])
    return calls


def ops_of(module, kind):
    return [op for op in module.walk() if isinstance(op, kind)]


def test_moving_an_allocation_is_seen_by_a_cached_matmul():
    module, verifier = known_good(MATMUL)
    psum = [a for a in ops_of(module, AllocOp) if a.result.type.scope_name == "trn.psum"][0]
    psum.attributes["trn.addr"] = IntegerAttr(1792, i64)  # 512 bytes from 1792: crosses a bank
    assert_caught(verifier, module, "bank")
    psum.attributes["trn.addr"] = IntegerAttr(0, i64)
    verifier.verify(module)  # the good state is still known good


def test_replacing_an_operand_is_seen_by_a_cached_load():
    module, verifier = known_good(MATMUL)
    psum = [a for a in ops_of(module, AllocOp) if a.result.type.scope_name == "trn.psum"][0]
    load = next(op for op in module.walk() if op.name == "nki.load")
    load.operands = [psum.result, load.operands[1]]  # DMA cannot write PSUM
    assert_caught(verifier, module, "PSUM")


def test_swapping_a_property_is_seen_by_a_cached_slice():
    module, verifier = known_good(SLICED)
    view = ops_of(module, SliceOp)[0]
    view.properties["static_offsets"] = int_array([0, 384])  # 384 + 256 > 512
    assert_caught(verifier, module)


def test_a_structural_error_is_found_in_an_op_known_good():
    module, verifier = known_good(SLICED)
    ret = next(op for op in module.walk() if op.name == "tirx.return")
    ret.detach()  # the slice now ends the kernel body, which needs a terminator
    assert_caught(verifier, module)


def test_unchanged_ops_are_checked_once(monkeypatch):
    calls = count_calls(monkeypatch, MatmulOp, "verify_nki")
    module = parse_module(MATMUL)
    calls.clear()
    verifier = ModuleVerifier()
    verifier.verify(module)
    verifier.verify(module)
    assert len(calls) == 1
    module.verify()
    assert len(calls) == 2  # the plain verifier checks it every time


def test_what_each_kind_of_op_states_it_reads():
    module = parse_module(MATMUL)
    matmul = ops_of(module, MatmulOp)[0]
    assert reads_of(matmul) == "views"
    assert reads_of(ops_of(module, AllocOp)[0]) == "local"
    assert reads_of(arith.ConstantOp(IntegerAttr(1, i64))) == "local"
    yield_op = scf.YieldOp()  # HasParent and IsTerminator check where the op is
    assert reads_of(yield_op) == "local"  # its traits read its parent's class and place
    copy = parse_module(f"""
tirx.kernel @c(%A: {G}) -> (%B: {G}) grid [1] threads [1] {T} {{
  tirx.copy %B, %A : {G}, {G}
  tirx.return
}}""")
    assert reads_of(ops_of(copy, CopyOp)[0]) == "kernel"  # tile ops: and the kernel's launch


GUARDED = f"""
tirx.kernel @g(%A: !tirx.buffer<1000x512xf32, global>) -> (%B: !tirx.buffer<1000x512xf32, global>) grid [1] threads [1] {T} {{
  %n = arith.constant 100 : index
  %m = arith.constant 300 : index
  %v = tirx.slice %A[0, 0] [%n, 512] : !tirx.buffer<1000x512xf32, global> -> !tirx.buffer<128x512xf32, global>
  tirx.return
}}
"""


def test_a_guard_given_another_constant_is_checked_again():
    """A slice's constant guard is read from its defining constant: a slice with the same types
    and properties whose guard is another constant is a different check."""
    module, verifier = known_good(GUARDED)
    too_big = [c for c in ops_of(module, arith.ConstantOp) if c.value.value.data == 300][0]
    ops_of(module, SliceOp)[0].operands[1] = too_big.result  # 300 rows, at most 128
    assert_caught(verifier, module, "guarded size is 300")


# --- region ops: their key holds their regions' contents ---------------------------------------

LOOP = f"""
tirx.kernel @l(%A: {G}) -> (%B: {G}) grid [1] threads [1] {T} {{
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  %x = arith.constant 1.0 : f32
  %y = arith.constant 2 : i32
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %x) -> (f32) {{
    scf.yield %acc : f32
  }}
  tirx.return
}}
"""


def test_a_loop_known_good_sees_its_yield_change_type():
    module, verifier = known_good(LOOP)
    yield_op = ops_of(module, scf.YieldOp)[0]
    other = [c for c in ops_of(module, arith.ConstantOp) if c.result.type == IntegerType(32)][0]
    yield_op.operands = [other.result]  # the loop carries f32; the yield gives i32
    assert_caught(verifier, module, "yield")


def test_a_kernel_known_good_sees_a_use_from_outside_it():
    module, verifier = known_good(LOOP)
    outside = arith.ConstantOp(IntegerAttr(4, IndexType()))
    module.body.block.insert_op_before(outside, module.body.block.first_op)
    loop = ops_of(module, scf.ForOp)[0]
    loop.operands = [loop.operands[0], outside.result, *loop.operands[2:]]  # bound from above
    assert_caught(verifier, module, "IsolatedFromAbove")


def test_a_module_known_good_sees_a_symbol_renamed_to_another():
    module, verifier = known_good(LOOP + LOOP.replace("@l(", "@m("))
    second = ops_of(module, KernelOp)[1]
    second.properties["sym_name"] = StringAttr("l")
    assert_caught(verifier, module, "Redefinition")


def test_a_terminator_moved_into_a_loop_is_seen():
    module, verifier = known_good(LOOP)
    ret = next(op for op in module.walk() if op.name == "tirx.return")
    ret.detach()
    body = ops_of(module, scf.ForOp)[0].body.block
    body.insert_op_before(ret, body.first_op)  # not its block's end, nor in a kernel's body
    with pytest.raises(VerifyException):
        verifier.verify(module)
    with pytest.raises(VerifyException):
        module.verify()


def test_unchanged_region_ops_are_checked_once(monkeypatch):
    calls = count_calls(monkeypatch, KernelOp, "verify_")
    module = parse_module(LOOP)
    calls.clear()
    verifier = ModuleVerifier()
    verifier.verify(module)
    verifier.verify(module)
    assert len(calls) == 1
    ops_of(module, arith.ConstantOp)[0].properties["value"] = IntegerAttr(1, IndexType())
    verifier.verify(module)  # a change inside the kernel: not what its own check reads
    assert len(calls) == 1
    ops_of(module, KernelOp)[0].properties["grid"] = int_array([2])
    verifier.verify(module)  # its own property: checked again
    assert len(calls) == 2


def test_a_loop_is_checked_again_when_its_yield_changes(monkeypatch):
    """A region op of `REGION_CHECK_READS` is checked once per distinct value of what its check
    reads: its types and properties, its blocks' argument types and each block's last op (class
    and operand types). A change elsewhere in its body does not check it again; a ``yield``
    given an operand of another type does, and is caught."""
    module, verifier = known_good(LOOP)
    calls = count_calls(monkeypatch, scf.ForOp, "verify_")
    loop = ops_of(module, scf.ForOp)[0]
    body = loop.body.block
    body.insert_op_before(arith.ConstantOp(IntegerAttr(5, IndexType())), body.first_op)
    verifier.verify(module)  # a new op in its body: its region key, not what its check reads
    assert calls == []
    y = next(op for op in ops_of(module, arith.ConstantOp) if op.result.type == IntegerType(32))
    loop.body.block.last_op.operands = [y.result]  # yields an i32 for the f32 it carries
    assert_caught(verifier, module, "must match loop-carried variable types")
    assert calls


PART = "!tirx.buffer<64x128xf32, trn.sbuf>"
OFFSET_VIEW = f"""
tirx.kernel @o(%A: {G}) -> (%B: {G}) grid [1] threads [1] {T} {{
  %a = tirx.alloc {{trn.addr = 0 : i64}} : {SB}
  %b = tirx.alloc {{trn.addr = 512 : i64}} : {SB}
  %p = arith.constant 0 : index
  %q = arith.constant 0 : index
  %s = arith.addi %p, %q : index
  %v = tirx.slice %a[%s, 0] [64, 128] : {SB} -> {PART}
  %w = tirx.slice %b[0, 0] [64, 128] : {SB} -> {PART}
  nki.tensor_copy %w, %v : {PART}, {PART}
  tirx.return
}}
"""


def test_an_offset_folded_through_arithmetic_is_read_again():
    """A view's offset is folded through index arithmetic (`access.index_expr`): a new
    constant under the addition moves the view, and the op that reads it is checked again."""
    module, verifier = known_good(OFFSET_VIEW)
    q = [c for c in ops_of(module, arith.ConstantOp)][1]
    q.properties["value"] = IntegerAttr(16, IndexType())  # partition 16: not a legal start
    assert_caught(verifier, module, "starts at partition 16")


def test_an_offset_operand_replaced_is_read_again():
    module, verifier = known_good(OFFSET_VIEW)
    add = next(op for op in module.walk() if op.name == "arith.addi")
    sixteen = arith.ConstantOp(IntegerAttr(16, IndexType()))
    add.parent.insert_op_before(sixteen, add)
    add.operands = [add.operands[0], sixteen.result]
    assert_caught(verifier, module, "starts at partition 16")


EQUAL_VIEWS = f"""
tirx.kernel @e(%A: {G}) -> (%B: {G}) grid [1] threads [1] {T} {{
  %a = tirx.alloc {{trn.addr = 0 : i64}} : {SB}
  %b = tirx.alloc {{trn.addr = 512 : i64}} : {SB}
  %p = arith.constant 0 : index
  %q = arith.constant 0 : index
  %v = tirx.slice %a[%p, 0] [64, 128] : {SB} -> {PART}
  %w = tirx.slice %b[0, 0] [64, 128] : {SB} -> {PART}
  %v2 = tirx.slice %a[%p, 0] [64, 128] : {SB} -> {PART}
  %w2 = tirx.slice %b[0, 0] [64, 128] : {SB} -> {PART}
  nki.tensor_copy %w, %v : {PART}, {PART}
  nki.tensor_copy %w2, %v2 : {PART}, {PART}
  tirx.return
}}
"""


def resolved_views(monkeypatch) -> list:
    """The values `access._resolve_access` resolves from now on (in this test)."""
    from tirx_mlir.dialects.tirx import access

    values: list = []
    original = access._resolve_access  # noqa: SLF001
    monkeypatch.setattr(access, "_resolve_access",
                        lambda value: (values.append(value), original(value))[1])
    return values


def test_equal_views_built_apart_are_resolved_once(monkeypatch):
    """Views of one source with equal properties and the same offset values (what dispatch
    builds for each instruction) share one record: the second pair is not resolved, by the keys
    or by the checks (its view is given to them), and its copy shares the first one's check."""
    module = parse_module(EQUAL_VIEWS)
    values = resolved_views(monkeypatch)
    copy_class = type(op_named(module, "nki.tensor_copy"))
    copies = count_calls(monkeypatch, copy_class, "verify_")
    ModuleVerifier().verify(module)
    names = sorted(v.name_hint for v in values)
    assert names == ["a", "b", "v", "w"]  # not v2, w2
    assert len(copies) == 1


def test_a_view_at_another_offset_value_is_not_taken_for_an_equal_one():
    """The record of a view names its SSA offsets by identity: a slice equal to a known one
    but for its offset value (16, not a legal partition start) is resolved and caught."""
    module, verifier = known_good(EQUAL_VIEWS)
    v2 = next(op for op in module.walk() if op.name == "tirx.slice" and
              op.results[0].name_hint == "v2")
    sixteen = arith.ConstantOp(IntegerAttr(16, IndexType()))
    v2.parent.insert_op_before(sixteen, v2)
    v2.operands = [v2.operands[0], sixteen.result]
    assert_caught(verifier, module, "starts at partition 16")


# --- tile primitives: their key holds the kernel's launch and the module's attributes ----------

WARP = f"""
tirx.kernel @w(%A: {G}) -> (%B: {G}) grid [1] threads [32] {{
  tirx.copy warp %B, %A : {G}, {G}
  tirx.copy warp %B, %A : {G}, {G}
  tirx.return
}}
"""


def test_a_tile_op_known_good_sees_its_kernel_launch_change():
    module, verifier = known_good(WARP)
    kernel = ops_of(module, KernelOp)[0]
    kernel.properties["threads"] = int_array([16])  # a warp-scope copy needs 32 threads
    assert_caught(verifier, module, "multiple of 32 threads")


def test_a_tile_op_known_good_sees_the_module_marked_dispatched():
    module, verifier = known_good(WARP)
    module.attributes[DISPATCHED_ATTR] = UnitAttr()
    assert_caught(verifier, module, "left after tile dispatch")


def test_equal_tile_ops_are_checked_once(monkeypatch):
    calls = count_calls(monkeypatch, CopyOp, "verify_tile")
    module = parse_module(WARP)
    calls.clear()
    ModuleVerifier().verify(module)
    assert len(calls) == 1  # the second copy reads what the first does


WORKSPACE = f"""
tirx.kernel @ws(%A: {G}, %W: {G}) -> (%B: {G}) grid [1] threads [32] {{
  tirx.copy warp %B, %A workspace [%W] : {G}, {G}, {G}
  tirx.return
}}
"""


def test_a_tile_op_known_good_sees_its_workspace_become_an_operand():
    # the key holds operand types, equal here: which operands are one value must be in it too
    module, verifier = known_good(WORKSPACE)
    copy = ops_of(module, CopyOp)[0]
    copy.operands = [copy.operands[0], copy.operands[1], copy.operands[1]]
    assert_caught(verifier, module, "is also its operand 'src'")


def test_the_ir_a_pass_replaced_is_not_kept_alive():
    # the region keys hold their ops: only those of the last verification are kept
    import gc
    import weakref

    module, verifier = known_good(MATMUL)
    old = module.body.block.first_op
    gone = weakref.ref(old)
    old.detach()
    module.body.block.add_op(parse_module(MATMUL).body.block.first_op.clone())
    verifier.verify(module)
    old.erase()
    del old
    gc.collect()
    assert gone() is None


def test_an_op_that_reads_no_address_is_not_checked_again_when_one_moves(monkeypatch):
    # VERIFY_ALLOC_ATTRS: the matmul's PSUM bank check reads trn.addr, the copy's checks do not
    from tirx_mlir.backends.trn.dialects.nki.movement import TensorCopyOp

    # and, of the matmul's checks, only those reading its views run (VERIFY_VIEW_RULES: its
    # types, properties and target are those of an op found valid)
    module, verifier = known_good(MATMUL)
    matmuls = count_calls(monkeypatch, MatmulOp, "verify_nki")
    banks = count_calls(monkeypatch, MatmulOp, "verify_nki_views")
    copies = count_calls(monkeypatch, TensorCopyOp, "verify_nki")
    psum = [a for a in ops_of(module, AllocOp) if a.result.type.scope_name == "trn.psum"][0]
    psum.attributes["trn.addr"] = IntegerAttr(2048, i64)  # the next bank: still valid
    verifier.verify(module)
    assert len(banks) == 1 and matmuls == [] and copies == []


def test_an_operand_retyped_in_place_is_seen_by_a_cached_load():
    # a pass that changes a value's type without the rewriter (no op of its own changed)
    module, verifier = known_good(MATMUL)
    load = next(op for op in module.walk() if op.name == "nki.load")
    psum = [a for a in ops_of(module, AllocOp) if a.result.type.scope_name == "trn.psum"][0]
    load.operands[0]._type = psum.result.type  # noqa: SLF001 - the DMA now writes PSUM
    assert_caught(verifier, module, "PSUM")


def test_an_equal_type_held_by_another_object_is_not_checked_again(monkeypatch):
    # keys hold attributes by value (a serial per distinct value), found by the object's id
    from tirx_mlir.dialects.tirx.attributes import BufferType

    module, verifier = known_good(MATMUL)
    loads = count_calls(monkeypatch, type(next(op for op in module.walk()
                                               if op.name == "nki.load")), "verify_nki")
    at = ops_of(module, AllocOp)[0].result
    twin = BufferType.new(list(at.type.parameters))
    assert twin == at.type and twin is not at.type
    at._type = twin  # noqa: SLF001
    verifier.verify(module)
    assert loads == []


def test_a_use_from_outside_deep_in_a_loop_is_seen():
    # the kernel's isolation is decided from the values its children and loops leave free
    module, verifier = known_good(LOOP)
    outside = arith.ConstantOp(IntegerAttr(4, IndexType()))
    module.body.block.insert_op_before(outside, module.body.block.first_op)
    body = ops_of(module, scf.ForOp)[0].body.block
    body.insert_op_before(arith.AddiOp(outside.result, outside.result), body.first_op)
    assert_caught(verifier, module, "IsolatedFromAbove")


def test_a_kernel_whose_children_use_nothing_from_outside_is_not_walked_again(monkeypatch):
    import tirx_mlir.verification as verification

    module, verifier = known_good(LOOP)
    walks = []
    monkeypatch.setattr(verification, "isolated_from_above", walks.append)
    body = ops_of(module, scf.ForOp)[0].body.block
    c0 = ops_of(module, arith.ConstantOp)[0].result
    body.insert_op_before(arith.AddiOp(c0, c0), body.first_op)  # defined inside the kernel
    verifier.verify(module)
    assert walks == []
    outside = arith.ConstantOp(IntegerAttr(4, IndexType()))
    module.body.block.insert_op_before(outside, module.body.block.first_op)
    body.insert_op_before(arith.AddiOp(outside.result, c0), body.first_op)
    verifier.verify(module)  # the kernel leaves a value free: its walk decides (here: a no-op)
    assert [op.name for op in walks] == ["tirx.kernel"]


def test_a_tile_read_by_several_ops_is_checked_once_per_verification(monkeypatch):
    # nki checks.check_tile keeps a tile that passed for the rest of one verification
    from tirx_mlir.backends.trn.dialects.nki import checks

    module = parse_module(MATMUL)
    tiles: list = []
    original = checks._check_tile  # noqa: SLF001
    monkeypatch.setattr(checks, "_check_tile",
                        lambda name, value, limits: (tiles.append(value),
                                                     original(name, value, limits)))
    ModuleVerifier().verify(module)
    # %AT %at %p %b %c %C, of 11 uses: the second load (%b, %B) shares the first's verdict (its
    # key: the same types and view facts, `checks.tile_view_facts`); %b is checked for the matmul
    assert len(tiles) == len(set(tiles)) == 6
    assert {v.name_hint for v in tiles} == {"AT", "at", "p", "b", "c", "C"}
    module.verify()  # the plain verifier (no shared views) checks each use
    assert len(tiles) == 6 + 11


CUDA_ACCESS = """
tirx.kernel @l(%A: !tirx.buffer<64xf32, global>) grid [1] threads [32] target "cuda -arch=sm_80" {
  %c0 = arith.constant 0 : index
  %c62 = arith.constant 62 : index
  %x = cuda.load %A, %c0 : !tirx.buffer<64xf32, global>, index -> vector<2xf32>
  cuda.store %A, %c0, %x : !tirx.buffer<64xf32, global>, index, vector<2xf32>
  tirx.return
}
"""


def test_cached_cuda_accesses_see_their_index_and_buffer_change(monkeypatch):
    """cuda.load / cuda.store state they read their types, hints, a constant index and the
    launch ("kernel"): checked once while unchanged; given another constant index, only the
    rules reading it run again (``VERIFY_CONSTANT_RULES``), and they catch a bad one."""
    from tirx_mlir.backends.cuda.dialects.cuda.loads import LoadOp

    module, verifier = known_good(CUDA_ACCESS)
    load = ops_of(module, LoadOp)[0]
    assert reads_of(load) == "kernel"
    calls = count_calls(monkeypatch, LoadOp, "verify_cuda")
    index_rules = count_calls(monkeypatch, LoadOp, "verify_constant_index")
    verifier.verify(module)
    assert calls == [] and index_rules == []
    c62 = [op for op in ops_of(module, arith.ConstantOp) if op.value.value.data == 62][0]
    load.operands = [load.operands[0], c62.result]        # elements [62, 64): still in bounds
    verifier.verify(module)
    assert calls == [] and index_rules == [load]
    c62.value = IntegerAttr(63, IndexType())              # now odd: a misaligned vector
    c62.properties["value"] = c62.value
    assert_caught(verifier, module, "not a multiple of the 2 lanes")


def test_a_cached_access_given_a_constant_index_out_of_bounds_is_caught():
    from tirx_mlir.backends.cuda.dialects.cuda.loads import StoreOp

    module, verifier = known_good(CUDA_ACCESS)
    store = ops_of(module, StoreOp)[0]
    c64 = arith.ConstantOp(IntegerAttr(64, IndexType()))
    store.parent.insert_op_before(c64, store)
    store.operands = [store.operands[0], c64.result, store.operands[2]]  # [64, 66) of 64
    assert_caught(verifier, module, "outside the buffer's 64 elements")


def test_accesses_of_one_type_at_other_constant_indices_share_one_check(monkeypatch):
    from tirx_mlir.backends.cuda.dialects.cuda.loads import LoadOp

    text = CUDA_ACCESS.replace("  tirx.return", "\n".join(
        f"  %c{i} = arith.constant {i} : index\n"
        f"  %y{i} = cuda.load %A, %c{i} : !tirx.buffer<64xf32, global>, index -> vector<2xf32>"
        for i in (2, 4, 6)) + "\n  tirx.return")
    module = parse_module(text)
    calls = count_calls(monkeypatch, LoadOp, "verify_cuda")
    index_rules = count_calls(monkeypatch, LoadOp, "verify_constant_index")
    ModuleVerifier().verify(module)
    assert len(calls) == 1 and len(index_rules) == 3


# --- cuda, ptx and math ops: keyed as "kernel" / "local", recognised by their fingerprint -------

CUDA_OPS = """
tirx.kernel @w(%A: !tirx.buffer<64xf32, global>) grid [1] threads [64] target "cuda -arch=sm_80" {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %m = arith.constant -1 : i32
  %l = arith.constant 16 : i32
  %t = cuda.thread_idx x : index
  %x = cuda.load %A, %c0 : !tirx.buffer<64xf32, global>, index -> f32
  %e = math.exp %x : f32
  %y = cuda.shfl_sync xor %m, %e, %l width 32 : i32, f32, i32 -> f32
  %a = cuda.address %A, %c0 : !tirx.buffer<64xf32, global>, index -> i64
  ptx.st "global.f32" [%a], %y : (i64, f32) -> ()
  cuda.sync_threads
  tirx.return
}
"""


def cuda_known_good():
    module, verifier = known_good(CUDA_OPS)
    verifier.verify(module)  # a second time: every op now found by its fingerprint
    return module, verifier


def op_named(module, name: str):
    return next(op for op in module.walk() if op.name == name)


def test_cuda_ptx_and_math_ops_state_what_they_read():
    module = parse_module(CUDA_OPS)
    for name in ("cuda.thread_idx", "cuda.load", "cuda.shfl_sync", "cuda.address", "ptx.st",
                 "cuda.sync_threads"):
        assert reads_of(op_named(module, name)) == "kernel", name
    assert reads_of(op_named(module, "math.exp")) == "local"


def test_unchanged_cuda_ops_are_not_keyed_again(monkeypatch):
    from tirx_mlir.backends.cuda.dialects.cuda.warp import ShflSyncOp

    module, verifier = cuda_known_good()
    keyed: list = []
    original = ModuleVerifier._local_key  # noqa: SLF001
    monkeypatch.setattr(ModuleVerifier, "_local_key",
                        lambda self, op, plan: (keyed.append(op.name), original(self, op, plan))[1])
    checked = count_calls(monkeypatch, ShflSyncOp, "verify_cuda")
    verifier.verify(module)
    assert sorted(keyed) == ["builtin.module", "tirx.kernel"]  # region ops key their contents
    assert checked == []
    module.verify()
    assert len(checked) == 1


def test_a_property_set_on_a_known_op_is_seen():
    module, verifier = cuda_known_good()
    op_named(module, "cuda.shfl_sync").properties["width"] = IntegerAttr(48, i64)
    assert_caught(verifier, module, "width")


def test_an_attribute_set_on_the_module_is_seen_by_known_ops():
    """The module's ``tirx.target`` attribute is the target of a kernel that names none."""
    text = CUDA_OPS.replace(' target "cuda -arch=sm_80"', "")
    module, verifier = known_good(f'module attributes {{tirx.target = "cuda -arch=sm_80"}} {{\n'
                                  f'{text}}}')
    verifier.verify(module)
    module.attributes["tirx.target"] = StringAttr("cuda -arch=sm_60")
    assert_caught(verifier, module, "sm_75")  # st.global.f32 needs sm_75


def test_an_operand_set_on_a_known_op_is_seen():
    module, verifier = cuda_known_good()
    shfl = op_named(module, "cuda.shfl_sync")
    index = op_named(module, "cuda.thread_idx").result
    shfl.operands = [shfl.operands[0], shfl.operands[1], index]  # the lane must be i32
    assert_caught(verifier, module, "lane")


def test_an_operand_retyped_in_place_under_a_known_op_is_seen():
    """The kernel's argument retyped in place (its defining op is the kernel, whose own checks
    pass): only the load that reads it sees the element type no longer matching."""
    module, verifier = cuda_known_good()
    argument = op_named(module, "cuda.load").operands[0]
    argument._type = parse_module(  # noqa: SLF001 - as a pass retyping a value does
        "%b = tirx.alloc : !tirx.buffer<64xi32, global>").body.block.first_op.result.type
    assert_caught(verifier, module, "i32")


def test_a_result_retyped_on_a_known_op_is_seen():
    module, verifier = cuda_known_good()
    op_named(module, "cuda.thread_idx").result._type = IntegerType(32)  # noqa: SLF001 - unused
    assert_caught(verifier, module, "index")


def test_a_constant_operand_given_another_value_is_seen():
    module, verifier = cuda_known_good()
    address = op_named(module, "cuda.address")
    c64 = [c for c in ops_of(module, arith.ConstantOp) if c.value.value.data == 64][0]
    address.operands = [address.operands[0], c64.result]
    assert_caught(verifier, module, "64")  # [64, 65) is outside 64 elements


def test_a_known_op_moved_out_of_its_kernel_is_seen():
    module, verifier = cuda_known_good()
    sync = op_named(module, "cuda.sync_threads")
    sync.detach()
    module.body.block.add_op(sync)  # a barrier outside any kernel, among the module's ops
    module.verify()  # no rule forbids it: checked again, and passes as the plain verifier does
    verifier.verify(module)
    ret = op_named(module, "tirx.return")
    ret.detach()
    module.body.block.add_op(ret)  # a return outside its kernel: HasParent fails
    kernel = op_named(module, "tirx.kernel")
    kernel.body.block.add_op(sync.clone())
    assert_caught(verifier, module)


def test_a_known_terminator_no_longer_last_is_seen():
    """Another return appended after it: the new one is valid, the known one no longer ends
    its block (IsTerminator reads where the op sits)."""
    module, verifier = cuda_known_good()
    ret = op_named(module, "tirx.return")
    ret.parent.insert_op_after(ret.clone(), ret)
    assert_caught(verifier, module, "must be the last operation")


def test_a_known_op_left_last_in_its_block_is_seen():
    module, verifier = cuda_known_good()
    op_named(module, "tirx.return").detach()  # cuda.sync_threads now ends the kernel body
    assert_caught(verifier, module, "terminat")


def test_the_current_target_is_read_by_known_ops():
    """A kernel that names no target (nor its module) is checked for the ``with Target``."""
    from tirx_mlir.target import Target

    module = parse_module(CUDA_OPS.replace(' target "cuda -arch=sm_80"', ""))
    verifier = ModuleVerifier()
    with Target("cuda -arch=sm_80"):
        verifier.verify(module)
        verifier.verify(module)
    with Target("cuda -arch=sm_60"), pytest.raises(VerifyException, match="sm_75"):
        verifier.verify(module)  # st.global.f32 needs sm_75


def test_a_kernel_launch_changed_under_known_ops_is_seen():
    module, verifier = known_good(CUDA_OPS.replace("cuda.sync_threads",
                                                   "%w = cuda.warp_id : index"))
    verifier.verify(module)
    op_named(module, "tirx.kernel").properties["threads"] = int_array([48])
    assert_caught(verifier, module, "multiple of 32")


def test_a_target_changed_under_known_ops_is_seen():
    module, verifier = cuda_known_good()
    kernel = op_named(module, "tirx.kernel")
    target = kernel.properties["target"]
    kernel.properties["target"] = target.__class__('aws/trn1/trn1.2xlarge')
    assert_caught(verifier, module, "cuda target")


# ---- verification from a pass's change report (`ModuleVerifier.run_pass`) ---------------------

LOOPS = f"""
tirx.kernel @k() -> () grid [1] threads [1] {T} {{
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c4 step %c1 {{
    %x = arith.addi %i, %c1 : index
  }}
  scf.for %j = %c0 to %c4 step %c1 {{
    %y = arith.muli %j, %c1 : index
  }}
  tirx.return
}}
"""


def after_pass(text: str, edit, audit: bool = False):
    module, verifier = known_good(text)
    verifier.audit = audit
    verifier.run_pass(ReportingPass(edit), None, module)
    return module, verifier


def visited(monkeypatch) -> list:
    """The names of the ops whose fingerprint the verifier builds from now on, or whose key
    it builds without one (an op of a ``VERIFY_FINGERPRINT_LATER`` class met new or compared
    after that: `verification._unbuilt`)."""
    names: list = []
    fingerprint, local_key = ModuleVerifier._fingerprint, ModuleVerifier._local_key
    monkeypatch.setattr(ModuleVerifier, "_fingerprint", lambda self, op, plan: (
        names.append(op.name), fingerprint(self, op, plan))[1])
    monkeypatch.setattr(ModuleVerifier, "_local_key", lambda self, op, plan: (
        names.append(op.name) if plan.unbuilt else None, local_key(self, op, plan))[1])
    return names


def test_a_reported_change_is_verified_through_the_users_it_reaches():
    def edit(module, log):
        psum = [a for a in ops_of(module, AllocOp) if a.result.type.scope_name == "trn.psum"][0]
        psum.attributes["trn.addr"] = IntegerAttr(1792, i64)  # the matmul's bank check reads it
        log.changed(psum)

    module, verifier = after_pass(MATMUL, edit)
    with pytest.raises(VerifyException) as err:
        verifier.check(module)
    assert "bank" in str(err.value) and str(err.value) == plain_error(module)


def test_a_report_limits_the_visit_to_the_blocks_it_reaches(monkeypatch):
    def edit(module, log):
        add = next(op for op in module.walk() if op.name == "arith.addi")
        add.operands = [add.operands[1], add.operands[0]]
        log.changed(add)

    module, verifier = after_pass(LOOPS, edit)
    names = visited(monkeypatch)
    verifier.check(module)
    assert "arith.addi" in names and "arith.muli" not in names  # the other loop is skipped
    names.clear()
    verifier.run_pass(ReportingPass(lambda module, log: None), None, module)
    verifier.check(module)
    assert names == []  # a pass that reports nothing leaves nothing to visit
    names.clear()
    verifier.verify(module)  # no pass reported since: in full
    assert "arith.muli" in names


def test_a_reported_move_breaking_dominance_is_caught():
    from tirx_mlir.dominance import DominanceError

    def edit(module, log):
        ops = [op for op in module.walk() if op.name == "arith.constant"]
        ret = next(op for op in module.walk() if op.name == "tirx.return")
        ops[2].detach()  # %c1, used in both loops, now defined after them
        ret.parent.insert_op_before(ops[2], ret)
        log.changed(ops[2])

    module, verifier = after_pass(LOOPS, edit)
    with pytest.raises(DominanceError):
        verifier.check(module)


def test_a_new_op_using_a_value_defined_after_it_is_caught():
    """A new op need not be named when its block is: it is checked for dominance by the walk
    of that block after the report (not by the full dominance walk)."""
    from xdsl.dialects.builtin import IndexType as Index
    from tirx_mlir.dominance import DominanceError

    def edit(module, log):
        c0, _, c1 = [op for op in module.walk() if op.name == "arith.constant"][:3]
        early = arith.AddiOp(c1.result, c1.result, Index())
        c0.parent.insert_op_before(early, c0)  # uses %c1 before it is defined
        log.changed(c0)  # names the block, not the new op

    module, verifier = after_pass(LOOPS, edit)
    with pytest.raises(DominanceError, match="used before it is defined"):
        verifier.check(module)


def test_after_a_report_dominance_is_checked_for_the_ops_it_reaches(monkeypatch):
    """After a valid reported change the full dominance walk is not run: the operands of the
    changed op (and of its users, and of the region ops on its path) are checked during the
    verification's walk, no others (not the constants, the first loop's body, the return)."""
    import tirx_mlir.dominance as dominance

    def edit(module, log):
        mul = next(op for op in module.walk() if op.name == "arith.muli")
        mul.attributes["test.mark"] = UnitAttr()
        log.changed(mul)

    module, verifier = after_pass(LOOPS, edit)
    full: list = []
    monkeypatch.setattr(dominance, "check_dominance", lambda *args: full.append(args))
    checked: list = []
    original = ModuleVerifier._dominated  # noqa: SLF001
    monkeypatch.setattr(ModuleVerifier, "_dominated",
                        lambda self, op: (checked.append(op.name), original(self, op))[1])
    verifier.check(module)
    assert full == []
    assert sorted(checked) == ["arith.muli", "scf.for", "scf.for", "tirx.kernel"]


def test_an_unreported_move_breaking_dominance_is_caught_by_the_audit():
    """A move the report does not name is not seen by the dominance check of what the report
    reaches; the audit's full dominance check finds it."""
    text = LOOPS.replace("  %c1 = arith.constant 1 : index\n",
                         "  %c1 = arith.constant 1 : index\n  %c7 = arith.constant 7 : index\n")
    text = text.replace("%x = arith.addi %i, %c1", "%x = arith.addi %i, %c7")

    def edit(module, log):
        c7 = [op for op in module.walk() if op.name == "arith.constant"][3]
        ret = next(op for op in module.walk() if op.name == "tirx.return")
        c7.detach()  # used in the first loop only, now defined after it: not reported
        ret.parent.insert_op_before(c7, ret)
        log.changed(ret)

    module, verifier = after_pass(text, edit)
    verifier.audit = False
    verifier.check(module)  # the report does not reach the loop: not seen without the audit
    module, verifier = after_pass(text, edit, audit=True)
    with pytest.raises(UnreportedChange, match="dominance"):
        verifier.check(module)


def test_an_op_moved_into_a_reported_block_is_verified_again(monkeypatch):
    """xDSL's ``inline_block`` moves ops without telling a listener: an op arriving in a block
    the report reaches is visited there, not taken for the op found valid in its old block."""
    text = LOOPS.replace("    %x = arith.addi %i, %c1 : index\n",
                         "    %z = arith.constant 7 : index\n    %x = arith.addi %i, %c1 : index\n")

    def edit(module, log):
        loop = next(op for op in module.walk() if op.name == "scf.for")
        moved = next(op for op in loop.walk() if op.name == "arith.constant")
        moved.detach()
        loop.parent.insert_op_before(moved, loop)
        log.changed(loop)  # its body changed; the op that left it is not named

    module, verifier = after_pass(text, edit, audit=True)
    names = visited(monkeypatch)
    verifier.check(module)  # the audit finds nothing unverified
    assert "arith.constant" in names


def test_an_unreported_change_is_caught_by_the_audit():
    def edit(module, log):
        mul = next(op for op in module.walk() if op.name == "arith.muli")
        mul.attributes["test.mark"] = UnitAttr()  # valid, but not reported

    module, verifier = after_pass(LOOPS, edit, audit=True)
    with pytest.raises(UnreportedChange, match="arith.muli"):
        verifier.check(module)
    verifier.check(module)  # the audit's full verification leaves the memo whole


def test_region_ops_on_a_reports_path_are_not_keyed_and_the_audit_still_sees_inside():
    """After a report, the loop it reaches and the kernel holding it get new serials without
    their region keys being hashed or kept; the audit's full verification does not count them
    as changed unreported, but still finds an op changed unreported in the same loop."""
    def edit(module, log):
        mul = next(op for op in module.walk() if op.name == "arith.muli")
        mul.attributes["test.mark"] = UnitAttr()
        log.changed(mul)

    module, verifier = after_pass(LOOPS, edit, audit=True)
    verifier.check(module)  # the audit passes
    loop, kernel = ops_of(module, scf.ForOp)[1], ops_of(module, KernelOp)[0]
    assert {id(loop), id(kernel)} <= verifier._entered  # noqa: SLF001
    assert ops_of(module, scf.ForOp)[0] not in [op for op in module.walk()
                                                 if id(op) in verifier._entered]  # noqa: SLF001

    def edit_two(module, log):
        mul = next(op for op in module.walk() if op.name == "arith.muli")
        mul.attributes["test.other"] = UnitAttr()
        log.changed(mul)
        add = next(op for op in module.walk() if op.name == "arith.addi")
        add.attributes["test.mark"] = UnitAttr()  # in the other loop, not reported

    verifier.run_pass(ReportingPass(edit_two), None, module)
    with pytest.raises(UnreportedChange, match="arith.addi"):
        verifier.check(module)


def test_an_unreported_error_is_caught_by_the_audit():
    def edit(module, log):
        psum = [a for a in ops_of(module, AllocOp) if a.result.type.scope_name == "trn.psum"][0]
        psum.attributes["trn.addr"] = IntegerAttr(1792, i64)

    module, verifier = after_pass(MATMUL, edit, audit=True)
    with pytest.raises(VerifyException, match="bank"):
        verifier.check(module)


def test_the_cleanup_passes_report_every_change_on_a_pipeline(monkeypatch):
    from pathlib import Path

    from tirx_mlir.pipelines import get_pipeline

    audits = count_calls(monkeypatch, ModuleVerifier, "_audit")
    root = Path(__file__).resolve().parents[1]
    module = parse_module((root / "examples/cuda/tile/softmax.mlir").read_text())
    verifier = ModuleVerifier()
    verifier.audit = True
    get_pipeline("cuda").apply(module, verifier=verifier)
    assert len(audits) >= 8  # canonicalize, cse and dce, each run several times


def test_a_reported_use_from_outside_a_kernel_is_caught():
    def edit(module, log):
        outside = arith.ConstantOp(IntegerAttr(1, IndexType()))
        kernel = ops_of(module, KernelOp)[0]
        kernel.parent.insert_op_before(outside, kernel)
        add = next(op for op in module.walk() if op.name == "arith.addi")
        add.operands = [add.operands[0], outside.result]
        log.changed(add)
        log.changed(outside)

    module, verifier = after_pass(LOOPS, edit)
    with pytest.raises(VerifyException) as err:
        verifier.check(module)
    assert str(err.value) == plain_error(module)


def test_a_reported_launch_change_reaches_every_op_in_the_kernel():
    def edit(module, log):
        kernel = op_named(module, "tirx.kernel")
        kernel.properties["threads"] = int_array([48])
        log.changed(kernel)  # its properties: every op inside reads them as its launch

    module, verifier = after_pass(CUDA_OPS.replace("cuda.sync_threads",
                                                   "%w = cuda.warp_id : index"), edit)
    with pytest.raises(VerifyException) as err:
        verifier.check(module)
    assert "multiple of 32" in str(err.value) and str(err.value) == plain_error(module)


def test_an_attribute_reported_on_the_kernel_alone_rekeys_only_the_kernel(monkeypatch):
    def edit(module, log):
        kernel = ops_of(module, KernelOp)[0]
        kernel.attributes["test.mark"] = UnitAttr()
        log.changed(kernel, inside=False)

    module, verifier = after_pass(LOOPS, edit)
    names = visited(monkeypatch)
    keyed: list = []
    original = ModuleVerifier._visit_region_op
    monkeypatch.setattr(ModuleVerifier, "_visit_region_op", lambda self, op, plan: (
        keyed.append(op.name), original(self, op, plan))[1])
    verifier.check(module)
    assert "tirx.kernel" in keyed and "scf.for" not in keyed  # the loops keep their tokens
    assert names == ["tirx.return"]  # only the terminator (its check reads where it sits)
    module, verifier = after_pass(LOOPS, edit, audit=True)
    verifier.check(module)  # and the report is whole: the audit finds nothing else changed


NESTED = LOOPS.replace("    %x = arith.addi %i, %c1 : index\n",
                       "    %x = arith.addi %i, %c1 : index\n    %b = arith.constant true\n"
                       "    scf.if %b {\n      %w = arith.subi %i, %c1 : index\n    }\n")


def rebuild_first_loop(module, log) -> scf.ForOp:
    """Replace the first loop by a new one holding its body (as a pass adding iter_args does),
    reporting only the replaced loop: the new loop and all it holds are new."""
    from xdsl.rewriter import InsertPoint, Rewriter

    loop = next(op for op in module.walk() if isinstance(op, scf.ForOp))
    log.removed(loop)
    new = scf.ForOp(loop.lb, loop.ub, loop.step, [], loop.detach_region(loop.body))
    Rewriter.insert_op(new, InsertPoint.before(loop))
    Rewriter.erase_op(loop)
    return new


def test_a_region_op_moved_into_a_new_loop_is_entered(monkeypatch):
    """The ``scf.if`` moved with the body into the new loop is not on the report's path, but
    what it holds is checked (a change inside it is not the op found valid before)."""
    def edit(module, log):
        new = rebuild_first_loop(module, log)
        sub = next(op for op in new.walk() if op.name == "arith.subi")
        sub.attributes["test.mark"] = UnitAttr()  # inside the new loop: need not be reported

    module, verifier = after_pass(NESTED, edit)
    names = visited(monkeypatch)
    verifier.check(module)
    assert "arith.subi" in names and "arith.muli" not in names  # the other loop is skipped
    module, verifier = after_pass(NESTED, edit, audit=True)
    verifier.check(module)  # the audit finds nothing unverified


def test_a_use_breaking_dominance_inside_a_moved_region_op_is_caught():
    from tirx_mlir.dominance import DominanceError

    def edit(module, log):
        new = rebuild_first_loop(module, log)
        other = next(op for op in module.walk() if op.name == "arith.muli")
        sub = next(op for op in new.walk() if op.name == "arith.subi")
        sub.operands = [other.result, sub.operands[1]]  # a value of the other loop's body

    module, verifier = after_pass(NESTED, edit)
    with pytest.raises(DominanceError):
        verifier.check(module)


def test_a_kernel_known_isolated_is_not_walked_when_its_launch_changes(monkeypatch):
    """A reported change of the kernel's own properties re-runs its definition's checks but
    not the isolation walk (no op inside was visited: nothing new is used from outside); an
    invalid launch is still caught."""
    import tirx_mlir.verification as verification

    walks = []
    original = verification.isolated_from_above
    monkeypatch.setattr(verification, "isolated_from_above",
                        lambda op: (walks.append(op.name), original(op))[1])

    def edit(module, log):
        kernel = ops_of(module, KernelOp)[0]
        kernel.properties["grid"] = int_array([2])
        log.changed(kernel, inside=False)

    module, verifier = after_pass(LOOPS, edit, audit=True)
    walks.clear()
    verifier.check(module)
    assert walks == []

    def invalid(module, log):
        kernel = ops_of(module, KernelOp)[0]
        kernel.properties["grid"] = int_array([0])
        log.changed(kernel, inside=False)

    module, verifier = after_pass(LOOPS, invalid)
    with pytest.raises(VerifyException, match="positive dims"):
        verifier.check(module)


WHILE = f"""
tirx.kernel @k() -> () grid [1] threads [1] {T} {{
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %r = scf.while (%i = %c0) : (index) -> index {{
    %more = arith.cmpi ult, %i, %c4 : index
    scf.condition(%more) %i : index
  }} do {{
  ^bb0(%j: index):
    %c1 = arith.constant 1 : index
    scf.yield %c1 : index
  }}
  tirx.return
}}
"""


def test_scf_while_and_condition_are_memoised_and_a_retyped_block_argument_is_seen():
    module, verifier = known_good(WHILE)
    loop = op_named(module, "scf.while")
    assert reads_of(loop) == "region" and reads_of(op_named(module, "scf.condition")) == "local"
    after = loop.regions[1].blocks.first.args[0]
    after._type = IntegerType(32)  # noqa: SLF001 - no longer the loop's result type
    with pytest.raises(Exception, match="Block arguments with wrong type"):  # xDSL's words
        verifier.verify(module)


# --- what xDSL's arith ops read: constants share their checks ---------------------------------

CONSTANTS = f"""
tirx.kernel @k() -> () grid [1] threads [1] {T} {{
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c5 = arith.constant 5 : index
  %x = arith.addi %c0, %c4 : index
  %y = arith.addi %c4, %c5 : index
  %z = arith.addi %c5, %c5 : index
  %f = arith.constant 2.0 : f32
  %g = arith.constant 3.0 : f32
  tirx.return
}}
"""


def checked_names(monkeypatch) -> list:
    """The names of the ops whose checks the verifier runs from now on (`_check`)."""
    names: list = []
    original = ModuleVerifier._check  # noqa: SLF001
    monkeypatch.setattr(ModuleVerifier, "_check", lambda self, op, *args, **kw: (
        names.append(op.name), original(self, op, *args, **kw))[1])
    return names


def test_constants_of_one_type_and_arith_on_other_constants_share_one_check(monkeypatch):
    names = checked_names(monkeypatch)
    ModuleVerifier().verify(parse_module(CONSTANTS))
    # one check per (value class, type): index and f32; one arith.addi (the values and which
    # operands are one value are not read by xDSL's arith verifiers)
    assert sorted(n for n in names if n.startswith("arith.")) == \
        ["arith.addi", "arith.constant", "arith.constant"]


def test_a_constant_whose_value_type_is_not_its_result_type_is_caught():
    module, verifier = known_good(CONSTANTS)
    c4 = [c for c in ops_of(module, arith.ConstantOp) if c.value.value.data == 4][0]
    c4.properties["value"] = IntegerAttr(4, i64)  # the result stays index
    assert_caught(verifier, module)


def test_a_float_constant_given_an_integer_value_is_caught():
    module, verifier = known_good(CONSTANTS)
    f = [c for c in ops_of(module, arith.ConstantOp) if c.result.type != IndexType()][0]
    f.properties["value"] = IntegerAttr(2, IntegerType(32))  # the result stays f32
    assert_caught(verifier, module)


def test_an_arith_op_given_an_operand_of_another_type_is_caught():
    module, verifier = known_good(CONSTANTS)
    add = next(op for op in module.walk() if op.name == "arith.addi")
    f = [c for c in ops_of(module, arith.ConstantOp) if c.result.type != IndexType()][0]
    add.operands = [add.operands[0], f.result]
    assert_caught(verifier, module)



def keyed_names(monkeypatch) -> list:
    """The names of the ops whose key the verifier builds from now on (`_local_key`)."""
    names: list = []
    original = ModuleVerifier._local_key  # noqa: SLF001
    monkeypatch.setattr(ModuleVerifier, "_local_key", lambda self, op, plan: (
        names.append(op.name), original(self, op, plan))[1])
    return names


def test_an_op_given_another_value_of_the_same_type_or_moved_is_not_keyed_again(monkeypatch):
    module, verifier = known_good(LOOPS)
    add = next(op for op in module.walk() if op.name == "arith.addi")
    mul = next(op for op in module.walk() if op.name == "arith.muli")
    c4 = [c for c in ops_of(module, arith.ConstantOp) if c.value.value.data == 4][0]
    add.operands = [add.operands[0], c4.result]  # redirected, as canonicalize and cse do
    mul.detach()
    add.parent.insert_op_after(mul, add)  # moved into the other loop, as a hoist does
    mul.operands = [add.operands[0], mul.operands[1]]
    names = keyed_names(monkeypatch)
    verifier.verify(module)
    assert "arith.addi" not in names and "arith.muli" not in names
    assert sorted(set(names)) == ["builtin.module", "scf.for", "tirx.kernel"]
    mul.operands = [add.result, add.result]  # a dominance matter, not the verifier's
    verifier.verify(module)


def test_an_op_given_an_operand_of_another_type_is_keyed_and_caught(monkeypatch):
    module, verifier = known_good(CONSTANTS)
    add = next(op for op in module.walk() if op.name == "arith.addi")
    f = [c for c in ops_of(module, arith.ConstantOp) if c.result.type != IndexType()][0]
    names = keyed_names(monkeypatch)
    add.operands = [f.result, f.result]
    assert_caught(verifier, module)
    assert "arith.addi" in names


def test_no_kernel_is_walked_for_isolation_on_a_pipeline(monkeypatch):
    """After each report the kernel's free values are updated from the ops visited in it (the
    free sets of its loops may hold values since erased), so it stays known isolated."""
    from pathlib import Path

    from tirx_mlir import verification
    from tirx_mlir.pipelines import get_pipeline

    monkeypatch.setenv(verification.AUDIT_ENV, "0")  # the audit's full verifications aside
    walks: list = []
    original = verification.isolated_from_above
    monkeypatch.setattr(verification, "isolated_from_above",
                        lambda op: (walks.append(op.name), original(op))[1])
    root = Path(__file__).resolve().parents[1]
    module = parse_module((root / "examples/cuda/tile/gemm_sm80.mlir").read_text())
    get_pipeline("cuda", arch="sm_80").apply(module)
    assert walks == []


CHAIN = f"""
tirx.kernel @k() -> () grid [1] threads [1] {T} {{
  %c1 = arith.constant 1 : index
  %a = arith.ori %c1, %c1 : index
  %b = arith.andi %a, %a : index
  %d = arith.xori %b, %c1 : index
  %e = arith.index_cast %c1 : index to i64
  %f = arith.shli %e, %e : i64
  tirx.return
}}
"""


def named(module, name: str):
    return next(op for op in module.walk() if op.name == name)


def replace_add(constant):
    """An edit replacing ``%a`` by ``constant`` (inserted before it), reported as a removal:
    its user (the andi) has its operands redirected."""
    def edit(module, log):
        add = named(module, "arith.ori")
        add.parent.insert_op_before(constant, add)
        log.removed(add)
        add.results[0].replace_all_uses_with(constant.result)
        add.detach()
        add.erase()
    return edit


def test_the_users_of_a_removed_op_are_verified_not_their_users(monkeypatch):
    """The users of a removed op's results only have their operands redirected: they are
    verified, the ops using their results are not reached through them."""
    def edit():
        return replace_add(arith.ConstantOp(IntegerAttr(3, IndexType())))

    module, verifier = after_pass(CHAIN, edit())
    names = visited(monkeypatch)
    verifier.check(module)
    assert "arith.andi" in names
    assert "arith.xori" not in names  # %d, the andi's user: not reached
    assert "arith.index_cast" not in names and "arith.shli" not in names
    module, verifier = after_pass(CHAIN, edit(), audit=True)
    verifier.check(module)  # the audit finds nothing the report left out


def test_a_user_redirected_to_a_value_of_another_type_is_caught():
    module, verifier = after_pass(CHAIN, replace_add(
        arith.ConstantOp(IntegerAttr(3, IntegerType(32)))))
    assert_caught(verifier, module)


def retype_mul(report_mul: bool):
    """Replace ``%a`` by an i32 constant and retype the andi's result to i32 (the andi stays
    valid, the xori using it does not); the andi reported changed or not."""
    from xdsl.rewriter import Rewriter

    def edit(module, log):
        replace_add(arith.ConstantOp(IntegerAttr(3, IntegerType(32))))(module, log)
        mul = named(module, "arith.andi")
        Rewriter.replace_value_with_new_type(mul.results[0], IntegerType(32))
        if report_mul:
            log.changed(mul)
    return edit


def test_a_retyped_user_of_a_removed_op_reported_changed_reaches_its_users():
    module, verifier = after_pass(CHAIN, retype_mul(report_mul=True))
    assert_caught(verifier, module)


def test_a_retyped_user_of_a_removed_op_not_reported_is_caught_by_the_audit():
    module, verifier = after_pass(CHAIN, retype_mul(report_mul=False))
    verifier.check(module)  # a report that is not whole: the xori is not reached
    module, verifier = after_pass(CHAIN, retype_mul(report_mul=False), audit=True)
    with pytest.raises(VerifyException):
        verifier.check(module)


def test_a_changed_op_reached_first_as_a_user_still_reaches_its_own_users():
    """Two ops reported changed, one a user of the other: handled first as the other's user,
    the second still has its own users reached (the shli of its retyped result)."""
    from xdsl.rewriter import Rewriter

    def edit(module, log):
        c1, cast = named(module, "arith.constant"), named(module, "arith.index_cast")
        Rewriter.replace_value_with_new_type(cast.results[0], IntegerType(32))
        log.changed(cast)
        c1.attributes["test.mark"] = UnitAttr()
        log.changed(c1)  # handled first: its users, the cast among them, are reached

    module, verifier = after_pass(CHAIN, edit)
    assert_caught(verifier, module)


def test_a_view_reached_through_redirected_arithmetic_is_checked(monkeypatch):
    """A constant replaced under a view's offset arithmetic (reported as a removal): the
    addition's redirect reaches the view and the op reading it (caught), not the addition's
    other users, which read only its type."""
    text = OFFSET_VIEW.replace("  %v = tirx.slice",
                               "  %t = arith.xori %s, %s : index\n  %v = tirx.slice")

    def replace_q(value: int):
        def edit(module, log):
            q = [c for c in ops_of(module, arith.ConstantOp)][1]
            new = arith.ConstantOp(IntegerAttr(value, IndexType()))
            q.parent.insert_op_before(new, q)
            log.removed(q)
            q.result.replace_all_uses_with(new.result)
            q.detach()
            q.erase()
        return edit

    module, verifier = after_pass(text, replace_q(16))
    with pytest.raises(VerifyException, match="starts at partition 16"):
        verifier.check(module)
    module, verifier = after_pass(text, replace_q(0))
    names = visited(monkeypatch)
    verifier.check(module)
    assert {"arith.addi", "tirx.slice", "nki.tensor_copy"} <= set(names)
    assert "arith.xori" not in names
    module, verifier = after_pass(text, replace_q(0), audit=True)
    verifier.check(module)  # the audit finds nothing the report left out


LOOP_NEST = f"""
tirx.kernel @n() -> () grid [1] threads [1] {T} {{
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c4 step %c1 {{
    scf.for %j = %c0 to %c4 step %c1 {{
      %x = arith.addi %i, %j : index
    }}
  }}
  tirx.return
}}
"""


def test_a_use_from_outside_deep_in_reported_loops_is_caught():
    """After a report, what the inner loop's ops use from outside it is handed to the outer
    loop and the kernel (not read from its ops again): a value from outside the kernel used
    there still leaves the kernel not isolated, and xDSL's check reports it."""
    def edit(module, log):
        outside = arith.ConstantOp(IntegerAttr(4, IndexType()))
        module.body.block.insert_op_before(outside, module.body.block.first_op)
        add = named(module, "arith.addi")
        add.operands = [add.operands[0], outside.result]
        log.changed(add)

    module, verifier = after_pass(LOOP_NEST, edit)
    with pytest.raises(VerifyException, match="IsolatedFromAbove") as err:
        verifier.check(module)
    assert str(err.value) == plain_error(module)


SCOPE_IDS = f"""
tirx.kernel @ids() -> () grid [4] threads [64] {T} {{
  %w = tirx.warp_id : index
  %b = tirx.cta_id : index
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c4 step %c1 {{
    %x = arith.addi %i, %c1 : index
  }}
  tirx.return
}}
"""


def test_scope_ids_are_memoised_and_see_their_kernel_launch_change():
    """A scope id's check reads its kernel's launch ("kernel"): it is not verified in full at
    every visit (which kept its kernel on every report's path), and a launch it cannot take is
    still caught."""
    module, verifier = known_good(SCOPE_IDS)
    warp = op_named(module, "tirx.warp_id")
    assert reads_of(warp) == "kernel" and reads_of(op_named(module, "tirx.cta_id")) == "kernel"
    kernel = ops_of(module, KernelOp)[0]
    kernel.properties["threads"] = int_array([48])  # not a whole number of warps
    assert_caught(verifier, module, "multiple of 32 threads")


def test_a_report_reaching_nothing_does_not_walk_a_kernel_holding_scope_ids(monkeypatch):
    """A scope id verified in full at every visit kept its kernel on every report's path (its
    whole block walked, the scope id checked again): a pass reporting nothing leaves nothing
    to walk."""
    module, verifier = after_pass(SCOPE_IDS, lambda module, log: None)
    blocks = count_calls(monkeypatch, ModuleVerifier, "_visit_block")
    checked = count_calls(monkeypatch, type(op_named(module, "tirx.cta_id")), "verify")
    names = visited(monkeypatch)
    verifier.check(module)
    assert names == [] and checked == []
    assert len(blocks) == 1  # the module's body, which holds the kernel: not entered


def test_a_view_whose_offset_constant_is_replaced_by_an_equal_one_is_not_resolved_again(
        monkeypatch):
    """A view's constant offset is keyed by its value: cse replacing it by an equal constant
    (reported as a removal) leaves the view's record found; another value is resolved and
    caught."""
    def replace(value: int):
        def edit(module, log):
            p = [c for c in ops_of(module, arith.ConstantOp)][0]
            new = arith.ConstantOp(IntegerAttr(value, IndexType()))
            p.parent.insert_op_before(new, p)
            log.removed(p)
            p.result.replace_all_uses_with(new.result)
            p.detach()
            p.erase()
        return edit

    module, verifier = after_pass(EQUAL_VIEWS, replace(0), audit=True)
    values = resolved_views(monkeypatch)
    verifier.check(module)
    assert values == []
    module, verifier = after_pass(EQUAL_VIEWS, replace(16))
    with pytest.raises(VerifyException, match="starts at partition 16") as err:
        verifier.check(module)
    assert str(err.value) == plain_error(module)


def test_upstream_ops_a_pass_builds_get_the_compiled_definition_check():
    """An arith op in IR whose dialect no context loaded (dispatch builds them from xDSL's
    classes) is verified with the compiled definition check (`def_check.install_def_check`)
    once the verifier meets its class: xDSL's generic one costs ~10x more. In a fresh process,
    as the dialect is loaded once per process."""
    import subprocess
    import sys

    code = (
        "import tirx_mlir\n"
        "from xdsl.dialects import arith\n"
        "from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp\n"
        "from tirx_mlir.verification import ModuleVerifier\n"
        "c = arith.ConstantOp(IntegerAttr(1, IndexType()))\n"
        "add = arith.AddiOp(c.result, c.result)\n"
        "assert not getattr(arith.AddiOp.verify_, '__wrapped_def_check__', False)\n"
        "ModuleVerifier().verify(ModuleOp([c, add]))\n"
        "print(getattr(arith.AddiOp.verify_, '__wrapped_def_check__', False))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "True"


def test_aliases_name_each_operand_by_its_first_position():
    from tirx_mlir.verification import _aliases  # noqa: PLC0415

    a, b, c = (object() for _ in range(3))
    assert _aliases((a, b, c)) == ()  # all differ: nothing to compare
    assert _aliases((a, a)) == (0, 0)
    assert _aliases((a, b, a, c, b)) == (0, 1, 0, 3, 1)
    assert _aliases((b, a, a)) != _aliases((a, b, a))  # which operands alias is kept
