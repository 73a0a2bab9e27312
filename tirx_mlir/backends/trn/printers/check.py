"""Check emitted NKI Python against the signature table: parse it, resolve every ``nl.``/
``nisa.``/``ncc.``/... reference through the module's imports, and bind every call the way
Python would (positional count, keyword names, duplicates, required parameters), then check the
values passed to operator/engine/buffer/dtype parameters.

    problems = check_source(text, "current")    # [] when every call matches

This is how the printers' output is validated without the Neuron compiler (DESIGN.md,
"Printers"); the tests run it on everything the printers emit.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from tirx_mlir.backends.trn.printers.signatures import (KW, MODULES, POS, RETURNS, TABLES,
                                                        TENSOR_METHODS, VARARGS, VARKW,
                                                        Signature)


@dataclass
class SourceChecker(ast.NodeVisitor):
    """Walks one module; collects ``problems`` as ``line N: message`` strings."""

    api: str
    problems: list[str] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    """The line of each problem (0 when unknown)."""
    aliases: dict[str, str] = field(default_factory=dict)
    calls: int = 0

    def __post_init__(self) -> None:
        self.functions, self.constants = TABLES[self.api]
        self.modules = MODULES[self.api]

    def problem(self, node: ast.AST, message: str) -> None:
        line = getattr(node, "lineno", None)
        self.problems.append(f"line {'?' if line is None else line}: {message}")
        self.lines.append(line or 0)

    # ---- imports ----
    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.name not in self.modules:
                self.problem(node, f"import of '{alias.name}' is not part of the {self.api} "
                                   f"NKI API")
                continue
            self.aliases[alias.asname or alias.name.split(".")[0]] = self.modules[alias.name]

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = self.modules.get(node.module or "")
        if module is None:
            self.problem(node, f"import from '{node.module}' is not part of the {self.api} "
                               f"NKI API")
            return
        for alias in node.names:
            self.aliases[alias.asname or alias.name] = f"{module}.{alias.name}"

    # ---- the walk ----
    def visit(self, node: ast.AST) -> None:
        """`ast.NodeVisitor.visit`, the method looked up once per node class."""
        method = _METHODS.get((type(self), type(node)))
        if method is None:
            method = _METHODS[(type(self), type(node))] = getattr(
                type(self), f"visit_{type(node).__name__}", type(self).generic_visit)
        method(self, node)

    def generic_visit(self, node: ast.AST) -> None:
        """`ast.NodeVisitor.generic_visit` (the children in field order), without its
        per-field generator; the expression context (``Load``/``Store``) has nothing to check."""
        for field_name in node._fields:
            if field_name == "ctx":
                continue
            value = getattr(node, field_name, None)
            if type(value) is list:
                for item in value:
                    if isinstance(item, ast.AST):
                        self.visit(item)
            elif isinstance(value, ast.AST):
                self.visit(value)

    def visit_Constant(self, node: ast.Constant) -> None:
        """A literal has no children (`ast.NodeVisitor` would look for the pre-3.8 visitors)."""

    # ---- references ----
    def canonical(self, node: ast.AST) -> str | None:
        """``nl.add`` -> ``nki.language.add`` when the root is an imported alias."""
        parts: list[str] = []
        while isinstance(node, ast.Attribute):
            parts.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name) or node.id not in self.aliases:
            return None
        return ".".join([self.aliases[node.id], *reversed(parts)])

    def visit_Attribute(self, node: ast.Attribute) -> None:
        name = self.canonical(node)
        if name is not None and name not in self.constants and name not in self.functions \
                and not self._is_prefix(name):
            self.problem(node, f"'{name}' is not in the {self.api} NKI API table")
        if name is None:
            self.generic_visit(node)

    def _is_prefix(self, name: str) -> bool:
        prefix = name + "."
        return any(k.startswith(prefix) for k in (*self.functions, *self.constants))

    def visit_Call(self, node: ast.Call) -> None:
        name = self.canonical(node.func)
        if name is not None:
            self.calls += 1
            signature = self.functions.get(name)
            if signature is None:
                self.problem(node, f"call of '{name}', which is not in the {self.api} NKI API "
                                   f"table")
            else:
                self.bind(node, name, signature)
        elif isinstance(node.func, ast.Attribute) and node.func.attr in TENSOR_METHODS:
            self.calls += 1
            if node.func.attr == "ap" and self.api != "current":
                self.problem(node, "'.ap()' exists in the current NKI API only")
            self.bind(node, f".{node.func.attr}", TENSOR_METHODS[node.func.attr])
            self.visit(node.func.value)
        else:
            self.visit(node.func)
        for arg in [*node.args, *(kw.value for kw in node.keywords)]:
            self.visit(arg)

    # ---- binding ----
    def bind(self, node: ast.Call, name: str, signature: Signature) -> None:
        positional, by_name, has_varargs, has_varkw = _binding(signature)
        bound: dict[str, ast.AST] = {}
        if any(isinstance(a, ast.Starred) for a in node.args) or \
                any(kw.arg is None for kw in node.keywords):
            self.problem(node, f"{name}: *args/**kwargs in a call cannot be checked")
            return
        if len(node.args) > len(positional) and not has_varargs:
            self.problem(node, f"{name} takes at most {len(positional)} positional arguments, "
                               f"got {len(node.args)}")
        for param, arg in zip(positional, node.args):
            bound[param.name] = arg
        for kw in node.keywords:
            assert kw.arg is not None
            if kw.arg in bound:
                self.problem(node, f"{name} got multiple values for '{kw.arg}'")
            elif kw.arg not in by_name and not has_varkw:
                self.problem(node, f"{name} has no parameter '{kw.arg}'; parameters: "
                                   f"{', '.join(by_name) or '(none)'}")
            bound[kw.arg] = kw.value
        for param in signature:
            if param.required and param.kind in (POS, KW) and param.name not in bound:
                self.problem(node, f"{name} is missing the required argument '{param.name}'")
            if param.value is not None and param.name in bound:
                self.check_value(node, name, param.name, param.value, bound[param.name])

    def check_value(self, node: ast.Call, name: str, param: str, want: str,
                    value: ast.AST) -> None:
        if want == "bool":
            ok = isinstance(value, ast.Constant) and isinstance(value.value, bool) or \
                not isinstance(value, ast.Constant)
        elif isinstance(value, ast.Constant) and value.value is None:
            ok = True
        elif isinstance(value, ast.Call):
            ok = RETURNS.get(self.canonical(value.func) or "") == want
        else:
            ok = self.constants.get(self.canonical(value) or "") == want
        if not ok:
            self.problem(node, f"{name}: '{param}' takes a {want} of the NKI API, got "
                               f"'{ast.unparse(value)}'")


def _binding(signature: Signature) -> tuple[list, dict, bool, bool]:
    """The signature's positional parameters, its parameters by name, and whether it takes
    ``*args`` / ``**kwargs``: worked out once per signature (the tables' signatures are
    module-level constants; an entry holds its signature, so its id is not reused)."""
    entry = _BINDINGS.get(id(signature))
    if entry is not None and entry[0] is signature:
        return entry[1]
    binding = ([q for q in signature if q.kind == POS],
               {q.name: q for q in signature if q.kind in (POS, KW)},
               any(q.kind == VARARGS for q in signature),
               any(q.kind == VARKW for q in signature))
    _BINDINGS[id(signature)] = (signature, binding)
    return binding


_BINDINGS: dict[int, tuple[Signature, tuple[list, dict, bool, bool]]] = {}

_METHODS: dict[tuple[type, type], object] = {}
"""(checker class, node class) -> the method `SourceChecker.visit` calls."""


def check_source(source: str, api: str) -> list[str]:
    """Problems of the NKI Python ``source`` for ``api`` ('legacy' or 'current'); [] if
    every reference and call matches the signature table. A syntax error is a problem too.

    A kernel repeats statements (the same instruction on the same tiles, block after block):
    each distinct one-line statement is checked once, its repeats stand in as ``pass`` and
    share its problems (`distinct_statements`)."""
    text, repeats = distinct_statements(source)
    try:
        tree = ast.parse(text)
    except SyntaxError as err:
        if repeats:  # the stand-ins broke something the full text has: check it as it is
            return check_source_whole(source, api)
        return [f"line {err.lineno}: invalid Python: {err.msg}"]
    checker = SourceChecker(api)
    checker.visit(tree)
    if not repeats or not checker.problems:
        return checker.problems
    located = list(zip(checker.lines, checker.problems))
    for line, problem in list(located):
        for again in repeats.get(line, ()):
            located.append((again, f"line {again}:{problem.split(':', 1)[1]}"))
    return [problem for _, problem in sorted(located, key=lambda lp: lp[0])]


def check_source_whole(source: str, api: str) -> list[str]:
    """`check_source` without sharing the checks of repeated statements."""
    try:
        tree = ast.parse(source)
    except SyntaxError as err:
        return [f"line {err.lineno}: invalid Python: {err.msg}"]
    checker = SourceChecker(api)
    checker.visit(tree)
    return checker.problems


def distinct_statements(source: str) -> tuple[str, dict[int, list[int]]]:
    """``source`` with every repeat of a one-line statement (same text and indentation, after
    the last import) replaced by ``pass`` at its indentation, and ``{line of the first: [lines
    of its repeats]}`` (1-based). Only lines that are whole statements are shared: outside any
    bracket, without quotes, comments, continuations or a trailing colon; a line that makes
    this unsure (unbalanced brackets with quotes on it, a triple quote: the lines after it may
    be a string's) ends the sharing."""
    lines = source.split("\n")
    first: dict[str, int] = {}
    repeats: dict[int, list[int]] = {}
    depth = 0
    for index, line in enumerate(lines):
        stripped = line.strip()
        opens = line.count("(") + line.count("[") + line.count("{")
        closes = line.count(")") + line.count("]") + line.count("}")
        plain = not any(c in line for c in "'\"#\\")
        if not plain and (opens != closes or '"""' in line or "'''" in line):
            break  # brackets inside strings or comments, a multi-line string: stop sharing
        whole = depth == 0 and opens == closes and plain and stripped \
            and not stripped.endswith(":")
        depth += opens - closes
        if stripped.startswith(("import ", "from ")):
            first.clear()  # aliases change: statements after this are checked afresh
            continue
        if not whole:
            continue
        known = first.get(line)
        if known is None:
            first[line] = index + 1
            continue
        repeats.setdefault(known, []).append(index + 1)
        lines[index] = line[:len(line) - len(line.lstrip())] + "pass"
    if not repeats:
        return source, {}
    return "\n".join(lines), repeats


def count_calls(source: str, api: str) -> int:
    """How many table-checked calls ``source`` makes (so a test can tell it checked some)."""
    checker = SourceChecker(api)
    checker.visit(ast.parse(source))
    return checker.calls



