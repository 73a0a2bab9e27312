"""``@Tx.kernel``: what the parser builds from a Python function, specialisation, calling."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from xdsl.dialects import scf
from xdsl.dialects.builtin import FileLineColLoc, ModuleOp

from tirx_mlir import script as Tx
from tirx_mlir.dialects.tirx import SliceOp
from tirx_mlir.dialects.tirx.tile_base import TileOp

TRN = "aws/trn1/trn1.2xlarge"
SCALE = 3.0  # a captured constant


@Tx.kernel(grid=(4,), threads=(128,))
def branchy(X: Tx.Buffer[(512, 64), "f32"], Y: Tx.Out[(512, 64), "f32"]):
    c = Tx.cta_id()
    t = Tx.alloc((128, 64), scope="shared")
    Tx.cta.copy(t, X[c * 128:(c + 1) * 128, :])
    if c < 2:
        Tx.cta.add(t, t, 1.0)
    else:
        Tx.cta.mul(t, t, SCALE)
    if c == 3:
        Tx.cta.add(t, t, 100.0)
    for j in Tx.unroll(2):
        Tx.cta.add(t, t, 10.0 * (j + 1))
    Tx.cta.copy(Y[c * 128:(c + 1) * 128, :], t)


def test_if_else_on_a_scope_id_and_unrolled_loops():
    ops = list(branchy.ir.walk())
    assert sum(isinstance(o, scf.IfOp) for o in ops) == 2
    assert not any(isinstance(o, scf.ForOp) for o in ops)  # Tx.unroll repeats the body
    x = np.ones((512, 64), np.float32)
    y = branchy.interpret(x)
    assert list(y[::128, 0]) == [32.0, 32.0, 33.0, 133.0]


def test_every_op_carries_its_python_line():
    lines, first = inspect.getsourcelines(branchy.fn)
    body = range(first, first + len(lines))
    for op in branchy.ir.walk():
        if isinstance(op, ModuleOp):
            continue
        assert isinstance(op.location, FileLineColLoc), op.name
        assert op.location.filename.data == __file__ and op.location.line.data in body
    adds = [o for o in branchy.ir.walk() if o.name == "tirx.add"]
    text = [lines[o.location.line.data - first].strip() for o in adds]
    assert text == ["Tx.cta.add(t, t, 1.0)", "Tx.cta.add(t, t, 100.0)",
                    "Tx.cta.add(t, t, 10.0 * (j + 1))", "Tx.cta.add(t, t, 10.0 * (j + 1))"]


def test_locations_survive_the_pipeline():
    """The ops dispatch makes from a tile op keep the Python line of that op."""
    lowered = add_one.compile(cache=False).lowered  # (a disk-cache hit re-parses the text)
    lines, first = inspect.getsourcelines(add_one.fn)
    add_line = first + [i for i, t in enumerate(lines) if "Tx.add(" in t][0]
    nki = [o for o in lowered.walk() if o.name.startswith("nki.")]
    assert nki and any(isinstance(o.location, FileLineColLoc) and o.location.line.data == add_line
                       for o in nki)


@Tx.kernel(grid=lambda M: (M // 128,), threads=(128,))
def scaled(M: Tx.constexpr, X: "Tx.Buffer[(M, 64), 'f32']", Y: "Tx.Out[(M, 64), 'f32']"):
    c = Tx.cta_id("x")
    t = Tx.alloc((128, 64), scope="shared")
    Tx.cta.copy(t, X[Tx.ds(c * 128, 128), :])
    Tx.cta.mul(t, t, float(M))
    Tx.cta.copy(Y[Tx.ds(c * 128, 128), :], t)


def test_constexpr_specialises_and_caches():
    a, b = scaled.specialize(M=256), scaled.specialize(M=512)
    assert a is scaled.specialize(M=256) and a is not b
    assert "grid [2]" in str(a) and "grid [4]" in str(b) and "512x64xf32" in str(b)
    x = np.ones((256, 64), np.float32)
    np.testing.assert_array_equal(scaled.interpret(256, x), np.full((256, 64), 256.0))
    np.testing.assert_array_equal(scaled.interpret(X=x, M=256), np.full((256, 64), 256.0))
    with pytest.raises(Tx.SourceError, match="missing constexpr M"):
        scaled.ir


@Tx.kernel(target=TRN)
def add_one(A: Tx.Buffer[(128, 512), "f32"], B: Tx.Out[(128, 512), "f32"]):
    a = Tx.alloc((128, 512), scope="trn.sbuf")
    Tx.copy(a, A, dispatch="default", config={"note": "x"})
    Tx.add(a, a, 1.0)
    Tx.copy(B, a)


def test_calling_compiles_for_the_target_and_runs():
    x = np.arange(128 * 512, dtype=np.float32).reshape(128, 512)
    np.testing.assert_array_equal(add_one(x), x + 1)        # tirx_mlir.compile + run
    np.testing.assert_array_equal(add_one(A=x), x + 1)      # by name
    np.testing.assert_array_equal(add_one.interpret(x), x + 1)
    art = add_one.compile()
    assert art is add_one.compile() and "nki" in art.source
    assert 'dispatch = "default"' in str(add_one.ir) or 'dispatch "default"' in str(add_one.ir)


def test_backend_namespace_ops():
    @Tx.kernel(target=TRN)
    def nki_add(A: Tx.Buffer[(128, 512), "f32"], B: Tx.Out[(128, 512), "f32"]):
        a = Tx.alloc((128, 512), scope="trn.sbuf")
        Tx.nki.load(a, A)
        Tx.nki.tensor_scalar(a, a, 1.0, op0="add")
        Tx.nki.store(B, a)

    x = np.ones((128, 512), np.float32)
    np.testing.assert_array_equal(nki_add.interpret(x), x + 1)
    assert "nki.tensor_scalar" in str(nki_add.ir)


def test_loops_slices_and_call_site_scopes():
    @Tx.kernel(threads=(128,))
    def tiles(X: Tx.Buffer[(256, 64), "f32"], Y: Tx.Out[(256, 64), "f32"]):
        t = Tx.alloc((32, 64), scope="shared")
        for i in Tx.serial(0, 256 // 32):
            Tx.cta.copy(t, X[i * 32:(i + 1) * 32, :])
            Tx.cta.add(t, t, i * 1.0 if False else 2.0)
            Tx.cta.copy(Y[i * 32:i * 32 + 32, :], t)

    text = str(tiles.ir)
    assert "scf.for" in text and "tirx.copy cta" in text and "tirx.add cta" in text
    assert all(o.sizes() == (32, 64) for o in tiles.ir.walk() if isinstance(o, SliceOp))
    x = np.random.default_rng(0).standard_normal((256, 64)).astype(np.float32)
    np.testing.assert_allclose(tiles.interpret(x), x + 2.0)


def test_names_follow_python_variables():
    text = str(add_one.ir)
    assert "%a = tirx.alloc" in text and "%A: !tirx.buffer" in text


def test_the_builder_and_the_parser_build_the_same_ops():
    """One definition: the parsed kernel is the builder's kernel, op for op."""
    with Tx.kernel("add_one", inputs={"A": Tx.buffer((128, 512))},
                   outputs={"B": Tx.buffer((128, 512))}, target=TRN) as k:
        A, B = k.args
        a = Tx.alloc((128, 512), scope="trn.sbuf", name="a")
        Tx.copy(a, A, dispatch="default", config={"note": "x"})
        Tx.add(a, a, 1.0)
        Tx.copy(B, a)
    assert str(k.module) == str(add_one.ir)


def test_tile_ops_of_the_parser_are_verified_like_the_builders():
    assert all(isinstance(o, TileOp) for o in add_one.ir.walk() if o.name.startswith("tirx.")
               and o.name not in ("tirx.kernel", "tirx.alloc", "tirx.return"))


def test_value_style_allocates_like_the_source():
    @Tx.kernel(threads=(128,))
    def values(X: Tx.Buffer[(64, 32), "f32"], B: Tx.Buffer[(1, 32), "f32"],
               Y: Tx.Out[(64, 32), "f32"], S: Tx.Out[(64, 1), "f32"]):
        x = Tx.alloc((64, 32), scope="shared")
        b = Tx.alloc((1, 32), scope="shared")
        Tx.cta.copy(x, X)
        Tx.cta.copy(b, B)
        y = Tx.cta.exp(Tx.cta.add(x, b))     # temporaries need no declaration
        s = Tx.cta.sum(y, axes=[-1])
        Tx.cta.copy(Y, y)
        Tx.cta.copy(S, s)

    text = str(values.ir)
    assert "%y = tirx.alloc : !tirx.buffer<64x32xf32, shared>" in text
    assert "%s = tirx.alloc : !tirx.buffer<64x1xf32, shared>" in text
    rng = np.random.default_rng(0)
    x = rng.standard_normal((64, 32)).astype(np.float32)
    b = rng.standard_normal((1, 32)).astype(np.float32)
    y, s = values.interpret(x, b)
    np.testing.assert_allclose(y, np.exp(x + b), rtol=1e-6)
    np.testing.assert_allclose(s, np.exp(x + b).sum(axis=1, keepdims=True), rtol=1e-5)


def test_value_style_refuses_a_global_source():
    @Tx.kernel(threads=(128,))
    def bad(X: Tx.Buffer[(64, 32), "f32"]):
        y = Tx.cta.exp(X)

    with pytest.raises(Tx.SourceError, match="global memory"):
        bad.ir


@Tx.kernel
def bare(X: Tx.Buffer[(4, 4), "f32"], Y: Tx.Out[(4, 4), "f32"]):
    t = Tx.alloc((4, 4), scope="local")
    Tx.copy(t, X)
    Tx.copy(Y, t)


def test_the_decorator_without_arguments():
    assert isinstance(bare, Tx.Kernel) and bare.target is None
    x = np.arange(16, dtype=np.float32).reshape(4, 4)
    np.testing.assert_array_equal(bare.interpret(x), x)
    with pytest.raises(Tx.SourceError, match="has no target"):
        bare(x)


def test_run_time_conditions_combine():
    @Tx.kernel(grid=(4,), threads=(128,))
    def conds(X: Tx.Buffer[(4, 8), "f32"], Y: Tx.Out[(4, 8), "f32"]):
        c = Tx.cta_id()
        t = Tx.alloc((1, 8), scope="shared")
        Tx.cta.copy(t, X[c, :])
        if not c:
            Tx.cta.add(t, t, 1.0)
        if c > 0 and c % 2 == 1:
            Tx.cta.add(t, t, 10.0)
        if c == 2 or c == 3:
            Tx.cta.add(t, t, 100.0)
        Tx.cta.copy(Y[c, :], t)

    y = conds.interpret(np.zeros((4, 8), np.float32))
    assert list(y[:, 0]) == [1.0, 10.0, 100.0, 110.0]


def test_constexpr_defaults():
    @Tx.kernel(threads=(128,))
    def filled(Y: "Tx.Out[(8, 8), 'f32']", V: Tx.constexpr = 3):
        t = Tx.alloc((8, 8), scope="shared")
        Tx.cta.fill(t, float(V))
        Tx.cta.copy(Y, t)

    assert (filled.interpret() == 3.0).all()
    assert (filled.interpret(V=5) == 5.0).all()


def test_keyword_only_constexpr_defaults():
    @Tx.kernel(threads=(128,))
    def filled(Y: "Tx.Out[(8, 8), 'f32']", *, V: Tx.constexpr = 3):
        t = Tx.alloc((8, 8), scope="shared")
        Tx.cta.fill(t, float(V))
        Tx.cta.copy(Y, t)

    assert (filled.interpret() == 3.0).all()
    assert (filled.interpret(V=5) == 5.0).all()


def test_and_or_short_circuit_at_parse_time():
    """``len(dims) > 2 and dims[2] == 1`` must not evaluate ``dims[2]`` for two dims, as in
    Python; an ``or`` stops at its first true value."""
    dims = (8, 8)

    @Tx.kernel(threads=(128,))
    def filled(Y: "Tx.Out[(8, 8), 'f32']"):
        t = Tx.alloc((8, 8), scope="shared")
        if len(dims) > 2 and dims[2] == 1:
            Tx.cta.fill(t, 1.0)
        elif len(dims) == 2 or dims[5] == 0:
            Tx.cta.fill(t, 2.0)
        Tx.cta.copy(Y, t)

    assert (filled.interpret() == 2.0).all()


def test_a_type_parsed_in_a_fresh_process_adds_no_op(tmp_path):
    """``result_types=[...]`` parses a type, which imports the located parser on first use;
    that import makes an op, which must not land in the kernel being built."""
    import subprocess
    import sys

    script = tmp_path / "fresh.py"
    script.write_text(
        "from tirx_mlir import script as Tx\n\n\n"
        "@Tx.kernel(target='cuda -arch=sm_80', threads=(32,))\n"
        "def k(X: Tx.Buffer[(32,), 'f32']):\n"
        "    s = Tx.cuda.shared_alloc(result_types=['!tirx.buffer<32xf32, shared>'])\n\n\n"
        "print(k.ir)\n")
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=300, check=True)
    assert "cuda.shared_alloc" in run.stdout and "unrealized_conversion_cast" not in run.stdout


@Tx.kernel(grid=(2, 2), threads=(128,), cluster=(2, 2), target="cuda -arch=sm_90a")
def multicast_rows(A: Tx.Buffer[(256, 256), "f16"], O: Tx.Out[(4, 64, 128), "f16"]):
    bx = Tx.cta_id("x")
    by = Tx.cta_id("y")
    m = 3 << (by * 2)
    s = Tx.alloc((64, 128), "f16", scope="shared")
    Tx.cta.copy_async(s, A[64:128, 64:192], dispatch="tma_auto", config={"cta_mask": m})
    Tx.cta.copy(O[by * 2 + bx], s)


def test_a_run_time_cta_mask_in_config_is_the_copys_operand():
    """TIRx's ``config={"cta_mask": expr}`` with an expression of the CTA id: the copy's
    cta_mask operand (the value ``m``), which the script printer writes back as ``cta_mask=m``."""
    from tirx_mlir.dialects.tirx.tile_ops import CopyAsyncOp
    from tirx_mlir.script.to_script import module_to_script

    module = multicast_rows.specialize()
    (copy,) = [op for op in module.walk() if isinstance(op, CopyAsyncOp)]
    assert copy.cta_mask is not None and copy.cta_mask.owner.name == "arith.shli"
    assert copy.config is None
    assert 'Tx.cta.copy_async(s, v_1, cta_mask=m, dispatch="tma_auto")' in module_to_script(module)
