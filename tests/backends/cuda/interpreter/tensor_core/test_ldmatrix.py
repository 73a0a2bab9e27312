"""ldmatrix/stmatrix m8n8 .x1/.x2/.x4 (with and without .trans): which lanes supply row
addresses and which lane receives which pair of elements, element by element against the PTX ISA
sections "Warp-level matrix load instruction: ldmatrix" / "... store instruction: stmatrix"
(tirx_testing.ptx_isa_fragments) and CUTLASS's LDSM layouts."""

from __future__ import annotations

import numpy as np
import pytest

from tirx_mlir.backends.cuda.interpreter.tensor_core import ldmatrix as lm
from tirx_mlir.backends.cuda.interpreter.tensor_core.packing import unpack
from tirx_testing.cute_layouts import LDSM_X1_DST, LDSM_X1_TRANS_DST, tv
from tirx_testing.ptx_isa_fragments import isa_ldmatrix, isa_ldmatrix_address_lane

CASES = [(num, trans) for num in (1, 2, 4) for trans in (False, True)]
ARENA = 4096


def _scattered_rows(rng, warps: int) -> tuple[np.ndarray, np.ndarray]:
    """Shared bytes holding distinct b16 values, and per-lane row addresses in random rows."""
    smem = rng.permutation(ARENA // 2).astype("<u2").view(np.uint8)
    addrs = rng.choice(ARENA // 16, size=(warps, 32), replace=False if warps == 1 else True) * 16
    return smem, addrs


@pytest.mark.parametrize("num, trans", CASES)
def test_ldmatrix_follows_the_isa(num: int, trans: bool) -> None:
    rng = np.random.default_rng(num + 10 * trans)
    smem, addrs = _scattered_rows(rng, warps=2)
    addrs[:, 8 * num:] = 3                     # ignored lanes: even a misaligned address
    regs = lm.ldmatrix(smem, addrs, num, trans)
    assert regs.shape == (2, 32, num) and regs.dtype == np.int32
    elems = unpack(regs, "b16").reshape(2, 32, num, 2)
    values = smem.view("<u2")
    for w in range(2):
        for lane in range(32):
            for reg in range(num):
                for half in range(2):
                    m, r, c = isa_ldmatrix(lane, reg, half, trans)
                    row_addr = addrs[w, isa_ldmatrix_address_lane(m, r)]
                    assert elems[w, lane, reg, half] == values[row_addr // 2 + c]


@pytest.mark.parametrize("trans, layout", [(False, LDSM_X1_DST), (True, LDSM_X1_TRANS_DST)])
def test_ldmatrix_x1_matches_cutlass(trans: bool, layout) -> None:
    smem = np.arange(64, dtype="<u2").view(np.uint8)      # one row-major 8x8 matrix: value = index
    addrs = np.tile(np.arange(32) % 8 * 16, (1, 1))
    elems = unpack(lm.ldmatrix(smem, addrs, 1, trans), "b16")
    for lane in range(32):
        for half in range(2):
            assert elems[0, lane, half] == tv(layout, lane, 16 * half) // 16


@pytest.mark.parametrize("num, trans", CASES)
def test_stmatrix_writes_what_ldmatrix_reads(num: int, trans: bool) -> None:
    rng = np.random.default_rng(5 + num)
    smem, addrs = _scattered_rows(rng, warps=1)
    regs = rng.integers(-2**31, 2**31, size=(1, 32, num)).astype(np.int32)
    out = np.full(ARENA, 0xAB, dtype=np.uint8)
    lm.stmatrix(out, addrs, regs, trans)
    values = out.view("<u2")
    elems = unpack(regs, "b16").reshape(1, 32, num, 2)
    for lane in range(32):
        for reg in range(num):
            for half in range(2):
                m, r, c = isa_ldmatrix(lane, reg, half, trans)
                assert values[addrs[0, isa_ldmatrix_address_lane(m, r)] // 2 + c] == \
                    elems[0, lane, reg, half]
    written = np.zeros(ARENA, dtype=bool)
    for lane in lm.address_lanes(num):
        written[addrs[0, lane]:addrs[0, lane] + 16] = True
    assert (out[~written] == 0xAB).all()
    assert (lm.ldmatrix(out, addrs, num, trans) == regs).all()


def test_ctas_have_their_own_arena() -> None:
    arenas = np.stack([np.full(256, 1, np.uint8), np.full(256, 2, np.uint8)])
    regs = lm.ldmatrix(arenas, np.zeros((2, 32), np.int64), 1, False, cta=np.array([1, 0]))
    assert (regs[0] == 0x02020202).all() and (regs[1] == 0x01010101).all()


@pytest.mark.parametrize("addr, what", [(8, "16-byte-aligned"), (4096, "inside 4096 bytes")])
def test_bad_row_addresses_are_reported(addr: int, what: str) -> None:
    addrs = np.zeros((1, 32), np.int64)
    addrs[0, 5] = addr
    with pytest.raises(ValueError, match=f"row address {addr} \\(warp 0, row 5\\).*{what}"):
        lm.ldmatrix(np.zeros(ARENA, np.uint8), addrs, 1, False)
