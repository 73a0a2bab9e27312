"""resolve_access / resolve_region against numpy views for random chains of tirx views."""

import numpy as np
from hypothesis import given, settings, strategies as st

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, f32
from xdsl.ir import Block

from tirx_mlir.dialects.tirx import (AllocOp, BufferType, ReshapeOp, SliceOp, TransposeOp,
                                     resolve_access, resolve_region)


@st.composite
def view_chains(draw):
    shape = draw(st.lists(st.integers(1, 6), min_size=1, max_size=3))
    steps = []
    cur = list(shape)
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["slice", "transpose", "reshape", "dynslice"]))
        if kind in ("slice", "dynslice"):
            offs, sizes, strides = [], [], []
            for n in cur:
                stride = draw(st.integers(1, 2))
                size = draw(st.integers(1, max(1, (n - 1) // stride + 1)))
                off = draw(st.integers(0, n - 1 - (size - 1) * stride))
                offs.append(off), sizes.append(size), strides.append(stride)
            steps.append((kind, offs, sizes, strides))
            cur = sizes
        elif kind == "transpose":
            perm = draw(st.permutations(range(len(cur))))
            steps.append((kind, list(perm)))
            cur = [cur[p] for p in perm]
        else:
            new = []
            for n in cur:
                divs = [d for d in range(1, n + 1) if n % d == 0]
                d = draw(st.sampled_from(divs))
                new += [d, n // d] if draw(st.booleans()) else [n]
            if draw(st.booleans()):
                new.insert(draw(st.integers(0, len(new))), 1)
            steps.append((kind, new))
            cur = new
    return shape, steps


@settings(max_examples=150, deadline=None)
@given(view_chains())
def test_access_pattern_matches_numpy(chain):
    shape, steps = chain
    block = Block()
    base = AllocOp(BufferType(shape, f32, "trn.sbuf"))
    block.add_op(base)
    value = base.result
    array = np.arange(int(np.prod(shape))).reshape(shape)
    view = array
    for step in steps:
        if step[0] in ("slice", "dynslice"):
            _, offs, sizes, strides = step
            mixed = list(offs)
            if step[0] == "dynslice":  # first offset through an SSA constant
                c = arith.ConstantOp(IntegerAttr(offs[0], IndexType()))
                block.add_op(c)
                mixed[0] = c.result
            op = SliceOp(value, mixed, sizes, strides)
            view = view[tuple(slice(o, o + (n - 1) * s + 1, s) for o, n, s in zip(offs, sizes, strides))]
        elif step[0] == "transpose":
            op = TransposeOp(value, step[1])
            view = view.transpose(step[1])
        else:
            op = ReshapeOp(value, step[1])
            view = view.reshape(step[1])
        block.add_op(op)
        op.verify()
        value = op.result
    ap = resolve_access(value)
    assert ap.buffer is base.result and ap.sizes == view.shape
    offset = np.array([o.const for o in ap.offset])  # constants fold through arith.constant
    idx = np.indices(ap.sizes).reshape(len(ap.sizes), -1).T
    flat = offset + idx @ np.array(ap.steps).reshape(len(ap.sizes), len(shape))
    got = array[tuple(flat.T)].reshape(ap.sizes)
    assert (got == view).all()
    if all(s[0] in ("slice", "dynslice") for s in steps):
        region = resolve_region(value)
        assert region.sizes == view.shape


def test_dynamic_offsets_stay_symbolic():
    block = Block()
    base = AllocOp(BufferType((256, 512), f32, "trn.sbuf"))
    i = arith.ConstantOp(IntegerAttr(3, IndexType()))
    loop_var = block.insert_arg(IndexType(), 0)
    k = arith.MuliOp(loop_var, i.result)
    block.add_ops([base, i, k])
    s = SliceOp(base.result, [k.result, 128], [64, 256], [1, 1])
    s2 = SliceOp(s.result, [2, loop_var], [8, 8], [1, 2])
    block.add_ops([s, s2])
    ap = resolve_access(s2.result)
    assert ap.offset[0].const == 2 and dict(ap.offset[0].terms) == {loop_var: 3}
    assert ap.offset[1].const == 128 and dict(ap.offset[1].terms) == {loop_var: 1}
    assert ap.steps == ((1, 0), (0, 2))


def test_shared_views_answer_each_view_once_and_only_inside_the_block():
    from tirx_mlir.dialects.tirx.access import shared_answers, shared_views

    base = AllocOp(BufferType((128, 512), f32, "trn.sbuf"))
    view = SliceOp(base.result, [0, 128], [128, 256], [1, 1])
    assert shared_answers() is None
    with shared_views():
        first = resolve_access(view.result)
        assert resolve_access(view.result) is first
        with shared_views():  # a nested block answers afresh
            assert resolve_access(view.result) is not first
        assert resolve_access(view.result) is first
    assert shared_answers() is None
    assert resolve_access(view.result) is not first
    assert resolve_access(view.result) == first


def test_is_guarded_sees_a_dynamic_size_and_not_a_dynamic_offset_anywhere_in_the_chain():
    from tirx_mlir.dialects.tirx.access import is_guarded

    block = Block()
    base = AllocOp(BufferType((256, 512), f32, "trn.sbuf"))
    i = block.insert_arg(IndexType(), 0)
    block.add_op(base)
    offset_only = SliceOp(base.result, [i, 0], [128, 512])  # a dynamic offset, static sizes
    sized = SliceOp(base.result, [0, 0], [i, 512], max_sizes=[128, 512])  # a guard
    both = SliceOp(base.result, [i, i], [i, 256], max_sizes=[128, 256])
    static = SliceOp(base.result, [0, 0], [128, 512])
    inner = SliceOp(sized.result, [0, 0], [128, 256])  # a static view of a guarded one
    t = TransposeOp(inner.result, [1, 0])
    block.add_ops([offset_only, sized, both, static, inner, t])
    assert not is_guarded(base.result) and not is_guarded(static.result)
    assert not is_guarded(offset_only.result)
    assert is_guarded(sized.result) and is_guarded(both.result)
    assert is_guarded(inner.result) and is_guarded(t.result)


def test_a_slice_takes_python_and_numpy_ints_and_index_values_in_any_mix():
    from tirx_mlir.dialects.tirx.buffer_ops import DYNAMIC

    block = Block()
    base = AllocOp(BufferType((256, 512), f32, "trn.sbuf"))
    i = block.insert_arg(IndexType(), 0)
    n = block.insert_arg(IndexType(), 1)
    block.add_op(base)
    s = SliceOp(base.result, [np.int64(3), i], [n, np.int32(64)], max_sizes=[128, 64])
    t = SliceOp(base.result, [i, True], [8, 16])  # a bool is an int: int(True) == 1
    block.add_ops([s, t])
    assert list(s.static_offsets.get_values()) == [3, DYNAMIC]
    assert list(s.static_sizes.get_values()) == [DYNAMIC, 64]
    assert list(s.offsets) == [i] and list(s.dynamic_sizes) == [n]
    assert s.mixed_offsets() == [3, i] and s.mixed_sizes() == [n, 64]
    assert s.result.type.get_shape() == (128, 64)
    assert t.mixed_offsets() == [i, 1] and type(t.mixed_offsets()[1]) is int
    assert t.result.type.get_shape() == (8, 16) and not t.dynamic_sizes


def test_index_sums_are_the_reference_sums_whatever_their_terms():
    """`IndexExpr.__add__` / `scale` (fields set directly, a summed side's terms kept) give
    what summing through a dict gives, for terms with repeated values and zero coefficients
    too (a caller may build such an IndexExpr itself)."""
    import random

    from xdsl.dialects.builtin import IndexType
    from xdsl.ir import Block

    from tirx_mlir.dialects.tirx.access import IndexExpr

    values = Block(arg_types=[IndexType()] * 3).args

    def reference_add(a, b):
        coeffs = dict(a.terms)
        for v, c in b.terms:
            coeffs[v] = coeffs.get(v, 0) + c
        return IndexExpr(a.const + b.const, tuple((v, c) for v, c in coeffs.items() if c != 0))

    rng = random.Random(5)

    def raw():
        terms = tuple((rng.choice(values), rng.randint(-1, 2)) for _ in range(rng.randint(0, 3)))
        return IndexExpr(rng.randint(-3, 3), terms)

    pool = [raw() for _ in range(12)]
    for _ in range(400):
        a, b = rng.choice(pool), rng.choice(pool)
        got = a + b
        assert got == reference_add(a, b) and got.terms == reference_add(a, b).terms
        assert a + b.const == reference_add(a, IndexExpr(b.const))
        k = rng.randint(-2, 3)
        assert a.scale(k) == IndexExpr(a.const * k, tuple((v, c * k) for v, c in a.terms
                                                          if c * k != 0))
        assert hash(got) == hash(IndexExpr(got.const, got.terms)) and "summed" not in repr(got)
        pool.append(rng.choice([got, a.scale(k), raw()]))
