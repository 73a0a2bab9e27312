"""cuda-set-max-nreg on the examples: flash_attention_ring_sm90a's producer warpgroup gives its
registers to the consumer (``setmaxnreg``), the kernel launches with 80 registers per thread
(``.maxnreg 80`` / ``__maxnreg__(80)``) and ptxas assembles it without spills or advisories:
3 CTAs per SM instead of 2. gemm_sm90a gains nothing (its 64-accumulator wgmma needs 90 at
launch) and is left as it was; ``setmaxnreg=false`` leaves the ring example alone too."""

from __future__ import annotations

import re
import subprocess
import tempfile
from pathlib import Path

import pytest
from xdsl.dialects import scf

from tirx_testing import cuda_compile
from tirx_testing.cuda_every_stage import lower
from tirx_mlir.backends.cuda import sass, toolchain
from tirx_mlir.backends.cuda.dialects.cuda.max_registers import MAX_REGISTERS
from tirx_mlir.backends.cuda.printers.cuda_cpp import emit_cuda
from tirx_mlir.backends.cuda.printers.ptx import emit_ptx
from tirx_mlir.backends.cuda.transforms.split_roles import ROLE_SPLIT
from tirx_mlir.dialects.tirx.kernel import KernelOp

TILE = Path(__file__).resolve().parents[4] / "examples" / "cuda" / "tile"


def _lowered(name: str, **options):
    return lower((TILE / f"{name}.mlir").read_text(), name, **options)


def _kernel(module) -> KernelOp:
    return next(op for op in module.walk() if isinstance(op, KernelOp))


def _setmaxnreg(op) -> list[tuple[str, int]]:
    return [(o.properties["action"].data, o.properties["count"].value.data)
            for o in op.walk() if o.name == "ptx.setmaxnreg"]


def test_the_ring_example_rebalances_its_roles():
    module = _lowered("flash_attention_ring_sm90a")
    kernel = _kernel(module)
    assert kernel.attributes[MAX_REGISTERS].value.data == 80
    assert not any(ROLE_SPLIT in op.attributes for op in module.walk())
    body = list(kernel.body.block.ops)
    (split,) = [op for op in body if isinstance(op, scf.IfOp) and op.false_region.blocks]
    assert split is body[-2]  # the epilogue moved into the consumers' branch
    assert _setmaxnreg(split.true_region.block.first_op) == [("inc", 136)]
    assert _setmaxnreg(split.false_region.block.first_op) == [("dec", 24)]
    assert _setmaxnreg(module) == [("inc", 136), ("dec", 24)]
    mine = [o.name for o in split.true_region.walk()]
    assert "ptx.st" in mine  # O's store
    # the accumulators are zeroed after the inc, not before the split (ptxas would spill them)
    before = [o for op in body[:body.index(split)] for o in op.walk()]
    assert not any(o.name == "cuda.store" and str(o.operands[2].type) == "f32" for o in before)


def test_setmaxnreg_false_leaves_the_split_as_it_was():
    module = _lowered("flash_attention_ring_sm90a", setmaxnreg="false")
    assert MAX_REGISTERS not in _kernel(module).attributes and not _setmaxnreg(module)
    assert not any(ROLE_SPLIT in op.attributes for op in module.walk())
    assert ".maxnreg" not in emit_ptx(module) and "__launch_bounds__(256)" in emit_cuda(module)


@pytest.mark.parametrize("name", ["gemm_sm90a", "gemm_multicast_sm90a"])
def test_no_gain_no_change(name):
    # gemm_sm90a: 1 CTA per SM either way; gemm_multicast: its cluster barrier after the split
    # must be reached by the producer too
    module = _lowered(name)
    assert MAX_REGISTERS not in _kernel(module).attributes and not _setmaxnreg(module)
    assert not any(ROLE_SPLIT in op.attributes for op in module.walk())


def test_the_printers_fix_the_launch_registers():
    module = _lowered("flash_attention_ring_sm90a")
    ptx = emit_ptx(module)
    assert re.search(r"\.reqntid 256, 1, 1\n\.maxnreg 80\n", ptx)
    assert ptx.count("setmaxnreg.inc.sync.aligned.u32 136;") == 1
    assert ptx.count("setmaxnreg.dec.sync.aligned.u32 24;") == 1
    cu = emit_cuda(module)
    assert 'extern "C" __global__ void __maxnreg__(80)' in cu and "__launch_bounds__" not in cu
    assert 'asm volatile("setmaxnreg.inc.sync.aligned.u32 136;"' in cu


def test_a_bad_launch_count_is_a_located_print_error():
    from xdsl.dialects.builtin import IntegerAttr, i64

    from tirx_mlir.printers.source_printer import PrintError

    module = _lowered("flash_attention_ring_sm90a")
    _kernel(module).attributes[MAX_REGISTERS] = IntegerAttr(100, i64)
    for emit in (emit_ptx, emit_cuda):
        with pytest.raises(PrintError, match=r"cuda.max_registers must be an integer multiple "
                                             r"of 8 in \[24, 255\]"):
            emit(module)


def _ptxas(ptx: str):
    for tool in ("ptxas", "cuobjdump"):
        if toolchain.find_tool(tool) is None:
            pytest.skip(toolchain.missing_reason(tool))
    with tempfile.TemporaryDirectory() as tmp:
        src, cubin = Path(tmp) / "k.ptx", Path(tmp) / "k.cubin"
        src.write_text(ptx)
        proc = subprocess.run([str(toolchain.find_tool("ptxas")), "-v", "-arch=sm_90a",
                               "--warn-on-spills", "--warn-on-local-memory-usage", "-Werror",
                               str(src), "-o", str(cubin)], capture_output=True, text=True,
                              timeout=300)
        assert proc.returncode == 0, proc.stderr
        return proc.stderr, sass.res_usage(cubin), sass.disassemble(cubin)


def test_ptxas_launches_the_ring_with_80_registers_and_no_spills():
    log, usage, text = _ptxas(emit_ptx(_lowered("flash_attention_ring_sm90a")))
    assert not cuda_compile.ADVISORY.search(log), log  # no C7508 (ignored), C7512 (serialised)
    assert "0 bytes spill stores, 0 bytes spill loads" in log
    (res,) = usage.values()
    assert res.registers == 80 and res.stack == 0 and res.local == 0
    assert "USETMAXREG.TRY_ALLOC.CTAPOOL" in text and "USETMAXREG.DEALLOC.CTAPOOL" in text
