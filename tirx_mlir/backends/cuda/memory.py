"""CUDA's memories that the core does not name: Blackwell tensor memory and its layout axes.

The core's scopes ``global``, ``shared``, ``shared.dyn`` and ``local`` (TVM's storage model) cover
CUDA's global, shared and register memory. Tensor memory (``tmem``, sm_100 and later) is an
on-chip memory of 128 lanes x 512 columns of 32-bit cells per CTA that the tcgen05 instructions
read and write (PTX ISA, "Tensor Memory"); a layout places elements on its ``TLane`` and
``TCol`` axes. `register_cuda_memory` registers them (from the backend's ``register_backend()``).
This module imports nothing heavy.
"""

from __future__ import annotations

from tirx_mlir import registry

TMEM = "tmem"
SCOPES = {TMEM: "Blackwell tensor memory (128 lanes x 512 columns of 32 bits per CTA)"}

LANE_AXIS = "TLane"
COLUMN_AXIS = "TCol"
AXES = {LANE_AXIS: "Blackwell tensor-memory lane", COLUMN_AXIS: "Blackwell tensor-memory column"}


def register_cuda_memory() -> None:
    """Register the tensor-memory scope and its axes (called from register_backend)."""
    for name, description in SCOPES.items():
        registry.register_memory_scope(name, description)
    for axis in AXES:
        registry.register_layout_axis(axis, "memory")
