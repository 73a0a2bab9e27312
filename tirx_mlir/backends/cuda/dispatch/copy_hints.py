"""TIRx's cache configs of ``tirx.copy`` (its ``copy/vec_auto.py`` and ``copy/vec_forced.py``
read them), for the variants ``vec_auto`` and ``vec_<N>b``:

* ``config {cache = "nc"}``: the global source is read through the read-only data path
  (``ld.global.nc``, CUDA's ``__ldg``; PTX ISA "ld.global.nc"). The data must not be written
  while the kernel runs, as in TIRx: the hint is the author's promise;
* ``config {l1_evict = "evict_first"}`` (or ``evict_normal``, ``evict_last``,
  ``evict_unchanged``, ``no_allocate``): the L1 eviction priority of those loads (PTX ISA
  "Cache Eviction Priority Hints", ``ld.global.L1::evict_first``).

Both describe global loads, so a copy whose source is not global memory is declined with the
reason. `with_load_hints` wraps a variant's impl: the impl builds its code unchanged, then every
load of global memory it inserted (in loops and branches too) gets the hints: a vector ``ptx.ld``
its ``nc`` / ``L1::evict_*`` modifiers, a scalar ``cuda.load`` its ``nc`` property (``__ldg``)
or, with an eviction priority (no CUDA C++ intrinsic has one), becomes such a ``ptx.ld``. TIRx's
``l2_evict`` (an L2 cache policy operand) and ``prefetch_size`` on plain loads are not taken:
the variants decline them, naming the keys above.
"""

from __future__ import annotations

from typing import Callable

from xdsl.builder import Builder
from xdsl.dialects.builtin import StringAttr, UnitAttr, VectorType
from xdsl.rewriter import InsertPoint

from tirx_mlir.backends.cuda.dialects.cuda.loads import EVICT, LoadOp
from tirx_mlir.backends.cuda.dialects.ptx import OPS_BY_ROW
from tirx_mlir.backends.cuda.dialects.ptx.ops import make as ptx_make
from tirx_mlir.backends.cuda.dispatch import pointwise
from tirx_mlir.backends.cuda.memory import GLOBAL
from tirx_mlir.dispatch import fail
from tirx_mlir.dispatch.builders import config_choice, scope_of

CONFIG = ("cache", "l1_evict")
"""The config keys `with_load_hints` reads."""
PTX_LD = OPS_BY_ROW["ld"]


def _built_after(block, prev):
    """The ops of ``block`` (the dispatch builder's) after ``prev`` (None: all of them)."""
    cur = block.first_op if prev is None else prev.next_op
    while cur is not None:
        yield cur
        cur = cur.next_op


def _hint(load, nc: bool, evict: str | None) -> None:
    """The hints on ``load`` when it reads global memory: the engine's vector ``ptx.ld`` gets
    the slots ``nc`` and ``l1``; a scalar ``cuda.load`` the property ``nc``, or becomes that
    ``ptx.ld`` when it is to carry an eviction priority (CUDA C++ has no intrinsic for one)."""
    if isinstance(load, PTX_LD) and load.mods().get("space") == GLOBAL:
        if nc:
            load.properties["nc"] = StringAttr("nc")
        if evict:
            load.properties["l1"] = StringAttr(f"L1::{evict}")
        return
    if not isinstance(load, LoadOp) or scope_of(load.memory) != GLOBAL:
        return
    if not evict:
        load.properties["nc"] = UnitAttr()
        return
    if isinstance(load.result.type, VectorType):
        fail("config l1_evict on a vector cuda.load (one ptx.ld per vector is not built here)")
    b = Builder(InsertPoint.before(load))
    space, addr = pointwise._ptx_access(b, load.memory, load.index)
    t = load.result.type
    new = b.insert(ptx_make("ld", [addr], [t], space=space, nc="nc" if nc else None,
                            l1=f"L1::{evict}", type=pointwise._ptx_type(t)))
    load.result.replace_all_uses_with(new.results[0])
    load.detach()
    load.erase()


def with_load_hints(impl: Callable) -> Callable:
    """``impl`` with the module docstring's configs applied to the global loads it builds."""
    def run(op, ctx) -> None:
        nc = config_choice(op, "cache", ("nc",)) == "nc"
        evict = config_choice(op, "l1_evict", EVICT)
        if (nc or evict) and scope_of(op.src) != GLOBAL:
            fail(f"config cache / l1_evict are hints of global loads; this copy reads "
                 f"{scope_of(op.src)} memory")
        block = ctx.builder.insertion_point.block
        before = block.last_op
        impl(op, ctx)
        if not (nc or evict):
            return
        for top in _built_after(block, before):
            for load in list(top.walk()):
                _hint(load, nc, evict)
    run.__name__ = impl.__name__
    run.__doc__ = impl.__doc__
    return run
