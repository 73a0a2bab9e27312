"""CUDA variants of tirx.copy (and tirx.cast, the same move with a conversion).

* ``vec_auto`` (priority 10, TIRx's name): global <-> shared <-> registers in any direction
  through the elementwise engine (`pointwise.lower`): TIRx's synthesized ``[outer, threads,
  vec]`` partition for memory-to-memory copies, the register tile's own layout when one side is
  registers; the widest vector (up to 16 bytes) every memory side allows, one ``ld``/``st.v{2,4}``
  per thread and round, no wider than a swizzled shared side's 16-byte chunk (its addresses
  are not consecutive past it); a copy of 8- or 16-bit elements between memories moves them
  packed in 32-bit words (``ld``/``st.v4.b32``, `pointwise._word_lanes`). TIRx's
  ``config {vec_len = N}`` forces N elements per access (a power of two, at most 16 bytes and,
  unless the copy moves packed words, 4 registers): the spread is built with that vector, and a
  copy where some memory side cannot be read or written in aligned runs of N (a row shorter
  than N, a misaligned view, a register layout whose runs are shorter) declines with the reason
  instead of narrowing it. A cast's ``config {rounding_mode = "rz"}`` (or ``rm``, ``rp``;
  ``rn`` is the default) converts each element with one ``cvt.<mode>`` (`rounded_conversion`), never two
  at a time (``cvt.rn.{f16,bf16}x2`` rounds to nearest); a conversion PTX has no such ``cvt``
  for declines, naming the ones it has.
* ``fallback`` (priority 0): memory-to-memory copies nothing else takes (e.g. a source whose
  layout cannot be split at the destination's dims), element by element in loops run by the
  first thread of the scope, with a warning (TIRx's ``fallback``: slow, but correct).
"""

from __future__ import annotations

import warnings

from xdsl.dialects import arith, scf

from tirx_mlir.backends.cuda.dialects.ptx.forms import ModifierError
from tirx_mlir.backends.cuda.dialects.ptx.ops import make as ptx_make
from tirx_mlir.backends.cuda.dispatch import common, copy_hints, pointwise
from tirx_mlir.backends.cuda.dialects.cuda.loads import LoadOp, StoreOp
from tirx_mlir.backends.cuda.memory import GLOBAL, LOCAL, SHARED_SCOPES
from tirx_mlir.backends.cuda.layout.defaults import SCOPE_AXIS
from tirx_mlir.dialects.tirx import dtypes
from tirx_mlir.dialects.tirx import tile_ops as T
from tirx_mlir.dialects.tirx.access import IndexExpr, const_index
from tirx_mlir.dispatch import exec_scope_in, fail
from tirx_mlir.dispatch.builders import config_int, elem_type, emit_loop, scope_of, shape_of

SCOPES = exec_scope_in("thread", "warp", "warpgroup", "cta")
MEMORY = common.operands_in(GLOBAL, *SHARED_SCOPES)
ANYWHERE = common.operands_in(GLOBAL, LOCAL, *SHARED_SCOPES)


def _vec_auto(op, ctx) -> None:
    """Copy through the elementwise engine (module docstring)."""
    mode = op.rounding_mode() if isinstance(op, T.CastOp) else "rn"
    fn = (lambda b, xs: xs[0]) if mode == "rn" else rounded_conversion(elem_type(op.dst), mode)
    pointwise.lower(op, ctx, op.dst, [op.src], fn,
                    ctype=elem_type(op.src), convert_pairs=isinstance(op, T.CastOp) and
                    mode == "rn", move=isinstance(op, T.CopyOp), require_vector=_vec_len(op))


def rounded_conversion(to, mode: str):
    """The scalar conversion to ``to`` in rounding ``mode`` (a cast's ``rounding_mode``): one
    ``cvt.<mode>`` of each element; a widening cast (or none) is exact and converts as any
    other."""
    def fn(b, xs):
        x = xs[0]
        if to == x.type or dtypes.bit_width(to) > dtypes.bit_width(x.type):
            return pointwise.convert(b, x, to)
        try:
            cvt = ptx_make("cvt", [x], [to], rnd=mode, dtype=dtypes.type_name(to),
                           atype=dtypes.type_name(x.type))
        except ModifierError as err:
            fail(f"rounding_mode {mode}: {err}")
        return b.insert(cvt).results[0]
    return fn


def _vec_len(op) -> int | None:
    """The ``vec_len`` config (module docstring): a power of two, and a copy with a memory
    side (registers alone have no accesses to size)."""
    n = config_int(op, "vec_len")
    if n is None:
        return None
    if n & (n - 1):
        fail(f"config vec_len must be a power of two, got {n}")
    if all(scope_of(v) == LOCAL for v in (op.dst, op.src)):
        fail("config vec_len sizes memory accesses; this copy is between registers")
    return n


def _fallback(op, ctx) -> None:
    """Element by element, by the first thread of the scope."""
    warnings.warn(f"{op.name} at {op.location}: no vectorised CUDA copy applies; copying element "
                  f"by element from one thread (slow)", UserWarning, stacklevel=2)
    b = ctx.builder
    ids = common.ThreadIds(b)
    axis = SCOPE_AXIS.get(op.exec_scope)
    if axis is not None:
        first = b.insert(arith.CmpiOp(ids[axis], const_index(b, 0), "eq")).result
        body = scf.IfOp(first, [], [_block()])
        b.insert(body)
        from xdsl.builder import Builder
        from xdsl.rewriter import InsertPoint

        b = Builder(InsertPoint.before(body.true_region.block.last_op))
    shape = shape_of(op.dst)
    ivs = []
    for n in shape:
        b, iv = emit_loop(b, n, 1)
        ivs.append(IndexExpr.of(iv))
    src_coords = pointwise.operand_coords(tuple(shape_of(op.src)), tuple(shape), ivs)
    sbuf, sbase = common.base_coords(op.src, src_coords)
    dbuf, dbase = common.base_coords(op.dst, tuple(ivs))
    sidx = common.index_value(b, common.physical_index(b, sbuf.type, sbase))
    value = b.insert(LoadOp(sbuf, sidx, result_types=[elem_type(op.src)])).result
    value = pointwise.convert(b, value, elem_type(op.dst))
    didx = common.index_value(b, common.physical_index(b, dbuf.type, dbase))
    b.insert(StoreOp(dbuf, didx, value))


def _block():
    from xdsl.ir import Block

    block = Block()
    block.add_op(scf.YieldOp())
    return block


for _cls, _config in ((T.CopyOp, ()), (T.CastOp, ("rounding_mode",))):
    common.cuda_variant(_cls, "vec_auto", 10, [SCOPES, common.ONE_DIM_BLOCK, ANYWHERE],
                        config=(*copy_hints.CONFIG, "vec_len", *_config))(
        copy_hints.with_load_hints(_vec_auto))
    common.cuda_variant(_cls, "fallback", 0, [SCOPES, common.ONE_DIM_BLOCK, MEMORY])(_fallback)
