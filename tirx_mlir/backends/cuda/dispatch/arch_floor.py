"""The cuda dispatch's precondition: the target is an arch the lowered code can exist for.

Every variant lowers to ``ptx``/``cuda`` ops whose instructions need at least the oldest target
the CUDA 13 ``ptxas`` has (`ptx.arch.TARGET_MIN_PTX`: sm_75). Below it (``sm_70``), the variants
used to lower anyway and the first op of their output failed its verifier after the pass
("ld.global.v4.b16 needs sm_75 or newer ... after pass 'tirx-dispatch'"); the kernel is refused
before dispatch instead, with the arch to write.
"""

from __future__ import annotations

from typing import Any

from tirx_mlir.diagnostics import PassError


def oldest_arch() -> int:
    from tirx_mlir.backends.cuda.dialects.ptx.arch import TARGET_MIN_PTX
    from tirx_mlir.backends.cuda.target_tags import sm_number

    return min(sm_number(arch) for arch in TARGET_MIN_PTX)


def require_supported_arch(kernel: Any, target: Any) -> None:
    """Refuse ``kernel`` when ``target``'s arch is older than every PTX target (no arch: the
    variants' own defaults apply)."""
    from tirx_mlir.backends.cuda.target_tags import sm_number

    arch = target.get("arch")
    if arch is None:
        return
    floor = oldest_arch()
    if sm_number(str(arch)) < floor:
        raise PassError(f"the cuda tile dispatch lowers to PTX instructions that need sm_{floor} "
                        f"or newer, but kernel @{kernel.kernel_name} targets {arch}", kernel,
                        hint=f"target sm_{floor} or newer (-arch=sm_{floor}, sm_80, sm_90a ...)")
