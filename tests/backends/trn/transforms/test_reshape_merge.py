"""tirx.reshape that merges dims: a merge of a buffer's own dims (on chip or in HBM) lowers
without a copy and computes what numpy computes at every stage and in both printed NKI APIs;
a merge of dims that are not one run in memory is refused with a located error."""

from __future__ import annotations

import numpy as np
import pytest
from tirx_testing.trn_every_stage import check_every_stage
from tirx_testing.trn_lowering import kernel_text, lower

from tirx_mlir.dialects.tirx.access import NotAView, resolve_access
from tirx_mlir.located_parser import parse_module
from tirx_mlir.diagnostics import PassError

X3 = "!tirx.buffer<128x4x512xf32, {s}>"
X2 = "!tirx.buffer<128x2048xf32, {s}>"
COL = "!tirx.buffer<128x1xf32, {s}>"

ON_CHIP = f"""  %x = tirx.alloc : {X3.format(s="trn.sbuf")}
  %s = tirx.alloc : {COL.format(s="trn.sbuf")}
  %y = tirx.alloc : {X2.format(s="trn.sbuf")}
  tirx.copy %x, %X : {X3.format(s="trn.sbuf")}, {X3.format(s="global")}
  %m = tirx.reshape %x : {X3.format(s="trn.sbuf")} -> {X2.format(s="trn.sbuf")}
  tirx.sum %s, %m : {COL.format(s="trn.sbuf")}, {X2.format(s="trn.sbuf")}
  tirx.exp %y, %m : {X2.format(s="trn.sbuf")}, {X2.format(s="trn.sbuf")}
  tirx.copy %S, %s : {COL.format(s="global")}, {COL.format(s="trn.sbuf")}
  tirx.copy %Y, %y : {X2.format(s="global")}, {X2.format(s="trn.sbuf")}"""

HBM = f"""  %y = tirx.alloc : {X2.format(s="trn.sbuf")}
  %m = tirx.reshape %X : {X3.format(s="global")} -> {X2.format(s="global")}
  tirx.copy %y, %m : {X2.format(s="trn.sbuf")}, {X2.format(s="global")}
  %o = tirx.reshape %Z : {X3.format(s="global")} -> {X2.format(s="global")}
  tirx.copy %o, %y : {X2.format(s="global")}, {X2.format(s="trn.sbuf")}"""


def test_merge_of_an_on_chip_buffer():
    text = kernel_text(ON_CHIP, {"X": X3.format(s="global")},
                       {"S": COL.format(s="global"), "Y": X2.format(s="global")})

    def reference(x):
        x2 = x.astype(np.float64).reshape(128, 2048)
        return [x2.sum(axis=1, keepdims=True), np.exp(x2)]

    check_every_stage(text, reference, rtol=1e-5, atol=1e-4, name="merge_on_chip")


def test_merge_of_an_hbm_tensor():
    text = kernel_text(HBM, {"X": X3.format(s="global")}, {"Z": X3.format(s="global")})
    printed = check_every_stage(text, lambda x: [x], rtol=0, atol=0, name="merge_hbm")
    assert "X.reshape([262144])[2048 * i0 + i1]" in printed["legacy"]


def test_merge_of_a_transposed_view_is_not_a_view():
    """[128, 4, 512] transposed to [128, 512, 4] has no merged [128, 2048] view: dims 1 and 2
    step 1 and 512 elements (a copy would be needed)."""
    body = (f"  %x = tirx.alloc : {X3.format(s='trn.sbuf')}\n"
            f"  %t = tirx.transpose %x [0, 2, 1] : {X3.format(s='trn.sbuf')} -> "
            f"!tirx.buffer<128x512x4xf32, trn.sbuf>\n"
            f"  %m = tirx.reshape %t : !tirx.buffer<128x512x4xf32, trn.sbuf> -> "
            f"{X2.format(s='trn.sbuf')}\n"
            f"  tirx.zero %m : {X2.format(s='trn.sbuf')}")
    module = parse_module(kernel_text(body, {}), "merge.mlir")
    (m,) = [op for op in module.walk() if op.name == "tirx.reshape"]
    with pytest.raises(NotAView, match=r"merges dims 1 and 2, which do not lie in memory as one "
                                       r"run \(steps 1 and 512\)"):
        resolve_access(m.results[0])
    with pytest.raises(PassError, match="do not lie in memory as one run") as info:
        lower(module)
    assert info.value.op is m


def test_split_then_merge_is_exact():
    """Merging dims a reshape split is exact over the buffer's dims (no flat pattern)."""
    body = (f"  %x = tirx.alloc : {X2.format(s='trn.sbuf')}\n"
            f"  %a = tirx.reshape %x : {X2.format(s='trn.sbuf')} -> {X3.format(s='trn.sbuf')}\n"
            f"  %b = tirx.reshape %a : {X3.format(s='trn.sbuf')} -> {X2.format(s='trn.sbuf')}\n"
            f"  tirx.zero %b : {X2.format(s='trn.sbuf')}")
    module = parse_module(kernel_text(body, {}), "merge.mlir")
    (_, b) = [op for op in module.walk() if op.name == "tirx.reshape"]
    access = resolve_access(b.results[0])
    assert not access.flat and access.as_region() is not None
