"""The fragment formulas of the PTX ISA, written out case by case as its tables state them, for
the tensor-core tests (tests/backends/cuda/interpreter/tensor_core/): sections "Matrix Fragments
for mma.m16n8k8", "Matrix Fragments for mma.m16n8k16 with floating point type", "Matrix
Fragments for mma.m16n8k16 with integer type", "Matrix Fragments for mma.m16n8k32" (Warp Level
Matrix Multiply-Accumulate Instructions). ``groupID = laneid >> 2``, ``threadID_in_group =
laneid % 4``; each function gives the (row, col) of element i of a lane.
"""

from __future__ import annotations

BITS = {"f16": 16, "bf16": 16, "tf32": 32, "s8": 8, "u8": 8, "e4m3": 8, "e5m2": 8}


def isa_a(shape: str, bits: int, lane: int, i: int) -> tuple[int, int]:
    """(row, col) of element a_i of lane ``lane``, as the ISA's tables state it."""
    g, t = lane >> 2, lane % 4
    if (shape, bits) == ("m16n8k8", 16):
        return (g if i < 2 else g + 8), t * 2 + (i & 1)
    if (shape, bits) == ("m16n8k8", 32):
        return (g if i in (0, 2) else g + 8), (t if i < 2 else t + 4)
    if (shape, bits) == ("m16n8k16", 16):
        return (g if i < 2 or 4 <= i < 6 else g + 8), t * 2 + (i & 1) + (0 if i < 4 else 8)
    if (shape, bits) == ("m16n8k16", 8):
        return (g if i < 4 else g + 8), t * 4 + (i & 3)
    assert (shape, bits) == ("m16n8k32", 8)
    return (g if i < 4 or 8 <= i < 12 else g + 8), t * 4 + (i & 3) + (0 if i < 8 else 16)


def isa_b(shape: str, bits: int, lane: int, i: int) -> tuple[int, int]:
    g, t = lane >> 2, lane % 4
    if (shape, bits) == ("m16n8k8", 16):
        return t * 2 + i, g
    if (shape, bits) == ("m16n8k8", 32):
        return (t if i == 0 else t + 4), g
    if (shape, bits) == ("m16n8k16", 16):
        return t * 2 + (i & 1) + (0 if i < 2 else 8), g
    if (shape, bits) == ("m16n8k16", 8):
        return t * 4 + i, g
    assert (shape, bits) == ("m16n8k32", 8)
    return t * 4 + (i & 3) + (0 if i < 4 else 16), g


def isa_c(lane: int, i: int) -> tuple[int, int]:
    g, t = lane >> 2, lane % 4
    return (g if i < 2 else g + 8), t * 2 + (i & 1)


def isa_ldmatrix(lane: int, reg: int, half: int, trans: bool) -> tuple[int, int, int]:
    """(matrix, row, col) in the stored 8x8 matrices of element ``half`` of register ``reg`` of
    ``lane`` after ldmatrix (section "Warp-level matrix load instruction: ldmatrix": "each
    thread receives ... row = laneid / 4 (groupID), col = threadID_in_group * 2 + i"; with
    .trans the matrix is read column-major, row and column exchanged)."""
    g, t = lane >> 2, lane % 4
    if trans:
        return reg, t * 2 + half, g
    return reg, g, t * 2 + half


def isa_ldmatrix_address_lane(matrix: int, row: int) -> int:
    """The lane whose address gives row ``row`` of matrix ``matrix``: "threads 0-7 ... the
    addresses for the rows of the first matrix, threads 8-15 the second, ..."."""
    return 8 * matrix + row


def isa_wgmma_d(warp_in_group: int, lane: int, i: int) -> tuple[int, int]:
    """(row, col) of accumulator element d_i of a thread of a warpgroup, section "Register
    Fragments ... wgmma .m64nNk16" (matrix D): row = 16 * warp + groupID for d_i with
    i % 4 < 2, groupID + 8 otherwise; col = (i // 4) * 8 + threadID_in_group * 2 + (i & 1)."""
    g, t = lane >> 2, lane % 4
    return 16 * warp_in_group + (g if i % 4 < 2 else g + 8), (i // 4) * 8 + t * 2 + (i & 1)


def k_major_32b_image(mat):
    """The shared-memory bytes of an R x K operand with 32-byte rows (K-major) laid out as TMA
    with CU_TENSOR_MAP_SWIZZLE_32B leaves it (and wgmma's 32B-swizzle K-major layout reads it):
    row r at byte 32 * r, its two 16-byte halves swapped in rows 4-7 of every 8 (16-byte chunk
    index XOR bit 7 of the offset). ``mat`` is a numpy array; returns uint8 of ``R * 32``."""
    import numpy as np

    raw = np.ascontiguousarray(mat).view(np.uint8).reshape(mat.shape[0], 32)
    out = np.empty_like(raw)
    for r in range(raw.shape[0]):
        swap = 16 * ((r >> 2) & 1)
        out[r, swap:swap + 16] = raw[r, :16]
        out[r, 16 - swap:32 - swap] = raw[r, 16:]
    return out.reshape(-1)
