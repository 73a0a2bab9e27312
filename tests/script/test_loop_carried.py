"""Loop-carried values of ``@Tx.kernel`` (`tirx_mlir.script.loop_carried`): names reassigned in
a ``for`` body are the ``scf.for``'s iter_args and results; ``-t tx`` prints them back so."""

from __future__ import annotations

import ast
import importlib.util

import numpy as np
from xdsl.dialects import scf

from tirx_mlir import script as Tx
from tirx_mlir.script.loop_carried import assigned_names
from tirx_mlir.script.to_script import module_to_script
from tirx_testing.ir_structure import structural_diff

SM80 = "cuda -arch=sm_80"


@Tx.kernel(target=SM80, threads=(32,))
def running_sums(X: Tx.Buffer[(128,), "f32"], Y: Tx.Out[(64,), "f32"]):
    t = Tx.cuda.thread_idx("x")
    pair = [Tx.const(0.0, "f32"), Tx.const(0.0, "f32")]
    count = Tx.const(0, "i32")
    for k in range(4):
        x = Tx.cuda.load(X, k * 32 + t)
        pair = [pair[0] + x, pair[1] + x * x]
        count = count + 1
    Tx.cuda.store(Y, t, pair[0])
    Tx.cuda.store(Y, t + 32, pair[1])


def test_the_reassigned_names_are_carried_in_order():
    (loop,) = [op for op in running_sums.ir.walk() if isinstance(op, scf.ForOp)]
    assert [str(v.type) for v in loop.iter_args] == ["f32", "f32", "i32"]
    assert len(loop.results) == 3


def test_the_carried_values_compute_the_sums():
    x = np.random.default_rng(0).integers(-4, 5, 128).astype(np.float32)
    y = running_sums.interpret(x)
    rows = x.reshape(4, 32)
    np.testing.assert_array_equal(y, np.concatenate([rows.sum(0), (rows * rows).sum(0)]))


def test_to_script_prints_them_back(tmp_path):
    path = tmp_path / "printed.py"
    path.write_text(module_to_script(running_sums.ir))
    spec = importlib.util.spec_from_file_location("printed", path)
    printed = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(printed)
    assert structural_diff(printed.running_sums.ir, running_sums.ir) is None


def test_assigned_names_skip_loop_and_comprehension_variables():
    body = ast.parse("a = 1\nfor i in r:\n    b = [j for j in q]\n    a += 1\nc = lambda z: z").body
    assert assigned_names(body) == ["a", "b", "c"]
