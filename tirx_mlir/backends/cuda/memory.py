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

``global`` belongs to the core (Trainium's HBM uses it too). The others are CUDA's and are
registered by the cuda backend (`register_cuda_memory_scopes`, called from
``register_backend()``). While the core still declares them itself (it did before backends
owned their memory facts), the core's entry is kept and this registration is skipped, so both
orders of that change work.
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

CUDA_MEMORY_SCOPES = {
    SHARED: "static CUDA shared memory (__shared__, PTX .shared)",
    SHARED_DYN: "the dynamic CUDA shared-memory arena (extern __shared__)",
    LOCAL: "per-thread registers (CUDA)",
    TMEM: "Blackwell tensor memory",
}

STATIC_SHARED_LIMIT = 48 * 1024
"""Bytes of statically allocated shared memory a block may declare; more needs the dynamic
arena and ``cudaFuncSetAttribute(MaxDynamicSharedMemorySize)`` (CUDA C++ Programming Guide,
"Shared Memory")."""


def register_cuda_memory_scopes() -> None:
    """Register CUDA's scopes (skipping any the core still declares)."""
    from tirx_mlir import registry

    for name, description in CUDA_MEMORY_SCOPES.items():
        if registry.memory_scopes.owner_of(name) == "core":
            continue
        registry.register_memory_scope(name, description)
