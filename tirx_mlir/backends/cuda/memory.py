"""CUDA's memory scopes, stated once: the names a ``!tirx.buffer`` uses for each state space.

=============== ======================================= =================================
scope           CUDA / PTX state space                  written by
=============== ======================================= =================================
``global``      device global memory (``.global``)      kernel parameters, ``cudaMalloc``
``shared``      static ``__shared__`` (``.shared``)     ``cuda.shared_alloc``
``shared.dyn``  ``extern __shared__`` arena             ``cuda.dynamic_shared``
``local``       per-thread registers / ``.local``       register tiles
``tmem``        Blackwell tensor memory                 tcgen05 (sm_100a class)
=============== ======================================= =================================

``global``, ``shared``, ``shared.dyn`` and ``local`` are the core's (TVM's storage model, shared
by every GPU backend). Tensor memory (``tmem``, sm_100 and later) is CUDA's own: an on-chip memory
of 128 lanes x 512 columns of 32-bit cells per CTA that the tcgen05 instructions read and write
(PTX ISA, "Tensor Memory"); a layout places elements on its ``TLane`` and ``TCol`` axes.
`register_cuda_memory` registers them (from the backend's ``register_backend()``). This module
imports nothing heavy.
"""

from __future__ import annotations

GLOBAL = "global"
SHARED = "shared"
SHARED_DYN = "shared.dyn"
LOCAL = "local"
TMEM = "tmem"

SHARED_SCOPES = (SHARED, SHARED_DYN)
"""The scopes that are CUDA shared memory (static or the dynamic arena)."""
ADDRESSABLE_SCOPES = (GLOBAL, SHARED, SHARED_DYN)
"""Scopes a load, store or atomic addresses (registers and tensor memory are not)."""
ACCESS_SCOPES = (*ADDRESSABLE_SCOPES, LOCAL)
"""Scopes ``cuda.load`` / ``cuda.store`` read and write: the addressable ones and a thread's
``local`` arrays (registers when every index is a constant, ``.local`` memory otherwise)."""

SCOPES = {TMEM: "Blackwell tensor memory (128 lanes x 512 columns of 32 bits per CTA)"}
"""The scopes the cuda backend registers (the others are the core's)."""

LANE_AXIS = "TLane"
COLUMN_AXIS = "TCol"
AXES = {LANE_AXIS: "Blackwell tensor-memory lane", COLUMN_AXIS: "Blackwell tensor-memory column"}

STATIC_SHARED_LIMIT = 48 * 1024
"""Bytes of statically allocated shared memory a block may declare; more needs the dynamic
arena and ``cudaFuncSetAttribute(MaxDynamicSharedMemorySize)`` (CUDA C++ Programming Guide,
"Shared Memory")."""


def register_cuda_memory() -> None:
    """Register the tensor-memory scope and its axes (called from register_backend)."""
    from tirx_mlir import registry

    for name, description in SCOPES.items():
        registry.register_memory_scope(name, description)
    for axis in AXES:
        registry.register_layout_axis(axis, "memory")
