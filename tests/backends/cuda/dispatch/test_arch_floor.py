"""The cuda dispatch's precondition (`arch_floor`): a target older than every PTX target is
refused at the kernel before any variant lowers it.

Found by the cuda hostile-input campaign: rmsnorm on sm_70 was lowered, and the verifier after
``tirx-dispatch`` failed on the first ``ld.global.v4.b16`` it made (an error in a pass's output,
with a reproducer, rather than one about the user's kernel)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tirx_mlir.backends.cuda.dispatch.arch_floor import oldest_arch
from tirx_mlir.diagnostics import PassError, op_location
from tirx_mlir.located_parser import parse_module
from tirx_mlir.pipelines import get_pipeline

RMSNORM = Path(__file__).resolve().parents[4] / "examples/cuda/tile/rmsnorm.mlir"


def test_the_floor_is_the_oldest_ptx_target():
    assert oldest_arch() == 75


@pytest.mark.parametrize("arch", ["sm_70", "sm_50"])
def test_an_arch_below_the_floor_is_refused_at_the_kernel(arch):
    module = parse_module(RMSNORM.read_text().replace("sm_80", arch), "rms.mlir")
    with pytest.raises(PassError, match=rf"need sm_75 or newer, but kernel @rmsnorm targets "
                                        rf"{arch}") as err:
        get_pipeline("cuda").apply(module)
    assert op_location(err.value.op) == ("rms.mlir", 8, 1)
    assert "sm_75" in err.value.hint


def test_the_floor_itself_lowers():
    module = parse_module(RMSNORM.read_text().replace("sm_80", "sm_75"), "rms.mlir")
    get_pipeline("cuda").apply(module)
