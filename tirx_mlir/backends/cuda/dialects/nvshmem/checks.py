"""The NVSHMEM rules the ``nvshmem`` ops share, stated once (NVSHMEM API reference: "Remote
Memory Access", "Signaling Operations", "Point-To-Point Synchronization").

The symmetric side of a transfer, signals and wait variables live in the symmetric heap, which
is device ``global`` memory (``nvshmem_malloc``); the local side of put/get may also be shared
memory. A signal is the first element of an ``i64`` buffer (NVSHMEM's ``uint64_t``).
"""

from __future__ import annotations

from xdsl.ir import SSAValue

from tirx_mlir.backends.cuda.dialects.cuda import checks
from tirx_mlir.backends.cuda.memory import ADDRESSABLE_SCOPES, GLOBAL
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.rules import RuleError

GROUPS = ("thread", "warp", "block")
"""Who calls a collective-style variant together: one thread (``nvshmem_*``), a whole warp
(``nvshmemx_*_warp``) or the whole block (``nvshmemx_*_block``)."""
SIGNAL_OPS = ("set", "add")
"""``NVSHMEM_SIGNAL_SET`` / ``NVSHMEM_SIGNAL_ADD``."""
COMPARISONS = ("eq", "ne", "gt", "ge", "lt", "le")
"""``NVSHMEM_CMP_EQ`` ... ``NVSHMEM_CMP_LE``."""
WAIT_TYPES = ("i32", "ui32", "i64")
"""Element types of a point-to-point wait variable (int, unsigned int, long long)."""


def symmetric(name: str, value: SSAValue) -> BufferType:
    """A buffer in the symmetric heap (device global memory)."""
    t = value.type
    if isinstance(t, BufferType) and t.scope_name != GLOBAL:
        raise RuleError(f"operand '{name}' is in {t.scope_name}, but it must be symmetric "
                        f"memory (global, from nvshmem_malloc); stage it through a global "
                        f"buffer")
    return checks.buffer(name, value, (GLOBAL,))


def local(name: str, value: SSAValue) -> BufferType:
    """The local side of a transfer: global or shared memory."""
    return checks.buffer(name, value, ADDRESSABLE_SCOPES)


def signal(name: str, value: SSAValue) -> BufferType:
    t = symmetric(name, value)
    if checks.type_name(t.element_type) != "i64":
        raise RuleError(f"operand '{name}' holds {t.element_type}; a signal is a 64-bit word: "
                        f"use an i64 buffer")
    return t


def check_group(group: str) -> None:
    checks.check_choice("group", group, GROUPS)


def check_pe(value: SSAValue) -> None:
    checks.check_type("pe", value, ("i32",), "it is a PE number (nvshmem.my_pe gives one)")
