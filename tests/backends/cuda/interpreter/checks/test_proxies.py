"""The proxy check (checks/proxies.py) on small kernels: shared bytes written through the
generic proxy (``st.shared``, a landed ``cp.async``) and then read through the async proxy (a
bulk store, wgmma) need a ``fence.proxy.async`` of the writer after the write, or of every
reader before the read; bytes a TMA/bulk load wrote are the async proxy's and need none. (The
wgmma kernels of tensor_core/test_wgmma_kernels.py cover the descriptor reads.)"""

from __future__ import annotations

import numpy as np
import pytest

from tirx_mlir.interpreter.runtime import InterpretError
from tirx_testing.simt import cuda_kernel, run_simt
from tirx_testing.simt_async import spin_wait

N = 32
_BUF = f"!tirx.buffer<{N}xi32, shared>"
_GLOBAL = f"!tirx.buffer<{N}xi32, global>"
FENCE = 'ptx.fence_proxy_async "shared::cta"'

WRITES = {
    # every thread stores its word with st.shared
    "st": """  %v = cuda.load %In, %t : {g}, index -> i32
  ptx.st "shared.b32" [%pt], %v : (i32, i32) -> ()""",
    # every thread copies its word with cp.async (a generic-proxy write when it lands)
    "cp_async": """  ptx.cp_async "ca.shared" [%pt], [%gt], 4 : (i32, i64) -> ()
  {early}
  ptx.cp_async_wait_all""",
    # thread 0 loads the whole buffer with a bulk copy (the async proxy), all wait for it
    "bulk": """  scf.if %leader {{
    ptx.mbarrier_init "shared" [%pb], %one : (i32, i32) -> ()
    %s = ptx.mbarrier_arrive_expect_tx "shared" [%pb], %size : (i32, i32) -> i64
    ptx.cp_async_bulk_g2s "shared::cta" [%ps], [%g0], %size, [%pb] : (i32, i64, i32, i32) -> ()
  }}
{wait}""",
}


def proxy_kernel(write: str, fence: str | None, overwrite: int | None = None) -> str:
    """``WRITES[write]`` fills a 32-word shared buffer (32 threads); ``fence`` places a
    fence.proxy.async: "writers" (every thread, after its write, before the barrier),
    "early" (cp.async only: between the copy's issue and its wait), "reader" (thread 0, after
    the barrier); then thread 0 stores the buffer to Out with cp.async.bulk (the async proxy).
    ``overwrite``: that thread st.shared's the word 7 over its slot after the barrier."""
    write_ir = WRITES[write].format(g=_GLOBAL, early=FENCE if fence == "early" else "",
                                    wait=spin_wait())
    if write == "bulk":  # the mbarrier is initialised before anyone waits on it
        write_ir = write_ir.replace("  }\n", "  }\n  cuda.sync_threads\n", 1)
    after = ""
    if overwrite is not None:
        after = f"""  %is_w = arith.cmpi eq, %t, %cw : index
  scf.if %is_w {{
    ptx.st "shared.b32" [%pt], %seven : (i32, i32) -> ()
  }}
  cuda.sync_threads"""
    return cuda_kernel(f"(%In: {_GLOBAL}) -> (%Out: {_GLOBAL})", f"""
  %c0 = arith.constant 0 : index
  %cw = arith.constant {overwrite or 0} : index
  %one = arith.constant 1 : i32
  %seven = arith.constant 7 : i32
  %p0 = arith.constant 0 : i32
  %true = arith.constant true
  %size = arith.constant {4 * N} : i32
  %sm = cuda.shared_alloc align 16 : {_BUF}
  %bar = cuda.shared_alloc align 8 : !tirx.buffer<1xi64, shared>
  %pb = cuda.address %bar, %c0 : !tirx.buffer<1xi64, shared>, index -> i32
  %ps = cuda.address %sm, %c0 : {_BUF}, index -> i32
  %g0 = cuda.address %In, %c0 : {_GLOBAL}, index -> i64
  %go = cuda.address %Out, %c0 : {_GLOBAL}, index -> i64
  %t = cuda.thread_idx x : index
  %leader = arith.cmpi eq, %t, %c0 : index
  %pt = cuda.address %sm, %t : {_BUF}, index -> i32
  %gt = cuda.address %In, %t : {_GLOBAL}, index -> i64
{write_ir}
  {FENCE if fence == "writers" else ""}
  cuda.sync_threads
{after}
  scf.if %leader {{
    {FENCE if fence == "reader" else ""}
    ptx.cp_async_bulk_s2g [%go], [%ps], %size : (i64, i32, i32) -> ()
    ptx.cp_async_bulk_commit_group
    ptx.cp_async_bulk_wait_group "read" 0
  }}""")


def _run(write: str, fence: str | None, overwrite: int | None = None) -> np.ndarray:
    x = np.arange(N, dtype=np.int32) * 3 - 5
    (out,), _ = run_simt(proxy_kernel(write, fence, overwrite), x)
    return out


def _expected(overwrite: int | None = None) -> np.ndarray:
    x = np.arange(N, dtype=np.int32) * 3 - 5
    if overwrite is not None:
        x[overwrite] = 7
    return x


@pytest.mark.parametrize("write, fence", [("st", "writers"), ("st", "reader"),
                                          ("cp_async", "writers"), ("cp_async", "reader"),
                                          ("bulk", None)])
def test_fenced_or_async_proxy_writes_reach_the_bulk_store(write, fence):
    np.testing.assert_array_equal(_run(write, fence), _expected())


def test_st_shared_then_bulk_store_without_a_fence_is_an_error():
    with pytest.raises(InterpretError) as err:
        _run("st", None)
    text = str(err.value)
    assert "[proxy] ptx.cp_async_bulk_s2g: reads shared offset 0 (%sm[0]) of CTA (0,0,0) " \
           "through the async proxy, but its last write, by the ptx.st at <test>:" in text, text
    assert "in thread (0,0,0) of CTA (0,0,0), went through the generic proxy, and no " \
           "fence.proxy.async followed it in the writing thread or in every thread issuing this op " \
           "(128 bytes of this read are unfenced) (thread (0,0,0) of CTA (0,0,0))" in text, text
    assert "hint: add ptx.fence_proxy_async" in text


def test_a_cp_async_is_written_through_the_generic_proxy_when_it_lands():
    """A fence between the cp.async's issue and its wait comes before its write (the landing):
    the bulk store of those bytes is an error naming the cp.async and its issuing thread."""
    with pytest.raises(InterpretError, match=r"\[proxy\] ptx.cp_async_bulk_s2g: reads shared "
                                             r"offset 0 \(%sm\[0\]\) of CTA \(0,0,0\) through "
                                             r"the async proxy, but its last write, by the "
                                             r"ptx.cp_async at <test>:\d+:\d+ in thread "
                                             r"\(0,0,0\)"):
        _run("cp_async", "early")


def test_a_generic_write_over_async_proxy_bytes_needs_the_fence_again():
    """The bulk-loaded buffer needs no fence; thread 5's st.shared over one word after it
    does: the error names that store and thread 5."""
    np.testing.assert_array_equal(_run("bulk", "reader", overwrite=5), _expected(5))
    with pytest.raises(InterpretError, match=r"reads shared offset 20 \(%sm\[5\]\) of CTA "
                                             r"\(0,0,0\) through the async proxy, but its last "
                                             r"write, by the ptx.st at <test>:\d+:\d+ in thread "
                                             r"\(5,0,0\) .*\(4 bytes of this read"):
        _run("bulk", None, overwrite=5)


def test_a_bulk_load_over_unfenced_stores_is_an_error():
    """st.shared, then a bulk load into the same bytes without a fence: two writes through two
    proxies, unordered; the error is at the copy and names the store."""
    text = proxy_kernel("bulk", None).replace(
        "  scf.if %leader {\n    ptx.mbarrier_init",
        '  ptx.st "shared.b32" [%pt], %seven : (i32, i32) -> ()\n  cuda.sync_threads\n'
        "  scf.if %leader {\n    ptx.mbarrier_init", 1)
    with pytest.raises(InterpretError, match=r"\[proxy\] ptx.cp_async_bulk_g2s: writes shared "
                                             r"offset 0 \(%sm\[0\]\) of CTA \(0,0,0\) through "
                                             r"the async proxy, but its last write, by the "
                                             r"ptx.st at <test>:\d+:\d+ in thread \(0,0,0\) .*"
                                             r"\(128 bytes of this write are unfenced\)"):
        run_simt(text, np.arange(N, dtype=np.int32))
    fenced = text.replace("  cuda.sync_threads\n  scf.if %leader {\n    ptx.mbarrier_init",
                          f"  {FENCE}\n  cuda.sync_threads\n  scf.if %leader {{\n"
                          "    ptx.mbarrier_init", 1)
    assert fenced != text
    (out,), _ = run_simt(fenced, np.arange(N, dtype=np.int32))
    np.testing.assert_array_equal(out, np.arange(N, dtype=np.int32))
