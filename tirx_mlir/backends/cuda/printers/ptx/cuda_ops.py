"""``cuda`` ops as PTX (the `CudaOps` mixin of the PTX printer), each the instruction sequence
nvcc emits for the CUDA C++ built-in:

=======================  ==================================================================
cuda op                  PTX
=======================  ==================================================================
thread_idx / block_idx   ``mov.u32`` from ``%tid`` / ``%ctaid`` / ``%ntid`` / ``%nctaid``,
block_dim / grid_dim     ``%clusterid`` / ``%nclusterid`` / ``%cluster_ctaid`` /
cluster_* / lane_id      ``%cluster_ctarank`` / ``%laneid``, widened to 64-bit index;
warp_id                  ``%tid`` linearised over the block, shifted right by 5
sync_threads(_vote)      ``bar.sync 0`` / ``bar.red.{and,or}.pred`` / ``bar.red.popc.u32``
sync_warp / warpgroup    ``bar.warp.sync mask`` / ``bar.sync N, 128``
sync_cluster             ``barrier.cluster.arrive`` + ``barrier.cluster.wait`` (sm_90)
elect_sync               ``elect.sync _|p, mask`` (sm_90)
shfl_sync                ``shfl.sync.{idx,up,down,bfly}.b32`` with ``c = (32 - width) << 8``
                         (``| 31`` except for up); 64-bit values as two halves, 16-bit ones
                         widened to b32
vote / activemask        ``vote.sync.{all,any,uni}.pred``, ``vote.sync.ballot.b32``,
                         ``activemask.b32``
warp_reduce              a butterfly of ``shfl.sync.bfly`` + the operation, offsets width/2..1
atomic / atomic_cas      ``atom{.scope}.{global,shared}.<op>.<type>`` (``.cas.b32``...)
load / store             ``ld`` / ``st`` ``.{global,shared,local}{.nc}{.cache | .L1::evict}``
                         ``{.v2,.v4}.type`` (16-bit lanes packed in b32)
fence                    ``membar.cta`` / ``fence.acq_rel.cluster`` / ``membar.gl`` /
                         ``membar.sys``
clock64 / nanosleep      ``mov.u64 %clock64`` / ``nanosleep.u32`` (sm_70) / ``trap``
fast / fdividef          ``ex2.approx.f32`` (exp, log via log2(e) and ln 2), ``lg2``, ``rcp``,
                         ``rsqrt``, ``sqrt``, ``sin``, ``cos`` ``.approx.f32``,
                         ``tanh.approx.f32`` (sm_75), ``div.approx.f32``
pack / unpack / cvt      ``cvt.rn.{f16x2,bf16x2}.f32`` (high operand first; sm_80, before it
                         two ``cvt.rn.f16.f32``) or ``mov.b32 {lo, hi}``; ``mov.b32 {lo, hi}``
                         + conversions; `ArithOps.convert`
=======================  ==================================================================

Not printed (a located error saying to use ``-t cuda``): ``sync_grid`` (cooperative launch and
its runtime), ``printf`` (vprintf), ``cta_reduce``.
"""

from __future__ import annotations

from xdsl.ir import Operation

from tirx_mlir.backends.cuda.dialects.cuda import checks
from tirx_mlir.backends.cuda.printers.ptx import registers as regs
from tirx_mlir.backends.cuda.printers.ptx.arith import float_name
from tirx_mlir.dialects.tirx.attributes import BufferType

SPECIAL = {"cuda.thread_idx": "%tid", "cuda.block_idx": "%ctaid", "cuda.block_dim": "%ntid",
           "cuda.grid_dim": "%nctaid", "cuda.cluster_idx": "%clusterid",
           "cuda.cluster_dim": "%cluster_nctaid", "cuda.cluster_block_idx": "%cluster_ctaid"}
DIMS = {"x": "x", "y": "y", "z": "z"}
SHFL_MODES = {"idx": "idx", "up": "up", "down": "down", "xor": "bfly"}
VOTES = {"all": "all", "any": "any", "uni": "uni"}
BAR_RED = {"and": "and", "or": "or"}
FENCES = {"cta": "membar.cta", "cluster": "fence.acq_rel.cluster", "gpu": "membar.gl",
          "sys": "membar.sys"}
ATOMIC_SCOPES = {"cta": ".cta", "gpu": ".gpu", "sys": ".sys"}
LOAD_CACHE = {"ca": ".ca", "cg": ".cg", "cs": ".cs", "lu": ".lu", "cv": ".cv"}
STORE_CACHE = {"wb": ".wb", "cg": ".cg", "cs": ".cs", "wt": ".wt"}
EVICT = {"evict_normal": ".L1::evict_normal", "evict_first": ".L1::evict_first",
         "evict_last": ".L1::evict_last", "evict_unchanged": ".L1::evict_unchanged",
         "no_allocate": ".L1::no_allocate"}
FAST = {"exp2": "ex2.approx.f32", "log2": "lg2.approx.f32", "rcp": "rcp.approx.f32",
        "rsqrt": "rsqrt.approx.f32", "sqrt": "sqrt.approx.f32", "sin": "sin.approx.f32",
        "cos": "cos.approx.f32", "tanh": "tanh.approx.f32", "exp": "ex2.approx.f32",
        "log": "lg2.approx.f32"}
LOG2_E, LN_2 = "0f3FB8AA3B", "0f3F317218"
"""log2(e) and ln(2) as f32 bits: exp(x) = 2^(x log2 e), log(x) = log2(x) ln 2."""
REDUCE = {"sum": "add", "max": "max", "min": "min", "and": "and", "or": "or", "xor": "xor"}


def atomic_type(op_name: str, elem) -> str | None:
    """The PTX type of an atomic on ``elem`` (None: not printed)."""
    name = checks.type_name(elem)
    if op_name == "add":
        return {"i32": "u32", "ui32": "u32", "i64": "u64", "f32": "f32", "f64": "f64",
                "f16": "noftz.f16", "bf16": "noftz.bf16"}.get(name)
    if op_name in ("max", "min"):
        return {"i32": "s32", "ui32": "u32", "i64": "s64"}.get(name)
    return {"i16": "b16", "ui16": "b16", "i32": "b32", "ui32": "b32", "i64": "b64",
            "f32": "b32"}.get(name)


def access_type(elem) -> str | None:
    """The ld/st type of one register of a buffer element (16-bit lanes: see registers)."""
    name = checks.type_name(elem)
    return {"f32": "f32", "f64": "f64", "i32": "b32", "ui32": "b32", "i64": "b64",
            "ui64": "b64", "i16": "b16", "ui16": "b16", "f16": "b16", "bf16": "b16",
            "i8": "u8", "ui8": "u8"}.get(name)


class CudaOps:
    """``emit_cuda_*``."""

    # ---- ids ----
    def special(self, op: Operation, register: str) -> None:
        """``register`` (a 32-bit special register) widened into the op's index result."""
        wide = self.temp(regs.B32)
        self.line(f"mov.u32 {wide}, {register};")
        self.line(f"cvt.u64.u32 {self.define(op.result)}, {wide};")

    def dim_id(self, op: Operation) -> None:
        base = SPECIAL[op.name]
        if op.name.startswith("cuda.cluster"):
            self.need(90, "7.8", f"{op.name} ({base})", op)
        self.special(op, f"{base}.{self.choose(DIMS, op.head, 'dimension', op)}")

    emit_cuda_thread_idx = emit_cuda_block_idx = emit_cuda_block_dim = dim_id
    emit_cuda_grid_dim = emit_cuda_cluster_idx = emit_cuda_cluster_dim = dim_id
    emit_cuda_cluster_block_idx = dim_id

    def emit_cuda_cluster_block_rank(self, op: Operation) -> None:
        self.need(90, "7.8", "cuda.cluster_block_rank (%cluster_ctarank)", op)
        self.special(op, "%cluster_ctarank")

    def emit_cuda_lane_id(self, op: Operation) -> None:
        self.special(op, "%laneid")

    def emit_cuda_warp_id(self, op: Operation) -> None:
        x, y, z = (*self.kernel.thread_dims(), 1, 1)[:3]
        tid = self.temp(regs.B32)
        self.line(f"mov.u32 {tid}, %tid.x;")
        for axis, extent in (("y", x), ("z", x * y)):
            if (axis == "y" and y > 1) or (axis == "z" and z > 1):
                part = self.temp(regs.B32)
                self.line(f"mov.u32 {part}, %tid.{axis};")
                self.line(f"mad.lo.s32 {tid}, {part}, {extent}, {tid};")
        self.line(f"shr.u32 {tid}, {tid}, 5;")
        self.line(f"cvt.u64.u32 {self.define(op.result)}, {tid};")

    def emit_tirx_cta_id(self, op: Operation) -> None:
        axis = self.choose({"0": "x", "1": "y", "2": "z"}, str(op.dim_index), "dim", op)
        self.special(op, f"%ctaid.{axis}")

    # ---- synchronisation ----
    def emit_cuda_sync_threads(self, op: Operation) -> None:
        self.line("bar.sync 0;")

    def emit_cuda_sync_threads_vote(self, op: Operation) -> None:
        mode = op.head
        if mode == "count":
            self.line(f"bar.red.popc.u32 {self.define(op.result)}, 0, {self.reg(op.pred)};")
            return
        p = self.temp(regs.PRED)
        self.line(f"bar.red.{self.choose(BAR_RED, mode, 'vote', op)}.pred {p}, 0, "
                  f"{self.reg(op.pred)};")
        self.line(f"selp.u32 {self.define(op.result)}, 1, 0, {p};")

    def emit_cuda_sync_warp(self, op: Operation) -> None:
        self.line(f"bar.warp.sync {self.reg(op.mask)};")

    def emit_cuda_sync_warpgroup(self, op: Operation) -> None:
        barrier = self.checked_int(op.int_prop("barrier", 0), op)
        if not 0 <= barrier < 16:
            raise self.fail(f"barrier {barrier} does not exist (0..15)", op)
        if op.per_warpgroup is None:
            self.line(f"bar.sync {barrier}, 128;")
            return
        ident = self.temp(regs.B32)  # barrier + threadIdx.x / 128 (the verifier: a 1-D block)
        self.line(f"mov.u32 {ident}, %tid.x;")
        self.line(f"shr.u32 {ident}, {ident}, 7;")
        self.line(f"add.u32 {ident}, {ident}, {barrier};")
        self.line(f"bar.sync {ident}, 128;")

    def emit_cuda_sync_cluster(self, op: Operation) -> None:
        self.need(90, "7.8", "cuda.sync_cluster (barrier.cluster)", op)
        self.line("barrier.cluster.arrive;")
        self.line("barrier.cluster.wait;")

    def emit_cuda_elect_sync(self, op: Operation) -> None:
        self.need(90, "8.0", "cuda.elect_sync (elect.sync)", op)
        self.line(f"elect.sync _|{self.define(op.result)}, {self.reg(op.mask)};")

    def emit_cuda_fence(self, op: Operation) -> None:
        if op.head == "cluster":
            self.need(90, "7.8", "a cluster-scope fence", op)
        self.line(self.choose(FENCES, op.head, "fence scope", op) + ";")

    # ---- warp ----
    def shfl_clamp(self, op: Operation, mode: str) -> int:
        width = self.checked_int(op.int_prop("width", 32), op)
        if width not in (1, 2, 4, 8, 16, 32):
            raise self.fail(f"width {width} is not a power of two up to 32", op)
        return ((32 - width) << 8) | (0 if mode == "up" else 31)

    def shfl32(self, mode: str, dst: str, src: str, lane: str, clamp: int, mask: str) -> None:
        self.line(f"shfl.sync.{mode}.b32 {dst}, {src}, {lane}, {clamp}, {mask};")

    def emit_cuda_shfl_sync(self, op: Operation) -> None:
        mode = self.choose(SHFL_MODES, op.head, "shuffle mode", op)
        clamp, mask, lane = self.shfl_clamp(op, op.head), self.reg(op.mask), self.reg(op.lane)
        cls = self.cls_of(op.value)
        src, dst = self.reg(op.value), self.define(op.result)
        if cls.bits == 64:
            lo, hi, olo, ohi = (self.temp(regs.B32) for _ in range(4))
            self.line(f"mov.b64 {{{lo}, {hi}}}, {src};")
            self.shfl32(mode, olo, lo, lane, clamp, mask)
            self.shfl32(mode, ohi, hi, lane, clamp, mask)
            self.line(f"mov.b64 {dst}, {{{olo}, {ohi}}};")
        elif cls.bits == 16:
            wide, out = self.temp(regs.B32), self.temp(regs.B32)
            self.line(f"cvt.u32.u16 {wide}, {src};")
            self.shfl32(mode, out, wide, lane, clamp, mask)
            self.line(f"cvt.u16.u32 {dst}, {out};")
        else:
            self.shfl32(mode, dst, src, lane, clamp, mask)

    def emit_cuda_vote(self, op: Operation) -> None:
        mask, pred = self.reg(op.mask), self.reg(op.pred)
        if op.head == "ballot":
            self.line(f"vote.sync.ballot.b32 {self.define(op.result)}, {pred}, {mask};")
            return
        mode = self.choose(VOTES, op.head, "vote", op)
        self.line(f"vote.sync.{mode}.pred {self.define(op.result)}, {pred}, {mask};")

    def emit_cuda_activemask(self, op: Operation) -> None:
        self.need(30, "6.2", "cuda.activemask", op)
        self.line(f"activemask.b32 {self.define(op.result)};")

    def emit_cuda_warp_reduce(self, op: Operation) -> None:
        name = checks.type_name(op.value.type)
        types = {"i32": ("s32", "b32"), "ui32": ("u32", "b32"), "f32": ("f32", "f32")}
        if name not in types:
            raise self.fail(f"cuda.warp_reduce on {op.value.type} is not printed", op)
        arith_t, bit_t = types[name]
        kind = self.choose(REDUCE, op.head, "reduction", op)
        suffix = bit_t if kind in ("and", "or", "xor") else arith_t
        if kind == "add" and name != "f32":
            suffix = "s32" if name == "i32" else "u32"
        width = self.checked_int(op.int_prop("width", 32), op)
        clamp = self.shfl_clamp(op, "xor")
        mask, acc = self.reg(op.mask), self.define(op.result)
        cls = self.cls_of(op.value)
        self.move(acc, self.reg(op.value), cls)
        offset = width // 2
        while offset >= 1:
            other = self.temp(cls)
            self.line(f"shfl.sync.bfly.b32 {other}, {acc}, {offset}, {clamp}, {mask};")
            rn = ".rn" if kind == "add" and name == "f32" else ""
            self.line(f"{kind}{rn}.{suffix} {acc}, {acc}, {other};")
            offset //= 2

    # ---- atomics ----
    def atomic(self, op: Operation, name: str, values: list) -> None:
        mem = op.memory.type
        assert isinstance(mem, BufferType)
        t = atomic_type(name, mem.element_type)
        if t is None:
            raise self.fail(f"atomic {name} on {mem.element_type} is not printed", op)
        if name == "add" and t.endswith(("f16", "bf16")):
            self.need(90 if "bf16" in t else 70, "7.8" if "bf16" in t else "6.3",
                      f"atomic add on {mem.element_type}", op)
        space = self.space_of(op.memory, op)
        scope = op.name_prop("scope")
        scoped = "" if scope is None else self.choose(ATOMIC_SCOPES, scope, "scope", op)
        addr = self.address(op.memory, op.index, op)
        operands = ", ".join(self.reg(v) for v in values)
        self.line(f"atom{scoped}.{space}.{name}.{t} {self.define(op.result)}, [{addr}], "
                  f"{operands};")

    def emit_cuda_atomic(self, op: Operation) -> None:
        ops = {"add": "add", "max": "max", "min": "min", "exch": "exch", "and": "and",
               "or": "or", "xor": "xor"}
        self.atomic(op, self.choose(ops, op.head, "atomic operation", op), [op.value])

    def emit_cuda_atomic_cas(self, op: Operation) -> None:
        self.atomic(op, "cas", [op.compare, op.value])

    # ---- loads and stores ----
    def access(self, op: Operation, value, cache_table) -> tuple[str, str, list[str]]:
        """(address register, modifiers, value registers' shape) of a load or store."""
        mem = op.memory.type
        assert isinstance(mem, BufferType)
        t = access_type(mem.element_type)
        classes = regs.value_classes(value.type)
        if t is None or classes is None or len(classes) > 4:
            raise self.fail(f"a {value.type} access to {mem} is not printed (up to 4 "
                            f"registers of 16, 32 or 64 bits)", op)
        if t == "b16" and classes[0] is regs.B32:
            t = "b32"
        space = self.space_of(op.memory, op)
        mods = "." + space
        if getattr(op, "nc", None) is not None:
            mods += ".nc"
        cache, evict = op.name_prop("cache"), op.name_prop("evict")
        if cache is not None and evict is not None:
            raise self.fail("PTX takes a cache operator or an eviction priority, not both", op)
        if cache is not None:
            mods += self.choose(cache_table, cache, "cache hint", op)
        if evict is not None:
            self.need(70, "7.4", "eviction priorities", op)
            mods += self.choose(EVICT, evict, "eviction priority", op)
        if len(classes) > 1:
            mods += f".v{len(classes)}"
        return self.address(op.memory, op.index, op), f"{mods}.{t}", classes

    def emit_cuda_load(self, op: Operation) -> None:
        addr, mods, _ = self.access(op, op.result, LOAD_CACHE)
        names = self.define_all(op.result)
        self.line(f"ld{mods} {_group(names)}, [{addr}];")

    def emit_cuda_store(self, op: Operation) -> None:
        addr, mods, _ = self.access(op, op.value, STORE_CACHE)
        self.line(f"st{mods} [{addr}], {_group(self.regs_of(op.value))};")

    # ---- diagnostics ----
    def emit_cuda_clock64(self, op: Operation) -> None:
        self.line(f"mov.u64 {self.define(op.result)}, %clock64;")

    def emit_cuda_nanosleep(self, op: Operation) -> None:
        self.need(70, "6.3", "cuda.nanosleep", op)
        self.line(f"nanosleep.u32 {self.reg(op.ns)};")

    def emit_cuda_trap(self, op: Operation) -> None:
        self.line("trap;")

    # ---- math ----
    def emit_cuda_fast(self, op: Operation) -> None:
        func = op.head
        mnemonic = self.choose(FAST, func, "fast function", op)
        if func == "tanh":
            self.need(75, "7.0", "cuda.fast tanh (tanh.approx.f32)", op)
        x, d = self.reg(op.x), self.define(op.result)
        if func == "exp":
            scaled = self.temp(regs.F32)
            self.line(f"mul.f32 {scaled}, {x}, {LOG2_E};")
            self.line(f"{mnemonic} {d}, {scaled};")
        elif func == "log":
            self.line(f"{mnemonic} {d}, {x};")
            self.line(f"mul.f32 {d}, {d}, {LN_2};")
        else:
            self.line(f"{mnemonic} {d}, {x};")

    def emit_cuda_fdividef(self, op: Operation) -> None:
        self.line(f"div.approx.f32 {self.define(op.result)}, {self.reg(op.lhs)}, "
                  f"{self.reg(op.rhs)};")

    def emit_cuda_pack(self, op: Operation) -> None:
        elem = float_name(op.result.type.get_element_type())
        kind = self.choose({"f16": "f16x2", "bf16": "bf16x2"}, elem, "packed type", op)
        d = self.define(op.result)
        if float_name(op.lo.type) == "f32" and (kind == "bf16x2" or self.arch.number >= 80):
            self.need(80, "7.0", f"cvt.rn.{kind}.f32", op)
            self.line(f"cvt.rn.{kind}.f32 {d}, {self.reg(op.hi)}, {self.reg(op.lo)};")
        elif float_name(op.lo.type) == "f32":      # before sm_80: two cvt.rn.f16.f32
            halves = [self.temp(regs.B16), self.temp(regs.B16)]
            for half, x in zip(halves, (op.lo, op.hi)):
                self.line(f"cvt.rn.f16.f32 {half}, {self.reg(x)};")
            self.line(f"mov.b32 {d}, {{{halves[0]}, {halves[1]}}};")
        else:
            self.line(f"mov.b32 {d}, {{{self.reg(op.lo)}, {self.reg(op.hi)}}};")

    def emit_cuda_unpack(self, op: Operation) -> None:
        if float_name(op.lo_half.type) != "f32":
            self.line(f"mov.b32 {{{self.define(op.lo_half)}, {self.define(op.hi_half)}}}, "
                      f"{self.reg(op.packed)};")
            return
        halves = [self.temp(regs.B16), self.temp(regs.B16)]
        self.line(f"mov.b32 {{{halves[0]}, {halves[1]}}}, {self.reg(op.packed)};")
        elem = op.packed.type.get_element_type()
        for half, result in zip(halves, (op.lo_half, op.hi_half)):
            self.convert_register(op, elem, half, result, None)

    def emit_cuda_cvt(self, op: Operation) -> None:
        self.convert(op, op.x, op.result, op.name_prop("round"))

    # ---- refused ----
    def use_cuda(self, op: Operation) -> None:
        raise self.fail(f"the PTX printer does not print {op.name}", op,
                        hint="print this kernel with -t cuda")

    emit_cuda_sync_grid = emit_cuda_printf = emit_cuda_cta_reduce = use_cuda


def _group(names: list[str]) -> str:
    return names[0] if len(names) == 1 else "{" + ", ".join(names) + "}"


__all__ = ["CudaOps"]
