"""The CUDA rules the ``cuda`` and ``nvshmem`` ops obey, stated once.

Each rule raises `rules.RuleError` with a message that names the operand and says what to
change; the op verifiers (base.py) turn it into a diagnostic prefixed with the op's name. Rules
about the launch (threads per block, a cluster launch) and the architecture apply when the op
sits in a ``tirx.kernel`` that states them (its ``threads``/``cluster`` and its ``target``, or the
module's ``tirx.target``); outside a kernel only the type and scope rules hold.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Sequence

from xdsl.dialects.builtin import IndexType, IntegerType, VectorType
from xdsl.ir import Attribute, Operation, SSAValue

from tirx_mlir.backends.cuda.memory import ADDRESSABLE_SCOPES
from tirx_mlir.backends.cuda.target_tags import max_shared_bytes as target_shared_bytes
from tirx_mlir.backends.cuda.target_tags import sm_number
from tirx_mlir.dialects.tirx import dtypes
from tirx_mlir.dialects.tirx.access import constant_value, shared_answers
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.kernel import KernelOp, enclosing_kernel, target_holder
from tirx_mlir.dialects.tirx.rules import RuleError
from tirx_mlir.target.target import target_text_of
from tirx_mlir.type_tests import IsInstance

_IS_VECTOR = IsInstance(VectorType)

INT32 = ("i32", "ui32")
"""32-bit integer spellings (a mask, a lane, a bitset)."""
SHUFFLE_TYPES = ("i32", "ui32", "i64", "f32", "f64", "f16", "bf16")
"""What one __shfl_sync moves (CUDA C++ Programming Guide, "Warp Shuffle Functions")."""
FLOAT_TYPES = ("f16", "bf16", "f32", "f64")
WARP_SIZE = 32
WARPGROUP_SIZE = 128


# --- the launch and the target around an op -----------------------------------------------------


@dataclass(frozen=True)
class Launch:
    """What the verifiers know about where an op runs: its kernel (None outside one) and the
    target's architecture (None when no cuda target is given)."""

    kernel: KernelOp | None
    arch: str | None

    @property
    def sm(self) -> int | None:
        return None if self.arch is None else sm_number(self.arch)

    @property
    def threads(self) -> int | None:
        return None if self.kernel is None else self.kernel.num_threads()


@lru_cache(maxsize=64)
def _cuda_target(text: str) -> tuple[str | None, int | None]:
    """(arch, max shared bytes per block) of a target string; (None, None) when it is not a
    parsable target. A target of another kind is an error: cuda ops run on NVIDIA GPUs."""
    from tirx_mlir.target import Target, TargetError

    try:
        target = Target(text)
    except TargetError:
        return None, None
    if target.kind_name != "cuda":
        raise RuleError(f"cuda ops need a cuda target, but the kernel targets '{text}'; use e.g. "
                        f"target \"cuda -arch=sm_90a\" or \"nvidia/nvidia-h100\"")
    return target.get("arch"), target_shared_bytes(target)


def launch_of(op: Operation) -> Launch:
    """Where ``op`` runs. Inside one `access.shared_views` block (a verification) it is found
    once per target holder (`kernel.target_holder`: the nearest enclosing kernel or module,
    all that the kernel and the target text are read from), not walked up per op."""
    holder, text = _holder_and_target(op)
    shared = shared_answers()
    key = ("cuda.launch", holder)
    launch = shared.get(key) if shared is not None and holder is not None else None
    if launch is None:
        arch = None if text is None else _cuda_target(text)[0]
        kernel = holder if isinstance(holder, KernelOp) else \
            None if holder is None else enclosing_kernel(holder)
        launch = Launch(kernel, arch)
        if shared is not None and holder is not None:
            shared[key] = launch
    return launch


def target_text(op: Operation) -> str | None:
    """``target_text_of(op)``, found once per target holder inside an `access.shared_views`
    block (`launch_of`)."""
    return _holder_and_target(op)[1]


def _holder_and_target(op: Operation) -> tuple[Operation | None, str | None]:
    holder = target_holder(op)
    if holder is None:
        return None, target_text_of(op)
    shared = shared_answers()
    if shared is None:
        return holder, target_text_of(holder)
    key = ("cuda.target", holder)
    try:
        return holder, shared[key]
    except KeyError:
        text = shared[key] = target_text_of(holder)
        return holder, text


def max_shared_bytes(op: Operation) -> int | None:
    """The target's shared-memory bytes per block (None without a cuda target)."""
    text = target_text(op)
    return None if text is None else _cuda_target(text)[1]


def require_sm(launch: Launch, sm: int, what: str) -> None:
    """``what`` exists from compute capability ``sm`` on (checked when the target is known)."""
    if launch.sm is not None and launch.sm < sm:
        raise RuleError(f"{what}: not available before sm_{sm}, but the target is "
                        f"{launch.arch}; target sm_{sm} or newer, or avoid it")


def require_cluster(launch: Launch, what: str) -> None:
    if launch.kernel is not None and launch.kernel.cluster_dims() is None:
        raise RuleError(f"{what}: the kernel is not launched with clusters; add "
                        f"`cluster [..]` to the kernel")


def require_threads_multiple(launch: Launch, unit: int, what: str) -> None:
    n = launch.threads
    if n is not None and n % unit:
        raise RuleError(f"{what}: the block must hold a multiple of {unit} threads, but the "
                        f"kernel launches {n}; change `threads`")


# --- operand types ------------------------------------------------------------------------------


def one_of(items: Sequence[str]) -> str:
    """``a``, ``a or b``, ``a, b or c``."""
    items = list(items)
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} or {items[-1]}"


def type_name(t: Attribute) -> str:
    """The MLIR spelling of a type (an attribute's answer never changes: attributes are
    immutable; each type object's answer is kept, with the object, in `_TYPE_NAMES`)."""
    known = _TYPE_NAMES.get(id(t))
    if known is not None:
        return known[1]
    name = dtypes.type_name(t) if isinstance(t, (IntegerType, IndexType)) or \
        dtypes.is_supported(t) else str(t)
    if len(_TYPE_NAMES) >= 4096:
        _TYPE_NAMES.clear()
    _TYPE_NAMES[id(t)] = (t, name)  # holding ``t`` keeps its id from being reused
    return name


_TYPE_NAMES: dict[int, tuple[Attribute, str]] = {}


def check_type(name: str, value: SSAValue, allowed: Sequence[str], hint: str = "") -> str:
    """``value``'s type is one of ``allowed`` (MLIR spellings); returns its spelling."""
    got = type_name(value.type)
    if got not in allowed:
        raise RuleError(f"operand '{name}' must be {one_of(allowed)}, got {value.type}"
                        f"{'; ' + hint if hint else ''}")
    return got


def check_i32(name: str, value: SSAValue, what: str = "a 32-bit mask") -> None:
    check_type(name, value, ("i32",), f"it is {what}")


def check_index(name: str, value: SSAValue) -> None:
    if not isinstance(value.type, IndexType):
        raise RuleError(f"operand '{name}' must be index, got {value.type}")


def constant_index(value: SSAValue) -> int | None:
    """The value of an ``arith.constant`` index operand (None when it is not a constant)."""
    constant = constant_value(value)
    return constant if isinstance(constant, int) else None


def check_in_bounds(index: SSAValue, n: int, mem: BufferType) -> None:
    """Elements ``[index, index + n)`` lie in ``mem`` (checked when ``index`` is a constant)."""
    offset = constant_index(index)
    if offset is not None:
        check_offset_in_bounds(offset, n, mem)


def check_offset_in_bounds(offset: int, n: int, mem: BufferType) -> None:
    """Elements ``[offset, offset + n)`` lie in ``mem``."""
    if not 0 <= offset <= mem.numel - n:
        what = f"element {offset} lies" if n == 1 else \
            f"elements [{offset}, {offset + n}) lie"
        raise RuleError(f"{what} outside the buffer's {mem.numel} elements; use an index in "
                        f"[0, {mem.numel - n}]")


def check_same_type(what: str, expected: Attribute, got: Attribute, hint: str) -> None:
    if expected != got:
        raise RuleError(f"{what} has type {got} but must be {expected}; {hint}")


def buffer(name: str, value: SSAValue, scopes: Sequence[str] = ADDRESSABLE_SCOPES) -> BufferType:
    """``value`` is a ``!tirx.buffer`` in one of ``scopes``."""
    t = value.type
    if not isinstance(t, BufferType):
        raise RuleError(f"operand '{name}' must be a !tirx.buffer in {one_of(scopes)}, got {t}")
    if t.scope_name not in scopes:
        raise RuleError(f"operand '{name}' is in {t.scope_name}; it must be in {one_of(scopes)}")
    return t


def element_bytes(t: Attribute) -> int:
    return max(1, dtypes.bit_width(t) // 8)


LOCAL_BYTES_PER_THREAD = 512 * 1024
"""The most local memory one thread may have (CUDA C++ Programming Guide, "Technical
Specifications per Compute Capability": 512 KB on every compute capability)."""


def local_array_error(t: BufferType) -> str | None:
    """Why a thread's local array of type ``t`` cannot exist, or None: the printers refuse it
    before declaring it (a 2^40-element array was a MemoryError in the PTX printer, which
    names one register per element, and ``float buf[1099511627776];`` in CUDA C++)."""
    nbytes = t.numel * element_bytes(t.element_type)
    if nbytes <= LOCAL_BYTES_PER_THREAD:
        return None
    return (f"a local array of {t.numel} x {t.element_type} is {nbytes} bytes per thread; a CUDA "
            f"thread has at most {LOCAL_BYTES_PER_THREAD} bytes of local memory (shrink the "
            f"register tile or stage it in shared memory)")


def lanes(t: Attribute) -> tuple[int, Attribute]:
    """(lanes, element type) of a scalar (1 lane) or a 1-D ``vector<N x T>``."""
    if _IS_VECTOR(t):
        if t.get_num_dims() != 1 or t.get_num_scalable_dims():
            raise RuleError(f"{t} must be a 1-D fixed vector")
        return t.get_shape()[0], t.element_type
    return 1, t


def check_vector_access(what: str, t: Attribute, elem: Attribute) -> int:
    """A vectorised access of ``t`` (a scalar or ``vector<N x elem>``) to memory of ``elem``:
    1, 2 or 4 lanes of at most 16 bytes together. Returns the lane count."""
    n, lane_t = lanes(t)
    if lane_t != elem:
        raise RuleError(f"{what} has element type {lane_t} but the buffer holds {elem}; "
                        f"use the buffer's element type")
    if n not in (1, 2, 4):
        raise RuleError(f"{what} has {n} lanes; a vector access moves 1, 2 or 4 elements")
    if n * element_bytes(elem) > 16:
        raise RuleError(f"{what} moves {n * element_bytes(elem)} bytes; one access moves at "
                        f"most 16 bytes: use fewer lanes")
    return n


def check_choice(what: str, value: str, allowed: Sequence[str]) -> None:
    if value not in allowed:
        raise RuleError(f"{what} '{value}' is not {one_of(allowed)}")


def check_power_of_two(what: str, value: int, low: int, high: int | None = None) -> None:
    if value < low or value & (value - 1) or (high is not None and value > high):
        upper = f" and at most {high}" if high is not None else ""
        raise RuleError(f"{what} is {value}; it must be a power of two, at least {low}{upper}")
