"""The barriers dispatch adds for the tile-level order: warpgroup-scope ops of several
warpgroups at once each end on their own named barrier (1 + the warpgroup's index), which the
SIMT interpreter checks (two warpgroups on one id are an error there), and the printed PTX
assembles for sm_90a with a register barrier id (the register tile is dead: nvcc's -Werror
would refuse the CUDA C++ for the unused array, so only PTX is assembled). The whole-warps
predicate of the variants that emit collective instructions."""

from __future__ import annotations

import pytest

from types import SimpleNamespace

from tirx_testing import cuda_compile
from tirx_testing.cuda_every_stage import check_every_stage
from tirx_mlir.backends.cuda.dispatch import common
from tirx_mlir.backends.cuda.printers.ptx import emit_ptx

KERNEL = """tirx.kernel @wg(%A: !tirx.buffer<64x64xf16, global>) -> (%O: !tirx.buffer<64x64xf16, global>)
    grid [2] threads [{threads}] target "cuda -arch=sm_90a" {{
  %s = tirx.alloc : !tirx.buffer<64x64xf16, shared>
  %r = tirx.alloc : !tirx.buffer<64x64xf16, local>
  tirx.copy cta %s, %A : !tirx.buffer<64x64xf16, shared>, !tirx.buffer<64x64xf16, global>
  tirx.copy warpgroup %r, %s : !tirx.buffer<64x64xf16, local>, !tirx.buffer<64x64xf16, shared>
  tirx.copy cta %O, %s : !tirx.buffer<64x64xf16, global>, !tirx.buffer<64x64xf16, shared>
  tirx.return
}}
"""


@pytest.mark.parametrize("threads", [256, 512])
def test_warpgroups_synchronise_on_their_own_barriers(threads):
    """Every warpgroup reads the shared tile at once and waits on bar.sync 1 + w, 128."""
    final = check_every_stage(KERNEL.format(threads=threads), lambda a: [a], arch="sm_90a",
                              compile=False)
    assert "cuda.sync_warpgroup barrier 1 per_warpgroup" in str(final)
    ptx = emit_ptx(final)
    assert "shr.u32" in ptx and "bar.sync %r" in ptx
    assert any(op.startswith("BAR.SYNC") for op in cuda_compile.ptx_sass_opcodes(ptx, "sm_90a"))


_C = "!tirx.buffer<16x8xf32, local, S[(2,8,4,2):(2,4@laneid,1@laneid,1)]>"
_V = "!tirx.buffer<8x8xf32, local>"
_VIEWS = f"""
tirx.kernel @k() -> () grid [1] threads [32] target "cuda -arch=sm_80" {{
  %r = tirx.alloc : {_C}
  %top = tirx.slice %r[0, 0] [8, 8] : {_C} -> {_V}
  %bottom = tirx.slice %r[8, 0] [8, 8] : {_C} -> {_V}
  %middle = tirx.slice %r[4, 0] [8, 8] : {_C} -> {_V}
  tirx.return
}}
"""


def test_register_slots_answer_each_view_by_its_offsets_every_time():
    """`register_slots` keeps its answers by the question's layouts, shapes and the view's
    offsets and steps: the two halves of an m16n8 accumulator read as one 8x8 C fragment are
    registers 0,1 and 2,3; a view straddling the halves is refused, again when asked again."""
    from tirx_mlir.backends.cuda.dispatch import common
    from tirx_mlir.backends.cuda.layout.partition import PartitionError, RegisterPartition
    from tirx_mlir.dialects.tirx.attributes import ExecScope
    from tirx_mlir.dialects.tirx.buffer_ops import AllocOp, SliceOp
    from tirx_mlir.dialects.tirx.layout import TileLayout
    from tirx_mlir.located_parser import parse_module

    module = parse_module(_VIEWS, "views")
    tile = next(o for o in module.walk() if isinstance(o, AllocOp)).result
    top, bottom, middle = [o.result for o in module.walk() if isinstance(o, SliceOp)]
    part = common.register_partition(tile)
    frag = RegisterPartition(TileLayout.parse("S[(8,4,2):(4@laneid,1@laneid,1)]"), (8, 8))
    for _ in range(2):
        assert common.register_slots(part, top, frag, (8, 8), ExecScope.WARP, 32) == [0, 1]
        assert common.register_slots(part, bottom, frag, (8, 8), ExecScope.WARP, 32) == [2, 3]
        with pytest.raises(PartitionError, match=r"thread 0 needs element \(4, 0\)"):
            common.register_slots(part, middle, frag, (8, 8), ExecScope.WARP, 32)
    assert common.register_slots(part, tile, part, (16, 8), ExecScope.WARP, 32) == [0, 1, 2, 3]


@pytest.mark.parametrize("unit,threads,ok", [(32, (32,), True), (32, (96,), True),
                                             (32, (48,), False), (32, (16,), False),
                                             (128, (384,), True), (128, (32, 4), True),
                                             (128, (160,), False), (128, (64,), False)])
def test_whole_groups_rejects_a_partial_warp_or_warpgroup_with_the_reason(unit, threads, ok):
    check = common.whole_groups(unit, "the instr")
    name = "warp" if unit == 32 else "warpgroup"
    assert check.name == f"whole {name}s"
    passed, reason = check.evaluate(None, SimpleNamespace(threads=threads))
    assert passed == ok
    if not ok:
        assert reason.startswith(f"threads {list(threads)} is not a whole number of {name}s; "
                                 f"the instr needs all ")


def test_register_array_type_is_the_buffer_type_made_once():
    """A tile's register array type: ``BufferType([n], t, local)`` (equal, so the IR prints the
    same), one object per count and element type, another for another count or type."""
    from xdsl.dialects.builtin import f16, f32

    from tirx_mlir.backends.cuda.dispatch.common import register_array_type
    from tirx_mlir.backends.cuda.memory import LOCAL
    from tirx_mlir.dialects.tirx.attributes import BufferType

    t = register_array_type(8, f32)
    assert t == BufferType([8], f32, LOCAL) and str(t) == str(BufferType([8], f32, LOCAL))
    assert register_array_type(8, f32) is t
    assert register_array_type(4, f32) == BufferType([4], f32, LOCAL) != t
    assert register_array_type(8, f16) == BufferType([8], f16, LOCAL) != t


def test_physical_index_refuses_a_layout_it_cannot_split_each_time():
    """The refined shard `physical_index` reads is kept per buffer type, and so is its refusal:
    asked twice, the same located message."""
    from xdsl.builder import Builder
    from xdsl.ir import Block
    from xdsl.rewriter import InsertPoint

    from tirx_mlir.dialects.tirx.access import IndexExpr
    from tirx_mlir.dialects.tirx.attributes import BufferType
    from tirx_mlir.dialects.tirx.dtypes import element_type
    from tirx_mlir.dialects.tirx.layout import TileLayout
    from tirx_mlir.dispatch.registry import DispatchFail

    t = BufferType([6, 4], element_type("f16"), "shared", TileLayout.parse("S[(4,6):(6,1)]"))
    b = Builder(InsertPoint.at_end(Block()))
    messages = []
    for _ in range(2):
        with pytest.raises(DispatchFail) as err:
            common.physical_index(b, t, [IndexExpr(1), IndexExpr(2)])
        messages.append(err.value.reason)
    assert messages[0] == messages[1] and "layout iterator" in messages[0]
    row_major = BufferType([6, 4], element_type("f16"), "shared", None)
    assert common.physical_index(b, row_major, [IndexExpr(1), IndexExpr(2)]) == 6
