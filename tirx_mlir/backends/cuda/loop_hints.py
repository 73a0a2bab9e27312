"""Loop hints the CUDA printers pass on to the compilers: ``cuda.nounroll`` on an ``scf.for``
prints ``.pragma "nounroll";`` in the loop's header (PTX ISA, "Descriptions of .pragma
Strings") and ``#pragma unroll 1`` before the C++ ``for`` (CUDA C++ Programming Guide, "#pragma
unroll"); ``cuda.unroll`` prints ``#pragma unroll`` before the C++ ``for`` (PTX has no such
pragma: ptxas decides, and unrolls short constant-trip loops itself; a loop that indexes a
thread's local array is expanded by the PTX printer whatever its hint, printers/ptx/unroll.py).

Dispatch marks the loops it rolls a variant's rounds into (`dispatch.rounds`) ``cuda.unroll``:
the IR stays one body long for the passes, the compilers get the unrolled code.

cuda-pipeline-k-loop marks the ring loops it builds: their stage is a loop-carried slot, so a
fully unrolled ring gains only immediates, and ptxas unrolls a short constant-trip ring (16
K steps of the 128x128 sm_80 GEMM) completely, with more registers than the loop needs (212
instead of 201 there; 254 instead of 198 for the same GEMM with a bias-and-ReLU epilogue). A
hint only: the program means the same with or without it, and the interpreters ignore it.

The wgmma dispatch marks the loop around an accumulating wgmma chain of several accumulator
sets (dispatch/gemm_async.py): NVVM unrolling it would rematerialise the first iteration's
zeroed accumulators between the wgmmas (ptxas advisory C7520).
"""

from __future__ import annotations

from xdsl.dialects.builtin import UnitAttr
from xdsl.ir import Operation

NOUNROLL = "cuda.nounroll"
UNROLL = "cuda.unroll"


def mark_nounroll(loop: Operation) -> None:
    loop.attributes[NOUNROLL] = UnitAttr()


def is_nounroll(loop: Operation) -> bool:
    return NOUNROLL in loop.attributes


def mark_unroll(loop: Operation) -> None:
    loop.attributes[UNROLL] = UnitAttr()


def is_unroll(loop: Operation) -> bool:
    return UNROLL in loop.attributes
