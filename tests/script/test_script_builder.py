"""The Python front end builds verified IR that round-trips through text."""

import pytest

from tirx_mlir import script as Tx
from tirx_mlir.located_parser import parse_module
from tirx_mlir.dialects.tirx import SelectOp, SliceOp, TransposeOp
from tirx_mlir.dialects.tirx.predicate import evaluate


def build_kernel():
    with Tx.kernel("k", inputs={"A": Tx.buffer((128, 512))},
                   outputs={"B": Tx.buffer((128, 512))}, threads=[128]) as k:
        A, B = k.args
        a = Tx.alloc((128, 512), scope="shared", name="a")
        r = Tx.alloc((128, 1), scope="shared", name="r")
        Tx.cta.copy(a, A)
        Tx.cta.add(a, a, 1.0)
        Tx.cta.sum(r, a, axes=[-1], accum=True)
        Tx.cta.exp(a, a, bias=r, scale=0.5, config={"vec_len": 4})
        Tx.cta.select(a, a, 0.0, where=lambda i, j: (i < j) & (j <= 100))
        with Tx.range(0, 4) as i:
            Tx.cta.copy(B[i * 32: i * 32 + 32, :], a[Tx.ds(i * 32, 32), :])
        Tx.cta.copy(B[0:64, 0:64], a[0:64, 0:64].T())
    return k.module


def test_builds_verified_ir_that_round_trips():
    module = build_kernel()
    module.verify()
    text = str(module)
    assert "tirx.sum cta %r, %a axes [-1] accum" in text
    assert "tirx.exp cta %a, %a bias %r scale" in text and "config {vec_len = 4 : i64}" in text
    assert str(parse_module(text)) == text


def test_select_lambda_becomes_the_affine_predicate():
    module = build_kernel()
    op = next(o for o in module.walk() if isinstance(o, SelectOp))
    mask = evaluate(op.where.data, (128, 512))
    i, j = 3, 50
    assert mask[i, j] and not mask[j, i] and not mask[0, 101]


def test_views():
    module = build_kernel()
    assert any(isinstance(o, TransposeOp) for o in module.walk())
    dynamic = [o for o in module.walk() if isinstance(o, SliceOp) and o.offsets]
    assert dynamic and all(o.sizes() == (32, 512) for o in dynamic)


@pytest.mark.parametrize("call,message", [
    (lambda A, a: Tx.add(a), "missing lhs, rhs"),
    (lambda A, a: Tx.add(a, a, a, a), "takes 3 operands"),
    (lambda A, a: Tx.sum(a, a, axis=[-1]), "no operand or property 'axis'"),
    (lambda A, a: a[0:3, 0:4, 1], "3 indices for a rank-2 buffer"),
    (lambda A, a: Tx.select(a, a, 0.0, where=lambda i, j: i < j and j < 3), "with `&`"),
])
def test_misuse_is_reported(call, message):
    with pytest.raises(Tx.ScriptError, match=message):
        with Tx.kernel("k", inputs={"A": Tx.buffer((8, 8))}, outputs={}) as k:
            a = Tx.alloc((8, 8), scope="shared")
            call(k.args[0], a)


def test_builder_errors_point_at_the_callers_line():
    """The ``with`` builder has no AST, yet a shape mismatch is shown at the user's line."""
    import inspect

    with pytest.raises(Tx.ScriptError) as info:
        with Tx.kernel("k", inputs={"A": Tx.buffer((64, 8))}, outputs={}) as k:
            a = Tx.alloc((8, 8), scope="shared")
            Tx.add(a, a, k.args[0])  # the mistake
    err = info.value
    lines, first = inspect.getsourcelines(test_builder_errors_point_at_the_callers_line)
    want = first + [i for i, t in enumerate(lines) if "# the mistake" in t][0]
    assert (err.where.filename, err.where.line) == (__file__, want)
    assert "Tx.add(a, a, k.args[0])" in str(err) and "^" in str(err)


def test_builder_ops_carry_the_callers_line_and_names():
    import inspect

    with Tx.kernel("k", inputs={"A": Tx.buffer((8, 8))}, outputs={}) as k:
        tile = Tx.alloc((8, 8), scope="shared")
        Tx.copy(tile, k.args[0])
    lines, first = inspect.getsourcelines(test_builder_ops_carry_the_callers_line_and_names)
    copy = next(o for o in k.module.walk() if o.name == "tirx.copy")
    assert copy.location.filename.data == __file__
    assert "Tx.copy(tile" in lines[copy.location.line.data - first]
    assert "%tile = tirx.alloc" in str(k.module)


def test_a_dispatch_failure_names_the_builders_line():
    """A later failure (here tile dispatch, inside tirx_mlir.compile) is about the op, and the
    op carries the line of the ``Tx.copy`` call, not of the compile call."""
    import inspect

    import tirx_mlir
    from tirx_mlir.diagnostics import TirxError
    from tirx_mlir.script.locations import located_error

    with Tx.kernel("k", inputs={"A": Tx.buffer((128, 512))},
                   outputs={"B": Tx.buffer((128, 512))}, target="aws/trn1/trn1.2xlarge") as k:
        A, B = k.args
        a = Tx.alloc((128, 512), scope="trn.sbuf")
        Tx.copy(a, A, dispatch="no_such_variant")  # the failing op
        Tx.copy(B, a)
    with pytest.raises(TirxError) as info:
        tirx_mlir.compile(k.module, cache=False)
    lines, first = inspect.getsourcelines(test_a_dispatch_failure_names_the_builders_line)
    want = first + [i for i, t in enumerate(lines) if "# the failing op" in t][0]
    shown = located_error(info.value)
    assert (shown.where.filename, shown.where.line) == (__file__, want)
    assert 'dispatch="no_such_variant")  # the failing op' in str(shown)


def test_cluster_sync_is_bound_to_the_cluster_scope():
    with Tx.kernel("k", inputs={"A": Tx.buffer((64,))}, outputs={"B": Tx.buffer((64,))},
                   threads=[64], grid=[2], cluster=[2]) as k:
        A, B = k.args
        Tx.cluster.cluster_sync()
        Tx.cta.copy(B, A)
    k.module.verify()
    assert "tirx.cluster_sync cluster\n" in str(k.module)


def test_select_lambda_reads_a_loop_variable_as_a_symbol():
    """``where=lambda i, j: i + k * 128 < 300`` in a loop over row tiles: ``k * 128`` is an
    index value, bound as the set's symbol; the tile-level interpreter masks the last tile."""
    import numpy as np

    from tirx_mlir.interpreter import KernelRunner

    with Tx.kernel("ragged", inputs={"X": Tx.buffer((384, 64))},
                   outputs={"Y": Tx.buffer((384, 64))}) as k:
        X, Y = k.args
        s = Tx.alloc((128, 64), scope="shared", name="s")
        with Tx.range(0, 3) as t:
            Tx.copy(s, X[Tx.ds(t * 128, 128), :])
            Tx.select(s, s, -1.0, where=lambda i, j: i + t * 128 < 300)
            Tx.copy(Y[Tx.ds(t * 128, 128), :], s)
    module = k.module
    module.verify()
    op = next(o for o in module.walk() if isinstance(o, SelectOp))
    assert op.where.data.num_symbols == 1 and len(op.symbols) == 1
    text = str(module)
    assert "symbols [" in text and str(parse_module(text)) == text
    x = np.random.default_rng(0).standard_normal((384, 64)).astype(np.float32)
    (y,) = KernelRunner(module)(x)
    expected = np.where(np.arange(384)[:, None] < 300, x, np.float32(-1.0))
    np.testing.assert_array_equal(y, expected)


def test_a_typed_constant_is_a_tile_operand():
    """``Tx.const`` (what ``-t tx`` prints for a constant that is neither index nor f32) is an
    operand of the tile primitives too."""
    from tirx_mlir import script as Tx

    with Tx.kernel("k", inputs={"A": Tx.buffer((8, 8), "f16")},
                   outputs={"B": Tx.buffer((8, 8), "f16")}) as k:
        A, B = k.args
        a = Tx.alloc((8, 8), "f16", scope="shared")
        Tx.cta.copy(a, A)
        Tx.cta.mul(a, a, Tx.const(2.0, "f16"))
        Tx.cta.copy(B, a)
    k.module.verify()
    assert "arith.constant 2.000000e+00 : f16" in str(k.module)


# --- a cta_mask computed at run time (TIRx's config={"cta_mask": expr}) ---------------------------

def _multicast_rows(spelling: str):
    """A 2x2 cluster where each row loads one 64x128 f16 tile with a mask computed from the
    CTA's row (3 << 2y), passed as TIRx does (``config``) or as the operand's keyword."""
    with Tx.kernel("rows", inputs={"A": Tx.buffer((256, 256), "f16")},
                   outputs={"O": Tx.buffer((4, 64, 128), "f16")}, threads=[128], grid=[2, 2],
                   cluster=[2, 2], target="cuda -arch=sm_90a") as k:
        A, O = k.args
        bx, by = Tx.cta_id("x"), Tx.cta_id("y")
        m = 3 << (by * 2)
        s = Tx.alloc((64, 128), "f16", scope="shared")
        how = {"config": {"config": {"cta_mask": m}}, "keyword": {"cta_mask": m}}[spelling]
        Tx.cta.copy_async(s, A[64:128, 64:192], dispatch="tma_auto", **how)
        Tx.cta.copy(O[by * 2 + bx], s)
    return k.module


@pytest.mark.parametrize("spelling", ["config", "keyword"])
def test_a_run_time_cta_mask_becomes_the_copys_operand(spelling):
    """``config={"cta_mask": m}`` with ``m`` computed from the CTA id is the copy's cta_mask
    operand (not a config string); the kernel multicasts: numpy == tile == SIMT after every
    pass of the cuda pipeline, nvcc and ptxas."""
    import numpy as np

    from tirx_testing.cuda_every_stage import check_every_stage

    from tirx_mlir.dialects.tirx.tile_ops import CopyAsyncOp

    module = _multicast_rows(spelling)
    (copy,) = [op for op in module.walk() if isinstance(op, CopyAsyncOp)]
    assert copy.cta_mask is not None and "cta_mask" not in copy.config_dict()
    final = check_every_stage(str(module), lambda a: [np.stack([a[64:128, 64:192]] * 4)],
                              arch="sm_90a", name="rows")
    assert any(op.name == "ptx.cp_async_bulk_tensor_g2s_multicast" for op in final.walk())


def test_a_run_time_config_value_without_such_an_operand_is_an_error():
    with pytest.raises(Tx.ScriptError, match=r"Tx.copy: config 'vec_len' is a value computed "
                                             r"at run time; config takes constants"):
        with Tx.kernel("k", inputs={"A": Tx.buffer((64,))}, outputs={"B": Tx.buffer((64,))},
                       threads=[64]) as k:
            A, B = k.args
            Tx.cta.copy(B, A, config={"vec_len": Tx.cta_id("x") + 1})


def test_a_cta_mask_given_twice_is_an_error():
    with pytest.raises(Tx.ScriptError, match="cta_mask given both as config and as a keyword"):
        with Tx.kernel("k", inputs={"A": Tx.buffer((64, 64), "f16")},
                       outputs={"B": Tx.buffer((64, 64), "f16")}, threads=[128], grid=[2],
                       cluster=[2]) as k:
            A, B = k.args
            m = Tx.cta_id("x") + 3
            s = Tx.alloc((64, 64), "f16", scope="shared")
            Tx.cta.copy_async(s, A, config={"cta_mask": m}, cta_mask=m)
