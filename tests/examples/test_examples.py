"""Every example in examples/ against numpy, through the Python API and through tirx-run."""

import os
import subprocess
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from tirx_mlir.interpreter import interpret
from tirx_mlir.tools import tirx_run

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
BF16, F8 = np.dtype(ml_dtypes.bfloat16), np.dtype(ml_dtypes.float8_e4m3fn)


def f32(x):
    return np.asarray(x).astype(np.float32)


def _normal(rng, shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(np.float32).astype(dtype)


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def add(rng):
    a, b = _normal(rng, (512, 256), np.float16), _normal(rng, (512, 256), np.float16)
    return "add", [a, b], [(f32(a) + f32(b)).astype(np.float16)], 0


def bias_broadcast(rng):
    x, s, b = _normal(rng, (256, 128)), _normal(rng, (256, 1)), _normal(rng, (1, 128))
    return "bias_relu", [x, s, b], [np.maximum(x * s + b, 0)], 0


def row_reduce(rng):
    x = _normal(rng, (256, 512))
    return "row_sum_max", [x], [x[:, :256].sum(1) + x[:, 256:].sum(1), x.max(1)], 1e-6


def softmax(rng):
    x = _normal(rng, (512, 256))
    return "softmax", [x], [_softmax(x)], 1e-6


def rmsnorm(rng):
    x, g = _normal(rng, (256, 512), BF16), _normal(rng, (1, 512), BF16)
    xf = f32(x)
    ss = (xf * xf).sum(1, keepdims=True)
    r = 1 / np.sqrt(ss * np.float32(1 / 512) + np.float32(1e-6))
    return "rmsnorm", [x, g], [(xf * r * f32(g)).astype(BF16)], 8e-3


def gemm_f16(rng):
    a, b = _normal(rng, (256, 128), np.float16), _normal(rng, (128, 256), np.float16)
    return "gemm", [a, b], [f32(a) @ f32(b)], 1e-5


def linear_bf16(rng):
    x, w, b = _normal(rng, (128, 256), BF16), _normal(rng, (256, 256), BF16), \
        _normal(rng, (1, 256), BF16)
    return "linear", [x, w, b], [(f32(x) @ f32(w).T + f32(b)).astype(BF16)], 8e-3


def copy_scopes(rng):
    x = _normal(rng, (64, 128))
    return "exp_through_scopes", [x], [np.exp(x)], 0


def causal_softmax(rng):
    s = _normal(rng, (4, 64, 64))
    causal = np.tril(np.ones((64, 64), bool))
    return "causal_softmax", [s], [_softmax(np.where(causal, s, np.float32(-1e30)))], 1e-6


def swiglu_fp8(rng):
    g, u = _normal(rng, (256, 256), BF16), _normal(rng, (256, 256), BF16)
    gate = (f32(g) / (1 + np.exp(-f32(g)))).astype(BF16)
    y = (f32(gate) * f32(u)).astype(BF16)
    return "swiglu_fp8", [g, u], [y, (f32(y) * np.float32(16)).astype(F8)], 0


CASES = [add, bias_broadcast, row_reduce, softmax, rmsnorm, gemm_f16, linear_bf16, copy_scopes,
         causal_softmax, swiglu_fp8]


def _check(actual, expected, rtol):
    assert actual.dtype == expected.dtype and actual.shape == expected.shape
    assert not np.isnan(actual.astype(np.float64)).any(), "the kernel left elements unwritten"
    np.testing.assert_allclose(actual.astype(np.float64), expected.astype(np.float64),
                               rtol=rtol, atol=rtol)


def test_every_example_has_a_test():
    tested = {case.__name__ for case in CASES}
    assert {p.stem for p in EXAMPLES.glob("*.mlir")} == tested


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.__name__)
def test_example_through_python_api(case):
    name, inputs, expected, rtol = case(np.random.default_rng(0))
    path = EXAMPLES / f"{case.__name__}.mlir"
    outputs = interpret(path.read_text(), name, *inputs, name=str(path))
    outputs = outputs if isinstance(outputs, tuple) else (outputs,)
    for actual, want in zip(outputs, expected, strict=True):
        _check(actual, want, rtol)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.__name__)
def test_example_through_tirx_run(case, tmp_path, capsys):
    name, inputs, expected, rtol = case(np.random.default_rng(1))
    files = []
    for i, arr in enumerate(inputs):
        files.append(str(tmp_path / f"in{i}.npy"))
        np.save(files[-1], arr)
    out_dir = tmp_path / "out"
    rc = tirx_run.main([str(EXAMPLES / f"{case.__name__}.mlir"), "--entry", name,
                        "--inputs", *files, "--save", str(out_dir)])
    captured = capsys.readouterr()
    assert rc == 0, captured.err
    lines = captured.out.strip().splitlines()
    assert len(lines) == len(expected)
    saved = sorted(out_dir.glob("*.npy"))
    assert len(saved) == len(inputs) + len(expected)
    for line, want in zip(lines, expected):
        out_name = line.split(":")[0].lstrip("%")
        assert line.endswith(" 0")  # no NaN / poison
        saved_out = np.load(out_dir / f"{out_name}.npy")
        if saved_out.dtype.kind == "V":  # .npy keeps bf16/fp8 as raw records
            saved_out = saved_out.view(want.dtype)
        _check(saved_out, want, rtol)


def test_tirx_run_console_script_on_random_inputs_and_on_errors(tmp_path):
    exe = Path(sys.executable).with_name("tirx-run")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "tirx_mlir.tools.tirx_run"]
    ok = subprocess.run([*cmd, str(EXAMPLES / "softmax.mlir"), "--seed", "3"],
                        capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.startswith("%Y: [512, 256] f32  min ") and ok.stdout.rstrip().endswith("nan 0")
    bad = tmp_path / "oob.mlir"
    bad.write_text((EXAMPLES / "softmax.mlir").read_text().replace("grid [4]", "grid [5]"))
    err = subprocess.run([*cmd, str(bad)], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "TIRX_MLIR_DEBUG": ""})
    assert err.returncode == 1
    assert f"{bad}:11:" in err.stderr and "'tirx.slice' op dim 0" in err.stderr
    assert "Traceback" not in err.stderr
