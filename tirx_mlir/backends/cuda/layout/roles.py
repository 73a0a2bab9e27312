"""Which warpgroups play which role when a CTA-scope TMA copy and a CTA-scope wgmma GEMM split
the CTA (dispatch/tma_ring.py): the TMA producer is thread 0 of the last warpgroup and the
others are the wgmma consumers; a CTA of one warpgroup (or fewer threads) does both, from
thread 0."""

from __future__ import annotations

from tirx_mlir.dialects.tirx.kernel import KernelOp

WARPGROUP = 128


def warpgroups(kernel: KernelOp) -> int:
    return max(1, kernel.num_threads() // WARPGROUP)


def producer_thread(kernel: KernelOp) -> int:
    """The thread that issues TMA copies."""
    n = warpgroups(kernel)
    return WARPGROUP * (n - 1) if n > 1 and kernel.num_threads() % WARPGROUP == 0 else 0


def consumer_warpgroups(kernel: KernelOp) -> int:
    """Warpgroups ``0 .. n-1`` run the consumers' wgmma."""
    n = warpgroups(kernel)
    return n - 1 if n > 1 else 1
