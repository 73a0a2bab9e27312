"""The ``@Tx.kernel`` parser: a Python function's AST (never executed) to a ``tirx.kernel``.

The parser walks the statements of the function and evaluates each expression at parse time:
names resolve to kernel locals, then the function's closure and globals (captured shapes,
dtypes, flags are constants), then a few builtins. Calls run the same ``Tx`` functions the
``with`` builder uses (`tirx_mlir.script`), so one op definition, one argument binding and one
set of checks serve both. What the IR cannot express is an error at its line, never a guess:

* ``for v in range(...)`` / ``Tx.serial(...)``: an ``scf.for``, carrying the run-time values
  the body reassigns (`loop_carried`); ``Tx.unroll(...)`` with constant
  bounds repeats the body at parse time with ``v`` a Python int;
* ``while cond:`` on a run-time condition is an ``scf.while`` (spin-waits);
* ``if`` on a Python value picks a branch at parse time; on a run-time condition (comparisons
  of loop variables and scope ids) it is an ``scf.if``;
* arithmetic on Python numbers is Python's; on indices it builds ``arith`` ops.

Each statement and call sets the current location (`locations.at`), so every op it inserts
carries its ``file:line:col``; any failure while building it is a `ScriptError` there.
"""

from __future__ import annotations

import ast
import copy
import builtins
import operator
from typing import Any, Callable

from xdsl.builder import ImplicitBuilder
from xdsl.dialects import scf
from xdsl.dialects.builtin import IndexType
from xdsl.ir import Block, Region

from tirx_mlir.diagnostics import TirxError
from tirx_mlir.script import loop_carried
from tirx_mlir.script.builder import Buffer, Cond, Index, ScriptError, index_max, index_min
from tirx_mlir.script.locations import SourceError, SourceLoc, at, located_builder
from tirx_mlir.script.scalars import Scalar

_BINARY: dict[type, Callable[[Any, Any], Any]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
    ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Div: operator.truediv,
    ast.Pow: operator.pow, ast.BitAnd: operator.and_, ast.BitOr: operator.or_,
    ast.LShift: operator.lshift, ast.RShift: operator.rshift, ast.BitXor: operator.xor,
}
_COMPARE = {ast.Lt: ("slt", operator.lt), ast.LtE: ("sle", operator.le),
            ast.Gt: ("sgt", operator.gt), ast.GtE: ("sge", operator.ge),
            ast.Eq: ("eq", operator.eq), ast.NotEq: ("ne", operator.ne)}
_SWAPPED = {"slt": "sgt", "sle": "sge", "sgt": "slt", "sge": "sle", "eq": "eq", "ne": "ne"}
_BUILTINS = {n: getattr(builtins, n) for n in
             ("range", "len", "min", "max", "abs", "int", "float", "bool", "tuple", "list",
              "dict", "zip", "enumerate", "reversed", "sum", "print", "isinstance", "str")}


def _index_aware(python, of_two):
    """``min`` / ``max`` as in Python, and of two operands one of which is a run-time index
    (``min((i + 1) * 128, n)``: a guarded tile's end), the index op."""
    def call(*args, **kwargs):
        if len(args) == 2 and not kwargs and any(isinstance(a, Index) for a in args):
            return of_two(*args)
        return python(*args, **kwargs)

    call.__name__ = python.__name__
    return call


_BUILTINS["min"] = _index_aware(builtins.min, index_min)
_BUILTINS["max"] = _index_aware(builtins.max, index_max)


class LoopMarker:
    """``Tx.serial`` / ``Tx.unroll``: loop kinds, meaningful only as a ``for`` iterable."""

    def __init__(self, name: str, unroll: bool):
        self.name, self.unroll = name, unroll
        self.__name__ = name

    def __call__(self, *args, **kwargs):
        raise ScriptError(f"Tx.{self.name}(...) is a loop of @Tx.kernel: write "
                          f"`for i in Tx.{self.name}(...)` in a kernel body (the `with` builder "
                          f"uses `with Tx.range(...) as i`)")


serial = LoopMarker("serial", unroll=False)
unroll = LoopMarker("unroll", unroll=True)


class _Scope:
    """Names bound in one block; a loop or ``if`` body opens a child (its names end there)."""

    def __init__(self, parent: "_Scope | None", static: bool):
        self.vars: dict[str, Any] = {}
        self.parent = parent
        self.static = static  # True when the block is no IR block (unrolled, parse-time `if`)

    def lookup(self, name: str) -> tuple[bool, Any]:
        scope: _Scope | None = self
        while scope is not None:
            if name in scope.vars:
                return True, scope.vars[name]
            scope = scope.parent
        return False, None

    def owner(self, name: str) -> "_Scope | None":
        scope: _Scope | None = self
        while scope is not None and name not in scope.vars:
            scope = scope.parent
        return scope


class KernelParser:
    """Builds the body of one kernel (an open ``Tx.kernel`` builder) from a FunctionDef."""

    def __init__(self, filename: str, line_offset: int, col_offset: int,
                 env: dict[str, Any]):
        self.filename = filename
        self.line_offset = line_offset
        self.col_offset = col_offset
        self.env = env  # globals + closure (+ constexpr values, set by the caller)
        self.scope = _Scope(None, static=False)

    # --- locations and errors ----------------------------------------------------------------

    def loc(self, node: ast.AST) -> SourceLoc:
        line = node.lineno + self.line_offset
        end = node.end_col_offset + 1 + self.col_offset \
            if getattr(node, "end_lineno", None) == node.lineno else None
        return SourceLoc(self.filename, line, node.col_offset + 1 + self.col_offset, end)

    def error(self, node: ast.AST, message: str, hint: str | None = None) -> ScriptError:
        return ScriptError(message, self.loc(node), hint=hint)

    def located(self, node: ast.AST, fn: Callable[[], Any]) -> Any:
        """Run ``fn`` with ops located at ``node``; a failure becomes an error there."""
        with at(self.loc(node)):
            try:
                return fn()
            except SourceError as err:
                if err.where is None or err.where.filename != self.filename:
                    err.where = self.loc(node)
                raise
            except TirxError as err:
                raise ScriptError(err.message, self.loc(node), hint=err.hint,
                                  code=err.code) from None
            except Exception as err:  # noqa: BLE001 - the user's call failed: say where
                message = str(err) or type(err).__name__
                raise ScriptError(message, self.loc(node)) from err

    # --- statements --------------------------------------------------------------------------

    def body(self, stmts: list[ast.stmt]) -> None:
        for stmt in stmts:
            method = getattr(self, f"stmt_{type(stmt).__name__}", None)
            if method is None:
                raise self.error(stmt, f"`{type(stmt).__name__}` statements are not supported in "
                                       f"@Tx.kernel", hint=_UNSUPPORTED_HINTS.get(type(stmt)))
            with at(self.loc(stmt)):
                method(stmt)

    def stmt_Pass(self, node: ast.Pass) -> None:
        pass

    def stmt_Expr(self, node: ast.Expr) -> None:
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return  # a docstring
        self.expr(node.value)

    def stmt_Return(self, node: ast.Return) -> None:
        if node.value is not None:
            raise self.error(node, "a kernel returns nothing: write its results into its "
                                   "Tx.Out parameters")

    def stmt_Assert(self, node: ast.Assert) -> None:
        value = self.expr(node.test)
        if isinstance(value, (Cond, Index)):
            raise self.error(node.test, "assert takes a parse-time condition (constexprs, "
                                        "shapes), not a run-time one")
        if not value:
            message = self.expr(node.msg) if node.msg is not None else "assertion failed"
            raise self.error(node, str(message))

    def stmt_Assign(self, node: ast.Assign) -> None:
        value = self.expr(node.value)
        for target in node.targets:
            self.assign(target, value)

    def stmt_AnnAssign(self, node: ast.AnnAssign) -> None:
        if node.value is None:
            raise self.error(node, "a declaration without a value is not supported")
        self.assign(node.target, self.expr(node.value))

    def stmt_AugAssign(self, node: ast.AugAssign) -> None:
        if not isinstance(node.target, ast.Name):
            raise self.error(node.target, "only a name can be updated with an augmented "
                                          "assignment", hint="write Tx.add(dst, dst, x) for "
                                                             "buffers")
        current = self.expr(ast.Name(node.target.id, ast.Load(), lineno=node.lineno,
                                     col_offset=node.col_offset, end_lineno=node.end_lineno,
                                     end_col_offset=node.end_col_offset))
        rhs = self.expr(node.value)
        self.assign(node.target, self._binary(node, type(node.op), current, rhs))

    def assign(self, target: ast.expr, value: Any) -> None:
        if isinstance(target, (ast.Tuple, ast.List)):
            values = list(value) if isinstance(value, (tuple, list)) else None
            if values is None or len(values) != len(target.elts):
                raise self.error(target, f"cannot unpack {type(value).__name__} into "
                                         f"{len(target.elts)} names")
            for t, v in zip(target.elts, values):
                self.assign(t, v)
            return
        if isinstance(target, ast.Subscript):
            raise self.error(target, "assigning into a buffer region is not supported",
                             hint="copy into it: Tx.copy(B[...], a)")
        if not isinstance(target, ast.Name):
            raise self.error(target, f"cannot assign to {type(target).__name__}")
        self._bind(target, value)

    def _bind(self, target: ast.Name, value: Any) -> None:
        owner = self.scope.owner(target.id)
        crossing = owner is not None and owner is not self.scope and any(
            not s.static for s in self._scopes_between(owner))
        if crossing:
            raise self.error(target, f"'{target.id}' is defined outside this loop or `if` and "
                                     f"cannot be reassigned inside it (no loop-carried or "
                                     f"branch-merged values)", hint="use a new name, or write "
                                     "into a buffer")
        if isinstance(value, (Buffer, Index)) and value.value.name_hint is None:
            value.value.name_hint = target.id
        if owner is None:  # a new name lives in the innermost IR block (Python's scoping)
            owner = self.scope
            while owner.static and owner.parent is not None:
                owner = owner.parent
        owner.vars[target.id] = value

    def _scopes_between(self, owner: _Scope) -> list[_Scope]:
        out, scope = [], self.scope
        while scope is not None and scope is not owner:
            out.append(scope)
            scope = scope.parent
        return out

    def _child(self, static: bool):
        parser = self

        class _Enter:
            def __enter__(self):
                parser.scope = _Scope(parser.scope, static)

            def __exit__(self, *exc):
                assert parser.scope.parent is not None
                parser.scope = parser.scope.parent

        return _Enter()

    def stmt_For(self, node: ast.For) -> None:
        if node.orelse:
            raise self.error(node, "`for ... else` is not supported in @Tx.kernel")
        if not isinstance(node.target, ast.Name):
            raise self.error(node.target, "the loop variable must be a single name")
        kind, args = self._loop_kind(node.iter)
        if kind is unroll:
            if not all(isinstance(a, int) for a in args):
                raise self.error(node.iter, "Tx.unroll needs constant bounds (Python ints)")
            values = self.located(node.iter, lambda: builtins.range(*args))
            for value in values:
                with self._child(static=True):
                    self.scope.vars[node.target.id] = value
                    self.body(node.body)
            return
        if not all(isinstance(a, (int, Index)) and not isinstance(a, bool) for a in args):
            raise self.error(node.iter, "loop bounds must be ints or index values")
        start, stop, step = (0, args[0], 1) if len(args) == 1 else \
            (args[0], args[1], args[2] if len(args) == 3 else 1)
        if not isinstance(step, int):
            raise self.error(node.iter, "the loop step must be a constant")
        if step <= 0:
            raise self.error(node.iter, f"the loop step must be positive, not {step}")
        carried = {n: v for n in loop_carried.assigned_names(node.body)
                   if n != node.target.id
                   for found, v in [self.scope.lookup(n)] if found and loop_carried.carryable(v)}
        inits = [v for value in carried.values() for v in loop_carried.flatten(value)]
        body = Block(arg_types=[IndexType(), *(v.type for v in inits)])
        loop = scf.ForOp(Index.wrap(start), Index.wrap(stop), Index.wrap(step), inits,
                         Region(body))
        body.args[0].name_hint = node.target.id
        with ImplicitBuilder(located_builder(body)), self._child(static=False):
            self.scope.vars[node.target.id] = Index(body.args[0])
            args = list(body.args[1:])
            for name, value in carried.items():
                self.scope.vars[name] = loop_carried.rebuild(value, args)
            self.body(node.body)
            finals = []
            for name, value in carried.items():
                final = self.scope.vars[name]
                self.located(node, lambda: loop_carried.check_same(name, value, final))
                finals += loop_carried.flatten(final)
            scf.YieldOp(*finals)
        results = list(loop.results)
        for name, value in carried.items():
            self.scope.owner(name).vars[name] = loop_carried.rebuild(value, results)

    def _loop_kind(self, it: ast.expr) -> tuple[Any, list[Any]]:
        if not isinstance(it, ast.Call):
            raise self.error(it, "a kernel loop iterates over range(...), Tx.serial(...) or "
                                 "Tx.unroll(...)")
        fn = self.expr(it.func)
        if fn is not builtins.range and not isinstance(fn, LoopMarker):
            raise self.error(it, "a kernel loop iterates over range(...), Tx.serial(...) or "
                                 "Tx.unroll(...)")
        if it.keywords or not 1 <= len(it.args) <= 3:
            raise self.error(it, "a loop takes (stop), (start, stop) or (start, stop, step)")
        return fn, [self.expr(a) for a in it.args]

    def stmt_If(self, node: ast.If) -> None:
        test = self.expr(node.test)
        if isinstance(test, Buffer):
            raise self.error(node.test, "`if` cannot branch on a buffer: compare indices, scope "
                                        "ids or parse-time values")
        if isinstance(test, Index):
            test = self.located(node.test, lambda: test.compare("ne", 0))
        if not isinstance(test, Cond):
            branch = node.body if test else node.orelse
            with self._child(static=True):
                self.body(branch)
            return
        then_block, else_block = Block(), Block()
        regions = [Region(then_block), Region(else_block) if node.orelse else Region()]
        scf.IfOp(test.value, [], *regions)
        for block, stmts in ((then_block, node.body), (else_block, node.orelse)):
            if block is else_block and not node.orelse:
                continue
            with ImplicitBuilder(located_builder(block)), self._child(static=False):
                self.body(stmts)
                scf.YieldOp()

    def stmt_While(self, node: ast.While) -> None:
        """``while cond: body`` on a run-time condition: an ``scf.while`` that evaluates
        ``cond`` (its ops) before each iteration; e.g. a spin-wait on a barrier,
        ``while not Tx.ptx.mbarrier_try_wait_parity(...): pass``."""
        if node.orelse:
            raise self.error(node, "`while ... else` is not supported in @Tx.kernel")
        before, after = Block(), Block()
        scf.WhileOp([], [], Region(before), Region(after))
        with ImplicitBuilder(located_builder(before)), self._child(static=False):
            test = self.expr(node.test)
            if isinstance(test, Index):
                test = self.located(node.test, lambda: test.compare("ne", 0))
            if not isinstance(test, Cond):
                raise self.error(node.test, "a `while` loop needs a run-time condition (a "
                                            "comparison or a predicate an op returns)",
                                 hint="for a parse-time count, use `for i in Tx.unroll(n)`")
            scf.ConditionOp(test.value)
        with ImplicitBuilder(located_builder(after)), self._child(static=False):
            self.body(node.body)
            scf.YieldOp()

    # --- expressions -------------------------------------------------------------------------

    def expr(self, node: ast.expr) -> Any:
        method = getattr(self, f"expr_{type(node).__name__}", None)
        if method is None:
            raise self.error(node, f"`{type(node).__name__}` expressions are not supported in "
                                   f"@Tx.kernel")
        return method(node)

    def expr_Constant(self, node: ast.Constant) -> Any:
        return node.value

    def expr_Name(self, node: ast.Name) -> Any:
        found, value = self.scope.lookup(node.id)
        if found:
            return value
        if node.id in self.env:
            return self.env[node.id]
        if node.id in _BUILTINS:
            return _BUILTINS[node.id]
        raise self.error(node, f"name '{node.id}' is not defined")

    def expr_Attribute(self, node: ast.Attribute) -> Any:
        base = self.expr(node.value)
        try:
            return getattr(base, node.attr)
        except SourceError as err:  # e.g. `namespace.UnknownName`: its words, located here
            raise self.error(node, err.message, hint=err.hint) from None
        except AttributeError as err:
            raise self.error(node, str(err)) from None

    def expr_Tuple(self, node: ast.Tuple) -> tuple:
        return tuple(self.expr(e) for e in node.elts)

    def expr_List(self, node: ast.List) -> list:
        return [self.expr(e) for e in node.elts]

    def expr_ListComp(self, node: ast.ListComp) -> list:
        """``[f(i) for i in Tx.unroll(n)]`` (or over ``range`` of ints, a list or a tuple):
        evaluated at parse time, one element after the other (their ops in that order)."""
        out: list = []

        def generate(k: int) -> None:
            if k == len(node.generators):
                out.append(self.expr(node.elt))
                return
            gen = node.generators[k]
            if not isinstance(gen.target, ast.Name):
                raise self.error(gen.target, "a comprehension variable must be a single name")
            for value in self._static_values(gen.iter):
                with self._child(static=True):
                    self.scope.vars[gen.target.id] = value
                    if all(self._static_truth(c) for c in gen.ifs):
                        generate(k + 1)

        generate(0)
        return out

    def _static_values(self, it: ast.expr) -> Any:
        if isinstance(it, ast.Call) and isinstance(self.expr(it.func), LoopMarker):
            kind, args = self._loop_kind(it)
            if not kind.unroll or not all(isinstance(a, int) for a in args):
                raise self.error(it, "a comprehension in a kernel runs at parse time: iterate "
                                     "over Tx.unroll(...) with constant bounds")
            return self.located(it, lambda: builtins.range(*args))
        values = self.expr(it)
        if not isinstance(values, (list, tuple, builtins.range)):
            raise self.error(it, f"a comprehension in a kernel runs at parse time: it iterates "
                                 f"over Tx.unroll(...), a range or a list, not "
                                 f"{type(values).__name__}")
        return values

    def _static_truth(self, test: ast.expr) -> bool:
        value = self.expr(test)
        if isinstance(value, (Cond, Index, Buffer, Scalar)):
            raise self.error(test, "a comprehension's `if` needs a parse-time condition")
        return bool(value)

    def expr_Dict(self, node: ast.Dict) -> dict:
        if any(k is None for k in node.keys):
            raise self.error(node, "`**` in a dict is not supported")
        return {self.expr(k): self.expr(v) for k, v in zip(node.keys, node.values)}  # type: ignore[arg-type]

    def expr_Slice(self, node: ast.Slice) -> slice:
        part = [None if p is None else self.expr(p) for p in (node.lower, node.upper, node.step)]
        return slice(*part)

    def expr_Subscript(self, node: ast.Subscript) -> Any:
        base = self.expr(node.value)
        key = self.expr(node.slice)
        return self.located(node, lambda: base[key])

    def expr_BinOp(self, node: ast.BinOp) -> Any:
        return self._binary(node, type(node.op), self.expr(node.left), self.expr(node.right))

    def _binary(self, node: ast.AST, op: type, lhs: Any, rhs: Any) -> Any:
        fn = _BINARY.get(op)
        if fn is None:
            raise self.error(node, f"operator {op.__name__} is not supported")
        if isinstance(lhs, Buffer) or isinstance(rhs, Buffer):
            raise self.error(node, "arithmetic on buffers is written with tile primitives",
                             hint="e.g. Tx.add(dst, a, b) or Tx.mul(dst, a, 2.0)")
        return self.located(node, lambda: fn(lhs, rhs))

    def expr_UnaryOp(self, node: ast.UnaryOp) -> Any:
        value = self.expr(node.operand)
        if isinstance(node.op, ast.USub):
            return self.located(node, lambda: -value)
        if isinstance(node.op, ast.UAdd):
            return value
        if isinstance(node.op, ast.Not):
            if isinstance(value, (Cond, Index)):
                return self.located(node, lambda: ~_as_cond(value))
            if isinstance(value, Buffer):
                raise self.error(node, "`not` of a buffer has no meaning")
            return not value
        return self.located(node, lambda: ~value)

    def expr_BoolOp(self, node: ast.BoolOp) -> Any:
        """``and``/``or``: Python's, short-circuiting, while the values are parse-time ones;
        a run-time condition (an index comparison) joins the rest as a combined condition."""
        conjunction = isinstance(node.op, ast.And)
        values = []
        for operand_node in node.values:
            value = self.expr(operand_node)
            values.append(value)
            if not isinstance(value, (Cond, Index)) and not any(
                    isinstance(v, (Cond, Index)) for v in values[:-1]):
                if (not value) if conjunction else bool(value):
                    return value  # decided at parse time: the rest is not evaluated
        if not any(isinstance(v, Cond) for v in values):
            result = values[0]
            for v in values[1:]:
                result = (result and v) if conjunction else (result or v)
            return result
        combine = operator.and_ if conjunction else operator.or_
        result = values[0]
        for v in values[1:]:
            result = self.located(node, lambda r=result, v=v: combine(_as_cond(r), _as_cond(v)))
        return result

    def expr_Compare(self, node: ast.Compare) -> Any:
        result: Any = True
        lhs = self.expr(node.left)
        for op, right in zip(node.ops, node.comparators):
            rhs = self.expr(right)
            if type(op) not in _COMPARE:
                raise self.error(node, f"comparison {type(op).__name__} is not supported")
            step = self.located(node, lambda a=lhs, b=rhs, o=type(op): _compare(o, a, b))
            result = step if result is True else self.located(
                node, lambda r=result, s=step: _as_cond(r) & _as_cond(s)
                if isinstance(r, Cond) or isinstance(s, Cond) else (r and s))
            lhs = rhs
        return result

    def expr_IfExp(self, node: ast.IfExp) -> Any:
        test = self.expr(node.test)
        if isinstance(test, (Cond, Index)):
            raise self.error(node, "a conditional expression needs a parse-time condition",
                             hint="use an `if` statement for a run-time one")
        return self.expr(node.body) if test else self.expr(node.orelse)

    def expr_Lambda(self, node: ast.Lambda) -> Callable[..., Any]:
        """A lambda (e.g. ``where=lambda i, j: i < j``) is a parse-time function: Python runs it
        on the symbolic values the callee passes."""
        env = dict(self.env)
        scope: _Scope | None = self.scope
        chain = []
        while scope is not None:
            chain.append(scope.vars)
            scope = scope.parent
        for vars_ in reversed(chain):
            env.update(vars_)
        expr = ast.Expression(copy.deepcopy(node))  # shifted to the file's lines: a copy, as
        ast.fix_missing_locations(expr)             # an unrolled body parses its nodes again
        ast.increment_lineno(expr, self.line_offset)
        return eval(compile(expr, self.filename, "eval"), env)  # noqa: S307 - the user's code

    def expr_Call(self, node: ast.Call) -> Any:
        fn = self.expr(node.func)
        args: list[Any] = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                spread = self.expr(a.value)
                if not isinstance(spread, (list, tuple)):
                    raise self.error(a, f"`*` needs a list or tuple, not {type(spread).__name__}")
                args.extend(spread)
            else:
                args.append(self.expr(a))
        kwargs: dict[str, Any] = {}
        for kw in node.keywords:
            if kw.arg is None:
                spread = self.expr(kw.value)
                if not isinstance(spread, dict):
                    raise self.error(kw.value, f"`**` needs a dict, not {type(spread).__name__}")
                kwargs.update(spread)
            else:
                kwargs[kw.arg] = self.expr(kw.value)
        if not callable(fn):
            raise self.error(node.func, f"{type(fn).__name__} is not callable")
        return self.located(node, lambda: fn(*args, **kwargs))


def _as_cond(v: Any) -> Cond:
    if isinstance(v, Cond):
        return v
    if isinstance(v, Index):
        return v.compare("ne", 0)
    raise ScriptError(f"cannot combine {type(v).__name__} with a run-time condition")


def _compare(op: type, a: Any, b: Any) -> Any:
    predicate, python = _COMPARE[op]
    if isinstance(a, (Index, Scalar)):
        return a.compare(predicate, b)
    if isinstance(b, (Index, Scalar)):
        return b.compare(_SWAPPED[predicate], a)
    if isinstance(a, (Buffer, Cond)) or isinstance(b, (Buffer, Cond)):
        raise ScriptError("only indices and Python values can be compared")
    return python(a, b)


_UNSUPPORTED_HINTS: dict[type, str] = {
    ast.With: "@Tx.kernel bodies use `for` and `if`; `with` is the builder's style",
    ast.FunctionDef: "define helpers outside the kernel; call Tx functions inside",
    ast.Break: "loops run their whole range; guard the body with `if`",
    ast.Continue: "guard the rest of the body with `if`",
    ast.Try: "errors are reported at compile time; there is nothing to catch",
}
