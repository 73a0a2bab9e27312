"""The Hexagon backend (Qualcomm DSPs with HVX): the ``hexagon`` target kind and the
``qcom/hexagon-v65`` ... ``v75`` tags. No code generation yet and no device detector, as in TVM.
"""

from __future__ import annotations

from typing import Any

BACKEND_NAME = "hexagon"

KIB = 1024
MIB = 1024 * KIB


def _hexagon_kind():
    from tirx_mlir.target import AttrSpec, TargetKind

    return TargetKind(
        "hexagon",
        attrs=(
            AttrSpec("mtriple", str, "hexagon", "LLVM target triple", category="arch"),
            AttrSpec("mcpu", str, "hexagonv68", "hexagonv68", category="arch",
                     pattern=r"hexagonv\d+"),
            AttrSpec("mattr", list, None, "LLVM features (+hvxv68,+hvx-length128b...)",
                     category="arch"),
            AttrSpec("llvm_options", list, None, "extra LLVM options", category="option"),
            AttrSpec("vtcm_capacity", int, 0, "VTCM bytes"),
        ),
        keys=("hexagon", "cpu"),
        device_type="hexagon",
        doc="Qualcomm Hexagon DSP with HVX (no code generation yet)",
    )


def _tag(version: int, vtcm: int) -> dict[str, Any]:
    mattr = [f"+hvxv{version}", "+hvx-length128b"]
    if version >= 68:
        mattr += ["+hvx-qfloat", "-hvx-ieee-fp"]
    config: dict[str, Any] = {"kind": "hexagon", "mtriple": "hexagon",
                              "mcpu": f"hexagonv{version}", "mattr": mattr, "num_cores": 4,
                              "vtcm_capacity": vtcm}
    if version == 68:
        config["llvm_options"] = ["-force-hvx-float"]
    return config


HEXAGON_TAGS = {
    "qcom/hexagon-v65": _tag(65, 256 * KIB),
    "qcom/hexagon-v66": _tag(66, 256 * KIB),
    "qcom/hexagon-v68": _tag(68, 4 * MIB),
    "qcom/hexagon-v69": _tag(69, 8 * MIB),
    "qcom/hexagon-v73": _tag(73, 8 * MIB),
    "qcom/hexagon-v75": _tag(75, 8 * MIB),
}


def register_backend() -> None:
    """Register the hexagon kind and its tags."""
    from tirx_mlir.target import register_tag, register_target_kind

    register_target_kind(_hexagon_kind())
    for name, config in HEXAGON_TAGS.items():
        register_tag(name, config)
