"""Count the PTX instructions a CUDA C++ source issues, by opcode: the "same work" check of
bench/cuda_print.py, applied to our ``-t cuda`` output and to TIRx's (bench/cuda_tirx_reference.py).

Standard library only, so both sides (the project's environment and the TIRx reference one)
import it. An instruction is issued either by an inline ``asm volatile("<opcode> ...")`` in the
``__global__`` kernel (ours) or by a call, in the kernel, of a ``__device__`` helper whose body is
such an ``asm`` (TIRx's ``tvm_builtin_ptx_*`` helpers). Sites are counted in the text, so an
instruction inside a loop counts once.
"""

from __future__ import annotations

import re
from collections import Counter

ASM = re.compile(r'asm\s+volatile\s*\(\s*"\s*([A-Za-z_][\w.:]*)')
HELPER = re.compile(r'__device__\s+[\w\s]*?\b(\w+)\s*\([^)]*\)\s*\{\s*asm\s+volatile\s*\(\s*"\s*'
                    r'([A-Za-z_][\w.:]*)')
KERNEL = re.compile(r'__global__[^;{]*\{')


def kernel_bodies(source: str) -> list[str]:
    """The text of each ``__global__`` function definition's body (declarations skipped)."""
    bodies = []
    for match in KERNEL.finditer(source):
        depth, i = 1, match.end()
        while depth and i < len(source):
            depth += {"{": 1, "}": -1}.get(source[i], 0)
            i += 1
        bodies.append(source[match.end():i - 1])
    return bodies


def ptx_sites(source: str) -> dict[str, int]:
    """``{opcode: sites}`` over the kernels of ``source``, e.g. ``{"ld.global.nc.v4.f32": 2}``."""
    helpers = {name: opcode for name, opcode in HELPER.findall(source)}
    calls = re.compile(r"\b(" + "|".join(map(re.escape, helpers)) + r")\s*\(") if helpers else None
    counts: Counter[str] = Counter()
    for body in kernel_bodies(source):
        counts.update(ASM.findall(body))
        if calls is not None:
            counts.update(helpers[name] for name in calls.findall(body))
    return dict(sorted(counts.items()))
