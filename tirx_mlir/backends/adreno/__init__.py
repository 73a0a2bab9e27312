"""The Adreno backend (Qualcomm GPUs): tags on the ``opencl`` and ``vulkan`` kinds, whose
backends it loads first (through the loader, never by importing them). No code generation yet.

Tags: ``qcom/adreno-opencl`` (+ ``-clml``, ``-texture``) and ``qcom/adreno-vulkan``
(+ ``-texture``); each has ``device=adreno`` and keys that name the flavour.
"""

from __future__ import annotations

BACKEND_NAME = "adreno"


def _tag(kind: str, extra: tuple[str, ...] = ()) -> dict:
    return {"kind": kind, "device": "adreno", "keys": ["adreno", kind, "gpu", *extra]}


ADRENO_TAGS = {
    "qcom/adreno-opencl": _tag("opencl"),
    "qcom/adreno-opencl-clml": _tag("opencl", ("clml",)),
    "qcom/adreno-opencl-texture": _tag("opencl", ("texture",)),
    "qcom/adreno-vulkan": _tag("vulkan"),
    "qcom/adreno-vulkan-texture": _tag("vulkan", ("texture",)),
}


def register_backend() -> None:
    """Load opencl and vulkan, then register the Adreno tags."""
    from tirx_mlir.backends import load
    from tirx_mlir.target import register_tag

    load("opencl")
    load("vulkan")
    for name, config in ADRENO_TAGS.items():
        register_tag(name, config)
