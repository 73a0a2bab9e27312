"""Running a kernel on numpy arrays: finding it, checking and preparing its arguments.

    runner = KernelRunner(module, "softmax")    # builds the interpreter once
    (y,) = runner(x)                            # inputs first; outputs allocated NaN-filled

Arguments follow the kernel's parameters, inputs then outputs. The caller's input arrays are never
written: an input the kernel may write (`written_inputs`) is copied, the others are passed as
read-only views (so a write the analysis missed fails loudly instead of corrupting the caller's
data). An output passed by the caller is written in place; one not passed is fresh memory (NaN /
poison, so an element the kernel never writes shows). Shapes must match; an
input of another dtype is an error unless ``cast_inputs=True``, which rounds it under the store
rules of `runtime.convert`.

A ``global`` parameter with a layout (column-major, strided, padded: `global_layout`) is given
to the kernel as the logical view of a fresh memory of the layout's span, into which the input
is placed; outputs are such views too (a caller's output array is written back after the run).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.traits import MemoryEffectKind, get_effects
from xdsl.utils.exceptions import VerifyException

from tirx_mlir.diagnostics import TirxError
from tirx_mlir.dialects.tirx import dtypes
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.buffer_ops import VIEW_OPS, AllocOp, LoadOp, StoreOp
from tirx_mlir.dialects.tirx.global_layout import GlobalPlacement, global_placement
from tirx_mlir.dialects.tirx.layout import LayoutError
from tirx_mlir.dialects.tirx.kernel import KernelOp, kernels
from tirx_mlir.dialects.tirx.tile_base import TileOp
from tirx_mlir.interpreter import runtime
from tirx_mlir.interpreter.core import (DEFAULT_MAX_STEPS, TirxInterpreter, check_max_steps,
                                        make_interpreter)
from tirx_mlir.interpreter.runtime import InterpretError
from tirx_mlir.interpreter.tirx_kernel import param_name


def find_kernel(module: ModuleOp, name: str | None = None) -> KernelOp:
    """The kernel called ``name`` (or the only kernel when ``name`` is None)."""
    found = kernels(module)
    names = ", ".join(f"@{k.kernel_name}" for k in found) or "none"
    if name is None:
        if len(found) != 1:  # located at the second kernel (or the module when there is none)
            raise TirxError(f"the module has {len(found)} kernels ({names}); name the one to run",
                            found[1] if len(found) > 1 else module,
                            hint="tirx-run --entry NAME, or KernelRunner(module, 'NAME')")
        return found[0]
    for kernel in found:
        if kernel.kernel_name == name.lstrip("@"):
            return kernel
    raise TirxError(f"no kernel named @{name.lstrip('@')}; the module has: {names}")


def verify_module(module: ModuleOp) -> None:
    """Check dominance and verify, raising a `TirxError` located at the first op that does
    not verify."""
    from tirx_mlir.dominance import check_dominance

    check_dominance(module)
    try:
        module.verify()
    except VerifyException as err:
        bad = None
        for op in module.walk():
            try:
                op.verify(verify_nested_ops=False)
            except VerifyException:
                bad = op
                break
        raise TirxError(str(err), bad) from None



def _root_param(value: SSAValue, kernel: KernelOp) -> int | None | bool:
    """The kernel parameter a buffer value views (its index), None for an on-chip allocation,
    True when it cannot be traced (then any parameter may be behind it)."""
    while isinstance(value.owner, VIEW_OPS):
        value = value.owner.source
    if isinstance(value, BlockArgument) and value.owner is kernel.body.block:
        return value.index
    return None if isinstance(value.owner, AllocOp) else True


def _written_by(op: Operation) -> list[SSAValue]:
    """The buffer operands an op without tirx semantics may write, from its memory effects."""
    buffers = [o for o in op.operands if isinstance(o.type, BufferType)]
    effects = get_effects(op)
    if effects is None:
        return buffers
    writes = [e for e in effects if e.kind == MemoryEffectKind.WRITE]
    if any(not isinstance(e.value, SSAValue) for e in writes):
        return buffers
    return [e.value for e in writes if isinstance(e.value.type, BufferType)]


def written_inputs(kernel: KernelOp) -> set[int]:
    """Indices of the inputs the kernel may write: the destinations of tile ops and
    ``tirx.store``, traced through views. An op with a ``written_buffers()`` method (a backend's
    instruction, e.g. the nki ops) writes the buffers it returns; any other op writes the buffers
    its declared memory effects name: none when it declares no write effect (``MemoryReadEffect``,
    ``Pure``...), every buffer operand when it declares an unspecific write or no effects at all.
    A buffer that cannot be traced to a parameter or an allocation counts as writing them all."""
    inputs = set(range(kernel.n_inputs))
    written: set[int] = set()
    for op in kernel.walk():
        if isinstance(op, TileOp):
            targets = op.dst_operands()
        elif isinstance(op, StoreOp):
            targets = [op.buffer]
        elif isinstance(op, (*VIEW_OPS, LoadOp, AllocOp)):
            continue
        elif hasattr(op, "written_buffers"):  # an op that names what it writes
            targets = op.written_buffers()
        else:
            targets = _written_by(op)
        for value in targets:
            root = _root_param(value, kernel)
            if root is True:
                return inputs
            if root is not None and root in inputs:
                written.add(root)
    return written


def buffer_params(kernel: KernelOp) -> list[tuple[str, BufferType]]:
    """(name, type) of each parameter, inputs first."""
    out = []
    for i, arg in enumerate(kernel.body.block.args):
        assert isinstance(arg.type, BufferType)
        out.append((param_name(kernel, i).lstrip("%"), arg.type))
    return out


def random_array(btype: BufferType, rng: np.random.Generator,
                 what: str = "a random input") -> np.ndarray:
    """Test data for a buffer: standard normal floats, small integers ([-8, 8), unsigned
    [0, 16)), random booleans; rounded to the element type (``what`` names it in the error
    `runtime.check_allocation` raises for a buffer too large to hold)."""
    dt = dtypes.numpy_dtype(btype.element_type)
    shape = btype.get_shape()
    runtime.check_allocation(shape, dt, what)
    if runtime.is_float_dtype(dt):
        return runtime.convert(rng.standard_normal(shape, dtype=np.float32), dt)
    if dt == runtime.BOOL:
        return rng.integers(0, 2, shape).astype(bool)
    low, high = (0, 16) if dt.kind == "u" else (-8, 8)
    return rng.integers(low, high, shape).astype(dt)


class KernelRunner:
    """One kernel of a module, ready to run many times on numpy arrays."""

    def __init__(self, module: ModuleOp, kernel_name: str | None = None, *,
                 interpreter: TirxInterpreter | None = None, max_steps: int | None = None):
        self.module = module
        self.kernel = find_kernel(module, kernel_name)
        self.interpreter = interpreter or make_interpreter(module)
        if max_steps is not None:  # ops one run may execute (0 = no limit)
            self.interpreter.max_steps = check_max_steps(max_steps)
        self.params = buffer_params(self.kernel)
        self.written_inputs = written_inputs(self.kernel)
        self.placements = [self._placement(i, t) for i, (_, t) in enumerate(self.params)]

    def _placement(self, index: int, btype: BufferType) -> GlobalPlacement | None:
        """How parameter ``index`` lies in memory (None: the row-major array itself)."""
        if btype.get_layout() is None:
            return None
        try:
            placement = global_placement(btype)
        except LayoutError as err:
            raise InterpretError(f"parameter {param_name(self.kernel, index)} of "
                                 f"@{self.kernel.kernel_name}: {err}", self.kernel) from None
        return None if placement.is_row_major() else placement

    @property
    def n_inputs(self) -> int:
        return self.kernel.n_inputs

    def prepare(self, arrays: Sequence[Any], cast_inputs: bool = False) -> list[np.ndarray]:
        """The kernel's argument list: checked, copied inputs, then outputs."""
        kernel, n_in = self.kernel, self.kernel.n_inputs
        if not n_in <= len(arrays) <= len(self.params):
            raise InterpretError(
                f"@{kernel.kernel_name} takes {n_in} inputs and {len(self.params) - n_in} "
                f"optional outputs, got {len(arrays)} arrays", kernel)
        args = [self._input(i, a, cast_inputs) for i, a in enumerate(arrays[:n_in])]
        args += [self._output(n_in + i, a) for i, a in enumerate(arrays[n_in:])]
        for name, btype in self.params[len(args):]:
            args.append(self._alloc_param(name, btype))
        return [self._in_memory(i, a) for i, a in enumerate(args)]

    def _in_memory(self, index: int, arg: np.ndarray) -> np.ndarray:
        """The argument placed in a memory of its parameter's layout (as the logical view)."""
        placement = self.placements[index]
        if placement is None:
            return arg
        what = f"the HBM memory of parameter {param_name(self.kernel, index)} of " \
               f"@{self.kernel.kernel_name} (its layout spans {placement.span} elements)"
        try:
            memory = placement.place(arg, runtime.alloc((placement.span,), arg.dtype, what))
        except InterpretError as err:
            err.op = self.kernel
            raise
        view = placement.logical_view(memory)
        if not arg.flags.writeable:
            view.flags.writeable = False
        return view

    def random_inputs(self, rng: np.random.Generator) -> list[np.ndarray]:
        """One `random_array` per input, in order."""
        try:
            return [random_array(btype, rng, f"random input %{name} of @{self.kernel.kernel_name}")
                    for name, btype in self.params[:self.n_inputs]]
        except InterpretError as err:
            err.op = self.kernel
            raise

    def _alloc_param(self, name: str, btype: BufferType) -> np.ndarray:
        try:
            return runtime.alloc(btype.get_shape(), dtypes.numpy_dtype(btype.element_type),
                                 f"output %{name} of @{self.kernel.kernel_name}")
        except InterpretError as err:
            err.op = self.kernel
            raise

    def _expect(self, index: int, value: Any) -> tuple[BufferType, np.dtype, np.ndarray]:
        name, btype = self.params[index]
        arr = np.asarray(value)
        if arr.shape != btype.get_shape():
            raise InterpretError(f"argument %{name} of @{self.kernel.kernel_name} has shape "
                                 f"{list(arr.shape)}, but the parameter is {btype}", self.kernel)
        return btype, dtypes.numpy_dtype(btype.element_type), arr

    def _input(self, index: int, value: Any, cast: bool) -> np.ndarray:
        btype, dt, arr = self._expect(index, value)
        if arr.dtype != dt and not cast:
            raise InterpretError(
                f"input %{self.params[index][0]} of @{self.kernel.kernel_name} has dtype "
                f"{runtime.dtype_name(arr.dtype)}, but the parameter is {btype}", self.kernel,
                hint="convert it (bf16/fp8 through ml_dtypes), or pass cast_inputs=True "
                     "(tirx-run: --cast-inputs) to round it to the parameter's type")
        if index in self.written_inputs or arr.dtype != dt:
            return np.array(runtime.convert(arr, dt), dtype=dt, order="C", copy=True)
        view = arr.view()
        view.flags.writeable = False
        return view

    def _output(self, index: int, value: Any) -> np.ndarray:
        btype, dt, arr = self._expect(index, value)
        if not isinstance(value, np.ndarray) or arr.dtype != dt or not arr.flags.writeable:
            raise InterpretError(
                f"output %{self.params[index][0]} of @{self.kernel.kernel_name} must be a "
                f"writable numpy array of dtype {runtime.dtype_name(dt)}, got "
                f"{runtime.dtype_name(arr.dtype)}", self.kernel)
        return value

    def run(self, args: Sequence[np.ndarray]) -> tuple[np.ndarray, ...]:
        """Run on a full, prepared argument list; returns the outputs."""
        return tuple(self.interpreter.call_op(self.kernel, tuple(args)))

    def __call__(self, *arrays: Any, cast_inputs: bool = False) -> tuple[np.ndarray, ...]:
        """Run on ``arrays`` (inputs, then optional outputs); returns every output."""
        outputs = list(self.run(self.prepare(arrays, cast_inputs)))
        for k, given in enumerate(arrays[self.n_inputs:]):
            if given is not outputs[k]:  # placed by its layout: back into the caller's array
                given[...] = outputs[k]
                outputs[k] = given
        return tuple(outputs)


def interpret(module_or_text: ModuleOp | str, kernel_name: str | None = None, *arrays: Any,
              verify: bool = True, cast_inputs: bool = False, name: str = "<input>",
              max_steps: int = DEFAULT_MAX_STEPS) -> np.ndarray | tuple[np.ndarray, ...]:
    """Run ``kernel_name`` of a module (or of IR text, parsed with locations as ``name``) on
    numpy arrays, with reference semantics.

    ``arrays`` are the inputs, optionally followed by output arrays to write in place. Returns
    the output array when the kernel has one output, else a tuple of them. The run may execute
    ``max_steps`` ops (0 = no limit); past that it stops with an error located at the loop.

        y = tirx_mlir.interpret(ir_text, "softmax", x)
    """
    if isinstance(module_or_text, ModuleOp):
        module = module_or_text
    else:
        from tirx_mlir.located_parser import parse_module

        module = parse_module(module_or_text, name)
    if verify:
        verify_module(module)
    outputs = KernelRunner(module, kernel_name, max_steps=max_steps)(*arrays,
                                                                     cast_inputs=cast_inputs)
    return outputs[0] if len(outputs) == 1 else outputs
