"""Deliberate mistakes in ``@Tx.kernel`` code: each is reported at the user's Python line (the
line marked ``# ERR`` in the test), with the source line and a caret, never a traceback from
inside the front end."""

from __future__ import annotations


import numpy as np
import pytest

from tirx_mlir import script as Tx
from tirx_testing.source_errors import assert_reported_at_marked_line

TRN = "aws/trn1/trn1.2xlarge"



def _wrong_shape():
    @Tx.kernel(target=TRN)
    def k(X: Tx.Buffer[(64, 512), "f32"], Y: Tx.Out[(64, 512), "f32"]):
        a = Tx.alloc((128, 512), scope="trn.sbuf")
        Tx.copy(a, X)  # ERR
    return k.ir


def _unknown_scope():
    @Tx.kernel(target=TRN)
    def k(X: Tx.Buffer[(128, 512), "f32"]):
        a = Tx.alloc((128, 512), scope="sharde")  # ERR
    return k.ir


def _wrong_call_site_scope():
    @Tx.kernel(threads=(128,))
    def k(X: Tx.Buffer[(32, 64), "f32"]):
        t = Tx.alloc((32, 64), scope="shared")
        Tx.warp.copy(t, X)  # ERR
    return k.interpret(np.zeros((32, 64), np.float32))


def _unknown_op():
    @Tx.kernel(target=TRN)
    def k(X: Tx.Buffer[(128, 512), "f32"]):
        a = Tx.alloc((128, 512), scope="trn.sbuf")
        Tx.expp(a, a)  # ERR
    return k.ir


def _unknown_keyword():
    @Tx.kernel(target=TRN)
    def k(X: Tx.Buffer[(128, 512), "f32"]):
        a = Tx.alloc((128, 512), scope="trn.sbuf")
        r = Tx.alloc((128, 1), scope="trn.sbuf")
        Tx.sum(r, a, axis=[-1])  # ERR
    return k.ir


def _missing_operand():
    @Tx.kernel(target=TRN)
    def k(X: Tx.Buffer[(128, 512), "f32"]):
        a = Tx.alloc((128, 512), scope="trn.sbuf")
        Tx.add(a)  # ERR
    return k.ir


def _while_on_a_python_value():
    @Tx.kernel(target=TRN)
    def k(X: Tx.Buffer[(128, 512), "f32"]):
        while True:  # ERR
            pass
    return k.ir


def _unsigned_division_of_floats():
    @Tx.kernel(target="cuda -arch=sm_80", threads=(32,))
    def k(X: Tx.Buffer[(32,), "f32"]):
        x = Tx.cuda.load(X, Tx.cuda.thread_idx("x"))
        y = Tx.udiv(x, 2)  # ERR
    return k.ir


def _unknown_comparison_predicate():
    @Tx.kernel(target="cuda -arch=sm_80", threads=(32,))
    def k(X: Tx.Buffer[(32,), "f32"]):
        if Tx.cmp("lt", Tx.cuda.thread_idx("x"), 16):  # ERR
            pass
    return k.ir


def _zero_extension_to_a_narrower_type():
    @Tx.kernel(target="cuda -arch=sm_80", threads=(32,))
    def k(X: Tx.Buffer[(32,), "f32"]):
        p = Tx.cuda.address(X, 0)
        w = Tx.zext(p, "i32")  # ERR
    return k.ir


def _unsigned_remainder_by_zero():
    @Tx.kernel(target="cuda -arch=sm_80", threads=(32,))
    def k(X: Tx.Buffer[(32,), "f32"]):
        r = Tx.urem(Tx.cuda.thread_idx("x"), 0)  # ERR
    return k.ir


def _while_on_a_buffer():
    @Tx.kernel(target="cuda -arch=sm_80", threads=(32,))
    def k(X: Tx.Buffer[(32,), "f32"]):
        while X:  # ERR
            pass
    return k.ir


def _carried_value_changes_type():
    @Tx.kernel(target="cuda -arch=sm_80", threads=(32,))
    def k(X: Tx.Buffer[(32,), "f32"]):
        acc = Tx.const(0.0, "f32")
        for i in range(4):  # ERR
            acc = Tx.cuda.thread_idx("x")
    return k.ir


def _comprehension_over_a_run_time_loop():
    @Tx.kernel(target="cuda -arch=sm_80", threads=(32,))
    def k(X: Tx.Buffer[(32,), "f32"]):
        xs = [Tx.cuda.load(X, i) for i in Tx.serial(4)]  # ERR
    return k.ir


def _kernel_attribute_that_is_not_mlir():
    @Tx.kernel(threads=(32,), attributes={"acme.maps": "array<i64: 0"})
    def k(X: Tx.Buffer[(32,), "f32"]):  # ERR
        pass
    return k.ir


def _predicate_of_a_product_of_symbols():
    @Tx.kernel(target=TRN)
    def k(S: Tx.Buffer[(512, 512), "f32"]):
        s = Tx.alloc((128, 512), scope="trn.sbuf")
        for i in range(4):
            Tx.copy(s, S[i * 128:(i + 1) * 128, :])
            Tx.select(s, s, 0.0, where=lambda q, c: q + i * i >= c)  # ERR
    return k.ir


def _with_statement():
    @Tx.kernel(target=TRN)
    def k(X: Tx.Buffer[(128, 512), "f32"]):
        with Tx.range(0, 4) as i:  # ERR
            pass
    return k.ir


def _undefined_name():
    @Tx.kernel(target=TRN)
    def k(X: Tx.Buffer[(128, 512), "f32"]):
        a = Tx.alloc((128, 512), scope="trn.sbuf")
        Tx.copy(a, XX)  # noqa: F821  # ERR
    return k.ir


def _assign_into_region():
    @Tx.kernel(target=TRN)
    def k(X: Tx.Buffer[(128, 512), "f32"], Y: Tx.Out[(128, 512), "f32"]):
        a = Tx.alloc((128, 512), scope="trn.sbuf")
        Y[0:128, :] = a  # ERR
    return k.ir


def _loop_over_list():
    @Tx.kernel(target=TRN)
    def k(X: Tx.Buffer[(128, 512), "f32"]):
        for i in [0, 1]:  # ERR
            pass
    return k.ir


def _loop_carried_value():
    @Tx.kernel(threads=(128,))
    def k(X: Tx.Buffer[(128, 512), "f32"]):
        off = 0
        for i in range(4):
            off = off + i  # ERR
    return k.ir


def _return_value():
    @Tx.kernel(target=TRN)
    def k(X: Tx.Buffer[(128, 512), "f32"]):
        return X  # ERR
    return k.ir


def _buffer_arithmetic():
    @Tx.kernel(target=TRN)
    def k(X: Tx.Buffer[(128, 512), "f32"], Y: Tx.Out[(128, 512), "f32"]):
        a = Tx.alloc((128, 512), scope="trn.sbuf")
        b = a + 1.0  # ERR
    return k.ir


def _non_constant_slice():
    @Tx.kernel(threads=(128,))
    def k(X: Tx.Buffer[(128, 512), "f32"]):
        for i in range(1, 4):
            v = X[i:2 * i, :]  # ERR
    return k.ir


def _too_many_indices():
    @Tx.kernel(threads=(128,))
    def k(X: Tx.Buffer[(128, 512), "f32"]):
        v = X[0:4, 0:4, 0]  # ERR
    return k.ir


def _dynamic_unroll():
    @Tx.kernel(grid=(4,), threads=(128,))
    def k(X: Tx.Buffer[(128, 512), "f32"]):
        n = Tx.cta_id("x")
        for i in Tx.unroll(0, n):  # ERR
            pass
    return k.ir


def _missing_annotation():
    @Tx.kernel(target=TRN)
    def k(X,  # ERR
          Y: Tx.Out[(128, 512), "f32"]):
        pass
    return k.ir


def _input_after_output():
    @Tx.kernel(target=TRN)
    def k(Y: Tx.Out[(128, 512), "f32"],
          X: Tx.Buffer[(128, 512), "f32"]):  # ERR
        pass
    return k.ir


def _bad_shape_in_annotation():
    @Tx.kernel(target=TRN)
    def k(X: Tx.Buffer[(128, 1.5), "f32"]):  # ERR
        pass
    return k.ir


def _break():
    @Tx.kernel(threads=(128,))
    def k(X: Tx.Buffer[(128, 512), "f32"]):
        for i in range(4):
            break  # ERR
    return k.ir


def _scope_id_without_launch():
    @Tx.kernel(target=TRN)
    def k(X: Tx.Buffer[(128, 512), "f32"]):
        w = Tx.warp_id()  # ERR
    return k.ir


def _and_in_predicate():
    @Tx.kernel(target=TRN)
    def k(X: Tx.Buffer[(128, 512), "f32"]):
        a = Tx.alloc((128, 512), scope="trn.sbuf")
        Tx.select(a, a, 0.0, where=lambda i, j: i < j and j < 3)  # ERR
    return k.ir


def _branch_on_buffer():
    @Tx.kernel(target=TRN)
    def k(X: Tx.Buffer[(128, 512), "f32"]):
        if X:  # ERR
            pass
    return k.ir


def _static_assert():
    N = 100

    @Tx.kernel(target=TRN)
    def k(X: Tx.Buffer[(128, 512), "f32"]):
        assert N % 128 == 0, "N must be a multiple of 128"  # ERR
    return k.ir


def _nki_op_shapes():
    @Tx.kernel(target=TRN)
    def k(X: Tx.Buffer[(128, 512), "f32"]):
        a = Tx.alloc((128, 512), scope="trn.sbuf")
        b = Tx.alloc((64, 512), scope="trn.sbuf")
        Tx.nki.tensor_copy(a, b)  # ERR
    return k.ir


def _serial_outside_loop():
    @Tx.kernel(target=TRN)
    def k(X: Tx.Buffer[(128, 512), "f32"]):
        r = Tx.serial(4)  # ERR
    return k.ir


def _dispatch_failure():
    @Tx.kernel(target=TRN)
    def k(X: Tx.Buffer[(128, 512), "f32"], Y: Tx.Out[(128, 512), "f32"]):
        a = Tx.alloc((128, 512), scope="trn.sbuf")
        Tx.copy(a, X, dispatch="no_such_variant")  # ERR
        Tx.copy(Y, a)
    return k.compile()


def _capacity_overflow():
    @Tx.kernel(target=TRN)
    def k(X: Tx.Buffer[(128, 512), "f32"], Y: Tx.Out[(128, 512), "f32"]):
        big = Tx.alloc((128, 1 << 20), scope="trn.sbuf")  # ERR
        Tx.copy(big[:, 0:512], X)
        Tx.copy(Y, big[:, 0:512])
    return k.compile()


def _out_of_bounds_at_run_time():
    @Tx.kernel(threads=(128,))
    def k(X: Tx.Buffer[(128, 64), "f32"], Y: Tx.Out[(64, 64), "f32"]):
        a = Tx.alloc((64, 64), scope="shared")
        for i in range(3):
            Tx.cta.copy(a, X[Tx.ds(i * 64, 64), :])  # ERR
        Tx.cta.copy(Y, a)
    return k.interpret(np.zeros((128, 64), np.float32))


def _unroll_step_zero():
    @Tx.kernel(target=TRN)
    def k(X: Tx.Buffer[(128, 512), "f32"]):
        for i in Tx.unroll(0, 4, 0):  # ERR
            Tx.nki.memset(X, 0.0)
    return k.ir


def _star_of_a_number():
    @Tx.kernel(target=TRN)
    def k(X: Tx.Buffer[(128, 512), "f32"]):
        a = Tx.alloc((128, 512), scope="trn.sbuf")
        Tx.copy(a, *5)  # ERR
    return k.ir


def _launch_function_of_the_wrong_constexprs():
    @Tx.kernel(threads=lambda M, Q: (M,))
    def k(X: "Tx.Buffer[(M, 64), 'f32']", M: Tx.constexpr = 128):  # ERR
        a = Tx.alloc((M, 64), scope="shared")
        Tx.cta.copy(a, X)
    return k.specialize(M=128)


MISTAKES = [
    (_wrong_shape, "shape"),
    (_unknown_scope, "sharde"),
    (_wrong_call_site_scope, "warp-scope op runs once per warp"),
    (_unknown_op, "expp"),
    (_unknown_keyword, "no operand or property 'axis'"),
    (_missing_operand, "missing lhs, rhs"),
    (_while_on_a_python_value, "a `while` loop needs a run-time condition"),
    (_unsigned_division_of_floats, "Tx.udiv takes indices or integers, not f32"),
    (_unknown_comparison_predicate, "predicate 'lt' is not one of"),
    (_zero_extension_to_a_narrower_type, "Tx.zext extends an integer value to a wider"),
    (_unsigned_remainder_by_zero, "`Tx.urem` by zero"),
    (_while_on_a_buffer, "a `while` loop needs a run-time condition"),
    (_predicate_of_a_product_of_symbols, "not affine"),
    (_carried_value_changes_type, "'acc' is carried through the loop as f32 but the body "
                                  "leaves it index"),
    (_comprehension_over_a_run_time_loop, "iterate over Tx.unroll(...) with constant bounds"),
    (_kernel_attribute_that_is_not_mlir, "attributes={'acme.maps': 'array<i64: 0'}: not an "
                                         "attribute"),
    (_with_statement, "`With` statements are not supported"),
    (_undefined_name, "name 'XX' is not defined"),
    (_assign_into_region, "assigning into a buffer region is not supported"),
    (_loop_over_list, "iterates over range"),
    (_loop_carried_value, "cannot be reassigned inside it"),
    (_return_value, "a kernel returns nothing"),
    (_buffer_arithmetic, "arithmetic on buffers"),
    (_non_constant_slice, "differ by a constant"),
    (_too_many_indices, "3 indices for a rank-2 buffer"),
    (_dynamic_unroll, "Tx.unroll needs constant bounds"),
    (_missing_annotation, "parameter 'X' needs an annotation"),
    (_input_after_output, "follows an output"),
    (_bad_shape_in_annotation, "must be Python ints"),
    (_break, "`Break` statements are not supported"),
    (_scope_id_without_launch, "warp"),
    (_and_in_predicate, "with `&`"),
    (_branch_on_buffer, "buffer"),
    (_static_assert, "N must be a multiple of 128"),
    (_nki_op_shapes, "Tx.nki.tensor_copy"),
    (_serial_outside_loop, "for i in Tx.serial"),
    (_dispatch_failure, "no_such_variant"),
    (_capacity_overflow, "does not fit"),
    (_out_of_bounds_at_run_time, "out of bounds"),
    (_unroll_step_zero, "must not be zero"),
    (_star_of_a_number, "`*` needs a list or tuple, not int"),
    (_launch_function_of_the_wrong_constexprs, "threads= of kernel k failed"),
]


@pytest.mark.parametrize("make,message", MISTAKES, ids=[m.__name__.strip("_") for m, _ in MISTAKES])
def test_mistake_is_reported_at_its_line(make, message):
    assert_reported_at_marked_line(make, message)


def test_there_are_at_least_twenty_mistakes():
    assert len(MISTAKES) >= 20
