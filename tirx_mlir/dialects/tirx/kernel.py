"""Kernels, their launch configuration, and the scope-id ops.

    tirx.kernel @add(%A: !tirx.buffer<128x512xf32, global>)
        -> (%B: !tirx.buffer<128x512xf32, global>) grid [1] threads [1] {
      ...
      tirx.return
    }

A kernel's block arguments are its buffer parameters: inputs first, then outputs (after ``->``).
The launch configuration is the grid (CTAs), threads per CTA and an optional cluster shape; an
optional ``target`` names where it compiles for. Scope-id ops (``tirx.cta_id``, ``tirx.warp_id``,
...) give an execution instance's index within its parent scope; their extents follow from the
launch configuration and are checked against it.
"""

from __future__ import annotations

import math
from typing import ClassVar

from xdsl.dialects.builtin import (DenseArrayBase, IndexType, IntegerAttr, ModuleOp, StringAttr,
                                   i64)
from xdsl.ir import Block, BlockArgument, Operation, Region
from xdsl.irdl import (IRDLOperation, irdl_op_definition, opt_prop_def, prop_def, region_def,
                       result_def, traits_def)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (CallableOpInterface, HasParent, IsolatedFromAbove, IsTerminator, Pure,
                         SymbolOpInterface)
from xdsl.utils.exceptions import VerifyException

from tirx_mlir.dialects.tirx.attributes import BufferType, TargetAttr, decoded
from tirx_mlir.type_tests import IsInstance, find_ops

_DIMS = ("x", "y", "z")


def int_array(values) -> DenseArrayBase:
    """An ``array<i64: ...>`` property value; equal ones are made once and shared (attributes
    are immutable values; views and instructions repeat a few offset and size lists)."""
    key = tuple(values)
    found = _INT_ARRAYS.get(key)
    if found is None:
        if len(_INT_ARRAYS) >= _INT_ARRAYS_KEPT:
            _INT_ARRAYS.clear()
        found = _INT_ARRAYS[key] = DenseArrayBase.from_list(i64, key)
    return found


_INT_ARRAYS: dict[tuple, DenseArrayBase] = {}
_INT_ARRAYS_KEPT = 4096


def int_values(attr: DenseArrayBase) -> tuple[int, ...]:
    """The values of an ``array<i64: ...>`` property, decoded once per attribute."""
    return decoded(attr, "_values", lambda a: tuple(a.get_values()))  # type: ignore[attr-defined]


class KernelCallable(CallableOpInterface):
    """Makes a kernel callable by name (``Interpreter.call_op``): its arguments are its buffer
    parameters; it returns nothing (outputs are written through the output parameters)."""

    @classmethod
    def get_callable_region(cls, op: Operation) -> Region:
        assert isinstance(op, KernelOp)
        return op.body

    @classmethod
    def get_argument_types(cls, op: Operation) -> tuple:
        assert isinstance(op, KernelOp)
        return tuple(op.body.block.arg_types)

    @classmethod
    def get_result_types(cls, op: Operation) -> tuple:
        return ()


@irdl_op_definition
class KernelOp(IRDLOperation):
    """A device kernel: buffer parameters, launch configuration, optional target.

    Example::

        tirx.kernel @scale(%A: !tirx.buffer<256xf32, global>) -> (%B: !tirx.buffer<256xf32, global>)
            grid [2] threads [128] {
          tirx.mul cta %B, %A, %c2 : !tirx.buffer<256xf32, global>, !tirx.buffer<256xf32, global>, f32
          tirx.return
        }
    """

    name = "tirx.kernel"

    sym_name = prop_def(StringAttr)
    num_inputs = prop_def(IntegerAttr[type(i64)])
    grid = prop_def(DenseArrayBase)
    threads = prop_def(DenseArrayBase)
    cluster = opt_prop_def(DenseArrayBase)
    target = opt_prop_def(TargetAttr)
    body = region_def("single_block")

    traits = traits_def(SymbolOpInterface(), IsolatedFromAbove(), KernelCallable())
    VERIFY_READS: ClassVar[str] = "region"  # its checks' inputs (tirx_mlir.verification)

    def __init__(self, name: str, inputs: list[BufferType], outputs: list[BufferType],
                 grid=(1,), threads=(1,), cluster=None, target: str | None = None,
                 body: Region | None = None):
        if body is None:
            body = Region(Block(arg_types=[*inputs, *outputs]))
        props = {"sym_name": StringAttr(name), "num_inputs": IntegerAttr(len(inputs), i64),
                 "grid": int_array(grid), "threads": int_array(threads)}
        if cluster is not None:
            props["cluster"] = int_array(cluster)
        if target is not None:
            props["target"] = TargetAttr(target)
        super().__init__(properties=props, regions=[body])

    # ---- accessors ----
    @property
    def kernel_name(self) -> str:
        return self.sym_name.data

    @property
    def n_inputs(self) -> int:
        return self.num_inputs.value.data

    @property
    def inputs(self):
        return self.body.block.args[: self.n_inputs]

    @property
    def outputs(self):
        return self.body.block.args[self.n_inputs:]

    def grid_dims(self) -> tuple[int, ...]:
        return int_values(self.grid)

    def thread_dims(self) -> tuple[int, ...]:
        return int_values(self.threads)

    def cluster_dims(self) -> tuple[int, ...] | None:
        return None if self.cluster is None else int_values(self.cluster)

    def num_threads(self) -> int:
        return math.prod(self.thread_dims())

    def num_ctas(self) -> int:
        return math.prod(self.grid_dims())

    # ---- verification ----
    def verify_(self) -> None:
        n_args = len(self.body.block.args)
        if not 0 <= self.n_inputs <= n_args:
            raise VerifyException(f"num_inputs {self.n_inputs} exceeds the {n_args} parameters")
        for i, arg in enumerate(self.body.block.args):
            if not isinstance(arg.type, BufferType):
                raise VerifyException(f"kernel parameter #{i} must be a !tirx.buffer, got "
                                      f"{arg.type}")
            if arg.type.scope_name != "global":
                raise VerifyException(
                    f"kernel parameter #{i} is in scope '{arg.type.scope_name}'; parameters "
                    f"live in 'global' memory (allocate on-chip buffers with tirx.alloc)")
            if arg.type.get_layout() is not None:
                _check_global_layout(self, i, arg)
        for what, dims in (("grid", self.grid_dims()), ("threads", self.thread_dims()),
                           ("cluster", self.cluster_dims() or (1,))):
            if not 1 <= len(dims) <= 3 or any(d <= 0 for d in dims):
                raise VerifyException(f"{what} {list(dims)} must have 1 to 3 positive dims")
        if (cl := self.cluster_dims()) is not None:
            grid = self.grid_dims()
            for d, c in enumerate(cl):
                g = grid[d] if d < len(grid) else 1
                if g % c:
                    raise VerifyException(f"cluster {list(cl)} does not divide grid "
                                          f"{list(grid)} in dim {_DIMS[d]}")
        last = self.body.block.last_op
        if last is None or not isinstance(last, ReturnOp):
            raise VerifyException("a tirx.kernel body must end with tirx.return")

    # ---- syntax ----
    @classmethod
    def parse(cls, parser: Parser) -> "KernelOp":
        name = parser.parse_symbol_name().data

        def parse_args() -> list:
            return parser.parse_comma_separated_list(
                parser.Delimiter.PAREN, lambda: parser.parse_argument(expect_type=True))

        ins = parse_args()
        outs = parse_args() if parser.parse_optional_punctuation("->") else []
        props: dict = {"sym_name": StringAttr(name), "num_inputs": IntegerAttr(len(ins), i64),
                       "grid": int_array([1]), "threads": int_array([1])}
        while (kw := parser.parse_optional_keyword_in(("grid", "threads", "cluster", "target"))):
            if kw == "target":
                props["target"] = TargetAttr(parser.parse_str_literal())
            else:
                dims = parser.parse_comma_separated_list(parser.Delimiter.SQUARE,
                                                         parser.parse_integer)
                props[kw] = int_array(dims)
        attrs = parser.parse_optional_attr_dict_with_keyword()
        body = parser.parse_region([*ins, *outs])
        op = cls.build(properties=props, regions=[body])
        if attrs is not None:
            op.attributes.update(attrs.data)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.kernel_name)

        def print_args(args) -> None:
            printer.print_string("(")
            printer.print_list(args, printer.print_block_argument)
            printer.print_string(")")

        print_args(self.inputs)
        if self.outputs:
            printer.print_string(" -> ")
            print_args(self.outputs)
        printer.print_string(f" grid {list(self.grid_dims())} threads {list(self.thread_dims())}")
        if (cl := self.cluster_dims()) is not None:
            printer.print_string(f" cluster {list(cl)}")
        if self.target is not None:
            printer.print_string(" target ")
            printer.print_string_literal(self.target.data)
        if self.attributes:
            printer.print_op_attributes(self.attributes, print_keyword=True)
        printer.print_string(" ")
        printer.print_region(self.body, print_entry_block_args=False)


@irdl_op_definition
class ReturnOp(IRDLOperation):
    """Ends a kernel body: ``tirx.return``."""

    name = "tirx.return"
    traits = traits_def(IsTerminator(), HasParent(KernelOp))
    VERIFY_READS: ClassVar[str] = "local"  # its checks' inputs (tirx_mlir.verification)
    assembly_format = "attr-dict"

    def __init__(self):
        super().__init__()


def kernels(root: Operation) -> list[KernelOp]:
    """Every ``tirx.kernel`` in ``root`` (a module, usually), in program order."""
    return find_ops(root, _IS_KERNEL)


_IS_KERNEL = IsInstance(KernelOp)
_is_holder = IsInstance(KernelOp, ModuleOp)
"""A kernel or a module: what `target_holder` looks for, answered once per class."""


def param_name(kernel: KernelOp, index: int) -> str:
    """How diagnostics name a kernel parameter: ``%A`` (its name), else ``#index``."""
    hint = kernel.body.block.args[index].name_hint
    return f"%{hint}" if hint else f"#{index}"


def enclosing_kernel(op: Operation) -> KernelOp | None:
    parent = op.parent_op()
    while parent is not None and not isinstance(parent, KernelOp):
        parent = parent.parent_op()
    return parent


def target_holder(op: Operation) -> Operation | None:
    """The nearest kernel or module enclosing ``op`` (``op`` itself if it is one), or None for
    a detached op without one. All that ``target_text_of(op)`` and ``enclosing_kernel(op)``
    read above ``op`` is this holder and its ancestors, so an answer kept per holder (while the
    IR does not change) is the answer for each op it holds."""
    node: Operation | None = op
    while node is not None and not _is_holder(node):
        block = node.parent  # Operation.parent_op, inlined: ops x nesting depth calls
        region = block.parent if block is not None else None
        node = region.parent if region is not None else None
    return node


# --- scope ids ----------------------------------------------------------------------------------


class ScopeIdOp(IRDLOperation):
    """Index of the executing instance of ``CHILD`` within ``PARENT`` (TIRx ScopeIdDef)."""

    BINDING: ClassVar[tuple[str, str, bool]]
    """(parent scope, child scope, whether the id has x/y/z dims)."""
    VERIFY_READS: ClassVar[str] = "kernel"
    """Its checks read its own ``dim`` and its kernel's launch (tirx_mlir.verification)."""

    dim = opt_prop_def(IntegerAttr[type(i64)])
    result = result_def(IndexType)
    traits = traits_def(Pure())

    def __init__(self, dim: int | None = None):
        props = {} if dim is None else {"dim": IntegerAttr(dim, i64)}
        super().__init__(result_types=[IndexType()], properties=props)

    @property
    def dim_index(self) -> int:
        return 0 if self.dim is None else self.dim.value.data

    def extent(self, kernel: KernelOp) -> int:
        """How many instances of CHILD one PARENT holds (from the launch configuration)."""
        raise NotImplementedError

    def verify_(self) -> None:
        if not 0 <= self.dim_index < 3 or (self.dim_index and not self.BINDING[2]):
            raise VerifyException(f"{self.name} has no dim {self.dim_index}")
        kernel = enclosing_kernel(self)
        if kernel is None:
            raise VerifyException(f"{self.name} must be inside a tirx.kernel")
        self.extent(kernel)  # raises when the launch configuration cannot provide the scope

    @classmethod
    def parse(cls, parser: Parser) -> "ScopeIdOp":
        dim = parser.parse_optional_keyword_in(_DIMS)
        attrs = parser.parse_optional_attr_dict()
        parser.parse_punctuation(":")
        parser.parse_type()
        op = cls(None if dim is None else _DIMS.index(dim))
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        if self.dim is not None:
            printer.print_string(f" {_DIMS[self.dim_index]}")
        printer.print_op_attributes(self.attributes)
        printer.print_string(" : index")


def _dim(dims: tuple[int, ...], d: int) -> int:
    return dims[d] if d < len(dims) else 1


def _threads_multiple(kernel: KernelOp, unit: int, what: str) -> int:
    n = kernel.num_threads()
    if n % unit:
        raise VerifyException(f"{what} needs a multiple of {unit} threads per CTA, but the kernel "
                              f"launches {n}; change `threads`")
    return n // unit


def _cluster(kernel: KernelOp, what: str) -> tuple[int, ...]:
    cl = kernel.cluster_dims()
    if cl is None:
        raise VerifyException(f"{what} needs a cluster launch; add `cluster [..]` to the kernel")
    return cl


@irdl_op_definition
class ClusterIdOp(ScopeIdOp):
    name = "tirx.cluster_id"
    BINDING: ClassVar[tuple[str, str, bool]] = ("kernel", "cluster", True)

    def extent(self, kernel: KernelOp) -> int:
        cl = _cluster(kernel, self.name)
        return _dim(kernel.grid_dims(), self.dim_index) // _dim(cl, self.dim_index)


@irdl_op_definition
class CtaIdOp(ScopeIdOp):
    name = "tirx.cta_id"
    BINDING: ClassVar[tuple[str, str, bool]] = ("kernel", "cta", True)

    def extent(self, kernel: KernelOp) -> int:
        return _dim(kernel.grid_dims(), self.dim_index)


@irdl_op_definition
class CtaIdInClusterOp(ScopeIdOp):
    name = "tirx.cta_id_in_cluster"
    BINDING: ClassVar[tuple[str, str, bool]] = ("cluster", "cta", True)

    def extent(self, kernel: KernelOp) -> int:
        return _dim(_cluster(kernel, self.name), self.dim_index)


@irdl_op_definition
class CtaIdInPairOp(ScopeIdOp):
    name = "tirx.cta_id_in_pair"
    BINDING: ClassVar[tuple[str, str, bool]] = ("cta_pair", "cta", False)

    def extent(self, kernel: KernelOp) -> int:
        if math.prod(_cluster(kernel, self.name)) % 2:
            raise VerifyException(f"{self.name} needs a cluster with an even number of CTAs")
        return 2


@irdl_op_definition
class WarpgroupIdOp(ScopeIdOp):
    name = "tirx.warpgroup_id"
    BINDING: ClassVar[tuple[str, str, bool]] = ("cta", "warpgroup", False)

    def extent(self, kernel: KernelOp) -> int:
        return _threads_multiple(kernel, 128, self.name)


@irdl_op_definition
class WarpIdOp(ScopeIdOp):
    name = "tirx.warp_id"
    BINDING: ClassVar[tuple[str, str, bool]] = ("cta", "warp", False)

    def extent(self, kernel: KernelOp) -> int:
        return _threads_multiple(kernel, 32, self.name)


@irdl_op_definition
class WarpIdInWgOp(ScopeIdOp):
    name = "tirx.warp_id_in_wg"
    BINDING: ClassVar[tuple[str, str, bool]] = ("warpgroup", "warp", False)

    def extent(self, kernel: KernelOp) -> int:
        _threads_multiple(kernel, 128, self.name)
        return 4


@irdl_op_definition
class LaneIdOp(ScopeIdOp):
    name = "tirx.lane_id"
    BINDING: ClassVar[tuple[str, str, bool]] = ("warp", "thread", False)

    def extent(self, kernel: KernelOp) -> int:
        _threads_multiple(kernel, 32, self.name)
        return 32


@irdl_op_definition
class ThreadIdOp(ScopeIdOp):
    name = "tirx.thread_id"
    BINDING: ClassVar[tuple[str, str, bool]] = ("cta", "thread", True)

    def extent(self, kernel: KernelOp) -> int:
        return _dim(kernel.thread_dims(), self.dim_index)


@irdl_op_definition
class ThreadIdInWgOp(ScopeIdOp):
    name = "tirx.thread_id_in_wg"
    BINDING: ClassVar[tuple[str, str, bool]] = ("warpgroup", "thread", False)

    def extent(self, kernel: KernelOp) -> int:
        _threads_multiple(kernel, 128, self.name)
        return 128


SCOPE_ID_OPS = (ClusterIdOp, CtaIdOp, CtaIdInClusterOp, CtaIdInPairOp, WarpgroupIdOp, WarpIdOp,
                WarpIdInWgOp, LaneIdOp, ThreadIdOp, ThreadIdInWgOp)


def _check_global_layout(kernel: KernelOp, index: int, arg: BlockArgument) -> None:
    """A parameter's layout places its elements in device memory one stride per dim
    (`global_layout.global_placement`): a swizzle, a replica or a thread axis there was accepted
    by the compilers, which ignored it, and refused only by the interpreter's launch."""
    from tirx_mlir.dialects.tirx.global_layout import global_placement
    from tirx_mlir.dialects.tirx.layout import LayoutError

    try:
        global_placement(arg.type)
    except LayoutError as err:
        name = f"%{arg.name_hint}" if arg.name_hint else f"#{index}"
        raise VerifyException(f"parameter {name} of @{kernel.kernel_name}: {err}") from None
