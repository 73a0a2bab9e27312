"""Every Trainium dispatch variant on a small kernel: the lowered kernel (after the whole trn
pipeline, on one shared SBUF/PSUM) computes what the tile-level kernel computes, and it uses the
instructions the variant promises.

A case names its on-chip buffers (``name: type``), which of them are loaded from and stored to
HBM, a body of tile ops (``{name}`` stands for a buffer's type) and the nki instructions the
lowering must contain.
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass, field

import numpy as np
import pytest

from tirx_testing.trn_lowering import assert_close, kernel_text, lower, nki_ops, random_inputs, run
from tirx_mlir.located_parser import parse_module

T = {
    "s": "!tirx.buffer<128x512xf32, trn.sbuf>",
    "s2": "!tirx.buffer<128x512xf32, trn.sbuf>",
    "col": "!tirx.buffer<128x1xf32, trn.sbuf>",
    "p": "!tirx.buffer<128x512xf32, trn.psum>",
    "h": "!tirx.buffer<128x512xbf16, trn.sbuf>",
    "q": "!tirx.buffer<128x4x512xf32, trn.sbuf>",
    "q1": "!tirx.buffer<128x4x1xf32, trn.sbuf>",
    "qk": "!tirx.buffer<128x4xf32, trn.sbuf>",
    "qr": "!tirx.buffer<128x512xf32, trn.sbuf>",
    "big": "!tirx.buffer<256x1024xf32, trn.sbuf>",
    "bigcol": "!tirx.buffer<256x1xf32, trn.sbuf>",
    "sq": "!tirx.buffer<128x128xf32, trn.sbuf>",
    "sqt": "!tirx.buffer<128x128xf32, trn.sbuf, S[(128,128):(1@F,1@P)]>",
    "psq": "!tirx.buffer<128x128xf32, trn.psum>",
    "kt": "!tirx.buffer<256x128xf32, trn.sbuf>",
    "kn": "!tirx.buffer<256x256xf32, trn.sbuf>",
    "mn": "!tirx.buffer<128x256xf32, trn.sbuf>",
    "mnp": "!tirx.buffer<128x256xf32, trn.psum>",
    "nm_t": "!tirx.buffer<256x128xf32, trn.sbuf, S[(256,128):(1@F,1@P)]>",
    "wide": "!tirx.buffer<128x2048xf32, trn.sbuf>",
    "k2": "!tirx.buffer<1024x128xf32, trn.sbuf, S[(2,4,128,128):(128@F,256@F,1@P,1@F)]>",
    "kn2": "!tirx.buffer<1024x256xf32, trn.sbuf>",
}


@dataclass
class Case:
    bufs: dict[str, str]
    body: str
    loads: tuple[str, ...]
    stores: tuple[str, ...]
    expect: tuple[str, ...]
    consts: dict[str, float] = field(default_factory=dict)
    options: dict = field(default_factory=dict)
    tol: float = 2e-5


def hbm(t: str) -> str:
    inner = t[len("!tirx.buffer<"):-1]
    parts = [p.strip() for p in inner.split(",")]
    return f"!tirx.buffer<{parts[0]}, global>"


def build(case: Case) -> str:
    lines = [f"  %{n} = tirx.alloc : {t}" for n, t in case.bufs.items()]
    lines += [f"  %c_{n} = arith.constant {v!r} : f32" for n, v in case.consts.items()]
    lines += [f"  tirx.copy %{n}, %{n.upper()}_in : {case.bufs[n]}, {hbm(case.bufs[n])}"
              for n in case.loads]
    lines += ["  " + line.strip().format(**case.bufs) for line in case.body.strip().splitlines()]
    lines += [f"  tirx.copy %{n.upper()}_out, %{n} : {hbm(case.bufs[n])}, {case.bufs[n]}"
              for n in case.stores]
    params = {f"{n.upper()}_in": hbm(case.bufs[n]) for n in case.loads}
    outs = {f"{n.upper()}_out": hbm(case.bufs[n]) for n in case.stores}
    return kernel_text("\n".join(lines), params, outs)


def C(bufs, body, loads, stores, expect, **kw) -> Case:
    return Case({n: T[t] for n, t in bufs.items()}, body, tuple(loads), tuple(stores),
                tuple(expect), **kw)


CASES = {
    # --- binary -------------------------------------------------------------------------------
    "binary_tensor_tensor": C({"x": "s", "y": "s2"}, "tirx.sub %x, %x, %y : {x}, {x}, {y}",
                              "xy", "x", ["nki.tensor_tensor"]),
    "binary_scalar_left": C({"x": "s"}, "tirx.sub %x, %c_three, %x : {x}, f32, {x}", "x", "x",
                            ["nki.tensor_scalar"], consts={"three": 3.0}),
    "binary_vector": C({"x": "s", "v": "col"}, "tirx.maximum %x, %x, %v : {x}, {x}, {v}",
                       "xv", "x", ["nki.tensor_scalar"]),
    "binary_partial_broadcast": C({"x": "q", "v": "q1"}, "tirx.mul %x, %v, %x : {x}, {v}, {x}",
                                  "xv", "x", ["nki.tensor_scalar"]),
    "fdiv_tiles": C({"x": "s", "y": "s2"}, "tirx.fdiv %x, %x, %y : {x}, {x}, {y}", "xy", "x",
                    ["nki.reciprocal", "nki.tensor_tensor"]),
    "fdiv_constant": C({"x": "s"}, "tirx.fdiv %x, %x, %c_k : {x}, {x}, f32", "x", "x",
                       ["nki.tensor_scalar"], consts={"k": 3.0}),
    "binary_bf16_psum": C({"x": "h", "p": "p"},
                          "tirx.copy %p, %x : {p}, {x}\ntirx.minimum %x, %p, %x : {x}, {p}, {x}",
                          "x", "x", ["nki.tensor_copy", "nki.tensor_tensor"]),
    "binary_split_partitions": C({"x": "big", "v": "bigcol"},
                                 "tirx.add %x, %x, %v : {x}, {x}, {v}", "xv", "x",
                                 ["nki.tensor_scalar"]),
    # --- unary --------------------------------------------------------------------------------
    "exp_vector_bias": C({"x": "s", "b": "col"}, "tirx.exp %x, %x bias %b scale %c_h : {x}, {x}, {b}, f32",
                         "xb", "x", ["nki.activation"], consts={"h": 0.25}),
    "exp_const_bias": C({"x": "s"}, "tirx.exp %x, %x bias %c_b : {x}, {x}, f32", "x", "x",
                        ["nki.memset", "nki.activation"], consts={"b": -1.5}),
    "exp_full_bias": C({"x": "s", "y": "s2"}, "tirx.exp %x, %x bias %y : {x}, {x}, {y}", "xy",
                       "x", ["nki.activation"]),
    "sqrt_scale_vector": C({"x": "s", "v": "col"},
                           "tirx.exp %v, %v : {v}, {v}\ntirx.mul %x, %x, %x : {x}, {x}, {x}\n"
                           "tirx.sqrt %x, %x bias %c_b scale %v : {x}, {x}, f32, {v}",
                           "xv", "x", ["nki.activation"], consts={"b": 10.0}),
    "exp2": C({"x": "s", "v": "col"}, "tirx.exp2 %x, %x bias %v : {x}, {x}, {v}", "xv", "x",
              ["nki.activation"]),
    "log2": C({"x": "s"}, "tirx.exp %x, %x : {x}, {x}\ntirx.log2 %x, %x : {x}, {x}", "x", "x",
              ["nki.activation", "nki.tensor_scalar"]),
    "silu": C({"x": "s", "y": "s2"}, "tirx.silu %y, %x : {y}, {x}", "x", "y", ["nki.activation"]),
    "reciprocal": C({"x": "s"}, "tirx.reciprocal %x, %x : {x}, {x}", "x", "x", ["nki.reciprocal"]),
    "fill_zero_memset": C({"x": "s", "y": "s2", "v": "col"},
                          "tirx.fill %x, %c_k : {x}, f32\ntirx.zero %y : {y}\n"
                          "tirx.memset %v, %c_k : {v}, f32\ntirx.add %x, %x, %v : {x}, {x}, {v}\n"
                          "tirx.add %x, %x, %y : {x}, {x}, {y}",
                          "", "x", ["nki.memset"], consts={"k": 2.5}),
    "cast": C({"x": "s", "h": "h"}, "tirx.cast %h, %x : {h}, {x}", "x", "h", ["nki.tensor_copy"]),
    "fma_vectors": C({"x": "s", "v": "col"}, "tirx.fma %x, %x, %v, %c_b : {x}, {x}, {v}, f32",
                     "xv", "x", ["nki.tensor_scalar"], consts={"b": 1.5}),
    "fma_full_bias": C({"x": "s", "y": "s2"}, "tirx.fma %x, %x, %c_s, %y : {x}, {x}, f32, {y}",
                       "xy", "x", ["nki.scalar_tensor_tensor"], consts={"s": -2.0}),
    "fma_full_scale": C({"x": "s", "y": "s2", "v": "col"},
                        "tirx.fma %x, %x, %y, %v : {x}, {x}, {y}, {v}", "xyv", "x",
                        ["nki.tensor_tensor", "nki.tensor_scalar"]),
    # --- copy ---------------------------------------------------------------------------------
    "copy_sbuf_psum": C({"x": "s", "p": "p", "y": "s2"},
                        "tirx.copy %p, %x : {p}, {x}\ntirx.copy %y, %p : {y}, {p}", "x", "y",
                        ["nki.tensor_copy"]),
    "copy_hbm_psum_staged": C({"p": "p", "y": "s2"}, "tirx.copy %y, %p : {y}, {p}", "p", "p",
                              ["nki.load", "nki.tensor_copy", "nki.store"]),
    "copy_transpose": C({"x": "sq", "t": "sqt"}, "tirx.copy %t, %x : {t}, {x}", "x", "t",
                        ["nki.identity", "nki.matmul", "nki.tensor_copy"]),
    "copy_transpose_into_psum": C({"x": "sq", "t": "sq", "p": "psq"},
                                  "%xt = tirx.transpose %x [1, 0] : {x} -> {x}\n"
                                  "tirx.copy %p, %xt : {p}, {x}\ntirx.copy %t, %p : {t}, {p}",
                                  "x", "t", ["nki.matmul"]),
    "permute_layout": C({"x": "sq", "t": "sqt"}, "tirx.permute_layout %t, %x : {t}, {x}", "x", "t",
                        ["nki.matmul"]),
    "copy_async": C({"x": "s", "y": "s2"}, "tirx.copy_async %y, %x : {y}, {x}", "x", "y",
                    ["nki.tensor_copy"]),
    # --- reductions ---------------------------------------------------------------------------
    "sum_kept_free_dims": C({"x": "q", "k": "qk"}, "tirx.sum %k, %x axes [-1] : {k}, {x}", "x",
                            "k", ["nki.tensor_reduce"]),
    "max_middle_axis": C({"x": "q", "r": "qr"}, "tirx.max %r, %x axes [1] : {r}, {x}", "x", "r",
                         ["nki.tensor_reduce"]),
    "sum_two_stage": C({"x": "wide", "v": "col"},
                       "tirx.sum %v, %x config {{max_inst_size = 256}} : {v}, {x}", "x", "v",
                       ["nki.tensor_reduce"]),
    "sum_accum": C({"x": "s", "v": "col"}, "tirx.sum %v, %x accum : {v}, {x}", "xv", "v",
                   ["nki.tensor_reduce", "nki.tensor_tensor"]),
    "reduce_negate_accum_max": C({"x": "s", "v": "col"},
                                 "tirx.reduce_negate %v, %x reduce max accum : {v}, {x}", "xv",
                                 "v", ["nki.tensor_reduce", "nki.scalar_tensor_tensor"]),
    "reduce_negate_two_stage": C({"x": "wide", "v": "col"},
                                 "tirx.reduce_negate %v, %x reduce sum config {{max_inst_size = 512}} : {v}, {x}",
                                 "x", "v", ["nki.tensor_reduce"]),
    "unary_reduce_exp_sum": C({"x": "s", "y": "s2", "v": "col", "b": "col"},
                              "tirx.unary_reduce %y, %v, %x bias %b unary exp reduce sum : {y}, {v}, {x}, {b}",
                              "xb", "yv", ["nki.activation_reduce"]),
    "unary_reduce_two_stage": C({"x": "wide", "v": "col"},
                                "tirx.unary_reduce %x, %v, %x unary exp2 reduce sum config {{max_inst_size = 512}} : {x}, {v}, {x}",
                                "x", "xv", ["nki.activation_reduce", "nki.tensor_reduce"]),
    "unary_reduce_decompose": C({"x": "s", "v": "col"},
                                "tirx.unary_reduce %x, %v, %x unary exp reduce max : {x}, {v}, {x}",
                                "x", "xv", ["nki.activation", "nki.tensor_reduce"]),
    "binary_reduce_scalar": C({"x": "s", "y": "s2", "v": "col"},
                              "tirx.binary_reduce %y, %v, %x, %c_k binary mul reduce max : {y}, {v}, {x}, f32",
                              "x", "yv", ["nki.tensor_scalar_reduce"], consts={"k": -0.5}),
    "binary_reduce_vector_left": C({"x": "s", "y": "s2", "v": "col", "w": "col"},
                                   "tirx.binary_reduce %y, %v, %w, %x binary add reduce sum : {y}, {v}, {w}, {x}",
                                   "xw", "yv", ["nki.tensor_scalar_reduce"]),
    "binary_reduce_decompose": C({"x": "s", "y": "s2", "v": "col"},
                                 "tirx.binary_reduce %y, %v, %c_k, %x binary sub reduce min : {y}, {v}, f32, {x}",
                                 "x", "yv", ["nki.tensor_scalar", "nki.tensor_reduce"],
                                 consts={"k": 1.0}),
    # --- fused --------------------------------------------------------------------------------
    "binary_chain_scalars": C({"x": "s", "v": "col"},
                              "tirx.binary_chain %x, %x, %v, %c_k op0 sub op1 mul : {x}, {x}, {v}, f32",
                              "xv", "x", ["nki.tensor_scalar"], consts={"k": 3.0}),
    "binary_chain_tile": C({"x": "s", "y": "s2", "v": "col"},
                           "tirx.binary_chain %x, %x, %v, %y op0 mul op1 sub reverse1 : {x}, {x}, {v}, {y}",
                           "xyv", "x", ["nki.scalar_tensor_tensor"]),
    "binary_chain_decompose": C({"x": "s", "y": "s2"},
                                "tirx.binary_chain %x, %x, %y, %c_k op0 add op1 maximum : {x}, {x}, {y}, f32",
                                "xy", "x", ["nki.tensor_tensor", "nki.tensor_scalar"],
                                consts={"k": 0.0}),
    "compose_fuse": C({"x": "s", "y": "s2", "v": "col"},
                      "tirx.compose_op {{\n tirx.exp %y, %x : {y}, {x}\n tirx.sum %v, %y : {v}, {y}\n}}",
                      "x", "yv", ["nki.activation_reduce"]),
    "compose_inline": C({"x": "s", "v": "col"},
                        "tirx.compose_op {{\n tirx.add %x, %x, %x : {x}, {x}, {x}\n tirx.max %v, %x : {v}, {x}\n}}",
                        "x", "xv", ["nki.tensor_tensor", "nki.tensor_reduce"]),
    # --- select -------------------------------------------------------------------------------
    "select_tile_true": C({"x": "s", "y": "s2"},
                          "tirx.select %y, %x, %c_f where (d0, d1) : (d1 - d0 * 4 >= 0) : {y}, {x}, f32",
                          "x", "y", ["nki.affine_select"], consts={"f": -7.0}),
    "select_negated": C({"x": "s", "y": "s2"},
                        "tirx.select %y, %c_t, %x where (d0, d1) : (d0 + d1 - 300 == 0) : {y}, f32, {x}",
                        "x", "y", ["nki.affine_select"], consts={"t": 5.0}),
    "select_constants": C({"y": "s"},
                          "tirx.select %y, %c_t, %c_f where (d0, d1) : (d1 - 100 >= 0, 400 - d1 >= 0) : {y}, f32, f32",
                          "", "y", ["nki.memset", "nki.affine_select"],
                          consts={"t": 1.0, "f": 0.0}),
    "select_split_rows": C({"x": "big", "y": "big"},
                           "tirx.select %y, %x, %c_f where (d0, d1) : (d0 - d1 >= 0) : {y}, {x}, f32",
                           "x", "y", ["nki.affine_select"], consts={"f": 0.0}),
    # --- gemm ---------------------------------------------------------------------------------
    "gemm_k_tiles": C({"a": "kt", "b": "kn", "c": "mn"},
                      "tirx.gemm %c, %a, %b transpose_a : {c}, {a}, {b}", "ab", "c",
                      ["nki.matmul", "nki.tensor_copy"], tol=1e-4),
    "gemm_psum_accumulate": C({"a": "kt", "b": "kn", "p": "mnp", "c": "mn"},
                              "tirx.gemm %p, %a, %b transpose_a : {p}, {a}, {b}\n"
                              "tirx.gemm %p, %a, %b transpose_a beta 1.0 : {p}, {a}, {b}\n"
                              "tirx.copy %c, %p : {c}, {p}", "ab", "c", ["nki.matmul"], tol=1e-4),
    "gemm_alpha_beta_c": C({"a": "kt", "b": "kn", "c": "mn", "d": "mn"},
                           "tirx.gemm %d, %a, %b c %c transpose_a alpha 0.5 beta -2.0 : {d}, {a}, {b}, {c}",
                           "abc", "d", ["nki.matmul", "nki.scalar_tensor_tensor"], tol=1e-4),
    "gemm_async_accum": C({"a": "kt", "b": "kn", "c": "mn"},
                          "%bt = tirx.transpose %b [1, 0] : {b} -> !tirx.buffer<256x256xf32, trn.sbuf>\n"
                          "tirx.gemm_async %c, %a, %bt transpose_a accum : {c}, {a}, !tirx.buffer<256x256xf32, trn.sbuf>",
                          "abc", "c", ["nki.matmul", "nki.tensor_tensor"], tol=1e-4),
    "gemm_two_k_loops": C({"a": "k2", "b": "kn2", "c": "mn"},
                          "tirx.gemm %c, %a, %b transpose_a : {c}, {a}, {b}", "ab", "c",
                          ["nki.matmul"], tol=2e-4),
    "gemm_transpose_a_operand": C({"a": "mn", "b": "kn", "c": "mn"},
                                  "tirx.gemm %c, %a, %b : {c}, {a}, {b}", "ab", "c",
                                  ["nki.identity", "nki.matmul", "nki.tensor_copy"], tol=2e-4),
    "gemm_transpose_both_operands": C({"a": "mn", "b": "kn", "c": "mn"},
                                      "tirx.gemm %c, %a, %b transpose_b : {c}, {a}, {b}", "ab",
                                      "c", ["nki.identity", "nki.matmul"], tol=2e-4),
    "gemm_swapped_output": C({"a": "kt", "b": "kn", "d": "nm_t"},
                             "%dt = tirx.transpose %d [1, 0] : {d} -> !tirx.buffer<128x256xf32, trn.sbuf>\n"
                             "tirx.gemm %d, %b, %a transpose_a : {d}, {b}, {a}",
                             "ab", "d", ["nki.matmul"], tol=1e-4),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_variant(name):
    case = CASES[name]
    text = build(case)
    module = parse_module(text, name)
    module.verify()
    inputs = random_inputs(module, seed=zlib.crc32(name.encode()))
    expected = run(module, inputs)
    lower(module, **case.options)
    ops = nki_ops(module)
    for inst in case.expect:
        assert inst in ops, f"{name}: expected {inst} in {ops}"
    actual = run(module, inputs, physical=True)
    for out, ref in zip(actual, expected):
        assert_close(out, ref, case.tol, case.tol, name)
