"""The ``nvshmem`` ops as NVSHMEM device calls: byte-wise ``putmem`` / ``getmem`` (elements x
``sizeof(T)``), ``nvshmemx_..._warp`` / ``_block`` for a warp or block group, signals through
``uint64_t*``, the comparisons and signal operations from tables.py."""

from __future__ import annotations

from xdsl.ir import Operation, SSAValue

from tirx_mlir.backends.cuda.dialects import nvshmem
from tirx_mlir.backends.cuda.dialects.cuda import checks
from tirx_mlir.backends.cuda.printers.cuda_cpp import tables as T


class NvshmemCalls:
    """Mixin of `CudaCppPrinter` (uses its names, expressions and closed tables)."""

    def group_call(self, op: Operation, stem: str, nbi: bool = False) -> str:
        """``nvshmem_<stem>[_nbi]`` for a thread, ``nvshmemx_<stem>[_nbi]_warp|_block`` for a
        warp or block group."""
        prefix, suffix = self.choose(T.NVSHMEM_GROUP, op.name_prop("group", "thread"),
                                     "group", op)  # type: ignore[arg-type]
        return f"{prefix}{stem}{'_nbi' if nbi else ''}{suffix}"

    def nbytes(self, buffer: SSAValue, count: SSAValue, op: Operation) -> str:
        return f"({self.expr(count)} * sizeof({self.element_type(buffer.type, op)}))"

    def buffer_ref(self, value: SSAValue, op: Operation) -> str:
        if value not in self.names or value in self.tensor_maps:
            raise self.fail("an nvshmem buffer must be a kernel parameter or a shared array",
                            op)
        return self.names[value]

    def _copy(self, op, stem: str) -> None:
        fn = self.group_call(op, stem, op.flag("nbi"))
        self.line(f"{fn}({self.buffer_ref(op.dest, op)}, {self.buffer_ref(op.source, op)}, "
                  f"{self.nbytes(op.dest, op.nelems, op)}, {self.expr(op.pe)});")

    def emit_nvshmem_put(self, op: nvshmem.PutOp) -> None:
        self._copy(op, "putmem")

    def emit_nvshmem_get(self, op: nvshmem.GetOp) -> None:
        self._copy(op, "getmem")

    def emit_nvshmem_put_signal(self, op: nvshmem.PutSignalOp) -> None:
        fn = self.group_call(op, "putmem_signal", op.flag("nbi"))
        sig = self.choose(T.NVSHMEM_SIGNAL, op.head, "signal operation", op)
        self.line(f"{fn}({self.buffer_ref(op.dest, op)}, {self.buffer_ref(op.source, op)}, "
                  f"{self.nbytes(op.dest, op.nelems, op)}, "
                  f"reinterpret_cast<uint64_t*>({self.buffer_ref(op.signal, op)}), "
                  f"{self.expr(op.signal_value)}, {sig}, {self.expr(op.pe)});")

    def emit_nvshmem_signal_op(self, op: nvshmem.SignalOpOp) -> None:
        sig = self.choose(T.NVSHMEM_SIGNAL, op.head, "signal operation", op)
        self.line(f"nvshmemx_signal_op(reinterpret_cast<uint64_t*>("
                  f"{self.buffer_ref(op.signal, op)}), {self.expr(op.value)}, {sig}, "
                  f"{self.expr(op.pe)});")

    def emit_nvshmem_signal_wait_until(self, op: nvshmem.SignalWaitUntilOp) -> None:
        cmp = self.choose(T.NVSHMEM_CMP, op.head, "comparison", op)
        self.define(op, f"static_cast<long long>(nvshmem_signal_wait_until("
                        f"reinterpret_cast<uint64_t*>({self.buffer_ref(op.signal, op)}), {cmp}, "
                        f"{self.expr(op.value)}))")

    def emit_nvshmem_wait_until(self, op: nvshmem.WaitUntilOp) -> None:
        cmp = self.choose(T.NVSHMEM_CMP, op.head, "comparison", op)
        t = self.choose(T.NVSHMEM_WAIT_TYPE, checks.type_name(op.value.type), "wait type", op)
        ptr = f"reinterpret_cast<{_NVSHMEM_C_TYPE[t]}*>({self.buffer_ref(op.ivar, op)})"
        self.line(f"nvshmem_{t}_wait_until({ptr}, {cmp}, {self.expr(op.value)});")

    def emit_nvshmem_barrier_all(self, op: Operation) -> None:
        self.line(f"{self.group_call(op, 'barrier_all')}();")

    def emit_nvshmem_sync_all(self, op: Operation) -> None:
        self.line(f"{self.group_call(op, 'sync_all')}();")

    def emit_nvshmem_quiet(self, op: Operation) -> None:
        self.line("nvshmem_quiet();")

    def emit_nvshmem_fence(self, op: Operation) -> None:
        self.line("nvshmem_fence();")

    def emit_nvshmem_my_pe(self, op: Operation) -> None:
        self.define(op, "nvshmem_my_pe()")

    def emit_nvshmem_n_pes(self, op: Operation) -> None:
        self.define(op, "nvshmem_n_pes()")


_NVSHMEM_C_TYPE = {"int": "int", "uint32": "uint32_t", "int64": "int64_t"}
