"""TIRx's cache configs of ``tirx.copy`` (its ``copy/vec_auto.py`` and ``copy/vec_forced.py``
read them), for the variants ``vec_auto`` and ``vec_<N>b``; all describe the copy's loads of
global memory (PTX ISA "ld", "Cache Eviction Priority Hints", "createpolicy"):

* ``config {cache = "nc"}``: read through the read-only data path (``ld.global.nc``, CUDA's
  ``__ldg``). The data must not be written while the kernel runs, as in TIRx: the hint is the
  author's promise;
* ``config {l1_evict = "evict_first"}`` (or ``evict_normal``, ``evict_last``,
  ``evict_unchanged``, ``no_allocate``): the loads' L1 eviction priority
  (``ld.global.L1::evict_first``);
* ``config {l2_evict = "evict_first"}`` (or ``evict_last``, ``evict_normal``,
  ``evict_unchanged``): their L2 priority, a policy made once before the copy
  (``createpolicy.fractional.L2::evict_first.b64``, fraction 1.0) that each load takes through
  ``.L2::cache_hint``;
* ``config {prefetch_size = 64|128|256}``: each load also brings that many bytes around it
  into L2 (``.L2::64B`` ...).

A copy whose source is not global memory is declined with the reason. `with_load_hints` wraps
a variant's impl: the impl builds its code unchanged, then every load of global memory it built
(in loops and branches too) gets the hints. The engine's vector ``ptx.ld`` takes them as
modifiers; a scalar ``cuda.load`` keeps ``nc`` as its property (``__ldg`` in CUDA C++) and
becomes such a ``ptx.ld`` for any other hint (CUDA C++ has no intrinsic for them).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable

from xdsl.builder import Builder
from xdsl.dialects.builtin import StringAttr, UnitAttr, VectorType
from xdsl.ir import SSAValue
from xdsl.rewriter import InsertPoint

from tirx_mlir.backends.cuda.dialects.cuda.loads import EVICT, LoadOp
from tirx_mlir.backends.cuda.dialects.ptx import OPS_BY_ROW
from tirx_mlir.backends.cuda.dialects.ptx.ops import make as ptx_make
from tirx_mlir.backends.cuda.dispatch import common
from tirx_mlir.backends.cuda.memory import GLOBAL
from tirx_mlir.dispatch import fail
from tirx_mlir.dispatch.builders import config_choice, scope_of

CONFIG = ("cache", "l1_evict", "l2_evict", "prefetch_size")
"""The config keys `with_load_hints` reads."""
L2_EVICT = ("evict_first", "evict_last", "evict_normal", "evict_unchanged")
PREFETCH_SIZES = (64, 128, 256)
PTX_LD = OPS_BY_ROW["ld"]


@dataclass(frozen=True)
class Hints:
    """A copy's load hints (module docstring); ``policy`` is the createpolicy result once
    made."""

    nc: bool
    l1_evict: str | None
    l2_evict: str | None
    prefetch: int | None
    policy: SSAValue | None = None

    @staticmethod
    def of(op) -> "Hints":
        return Hints(config_choice(op, "cache", ("nc",)) == "nc",
                     config_choice(op, "l1_evict", EVICT),
                     config_choice(op, "l2_evict", L2_EVICT),
                     config_choice(op, "prefetch_size", PREFETCH_SIZES))

    def any(self) -> bool:
        return self.nc or any(h is not None for h in (self.l1_evict, self.l2_evict,
                                                       self.prefetch))

    def mods(self) -> dict[str, str | None]:
        """The ``ld`` modifiers of the hints."""
        return {"nc": "nc" if self.nc else None,
                "l1": None if self.l1_evict is None else f"L1::{self.l1_evict}",
                "hint": None if self.policy is None else "L2::cache_hint",
                "l2": None if self.prefetch is None else f"L2::{self.prefetch}B"}


def _built_after(block, prev):
    """The ops of ``block`` (the dispatch builder's) after ``prev`` (None: all of them)."""
    cur = block.first_op if prev is None else prev.next_op
    while cur is not None:
        yield cur
        cur = cur.next_op


def _hinted_ld(load, hints: Hints) -> None:
    """``load`` (a global ``ptx.ld`` or scalar ``cuda.load``) rebuilt as the ``ptx.ld`` with the
    hints' modifiers (and the policy operand), its results taking over the old ones."""
    b = Builder(InsertPoint.before(load))
    if isinstance(load, PTX_LD):
        mods = {**load.mods(), **hints.mods()}
        addr, types = load.operands[0], [r.type for r in load.results]
    else:
        if isinstance(load.result.type, VectorType):
            fail("these load hints on a vector cuda.load (the copy engine builds ptx.ld for "
                 "vectors; this one is not)")
        space, addr = common.ptx_access(b, load.memory, load.index)
        types = [load.result.type]
        mods = {"space": space, "type": common.ptx_type(types[0]), **hints.mods()}
    policy = [] if hints.policy is None else [hints.policy]
    new = b.insert(ptx_make("ld", [addr, *policy], types, **mods))
    for old, result in zip(load.results, new.results, strict=True):
        old.replace_all_uses_with(result)
    load.detach()
    load.erase()


def _hint(load, hints: Hints) -> None:
    """The hints on ``load`` when it is a load of global memory (module docstring)."""
    if isinstance(load, PTX_LD):
        if load.mods().get("space") == GLOBAL:
            _hinted_ld(load, hints)
        return
    if not isinstance(load, LoadOp) or scope_of(load.memory) != GLOBAL:
        return
    if hints.l1_evict is None and hints.policy is None and hints.prefetch is None:
        load.properties["nc"] = UnitAttr()  # nc alone: CUDA C++'s __ldg
        return
    _hinted_ld(load, hints)


def with_load_hints(impl: Callable) -> Callable:
    """``impl`` with the module docstring's configs applied to the global loads it builds."""
    def run(op, ctx) -> None:
        hints = Hints.of(op)
        if hints.any() and scope_of(op.src) != GLOBAL:
            fail(f"config {', '.join(k for k in CONFIG if k in op.config_dict())} hints "
                 f"global loads; this copy reads {scope_of(op.src)} memory")
        block = ctx.builder.insertion_point.block
        before = block.last_op
        impl(op, ctx)
        if not hints.any():
            return
        built = list(_built_after(block, before))
        if hints.l2_evict is not None and built:
            policy = ptx_make("createpolicy", [], primary=f"L2::{hints.l2_evict}")
            block.insert_op_before(policy, built[0])
            hints = replace(hints, policy=policy.results[0])
        for top in built:
            for load in list(top.walk()):
                _hint(load, hints)
    run.__name__ = impl.__name__
    run.__doc__ = impl.__doc__
    return run
