"""Trainium's memories, stated once: the SBUF and PSUM scopes, their layout axes, the address
attribute and the partition facts.

A NeuronCore has two on-chip memories, both split into ``partitions`` rows (128) that the engines
read in parallel, one row per lane:

* ``trn.sbuf``, the state buffer (192 KiB per partition on NeuronCore-v2, of which the last 16 KiB
  are kept back for the compiler and runtime);
* ``trn.psum``, the partial-sum buffer that TensorE accumulates into (16 KiB per partition in
  8 banks of 2 KiB; a matmul output stays inside one bank).

HBM is the core's ``global`` scope. A Trainium layout places elements on the axes ``P``
(partition), ``F`` (the element offset within a partition) and, in PSUM, ``Bank``. An
allocation in SBUF or PSUM carries its byte offset inside each partition in ``trn.addr`` (set by
``trn-allocate``, printed by the NKI printers); the kernel records its footprint in
``trn.sbuf_bytes`` / ``trn.psum_bytes``.

`register_trn_memory` registers the scopes and axes (from the backend's ``register_backend()``);
`memory_spaces` gives the physical description of both memories for a target's `TrnLimits`,
which the allocator and the physical memory model share. This module imports nothing heavy: it
runs at ``import tirx_mlir``.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from tirx_mlir import registry
from tirx_mlir.backends.trn.target_tags import TrnLimits

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.interpreter import Interpreter

    from tirx_mlir.dialects.tirx.attributes import BufferType
    from tirx_mlir.dialects.tirx.memory_space import MemorySpace

SBUF = "trn.sbuf"
PSUM = "trn.psum"
HBM = "global"
ON_CHIP = (SBUF, PSUM)
SCOPES = {
    SBUF: "Trainium state buffer (128 partitions)",
    PSUM: "Trainium partial-sum buffer (8 banks x 2 KiB per partition)",
}

PARTITION_AXIS = "P"
FREE_AXIS = "F"
BANK_AXIS = "Bank"
AXES = {
    PARTITION_AXIS: "Trainium partition",
    FREE_AXIS: "Trainium free (element offset within a partition)",
    BANK_AXIS: "Trainium PSUM bank",
}

ADDR_ATTR = "trn.addr"
"""Discardable attribute on a ``tirx.alloc`` of trn.sbuf/trn.psum: its byte offset inside each
partition, set by the allocator and printed as ``address=`` / ``mod_alloc``."""
FOOTPRINT_ATTRS = {SBUF: "trn.sbuf_bytes", PSUM: "trn.psum_bytes"}
"""Kernel attributes recording the bytes per partition the allocation uses in each memory."""

PARTITIONS = TrnLimits.partitions
"""Partitions of every NeuronCore so far (a target's ``partitions`` may say otherwise)."""
PSUM_BANK_BYTES = TrnLimits.psum_bank_bytes
"""Bytes of one PSUM bank per partition."""
SBUF_ALIGNMENT = 64
"""Default byte alignment of SBUF allocations (``trn-allocate{align=...}``)."""


def register_trn_memory() -> None:
    """Register the SBUF/PSUM scopes, the P/F/Bank axes and the layout shorthands ``"PF"``
    of both scopes (`layout.shorthand`; called from register_backend)."""
    for name, description in SCOPES.items():
        registry.register_memory_scope(name, description)
    for axis in AXES:
        registry.register_layout_axis(axis, "memory")
    shorthands = "tirx_mlir.backends.trn.layout.shorthand"
    registry.register_layout_shorthand(SBUF, registry.Lazy(shorthands, "sbuf_shorthand"))
    registry.register_layout_shorthand(PSUM, registry.Lazy(shorthands, "psum_shorthand"))


def is_on_chip(btype: "BufferType") -> bool:
    return btype.scope_name in ON_CHIP


@lru_cache(maxsize=64)
def memory_spaces(limits: TrnLimits, sbuf_alignment: int = SBUF_ALIGNMENT
                  ) -> tuple["MemorySpace", ...]:
    """SBUF and PSUM of a target, as the core allocator and memory model describe memories:
    SBUF less its reserved bytes, in ``sbuf_alignment`` steps; PSUM in whole banks."""
    from tirx_mlir.dialects.tirx.memory_space import MemorySpace

    common = dict(rows=limits.partitions, address_attr=ADDR_ATTR, row_name="partition",
                  source=limits.source)
    return (
        MemorySpace(SBUF, bytes_per_row=limits.sbuf_bytes_per_partition,
                    alignment=sbuf_alignment, reserve=limits.sbuf_reserved_bytes,
                    footprint_attr=FOOTPRINT_ATTRS[SBUF], **common),
        MemorySpace(PSUM, bytes_per_row=limits.psum_bytes_per_partition,
                    alignment=limits.psum_bank_bytes, granule=limits.psum_bank_bytes,
                    footprint_attr=FOOTPRINT_ATTRS[PSUM], **common),
    )


_BY_LIMITS: dict[int, tuple[TrnLimits, dict[str, "MemorySpace"]]] = {}


def memory_space(limits: TrnLimits, scope: str) -> "MemorySpace":
    """The description of one on-chip memory (``scope`` in ON_CHIP). The verifiers ask for
    every tile operand, so this looks the limits object up by identity (guarded: an entry whose
    object died and whose id was reused is rebuilt) instead of hashing its fields."""
    hit = _BY_LIMITS.get(id(limits))
    if hit is None or hit[0] is not limits:
        if len(_BY_LIMITS) >= 256:
            _BY_LIMITS.clear()
        hit = _BY_LIMITS[id(limits)] = (limits, {s.scope: s for s in memory_spaces(limits)})
    return hit[1][scope]


def physical_interpreter(module: "ModuleOp", limits: TrnLimits | None = None) -> "Interpreter":
    """The reference interpreter with every addressed SBUF/PSUM allocation a view of one shared
    memory per scope (`tirx_mlir.interpreter.physical_memory`), to check the allocator."""
    from tirx_mlir.interpreter.physical_memory import physical_interpreter as core_interpreter

    return core_interpreter(module, memory_spaces(limits or TrnLimits()))
