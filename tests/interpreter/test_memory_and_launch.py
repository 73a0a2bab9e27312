"""Memory rules and launches: fresh memory is NaN/poison, stores round, slices are views,
out-of-bounds accesses and scope misuse raise located errors, CTAs run with their ids, and
arguments are checked."""

import ml_dtypes
import numpy as np
import pytest

from tirx_testing.interp import NP, assert_same, buf, kernel, run, sample
from tirx_mlir.interpreter import InterpretError, interpret, runtime

# --- fresh memory -------------------------------------------------------------------------------


@pytest.mark.parametrize("dt", ["f16", "bf16", "f32", "f64", "f8E4M3FN", "f8E5M2", "i8", "i32",
                                "ui8", "ui32", "i1"])
def test_uninitialized_reads_are_nan_or_poison(dt):
    body = (f"  %t = tirx.alloc : !tirx.buffer<4x4x{dt}, shared>\n"
            f"  tirx.copy %o, %t : {buf(f'4x4x{dt}')}, !tirx.buffer<4x4x{dt}, shared>")
    o, untouched = run(kernel([], [("o", f"4x4x{dt}"), ("u", f"4x4x{dt}")], body))
    for arr in (o, untouched):  # read-before-write, and an output the kernel never writes
        assert runtime.poisoned(arr).all()
    if dt in ("i8", "i32"):
        assert (o == np.iinfo(NP[dt]).min).all()
    if dt in ("ui8", "ui32"):
        assert (o == np.iinfo(NP[dt]).max).all()


def test_nan_from_a_partial_write_shows_in_a_reduction(rng):
    x = sample("f32", (4, 8), rng)
    body = (f"  %t = tirx.alloc : !tirx.buffer<4x8xf32, shared>\n"
            f"  %h = tirx.slice %t[0, 0] [4, 4] : !tirx.buffer<4x8xf32, shared> -> !tirx.buffer<4x4xf32, shared>\n"
            f"  %xh = tirx.slice %x[0, 0] [4, 4] : {buf('4x8xf32')} -> {buf('4x4xf32')}\n"
            f"  tirx.copy %h, %xh : !tirx.buffer<4x4xf32, shared>, {buf('4x4xf32')}\n"
            f"  tirx.sum %s, %t : {buf('4xf32')}, !tirx.buffer<4x8xf32, shared>")
    (s,) = run(kernel([("x", "4x8xf32")], [("s", "4xf32")], body), x)
    assert np.isnan(s).all()


def test_passed_outputs_are_written_in_place_and_inputs_are_never_written(rng):
    x = sample("f32", (2, 4), rng)
    x_before = x.copy()
    out = np.full((2, 8), 7.0, np.float32)
    body = (f"  %l = tirx.slice %o[0, 0] [2, 4] : {buf('2x8xf32')} -> {buf('2x4xf32')}\n"
            f"  tirx.copy %l, %x : {buf('2x4xf32')}, {buf('2x4xf32')}\n"
            f"  tirx.zero %x : {buf('2x4xf32')}")
    (o,) = run(kernel([("x", "2x4xf32")], [("o", "2x8xf32")], body), x, out)
    assert o is out
    assert_same(out[:, :4], x_before)
    assert (out[:, 4:] == 7.0).all()
    assert_same(x, x_before)


# --- rounding on store --------------------------------------------------------------------------


def test_every_store_rounds_to_nearest_even():
    # bf16 spacing at 1 is 2^-7: 1 + 2^-8 ties to 1 (even), 1 + 3*2^-8 ties up to 1 + 2^-6
    x = np.array([1 + 2 ** -8, 1 + 3 * 2 ** -8, 1 + 2 ** -9, 65504 * 2.0], np.float32)
    body = (f"  tirx.copy %b, %x : {buf('4xbf16')}, {buf('4xf32')}\n"
            f"  tirx.add %h, %x, %x : {buf('4xf16')}, {buf('4xf32')}, {buf('4xf32')}")
    b, h = run(kernel([("x", "4xf32")], [("b", "4xbf16"), ("h", "4xf16")], body), x)
    assert b.astype(np.float32).tolist()[:3] == [1.0, 1 + 2 ** -6, 1.0]
    assert np.isinf(h[3]) and h[0] == np.float16(2 * (1 + 2 ** -8))


def test_fp8_stores_follow_ml_dtypes_overflow_rules():
    x = np.array([448.0, 449.0, 470.0, 1e6, -1e6], np.float32)
    body = (f"  tirx.copy %a, %x : {buf('5xf8E4M3FN')}, {buf('5xf32')}\n"
            f"  tirx.copy %b, %x : {buf('5xf8E5M2')}, {buf('5xf32')}")
    a, b = run(kernel([("x", "5xf32")], [("a", "5xf8E4M3FN"), ("b", "5xf8E5M2")], body), x)
    assert a.astype(np.float32)[:2].tolist() == [448.0, 448.0]
    assert np.isnan(a.astype(np.float32)[2:]).all()  # e4m3fn has no inf: overflow is NaN
    assert b.astype(np.float32)[3] == np.inf and b.astype(np.float32)[4] == -np.inf


def test_integer_stores_wrap():
    x = np.array([100, 200, -200, 127], np.int32)
    body = f"  tirx.add %o, %x, %x : {buf('4xi8')}, {buf('4xi32')}, {buf('4xi32')}"
    (o,) = run(kernel([("x", "4xi32")], [("o", "4xi8")], body), x)
    assert o.tolist() == [-56, -112, 112, -2]


# --- slices, loads and stores -------------------------------------------------------------------


def test_strided_and_nested_slices_are_views(rng):
    x = sample("f32", (8, 8), rng)
    body = (f"  %a = tirx.slice %o[1, 0] [3, 4] strides [2, 2] : {buf('8x8xf32')} -> {buf('3x4xf32')}\n"
            f"  %b = tirx.slice %a[1, 1] [2, 2] : {buf('3x4xf32')} -> {buf('2x2xf32')}\n"
            f"  tirx.copy %o, %x : {buf('8x8xf32')}, {buf('8x8xf32')}\n"
            f"  tirx.zero %b : {buf('2x2xf32')}")
    (o,) = run(kernel([("x", "8x8xf32")], [("o", "8x8xf32")], body), x)
    want = x.copy()
    want[1::2, ::2][:3, :4][1:3, 1:3] = 0
    assert_same(o, want)


def test_load_store_in_a_scalar_loop_prefix_sum():
    x = np.arange(1, 9, dtype=np.float32)
    body = (f"  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n"
            f"  %c8 = arith.constant 8 : index\n  %z = arith.constant 0.0 : f32\n"
            f"  %r = scf.for %i = %c0 to %c8 step %c1 iter_args(%acc = %z) -> (f32) {{\n"
            f"    %v = tirx.load %x[%i] : {buf('8xf32')}\n"
            f"    %s = arith.addf %acc, %v : f32\n"
            f"    %h = arith.truncf %s : f32 to f16\n"
            f"    tirx.store %h, %o[%i] : {buf('8xf16')}\n"
            f"    scf.yield %s : f32\n  }}")
    (o,) = run(kernel([("x", "8xf32")], [("o", "8xf16")], body), x)
    assert_same(o, np.cumsum(x).astype(np.float16))


def _located(pattern: str):
    return pytest.raises(InterpretError, match=pattern)


def test_dynamic_slice_out_of_bounds_names_op_location_and_cta():
    body = ("  %b = tirx.cta_id x : index\n  %c = arith.constant 3 : index\n"
            "  %o = arith.muli %b, %c : index\n"
            f"  %v = tirx.slice %x[%o] [4] : {buf('8xf32')} -> {buf('4xf32')}\n"
            f"  tirx.copy cta %y, %v : {buf('4xf32')}, {buf('4xf32')}")
    text = kernel([("x", "8xf32")], [("y", "4xf32")], body, launch="grid [3] threads [1]")
    with _located(r"k\.mlir:5:3: error: tirx\.slice: dim 0: elements \[6, 9\] are out of "
                  r"bounds for extent 8 \(in CTA \(2, 0, 0\) of @k\)"):
        run(text, np.zeros(8, np.float32))


@pytest.mark.parametrize("offset", [-1, 0, 4, 5])
def test_a_slice_mixing_static_and_dynamic_offsets_is_checked_on_every_run(offset):
    """The prepared slice (static dims' slices made once, dynamic offsets' bounds precomputed)
    gives the view in bounds and the located error out of them, whatever ran before."""
    body = (f"  %o = arith.constant {offset} : index\n"
            f"  %v = tirx.slice %x[1, %o] [2, 4] : {buf('3x8xf32')} -> {buf('2x4xf32')}\n"
            f"  tirx.copy cta %y, %v : {buf('2x4xf32')}, {buf('2x4xf32')}")
    x = np.arange(24, dtype=np.float32).reshape(3, 8)
    text = kernel([("x", "3x8xf32")], [("y", "2x4xf32")], body)
    if 0 <= offset <= 4:
        (y,) = run(text, x)
        assert_same(y, x[1:3, offset:offset + 4])
        return
    with _located(rf"k\.mlir:3:3: error: tirx\.slice: dim 1: elements \[{offset}, "
                  rf"{offset + 3}\] are out of bounds for extent 8"):
        run(text, x)


@pytest.mark.parametrize("index", ["8", "-1"])
def test_load_and_store_indices_are_checked(index):
    load = (f"  %i = arith.constant {index} : index\n"
            f"  %v = tirx.load %x[%i] : {buf('8xf32')}\n")
    with _located(rf"k\.mlir:3:3: error: tirx\.load: index {index} in dim 0 is out of bounds"):
        run(kernel([("x", "8xf32")], [], load), np.zeros(8, np.float32))
    store = (f"  %i = arith.constant {index} : index\n  %v = arith.constant 1.0 : f32\n"
             f"  tirx.store %v, %o[%i] : {buf('8xf32')}\n")
    with _located(rf"k\.mlir:4:3: error: tirx\.store: index {index} in dim 0 is out of bounds"):
        run(kernel([], [("o", "8xf32")], store))


def test_static_out_of_bounds_slice_is_a_verifier_error():
    from tirx_mlir.diagnostics import TirxError

    body = f"  %v = tirx.slice %x[6] [4] : {buf('8xf32')} -> {buf('4xf32')}"
    with pytest.raises(TirxError, match="out of bounds") as info:
        run(kernel([("x", "8xf32")], [], body), np.zeros(8, np.float32))
    assert info.value.op is not None and info.value.op.name == "tirx.slice"


def test_error_inside_a_loop_names_the_innermost_op():
    body = (f"  %c0 = arith.constant 0 : index\n  %c1 = arith.constant 1 : index\n"
            f"  %c9 = arith.constant 9 : index\n"
            f"  scf.for %i = %c0 to %c9 step %c1 {{\n"
            f"    %v = tirx.load %x[%i] : {buf('8xf32')}\n  }}")
    with _located(r"k\.mlir:6:5: error: tirx\.load: index 8"):
        run(kernel([("x", "8xf32")], [], body), np.zeros(8, np.float32))


# --- launches and scope ids ---------------------------------------------------------------------


def _store_id(op: str, out: str, dim: str = "x") -> str:
    return (f"  %{out}_id = tirx.{op} {dim} : index\n"
            f"  %{out}_v = arith.index_cast %{out}_id : index to i32\n"
            f"  tirx.store %{out}_v, %{out}[%ty, %tx] : {buf('2x4xi32')}\n")


def test_every_cta_runs_once_with_its_ids():
    body = ("  %tx = tirx.cta_id x : index\n  %ty = tirx.cta_id y : index\n"
            + _store_id("cta_id", "gx", "x") + _store_id("cta_id", "gy", "y")
            + _store_id("cluster_id", "cl") + _store_id("cta_id_in_cluster", "cc")
            + "  %p = tirx.cta_id_in_pair : index\n"
            "  %pv = arith.index_cast %p : index to i32\n"
            f"  tirx.store %pv, %pr[%ty, %tx] : {buf('2x4xi32')}\n")
    outs = [(n, "2x4xi32") for n in ("gx", "gy", "cl", "cc", "pr")]
    gx, gy, cl, cc, pr = run(kernel([], outs, body, launch="grid [4, 2] threads [1] cluster [2]"))
    y, x = np.indices((2, 4))
    assert_same(gx, x.astype(np.int32))
    assert_same(gy, y.astype(np.int32))
    assert_same(cl, (x // 2).astype(np.int32))
    assert_same(cc, (x % 2).astype(np.int32))
    assert_same(pr, (x % 2).astype(np.int32))


@pytest.mark.parametrize("op", ["thread_id x", "lane_id", "warp_id", "warpgroup_id",
                                "warp_id_in_wg", "thread_id_in_wg"])
def test_per_thread_ids_are_scope_errors(op):
    body = f"  %t = tirx.{op} : index"
    name = op.split()[0]
    with _located(rf"k\.mlir:2:3: error: \[scope\] tirx\.{name}: a per-thread scope id has no "
                  r"value at the tile level"):
        run(kernel([], [], body, launch="grid [1] threads [128]"))


@pytest.mark.parametrize("scope,scope_buf,ok", [
    ("thread", "shared", False), ("warp", "shared", False), ("warpgroup", "global", False),
    ("warp", "local", True), ("thread", "local", True), ("cta", "shared", True)])
def test_narrow_scope_writes_to_shared_memory_are_scope_errors(scope, scope_buf, ok):
    body = (f"  %t = tirx.alloc : !tirx.buffer<4xf32, {scope_buf}>\n"
            f"  tirx.zero {scope} %t : !tirx.buffer<4xf32, {scope_buf}>")
    text = kernel([], [], body, launch="grid [1] threads [256]")
    if ok:
        run(text)
        return
    with _located(rf"k\.mlir:3:3: error: \[scope\] tirx\.zero: a {scope}-scope op runs once per "
                  rf"{scope}, \d+ times in each CTA of @k, and every run would write the same "
                  rf"{scope_buf} buffer 'dst'"):
        run(text)


def test_thread_scope_ops_are_fine_with_one_thread():
    body = f"  tirx.zero %o : {buf('4xf32')}"
    (o,) = run(kernel([], [("o", "4xf32")], body, launch="grid [1] threads [1]"))
    assert (o == 0).all()


# --- arguments ----------------------------------------------------------------------------------


SCALE = kernel([("x", "2x3xf32")], [("y", "2x3xf32")],
               f"  tirx.add %y, %x, %x : {buf('2x3xf32')}, {buf('2x3xf32')}, {buf('2x3xf32')}")


def test_argument_shape_dtype_and_count_are_checked():
    with _located(r"argument %x of @k has shape \[3, 2\], but the parameter is "
                  r"!tirx.buffer<2x3xf32, global>"):
        run(SCALE, np.zeros((3, 2), np.float32))
    with _located(r"input %x of @k has dtype f64, but the parameter is"):
        run(SCALE, np.zeros((2, 3)))
    with _located(r"@k takes 1 inputs and 1 optional outputs, got 3 arrays"):
        run(SCALE, *(np.zeros((2, 3), np.float32),) * 3)
    with _located(r"output %y of @k must be a writable numpy array of dtype f32"):
        run(SCALE, np.zeros((2, 3), np.float32), np.zeros((2, 3), np.float16))


def test_cast_inputs_rounds_to_the_parameter_type():
    x = np.array([[1 + 2 ** -30, 2, 3], [4, 5, 6]])
    (y,) = run(SCALE, x, cast_inputs=True)
    assert_same(y, (2 * x).astype(np.float32))


def test_interpret_accepts_text_and_returns_a_single_output(rng):
    x = sample("f32", (2, 3), rng)
    y = interpret(SCALE, "k", x)
    assert isinstance(y, np.ndarray)
    assert_same(y, 2 * x)
    with pytest.raises(Exception, match=r"no kernel named @nope; the module has: @k"):
        interpret(SCALE, "nope", x)


def test_kernel_is_callable_through_the_xdsl_interpreter(rng):
    from tirx_mlir.located_parser import parse_module
    from tirx_mlir.interpreter import make_interpreter

    module = parse_module(SCALE)
    x, y = sample("f32", (2, 3), rng), np.zeros((2, 3), np.float32)
    (out,) = make_interpreter(module).call_op("k", (x, y))
    assert out is y and (y == 2 * x).all()
    with pytest.raises(InterpretError, match=r"parameter %y of @k is"):
        make_interpreter(module).call_op("k", (x, np.zeros((2, 3), ml_dtypes.bfloat16)))


def test_transpose_and_reshape_are_views(rng):
    x = sample("f32", (4, 6), rng)
    body = (f"  %t = tirx.transpose %o [1, 0] : {buf('4x6xf32')} -> {buf('6x4xf32')}\n"
            f"  %r = tirx.reshape %o : {buf('4x6xf32')} -> {buf('2x2x6xf32')}\n"
            f"  %xt = tirx.transpose %x [1, 0] : {buf('4x6xf32')} -> {buf('6x4xf32')}\n"
            f"  tirx.copy %t, %xt : {buf('6x4xf32')}, {buf('6x4xf32')}\n"
            f"  %row = tirx.slice %r[1, 0, 0] [1, 1, 6] : {buf('2x2x6xf32')} -> {buf('1x1x6xf32')}\n"
            f"  tirx.zero %row : {buf('1x1x6xf32')}")
    (o,) = run(kernel([("x", "4x6xf32")], [("o", "4x6xf32")], body), x)
    want = x.copy()
    want[2] = 0  # [1, 0, :] of the 2x2x6 view is row 2
    assert_same(o, want)


def test_only_inputs_the_kernel_may_write_are_copied(rng):
    from tirx_mlir.located_parser import parse_module
    from tirx_mlir.interpreter.launch import find_kernel, written_inputs

    t = buf("4xf32")
    body = (f"  %v = tirx.slice %b[0] [2] : {t} -> {buf('2xf32')}\n"
            f"  tirx.zero %v : {buf('2xf32')}\n"
            f"  tirx.add %o, %a, %b : {t}, {t}, {t}")
    text = kernel([("a", "4xf32"), ("b", "4xf32")], [("o", "4xf32")], body)
    assert written_inputs(find_kernel(parse_module(text))) == {1}
    a, b = sample("f32", (4,), rng), sample("f32", (4,), rng)
    a0, b0 = a.copy(), b.copy()
    (o,) = run(text, a, b)
    assert_same(o, a0 + np.concatenate([[0, 0], b0[2:]]).astype(np.float32))
    assert_same(a, a0)
    assert_same(b, b0)
    # an op without tirx semantics writes what its memory effects say; unknown effects: all
    def written(op_text):
        return written_inputs(find_kernel(parse_module(kernel([("a", "4xf32")], [], op_text))))

    assert written(f'  "test.op"(%a) : ({t}) -> ()') == {0}
    assert written(f'  "test.pureop"(%a) : ({t}) -> ()') == set()


def test_read_only_inputs_are_not_copied(rng):
    from tirx_mlir.located_parser import parse_module
    from tirx_mlir.interpreter import KernelRunner

    a = sample("f32", (4,), rng)
    runner = KernelRunner(parse_module(SCALE.replace("2x3", "4")))
    args = runner.prepare([a])
    assert np.shares_memory(args[0], a) and not args[0].flags.writeable
