"""``@Tx.kernel``: a decorated Python function as a kernel object (parsed, specialised, run).

    @Tx.kernel(target=TARGET, threads=(128,))
    def add_one(A: Tx.Buffer[(128, 512), "f32"], B: Tx.Out[(128, 512), "f32"]):
        a = Tx.alloc((128, 512), scope="shared")
        Tx.cta.copy(a, A)
        Tx.cta.add(a, a, 1.0)
        Tx.cta.copy(B, a)

    add_one.ir                      # the tirx module (parsed on first use, verified)
    b = add_one.interpret(a)        # tile-level semantics (the reference interpreter)
    b = add_one(a)                  # tirx_mlir.compile for the target, run on its default device
    art = add_one.compile(target=OTHER_TARGET)

Parameters are buffers (``Tx.Buffer[...]`` inputs, then ``Tx.Out[...]`` outputs) or
specialisation values (``M: Tx.constexpr`` or ``M: int``): each distinct set of values is a
variant, parsed once and cached; buffer shapes may use them. The function body is never run: the
parser (`parser.py`) reads its source. Launch keywords: ``target=``, ``grid=``, ``threads=``,
``cluster=``, ``name=``; ``grid``/``threads`` may be a function of the constexpr values.
``attributes={"<dialect>.<name>": "array<i64: 0, 1>"}`` sets discardable attributes of the
``tirx.kernel`` op (MLIR attribute text): the ones a backend reads from its kernels.
"""

from __future__ import annotations

import ast
import inspect
import textwrap
from typing import Any, Callable

from tirx_mlir.diagnostics import TirxError
from tirx_mlir.script.builder import Buffer, BufferSpec, KernelBuilder, ScriptError
from tirx_mlir.script.locations import SourceLoc, at, located_error
from tirx_mlir.script.parser import KernelParser


def _attribute(key: str, text: Any, where: SourceLoc) -> Any:
    """The attribute ``attributes={key: text}`` names (MLIR text, e.g. ``"array<i64: 0>"``)."""
    from xdsl.parser import Parser
    from xdsl.utils.exceptions import ParseError

    from tirx_mlir.located_parser import make_context

    if not isinstance(text, str):
        raise ScriptError(f"attributes={{{key!r}: ...}} takes the attribute's MLIR text (e.g. "
                          f"'array<i64: 0, 1>'), not {type(text).__name__}", where)
    try:
        return Parser(make_context(), text).parse_attribute()
    except ParseError as err:
        raise ScriptError(f"attributes={{{key!r}: {text!r}}}: not an attribute: {err.msg}",
                          where) from None


class constexpr:  # noqa: N801 - Triton's spelling
    """Annotation of a parameter whose value specialises the kernel (``M: Tx.constexpr``)."""


class Kernel:
    """The object ``@Tx.kernel`` makes (see the module docstring)."""

    def __init__(self, fn: Callable[..., Any], *, target: str | None = None, grid: Any = (1,),
                 threads: Any = (1,), cluster: Any = None, name: str | None = None,
                 attributes: dict[str, str] | None = None):
        self.fn = fn
        self.name = name or fn.__name__
        self.target, self.grid, self.threads, self.cluster = target, grid, threads, cluster
        self.filename = fn.__code__.co_filename
        self._def, self._line_offset, self._col_offset = _function_def(fn)
        self._variants: dict[tuple, Any] = {}
        self._artifacts: dict[tuple, Any] = {}
        self._params = self._classify_params()
        self.attributes = {key: _attribute(key, text, self._loc(self._def))  # parsed here,
                           for key, text in (attributes or {}).items()}   # outside a builder
        self.__doc__ = fn.__doc__
        self.__name__ = fn.__name__

    def __repr__(self) -> str:
        return f"<Tx.kernel {self.name} target={self.target!r}>"

    # --- parameters --------------------------------------------------------------------------

    def _loc(self, node: ast.AST) -> SourceLoc:
        return SourceLoc(self.filename, node.lineno + self._line_offset,
                         node.col_offset + 1 + self._col_offset)

    def _classify_params(self) -> list[tuple[str, str, ast.expr | None]]:
        """(name, "constexpr" | "buffer", annotation) per parameter."""
        args = self._def.args
        if args.vararg or args.kwarg or args.posonlyargs:
            raise ScriptError("a kernel takes named parameters only (no *args, **kwargs, /)",
                              self._loc(self._def))
        out = []
        for a in [*args.args, *args.kwonlyargs]:
            if a.annotation is None:
                raise ScriptError(f"parameter '{a.arg}' needs an annotation: "
                                  f"Tx.Buffer[shape, dtype], Tx.Out[...] or Tx.constexpr",
                                  self._loc(a))
            kind = "constexpr" if _names_constexpr(a.annotation) else "buffer"
            out.append((a.arg, kind, a.annotation))
        return out

    @property
    def constexprs(self) -> list[str]:
        return [n for n, k, _ in self._params if k == "constexpr"]

    # --- parsing -----------------------------------------------------------------------------

    def _env(self) -> dict[str, Any]:
        env = dict(self.fn.__globals__)
        code = self.fn.__code__
        for name, cell in zip(code.co_freevars, self.fn.__closure__ or ()):
            try:
                env[name] = cell.cell_contents
            except ValueError:  # a closure variable not yet assigned
                pass
        return env

    def specialize(self, **values: Any) -> Any:
        """The module of the variant for these constexpr values (parsed once, cached)."""
        missing = [n for n in self.constexprs if n not in values]
        unknown = [n for n in values if n not in self.constexprs]
        if missing or unknown:
            raise ScriptError(f"kernel {self.name}: " + "; ".join(
                [f"missing constexpr {', '.join(missing)}"] * bool(missing) +
                [f"{', '.join(unknown)} is not a constexpr parameter"] * bool(unknown)),
                self._loc(self._def))
        key = tuple(sorted(values.items(), key=lambda kv: kv[0]))
        try:
            hash(key)
        except TypeError:
            raise ScriptError(f"kernel {self.name}: constexpr values must be hashable",
                              self._loc(self._def)) from None
        if key not in self._variants:
            self._variants[key] = self._build(values)
        return self._variants[key]

    def _build(self, values: dict[str, Any]) -> Any:
        from tirx_mlir.interpreter.launch import verify_module

        env = {**self._env(), **values}
        parser = KernelParser(self.filename, self._line_offset, self._col_offset, env)
        inputs, outputs = self._buffer_params(parser, values)
        launch = {}
        for k, v in (("grid", self.grid), ("threads", self.threads), ("cluster", self.cluster)):
            try:
                launch[k] = v(**values) if callable(v) else v
            except Exception as err:  # noqa: BLE001 - the user's function: say where it failed
                raise ScriptError(f"{k}= of kernel {self.name} failed on the constexprs "
                                  f"{values}: {type(err).__name__}: {err}",
                                  self._loc(self._def)) from None
        with at(self._loc(self._def)):
            builder = KernelBuilder(self.name, inputs, outputs, target=self.target, **launch)
        with builder:
            for arg, buf in zip([*inputs, *outputs], builder.args):
                parser.scope.vars[arg] = buf
            parser.scope.vars.update(values)
            parser.body(self._def.body)
        _erase_unused_index_arith(builder.op)
        builder.op.attributes.update(self.attributes)
        try:
            verify_module(builder.module)
        except TirxError as err:
            raise located_error(err) from None
        return builder.module

    def _buffer_params(self, parser: KernelParser, values: dict[str, Any]):
        inputs: dict[str, Any] = {}
        outputs: dict[str, Any] = {}
        for name, kind, annotation in self._params:
            if kind == "constexpr":
                continue
            spec = parser.located(annotation, lambda a=_annotation_expr(annotation): parser.expr(a))
            if not isinstance(spec, BufferSpec):
                raise parser.error(annotation, f"parameter '{name}': annotate a buffer as "
                                               f"Tx.Buffer[shape, dtype] or Tx.Out[shape, dtype]")
            if not spec.output and outputs:
                raise parser.error(annotation, f"input '{name}' follows an output: list the "
                                               f"Tx.Buffer inputs before the Tx.Out outputs")
            with at(parser.loc(annotation)):
                (outputs if spec.output else inputs)[name] = spec.buffer_type()
        return inputs, outputs

    @property
    def ir(self) -> Any:
        """The module (for a kernel without constexpr parameters)."""
        return self.specialize()

    # --- running -----------------------------------------------------------------------------

    def _split_call(self, args: tuple, kwargs: dict) -> tuple[dict[str, Any], list[Any]]:
        """(constexpr values, buffer arrays in parameter order) of a call, by position or name."""
        names = [n for n, _, _ in self._params]
        if len(args) > len(names):
            raise ScriptError(f"kernel {self.name} takes {len(names)} arguments, got "
                              f"{len(args)}", self._loc(self._def))
        bound = dict(zip(names, args))
        for k, v in kwargs.items():
            if k not in names:
                raise ScriptError(f"kernel {self.name} has no parameter '{k}'; it takes "
                                  f"{', '.join(names)}", self._loc(self._def))
            if k in bound:
                raise ScriptError(f"kernel {self.name}: '{k}' given twice", self._loc(self._def))
            bound[k] = v
        signature = self._def.args
        defaults = {a.arg: d for a, d in zip(signature.args[::-1], signature.defaults[::-1])}
        defaults.update({a.arg: d for a, d in zip(signature.kwonlyargs, signature.kw_defaults)
                         if d is not None})
        values = {}
        for n in self.constexprs:
            if n in bound:
                values[n] = bound[n]
            elif n in defaults:
                try:
                    values[n] = ast.literal_eval(defaults[n])
                except ValueError:
                    raise ScriptError(f"the default of constexpr '{n}' must be a literal",
                                      self._loc(defaults[n])) from None
        arrays = []
        for n, kind, _ in self._params:
            if kind == "buffer":
                if n not in bound:
                    break  # the rest (outputs) are allocated by the run
                arrays.append(bound[n])
        return values, arrays

    def interpret(self, *args: Any, **kwargs: Any) -> Any:
        """Run the tile-level IR on numpy arrays with the reference interpreter."""
        from tirx_mlir.interpreter import interpret

        values, arrays = self._split_call(args, kwargs)
        module = self.specialize(**values)
        try:
            return interpret(module, self.name, *arrays)
        except TirxError as err:
            raise located_error(err) from None

    def compile(self, target: str | None = None, **kwargs: Any) -> Any:
        """``tirx_mlir.compile`` of the variant (constexprs and compile options as keywords)."""
        import tirx_mlir

        values = {k: kwargs.pop(k) for k in self.constexprs if k in kwargs}
        module = self.specialize(**values)
        key = repr((sorted(values.items()), target, sorted(kwargs.items())))  # lists too
        if key not in self._artifacts:
            try:
                self._artifacts[key] = tirx_mlir.compile(module, target=target, **kwargs)
            except TirxError as err:
                raise located_error(err) from None
        return self._artifacts[key]

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        """Compile for the kernel's target and run on that target's default device (the
        interpreter device where no hardware is present)."""
        values, arrays = self._split_call(args, kwargs)
        artifact = self.compile(**values)
        try:
            return artifact.run(*arrays)
        except TirxError as err:
            raise located_error(err) from None


def _erase_unused_index_arith(root: Any) -> None:
    """Drop arith ops nothing uses (a slice's ``stop`` is evaluated only for its static size)."""
    from xdsl.dialects.builtin import IndexType

    for op in reversed(list(root.walk())):
        if op.dialect_name() == "arith" and op.results and \
                all(isinstance(r.type, IndexType) and not r.uses for r in op.results):
            op.detach()
            op.erase()


def _annotation_expr(annotation: ast.expr) -> ast.expr:
    """The annotation's expression; a string annotation (``from __future__ import annotations``
    or quotes) parsed, its nodes placed at the string."""
    if not (isinstance(annotation, ast.Constant) and isinstance(annotation.value, str)):
        return annotation
    try:
        expr = ast.parse(annotation.value, mode="eval").body
    except SyntaxError as err:
        raise ScriptError(f"annotation {annotation.value!r} is not an expression: {err.msg}") \
            from None
    for node in ast.walk(expr):
        ast.copy_location(node, annotation)
    return expr


def _names_constexpr(annotation: ast.expr) -> bool:
    """``Tx.constexpr``, ``constexpr``, ``int`` (or the same as strings)."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        return annotation.value.split(".")[-1] in ("constexpr", "int")
    if isinstance(annotation, ast.Attribute):
        return annotation.attr == "constexpr"
    return isinstance(annotation, ast.Name) and annotation.id in ("constexpr", "int")


def _function_def(fn: Callable[..., Any]) -> tuple[ast.FunctionDef, int, int]:
    """The function's AST, with the line and column offsets of its source in its file."""
    try:
        lines, first = inspect.getsourcelines(fn)
    except (OSError, TypeError) as err:
        raise ScriptError(f"@Tx.kernel needs the source of {fn.__qualname__} ({err})",
                          hint="define kernels in a file (or a notebook cell), not via exec") \
            from None
    source = "".join(lines)
    dedented = textwrap.dedent(source)
    indent = len(lines[0]) - len(lines[0].lstrip()) if dedented != source else 0
    tree = ast.parse(dedented)
    node = tree.body[0]
    if not isinstance(node, ast.FunctionDef):
        raise ScriptError(f"@Tx.kernel decorates a function, not {type(node).__name__}")
    return node, first - 1, indent


def kernel(fn_or_name: Any = None, /, **kwargs: Any) -> Any:
    """``@Tx.kernel`` / ``@Tx.kernel(target=..., grid=...)`` decorate a function (a `Kernel`);
    ``Tx.kernel("name", inputs=..., outputs=...)`` is the ``with`` builder."""
    if callable(fn_or_name):
        return Kernel(fn_or_name, **kwargs)
    if "inputs" in kwargs or "outputs" in kwargs:
        return KernelBuilder(fn_or_name, **kwargs)
    if fn_or_name is not None:
        kwargs["name"] = fn_or_name
    return lambda fn: Kernel(fn, **kwargs)


__all__ = ["Buffer", "Kernel", "constexpr", "kernel"]
