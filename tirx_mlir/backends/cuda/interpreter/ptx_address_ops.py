"""PTX address conversions on lane values: the rows ``cvta``, ``mapa`` and ``getctarank``, in
the address encoding of memory.py.

* ``cvta.global`` / ``cvta.to.global``: the identity (global addresses are generic ones).
* ``cvta.shared`` (``shared::cta``): a shared-window offset to the generic address
  ``SHARED_GENERIC + offset``; ``cvta.to.shared`` back (a located error for an address outside
  the shared window). ``cvta.shared::cluster`` takes a ``shared::cluster`` address of the
  thread's own CTA (a generic address of another CTA's shared memory has no encoding here: use
  ``ld``/``st.shared::cluster``); ``cvta.to.shared::cluster`` gives the own-CTA form.
* ``mapa.shared::cluster``: the same offset in the window of CTA ``rank`` of the cluster,
  ``(rank + 1) * CLUSTER_WINDOW + offset`` (the rank is checked when the address is used).
* ``getctarank.shared::cluster``: the rank that owns a ``shared::cluster`` address (the
  thread's own for a ``shared::cta`` one).
There is no local memory window (``.local``: a located error).
"""

from __future__ import annotations

import numpy as np

from tirx_mlir.backends.cuda.interpreter.memory import CLUSTER_WINDOW, SHARED_GENERIC
from tirx_mlir.backends.cuda.interpreter.ptx_rows import ptx_row, row_view
from tirx_mlir.backends.cuda.interpreter.values import lane_dtype


def _own_rank(ctx) -> np.ndarray:
    wave = ctx.wave
    return wave.cluster_rank if wave.cluster_dim is not None else np.zeros(wave.L, np.int64)


def _check(ctx, bad: np.ndarray, message: str, hint: str) -> None:
    bad = bad & ctx.mask
    if bad.any():
        raise ctx.error(message, bad, hint=hint)


def _shared_offset(ctx, addr: np.ndarray, what: str) -> np.ndarray:
    """The offset of a shared-window address (a located error for anything else)."""
    _check(ctx, (addr < 0) | (addr >= CLUSTER_WINDOW), f"{what} takes a shared-window address "
           f"(an offset in the CTA's shared memory)", "convert a generic address with "
           "cvta.to.shared first")
    return addr


def _cluster_offset(ctx, addr: np.ndarray, what: str) -> np.ndarray:
    """The offset of a shared::cluster address that names the thread's own CTA."""
    rank = addr // CLUSTER_WINDOW
    own = (rank == 0) | (rank == _own_rank(ctx) + 1)
    _check(ctx, ~own | (addr < 0), f"{what} of a shared::cluster address of another CTA: the "
           f"interpreter has no generic address for another CTA's shared memory",
           "access it with ld/st.shared::cluster")
    return addr % CLUSTER_WINDOW


@ptx_row("cvta")
def run_cvta(ctx, op, args):
    view = row_view(op, args)
    space, to = view.mods["space"], view.mods.get("to") is not None
    src = view.one("src").astype(np.int64)
    if space == "global":
        out = src
    elif space == "local":
        raise ctx.error("the SIMT interpreter has no local memory window")
    elif to:
        _check(ctx, (src < SHARED_GENERIC) | (src >= SHARED_GENERIC + CLUSTER_WINDOW),
               f"cvta.to.{space} of an address outside the generic shared window",
               "the address must come from cvta.shared or a shared buffer's cuda.address")
        out = src - SHARED_GENERIC
    elif space == "shared::cluster":
        out = SHARED_GENERIC + _cluster_offset(ctx, src, "cvta")
    else:
        out = SHARED_GENERIC + _shared_offset(ctx, src, "cvta.shared")
    return (out.astype(lane_dtype(op.results[0].type)),)


@ptx_row("mapa")
def run_mapa(ctx, op, args):
    view = row_view(op, args)
    src = view.one("src").astype(np.int64)
    rank = view.one("rank").astype(np.int64) & 0xFFFF_FFFF
    _check(ctx, src < 0, "mapa takes a shared-window or shared::cluster address",
           "convert a generic address with cvta.to.shared first")
    out = (rank + 1) * CLUSTER_WINDOW + src % CLUSTER_WINDOW
    return (out.astype(lane_dtype(op.results[0].type)),)


@ptx_row("getctarank")
def run_getctarank(ctx, op, args):
    src = row_view(op, args).one("src").astype(np.int64)
    _check(ctx, src < 0, "getctarank takes a shared-window or shared::cluster address",
           "convert a generic address with cvta.to.shared first")
    window = src // CLUSTER_WINDOW
    rank = np.where(window == 0, _own_rank(ctx), window - 1)
    return (rank.astype(lane_dtype(op.results[0].type)),)
