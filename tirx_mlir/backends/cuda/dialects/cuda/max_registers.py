"""A kernel's registers per thread at launch, ``cuda.max_registers`` (stated once for the pass
that sets it, both printers and the SIMT interpreter).

``cuda-set-max-nreg`` (transforms/set_max_nreg.py) records it on a kernel whose warpgroups
re-balance registers with ``setmaxnreg``: PTX ISA, setmaxnreg, "requires that the kernel has
been launched with a valid value of maximum number of per-thread registers"; ptxas (13.0)
otherwise ignores the instruction (advisory C7508). ``-t ptx`` prints it as ``.maxnreg R``,
``-t cuda`` as ``__maxnreg__(R)`` (which replaces ``__launch_bounds__``: nvcc refuses both on
one kernel). The value is a whole number of registers in [24, 255], a multiple of 8 (what a
``setmaxnreg`` count is, so the pool of a CTA is a whole number of them).
"""

from __future__ import annotations

from xdsl.dialects.builtin import IntegerAttr

MAX_REGISTERS = "cuda.max_registers"
LOW, HIGH = 24, 255


def max_registers_error(kernel) -> str | None:
    """Why ``kernel``'s ``cuda.max_registers`` is not a valid count, or None."""
    attr = kernel.attributes.get(MAX_REGISTERS)
    if attr is None:
        return None
    value = attr.value.data if isinstance(attr, IntegerAttr) else None
    if not isinstance(value, int) or not LOW <= value <= HIGH or value % 8:
        return (f"{MAX_REGISTERS} must be an integer multiple of 8 in [{LOW}, {HIGH}] "
                f"(registers per thread), got {attr}")
    return None


def max_registers(kernel) -> int | None:
    """``kernel``'s registers per thread at launch, None when not fixed (check
    `max_registers_error` first)."""
    attr = kernel.attributes.get(MAX_REGISTERS)
    return attr.value.data if isinstance(attr, IntegerAttr) else None
