"""Tensor-core semantics of the SIMT interpreter: the exact PTX ISA fragment layouts and numerics
of ``mma.sync``, ``ldmatrix``/``stmatrix`` and ``wgmma.mma_async``, as pure numpy functions over
warp-batched register arrays (shape ``(warps, 32, regs)``, int32 b32 registers) and shared-memory
byte arrays.

Modules: ``packing`` (sub-32-bit elements in b32 registers), ``mma_fragments`` (which lane and
register holds which matrix element, per ``mma`` form), ``mma`` (D = A*B + C), ``ldmatrix``
(``ldmatrix``/``stmatrix`` m8n8), ``descriptor`` (the wgmma shared-memory matrix descriptor;
its 32/64/128-byte swizzles are ``backends/cuda/layout/swizzle.py``'s), ``wgmma_fragments`` and ``wgmma`` (warpgroup MMA);
``lane_impls`` runs the ``ptx`` ops on the SIMT engine with them (warp/warpgroup-collective
checks, rows through the checked shared memory, wgmma accumulator ownership).
"""
