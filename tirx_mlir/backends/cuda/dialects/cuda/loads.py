"""Vectorised loads and stores of global and shared memory, with cache hints, and thread
fences.

A scalar access moves one element; a ``vector<N x T>`` access moves N (1, 2 or 4) consecutive
elements, at most 16 bytes (PTX ``ld.v2``/``ld.v4``, CUDA ``float4`` loads). ``index`` is the
flat (row-major) element offset of the first element and must be a multiple of N (the access
is N-element aligned); a constant index is checked for that and for the buffer's bounds.

Cache hints (PTX ISA, "Cache Operators"), global memory only: loads ``ca`` (cache at all
levels, the default), ``cg`` (L2 only), ``cs`` (streaming), ``lu`` (last use), ``cv`` (don't
cache, fetch again); stores ``wb`` (write back, the default), ``cg``, ``cs``, ``wt`` (write
through). ``nc`` loads through the read-only (texture) path (``ld.global.nc``, ``__ldg``); the
data must not be written during the kernel. ``evict`` is the L1 eviction priority
(``L1::evict_first`` ...).

A ``local`` buffer is one thread's own array (``!tirx.buffer<N x T, local>``, 1-D, no layout):
the register tile a dispatched tile op holds. Accessed only at constant indices it lives in
registers (the printers promote it); a dynamic index puts it in local memory (``.local``, off
chip). Cache hints and ``nc`` have no meaning there and are refused.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.dialects.builtin import StringAttr, UnitAttr
from xdsl.irdl import AnyAttr, operand_def, opt_prop_def, prop_def, result_def
from xdsl.utils.exceptions import VerifyException

from tirx_mlir.backends.cuda.dialects.cuda import checks
from tirx_mlir.backends.cuda.dialects.cuda.base import CudaOp
from tirx_mlir.backends.cuda.memory import ACCESS_SCOPES, GLOBAL, LOCAL
from tirx_mlir.dialects.def_check import irdl_op_definition
from tirx_mlir.dialects.tirx.rules import RuleError

LOAD_CACHE = ("ca", "cg", "cs", "lu", "cv")
NC_CACHE = ("ca", "cg", "cs")
STORE_CACHE = ("wb", "cg", "cs", "wt")
EVICT = ("evict_normal", "evict_first", "evict_last", "evict_unchanged", "no_allocate")


class _AccessOp(CudaOp):
    """An access to ``memory[index]`` (subclasses declare the operands: IRDL orders a
    subclass's fields before its base's)."""

    CACHE: ClassVar[tuple[str, ...]] = ()
    VERIFY_CONSTANT_RULES: ClassVar[str] = "verify_constant_index"
    """`tirx_mlir.verification`: the only rules reading a constant operand (``index``), run
    alone for an access whose other checks passed for equal types, hints and launch."""

    def accessed_type(self):
        """The type moved: the result's (load) or operand ``value``'s (store)."""
        raise NotImplementedError

    def _check_hints(self, space: str) -> None:
        hints = [k for k in self.KEYWORDS if self.properties.get(k) is not None]
        if hints and space == LOCAL:
            raise RuleError(f"{', '.join(hints)} hints mean nothing for a thread's local array "
                            f"(registers or .local memory, never through L1/L2 as a global "
                            f"access is); drop them")
        if hints and space != GLOBAL:
            raise RuleError(f"{', '.join(hints)} hints apply to global memory, but operand "
                            f"'memory' is in {space}; drop them")
        cache = self.name_prop("cache")
        if cache is not None:
            checks.check_choice("cache hint", cache, self.CACHE)
        evict = self.name_prop("evict")
        if evict is not None:
            checks.check_choice("eviction priority", evict, EVICT)

    def _check_access(self, what: str, value_type) -> None:
        mem = checks.buffer("memory", self.memory, ACCESS_SCOPES)
        if mem.scope_name == LOCAL and mem.get_layout() is not None:
            raise RuleError(f"operand 'memory' is a local array with a layout "
                            f"({mem.get_layout()}); a thread's local array is a plain 1-D "
                            f"array (lower the register tile's layout first)")
        checks.check_index("index", self.index)
        n = checks.check_vector_access(what, value_type, mem.element_type)
        self._check_hints(mem.scope_name)
        self._check_constant_index(n, mem)

    def _check_constant_index(self, n: int, mem) -> None:
        offset = checks.constant_index(self.index)
        if offset is not None:
            self._check_offset(offset, n, mem)

    @staticmethod
    def _check_offset(offset: int, n: int, mem) -> None:
        """A constant index ``offset`` is aligned to the ``n`` lanes and in bounds."""
        if offset % n:
            raise RuleError(f"index {offset} is not a multiple of the {n} lanes; a vector access "
                            f"must be aligned to its size: use a multiple of {n}")
        checks.check_offset_in_bounds(offset, n, mem)

    def verify_constant_index(self) -> None:
        """A constant ``index``'s rules alone (aligned to the lanes, in bounds), for an access
        whose other rules passed (its types are then a buffer and 1, 2 or 4 lanes). The index
        is read once, and nothing else when it is not a constant."""
        offset = checks.constant_index(self.index)
        if offset is None:
            return
        try:
            self._check_offset(offset, checks.lanes(self.accessed_type())[0], self.memory.type)
        except RuleError as err:
            raise VerifyException(str(err)) from None  # tools prefix "'<op>' op"


@irdl_op_definition
class LoadOp(_AccessOp):
    """Load 1, 2 or 4 consecutive elements: ``result = memory[index : index + N]``.

    ``%v = cuda.load %A, %i cache cg : !tirx.buffer<4096xf32, global>, index -> vector<4xf32>``
    ``%x = cuda.load %tile, %j : !tirx.buffer<64x64xf16, shared>, index -> f16``
    ``%r = cuda.load %regs, %c4 : !tirx.buffer<8xf32, local>, index -> vector<4xf32>``
    """

    name = "cuda.load"
    KEYWORDS: ClassVar = {"cache": "name", "nc": "flag", "evict": "name"}
    CACHE: ClassVar = LOAD_CACHE
    memory = operand_def(AnyAttr())
    index = operand_def(AnyAttr())
    cache = opt_prop_def(StringAttr)
    nc = opt_prop_def(UnitAttr)
    evict = opt_prop_def(StringAttr)
    result = result_def(AnyAttr())

    def accessed_type(self):
        return self.result.type

    def verify_cuda(self, launch: checks.Launch) -> None:
        self._check_access("the result", self.result.type)
        if self.flag("nc") and (cache := self.name_prop("cache")) not in (None, *NC_CACHE):
            raise RuleError(f"a read-only (nc) load takes cache hint {checks.one_of(NC_CACHE)}, "
                            f"not '{cache}'")


@irdl_op_definition
class StoreOp(_AccessOp):
    """Store 1, 2 or 4 consecutive elements: ``memory[index : index + N] = value``.

    ``cuda.store %B, %i, %v cache cs : !tirx.buffer<4096xf32, global>, index, vector<4xf32>``
    """

    name = "cuda.store"
    KEYWORDS: ClassVar = {"cache": "name", "evict": "name"}
    CACHE: ClassVar = STORE_CACHE
    memory = operand_def(AnyAttr())
    index = operand_def(AnyAttr())
    value = operand_def(AnyAttr())
    cache = opt_prop_def(StringAttr)
    evict = opt_prop_def(StringAttr)

    def accessed_type(self):
        return self.value.type

    def verify_cuda(self, launch: checks.Launch) -> None:
        self._check_access("operand 'value'", self.value.type)


@irdl_op_definition
class FenceOp(CudaOp):
    """A memory fence: this thread's writes before it are seen before its writes after it by
    the threads of the scope: ``cta`` (``__threadfence_block``), ``cluster`` (``fence.acq_rel
    .cluster``, sm_90), ``gpu`` (``__threadfence``) or ``sys`` (``__threadfence_system``).

    ``cuda.fence gpu``
    """

    name = "cuda.fence"
    HEAD: ClassVar = ("scope", ("cta", "cluster", "gpu", "sys"))
    scope = prop_def(StringAttr)

    def verify_cuda(self, launch: checks.Launch) -> None:
        if self.head == "cluster":
            checks.require_sm(launch, 90, "a cluster-scope fence")


LOAD_STORE_OPS = (LoadOp, StoreOp, FenceOp)
