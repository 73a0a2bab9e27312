"""`PtxFrame`: the frame of ``-t ptx`` (module header, entries, parameters, registers, memory,
ptx ops); control_flow.py, arith.py and cuda_ops.py add scf, ``arith`` and ``cuda`` ops, and
target.py's `PtxPrinter` is the four together.

Module::

    .version <max(target minimum, features used)>     (ptx/arch.py: ptx_version)
    .target sm_XX
    .address_size 64
    .extern .shared .align A .b8 tirx_dynamic_smem[];  (when a kernel uses cuda.dynamic_shared)
    .visible .entry <kernel>(.param .u64 <kernel>_param_0, ...)  (a tensor map: .b8 [128])
    .reqntid X, Y, Z                                   (the launch's threads: exact, so reqntid)
    .maxnreg R                                         (``cuda.max_registers``, when set)
    .explicitcluster / .reqnctapercluster X, Y, Z      (a cluster launch)
    { .reg declarations; .shared arrays; ld.param + cvta.to.global per buffer; body; ret; }

* every kernel of the module has one ``cuda`` target with an arch (one PTX module, one
  ``.target``); the arch is checked against every feature the text uses (a located error names
  the arch and PTX version it needs), and the ``.version`` is the highest of the target's
  minimum and what the features need;
* a global buffer parameter is a ``.param .u64`` holding its address (cvta.to.global'd into a
  b64 register); a tensor-map parameter (``cuda.tensor_maps``) is the CUtensorMap itself,
  ``.param .align 64 .b8 p[128]``, and its register holds the generic address ``cvta.param``
  gives (the tensor-map operand of cp.async.bulk.tensor); shared buffers
  (``cuda.shared_alloc``, ``tirx.alloc`` in shared) are
  ``.shared .align N .b8 smem_<name>[bytes];`` in the entry, addressed by 32-bit registers; the
  dynamic arena is the module's one ``.extern .shared`` array; ``tirx.alloc`` in local is a
  ``.local`` array;
* control flow is structured labels (control_flow.py); a loop over a thread's local array
  (registers) is expanded: printed from an expansion plan in its place (expansion_plan.py,
  direct_loops.py), or, where the plan does not cover it, on a copy of the module first
  (unroll.py);
* addresses for the ptx ops: ``cuda.address %buf, %i`` where the cuda dialect has it (i64
  generic, i32 shared window), or a buffer's base as ``builtin.unrealized_conversion_cast %buf
  to i64 / i32`` (the same values);
* a ptx op prints through ptx/render.py (the row's template, registers, integers); a read-write
  operand's register is first copied into the result's register (`tied_values`).

Names: the kernel's symbol is sanitised (printers/naming.py: ``[A-Za-z][A-Za-z0-9_]*`` is a PTX
identifier) and unique; registers are ``%<class><n>``; labels ``$L__<kind><n>``. No attribute
string reaches the text except through a closed table (``choose``) or the ptx table.
nvshmem ops are refused: the NVSHMEM device API is header code plus mangled externs, not a
PTX-callable ABI, so such kernels print with ``-t cuda`` (and link with -rdc).
"""

from __future__ import annotations

import io
from typing import ClassVar

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import ModuleOp, UnregisteredOp
from xdsl.ir import Operation, SSAValue

from tirx_mlir.backends.cuda.dialects.cuda import checks
from tirx_mlir.backends.cuda.dialects.cuda.max_registers import (max_registers,
                                                                max_registers_error)
from tirx_mlir.backends.cuda.dialects.cuda.shared import (DEFAULT_ALIGN, DynamicSharedOp,
                                                         SharedAllocOp, static_shared_array)
from tirx_mlir.backends.cuda.dialects.ptx.arch import TARGET_MIN_PTX, Arch, Need, ptx_version
from tirx_mlir.backends.cuda.dialects.ptx.ops import PtxOp
from tirx_mlir.backends.cuda.dialects.ptx.render import (RenderError, register_types, render,
                                                         tied_values)
from tirx_mlir.backends.cuda.printers.common import (TENSOR_MAP_BYTES, collective_problem,
                                                  tensor_map_positions)
from tirx_mlir.backends.cuda.printers.ptx import registers as regs
from tirx_mlir.backends.cuda.printers.ptx.language import PTX
from tirx_mlir.backends.cuda.printers.ptx.unroll import expand_register_loops
from tirx_mlir.dialects.tirx.access import constant_value
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.buffer_ops import AllocOp
from tirx_mlir.dialects.tirx.kernel import KernelOp
from tirx_mlir.dominance import defined_in
from tirx_mlir.gc_pause import collector_paused
from tirx_mlir.printers import PrintError, SourcePrinter
from tirx_mlir.target.target import target_of
from tirx_mlir.type_tests import IsInstance

DYNAMIC_SMEM = "tirx_dynamic_smem"
GLOBAL, SHARED, DYN, LOCAL = "global", "shared", "shared.dyn", "local"
_STATIC_SPACES = {SHARED: ".shared", LOCAL: ".local"}
_EMITTERS: dict[tuple[type, type], str] = {}
"""(printer class, op class) -> the name of its ``emit_`` method ("" for an unregistered op)."""
_BY_PROPERTIES: dict[tuple, list] = {}
"""(ptx op class, properties) -> [what the instruction needs (`PtxOp.need`), its
`PtxOp.variant`] (`_PtxFacts`)."""
_MAX_BY_PROPERTIES = 4096
_IS_PTX = IsInstance(PtxOp)


class PtxFrame(SourcePrinter):
    """Module, kernels, registers, memory and control flow of the PTX printer."""

    LANGUAGE = PTX
    DESCRIPTION = "PTX printer"
    ERROR_CODE = "ptx-print"
    RESERVED: ClassVar[frozenset[str]] = frozenset({DYNAMIC_SMEM})
    UNPRINTABLE_HINT = "the PTX printer prints ptx, cuda, scf and arith ops; print other " \
                       "kernels with -t cuda"

    def __init__(self, module: ModuleOp):
        super().__init__(module)
        self.arch: Arch | None = None
        self.needs: list[Need] = []
        self.regs: dict[int, list[str]] = {}
        """id of a value -> its registers. Keyed by id (an SSA value's hash is ``id`` run in
        Python, ~10,000 calls a flash_attention print): every key is a value of `module`
        (which the printer holds) or a token of the expansion plan (held until `release`),
        so no id is reused while the dict lives."""
        self._ptx_facts: dict[int, _PtxFacts] = {}
        """id of a ptx op -> `_PtxFacts` of it (`ptx_facts`)."""
        self.registers = regs.Registers()
        self.labels = 0
        self.kernel: KernelOp | None = None
        self.arrays: list[str] = []
        """The entry's ``.shared`` / ``.local`` declarations."""
        self.dyn_align = 0
        """The largest alignment of the dynamic arena's views printed (0: none; the module's
        ``.extern .shared`` array is declared with it)."""

    # ---- module ----
    def emit_module(self) -> str:
        with collector_paused():  # `unroll` module docstring
            return self.emit_expanded_module()

    def emit_expanded_module(self) -> str:
        self.prepare_register_loops()
        kernels = self.module_kernels()
        self.arch = self.module_arch(kernels)
        entries = io.StringIO()
        for kernel in kernels:
            entries.write("\n" + self.kernel_text(kernel) + "\n")
        header = [f".version {ptx_version(self.arch, self.needs)}", f".target {self.arch}",
                  ".address_size 64"]
        if self.dyn_align:  # every arena op of the kernels is printed: no walk for them
            header.append(f".extern .shared .align {self.dyn_align} .b8 {DYNAMIC_SMEM}[];")
        return "\n".join(header) + "\n" + entries.getvalue()

    def release(self) -> None:
        """Break the cycles among what the print made (`target.print_ptx` calls it after
        `emit`, so the printer and its state are freed by reference counting); the frame's
        own state has none (the mixins with some extend it)."""

    def prepare_register_loops(self, loops=None) -> None:
        """Expand the register loops (``loops``: `unroll._expanded_loops`, when known) on a
        copy of the module (unroll.py); direct_loops.py prints them from a plan instead where
        it can."""
        self.module = expand_register_loops(self.module, self.fail, loops)

    def module_arch(self, kernels: list[KernelOp]) -> Arch:
        arch: Arch | None = None
        for kernel in kernels:
            target = target_of(kernel)
            if target is None or target.kind_name != "cuda" or target.arch is None:
                raise self.fail(f"the PTX printer needs a cuda target with an arch, but kernel "
                                f"@{kernel.kernel_name} has "
                                f"{'no target' if target is None else repr(str(target))}",
                                kernel, hint='add target "cuda -arch=sm_90a" (or a tag such '
                                             'as "nvidia/nvidia-h100") to the kernel')
            try:
                this = Arch.parse(target.arch)
            except ValueError as err:
                raise self.fail(str(err), kernel) from None
            if str(this) not in TARGET_MIN_PTX:
                raise self.fail(f"ptxas has no target {this}; PTX targets: "
                                f"{', '.join(TARGET_MIN_PTX)}", kernel,
                                hint="target one of them, or print CUDA C++ with -t cuda")
            if arch is not None and this != arch:
                raise self.fail(f"one PTX module has one .target, but kernel "
                                f"@{kernel.kernel_name} targets {this} and an earlier one "
                                f"{arch}", kernel, hint="print the kernels separately")
            arch = this
        assert arch is not None
        return arch

    def need(self, min_sm: int, ptx: str, what: str, op: Operation,
             only: tuple[str, ...] | None = None) -> None:
        """Record a feature the text uses; an arch without it is a located error."""
        self.require(Need(min_sm, only, ptx), what, op)

    def require(self, need: Need, what: str, op: Operation) -> None:
        assert self.arch is not None
        if not need.allows(self.arch):
            raise self.fail(f"{what} needs {need.describe()}; the kernel targets {self.arch}",
                            op)
        self.needs.append(need)

    # ---- one kernel ----
    def kernel_text(self, kernel: KernelOp) -> str:
        name = self.start_function(kernel)
        self.kernel, self.regs, self.registers, self.labels = kernel, {}, regs.Registers(), 0
        self.arrays: list[str] = []
        params = [f"{name}_param_{i}" for i in range(len(kernel.body.block.args))]
        maps = tensor_map_positions(kernel, self.fail)
        body = self.capture(lambda: self.kernel_body(kernel, params, maps))
        lines = [f".visible .entry {name}("]
        lines += [f"    {self.param_declaration(p, i in maps)}"
                  f"{',' if i + 1 < len(params) else ''}" for i, p in enumerate(params)]
        lines.append(")")
        lines.append(".reqntid " + ", ".join(map(str, _xyz(kernel.thread_dims()))))
        if (error := max_registers_error(kernel)) is not None:
            raise self.fail(error, kernel)
        if (count := max_registers(kernel)) is not None:
            lines.append(f".maxnreg {count}")
        if kernel.cluster_dims() is not None:
            self.need(90, "7.8", "a cluster launch (.reqnctapercluster)", kernel)
            lines += [".explicitcluster",
                      ".reqnctapercluster " + ", ".join(map(str, _xyz(kernel.cluster_dims())))]
        lines.append("{")
        lines += ["    " + d for d in self.registers.declarations()]
        lines += ["    " + a for a in self.arrays]
        if body:
            lines.append(body)
        lines.append("}")
        return "\n".join(lines)

    def capture(self, emit) -> str:
        saved, self.stream, count = self.stream, io.StringIO(), self.line_count
        self.line_count = 0
        try:
            with self.indented():
                emit()
            return self.stream.getvalue()
        finally:
            self.stream, self.line_count = saved, count

    @staticmethod
    def param_declaration(param: str, tensor_map: bool) -> str:
        """A buffer's address is a ``.u64``; a tensor map is the 128-byte CUtensorMap itself,
        passed by value and 64-byte aligned (what nvcc declares for a ``__grid_constant__``
        CUtensorMap parameter)."""
        if tensor_map:
            return f".param .align 64 .b8 {param}[{TENSOR_MAP_BYTES}]"
        return f".param .u64 {param}"

    def kernel_body(self, kernel: KernelOp, params: list[str], maps: set[int]) -> None:
        for i, (arg, param) in enumerate(zip(kernel.body.block.args, params)):
            t = arg.type
            if not isinstance(t, BufferType) or t.scope_name != GLOBAL:
                raise self.fail(f"kernel parameter #{i} is {t}; the PTX printer "
                                f"passes global buffers (as .u64 addresses)", kernel)
            r = self.define(arg, regs.B64)
            if i in maps:  # the map's generic address, for the tensor-map operands
                self.need(70, "7.7", "a tensor map passed by value (cvta.param)", kernel)
                self.line(f"mov.b64 {r}, {param};")
                self.line(f"cvta.param.u64 {r}, {r};")
            else:
                self.line(f"ld.param.u64 {r}, [{param}];")
                self.line(f"cvta.to.global.u64 {r}, {r};")
        self.emit_block(kernel.body.block)

    def emit_tirx_return(self, op: Operation) -> None:
        self.line("ret;")

    # ---- registers ----
    def define(self, value: SSAValue, cls: regs.RegClass | None = None) -> str:
        """A fresh register for a scalar ``value`` (of its type's class unless ``cls``)."""
        names = self.define_all(value, None if cls is None else [cls])
        if len(names) != 1:
            raise self.fail(f"a {value.type} value is not one register here", _owner(value))
        return names[0]

    def define_all(self, value: SSAValue, classes: list[regs.RegClass] | None = None) -> list[str]:
        classes = classes or regs.value_classes(value.type)
        if classes is None:
            raise self.fail(f"the PTX printer has no register for a value of type "
                            f"{value.type}", _owner(value))
        names = [self.registers.fresh(c) for c in classes]
        self.regs[id(value)] = names
        return names

    def reg(self, value: SSAValue) -> str:
        names = self.regs_of(value)
        if len(names) != 1:
            raise self.fail(f"a {value.type} value (several registers) cannot be used here",
                            _owner(value))
        return names[0]

    def regs_of(self, value: SSAValue) -> list[str]:
        names = self.regs.get(id(value))
        if names is None:
            raise self.fail("this value has no register in the printed PTX (it is defined by "
                            "an op the PTX printer does not print as a value)", _owner(value))
        return names

    def temp(self, cls: regs.RegClass) -> str:
        return self.registers.fresh(cls)

    def cls_of(self, value: SSAValue) -> regs.RegClass:
        classes = regs.value_classes(value.type)
        if classes is None or len(classes) != 1:
            raise self.fail(f"the PTX printer has no scalar register for {value.type}",
                            _owner(value))
        return classes[0]

    def move(self, dst: str, src: str, cls: regs.RegClass) -> None:
        if dst != src:
            self.line(f"mov.{cls.ptx_type} {dst}, {src};")

    # ---- dispatch ----
    def emit_op(self, op: Operation) -> None:
        if _IS_PTX(op):
            return self.emit_ptx_op(op)
        key = (type(self), type(op))
        name = _EMITTERS.get(key)
        if name is None:
            name = _EMITTERS[key] = "" if isinstance(op, UnregisteredOp) else \
                "emit_" + op.name.replace(".", "_")
        method = getattr(self, name, None) if name else None
        if method is None:
            hint = "NVSHMEM's device API is not a PTX-callable ABI: print this kernel with " \
                   "-t cuda (and link with -rdc)" if op.dialect_name() == "nvshmem" \
                else self.UNPRINTABLE_HINT
            raise self.fail(f"the {self.DESCRIPTION} cannot print {op.name}", op, hint=hint)
        method(op)

    # ---- ptx ops ----
    def ptx_facts(self, op: PtxOp) -> _PtxFacts:
        """What the print reads of a ptx op, made once per op and print (a planned loop prints
        one op once per iteration; the module does not change while it prints)."""
        facts = self._ptx_facts.get(id(op))
        if facts is None:
            facts = self._ptx_facts[id(op)] = _PtxFacts(op)  # keeps ``op``: its id stays
        return facts

    def ptx_tied(self, op: PtxOp) -> bool:
        """Whether the ptx op updates an operand's register in place (`tied_values`)."""
        facts = self.ptx_facts(op)
        if facts.tied is None:
            facts.tied = tied_values(op, facts.variant())
        return bool(facts.tied)

    def emit_ptx_op(self, op: PtxOp) -> None:
        facts = self.ptx_facts(op)
        need = facts.need()
        self.require(need, op.name, op)
        if (problem := collective_problem(op, self.kernel)) is not None:
            raise self.fail(problem[0], op, hint=problem[1])
        variant = facts.variant()
        types = facts.types
        if types is None:
            types = facts.types = register_types(op, variant)
        tied = facts.tied
        if tied is None:
            tied = facts.tied = tied_values(op, variant)
        for result, operand in tied:
            if self._dies_here(operand, op):
                self.regs[id(result)] = self.regs_of(operand)  # updated in place: no copy
        for value in op.results:
            if id(value) in self.regs:
                continue
            cls = regs.BY_PTX_TYPE.get(types.get(value, ""), None)
            natural = regs.value_classes(value.type)
            self.define(value, natural[0] if natural and len(natural) == 1 else cls)
        for result, operand in tied:
            self.move(self.reg(result), self.reg(operand), self.cls_of(result))
        try:
            self.line(render(op, self.reg, variant))
        except RenderError as err:
            raise self.fail(str(err), op) from None

    def _dies_here(self, operand: SSAValue, op: Operation) -> bool:
        """Whether a read-write operand's register can hold the result: this op is its only
        use, in the block that defines it (not a value a loop body reads again), and it is one
        register (a chain of wgmma accumulators then needs no copies, which ptxas would
        answer with warpgroup waits: advisories C7517/C7519)."""
        owner = operand.owner
        block = owner.parent_block() if isinstance(owner, Operation) else owner
        return self.use_count(operand) == 1 and block is op.parent_block() and \
            len(self.regs.get(id(operand), ())) == 1

    # ---- what the IR says of a value (direct_loops.py answers for the records it prints) ----
    def value_of(self, value: SSAValue):
        """The value of the printed program that operand or result ``value`` of the op being
        printed stands for (itself here)."""
        return value

    @staticmethod
    def use_count(value: SSAValue) -> int:
        return value.uses.get_length()

    @staticmethod
    def defining(value) -> tuple[type, tuple, dict] | None:
        """(class, operands, properties) of the op defining ``value``, None for a block
        argument."""
        owner = value.owner
        if isinstance(owner, Operation):
            return type(owner), tuple(owner._operands), owner.properties
        return None

    @staticmethod
    def constant_of(value) -> int | float | None:
        return constant_value(value)

    def enclosing_loop(self, user: Operation) -> scf.ForOp | None:
        """The innermost ``scf.for`` around ``user``."""
        loop = user.parent_op()
        while loop is not None and not isinstance(loop, scf.ForOp):
            loop = loop.parent_op()
        return loop

    @staticmethod
    def defined_inside(loop: scf.ForOp, value) -> bool:
        return defined_in(loop, value)

    # ---- memory ----
    def emit_tirx_alloc(self, op: AllocOp) -> None:
        t = op.result.type
        space = _STATIC_SPACES.get(t.scope_name)
        if space is None:
            raise self.fail(f"the PTX printer allocates shared and local buffers, not "
                            f"{t.scope_name}", op)
        static = static_shared_array(op)
        self.declare_array(op.result, space, t, DEFAULT_ALIGN if static is None else static[1])

    def emit_cuda_shared_alloc(self, op: SharedAllocOp) -> None:
        self.declare_array(op.result, ".shared", op.buffer_type(), op.alignment())

    def declare_array(self, value: SSAValue, space: str, t: BufferType, align: int) -> None:
        nbytes = t.numel * checks.element_bytes(t.element_type)
        name = self.namer.fresh("smem_" + (value.name_hint or "buf") if space == ".shared"
                                else "local_" + (value.name_hint or "buf"))
        self.arrays.append(f"{space} .align {self.checked_int(align, _owner(value))} .b8 "
                           f"{name}[{self.checked_int(max(nbytes, 1), _owner(value))}];")
        if space == ".shared":
            self.line(f"mov.u32 {self.define(value, regs.B32)}, {name};")
        else:
            self.line(f"mov.u64 {self.define(value, regs.B64)}, {name};")

    def emit_cuda_dynamic_shared(self, op: DynamicSharedOp) -> None:
        self.dyn_align = max(self.dyn_align, op.alignment())
        r = self.define(op.result, regs.B32)
        self.line(f"mov.u32 {r}, {DYNAMIC_SMEM};")
        offset = self.checked_int(op.int_prop("offset", 0), op)
        if offset:
            self.line(f"add.u32 {r}, {r}, {offset};")

    def emit_cuda_address(self, op: Operation) -> None:
        """``cuda.address %buf, %i -> T``: element ``i``'s address, i64 generic or i32 in the
        shared window (the global window is the generic one)."""
        memory, index, result = op.operands[0], op.operands[1], op.results[0]
        self.address_as(self.address(memory, index, op), memory, result, op)

    def emit_builtin_unrealized_conversion_cast(self, op: Operation) -> None:
        """A buffer's base address for the ptx ops, as ``cuda.address %buf, 0`` gives it:
        ``unrealized_conversion_cast %buf : !tirx.buffer<..> to i64`` (generic) or ``to i32``
        (shared window); a local buffer's i64 is its local-window address (for ``ld.local``)."""
        if len(op.operands) != 1 or len(op.results) != 1 or \
                not isinstance(op.operands[0].type, BufferType):
            raise self.fail("the PTX printer reads unrealized_conversion_cast only as a "
                            "buffer's address (one !tirx.buffer to i64 or i32)", op)
        self.space_of(op.operands[0], op)
        self.address_as(self.reg(op.operands[0]), op.operands[0], op.results[0], op)

    def address_as(self, addr: str, memory: SSAValue, result: SSAValue, op: Operation) -> None:
        """Give ``result`` (i64 or i32) the address ``addr`` of an element of ``memory``."""
        shared = self.space_of(memory, op) == "shared"
        if result.type == regs.I32 and shared:
            self.regs[id(result)] = [addr]
        elif result.type == regs.I64 and shared:
            wide = self.define(result)
            self.line(f"cvt.u64.u32 {wide}, {addr};")
            self.line(f"cvta.shared.u64 {wide}, {wide};")
        elif result.type == regs.I64:
            self.regs[id(result)] = [addr]
        else:
            raise self.fail(f"an address of a {self.space_of(memory, op)} buffer is an i64"
                            f"{' or an i32' if shared else ''}, not {result.type}", op)

    def space_of(self, memory: SSAValue, op: Operation) -> str:
        t = memory.type
        if not isinstance(t, BufferType):
            raise self.fail(f"expected a !tirx.buffer, got {t}", op)
        return self.choose({GLOBAL: "global", SHARED: "shared", DYN: "shared", LOCAL: "local"},
                           t.scope_name, "memory scope", op)

    def address(self, memory: SSAValue, index: SSAValue, op: Operation) -> str:
        """A register holding the address of ``memory[index]`` (32-bit for shared)."""
        t = memory.type
        assert isinstance(t, BufferType)
        size = checks.element_bytes(t.element_type)
        base, idx = self.reg(memory), self.reg(index)
        # an index widened from i32 (cuda-narrow-index): its 32-bit register, sign-extended by
        # mad.wide.s32 for a global address (a cvt.s64.s32 + mad.lo.s64 pair otherwise)
        # (and sext(w + c) == sext(w) + c for an nsw add: c goes to the address's immediate)
        cast = self.defining(self.value_of(index))
        narrow, offset = None, 0
        if cast is not None and cast[0] is arith.IndexCastOp and cast[1][0].type == regs.I32:
            source = cast[1][0]
            term, offset = self.nsw_constant_term(source)
            narrow = self.reg(source if term is None else term)
        if self.space_of(memory, op) == "shared":
            out = self.temp(regs.B32)
            split = self.loop_split(source if term is None else term, op) \
                if narrow is not None else None
            if split is not None:
                # (inv + var) * size + base == (inv * size + base) + var * size (mod 2^32):
                # the first mad is loop-invariant (ptxas hoists it), var * size is shared by
                # every address of the iteration, so each address is one add in the loop
                inv, var = split
                self.line(f"mad.lo.s32 {out}, {self.reg(inv)}, {size}, {base};")
                self.line(f"mad.lo.s32 {out}, {self.reg(var)}, {size}, {out};")
            else:
                if narrow is None:
                    narrow = self.temp(regs.B32)
                    self.line(f"cvt.u32.u64 {narrow}, {idx};")
                self.line(f"mad.lo.s32 {out}, {narrow}, {size}, {base};")
            if offset:
                self.line(f"add.s32 {out}, {out}, {offset * size};")
            return out
        out = self.temp(regs.B64)
        if narrow is not None:
            self.line(f"mad.wide.s32 {out}, {narrow}, {size}, {base};")
            if offset:
                self.line(f"add.s64 {out}, {out}, {offset * size};")
        else:
            self.line(f"mad.lo.s64 {out}, {idx}, {size}, {base};")
        return out


    def nsw_constant_term(self, value) -> tuple[SSAValue | None, int]:
        """``(w, c)`` when ``value`` is ``arith.addi w, c`` with the ``nsw`` flag and a
        constant ``c``, else ``(None, 0)``."""
        add = self.defining(value)
        if add is None or add[0] is not arith.AddiOp or \
                arith.IntegerOverflowFlag.NSW not in _flags(add[2]):
            return None, 0
        lhs, rhs = add[1]
        for term, other in ((lhs, rhs), (rhs, lhs)):
            c = self.constant_of(other)
            if isinstance(c, int):
                return term, c
        return None, 0

    def loop_split(self, value, user: Operation) -> tuple[SSAValue, SSAValue] | None:
        """``(inv, var)`` when ``value`` is ``arith.addi inv, var`` (i32) in an ``scf.for``
        body that ``inv`` is defined outside of and ``var`` inside of (or is a carried value
        of): a shared offset split into its loop-invariant part and the part each iteration
        changes."""
        add = self.defining(value)
        if add is None or add[0] is not arith.AddiOp or add[1][0].type != regs.I32:
            return None
        loop = self.enclosing_loop(user)
        if loop is None:
            return None
        lhs, rhs = add[1]
        for inv, var in ((lhs, rhs), (rhs, lhs)):
            if not self.defined_inside(loop, inv) and self.defined_inside(loop, var):
                return inv, var
        return None


class _PtxFacts:
    """A ptx op's need, variant, register types and tied pairs (each made when first read):
    functions of the op's class, properties and values, which a print does not change. The
    need and variant are functions of the class and properties alone (attributes are
    immutable), kept in `_BY_PROPERTIES` under one key per op and print (hashing a key hashes
    every property)."""

    __slots__ = ("op", "shared", "types", "tied")

    def __init__(self, op: PtxOp) -> None:
        self.op = op
        key = (type(op), tuple(op.properties.items()))
        shared = _BY_PROPERTIES.get(key)
        if shared is None:
            if len(_BY_PROPERTIES) >= _MAX_BY_PROPERTIES:
                _BY_PROPERTIES.clear()
            shared = _BY_PROPERTIES[key] = [None, None]
        self.shared: list = shared
        """[`PtxOp.need`, `PtxOp.variant`] of the op's class and properties (None: not yet)."""
        self.types: dict[SSAValue, str] | None = None
        self.tied: list[tuple[SSAValue, SSAValue]] | None = None

    def need(self) -> Need:
        need = self.shared[0]
        if need is None:
            need = self.shared[0] = self.op.need()
        return need

    def variant(self):
        variant = self.shared[1]
        if variant is None:
            variant = self.shared[1] = self.op.variant()
        return variant


def _flags(properties: dict) -> tuple:
    """An integer op's overflow flags (xDSL's default, none, when the property is absent)."""
    flags = properties.get("overflowFlags")
    return () if flags is None else flags.data


def _xyz(dims: tuple[int, ...]) -> list[int]:
    return [*dims, *[1] * (3 - len(dims))]


def _owner(value: SSAValue) -> Operation | None:
    owner = value.owner
    return owner if owner is None or isinstance(owner, Operation) else owner.parent_op()


__all__ = ["PtxFrame", "PrintError"]
