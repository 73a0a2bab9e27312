"""The ``trn`` target kind (AWS Trainium NeuronCores) and its tags.

    Target("aws/trn1/trn1.2xlarge")            # NeuronCore-v2, legacy NKI
    Target("aws/trn2/trn2.48xlarge")           # NeuronCore-v3, current NKI
    Target("trn -nc_version=3 -psum_banks=7")  # a kind with explicit attributes

Figures are the published per-NeuronCore limits (aws-neuron-sdk `about-neuron/arch/neuron-hardware/neuron-core-v2.rst`, `-v3.rst`) (SBUF/PSUM bytes per
partition, partitions, matmul tile limits). The nki dialect's verifiers and the interpreter read
their limits from here (`TrnLimits`, for a kernel `kernel_limits`) whenever a kernel names a trn
target; the defaults are the NeuronCore-v2 figures, which v3 shares except for the SBUF size.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tirx_mlir.target import (AttrSpec, TargetKind, kernel_target, register_tag,
                              register_target_kind, tags, target_kinds, target_text_of)

KIB = 1024
GIB = 1024**3

TRN_KIND = TargetKind(
    "trn",
    attrs=(
        AttrSpec("nc_version", int, 2, "NeuronCore generation (2: trn1/inf2, 3: trn2)",
                 choices=(2, 3, 4)),
        AttrSpec("lnc", int, 1, "logical NeuronCore size (physical cores per logical core)",
                 choices=(1, 2)),
        AttrSpec("num_cores", int, 2, "logical NeuronCores of the instance", range=(1, 4096)),
        AttrSpec("partitions", int, 128, "SBUF/PSUM partitions (maximum partition dim)",
                 range=(1, 1024)),
        AttrSpec("sbuf_bytes_per_partition", int, 192 * KIB, "SBUF bytes per partition",
                 range=(KIB, 64 * 1024 * KIB)),
        AttrSpec("sbuf_reserved_bytes", int, 16 * KIB,
                 "SBUF bytes per partition the compiler reserves under direct allocation",
                 range=(0, 64 * 1024 * KIB)),
        AttrSpec("psum_bytes_per_partition", int, 16 * KIB, "PSUM bytes per partition",
                 range=(KIB, 16 * 1024 * KIB)),
        AttrSpec("psum_banks", int, 8, "PSUM banks per partition", range=(1, 64)),
        AttrSpec("psum_bank_bytes", int, 2 * KIB, "bytes of one PSUM bank per partition",
                 range=(64, 1024 * KIB)),
        AttrSpec("hbm_bytes_per_chip", int, 32 * GIB, "HBM bytes per chip",
                 range=(1024 * KIB, 16 * 1024 * GIB)),
        AttrSpec("matmul_k_max", int, 128, "maximum contraction (partition) size of nc_matmul",
                 range=(1, 1024)),
        AttrSpec("matmul_stationary_fmax", int, 128, "maximum stationary free size (M)",
                 range=(1, 1024)),
        AttrSpec("matmul_moving_fmax", int, 512, "maximum moving free size (N)",
                 range=(1, 16 * KIB)),
        AttrSpec("vector_transpose_max", int, 32, "maximum VectorE transpose tile (32x32)",
                 range=(1, 1024)),
        AttrSpec("bn_stats_fmax", int, 512, "free-size limit of bn_stats", range=(1, 64 * KIB)),
        AttrSpec("act_bias_scalar_ok", bool, False,
                 "activation accepts a scalar bias (NeuronCore-v3 and later)"),
        AttrSpec("nki_api", str, "legacy",
                 "NKI generation the printers target by default: 'legacy' (neuronxcc.nki, "
                 "-t nki-legacy) or 'nki' (NKI 0.3-0.6, -t nki)", choices=("legacy", "nki")),
    ),
    keys=("trn",),
    device_type="trn",
    doc="AWS Trainium NeuronCore (NKI kernels)",
)

TRN1 = {"kind": "trn", "nc_version": 2, "sbuf_bytes_per_partition": 192 * KIB,
        "hbm_bytes_per_chip": 32 * GIB, "nki_api": "legacy"}
TRN2 = {"kind": "trn", "nc_version": 3, "lnc": 2, "sbuf_bytes_per_partition": 224 * KIB,
        "hbm_bytes_per_chip": 96 * GIB, "act_bias_scalar_ok": True, "nki_api": "nki"}

TAGS: dict[str, dict[str, Any]] = {
    # one chip, two NeuronCore-v2
    "aws/trn1/trn1.2xlarge": {**TRN1, "num_cores": 2},
    # sixteen chips, two NeuronCore-v2 each
    "aws/trn1/trn1.32xlarge": {**TRN1, "num_cores": 32},
    # sixteen chips, eight NeuronCore-v3 each; LNC=2 (default) gives 64 logical cores
    "aws/trn2/trn2.48xlarge": {**TRN2, "num_cores": 64},
}


def register_trn_target() -> None:
    """Register the ``trn`` kind and the tags (called from register_backend)."""
    register_target_kind(TRN_KIND)
    for name, config in TAGS.items():
        register_tag(name, config)


@dataclass(frozen=True)
class TrnLimits:
    """The hardware limits the nki verifiers and interpreter check, for one target."""

    partitions: int = 128
    sbuf_bytes_per_partition: int = 192 * KIB
    sbuf_reserved_bytes: int = 16 * KIB
    psum_bytes_per_partition: int = 16 * KIB
    psum_banks: int = 8
    psum_bank_bytes: int = 2 * KIB
    matmul_k_max: int = 128
    matmul_stationary_fmax: int = 128
    matmul_moving_fmax: int = 512
    vector_transpose_max: int = 32
    nc_version: int = 2
    act_bias_scalar_ok: bool = False
    source: str = "default NeuronCore-v2 limits"

    @staticmethod
    def from_target(target: Any) -> "TrnLimits":
        """Limits of a ``Target`` of kind trn; the defaults for any other target or None."""
        if target is None or getattr(target, "kind_name", None) != "trn":
            return TrnLimits()
        fields = {name: target.get(name) for name in TrnLimits.__dataclass_fields__
                  if name != "source" and target.get(name) is not None}
        return TrnLimits(**fields, source=f"target '{target.get('tag') or target}'")

    @property
    def psum_bank_fp32(self) -> int:
        """fp32 elements of one PSUM bank per partition (512)."""
        return self.psum_bank_bytes // 4

    @property
    def sbuf_usable_bytes(self) -> int:
        return self.sbuf_bytes_per_partition - self.sbuf_reserved_bytes


def kernel_limits(kernel: Any, option: str | None = None) -> TrnLimits:
    """The limits of a kernel's target as every trn pass resolves it
    (`tirx_mlir.target.kernel_target`: pass option > kernel > module > current); the default
    NeuronCore-v2 limits when it has none or it is not a trn target. Every trn pass asks, so
    the limits of each target string are kept (`TrnLimits` is immutable) while no target kind
    or tag is registered meanwhile."""
    text = option if option is not None else target_text_of(kernel)
    if text is None:  # the current ``with Target``, if any
        return TrnLimits.from_target(kernel_target(kernel, option, required=False))
    key = (text, target_kinds.version, tags.version)
    limits = _limits_of_text.get(key)
    if limits is None:
        if len(_limits_of_text) >= 64:
            _limits_of_text.clear()
        limits = _limits_of_text[key] = TrnLimits.from_target(
            kernel_target(kernel, option, required=False))
    return limits


_limits_of_text: dict[tuple[str, int, int], TrnLimits] = {}
"""(target string, kind and tag registry versions) -> its `TrnLimits` (`kernel_limits`)."""
