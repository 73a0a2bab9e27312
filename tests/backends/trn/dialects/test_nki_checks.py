"""`checks.limits_for`: an nki op's limits are its own kernel's, also inside one
`access.shared_views` block where they are found once per kernel (a block or loop moved to
another kernel inside the block reads the new kernel's limits)."""

from __future__ import annotations

from contextlib import nullcontext
from pathlib import Path

from xdsl.dialects import scf

from tirx_mlir.backends.trn.dialects.nki import checks
from tirx_mlir.dialects.tirx.access import shared_views
from tirx_mlir.dialects.tirx.kernel import KernelOp
from tirx_mlir.located_parser import make_context, parse_module
from tirx_mlir.pipelines import get_pipeline

EXAMPLE = (Path(__file__).resolve().parents[4] / "examples" / "trn" / "nki_add_2.mlir").read_text()


def lowered_two_kernels():
    """nki_add_2 lowered for trn1 (NeuronCore-v2) and, renamed, for trn2 (v3), in one module."""
    trn2 = EXAMPLE.replace("@nki_add_2", "@nki_add_2_trn2").replace("aws/trn1/trn1.2xlarge",
                                                                    "aws/trn2/trn2.48xlarge")
    ctx = make_context()
    module = parse_module(EXAMPLE + "\n" + trn2, "two.mlir", ctx)
    get_pipeline("trn").apply(module, ctx)
    kernels = [op for op in module.walk() if isinstance(op, KernelOp)]
    assert [k.sym_name.data for k in kernels] == ["nki_add_2", "nki_add_2_trn2"]
    return kernels


def nki_ops(op):
    return [o for o in op.walk() if o.name.startswith("nki.")]


def test_each_kernel_gets_its_own_limits_inside_and_outside_a_shared_block():
    v2, v3 = lowered_two_kernels()
    assert nki_ops(v2) and nki_ops(v3)
    for shared in (False, True):
        with shared_views() if shared else nullcontext():
            assert {checks.limits_for(o).nc_version for o in nki_ops(v2)} == {2}
            assert {checks.limits_for(o).nc_version for o in nki_ops(v3)} == {3}


def test_a_loop_moved_to_another_kernel_reads_that_kernels_limits():
    v2, v3 = lowered_two_kernels()
    loop = next(o for o in v2.walk() if isinstance(o, scf.ForOp))
    body_op = nki_ops(loop)[0]
    with shared_views():
        assert checks.limits_for(body_op).nc_version == 2
        loop.detach()  # the loop keeps its body block: only its kernel changes
        v3.body.block.insert_op_before(loop, v3.body.block.first_op)
        assert checks.limits_for(body_op).nc_version == 3

