"""Loop-carried values of ``@Tx.kernel``: a name bound to run-time values before a ``for`` and
reassigned in its body is carried through the ``scf.for`` (its ``iter_args``), as in Triton:

    acc = [Tx.const(0.0, "f32")] * 4           # four f32 registers
    for k in range(8):
        acc = Tx.ptx.mma_sync("m16n8k16.f32.f16.f16.f32", a, b, acc)   # a tuple of four
    Tx.cuda.store(D, i, acc[0])                # after the loop: the loop's results

A carried name holds a scalar, an index, a condition, or a (nested) list or tuple of them; the
body must leave it with the same structure and types. The carried names are those the body
assigns, in the order the body first assigns them; their values, flattened in order, are the
loop's ``iter_args`` and results.
"""

from __future__ import annotations

import ast
from typing import Any

from xdsl.ir import SSAValue

from tirx_mlir.script.builder import Cond, Index, ScriptError
from tirx_mlir.script.scalars import Scalar, type_text, wrap

RUN_TIME = (Scalar, Index, Cond)


def assigned_names(body: list[ast.stmt]) -> list[str]:
    """The names ``body`` assigns (not in a lambda, not loop variables), first assignment
    first."""
    names: list[str] = []
    loop_vars: set[str] = set()

    class _Visitor(ast.NodeVisitor):
        def visit_Lambda(self, node: ast.Lambda) -> None:
            pass

        def visit_For(self, node: ast.For) -> None:
            if isinstance(node.target, ast.Name):
                loop_vars.add(node.target.id)
            for stmt in node.body:
                self.visit(stmt)

        def visit_comprehension(self, node: ast.comprehension) -> None:  # its own names
            self.visit(node.iter)
            for test in node.ifs:
                self.visit(test)

        def visit_Name(self, node: ast.Name) -> None:
            if isinstance(node.ctx, ast.Store) and node.id not in names:
                names.append(node.id)

        def visit_AugAssign(self, node: ast.AugAssign) -> None:
            self.visit(node.value)
            if isinstance(node.target, ast.Name) and node.target.id not in names:
                names.append(node.target.id)

        def visit_Assign(self, node: ast.Assign) -> None:  # the value is evaluated first
            self.visit(node.value)
            for target in node.targets:
                self.visit(target)

    visitor = _Visitor()
    for stmt in body:
        visitor.visit(stmt)
    return [n for n in names if n not in loop_vars]


def carryable(value: Any) -> bool:
    """A run-time value, or a non-empty (nested) list or tuple of them."""
    if isinstance(value, RUN_TIME):
        return True
    return isinstance(value, (list, tuple)) and bool(value) and all(map(carryable, value))


def flatten(value: Any) -> list[SSAValue]:
    if isinstance(value, RUN_TIME):
        return [value.value]
    return [v for item in value for v in flatten(item)]


def rebuild(like: Any, values: list[SSAValue]) -> Any:
    """``like``'s structure with the values taken, in order, from ``values`` (consumed)."""
    if isinstance(like, RUN_TIME):
        return wrap(values.pop(0))
    return type(like)(rebuild(item, values) for item in like)


def check_same(name: str, before: Any, after: Any) -> None:
    """The body left ``name`` with the structure and types it entered with."""
    if not carryable(after):
        raise ScriptError(f"'{name}' is carried through the loop (a run-time value before it) "
                          f"but the body leaves it a {type(after).__name__}")
    types_before = [type_text(v.type) for v in flatten(before)]
    types_after = [type_text(v.type) for v in flatten(after)]
    if types_before != types_after or _shape(before) != _shape(after):
        raise ScriptError(f"'{name}' is carried through the loop as {_describe(before)} but "
                          f"the body leaves it {_describe(after)}")


def _shape(value: Any) -> Any:
    if isinstance(value, RUN_TIME):
        return None
    return [_shape(v) for v in value]


def _describe(value: Any) -> str:
    if isinstance(value, RUN_TIME):
        return type_text(value.value.type)
    return f"[{', '.join(_describe(v) for v in value)}]"
