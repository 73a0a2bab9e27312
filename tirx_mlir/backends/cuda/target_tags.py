"""The ``cuda`` target kind and the NVIDIA tags.

    Target("cuda -arch=sm_90a -max_shared_memory_per_block=232448")
    Target("nvidia/nvidia-h100").num_sms                  # 132
    Target("nvidia/jetson-agx-orin-64gb").host            # llvm -mtriple=aarch64-linux-gnu ...

``max_shared_memory_per_block`` is the opt-in maximum per block of each compute capability (CUDA
programming guide, "Technical Specifications per Compute Capability"): 163 KiB for sm_80/sm_87,
99 KiB for sm_86/sm_89/sm_120, 227 KiB for sm_90/sm_100. SM counts and L2 sizes are the published
figures of each product. Hopper and Blackwell datacenter parts use the ``a`` architectures
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
        AttrSpec("max_shared_memory_per_block", int, 48 * KIB,
                 "shared memory bytes one block may use (opt-in maximum)", range=(KIB, 16 * MIB)),
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


def _gpu(arch: str, smem: int, sms: int, l2: int | None, **extra: Any) -> dict[str, Any]:
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
    config = _gpu("sm_87", 163 * KIB, sms, 4 * MIB, model=model)
    config["host"] = {"kind": "llvm", "mtriple": "aarch64-linux-gnu", "mcpu": "cortex-a78ae",
                      "num_cores": host_cores}
    return config


CUDA_TAGS: dict[str, dict[str, Any]] = {
    "nvidia/nvidia-a100": _gpu("sm_80", 163 * KIB, 108, 40 * MIB),
    "nvidia/nvidia-a10": _gpu("sm_86", 99 * KIB, 72, 6 * MIB),
    "nvidia/geforce-rtx-3090": _gpu("sm_86", 99 * KIB, 82, 6 * MIB),
    "nvidia/nvidia-l4": _gpu("sm_89", 99 * KIB, 58, 48 * MIB),
    "nvidia/geforce-rtx-4090": _gpu("sm_89", 99 * KIB, 128, 72 * MIB),
    "nvidia/nvidia-h100": _gpu("sm_90a", 227 * KIB, 132, 50 * MIB),
    "nvidia/nvidia-h100-pcie": _gpu("sm_90a", 227 * KIB, 114, 50 * MIB),
    "nvidia/nvidia-h200": _gpu("sm_90a", 227 * KIB, 132, 50 * MIB),
    "nvidia/nvidia-b200": _gpu("sm_100a", 227 * KIB, 148, None),
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
