"""The CTAs of a cluster at the tile level: run together, meeting at ``tirx.cluster_sync``.

A kernel with a cluster launch whose body synchronises its cluster (``tirx.cluster_sync``) or
copies into another CTA's shared memory (``tirx.copy_async ... remote_cta %r``) is run cluster
by cluster (clusters in grid order of their ids, x fastest). The CTAs of one cluster run as
coroutines on the one interpreter, in *phases*: each CTA in turn, by rank, runs until its next
``tirx.cluster_sync`` (or its end); when every CTA of the cluster waits at a sync, the phase
ends and the next begins. This is one valid interleaving of the cluster (CTAs have no order
between two syncs), so a program whose result depends on the order of its CTAs inside a phase
races on the hardware as well.

Distributed shared memory: ``copy_async %dst, %src remote_cta %r`` reads ``src`` during the
phase (writing it before the next sync is an error) and *lands* at the end of the phase, in
issue order: the view ``dst`` of the same shared buffer (the same ``tirx.alloc``, its current
instance) in the CTA of rank ``r``. So the destination CTA sees the data after the next
``tirx.cluster_sync`` and never before, whatever the CTA order, which is what the hardware
guarantees (the bytes arrive at some time between the issue and the sync). Touching a remote
copy's destination in the phase it is written is a race; the SIMT interpreter reports it on the
lowered program (the bytes are in flight until the wait).

Errors, located at the op: a copy whose source changed before it landed, a copy still in flight
when its cluster's CTAs end (a sync is missing after it), a CTA that ends while the others wait
at a sync, a rank outside the cluster, a destination CTA without a live instance of the buffer
when the copy lands.

Without such ops, a cluster launch runs CTA by CTA as any kernel does (the same result: one
phase per CTA).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from xdsl.interpreter import Interpreter
from xdsl.ir import Operation, SSAValue

from tirx_mlir.dialects.tirx import tile_ops as T
from tirx_mlir.dialects.tirx.access import resolve_access
from tirx_mlir.dialects.tirx.kernel import KernelOp
from tirx_mlir.dialects.tirx.sync_ops import ClusterSyncOp
from tirx_mlir.interpreter.runtime import InterpretError


def synchronises_cluster(kernel: KernelOp) -> bool:
    """Whether ``kernel`` meets its cluster (a cluster_sync or a remote copy_async)."""
    return kernel.cluster_dims() is not None and any(
        isinstance(op, ClusterSyncOp) or isinstance(op, T.CopyAsyncOp) and
        op.remote_cta is not None for op in kernel.body.walk())


def cluster_members(grid: tuple[int, int, int], cluster: tuple[int, int, int]):
    """The CTA ids of each cluster, clusters in grid order of their ids (x fastest), each
    cluster's CTAs by rank (x fastest)."""
    counts = [g // c for g, c in zip(grid, cluster)]
    for qz in range(counts[2]):
        for qy in range(counts[1]):
            for qx in range(counts[0]):
                yield [(qx * cluster[0] + x, qy * cluster[1] + y, qz * cluster[2] + z)
                       for z in range(cluster[2]) for y in range(cluster[1])
                       for x in range(cluster[0])]


@dataclass
class _RemoteCopy:
    """A remote copy in flight: the data read at issue, where it goes, who issued it."""

    op: T.CopyAsyncOp
    rank: int
    alloc: SSAValue
    offset: int          # elements from the start of the buffer
    shape: tuple[int, ...]
    strides: tuple[int, ...]  # bytes
    data: np.ndarray
    issuer: int
    source: np.ndarray   # the source view, which must keep ``data`` until the copy lands


class _Aborted(BaseException):
    """Unwinds a CTA coroutine when another CTA of its cluster failed."""


@dataclass
class ClusterCta:
    """One CTA of a running cluster: its rank, launch, state and (suspended) value scope."""

    rank: int
    launch: Any
    status: str = "ready"      # ready | sync | done | error
    at: Operation | None = None
    error: BaseException | None = None
    saved: Any = None          # the interpreter's value scope while suspended
    thread: threading.Thread | None = None


@dataclass
class ClusterRun:
    """One cluster's CTAs as coroutines (module docstring); ``current`` is the running CTA."""

    interp: Interpreter
    ctas: list[ClusterCta]
    in_flight: list[_RemoteCopy] = field(default_factory=list)
    current: ClusterCta | None = None
    failed: int | None = None  # rank of the CTA an error is about
    _turn: int = -1            # rank of the CTA allowed to run; -1: the scheduler
    _abort: bool = False
    _set_launch: Any = None
    _cond: threading.Condition = field(default_factory=threading.Condition)

    # ---- the coroutines ----
    def _wait_turn(self, rank: int) -> None:
        with self._cond:
            self._cond.wait_for(lambda: self._turn == rank)

    def _hand(self, rank: int) -> None:
        with self._cond:
            self._turn = rank
            self._cond.notify_all()

    def _resume(self, cta: ClusterCta) -> None:
        """Run ``cta`` until it suspends or ends; back on the scheduler's value scope."""
        mine = self.interp._ctx  # noqa: SLF001 - the value scope is per coroutine
        self.current = cta
        self._hand(cta.rank)
        self._wait_turn(-1)
        self.current = None
        self.interp._ctx = mine  # noqa: SLF001

    def sync(self, op: Operation) -> None:
        """The running CTA waits at ``op`` until its whole cluster is there."""
        cta = self.current
        assert cta is not None
        cta.status, cta.at, cta.saved = "sync", op, self.interp._ctx  # noqa: SLF001
        set_launch, launch = self._set_launch, cta.launch
        self._hand(-1)
        self._wait_turn(cta.rank)
        if self._abort:
            raise _Aborted
        self.interp._ctx = cta.saved  # noqa: SLF001
        set_launch(launch)
        cta.status = "ready"

    def run(self, body, set_launch) -> None:
        """Run every CTA of the cluster to its end (``body()`` runs the kernel body of the
        current launch, ``set_launch(launch)`` makes a CTA current)."""
        self._set_launch = set_launch
        root = self.interp._ctx  # noqa: SLF001

        def start(cta: ClusterCta) -> None:
            self._wait_turn(cta.rank)
            try:
                if self._abort:
                    raise _Aborted
                self.interp._ctx = root  # noqa: SLF001
                set_launch(cta.launch)
                body()
                cta.status = "done"
            except _Aborted:
                cta.status = "done"
            except BaseException as err:  # noqa: BLE001 - re-raised by the scheduler
                cta.status, cta.error = "error", err
            finally:
                self._hand(-1)

        for cta in self.ctas:
            cta.thread = threading.Thread(target=start, args=(cta,), daemon=True,
                                          name=f"cta-{cta.rank}")
            cta.thread.start()
        try:
            self._schedule()
        finally:
            self._stop()

    def _schedule(self) -> None:
        while True:
            for cta in self.ctas:
                if cta.status == "ready":
                    self._resume(cta)
                    if cta.status == "error":
                        self.failed = cta.rank
                        raise cta.error  # type: ignore[misc]
            waiting = [c for c in self.ctas if c.status == "sync"]
            if not waiting:
                if self.in_flight:
                    copy = self.in_flight[0]
                    self.failed = copy.issuer
                    raise InterpretError(
                        f"this remote copy into CTA rank {copy.rank} of the cluster is still in "
                        f"flight when the cluster's CTAs end", copy.op, code="cluster",
                        hint="add a tirx.cluster_sync cluster after it (the destination sees "
                             "the data after the next sync)")
                return
            if len(waiting) != len(self.ctas):
                ended = next(c for c in self.ctas if c.status == "done")
                self.failed = waiting[0].rank
                raise InterpretError(
                    f"CTA rank {ended.rank} of the cluster ended while CTA rank "
                    f"{waiting[0].rank} waits here: every CTA of a cluster must reach every "
                    f"tirx.cluster_sync", waiting[0].at, code="cluster",
                    hint="put the sync where every CTA of the cluster runs it (no branch on "
                         "the CTA id around it)")
            self._land()
            for cta in self.ctas:
                cta.status = "ready"

    def _land(self) -> None:
        flights, self.in_flight = self.in_flight, []
        for copy in flights:
            if copy.source.tobytes() != copy.data.tobytes():
                self.failed = copy.issuer
                raise InterpretError(
                    "the source of this remote copy was written before the tirx.cluster_sync "
                    "it lands at (the copy reads it until then)", copy.op, code="cluster",
                    hint="write the source after the next cluster_sync, or copy from another "
                         "buffer")
            owner = self.ctas[copy.rank]
            try:
                base = owner.saved[copy.alloc]
            except KeyError:
                self.failed = copy.issuer
                raise InterpretError(
                    f"CTA rank {copy.rank} of the cluster has no live instance of the "
                    f"destination buffer when this remote copy lands", copy.op,
                    code="cluster") from None
            assert isinstance(base, np.ndarray) and base.flags.c_contiguous
            dst = np.lib.stride_tricks.as_strided(base.reshape(-1)[copy.offset:], copy.shape,
                                                  copy.strides, writeable=True)
            dst[...] = copy.data

    def _stop(self) -> None:
        self._abort = True
        for cta in self.ctas:
            if cta.status in ("ready", "sync") and cta.thread is not None and \
                    cta.thread.is_alive():
                self._resume(cta)
        for cta in self.ctas:
            if cta.thread is not None:
                cta.thread.join()

    # ---- remote copies ----
    def issue(self, op: T.CopyAsyncOp, dst: np.ndarray, src: np.ndarray, rank: int) -> None:
        """``copy_async dst, src remote_cta rank`` by the running CTA: read now, land later."""
        cta = self.current
        assert cta is not None
        if not 0 <= rank < len(self.ctas):
            raise InterpretError(f"remote_cta is {rank}, but the cluster has {len(self.ctas)} "
                                 f"CTAs (ranks 0..{len(self.ctas) - 1})", op, code="cluster")
        alloc = resolve_access(op.dst).buffer
        (base,) = self.interp.get_values((alloc,))
        offset = (dst.__array_interface__["data"][0] - base.__array_interface__["data"][0])
        self.in_flight.append(_RemoteCopy(
            op, rank, alloc, offset // base.itemsize, dst.shape, dst.strides,
            np.array(src, copy=True).reshape(dst.shape), cta.rank, src))


def current_cluster(interp: Interpreter) -> ClusterRun | None:
    """The cluster the interpreter is running (None outside a cluster-synchronising kernel)."""
    return interp.get_data(ClusterRun, "cluster", lambda: None)  # type: ignore[arg-type]


def set_current_cluster(interp: Interpreter, run: ClusterRun | None) -> None:
    interp.set_data(ClusterRun, "cluster", run)  # type: ignore[arg-type]


def require_cluster(interp: Interpreter, op: Operation) -> ClusterRun:
    run = current_cluster(interp)
    if run is None:
        raise InterpretError(f"{op.name} runs only inside a kernel with a cluster launch", op,
                             code="cluster")
    return run
