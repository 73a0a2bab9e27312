"""The ROCm backend (AMD GPUs): the ``rocm`` target kind and the ``rocm`` device detector.
No code generation yet. As in TVM, no tags.

The detector is a real probe: it reads the KFD topology in sysfs
(``/sys/class/kfd/kfd/topology/nodes/*/properties``), which needs no ROCm runtime and exists only
where the amdgpu driver runs; without it, DeviceNotFoundError.
"""

from __future__ import annotations

import os
from typing import Any

BACKEND_NAME = "rocm"

KFD_TOPOLOGY = "/sys/class/kfd/kfd/topology/nodes"


def _rocm_kind():
    from tirx_mlir.target import AttrSpec, TargetKind

    return TargetKind(
        "rocm",
        attrs=(
            AttrSpec("mtriple", str, "amdgcn-amd-amdhsa-hcc", "LLVM target triple", category="arch"),
            AttrSpec("mcpu", str, None, "gfx90a", category="arch", pattern=r"gfx[0-9a-f]+"),
            AttrSpec("mattr", list, None, "LLVM features (e.g. -wavefrontsize64)", category="arch"),
            AttrSpec("max_num_threads", int, 256, "threads per block the scheduler uses"),
            AttrSpec("max_threads_per_block", int, 256, "threads per block"),
            AttrSpec("max_shared_memory_per_block", int, 65536, "LDS bytes per block"),
            AttrSpec("thread_warp_size", int, 64, "wavefront size", choices=(32, 64)),
            AttrSpec("num_cus", int, None, "compute units"),
        ),
        keys=("rocm", "gpu"),
        device_type="rocm",
        doc="AMD GPUs (ROCm; no code generation yet)",
    )


def gfx_name(target_version: int) -> str:
    """KFD ``gfx_target_version`` (major*10000 + minor*100 + stepping) -> ``gfx90a``."""
    major, rest = divmod(target_version, 10000)
    minor, stepping = divmod(rest, 100)
    return f"gfx{major}{minor:x}{stepping:x}"


def _read_properties(path: str) -> dict[str, int]:
    props: dict[str, int] = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            key, _, value = line.strip().partition(" ")
            if value.strip().lstrip("-").isdigit():
                props[key] = int(value)
    return props


def gpu_nodes(topology: str = KFD_TOPOLOGY) -> list[dict[str, int]]:
    """The KFD nodes that are GPUs (``gfx_target_version`` != 0), in node order."""
    from tirx_mlir.target import DeviceNotFoundError

    if not os.path.isdir(topology):
        raise DeviceNotFoundError(f"no ROCm device: {topology} does not exist (no amdgpu/KFD "
                                  f"driver); give the target explicitly, e.g. "
                                  f"Target('rocm -mcpu=gfx942')")
    nodes = []
    for name in sorted(os.listdir(topology), key=lambda n: int(n) if n.isdigit() else -1):
        path = os.path.join(topology, name, "properties")
        if os.path.isfile(path):
            props = _read_properties(path)
            if props.get("gfx_target_version", 0):
                nodes.append(props)
    return nodes


def detect_rocm_target(device: Any, topology: str = KFD_TOPOLOGY):
    from tirx_mlir.target import DeviceNotFoundError, Target, parse_device

    _, index = parse_device(device)
    nodes = gpu_nodes(topology)
    if index >= len(nodes):
        raise DeviceNotFoundError(f"no ROCm device {index}: this machine has {len(nodes)}")
    props = nodes[index]
    config: dict[str, Any] = {"kind": "rocm", "mcpu": gfx_name(props["gfx_target_version"]),
                              "max_threads_per_block": 1024, "max_num_threads": 1024}
    if "lds_size_in_kb" in props:
        config["max_shared_memory_per_block"] = props["lds_size_in_kb"] * 1024
    if "wave_front_size" in props:
        config["thread_warp_size"] = props["wave_front_size"]
    if props.get("simd_per_cu"):
        config["num_cus"] = props.get("simd_count", 0) // props["simd_per_cu"]
    return Target(config)


def register_backend() -> None:
    """Register the rocm kind and the ``rocm`` detector."""
    from tirx_mlir.target import register_device_target_detector, register_target_kind

    register_target_kind(_rocm_kind())
    register_device_target_detector("rocm", detect_rocm_target)
