"""The trn target kind, its tags, and the limits the nki verifiers read from a target."""

from __future__ import annotations

import pytest
import tirx_testing.trn  # noqa: F401  (loads the trn backend)

from tirx_mlir.backends.trn.target_tags import TAGS, TrnLimits
from tirx_mlir.target import Target, TargetError, list_tags


@pytest.mark.parametrize("tag", sorted(TAGS))
def test_tags_parse_and_round_trip(tag):
    target = Target(tag)
    assert target.kind_name == "trn" and tag in list_tags()
    assert Target(str(target)) == target
    assert target.partitions == 128 and target.psum_bytes_per_partition == 16384
    assert target.psum_banks * target.psum_bank_bytes == target.psum_bytes_per_partition


def test_published_figures():
    trn1, trn1_32 = Target("aws/trn1/trn1.2xlarge"), Target("aws/trn1/trn1.32xlarge")
    trn2 = Target("aws/trn2/trn2.48xlarge")
    assert (trn1.nc_version, trn1.num_cores, trn1.sbuf_bytes_per_partition) == (2, 2, 196608)
    assert trn1_32.num_cores == 32
    assert (trn2.nc_version, trn2.lnc, trn2.num_cores) == (3, 2, 64)
    assert trn2.sbuf_bytes_per_partition == 229376 and trn2.hbm_bytes_per_chip == 96 * 2**30
    assert trn1.nki_api == "legacy" and trn2.nki_api == "nki"
    assert (trn1.matmul_k_max, trn1.matmul_stationary_fmax, trn1.matmul_moving_fmax) == \
        (128, 128, 512)


def test_schema_is_typed():
    with pytest.raises(TargetError, match="nc_version"):
        Target("trn -nc_version=7")
    with pytest.raises(TargetError, match="partitions"):
        Target("trn -partitions=many")


def test_limits_from_target():
    limits = TrnLimits.from_target(Target("aws/trn2/trn2.48xlarge"))
    assert limits.nc_version == 3 and limits.act_bias_scalar_ok
    assert limits.sbuf_usable_bytes == 229376 - 16384 and limits.psum_bank_fp32 == 512
    assert "trn2.48xlarge" in limits.source
    assert TrnLimits.from_target(None) == TrnLimits()
    assert TrnLimits.from_target(Target("trn -psum_banks=7")).psum_banks == 7


def test_kernel_limits_follow_the_kernel_target_and_tag_changes():
    """`kernel_limits` keeps the limits of each target string; they are those of
    `TrnLimits.from_target`, and a tag registered again in between is seen."""
    from tirx_mlir import registry
    from tirx_mlir.backends.trn.target_tags import kernel_limits
    from tirx_mlir.located_parser import make_context, parse_module
    from tirx_mlir.target import register_tag

    text = ('tirx.kernel @k() -> () grid [1] threads [1] target "{}" {{\n'
            '  tirx.return\n}}\n')
    kernel = next(iter(parse_module(text.format("aws/trn2/trn2.48xlarge"), "k",
                                    make_context()).ops))
    assert kernel_limits(kernel) == TrnLimits.from_target(Target("aws/trn2/trn2.48xlarge"))
    assert kernel_limits(kernel).nc_version == 3
    assert kernel_limits(kernel, "aws/trn1/trn1.2xlarge").nc_version == 2  # the option first
    with registry.owner_scope("limits_memo_test"):
        register_tag("aws/trn2/trn2.48xlarge", {"kind": "trn", "nc_version": 3, "psum_banks": 7},
                     override=True)
        assert kernel_limits(kernel).psum_banks == 7
    registry.drop_owner_everywhere("limits_memo_test")
    assert kernel_limits(kernel).psum_banks == TrnLimits().psum_banks
