"""Kernel, scope-id and exec-scope verification rules (the messages say what to change)."""

import pytest
from xdsl.utils.exceptions import VerifyException

from tirx_mlir.located_parser import parse_module

BUF = "!tirx.buffer<128xf32, global>"


def kernel(body: str, launch: str = "grid [1] threads [128]", params: str = f"%A: {BUF}") -> str:
    return f"tirx.kernel @k({params}) {launch} {{\n{body}\n  tirx.return\n}}\n"


def verify(src: str):
    parse_module(src, "k.mlir").verify()


@pytest.mark.parametrize("body,launch", [
    ("%w = tirx.warp_id : index", "grid [1] threads [128]"),
    ("%l = tirx.lane_id : index", "grid [1] threads [64]"),
    ("%g = tirx.warpgroup_id : index", "grid [1] threads [256]"),
    ("%b = tirx.cta_id y : index", "grid [4, 2] threads [1]"),
    ("%c = tirx.cluster_id : index", "grid [4] threads [32] cluster [2]"),
    ("%p = tirx.cta_id_in_pair : index", "grid [4] threads [32] cluster [2]"),
    ("tirx.zero warp %A : " + BUF, "grid [1] threads [64]"),
    ("tirx.zero cluster %A : " + BUF, "grid [2] threads [64] cluster [2]"),
])
def test_valid(body, launch):
    verify(kernel(body, launch))


@pytest.mark.parametrize("body,launch,message", [
    ("%w = tirx.warp_id : index", "grid [1] threads [48]", "multiple of 32 threads"),
    ("%g = tirx.warpgroup_id : index", "grid [1] threads [64]", "multiple of 128 threads"),
    ("%c = tirx.cluster_id : index", "grid [4] threads [32]", "needs a cluster launch"),
    ("%l = tirx.lane_id y : index", "grid [1] threads [32]", "has no dim 1"),
    ("tirx.zero warp %A : " + BUF, "grid [1] threads [16]", "needs a multiple of 32 threads"),
    ("tirx.zero cluster %A : " + BUF, "grid [2] threads [64]", "needs a cluster launch"),
    ("", "grid [3] threads [32] cluster [2]", "does not divide grid"),
    ("", "grid [0] threads [32]", "positive dims"),
])
def test_invalid(body, launch, message):
    with pytest.raises(VerifyException, match=message):
        verify(kernel(body, launch))


def test_kernel_params_live_in_global_memory():
    with pytest.raises(VerifyException, match="parameters live in 'global' memory"):
        verify(kernel("", params="%A: !tirx.buffer<128xf32, shared>"))


def test_scope_id_extents_follow_the_launch():
    from tirx_mlir.dialects.tirx import KernelOp, ScopeIdOp

    m = parse_module(kernel("%w = tirx.warp_id : index\n%t = tirx.thread_id y : index\n"
                            "%b = tirx.cta_id z : index", "grid [2, 3, 5] threads [64, 2]"))
    k = next(o for o in m.walk() if isinstance(o, KernelOp))
    extents = {o.name: o.extent(k) for o in m.walk() if isinstance(o, ScopeIdOp)}
    assert extents == {"tirx.warp_id": 4, "tirx.thread_id": 2, "tirx.cta_id": 5}


def test_round_trip_of_launch_and_outputs():
    src = ("tirx.kernel @k(%A: !tirx.buffer<4xf32, global>) -> (%B: !tirx.buffer<4xf32, global>) "
           "grid [2, 1] threads [32] cluster [2, 1] target \"cuda -arch=sm_90a\" {\n  tirx.return\n}")
    m = parse_module(src)
    text = str(m)
    assert "-> (%B: !tirx.buffer<4xf32, global>) grid [2, 1] threads [32] cluster [2, 1]" in text
    assert str(parse_module(text)) == text



@pytest.mark.parametrize("layout,message", [
    ("swizzle(3,3,3) S[128]", "has a swizzle"),
    ("S[(4,32):(1@laneid,4)]", "uses axis laneid"),
])
def test_a_parameter_layout_device_memory_cannot_hold_is_refused(layout, message):
    """Found by tests/property/cuda_fuzz_campaign.py: a swizzle on a global parameter was
    accepted by the cuda pipeline (which ignored it) and refused only by the interpreter's
    launch."""
    src = kernel("", params=f"%A: !tirx.buffer<128xf32, global, {layout}>")
    with pytest.raises(VerifyException, match=f"parameter %A of @k: .*{message}"):
        verify(src)


def test_a_strided_parameter_layout_verifies():
    verify(kernel("", params="%A: !tirx.buffer<4x32xf32, global, S[(4,32):(1,4)]>"))
