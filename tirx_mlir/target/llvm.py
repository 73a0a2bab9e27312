"""The ``llvm`` target kind (the host CPU) and the ``cpu`` device detector, registered by the core.

The detector is a real probe, cheap and side-effect free: the architecture and OS from
`platform`, the core count from the scheduler affinity, the SIMD features from ``/proc/cpuinfo``
(Linux) or ``sysctl`` (macOS), giving ``mtriple``, ``mattr`` and ``vector_width``.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from tirx_mlir import registry
from tirx_mlir.target.detect import register_device_target_detector
from tirx_mlir.target.kind import AttrSpec, TargetKind, register_target_kind

LLVM_KIND = TargetKind(
    "llvm",
    attrs=(
        AttrSpec("mattr", list, None, "CPU features, e.g. +avx2,+fma", category="arch"),
        AttrSpec("vector_width", int, None, "widest SIMD register in bits (128/256/512)",
                 category="arch", choices=(64, 128, 256, 512, 1024, 2048), range=(8, 4096)),
        AttrSpec("opt_level", int, 3, "optimisation level", category="option",
                 choices=(0, 1, 2, 3)),
        AttrSpec("fast_math", bool, False, "allow reassociation and approximate math",
                 category="option"),
    ),
    keys=("cpu",),
    device_type="cpu",
    doc="the host CPU (LLVM code generation)",
)

_X86_FEATURES = {"avx512f": 512, "avx2": 256, "avx": 256, "sse2": 128}
_X86_MATTR = {"sse4_2": "sse4.2", "avx": "avx", "avx2": "avx2", "fma": "fma", "f16c": "f16c",
              "avx512f": "avx512f", "avx512bw": "avx512bw", "avx512vl": "avx512vl",
              "avx512_bf16": "avx512bf16", "avx512_vnni": "avx512vnni", "amx_tile": "amx-tile",
              "amx_bf16": "amx-bf16"}
"""/proc/cpuinfo flag -> LLVM feature name."""
_ARM_MATTR = {"asimd": "neon", "asimdhp": "fullfp16", "sve": "sve", "sve2": "sve2",
              "bf16": "bf16", "i8mm": "i8mm"}


def host_triple() -> str:
    import platform  # only a host-target query needs it (not every tool start-up)

    machine = platform.machine().lower()
    arch = {"amd64": "x86_64", "arm64": "aarch64"}.get(machine, machine)
    if sys.platform == "darwin":
        return f"{'arm64' if arch == 'aarch64' else arch}-apple-macos"
    if sys.platform.startswith("linux"):
        return f"{arch}-pc-linux-gnu" if arch == "x86_64" else f"{arch}-linux-gnu"
    if sys.platform == "win32":
        return f"{arch}-pc-windows-msvc"
    return f"{arch}-unknown-{sys.platform}"


def _cpu_flags() -> set[str]:
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith(("flags", "Features")):
                    return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    if sys.platform == "darwin":
        import subprocess

        try:
            out = subprocess.run(["sysctl", "-n", "machdep.cpu.features"], capture_output=True,
                                 text=True, timeout=2, check=False).stdout
            return {w.lower().replace(".", "_") for w in out.split()}
        except (OSError, subprocess.SubprocessError):
            return set()
    return set()


def probe_host() -> dict[str, Any]:
    """A target config for this machine's CPU (``kind: llvm``)."""
    triple = host_triple()
    flags = _cpu_flags()
    config: dict[str, Any] = {"kind": "llvm", "mtriple": triple}
    try:
        config["num_cores"] = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        config["num_cores"] = os.cpu_count() or 1
    if triple.startswith("x86_64"):
        width = next((w for f, w in _X86_FEATURES.items() if f in flags), 128)
        config["vector_width"] = width
        config["mattr"] = [f"+{llvm}" for f, llvm in _X86_MATTR.items() if f in flags]
    elif triple.startswith(("aarch64", "arm64")):
        config["vector_width"] = 128
        config["mattr"] = [f"+{llvm}" for f, llvm in _ARM_MATTR.items() if f in flags] or ["+neon"]
    return config


def _detect_cpu(device: Any):
    from tirx_mlir.target.target import Target

    return Target(probe_host())


def register_llvm_target() -> None:
    """Register the kind and the detectors as the core's (whichever backend imported us first)."""
    with registry.owner_scope("core"):
        register_target_kind(LLVM_KIND)
        register_device_target_detector("cpu", _detect_cpu)
        register_device_target_detector("llvm", _detect_cpu)


register_llvm_target()
