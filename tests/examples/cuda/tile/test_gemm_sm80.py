"""examples/cuda/tile/gemm_sm80.mlir: the tiled sm_80 GEMM (cp.async 3-stage ring, ldmatrix,
mma.sync). A one-CTA version is checked at every stage of the cuda pipeline (numpy == tile
interpreter == SIMT after each pass, cuda-pipeline-k-loop's 3-stage ring included); the
example's own size is lowered and run once. Both compile for sm_80 without spills or advisories and
their ldmatrix reads of the swizzled tiles have no bank conflicts."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
from tirx_testing.cuda_compile import ptx_sass_opcodes
from tirx_testing.cuda_every_stage import check_compiles, check_every_stage, lower
from xdsl.dialects import arith, scf

from tirx_mlir.backends.cuda.dialects.cuda.address import AddressOp
from tirx_mlir.backends.cuda.interpreter import simulate
from tirx_mlir.backends.cuda.printers.ptx import emit_ptx

EXAMPLE = Path(__file__).parents[4] / "examples" / "cuda" / "tile" / "gemm_sm80.mlir"


def matmul(a, b):
    return [a.astype(np.float32) @ b.astype(np.float32)]


def one_cta(text: str) -> str:
    """The example on a 128x128 output and K = 128: one CTA, 4 K steps."""
    for old, new in (("256x512xf16", "128x128xf16"), ("512x256xf16", "128x128xf16"),
                     ("256x256xf32", "128x128xf32"), ("grid [2, 2]", "grid [1, 1]"),
                     ("%c512 = arith.constant 512", "%c512 = arith.constant 128")):
        assert old in text
        text = text.replace(old, new)
    return text


def _pipelined(text: str, stages: int = 3):
    """The cuda pipeline, whose cuda-pipeline-k-loop turns the K loop into a ``stages`` ring."""
    return lower(text, "gemm_sm80", num_stages=stages)


def _check_run(module, a, b) -> None:
    run = simulate(module, "gemm_sm80", a, b)
    np.testing.assert_allclose(run.outputs[0], matmul(a, b)[0], rtol=1e-4, atol=1e-3)
    ldmatrix = run.stats.of("ptx.ldmatrix")
    assert ldmatrix and sum(r.bank_conflicts for r in ldmatrix) == 0


def _inputs(m: int, n: int, k: int):
    rng = np.random.default_rng(0)
    return (rng.standard_normal((m, k)).astype(np.float16),
            rng.standard_normal((k, n)).astype(np.float16))


def test_one_cta_at_every_stage_then_pipelined():
    final = check_every_stage(one_cta(EXAMPLE.read_text()), matmul, rtol=1e-4, atol=1e-3,
                              name="gemm_sm80", compile=False)
    text = str(final)
    assert text.count('ptx.mma_sync "m16n8k16.f32.f16.f16.f32"') == 64
    assert text.count("ptx.cp_async_wait_group 1") == 1
    assert "12288xf16" in text                                     # 3 stages of 128x32
    _check_run(final, *_inputs(128, 128, 128))
    check_compiles(final, "sm_80", "gemm_sm80")


def test_the_example_itself():
    module = _pipelined(EXAMPLE.read_text())
    _check_run(module, *_inputs(256, 256, 512))
    check_compiles(module, "sm_80", "gemm_sm80")


def test_the_ring_is_filled_with_16_byte_copies():
    """The f16 tiles' swizzle keeps 16-byte chunks whole, so the staged copies are 16 bytes
    (8 packed f16, ``ld``/``st.v4.b32``) and the ring takes ``cp.async.cg ..., 16``
    (LDGSTS.128): 8 per thread and K step for a 128x32 and a 32x128 tile of 128 threads, not
    16 of 8 bytes."""
    module = _pipelined(EXAMPLE.read_text())
    ptx = emit_ptx(module)
    sizes = re.findall(r"cp\.async\.(\w+)\.shared\.global \[[^]]*\], \[[^]]*\], (\d+);", ptx)
    assert sizes and set(sizes) == {("cg", "16")}
    label = re.search(r"^(\$L__for\d+):", ptx, re.M).group(1)
    loop = ptx[ptx.index(f"{label}:"):ptx.index(f"bra.uni {label};")]
    assert len(re.findall(r"cp\.async\.cg", loop)) == 8
    ldgsts = {o for o in ptx_sass_opcodes(ptx, "sm_80") if o.startswith("LDGSTS")}
    assert ldgsts == {"LDGSTS.E.BYPASS.128"}


def test_ring_addresses_are_hoisted_out_of_the_k_loop():
    """cuda-hoist-invariants splits each address of the K loop into the thread's invariant
    address (before the loop) plus the ring slot's and the K step's bytes: inside the loop no
    address is computed from an element index (no ``cuda.address``), and every ldmatrix reads
    an address that is one add of the slot's bytes (and an immediate) away from a hoisted one."""
    module = _pipelined(EXAMPLE.read_text())
    loop = next(op for op in module.walk() if isinstance(op, scf.ForOp) and
                any(o.name == "ptx.ldmatrix" for o in op.walk()))
    assert not [o for o in loop.walk() if isinstance(o, AddressOp)]
    hoisted = {o.result for o in loop.parent_block().ops if isinstance(o, AddressOp)}
    for ld in (o for o in loop.walk() if o.name == "ptx.ldmatrix"):
        add = ld.operands[0].owner
        while isinstance(add, arith.AddiOp) and add.lhs not in hoisted:
            add = add.lhs.owner  # the immediate of a constant step
        assert isinstance(add, arith.AddiOp) and add.lhs in hoisted, ld
    # the m16 blocks of A share a base (their rows step by immediates, cuda-peel-constants)
    lds = [o for o in loop.walk() if o.name == "ptx.ldmatrix"]
    assert len(set(_hoisted_bases(loop, hoisted))) < len(lds) == 16


def _hoisted_bases(loop, hoisted):
    for ld in (o for o in loop.walk() if o.name == "ptx.ldmatrix"):
        add = ld.operands[0].owner
        while add.lhs not in hoisted:
            add = add.lhs.owner
        yield add.lhs
