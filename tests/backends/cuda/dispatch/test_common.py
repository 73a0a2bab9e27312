"""The barriers dispatch adds for the tile-level order: warpgroup-scope ops of several
warpgroups at once each end on their own named barrier (1 + the warpgroup's index), which the
SIMT interpreter checks (two warpgroups on one id are an error there), and the printed PTX
assembles for sm_90a with a register barrier id (the register tile is dead: nvcc's -Werror
would refuse the CUDA C++ for the unused array, so only PTX is assembled)."""

from __future__ import annotations

import pytest

from tirx_testing import cuda_compile
from tirx_testing.cuda_every_stage import check_every_stage
from tirx_mlir.backends.cuda.printers.ptx import emit_ptx

KERNEL = """tirx.kernel @wg(%A: !tirx.buffer<64x64xf16, global>) -> (%O: !tirx.buffer<64x64xf16, global>)
    grid [2] threads [{threads}] target "cuda -arch=sm_90a" {{
  %s = tirx.alloc : !tirx.buffer<64x64xf16, shared>
  %r = tirx.alloc : !tirx.buffer<64x64xf16, local>
  tirx.copy cta %s, %A : !tirx.buffer<64x64xf16, shared>, !tirx.buffer<64x64xf16, global>
  tirx.copy warpgroup %r, %s : !tirx.buffer<64x64xf16, local>, !tirx.buffer<64x64xf16, shared>
  tirx.copy cta %O, %s : !tirx.buffer<64x64xf16, global>, !tirx.buffer<64x64xf16, shared>
  tirx.return
}}
"""


@pytest.mark.parametrize("threads", [256, 512])
def test_warpgroups_synchronise_on_their_own_barriers(threads):
    """Every warpgroup reads the shared tile at once and waits on bar.sync 1 + w, 128."""
    final = check_every_stage(KERNEL.format(threads=threads), lambda a: [a], arch="sm_90a",
                              compile=False)
    assert "cuda.sync_warpgroup barrier 1 per_warpgroup" in str(final)
    ptx = emit_ptx(final)
    assert "shr.u32" in ptx and "bar.sync %r" in ptx
    assert any(op.startswith("BAR.SYNC") for op in cuda_compile.ptx_sass_opcodes(ptx, "sm_90a"))
