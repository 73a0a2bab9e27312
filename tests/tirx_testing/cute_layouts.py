"""A minimal evaluator of CuTe layouts (nested shape:stride, colexicographic coordinates) and the
thread-value layouts CUTLASS states for the tensor-core instructions, transcribed from
NVIDIA/cutlass ``include/cute/atom/mma_traits_sm80.hpp``, ``mma_traits_sm90_gmma.hpp`` and
``copy_traits_sm75.hpp``. The tests use them as a second source, independent of the PTX ISA
formulas they also write out: CUTLASS runs these layouts on hardware.
"""

from __future__ import annotations


def _flatten(shape, stride):
    if isinstance(shape, tuple):
        for s, d in zip(shape, stride):
            yield from _flatten(s, d)
    else:
        yield shape, stride


def evaluate(shape, stride, index: int) -> int:
    """The offset a layout gives the linear (colexicographic) coordinate ``index``."""
    out = 0
    for s, d in _flatten(shape, stride):
        out += (index % s) * d
        index //= s
    return out


def tv(layout, thread: int, value: int) -> int:
    """Offset of (thread, value) in a thread-value layout ``((thr shape, val shape),
    (thr stride, val stride))``."""
    (tshape, vshape), (tstride, vstride) = layout
    return evaluate(tshape, tstride, thread) + evaluate(vshape, vstride, value)


# (T32, V) -> column-major (M, K) / (N, K) / (M, N) index, mma_traits_sm80.hpp
SM80_8x8_ROW = (((4, 8), 2), ((16, 1), 8))
SM80_8x16_ROW = (((4, 8), 4), ((32, 1), 8))
SM80_16x8_ROW = (((4, 8), (2, 2)), ((32, 1), (16, 8)))
SM80_16x8x16_F16_A = (((4, 8), (2, 2, 2)), ((32, 1), (16, 8, 128)))
SM80_16x8x16_F16_B = (((4, 8), (2, 2)), ((16, 1), (8, 64)))
SM80_16x8x8_TF32_A = (((4, 8), (2, 2)), ((16, 1), (8, 64)))
SM80_16x8x8_TF32_B = (((4, 8), 2), ((8, 1), 32))
SM80_16x8x16_S8_A = (((4, 8), (4, 2)), ((64, 1), (16, 8)))
SM80_16x8x32_S8_A = (((4, 8), (4, 2, 2)), ((64, 1), (16, 8, 256)))
SM80_16x8x32_S8_B = (((4, 8), (4, 2)), ((32, 1), (8, 128)))

# (T128, V) -> column-major (64, N) / (64, K) index, mma_traits_sm90_gmma.hpp
def gmma_c_64xn(n: int):
    return (((4, 8, 4), (2, 2, n // 8)), ((128, 1, 16), (64, 8, 512)))


GMMA_A_64x8 = (((4, 8, 4), (2, 2)), ((64, 1, 16), (8, 256)))
GMMA_A_64x16 = (((4, 8, 4), (2, 2, 2)), ((128, 1, 16), (64, 8, 512)))
GMMA_A_64x32 = (((4, 8, 4), (4, 2, 2)), ((256, 1, 16), (64, 8, 1024)))

# (T32, V bits) -> bit of the row-major 8x8 b16 matrix, copy_traits_sm75.hpp (ldmatrix x1)
LDSM_X1_DST = ((32, 32), (32, 1))
LDSM_X1_TRANS_DST = (((4, 8), (16, 2)), ((256, 16), (1, 128)))
