"""The ``cuda`` target kind and the NVIDIA tags.

    Target("cuda -arch=sm_90a -max_shared_memory_per_block=232448")
    Target("nvidia/nvidia-h100").num_sms                  # 132
    Target("nvidia/jetson-agx-orin-64gb").host            # llvm -mtriple=aarch64-linux-gnu ...

``max_shared_memory_per_block`` is the opt-in maximum per block of each compute capability (CUDA
C++ Programming Guide, "Technical Specifications per Compute Capability", row "Maximum amount of
shared memory per thread block"): 96 KiB for sm_70, 64 KiB for sm_75, 163 KiB for sm_80/sm_87,
99 KiB for sm_86/sm_89/sm_120, 227 KiB for sm_90/sm_100 (`OPT_IN_SHARED_BYTES`). A target that
does not state it (``cuda -arch=sm_80``) gets its arch's figure (`max_shared_bytes`); without an
arch, the 48 KiB every block may use without opting in. SM counts and L2 sizes are the
published figures of each product. Hopper and Blackwell datacenter parts use the ``a`` architectures
(sm_90a, sm_100a), which the wgmma/tcgen05/setmaxnreg instructions need.
"""

from __future__ import annotations

import re
from typing import Any

from tirx_mlir.target import AttrSpec, TargetKind, register_tag, register_target_kind

ARCH_PATTERN = r"sm_(\d+)([af]?)"
"""An NVIDIA architecture name: compute capability and the arch-specific (a) or family (f) suffix."""

KIB = 1024
MIB = 1024 * KIB

CUDA_KIND = TargetKind(
    "cuda",
    attrs=(
        AttrSpec("arch", str, None, "sm_90a", category="arch", pattern=ARCH_PATTERN),
        AttrSpec("max_shared_memory_per_block", int, None,
                 "shared memory bytes one block may use (opt-in maximum; default: the arch's)",
                 range=(KIB, 16 * MIB)),
        AttrSpec("max_threads_per_block", int, 1024, "threads per block", range=(1, 1024)),
        AttrSpec("max_num_threads", int, 1024, "threads per block the scheduler may use",
                 range=(1, 1024)),
        AttrSpec("thread_warp_size", int, 32, "threads per warp", choices=(32,)),
        AttrSpec("registers_per_block", int, 65536, "32-bit registers per block",
                 range=(1024, 1024 * KIB)),
        AttrSpec("max_registers_per_thread", int, 255, "32-bit registers per thread",
                 range=(1, 255)),
        AttrSpec("num_sms", int, None, "streaming multiprocessors", range=(1, 4096)),
        AttrSpec("l2_cache_size_bytes", int, None, "L2 cache bytes", range=(0, 16 * 1024 * MIB)),
        AttrSpec("max_cluster_size", int, 1, "portable maximum of CTAs per cluster (sm_90+: 8)",
                 range=(1, 16)),
        AttrSpec("compiler", str, "nvrtc", "how CUDA C++ is compiled", category="option",
                 choices=("nvrtc", "nvcc")),
        AttrSpec("opt_level", int, 3, "optimisation level", category="option",
                 choices=(0, 1, 2, 3)),
        AttrSpec("fast_math", bool, False, "--use_fast_math", category="option"),
        AttrSpec("lineinfo", bool, False, "emit line info for profilers", category="option"),
    ),
    keys=("cuda", "gpu"),
    device_type="cuda",
    doc="NVIDIA GPUs (CUDA C++ / PTX)",
)


OPT_IN_SHARED_BYTES = {70: 96 * KIB, 75: 64 * KIB, 80: 163 * KIB, 86: 99 * KIB, 87: 163 * KIB,
                       89: 99 * KIB, 90: 227 * KIB, 100: 227 * KIB, 120: 99 * KIB}
"""Compute capability -> the most shared memory one block may opt in to (bytes)."""
DEFAULT_SHARED_BYTES = 48 * KIB
"""What every block may use without opting in (and a target without a known arch gets)."""


def max_shared_bytes(target) -> int:
    """The shared memory (static + dynamic) one block may use on ``target``: its
    ``max_shared_memory_per_block`` when stated (tags state it), else its arch's opt-in
    maximum, else `DEFAULT_SHARED_BYTES`."""
    stated = target.get("max_shared_memory_per_block")
    if stated is not None:
        return int(stated)
    arch = target.get("arch")
    if arch is None or re.fullmatch(ARCH_PATTERN, arch) is None:
        return DEFAULT_SHARED_BYTES
    return OPT_IN_SHARED_BYTES.get(sm_number(arch), DEFAULT_SHARED_BYTES)


def _gpu(arch: str, sms: int, l2: int | None, **extra: Any) -> dict[str, Any]:
    smem = OPT_IN_SHARED_BYTES[int(re.fullmatch(ARCH_PATTERN, arch).group(1))]
    config: dict[str, Any] = {"kind": "cuda", "arch": arch,
                              "max_shared_memory_per_block": smem, "max_threads_per_block": 1024,
                              "thread_warp_size": 32, "registers_per_block": 65536,
                              "num_sms": sms, **extra}
    if l2 is not None:
        config["l2_cache_size_bytes"] = l2
    if arch.startswith(("sm_90", "sm_100")):
        config.setdefault("max_cluster_size", 8)
    return config


def _jetson(sms: int, host_cores: int, model: str) -> dict[str, Any]:
    config = _gpu("sm_87", sms, 4 * MIB, model=model)
    config["host"] = {"kind": "llvm", "mtriple": "aarch64-linux-gnu", "mcpu": "cortex-a78ae",
                      "num_cores": host_cores}
    return config


CUDA_TAGS: dict[str, dict[str, Any]] = {
    "nvidia/nvidia-a100": _gpu("sm_80", 108, 40 * MIB),
    "nvidia/nvidia-a10": _gpu("sm_86", 72, 6 * MIB),
    "nvidia/geforce-rtx-3090": _gpu("sm_86", 82, 6 * MIB),
    "nvidia/nvidia-l4": _gpu("sm_89", 58, 48 * MIB),
    "nvidia/geforce-rtx-4090": _gpu("sm_89", 128, 72 * MIB),
    "nvidia/nvidia-h100": _gpu("sm_90a", 132, 50 * MIB),
    "nvidia/nvidia-h100-pcie": _gpu("sm_90a", 114, 50 * MIB),
    "nvidia/nvidia-h200": _gpu("sm_90a", 132, 50 * MIB),
    "nvidia/nvidia-b200": _gpu("sm_100a", 148, None),
    "nvidia/jetson-agx-orin-64gb": _jetson(16, 12, "jetson-agx-orin-64gb"),
    "nvidia/jetson-agx-orin-32gb": _jetson(14, 8, "jetson-agx-orin-32gb"),
}


def register_cuda_target() -> None:
    """Register the ``cuda`` kind and the NVIDIA tags (called from register_backend)."""
    register_target_kind(CUDA_KIND)
    for name, config in CUDA_TAGS.items():
        register_tag(name, config)


def parse_arch(arch: str) -> tuple[int, str]:
    """An arch name split into its compute capability and suffix: ``sm_90a`` -> (90, "a")."""
    match = re.fullmatch(ARCH_PATTERN, arch)
    if match is None:
        raise ValueError(f"'{arch}' is not an sm architecture (e.g. sm_80, sm_90a)")
    return int(match.group(1)), match.group(2)


def sm_number(arch: str) -> int:
    """The compute capability of an arch name as an integer: ``sm_90a`` -> 90, ``sm_80`` -> 80."""
    return parse_arch(arch)[0]
