"""Bulk copies and TMA (``ptx.cp_async_bulk*``, ``ptx.cp_async_bulk_tensor*``,
``ptx.cp_reduce_async_bulk_tensor``, ``ptx.prefetch_tensormap``, and ``ptx.createpolicy``,
the L2 policy of their ``.L2::cache_hint``, which changes no value) on lane values, per PTX ISA
"cp.async.bulk" and "cp.async.bulk.tensor"; every active lane issues its own copy.

* **Loads into shared memory** (``cp_async_bulk_g2s``, ``cp_async_bulk_s2c``, the tensor
  ``g2s``, and their ``.multicast::cluster`` forms, which write the same shared offset in every
  CTA of ``cta_mask``) read their source at issue and *land* when a thread tests the current
  phase of the mbarrier they complete on (each destination CTA's mbarrier at the ``bar``
  offset), which then counts their bytes (complete_tx). Until then the destination bytes are
  owned (async_state.py): touching one is a located error.
* **Stores from shared memory** (``cp_async_bulk_s2g``, tensor ``s2g``,
  ``cp_reduce_async_bulk_tensor``) write global memory at issue and join the lane's open bulk
  group; their source bytes stay owned until ``cp.async.bulk.wait_group{.read}`` retires the
  group (``cp.async.bulk.commit_group`` closes it): overwriting one earlier is an error.
* **Tensor copies** use the tensor map at the ``tmap`` address (tensor_map.py): the box at the
  coordinates (innermost first, signed; elements outside the tensor read as zeros, or NaN with
  the map's NaN fill, and are not written by stores) is laid out in shared memory in C order
  of the box, element strides applied (ceil(box / element stride) elements per dim), and with a
  swizzle the byte at shared address ``a`` goes to ``a ^ (((a >> 7) & m) << 4)`` with ``m`` = 1,
  3, 7 for 32B, 64B, 128B: 16-byte chunks XORed by the 128-byte row (CUDA C++ Programming
  Guide, "Asynchronous Data Copies using TMA", swizzle modes; CUTLASS ``Swizzle<1|2|3, 4, 3>``).
  The pattern is a function of the shared address itself, as on the hardware; the destination
  must be 128-byte aligned. The interpreter supports swizzled boxes whose inner dim spans the
  whole swizzle span (what CUTLASS and the examples use) and refuses narrower ones.
"""

from __future__ import annotations

import numpy as np

from tirx_mlir.backends.cuda.interpreter import memory
from tirx_mlir.backends.cuda.interpreter.async_state import (BulkRead, Flight, Owner,
                                                             check_access, global_bytes,
                                                             shared_targets, state_of)
from tirx_mlir.backends.cuda.interpreter.checks.proxies import check_async_read
from tirx_mlir.backends.cuda.interpreter.ptx_memory_ops import space_of
from tirx_mlir.backends.cuda.interpreter.ptx_rows import ptx_row, row_view
from tirx_mlir.backends.cuda.interpreter.values import lane_dtype
from tirx_mlir.backends.cuda.dialects.ptx import OPS_BY_ROW
from tirx_mlir.backends.cuda.layout.swizzle import Swizzle
from tirx_mlir.backends.cuda.layout.swizzle import swizzle as tensor_core_swizzle
from tirx_mlir.backends.cuda.interpreter.tensor_map import TensorMap, decode
from tirx_mlir.interpreter.runtime import convert

LANDS_AT = "a test of its mbarrier's phase, ptx.mbarrier_try_wait_parity or test_wait_parity"
READ_UNTIL = "the issuing thread's ptx.cp_async_bulk_wait_group (.read) retires its bulk group"
_UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def swizzle(offsets: np.ndarray, span: int) -> np.ndarray:
    """The shared byte offsets a tensor map's swizzle of ``span`` bytes (0, 32, 64, 128) maps
    ``offsets`` to: the same XOR pattern as a wgmma descriptor's (`layout.swizzle`)."""
    return tensor_core_swizzle(offsets, Swizzle.of_span(span))


# --- shared pieces ------------------------------------------------------------------------------


class _Units:
    """Collects the units of one op's `Flight`."""

    def __init__(self):
        self.lane, self.cta, self.bar, self.tx, self.offsets, self.data = [], [], [], [], [], []

    def add(self, lane: int, cta: int, bar: int, offsets: np.ndarray, data: np.ndarray) -> None:
        self.lane.append(lane)
        self.cta.append(cta)
        self.bar.append(bar)
        self.tx.append(len(offsets))
        self.offsets.append(offsets)
        self.data.append(data)

    def issue(self, ctx, op) -> None:
        if not self.lane:
            return
        n = len(self.lane)
        flight = Flight(op, np.array(self.lane), np.array(self.cta), np.array(self.bar),
                        np.full(n, -1), np.array(self.tx),
                        np.repeat(np.arange(n), [len(o) for o in self.offsets]),
                        np.concatenate(self.offsets), np.concatenate(self.data))
        state_of(ctx).issue(ctx, flight, LANDS_AT)
        ctx.stats.add(op, "async_bytes", int(flight.tx.sum()))


def _one(ctx, space: str, addr: np.ndarray, lane: int, nbytes: int, align: int,
         what: str) -> tuple[int, int]:
    cta, offset = shared_targets(ctx, space, addr, nbytes, np.array([lane]), align, what)
    return int(cta[0]), int(offset[0])


def _destinations(ctx, view, lane: int, own_cta: int, multicast: bool) -> list[int]:
    """The CTAs a load writes: the one its address names, or the ranks of ``cta_mask``."""
    if not multicast:
        return [own_cta]
    wave = ctx.wave
    if wave.cluster_dim is None:
        raise ctx.error("a .multicast::cluster copy in a launch without clusters", [lane],
                        hint="add `cluster [..]` to the kernel")
    size = int(np.prod(wave.cluster_dim))
    mask = int(view.one("cta_mask")[lane]) & 0xFFFF
    if mask >> size:
        raise ctx.error(f"cta_mask 0x{mask:x} names CTA ranks beyond the cluster's {size}",
                        [lane])
    table = ctx.mem._cta_table(wave)  # noqa: SLF001 - same package
    return [int(table[wave.cta[lane], r]) for r in range(size) if mask >> r & 1]


def _barrier_offset(ctx, view, space: str, lane: int, dst_cta: int, multicast: bool) -> int:
    bar_cta, bar_off = _one(ctx, space, view.one("bar"), lane, 8, 8, "the mbarrier address")
    if not multicast and bar_cta != dst_cta:
        raise ctx.error(f"the mbarrier is in {ctx.wave.cta_name(bar_cta)} but the destination "
                        f"in {ctx.wave.cta_name(dst_cta)}; a copy completes on an mbarrier of "
                        f"its destination CTA", [lane])
    return bar_off


def _shared_source(ctx, view, lane: int, nbytes: int, align: int,
                   what: str) -> tuple[int, np.ndarray, np.ndarray]:
    """(CTA, byte offsets, bytes) of a shared::cta source, checked against owned bytes."""
    cta, off = _one(ctx, memory.SHARED, view.one("src"), lane, nbytes, align, what)
    offsets = off + np.arange(nbytes)
    return cta, offsets, _read_shared(ctx, cta, offsets, lane)


def _read_shared(ctx, cta: int, offsets: np.ndarray, lane: int) -> np.ndarray:
    """The bytes at ``offsets`` of CTA ``cta``, read through the async proxy by ``lane``'s copy:
    checked against bytes an asynchronous copy owns and against unfenced generic writes."""
    check_access(ctx, "read", np.full(len(offsets), cta), offsets, 1, np.full(len(offsets), lane))
    check_async_read(ctx, cta, offsets, 1, np.array([lane]))
    return ctx.mem.arena[cta, offsets].copy()


def _hold_source(ctx, op, lane: int, cta: int, offsets: np.ndarray) -> None:
    state = state_of(ctx)
    ctas = np.full(len(offsets), cta)
    state.reading.add(ctas, offsets, [Owner(op, lane, READ_UNTIL)])
    state.bulk_reads.append(BulkRead(lane, int(state.bulk_groups[lane]), ctas, offsets))


def _size(ctx, view, lane: int) -> int:
    size = int(view.one("size")[lane]) & 0xFFFFFFFF
    if size % 16 or size == 0:
        raise ctx.error(f"a bulk copy of {size} bytes; the size must be a positive multiple "
                        f"of 16", [lane])
    return size


# --- bulk copies --------------------------------------------------------------------------------


def _multicast(op) -> bool:
    return op.ENTRY.name.endswith("_multicast")


@ptx_row("cp_async_bulk_g2s", "cp_async_bulk_g2s_multicast")
def run_bulk_load(ctx, op, args):
    multicast = _multicast(op)
    view = row_view(op, args)
    space = memory.CLUSTER if multicast else space_of(ctx, view.mods)
    units = _Units()
    for lane in ctx.lanes.tolist():
        size = _size(ctx, view, lane)
        data = global_bytes(ctx, int(view.one("src")[lane]), size, lane, 16,
                            "the bulk copy source").copy()
        cta, off = _one(ctx, space, view.one("dst"), lane, size, 16, "the bulk copy destination")
        bar = _barrier_offset(ctx, view, space, lane, cta, multicast)
        for dst in _destinations(ctx, view, lane, cta, multicast):
            units.add(lane, dst, bar, off + np.arange(size), data)
    units.issue(ctx, op)
    return ()


@ptx_row("cp_async_bulk_s2c")
def run_bulk_s2c(ctx, op, args):
    view = row_view(op, args)
    units = _Units()
    for lane in ctx.lanes.tolist():
        size = _size(ctx, view, lane)
        _, _, data = _shared_source(ctx, view, lane, size, 16, "the bulk copy source")
        cta, off = _one(ctx, memory.CLUSTER, view.one("dst"), lane, size, 16,
                        "the bulk copy destination")
        bar = _barrier_offset(ctx, view, memory.CLUSTER, lane, cta, False)
        units.add(lane, cta, bar, off + np.arange(size), data)
    units.issue(ctx, op)
    return ()


@ptx_row("cp_async_bulk_s2g")
def run_bulk_s2g(ctx, op, args):
    view = row_view(op, args)
    for lane in ctx.lanes.tolist():
        size = _size(ctx, view, lane)
        cta, offsets, data = _shared_source(ctx, view, lane, size, 16, "the bulk copy source")
        global_bytes(ctx, int(view.one("dst")[lane]), size, lane, 16,
                     "the bulk copy destination")[:] = data
        _hold_source(ctx, op, lane, cta, offsets)
        ctx.stats.add(op, "async_bytes", size)
    ctx.mem.version += 1
    return ()


@ptx_row("cp_async_bulk_commit_group")
def run_bulk_commit(ctx, op, args):
    state_of(ctx).bulk_groups[ctx.mask] += 1
    return ()


@ptx_row("cp_async_bulk_wait_group")
def run_bulk_wait(ctx, op, args):
    state = state_of(ctx)
    state.complete_bulk(ctx.lanes, state.bulk_groups - int(row_view(op, args).mods["n"]))
    return ()


# --- tensor copies ------------------------------------------------------------------------------


def tensor_map_at(ctx, addr: int, lane: int) -> TensorMap:
    """The tensor map at global address ``addr`` (64-byte aligned)."""
    tmap = decode(global_bytes(ctx, addr, 128, lane, 64, "the tensor map address"))
    if tmap is None or tmap.address == 0:
        raise ctx.error(f"the 128 bytes at 0x{addr:x} do not hold a tensor map", [lane],
                        hint="pass a kernel parameter listed in cuda.tensor_maps, made by "
                             "tensor_map.encode_tensor_map")
    return tmap


def _box(ctx, tmap: TensorMap, coords: list[int], lane: int) -> tuple[np.ndarray, np.ndarray]:
    """(element index in the tensor's allocation, in bounds) of the box's elements, C order."""
    counts = tmap.box_elements
    axes = [coords[d] + np.arange(counts[d], dtype=np.int64) * tmap.element_strides[d]
            for d in range(tmap.rank)]
    grids = np.meshgrid(*reversed(axes), indexing="ij")  # outermost first
    inside = np.ones(grids[0].shape, dtype=bool)
    offset = np.zeros(grids[0].shape, dtype=np.int64)
    for d in range(tmap.rank):
        g = grids[tmap.rank - 1 - d]
        inside &= (g >= 0) & (g < tmap.dims[d])
        offset += g * tmap.strides[d]
    return (offset // tmap.dtype.itemsize).reshape(-1), inside.reshape(-1)


def _tensor(ctx, tmap: TensorMap, lane: int):
    """The typed (bit-exact unsigned) view of the allocation the map's address names."""
    k = int(ctx.mem._global_targets(ctx, np.array([tmap.address]), 1,  # noqa: SLF001
                                    np.array([lane]))[0])
    alloc = ctx.mem.allocations[k]
    return alloc.typed(np.dtype(_UINT[tmap.dtype.itemsize]))


def _box_layout(ctx, tmap: TensorMap, base: int, lane: int) -> np.ndarray:
    """Shared byte offsets of the box's bytes (element order, then byte order)."""
    if tmap.swizzle and tmap.box_elements[0] * tmap.dtype.itemsize != tmap.swizzle:
        raise ctx.error(f"a {tmap.swizzle}B-swizzled box whose inner dim spans "
                        f"{tmap.box_elements[0] * tmap.dtype.itemsize} bytes; the SIMT "
                        f"interpreter supports swizzled boxes whose inner dim spans the whole "
                        f"swizzle span", [lane])
    return swizzle(base + np.arange(tmap.box_bytes, dtype=np.int64), tmap.swizzle)


def _coords(view, lane: int) -> list[int]:
    return [int(c[lane]) for c in view.reads["tmap"][1:]]


@ptx_row("cp_async_bulk_tensor_g2s", "cp_async_bulk_tensor_g2s_multicast")
def run_tensor_load(ctx, op, args):
    multicast = _multicast(op)
    view = row_view(op, args)
    space = memory.CLUSTER if multicast else space_of(ctx, view.mods)
    units = _Units()
    for lane in ctx.lanes.tolist():
        tmap = tensor_map_at(ctx, int(view.reads["tmap"][0][lane]), lane)
        if len(view.reads["tmap"]) - 1 != tmap.rank:
            raise ctx.error(f"a {len(view.reads['tmap']) - 1}d copy with a rank-{tmap.rank} "
                            f"tensor map", [lane])
        index, inside = _box(ctx, tmap, _coords(view, lane), lane)
        view_u = _tensor(ctx, tmap, lane)
        fill = np.array(np.nan if tmap.nan_fill else 0, dtype=tmap.dtype).view(view_u.dtype)
        elems = np.where(inside, view_u[np.where(inside, index, 0)], fill)
        data = elems.view(np.uint8)
        cta, off = _one(ctx, space, view.one("dst"), lane, tmap.box_bytes, 128,
                        "the TMA destination")
        offsets = _box_layout(ctx, tmap, off, lane)
        bar = _barrier_offset(ctx, view, space, lane, cta, multicast)
        for dst in _destinations(ctx, view, lane, cta, multicast):
            units.add(lane, dst, bar, offsets, data)
    units.issue(ctx, op)
    return ()


def _tensor_store(ctx, op, args, combine):
    view = row_view(op, args)
    for lane in ctx.lanes.tolist():
        tmap = tensor_map_at(ctx, int(view.reads["tmap"][0][lane]), lane)
        index, inside = _box(ctx, tmap, _coords(view, lane), lane)
        cta, off = _one(ctx, memory.SHARED, view.one("src"), lane, tmap.box_bytes, 128,
                        "the TMA source")
        offsets = _box_layout(ctx, tmap, off, lane)
        view_u = _tensor(ctx, tmap, lane)
        values = _read_shared(ctx, cta, offsets, lane).view(view_u.dtype)[inside]
        target = index[inside]
        if combine is not None:
            values = combine(ctx, tmap, view_u[target].view(tmap.dtype),
                             values.view(tmap.dtype), lane).view(view_u.dtype)
        view_u[target] = values
        _hold_source(ctx, op, lane, cta, offsets)
        ctx.stats.add(op, "async_bytes", tmap.box_bytes)
    ctx.mem.version += 1
    return ()


@ptx_row("cp_async_bulk_tensor_s2g")
def run_tensor_s2g(ctx, op, args):
    return _tensor_store(ctx, op, args, None)


@ptx_row("cp_reduce_async_bulk_tensor")
def run_tensor_reduce(ctx, op, args):
    redop = row_view(op, args).mods["redop"]

    def combine(ctx, tmap, old, new, lane):
        return reduce_values(ctx, redop, tmap, old, new, lane)
    return _tensor_store(ctx, op, args, combine)


def reduce_values(ctx, redop: str, tmap: TensorMap, old: np.ndarray, new: np.ndarray,
                  lane: int) -> np.ndarray:
    """``old <redop> new`` in the map's element type (floats computed wide, then rounded)."""
    dtype = tmap.dtype
    is_float = tmap.dtype_code in (6, 7, 8, 9, 10, 11, 12)
    if is_float:
        if redop not in ("add", "min", "max"):
            raise ctx.error(f"cp.reduce.async.bulk.tensor .{redop} on a floating-point tensor "
                            f"map; floats reduce with add, min or max", [lane])
        a, b = old.astype(np.float64), new.astype(np.float64)
        out = {"add": np.add, "min": np.minimum, "max": np.maximum}[redop](a, b)
        return convert(out, dtype)
    with np.errstate(all="ignore"):
        if redop == "add":
            return (old + new).astype(dtype)
        if redop in ("min", "max"):
            return (np.minimum if redop == "min" else np.maximum)(old, new)
        if redop in ("and", "or", "xor"):
            return {"and": np.bitwise_and, "or": np.bitwise_or, "xor": np.bitwise_xor}[redop](
                old, new)
        if dtype != np.dtype(np.uint32):
            raise ctx.error(f"cp.reduce.async.bulk.tensor .{redop} needs a u32 tensor map, "
                            f"not {dtype}", [lane])
        if redop == "inc":
            return np.where(old >= new, 0, old + 1).astype(dtype)
        return np.where((old == 0) | (old > new), new, old - 1).astype(dtype)


@ptx_row("createpolicy")
def run_createpolicy(ctx, op, args):
    # A cache policy decides what L2 keeps, never a value: the interpreter's policy is the
    # priority's position in the row's choices, which the TMA copies' .L2::cache_hint carry
    # and ignore.
    priority = row_view(op, args).mods["primary"]
    code = OPS_BY_ROW["createpolicy"].ENTRY.slot("primary").choices.index(priority)
    return (np.full(ctx.wave.L, code, dtype=lane_dtype(op.results[0].type)),)


@ptx_row("prefetch_tensormap")
def run_prefetch_tensormap(ctx, op, args):
    view = row_view(op, args)
    for lane in ctx.lanes.tolist():
        tensor_map_at(ctx, int(view.one("tmap")[lane]), lane)
    return ()
