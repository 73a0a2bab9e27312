"""The forced-only CUDA copy variants ``vec_128b``, ``vec_64b``, ``vec_32b``, ``vec_16b``
(priority 20, TIRx's ``copy/vec_forced.py``): one thread moves exactly one vector of that width
with a single ``ld`` / ``st`` pair, chosen only with ``dispatch "vec_<N>b"`` at thread scope.

The copy's region must hold exactly ``N / element bits`` elements of one dtype, consecutive and
``N / 8``-byte aligned in both operands (the variant declines otherwise, with the reason);
a register endpoint moves its registers directly (``cuda.load``/``cuda.store`` of the thread's
array), a memory endpoint with one ``ld``/``st.v{1,2,4}`` of the element type. An access of more
than 4 elements (16-bit elements at 128 bits) needs packed registers, which this variant does
not build: it declines and ``vec_auto`` is the way. TIRx's ``vec_256b`` (sm_100's 32-byte
accesses) waits for sm_100 support.
"""

from __future__ import annotations

import math

from tirx_mlir.backends.cuda.dispatch import common, copy_hints, pointwise
from tirx_mlir.backends.cuda.memory import GLOBAL, LOCAL, SHARED_SCOPES
from tirx_mlir.dialects.tirx import dtypes
from tirx_mlir.dialects.tirx import tile_ops as T
from tirx_mlir.dispatch import exec_scope_in, fail, forced_only
from tirx_mlir.dispatch.builders import elem_type, shape_of

WIDTHS = (128, 64, 32, 16)


def _vec(bits: int):
    def impl(op, ctx) -> None:
        t = elem_type(op.dst)
        if elem_type(op.src) != t:
            fail("the forced vector copies move one dtype (use vec_auto to convert)")
        n = bits // dtypes.bit_width(t)
        count = math.prod(shape_of(op.dst))
        if n < 1 or n * dtypes.bit_width(t) != bits or count != n:
            fail(f"vec_{bits}b moves exactly {bits} bits: the region holds {count} elements of "
                 f"{dtypes.bit_width(t)} bits")
        if n > 4:
            fail(f"{n} elements per access need packed registers; use vec_auto")
        pointwise.lower(op, ctx, op.dst, [op.src], lambda b, xs: xs[0], ctype=t,
                        require_vector=n)
    impl.__name__ = f"vec_{bits}b"
    return impl


for _bits in WIDTHS:
    common.cuda_variant(T.CopyOp, f"vec_{_bits}b", 20,
                        [forced_only(f"vec_{_bits}b"), exec_scope_in("thread"),
                         common.operands_in(GLOBAL, LOCAL, *SHARED_SCOPES)],
                        config=copy_hints.CONFIG)(copy_hints.with_load_hints(_vec(_bits)))
