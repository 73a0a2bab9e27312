"""Caller-supplied scratch (``workspace [%w]``, `dispatch/scratch.py::scratch_tile`): the gemm's
PSUM accumulator, a two-stage reduction's partial buffer and a transposing copy's PSUM staging
tile come from the caller instead of the variant. Each kernel is checked at every stage (numpy
== tile level == after every pass == shared SBUF/PSUM == printed NKI of both APIs on the
stand-in) and allocates no scratch of its own; a workspace of the wrong scope, element type or
size is a dispatch error at the op saying what the variant needs."""

from __future__ import annotations

import numpy as np
import pytest
from tirx_testing.ir_text import buffer_type
from tirx_testing.trn_lowering import kernel_text, lower
from tirx_testing.trn_stages import check_every_stage

from tirx_mlir.diagnostics import PassError
from tirx_mlir.located_parser import parse_module
from xdsl.utils.exceptions import VerifyException

F64 = np.float64


def sbuf(shape: str, layout: str = "") -> str:
    return buffer_type(shape, scope="trn.sbuf")[:-1] + (f", {layout}>" if layout else ">")


def psum(shape: str) -> str:
    return buffer_type(shape, scope="trn.psum")


def scratch_allocs(module) -> list[str]:
    """Types of the buffers dispatch allocated (tirx.alloc without a name from the source)."""
    return [str(op.result.type) for op in module.walk()
            if op.name == "tirx.alloc" and not op.result.name_hint]


def gemm_kernel(workspace_type: str) -> str:
    A, B, C = buffer_type("128x128xf32"), buffer_type("128x256xf32"), buffer_type("128x256xf32")
    a, b, c = sbuf("128x128xf32"), sbuf("128x256xf32"), sbuf("128x256xf32")
    body = f"""  %a = tirx.alloc : {a}
  %b = tirx.alloc : {b}
  %c = tirx.alloc : {c}
  %acc = tirx.alloc : {workspace_type}
  tirx.copy %a, %A : {a}, {A}
  tirx.copy %b, %B : {b}, {B}
  tirx.gemm %c, %a, %b transpose_a workspace [%acc] : {c}, {a}, {b}, {workspace_type}
  tirx.copy %C, %c : {C}, {c}"""
    return kernel_text(body, {"A": A, "B": B}, {"C": C})


def test_gemm_accumulates_in_the_callers_psum_tile():
    final = check_every_stage(gemm_kernel(psum("128x512xf32")),
                              lambda a, b: [a.T.astype(F64) @ b], rtol=1e-5, atol=1e-4)
    assert scratch_allocs(final) == []
    kernel = next(op for op in final.walk() if op.name == "tirx.kernel")
    assert kernel.attributes["trn.psum_bytes"].value.data == 2048  # the workspace's one bank


def test_two_stage_sum_puts_its_partials_in_the_workspace():
    X, Y = buffer_type("128x2048xf32"), buffer_type("128x1xf32")
    x, y, w = sbuf("128x2048xf32"), sbuf("128x1xf32"), sbuf("128x8xf32")
    body = f"""  %x = tirx.alloc : {x}
  %y = tirx.alloc : {y}
  %w = tirx.alloc : {w}
  tirx.copy %x, %X : {x}, {X}
  tirx.sum %y, %x workspace [%w] config {{max_inst_size = 512}} : {y}, {x}, {w}
  tirx.copy %Y, %y : {Y}, {y}"""
    final = check_every_stage(kernel_text(body, {"X": X}, {"Y": Y}),
                              lambda x: [x.astype(F64).sum(axis=1, keepdims=True)],
                              rtol=1e-5, atol=1e-4)
    assert scratch_allocs(final) == []


def test_transposing_copy_stages_through_the_workspace():
    X = buffer_type("128x128xf32")
    x, t = sbuf("128x128xf32"), sbuf("128x128xf32", "S[(128,128):(1@F,1@P)]")
    st = psum("128x128xf32")
    body = f"""  %x = tirx.alloc : {x}
  %t = tirx.alloc : {t}
  %st = tirx.alloc : {st}
  tirx.copy %x, %X : {x}, {X}
  tirx.copy %t, %x workspace [%st] : {t}, {x}, {st}
  tirx.copy %Y, %t : {X}, {t}"""
    final = check_every_stage(kernel_text(body, {"X": X}, {"Y": X}), lambda x: [x])
    assert all("trn.psum" not in t for t in scratch_allocs(final))


@pytest.mark.parametrize("workspace, says", [
    (sbuf("128x512xf32"), "the gemm's PSUM accumulator needs a workspace of at least "
                          "[128, 256] f32 in trn.psum; the workspace is in trn.sbuf"),
    (psum("128x128xf32"), "the workspace is [128, 128]"),
    (psum("64x512xf32"), "the workspace is [64, 512]"),
    (buffer_type("128x512xbf16", scope="trn.psum"), "the workspace holds bf16"),
])
def test_a_workspace_that_does_not_fit_is_a_located_error(workspace, says):
    module = parse_module(gemm_kernel(workspace), "ws.mlir")
    module.verify()
    with pytest.raises(PassError) as info:
        lower(module)
    text = str(info.value)
    assert "tile dispatch failed: op=tirx.gemm" in text and says in text
    assert info.value.op is not None and info.value.op.name == "tirx.gemm"


def test_the_verifier_takes_one_workspace_not_an_operand():
    a = sbuf("128x128xf32")
    one = f"  %a = tirx.alloc : {a}\n  %b = tirx.alloc : {a}\n"
    two = one + f"  tirx.copy %a, %b workspace [%a] : {a}, {a}, {a}"
    with pytest.raises(VerifyException, match="is also its operand 'dst'"):
        parse_module(kernel_text(two, {})).verify()
    many = one + (f"  %w = tirx.alloc : {a}\n"
                  f"  tirx.copy %a, %b workspace [%w, %w] : {a}, {a}, {a}, {a}")
    with pytest.raises(VerifyException, match="at most one workspace buffer, got 2"):
        parse_module(kernel_text(many, {})).verify()
