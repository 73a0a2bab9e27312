"""gemm and gemm_async against numpy: dtypes (f32 accumulation of f16/bf16/fp8), transposes,
alpha/beta, optional C, K-major B, accum and block scale factors."""

import numpy as np
import pytest

import tirx_testing.interp as tx
from tirx_testing.interp import NP, assert_same, buf, kernel, run, sample

M, N, K = 8, 16, 32


def _shape(rows, cols, transposed):
    return (cols, rows) if transposed else (rows, cols)


def _spec(shape, dt):
    return "x".join(map(str, shape)) + f"x{dt}"


@pytest.mark.parametrize("dt,acc", [("f16", "f32"), ("bf16", "f32"), ("f32", "f32"),
                                    ("f64", "f64"), ("f8E4M3FN", "f32"), ("f8E5M2", "bf16"),
                                    ("i8", "i32")])
@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
def test_gemm_dtypes_and_transposes(dt, acc, ta, tb, rng):
    a_shape, b_shape = _shape(M, K, ta), _shape(K, N, tb)
    a, b = sample(dt, a_shape, rng), sample(dt, b_shape, rng)
    flags = (" transpose_a" if ta else "") + (" transpose_b" if tb else "")
    body = (f"  tirx.gemm %d, %a, %b{flags} : {buf(_spec((M, N), acc))}, "
            f"{buf(_spec(a_shape, dt))}, {buf(_spec(b_shape, dt))}")
    (d,) = run(kernel([("a", _spec(a_shape, dt)), ("b", _spec(b_shape, dt))],
                      [("d", _spec((M, N), acc))], body), a, b)
    cdt = tx.compute_dtype(dt, acc)
    ref = ((a.T if ta else a).astype(cdt) @ (b.T if tb else b).astype(cdt)).astype(NP[acc])
    if acc in ("i32",):
        assert_same(d, ref)
    else:
        np.testing.assert_allclose(d.astype(np.float64), ref.astype(np.float64),
                                   rtol=1e-5 if acc != "bf16" else 1e-2)


def test_gemm_alpha_beta_with_c(rng):
    a, b, c = sample("f16", (M, K), rng), sample("f16", (N, K), rng), sample("f32", (M, N), rng)
    body = (f"  tirx.gemm %d, %a, %b c %c transpose_b alpha 0.5 beta 2.0 : {buf(_spec((M, N), 'f32'))}, "
            f"{buf(_spec((M, K), 'f16'))}, {buf(_spec((N, K), 'f16'))}, {buf(_spec((M, N), 'f32'))}")
    (d,) = run(kernel([("a", _spec((M, K), "f16")), ("b", _spec((N, K), "f16")),
                       ("c", _spec((M, N), "f32"))], [("d", _spec((M, N), "f32"))], body), a, b, c)
    ref = 0.5 * (a.astype(np.float32) @ b.astype(np.float32).T) + 2.0 * c
    np.testing.assert_allclose(d, ref, rtol=1e-5)


def test_gemm_beta_zero_ignores_uninitialized_d_and_beta_one_accumulates(rng):
    a, b = sample("f32", (M, K), rng), sample("f32", (K, N), rng)
    d_t, a_t, b_t = buf(_spec((M, N), "f32")), buf(_spec((M, K), "f32")), buf(_spec((K, N), "f32"))
    body = (f"  tirx.gemm %d, %a, %b : {d_t}, {a_t}, {b_t}\n"          # d is NaN before: ignored
            f"  tirx.gemm %d, %a, %b beta 1.0 : {d_t}, {a_t}, {b_t}")  # d += a @ b
    (d,) = run(kernel([("a", _spec((M, K), "f32")), ("b", _spec((K, N), "f32"))],
                      [("d", _spec((M, N), "f32"))], body), a, b)
    np.testing.assert_allclose(d, 2 * (a @ b), rtol=1e-5)


def test_gemm_reads_nan_when_beta_needs_uninitialized_c(rng):
    a, b = sample("f32", (M, K), rng), sample("f32", (K, N), rng)
    body = (f"  tirx.gemm %d, %a, %b beta 1.0 : {buf(_spec((M, N), 'f32'))}, "
            f"{buf(_spec((M, K), 'f32'))}, {buf(_spec((K, N), 'f32'))}")
    (d,) = run(kernel([("a", _spec((M, K), "f32")), ("b", _spec((K, N), "f32"))],
                      [("d", _spec((M, N), "f32"))], body), a, b)
    assert np.isnan(d).all()


@pytest.mark.parametrize("ta,tb", [(False, False), (True, False), (False, True), (True, True)])
def test_gemm_async_k_major_b_and_accum(ta, tb, rng):
    a_shape = _shape(M, K, ta)
    b_shape = (K, N) if tb else (N, K)  # B is K-major [N, K] unless transposed
    a, b = sample("bf16", a_shape, rng), sample("bf16", b_shape, rng)
    c0 = sample("f32", (M, N), rng)
    flags = (" transpose_a" if ta else "") + (" transpose_b" if tb else "")
    body = (f"  tirx.gemm_async %c, %a, %b{flags} accum : {buf(_spec((M, N), 'f32'))}, "
            f"{buf(_spec(a_shape, 'bf16'))}, {buf(_spec(b_shape, 'bf16'))}")
    c = c0.copy()
    run(kernel([("a", _spec(a_shape, "bf16")), ("b", _spec(b_shape, "bf16"))],
               [("c", _spec((M, N), "f32"))], body), a, b, c)
    a_mk = (a.T if ta else a).astype(np.float32)
    b_kn = (b if tb else b.T).astype(np.float32)
    np.testing.assert_allclose(c, c0 + a_mk @ b_kn, rtol=1e-5)


def test_gemm_async_without_accum_overwrites(rng):
    a, b = sample("f16", (M, K), rng), sample("f16", (N, K), rng)
    body = (f"  tirx.gemm_async %c, %a, %b : {buf(_spec((M, N), 'f32'))}, "
            f"{buf(_spec((M, K), 'f16'))}, {buf(_spec((N, K), 'f16'))}")
    (c,) = run(kernel([("a", _spec((M, K), "f16")), ("b", _spec((N, K), "f16"))],
                      [("c", _spec((M, N), "f32"))], body), a, b)
    np.testing.assert_allclose(c, a.astype(np.float32) @ b.astype(np.float32).T, rtol=1e-5)


def test_gemm_async_block_scale_factors(rng):
    a, b = sample("f8E4M3FN", (M, K), rng), sample("f8E4M3FN", (N, K), rng)
    sfa = np.exp2(rng.integers(-2, 3, (M, K // 16))).astype(np.float32)  # one factor per 16 of K
    sfb = np.exp2(rng.integers(-2, 3, (N, K // 16))).astype(np.float32)
    body = (f"  tirx.gemm_async %c, %a, %b sfa %sa sfb %sb : {buf(_spec((M, N), 'f32'))}, "
            f"{buf(_spec((M, K), 'f8E4M3FN'))}, {buf(_spec((N, K), 'f8E4M3FN'))}, "
            f"{buf(_spec((M, K // 16), 'f32'))}, {buf(_spec((N, K // 16), 'f32'))}")
    (c,) = run(kernel([("a", _spec((M, K), "f8E4M3FN")), ("b", _spec((N, K), "f8E4M3FN")),
                       ("sa", _spec((M, K // 16), "f32")), ("sb", _spec((N, K // 16), "f32"))],
                      [("c", _spec((M, N), "f32"))], body), a, b, sfa, sfb)
    a_scaled = a.astype(np.float32) * np.repeat(sfa, 16, axis=1)
    b_scaled = b.astype(np.float32) * np.repeat(sfb, 16, axis=1)
    np.testing.assert_allclose(c, a_scaled @ b_scaled.T, rtol=1e-5)


def test_gemm_async_rejects_scale_factors_that_do_not_tile_k(rng):
    from tirx_mlir.interpreter import InterpretError

    a, b = sample("f16", (M, K), rng), sample("f16", (N, K), rng)
    sfa, sfb = np.ones((M, 5), np.float32), np.ones((N, 5), np.float32)
    body = (f"  tirx.gemm_async %c, %a, %b sfa %sa sfb %sb : {buf(_spec((M, N), 'f32'))}, "
            f"{buf(_spec((M, K), 'f16'))}, {buf(_spec((N, K), 'f16'))}, "
            f"{buf(_spec((M, 5), 'f32'))}, {buf(_spec((N, 5), 'f32'))}")
    text = kernel([("a", _spec((M, K), "f16")), ("b", _spec((N, K), "f16")),
                   ("sa", _spec((M, 5), "f32")), ("sb", _spec((N, 5), "f32"))],
                  [("c", _spec((M, N), "f32"))], body)
    with pytest.raises(InterpretError, match=r"k\.mlir:2:3: error: tirx\.gemm_async: scale factors sfa"):
        run(text, a, b, sfa, sfb)
