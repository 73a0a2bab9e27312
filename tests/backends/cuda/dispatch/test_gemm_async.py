"""gemm_async wgmma through the cuda pipeline: numpy == tile interpreter == SIMT interpreter after
every pass (the SIMT interpreter's wgmma reads the swizzled tiles through the descriptors the
variant builds), the printed code compiles for sm_90a with no C75xx advisory; and the reasons
it declines."""

from __future__ import annotations

import numpy as np
import pytest

from tirx_testing.cuda_every_stage import check_every_stage, lower
from tirx_mlir.diagnostics import TirxError


def _kernel(m, n, k, ta=False, tb=False, accum=False, threads=128, scope="warpgroup"):
    a = (k, m) if ta else (m, k)
    b = (k, n) if tb else (n, k)
    A = f"!tirx.buffer<{a[0]}x{a[1]}xf16, {{}}>"
    B = f"!tirx.buffer<{b[0]}x{b[1]}xf16, {{}}>"
    C = f"!tirx.buffer<{m}x{n}xf32, {{}}>"
    flags = " ".join(f for f, on in (("transpose_a", ta), ("transpose_b", tb),
                                      ("accum", accum)) if on)
    init = f"  tirx.copy {scope} %acc, %C0 : {C.format('local')}, {C.format('global')}\n" \
        if accum else ""
    c0 = f", %C0: {C.format('global')}" if accum else ""
    return f"""tirx.kernel @k(%A: {A.format('global')}, %B: {B.format('global')}{c0})
    -> (%C: {C.format('global')}) grid [1] threads [{threads}] target "cuda -arch=sm_90a" {{
  %sa = tirx.alloc : {A.format('shared')}
  %sb = tirx.alloc : {B.format('shared')}
  %acc = tirx.alloc : {C.format('local')}
  tirx.copy cta %sa, %A : {A.format('shared')}, {A.format('global')}
  tirx.copy cta %sb, %B : {B.format('shared')}, {B.format('global')}
{init}  tirx.gemm_async {scope} %acc, %sa, %sb {flags} : {C.format('local')}, {A.format('shared')}, {B.format('shared')}
  tirx.copy {scope} %C, %acc : {C.format('global')}, {C.format('local')}
  tirx.return
}}
"""


def _ref(ta, tb, accum):
    def ref(a, b, *c):
        a32 = (a.T if ta else a).astype(np.float32)
        b32 = (b if tb else b.T).astype(np.float32)
        out = a32 @ b32
        return [out + c[0] if accum else out]
    return ref


@pytest.mark.parametrize("ta, tb", [(False, False), (True, False), (False, True), (True, True)])
def test_transposes(ta, tb):
    check_every_stage(_kernel(64, 64, 64, ta, tb), _ref(ta, tb, False), arch="sm_90a",
                      rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("m, n, k", [(64, 256, 32), (128, 32, 16), (64, 24, 32)])
def test_shapes(m, n, k):
    """N up to 256 in one instruction, two m64 tiles, an N that only n8 divides... (n24)."""
    check_every_stage(_kernel(m, n, k), _ref(False, False, False), arch="sm_90a",
                      rtol=1e-3, atol=1e-3)


def test_accumulate():
    check_every_stage(_kernel(64, 64, 32, accum=True), _ref(False, False, True), arch="sm_90a",
                      rtol=1e-3, atol=1e-3)


def test_cta_scope_splits_rows_over_consumer_warpgroups():
    """3 warpgroups: the last is the TMA producer's, the other two take 64 rows each."""
    check_every_stage(_kernel(128, 64, 32, threads=384, scope="cta"),
                      _ref(False, False, False), arch="sm_90a", rtol=1e-3, atol=1e-3)


@pytest.mark.parametrize("threads", [64, 320])
def test_a_block_of_partial_warpgroups_rejects_wgmma(threads):
    with pytest.raises(TirxError, match=rf"wgmma \(prio=10\) \| rejected: whole warpgroups .* "
                                        rf"threads \[{threads}\] is not a whole number of "
                                        rf"warpgroups; wgmma needs all 128 threads"):
        lower(_kernel(128, 64, 32, threads=threads, scope="cta"))


def test_cta_scope_rows_that_do_not_split_over_the_consumers_decline_saying_so():
    """64 rows at cta scope with 2 consumer warpgroups (384 threads): a located decline
    naming the rows needed (found by tests/property/cuda_valid_campaign.py; the variant
    raised a ValueError building the layout it wanted)."""
    with pytest.raises(TirxError, match=r"wgmma \(prio=10\) \| declined .* 64 rows must be a "
                                        r"multiple of 128 .* warpgroup scope"):
        lower(_kernel(64, 24, 16, threads=384, scope="cta"))


def test_declines_without_sm90a():
    with pytest.raises(TirxError, match="wgmma exists only on sm_90a"):
        lower(_kernel(64, 64, 64).replace("sm_90a", "sm_90"))


def test_declines_an_unswizzled_operand():
    text = _kernel(64, 64, 64).replace("!tirx.buffer<64x64xf16, shared>",
                                       "!tirx.buffer<64x64xf16, shared, S[64,64]>")
    with pytest.raises(TirxError, match="wgmma reads swizzled shared tiles"):
        lower(text)


def _rs_kernel(m, n, k, scope="warpgroup", threads=128, a_layout="", flags=""):
    """The rs form: A [m, k] staged from global straight into registers (its default layout is
    the rs fragment layout), B [n, k] in shared memory."""
    A, B = f"!tirx.buffer<{m}x{k}xf16, {{}}>", f"!tirx.buffer<{n}x{k}xf16, {{}}>"
    C = f"!tirx.buffer<{m}x{n}xf32, {{}}>"
    la = f"!tirx.buffer<{m}x{k}xf16, local{a_layout}>"
    return f"""tirx.kernel @rs(%A: {A.format('global')}, %B: {B.format('global')})
    -> (%C: {C.format('global')}) grid [1] threads [{threads}] target "cuda -arch=sm_90a" {{
  %a = tirx.alloc : {la}
  %sb = tirx.alloc : {B.format('shared')}
  %acc = tirx.alloc : {C.format('local')}
  tirx.copy {scope} %a, %A : {la}, {A.format('global')}
  tirx.copy cta %sb, %B : {B.format('shared')}, {B.format('global')}
  tirx.gemm_async {scope} %acc, %a, %sb {flags} : {C.format('local')}, {la}, {B.format('shared')}
  tirx.copy {scope} %C, %acc : {C.format('global')}, {C.format('local')}
  tirx.return
}}
"""


@pytest.mark.parametrize("m, n, k, scope, threads, wgmmas", [
    (64, 64, 32, "warpgroup", 128, 2),   # one m64 tile, 2 K steps
    (128, 64, 32, "cta", 128, 4),        # one warpgroup holding two m64 tiles
    (128, 64, 32, "cta", 384, 2),        # two consumer warpgroups, one m64 tile each
])
def test_rs_form_reads_a_from_registers(m, n, k, scope, threads, wgmmas):
    final = check_every_stage(_rs_kernel(m, n, k, scope, threads), _ref(False, False, False),
                              arch="sm_90a", rtol=1e-3, atol=1e-3, name="rs")
    text = str(final)
    assert text.count("ptx.wgmma_mma_async_rs") == wgmmas and "wgmma_mma_async_ss" not in text
    assert text.count("ptx.mov_pack") == 4 * wgmmas  # 8 f16 a K step, packed in 4 b32


def test_rs_form_declines_a_transposed_or_misplaced_a():
    with pytest.raises(TirxError, match="transpose_a applies to shared A only"):
        lower(_rs_kernel(64, 64, 64, flags="transpose_a"))
    row_major = ", S[(64,32):(32@m,1@m)]".replace("@m", "")
    with pytest.raises(TirxError, match="needs the rs fragment layout"):
        lower(_rs_kernel(64, 64, 32, a_layout=row_major))


GRAM = """tirx.kernel @gram(%X: !tirx.buffer<128x256xf16, global>) -> (%C: !tirx.buffer<128x128xf32, global>)
    grid [1] threads [256] target "cuda -arch=sm_90a" {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %ring = tirx.alloc : !tirx.buffer<2x128x64xf16, shared>
  %acc = tirx.alloc : !tirx.buffer<128x128xf32, local>
  tirx.zero cta %acc : !tirx.buffer<128x128xf32, local>
  scf.for %k = %c0 to %c4 step %c1 {
    %s = arith.remui %k, %c2 : index
    %k0 = arith.muli %k, %c64 : index
    %x = tirx.slice %X[%c0, %k0] [128, 64] : !tirx.buffer<128x256xf16, global> -> !tirx.buffer<128x64xf16, global>
    %r3 = tirx.slice %ring[%s, 0, 0] [1, 128, 64] : !tirx.buffer<2x128x64xf16, shared> -> !tirx.buffer<1x128x64xf16, shared>
    %t = tirx.reshape %r3 : !tirx.buffer<1x128x64xf16, shared> -> !tirx.buffer<128x64xf16, shared>
    tirx.copy_async cta %t, %x dispatch "tma_auto" : !tirx.buffer<128x64xf16, shared>, !tirx.buffer<128x64xf16, global>
    tirx.gemm_async cta %acc, %t, %t accum : !tirx.buffer<128x128xf32, local>, !tirx.buffer<128x64xf16, shared>, !tirx.buffer<128x64xf16, shared>
  }
  tirx.copy cta %C, %acc : !tirx.buffer<128x128xf32, global>, !tirx.buffer<128x128xf32, local>
  tirx.return
}
"""


def test_a_gemm_reading_one_stage_as_both_operands_waits_and_releases_it_once():
    """X @ X^T through a pipelined ring: the consumers wait on the stage's full barrier and
    arrive on its empty barrier once per use, not once per operand (twice flipped the use
    parity and deadlocked the SIMT run). numpy == tile == SIMT after every pass, nvcc + ptxas
    without advisories: the K loop stays rolled (unrolled by NVVM, the first iteration's zero
    accumulators of the second m64 tile were rematerialised between the wgmmas of the first,
    C7520: wgmma serialised)."""
    def reference(x):
        x32 = x.astype(np.float32)
        return [x32 @ x32.T]

    final = check_every_stage(GRAM, reference, arch="sm_90a", name="gram", rtol=1e-2,
                              atol=1e-2)
    names = [op.name for op in final.walk()]
    loops = [op for op in final.walk() if op.name == "scf.for" and
             any(o.name == "ptx.wgmma_commit_group" for o in op.walk())]
    assert len(loops) == 1 and "cuda.nounroll" in loops[0].attributes
    assert names.count("ptx.mbarrier_try_wait_parity") == 2  # the producer's empty, one full
