"""Shared memory: static ``__shared__`` arrays and views of the dynamic arena.

``cuda.shared_alloc`` declares a static shared array (``__shared__ alignas(A) T name[n]``); a
block may declare at most 48 KiB of static shared memory. ``cuda.dynamic_shared`` is a typed view
of the ``extern __shared__`` arena at a byte ``offset``; the arena's size is given at launch and
may reach the target's ``max_shared_memory_per_block`` (opt-in, via
``cudaFuncSetAttribute(..., cudaFuncAttributeMaxDynamicSharedMemorySize, ...)``).

A ``tirx.alloc`` in ``shared`` at the CUDA level is a static shared array too, `DEFAULT_ALIGN`
aligned (`static_shared_array` states what each op declares), until ``cuda-allocate-shared``
(transforms/allocate_shared.py) places it in the dynamic arena; `dynamic_shared_bytes` is the
arena a launch must then give.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import IntegerAttr
from xdsl.irdl import AnyAttr, opt_prop_def, result_def

from tirx_mlir.backends.cuda.dialects.cuda import checks
from tirx_mlir.backends.cuda.dialects.cuda.base import CudaOp
from tirx_mlir.backends.cuda.memory import SHARED, SHARED_DYN, STATIC_SHARED_LIMIT
from tirx_mlir.dialects.def_check import irdl_op_definition
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.buffer_ops import AllocOp
from tirx_mlir.dialects.tirx.rules import RuleError

DEFAULT_ALIGN = 16
"""Bytes: enough for 128-bit vector accesses."""
TILE_ALIGN = 128
"""The alignment cuda-lower-layout gives a shared tile (vector accesses, ldmatrix rows and TMA
destinations need up to 128 bytes)."""


class _SharedOp(CudaOp):
    SCOPE: ClassVar[str] = SHARED
    KEYWORDS: ClassVar = {"align": "int"}
    align = opt_prop_def(IntegerAttr)
    result = result_def(AnyAttr())

    def buffer_type(self) -> BufferType:
        t = self.result.type
        assert isinstance(t, BufferType)
        return t

    def nbytes(self) -> int:
        t = self.buffer_type()
        return t.numel * checks.element_bytes(t.element_type)

    def alignment(self) -> int:
        return self.int_prop("align", DEFAULT_ALIGN)

    def verify_cuda(self, launch: checks.Launch) -> None:
        t = self.result.type
        if not isinstance(t, BufferType) or t.scope_name != self.SCOPE:
            raise RuleError(f"the result must be a !tirx.buffer in {self.SCOPE}, got {t}")
        if t.get_layout() is not None:
            raise RuleError(f"the result has a layout ({t.get_layout()}); shared arrays are "
                            f"row-major: drop the layout")
        elem = checks.element_bytes(t.element_type)
        checks.check_power_of_two("align", self.alignment(), elem)


@irdl_op_definition
class SharedAllocOp(_SharedOp):
    """A static shared array of the result's shape and element type, ``align`` bytes aligned
    (a power of two, default 16). At most 48 KiB.

    ``%tile = cuda.shared_alloc align 128 : !tirx.buffer<64x64xf16, shared>``
    """

    name = "cuda.shared_alloc"

    def verify_cuda(self, launch: checks.Launch) -> None:
        super().verify_cuda(launch)
        if self.nbytes() > STATIC_SHARED_LIMIT:
            raise RuleError(f"the array takes {self.nbytes()} bytes; static shared memory is "
                            f"limited to {STATIC_SHARED_LIMIT} bytes per block: use "
                            f"cuda.dynamic_shared for more")


@irdl_op_definition
class DynamicSharedOp(_SharedOp):
    """A view of the dynamic shared arena starting ``offset`` bytes in (default 0; a multiple
    of ``align``). With a target, ``offset`` + the view's bytes must fit its
    ``max_shared_memory_per_block``.

    ``%stage1 = cuda.dynamic_shared offset 16384 align 128 : !tirx.buffer<64x64xf32,
    shared.dyn>``
    """

    name = "cuda.dynamic_shared"
    SCOPE: ClassVar = SHARED_DYN
    KEYWORDS: ClassVar = {"offset": "int", "align": "int"}
    offset = opt_prop_def(IntegerAttr)

    def verify_cuda(self, launch: checks.Launch) -> None:
        super().verify_cuda(launch)
        offset = self.int_prop("offset")
        if offset < 0 or offset % self.alignment():
            raise RuleError(f"offset {offset} must be a non-negative multiple of the alignment "
                            f"{self.alignment()}")
        limit = checks.max_shared_bytes(self)
        end = offset + self.nbytes()
        if limit is not None and end > limit:
            raise RuleError(f"the view ends at byte {end} of the arena, but the target allows "
                            f"{limit} bytes of shared memory per block; shrink the view or "
                            f"target a GPU with more shared memory")


SHARED_OPS = (SharedAllocOp, DynamicSharedOp)


ALIGN_ATTR = "cuda.align"
"""Integer attribute of a shared ``tirx.alloc``: the alignment its bytes need (a swizzled tile's
atom); without it `DEFAULT_ALIGN`."""

CLUSTER_VISIBLE_ATTR = "cuda.cluster_visible"
"""Attribute of a shared ``tirx.alloc`` that other CTAs of the cluster write (a dsmem copy's
destination) at times its own CTA does not order: cuda-allocate-shared keeps its bytes its own
for the whole kernel."""


def static_shared_array(op) -> tuple[BufferType, int] | None:
    """(type, alignment in bytes) of the static shared array ``op`` declares: a
    ``cuda.shared_alloc`` or a ``tirx.alloc`` in shared (its `ALIGN_ATTR`, else
    `DEFAULT_ALIGN`); None for any other op."""
    if isinstance(op, SharedAllocOp):
        return op.buffer_type(), op.alignment()
    if isinstance(op, AllocOp) and isinstance(op.result.type, BufferType) and \
            op.result.type.scope_name == SHARED:
        attr = op.attributes.get(ALIGN_ATTR)
        align = attr.value.data if isinstance(attr, IntegerAttr) else DEFAULT_ALIGN
        return op.result.type, align
    return None


def dynamic_shared_bytes(kernel) -> int:
    """Bytes of the dynamic shared arena a launch of ``kernel`` must give: what its
    ``cuda.dynamic_shared`` views reach (0 when it has none)."""
    ends = [op.int_prop("offset") + op.nbytes() for op in kernel.walk()
            if isinstance(op, DynamicSharedOp)]
    return max(ends, default=0)
