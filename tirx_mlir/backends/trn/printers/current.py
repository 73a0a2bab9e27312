"""``-t nki``: NKI Python for the current API (``import nki``, NKI 0.3 - 0.6).

Destination-passing calls (``nisa.tensor_tensor(dst=t, data1=a, data2=b, op=nl.add)``),
``nl.ndarray(..., buffer=nl.sbuf | nl.psum | nl.hbm, address=(0, bytes))`` allocations, views as
slices (``t[0:128, nl.ds(k * 512, 512)]``) or, for transposed/reshaped views, raw access patterns
(``t.ap(pattern=[[1, 64], [128, 128]], offset=0)``), outputs allocated in ``nl.shared_hbm`` and
returned, loops as ``range`` (the current API unrolls every loop at trace time), and
``accumulate=`` on matmul (``accumulate=(k > 0)`` for a K loop). A view of an HBM tensor with a
layout is an access pattern over its flat array (``A.ap(pattern=[[1, 128], [128, 512]],
offset=0)`` for a column-major ``128x512``).
"""

from __future__ import annotations

import math
from typing import ClassVar

from xdsl.ir import Operation, SSAValue

from tirx_mlir.backends.trn import memory
from tirx_mlir.backends.trn.dialects import nki
from tirx_mlir.backends.trn.dialects.nki import checks
from tirx_mlir.backends.trn.dialects.nki.tables import AFFINE_SELECT_CMPS
from tirx_mlir.backends.trn.printers.emitter import (SCOPE_HINT, NkiEmitterBase, hbm_flat,
                                                     index_slots)
from tirx_mlir.dialects.tirx import dtypes
from tirx_mlir.dialects.tirx.access import IndexExpr, resolve_access
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.kernel import KernelOp

BUFFERS = {checks.SBUF: "nl.sbuf", checks.PSUM: "nl.psum", checks.HBM: "nl.hbm"}


class NkiPrinter(NkiEmitterBase):
    API: ClassVar[str] = "current"
    DESCRIPTION: ClassVar[str] = "current NKI printer"
    HEADER: ClassVar[tuple[str, ...]] = ("import math", "", "import numpy as np", "",
                                         "import nki", "import nki.isa as nisa",
                                         "import nki.language as nl")
    DTYPES: ClassVar[dict[str, str]] = {
        "f32": "nl.float32", "f16": "nl.float16", "bf16": "nl.bfloat16",
        "f8E4M3FN": "nl.float8_e4m3fn", "f8E5M2": "nl.float8_e5m2", "i8": "nl.int8",
        "i16": "nl.int16", "i32": "nl.int32", "ui8": "nl.uint8", "ui16": "nl.uint16",
        "ui32": "nl.uint32", "i1": "nl.bool_"}
    DEFAULT_LOOP: ClassVar[str] = "range"
    LOOP_FUNCS: ClassVar[dict[str, str]] = {"range": "range", "sequential": "range",
                                            "affine": "nl.affine_range",
                                            "static": "range"}
    ENGINE_FORMAT: ClassVar[str] = "nisa.engine.{}"
    CMP_FUNCS: ClassVar[dict[str, str]] = {name: f"nl.{name}" for name in AFFINE_SELECT_CMPS}

    # ---- kernel frame ----
    def emit_signature(self, kernel: KernelOp, fn_name: str) -> None:
        params = ", ".join(self.names[a] for a in kernel.inputs)
        self.line("@nki.jit")
        self.line(f"def {fn_name}({params}):")

    def emit_prologue(self, kernel: KernelOp) -> None:
        for arg in kernel.outputs:
            assert isinstance(arg.type, BufferType)
            shape = tuple(self.memory_shape(arg, kernel))
            self.line(f"{self.names[arg]} = nl.ndarray({shape!r}, dtype={self.dtype(arg.type)}, "
                      f"buffer=nl.shared_hbm)")

    def ndarray(self, value: SSAValue, address: int | None, op: Operation) -> str:
        btype = value.type
        assert isinstance(btype, BufferType)
        buffer = self.choose(BUFFERS, btype.scope_name, "memory scope", op,
                             hint=SCOPE_HINT)
        text = f"nl.ndarray({tuple(self.memory_shape(value, op))!r}, " \
               f"dtype={self.dtype(btype, op)}, " \
               f"buffer={buffer}"
        if address is not None and btype.scope_name in memory.ON_CHIP:
            text += f", address=(0, {address})"
        return text + ")"

    # ---- views ----
    def tile(self, value: SSAValue, op: Operation, role: str = "full") -> str:
        access = resolve_access(value)
        base = self.buffer_name(access.buffer, op)
        placement = self.placement(access.buffer, op)
        self.check_merged(access, placement, op)
        if placement is not None:
            offset, steps = hbm_flat(access, placement)
            pairs = [(steps[d], self.extent(access, d, op)) for d in index_slots(access)]
            return self.ap_text(base, pairs, offset, op)
        if access.buffer is value:  # the buffer itself, not a view: its whole region
            return base
        region = access.as_region()
        if region is None:
            return self.access_pattern(base, access, op)
        if region.is_whole():
            return base
        extents = region.buffer_type.get_shape()
        keep = index_slots(access)
        subscripts = [self.subscript(o, n, s, e, op, access.guard(d)) if d in keep
                      else self.index_text(o, op)
                      for d, (o, n, s, e) in
                      enumerate(zip(region.offsets, region.sizes, region.strides, extents))]
        return f"{base}[{', '.join(subscripts)}]"

    def extent(self, access, d: int, op: Operation) -> int | str:
        """View dim ``d``'s size: its guard's expression (a dynamic extent: NKI traces it to
        an int, the loops being unrolled), else the static size."""
        guard = access.guard(d)
        return access.sizes[d] if guard is None else self.expr(guard)

    def subscript(self, offset: IndexExpr, size: int, stride: int, extent: int,
                  op: Operation, guard: SSAValue | None = None) -> str:
        size, stride = self.checked_int(size, op), self.checked_int(stride, op)
        if guard is not None:  # a dynamic extent: nl.ds(start, size), size traced to an int
            start, n = self.index_text(offset, op), self.expr(guard)
            if stride == 1:
                return f"nl.ds({start}, {n})"
            return f"{start}:{start} + ({n} - 1) * {stride} + 1:{stride}"
        span = self.checked_int((size - 1) * stride + 1, op)
        if offset.is_const():
            o = self.checked_int(offset.const, op)
            if o == 0 and size == extent and stride == 1:
                return ":"
            return f"{o}:{o + span}" if stride == 1 else f"{o}:{o + span}:{stride}"
        start = self.index_text(offset, op)
        if stride == 1:
            return f"nl.ds({start}, {size})"
        return f"{start}:{start} + {span}:{stride}"

    def access_pattern(self, base: str, access, op: Operation) -> str:
        """A transposed or reshaped view as ``base.ap(pattern=..., offset=...)`` over the
        buffer flattened to 1-D (for SBUF/PSUM the first pair walks the partitions)."""
        shape = access.buffer_type.get_shape()
        sizes = [self.extent(access, d, op) for d in range(len(access.sizes))]
        pairs = list(zip(access.flat_steps(), sizes))
        if access.buffer_type.scope_name in memory.ON_CHIP:
            pairs[0] = (math.prod(shape[1:]), sizes[0])
        return self.ap_text(base, pairs, access.flat_offset(), op)

    def ap_text(self, base: str, pairs, offset: IndexExpr, op: Operation) -> str:
        """``base.ap(pattern=[[step, size], ...], offset=...)``."""
        pattern = ", ".join(f"[{self.int_literal(s, op)}, "
                            f"{n if isinstance(n, str) else self.int_literal(n, op)}]"
                            for s, n in pairs)
        return f"{base}.ap(pattern=[{pattern}], offset={self.index_text(offset, op)})"

    # ---- instructions ----
    def instruction(self, fn: str, op: Operation, dst: SSAValue | None, args, *,
                    augmented: bool = False) -> None:
        parts = [] if dst is None else [f"dst={self.tile(dst, op)}"]
        parts += [f"{k}={v}" if k else v for k, v in args if v is not None]
        self.line(f"{fn}({', '.join(parts)})")

    def emit_nki_load(self, op: nki.LoadOp) -> None:
        src = self.broadcast_rows(op) if op.is_partition_broadcast() else self.tile(op.src, op)
        self.instruction("nisa.dma_copy", op, op.dst, [("src", src)])

    def broadcast_rows(self, op: nki.LoadOp | nki.DmaCopyOp) -> str:
        """An HBM row read once per destination partition: its access pattern with a stride-0
        partition pair, ``B.ap(pattern=[[0, P], [1, N]], offset=...)``."""
        access = resolve_access(op.src)
        base = self.buffer_name(access.buffer, op)
        placement = self.placement(access.buffer, op)
        if placement is not None:
            offset, steps = hbm_flat(access, placement)
        else:
            shape = access.buffer_type.get_shape()
            row = [math.prod(shape[j + 1:]) for j in range(len(shape))]
            steps = [sum(s * r for s, r in zip(step, row)) for step in access.steps]
            offset = IndexExpr()
            for o, r in zip(access.offset, row):
                offset = offset + o.scale(r)
        free = [(steps[d], n) for d, n in enumerate(access.sizes) if d > 0 and n != 1]
        partitions = op.dst.type.get_shape()[0]  # type: ignore[attr-defined]
        return self.ap_text(base, [(0, partitions)] + (free or [(1, 1)]), offset, op)

    emit_nki_store = emit_nki_load
    emit_nki_dma_copy = emit_nki_load  # type: ignore[assignment]

    def emit_nki_tensor_copy(self, op: nki.TensorCopyOp) -> None:
        """The current API forbids a ScalarE tensor_copy on NeuronCore-v2; there it is the
        same fp32 round trip as ``activation(op=copy)`` (NKI ISA ``tensor_copy``)."""
        if self.word(op, "engine") == "scalar" and self.limits(op).nc_version <= 2:
            self.instruction("nisa.activation", op, op.dst,
                             [("op", "nl.copy"), ("data", self.tile(op.src, op))])
            return
        super().emit_nki_tensor_copy(op)

    def emit_nki_memset(self, op: nki.MemsetOp) -> None:
        self.instruction("nisa.memset", op, op.dst,
                         [("value", self.value_literal(op.value, op.dst, op)),
                          ("engine", self.engine(self.word(op, "engine"), op))])

    def emit_nki_iota(self, op: nki.IotaOp) -> None:
        self.instruction("nisa.iota", op, op.dst,
                         [("pattern", self.pattern_text(op)),
                          ("offset", self.integer(op, "offset")),
                          ("channel_multiplier", self.integer(op, "channel_multiplier"))])

    def emit_nki_identity(self, op: nki.IdentityOp) -> None:
        """ones, then keep them where partition == column (p - f == 0)."""
        n = self.int_literal(checks.partitions(op.dst), op)
        one = "1" if not self._float_tile(op.dst) else "1.0"
        zero = "0" if not self._float_tile(op.dst) else "0.0"
        dst = self.tile(op.dst, op)
        self.line(f"nisa.memset(dst={dst}, value={one})")
        self.line(f"nisa.affine_select(dst={dst}, pattern=[[-1, {n}]], channel_multiplier=1, "
                  f"on_true_tile={dst}, on_false_value={zero}, cmp_op=nl.equal, offset=0)")

    def _float_tile(self, value: SSAValue) -> bool:
        return dtypes.is_float(checks.buffer_type(value).element_type)

    def emit_nki_matmul(self, op: nki.MatmulOp) -> None:
        if op.accumulate_if is not None:
            accumulate = self.expr(op.accumulate_if)
        else:
            accumulate = str(op.flag("accumulate"))
        self.instruction("nisa.nc_matmul", op, op.dst,
                         [("stationary", self.tile(op.stationary, op, "own")),
                          ("moving", self.tile(op.moving, op, "own")),
                          ("accumulate", accumulate)])

    def emit_nki_tensor_reduce(self, op: nki.TensorReduceOp) -> None:
        self.instruction("nisa.tensor_reduce", op, op.dst,
                         [("op", self.alu(op, "op")), ("data", self.tile(op.src, op)),
                          ("axis", str(self.ints(op.normalized_axes(), op))),
                          ("negate", str(op.flag("negate"))),
                          ("keepdims", str(op.flag("keepdims")))])

    def emit_nki_select(self, op: nki.SelectOp) -> None:
        """dst = on_false, then copy on_true where the predicate is non-zero."""
        dst_base = resolve_access(op.dst).buffer
        for name in ("predicate", "on_true"):
            if resolve_access(getattr(op, name)).buffer == dst_base:
                raise self.fail(f"the current NKI form of select writes dst before reading "
                                f"'{name}', which views the same buffer", op,
                                hint="select into a tile that no input views")
        if checks.is_tile(op.on_false):
            self.instruction("nisa.tensor_copy", op, op.dst, [("src", self.tile(op.on_false, op))])
        else:
            self.instruction("nisa.memset", op, op.dst,
                             [("value", self.value_literal(op.on_false, op.dst, op))])
        self.instruction("nisa.tensor_copy_predicated", op, op.dst,
                         [("src", self.tile(op.on_true, op)),
                          ("predicate", self.tile(op.predicate, op))])

    def emit_nki_affine_select(self, op: nki.AffineSelectOp) -> None:
        self.instruction("nisa.affine_select", op, op.dst,
                         [("pattern", self.pattern_text(op)),
                          ("channel_multiplier", self.integer(op, "channel_multiplier")),
                          ("on_true_tile", self.tile(op.on_true, op)),
                          ("on_false_value", self.real(op, "on_false")),
                          ("cmp_op", self.choose(self.CMP_FUNCS, self.word(op, "cmp"),
                                                 "affine_select comparison", op)),
                          ("offset", self.offset_text(op))])

    def pattern_text(self, op: nki.IotaOp | nki.AffineSelectOp) -> str:
        return "[" + ", ".join(f"[{s}, {n}]" for s, n in self.pattern(op)) + "]"
