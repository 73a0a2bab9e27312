"""Building an xDSL context with every registered dialect, and parsing with source locations.

`make_context` registers the dialect *factories* of `tirx_mlir.registry.dialects` (the core,
upstream xDSL dialects, and whatever loaded backends added), so a dialect module is imported only
when a file uses it. `parse_module` attaches ``loc("file":line:col)`` to every op that has no
explicit location, which is what lets diagnostics name the place.
"""

from __future__ import annotations

import bisect
import os
import re
from typing import Any, NamedTuple

from xdsl.context import Context
from xdsl.dialects.builtin import (BFloat16Type, FileLineColLoc, Float16Type, Float32Type,
                                   Float64Type, IndexType, IntAttr, IntegerAttr, IntegerType,
                                   ModuleOp, StringAttr, UnknownLoc, UnrealizedConversionCastOp,
                                   UnregisteredOp)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap, AffineSet
from xdsl.parser import Parser
from xdsl.parser.core import UnresolvedOperand
from xdsl.parser.affine_parser import AffineParser
from xdsl.utils.exceptions import ParseError, VerifyException
from xdsl.parser.generic_parser import ParserState
from xdsl.utils.lexer import Input, Span, Token
from xdsl.utils.mlir_lexer import KIND_BY_PUNCTUATION_SPELLING, MLIRLexer, MLIRTokenKind

from tirx_mlir import lazy_formats, lazy_op_definitions, registry
from tirx_mlir.dominance import DominanceError, check_dominance
from tirx_mlir.nesting import MAX_NESTING_DEPTH, ensure_stack_headroom
from tirx_mlir.type_tests import find_ops

lazy_formats.install()  # before any dialect this parser loads defines its ops
lazy_op_definitions.install()  # the same: op classes completed on first use


class _LazyPattern:
    """A regular expression compiled the first time it is used: a run that never needs one
    (an empty module reads none of the op-template patterns) does not compile it. The compiled
    pattern's methods then sit in the instance, so later uses cost an attribute lookup."""

    def __init__(self, pattern: str, flags: int = 0):
        self.pattern, self.flags = pattern, flags

    def __getattr__(self, name: str) -> Any:
        compiled = re.compile(self.pattern, self.flags)
        self.__dict__.update(match=compiled.match, fullmatch=compiled.fullmatch,
                             search=compiled.search, sub=compiled.sub, split=compiled.split,
                             finditer=compiled.finditer)
        return getattr(compiled, name)


def make_context(allow_unregistered: bool = False) -> Context:
    import tirx_mlir.dialects  # noqa: F401 - registers the core dialects

    ctx = Context(allow_unregistered=allow_unregistered)
    for name, factory in registry.dialects.items():
        if name not in ctx.registered_dialect_names:
            ctx.register_dialect(name, factory)
    return ctx


_OP_NAME = _LazyPattern(r'(?:%[^=]*=\s*)?"?([A-Za-z_][\w$.]*)')
"""The op name at the start of an op's text (after its results)."""


_UNDEFINED_VALUES = _LazyPattern(r"values used but not defined: \[(%[^,\]]+)")

_SUFFIX_ID = r"(?:[0-9]+|[a-zA-Z$._-][a-zA-Z0-9$._-]*)"
"""The lexer's suffix-id: what follows ``%`` in a value name (xDSL's ``MLIRLexer._suffix_id``)."""
_RESULT_LIST = _LazyPattern(rf"(?:%{_SUFFIX_ID}(?:\s*:\s*[0-9]+)?\s*,\s*)*%{_SUFFIX_ID}"
                          rf"(?:\s*:\s*[0-9]+)?\s*=")
_RESULT = _LazyPattern(rf"%({_SUFFIX_ID})(?:\s*:\s*([0-9]+))?")
_OP_START = (MLIRTokenKind.PERCENT_IDENT, MLIRTokenKind.BARE_IDENT, MLIRTokenKind.STRING_LIT)
"""The tokens an op starts with (xDSL's ``parse_optional_operation``)."""
_OP_START_CHARS = ("%", *"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")
"""What the text of an op created from a template starts with (a result or its name)."""
_SKIP_BLANK = _LazyPattern(r"(?://[^\n]*|\s+)*")
"""Whitespace and comments (what the lexer skips before a token)."""
_PLAIN_NAME = _LazyPattern(r"[A-Za-z_$.-][\w$.-]*")
"""A result name that is a valid name hint as it is (xDSL's ``SSAValue.is_valid_name``)."""
_USE = _LazyPattern(rf"%({_SUFFIX_ID})(?:#([0-9]+))?")
"""A value use in an op's text: its name and tuple index."""
_USE_OR_STRING = _LazyPattern(rf'"(?:[^"\\\n]|\\.)*"|//|{_USE.pattern}')
"""In an op's text: a string literal (kept), a comment, or a value use."""
_INT_CONSTANT = _LazyPattern(r"(\s*arith\.constant\s+)(-?[0-9]+)(\s*:)")
_ONE_RESULT = _LazyPattern(rf"%({_SUFFIX_ID})(?:\s*:\s*([0-9]+))?\s*=")
"""An op's result list of one name (the common case of `_RESULT_LIST`)."""
"""An integer constant's text: its literal is a slot of its template."""


def _text_end(content: str, pos: int) -> int:
    """End of the text before ``pos``, skipping whitespace and whole-line comments."""
    end = len(content[:pos].rstrip())
    while True:
        line_start = content.rfind("\n", 0, end) + 1
        if not content[line_start:end].lstrip().startswith("//"):
            return end
        end = len(content[:line_start].rstrip())


class _LinearTimeLexer(MLIRLexer):
    """xDSL 0.74's string-literal regex nests quantifiers (``(?:[^"...]+|...)*"``), so an
    unterminated string on a long line backtracks exponentially (tirx-opt hangs on a typo).
    The same pattern with possessive quantifiers accepts the same strings in linear time."""

    _unescaped_characters_regex = _LazyPattern(
        r'"(?:[^"\\\n\v\f]++|\\(?:["nt\\]|[0-9A-Fa-f]{2}))*+"')


_COMMON_TOKEN = _LazyPattern(
    r"(?://[^\n]*\n?|\s+)*"  # MLIRLexer's whitespace and comments
    r"(?:(?P<bare>[a-zA-Z_][a-zA-Z0-9_$.]*)|(?P<percent>%(?:[0-9]+|[a-zA-Z$._-][a-zA-Z0-9$._-]*))"
    r"|(?P<arrow>->)|(?P<punct>[:,()}\[\]<>=+*?|/-]|\{(?!-#)))?", re.ASCII)
"""The tokens most of a kernel is made of: a bare or %-identifier, ``->`` and one-character
punctuation, after whitespace and comments."""
_PUNCTUATION = {c: KIND_BY_PUNCTUATION_SPELLING[c] for c in ":,(){}[]<>=+*?|/-"}


class _CommonTokenLexer(_LinearTimeLexer):
    """xDSL's lexer with a one-regex path for the common tokens (the same tokens, spans and
    positions); everything else (numbers, strings, other identifiers, errors, the end of the
    input) is lexed by xDSL's."""

    def lex(self):
        m = _COMMON_TOKEN.match(self.input.content, self.pos)
        kind = m.lastgroup
        if kind is None:
            return super().lex()
        start, end = m.span(kind)
        self.pos = end
        if kind == "bare":
            kind = MLIRTokenKind.BARE_IDENT
        elif kind == "percent":
            kind = MLIRTokenKind.PERCENT_IDENT
        elif kind == "arrow":
            kind = MLIRTokenKind.ARROW
        else:
            kind = _PUNCTUATION[self.input.content[start]]
        return Token(kind, Span(start, end, self.input))


_CLOSING = {")": "(", "]": "[", "}": "{", ">": "<"}


class _NestingLimitLexer(_CommonTokenLexer):
    """Refuses text nested deeper than `MAX_NESTING_DEPTH` brackets, at the bracket that is one
    too many, so that no stage recurses deeper than that (see `tirx_mlir.nesting`).

    The open brackets are a stack of (position, bracket). ``<`` is a bracket for types and
    attributes but may also be a comparison, so an unmatched ``<`` is dropped when the enclosing
    ``)``, ``]`` or ``}`` closes. The parser sometimes moves the lexer: back (backtracking: the
    brackets at or after the new position are forgotten, they will be lexed again) or forward
    over the balanced body of a dialect attribute (a skip that ends after its ``>`` closes the
    ``<`` the body started with)."""

    def __init__(self, input: Input):
        super().__init__(input)
        self._open: list[tuple[int, str]] = []
        self._last_end = 0

    def lex(self):
        if self.pos != self._last_end:
            self._moved(self.pos)
        token = super().lex()
        self._last_end = self.pos
        start = token.span.start
        if start < self.input.len:
            char = self.input.content[start]
            if char in "([{<":
                self._push(start, char, token)
            elif char in ")]}>" and self.pos == start + 1:
                self._pop(char)
        return token

    def _moved(self, pos: int) -> None:
        stack = self._open
        while stack and stack[-1][0] >= pos:
            stack.pop()
        if pos > self._last_end and self.input.content[pos - 1] == ">" and stack \
                and stack[-1][1] == "<":
            stack.pop()

    def _push(self, start: int, char: str, token) -> None:
        stack = self._open
        while stack and stack[-1][0] >= start:
            stack.pop()
        stack.append((start, char))
        if len(stack) > MAX_NESTING_DEPTH:
            raise ParseError(token.span, f"the input nests more than {MAX_NESTING_DEPTH} "
                                         f"brackets deep here ((), [], {{}} and <> of regions, "
                                         f"attributes and types together); tirx_mlir accepts "
                                         f"at most {MAX_NESTING_DEPTH} levels")

    def _pop(self, char: str) -> None:
        stack, opening = self._open, _CLOSING[char]
        if char != ">":
            while stack and stack[-1][1] == "<":
                stack.pop()
        if stack and stack[-1][1] == opening:
            stack.pop()


class _OpLine(NamedTuple):
    """An op's line: its template key, its results ``(name, size, start, end)``, the distinct
    values its text uses (in the order of their first use) and where its text ends."""

    key: tuple
    results: list[tuple[str, int, int, int]]
    values: list[SSAValue]
    end: int
    literal: int | None
    """An integer constant's value (its text has ``#`` in its place)."""
    uses: int
    """How many value uses the text has (``values`` holds each distinct value once)."""


def _plain_op_fields() -> frozenset[str]:
    probe = UnrealizedConversionCastOp.create()
    if probe.parent is not None:  # an open ImplicitBuilder inserts every op created under it
        probe.detach()
    return frozenset(vars(probe))


_PLAIN_OP_FIELDS = _plain_op_fields()
"""The instance fields `Operation.create` gives an op with no state of its own."""

_SHARED_LIMIT = 8192
"""At most this many templates (and as many attribute texts) are kept per context signature;
past it they are dropped and built again."""
_shared: dict[tuple, tuple[dict, dict]] = {}
"""Per context signature (`_signature`): the op templates and the parsed dialect attributes of
earlier parses (both are functions of their key and the context's dialects only, as long as
the input defines no alias: `LocatedParser._parse_alias_def`)."""


def _signature(ctx: Context) -> tuple:
    """What the parse of one op's text reads from ``ctx`` beyond that text: whether unregistered
    ops are allowed and which dialect (factory) each dialect name is registered with (xDSL
    registers every dialect, loaded ones included, in ``_registered_dialects``)."""
    return ctx.allow_unregistered, frozenset(ctx._registered_dialects.items())


def _shared_caches(ctx: Context) -> tuple[dict, dict]:
    key = _signature(ctx)
    caches = _shared.get(key)
    if caches is None or len(caches[0]) > _SHARED_LIMIT or len(caches[1]) > _SHARED_LIMIT:
        if len(_shared) >= 8:
            _shared.clear()
        caches = _shared[key] = ({}, {})
    return caches


def clear_shared_caches() -> None:
    """Forget every context's templates, parsed attributes and one-word types (the next parse
    starts cold: what a process's first parse of each op form costs)."""
    _shared.clear()
    _WORD_TYPES.clear()


_INT_ATTRS: dict[int, IntAttr] = {}
"""Line and column numbers as IntAttr (immutable values, shared by every location)."""


def _int_attr(value: int) -> IntAttr:
    attr = _INT_ATTRS.get(value)
    if attr is None:
        if len(_INT_ATTRS) > 1 << 16:
            _INT_ATTRS.clear()
        attr = _INT_ATTRS[value] = IntAttr(value)
    return attr


def file_line_col(filename: StringAttr, line: int, column: int) -> FileLineColLoc:
    """``FileLineColLoc(filename, IntAttr(line), IntAttr(column))`` without running its
    constructor's parameter checks again: its parameters are a StringAttr and two IntAttr by
    construction (the attribute is equal to, and hashes as, the one the constructor builds)."""
    loc = _NEW(FileLineColLoc)
    _SET(loc, "filename", filename)
    _SET(loc, "line", _int_attr(line))
    _SET(loc, "column", _int_attr(column))
    return loc


_NEW = object.__new__
_SET = object.__setattr__


_WORD_TYPES: dict[str, Attribute] = {}
"""Builtin types spelled as one bare word, by their word (immutable values, shared by every
parse; xDSL itself shares its float types)."""
_WORD_TYPE_CLASSES = (IndexType, IntegerType, *{type(t) for t in (
    Float16Type(), BFloat16Type(), Float32Type(), Float64Type())})


class LocatedParser(Parser):
    """A Parser that gives each op the file:line:col where its text starts."""

    def __init__(self, ctx: Context, text: str | bytes, name: str = "<input>", line_offset: int = 0):
        super().__init__(ctx, "", name)
        text = text.decode("utf-8") if isinstance(text, bytes) else text
        self._parser_state = ParserState(_NestingLimitLexer(Input(text, name)))
        content = self.lexer.input.content
        self._line_starts = [0]
        pos = content.find("\n")
        while pos != -1:
            self._line_starts.append(pos + 1)
            pos = content.find("\n", pos + 1)
        self._line_offset = line_offset
        self._filename = StringAttr(name)
        self._templates, self._attr_cache = _shared_caches(ctx)
        self._own_caches = False
        """Whether the caches are this parse's own (it defines an alias: `_parse_alias_def`)."""
        self._op_types: dict[str, type[Operation] | None] = {}
        """The class ``ctx`` gives each op name a template was used for (see `_from_template`)."""

    def _parse_alias_def(self) -> None:
        """xDSL's alias definition (``!t = i32``, ``#alias m = ...``); from then on a text may
        name what this input defines (``arith.constant 0 : !t``), which another input defines
        otherwise, so this parse's templates and attribute texts are its own (see
        `_shared_caches`): an alias cannot be redefined, so they stay valid within it."""
        super()._parse_alias_def()
        if not self._own_caches:
            self._templates, self._attr_cache = {}, {}
            self._own_caches = True

    def parse_operation(self) -> Operation:
        start = self._current_token.span.start
        try:
            line = self._op_line(start)
            op = None if line is None else self._from_template(line, start)
            if op is None:
                op = super().parse_operation()
                if line is not None:
                    self._record_template(op, line)
        except ParseError as err:
            self._blame_op_text(err, start)
            raise
        except (VerifyException, ValueError, OverflowError) as err:
            # a constraint checked while building the op, or a value the op cannot hold
            # (e.g. an integer out of range for i64)
            end = max(_text_end(self.lexer.input.content, self.pos), start + 1)
            name = _OP_NAME.match(self.lexer.input.content, start)
            what = f"'{name.group(1)}' op " if name else ""
            self.raise_error(f"{what}{err}", start, end)
        if isinstance(op.location, UnknownLoc):
            op.location = self._location(start)
        return op

    def _location(self, start: int) -> FileLineColLoc:
        """``loc("file":line:col)`` of the text at ``start``."""
        line = bisect.bisect_right(self._line_starts, start) - 1
        return file_line_col(self._filename, line + 1 + self._line_offset,
                             start - self._line_starts[line] + 1)

    # ---- one-line ops parsed once per distinct text ----
    # A kernel spells out many ops that differ only in their values' names (`%a = arith.addi
    # %x, %y : index`). The first op of each text (the line with every value name blanked,
    # under the same dialect stack, with the same operand types) is parsed by xDSL; the op it
    # gives is the template the next ones of that text are created from (the same class,
    # properties, attributes and result types; the operands in the order the template's
    # parser took them from the text). Only an op that is the whole of its line, with no region,
    # successor, location or comment, whose operands are the values its text names (all defined
    # before it), one per use, makes a template: its parse then depends on nothing but that
    # text, those types, which uses name the same value (`_OpLine.key` holds that pattern when
    # a value is named twice) and the context's dialects. Templates (and parsed dialect attributes)
    # are kept per context signature (`_signature`) across parses, as a table of the op forms
    # seen so far; an op is created from one only if the context still gives its name the
    # template's class. Attributes are immutable, so templates share them.

    def _op_line(self, start: int) -> _OpLine | None:
        """The op's line at ``start`` as a template key, its results and its uses' values;
        None when it cannot be templated (a comment, a value not yet defined)."""
        content = self.lexer.input.content
        eol = content.find("\n", start)
        if eol < 0:
            eol = len(content)
        results, body = [], start
        if content.startswith("%", start):
            one = _ONE_RESULT.match(content, start, eol)
            if one is not None:
                name, size = one.groups()
                results = [(name, int(size) if size else 1, start, start + 1 + len(name))]
                body = one.end()
            else:
                bound = _RESULT_LIST.match(content, start, eol)
                if bound is None:
                    return None
                body = bound.end()
                results = [(m.group(1), int(m.group(2) or 1), m.start(), m.start() + 1 +
                            len(m.group(1))) for m in _RESULT.finditer(content, start, body)]
        text = content[body:eol].rstrip()
        end = body + len(text)
        if '"' in text or "//" in text:  # a string may hold '%' or '//'
            uses, pieces, at = [], [], 0
            for m in _USE_OR_STRING.finditer(text):
                if m.group(1) is None:
                    if m.group(0) == "//":
                        return None
                    continue
                uses.append(m.groups())
                pieces.append(text[at:m.start()])
                at = m.end()
            pieces.append(text[at:])
            text = "%".join(pieces)
        else:
            pieces = _USE.split(text)  # text, name, index, text, name, index, ..., text
            uses = zip(pieces[1::3], pieces[2::3])
            text = "%".join(pieces[0::3])
        ssa_values, values, types = self.ssa_values, [], []
        first: dict[SSAValue, int] = {}  # each distinct value's place in `values`
        pattern = []  # per use, the place of its value: (0, 1, 0) for `%a, %b, %a`
        for name, index in uses:
            defined = ssa_values.get(name)
            index = int(index) if index else 0
            if defined is None or index >= len(defined):
                return None
            value = defined[index]
            types.append(value.type)
            at = first.get(value)
            if at is None:
                at = first[value] = len(values)
                values.append(value)
            pattern.append(at)
        literal = None
        if (constant := _INT_CONSTANT.match(text)) is not None:
            literal = int(constant.group(2))
            text = f"{constant.group(1)}#{text[constant.end(2):]}"
        repeats = tuple(pattern) if len(values) != len(pattern) else None
        key = (tuple(self._parser_state.dialect_stack), tuple(r[1] for r in results), text,
               literal is None, tuple(types), repeats)
        return _OpLine(key, results, values, end, literal, len(pattern))

    def _parse_block_body(self, block: Block) -> None:
        """xDSL's loop (the block's ops, up to the token that ends it), where a run of lines
        created from templates is read line by line without lexing between them: the lexer
        resumes where the run stops (each templated line is a whole op whose brackets balance,
        so the lexer's bracket stack is what lexing it would have left)."""
        content = self.lexer.input.content
        while self._current_token.kind in _OP_START:
            start = self._current_token.span.start
            moved = False
            while (line := self._op_line(start)) is not None and self._fresh_names(line):
                op = self._from_template(line, start, resume=False)
                if op is None:
                    break
                block.add_op(op)
                moved = True
                start = _SKIP_BLANK.match(content, line.end).end()
                if not content.startswith(_OP_START_CHARS, start):
                    break
            if moved:
                self._resume_from(start)
                continue
            block.add_op(self.parse_operation())

    def _fresh_names(self, line: _OpLine) -> bool:
        """Whether binding the line's results is plain registration (new, valid names)."""
        defined, forward = self.ssa_values, self.forward_ssa_references
        return all(name not in defined and name not in forward and _PLAIN_NAME.fullmatch(name)
                   for name, _, _, _ in line.results)

    def _from_template(self, line: _OpLine, start: int, resume: bool = True) -> Operation | None:
        template = self._templates.get(line.key)
        if template is None:
            return None
        op_type, order, result_types, properties, attributes, slot = template
        name = op_type.name
        known = self._op_types.get(name, False)
        if known is False:
            known = self._op_types[name] = self.ctx.get_optional_op(name)
        if known is not op_type:
            return None  # a context that gives the name another class (or none)
        if slot is not None:  # the integer literal: checked against its type as xDSL does
            properties = dict(properties)
            try:
                properties[slot] = IntegerAttr(line.literal, properties[slot].type)
            except (VerifyException, ValueError, OverflowError):
                return None  # the parser reports it
        values = line.values
        # create copies the properties and attributes dicts
        op = op_type.create(operands=[values[i] for i in order], result_types=result_types,
                            properties=properties, attributes=attributes,
                            location=self._location(start))
        self._bind_results(op, line)
        if resume:
            self._resume_from(line.end)
        return op

    def _bind_results(self, op: Operation, line: _OpLine) -> None:
        """As xDSL's parse_operation: the results' names (and forward references) bound."""
        at = 0
        defined, forward = self.ssa_values, self.forward_ssa_references
        for name, size, start, end in line.results:
            values = op.results[at:at + size]
            at += size
            if name in defined or name in forward or not _PLAIN_NAME.fullmatch(name):
                self._register_ssa_definition(name, values, Span(start, end, self.lexer.input))
                continue
            defined[name] = tuple(values)  # what xDSL's registration does for a new name
            for value in values:
                value.name_hint = name

    def _record_template(self, op: Operation, line: _OpLine) -> None:
        if op.regions or op.successors or not isinstance(op.location, UnknownLoc) \
                or isinstance(op, UnregisteredOp) or line.key in self._templates:
            return
        if _text_end(self.lexer.input.content, self._current_token.span.start) != line.end:
            return  # the op does not end with its line
        position = {v: i for i, v in enumerate(line.values)}
        order = [position.get(v) for v in op.operands]
        if len(order) != line.uses or None in order or len(set(order)) != len(line.values):
            return  # its operands are not one per use of the values its text names
        if vars(op).keys() != _PLAIN_OP_FIELDS:
            return  # an op class with state of its own
        if self.ctx.get_optional_op(op.name) is not type(op):
            return  # not the class the context registers under its name
        slot = None
        if line.literal is not None:
            slots = [k for k, v in op.properties.items()
                     if isinstance(v, IntegerAttr) and v.value.data == line.literal]
            if len(slots) != 1:
                return
            slot = slots[0]
        self._templates[line.key] = (type(op), order, tuple(r.type for r in op.results),
                                     dict(op.properties), dict(op.attributes), slot)

    def parse_module(self, allow_implicit_module: bool = True) -> ModuleOp:
        """Parse the whole input; then check that every value dominates its uses (xDSL's parser
        resolves a use before the definition as a forward reference), so that no later stage
        meets a value that is not defined where it is used."""
        ensure_stack_headroom()
        try:
            module = super().parse_module(allow_implicit_module)
        except ParseError as err:
            self._blame_first_use(err)
            raise
        except RecursionError:  # a recursive production without brackets, e.g. `- - - d0`
            self.raise_error(f"the input nests too deeply here to be parsed; tirx_mlir accepts "
                             f"at most {MAX_NESTING_DEPTH} levels of nesting")
        try:
            check_dominance(module)
        except DominanceError as err:
            raise ParseError(self._span_at(err.op, err.name),
                             f"'{err.op.name}' op {err.message}") \
                from None
        self._check_targets(module)
        return module

    def _check_targets(self, module: ModuleOp) -> None:
        """Every ``target "..."`` of a kernel names a valid target whose thread limit the launch
        keeps (a located error otherwise, so no later stage meets a target it cannot read)."""
        for op in find_ops(module, _is_kernel):
            target = op.properties.get("target")
            if target is None:
                continue
            from tirx_mlir.target.target import target_error, thread_limit_error

            message = target_error(target.data)
            if message is not None:
                raise ParseError(self._span_at(op, None), f"'{op.name}' op @{op.sym_name.data} "
                                                          f"has an invalid target: {message}")
            message = thread_limit_error(op, target.data)
            if message is not None:
                raise ParseError(self._span_at(op, None), f"'{op.name}' op @{op.sym_name.data}: "
                                                          f"{message}")

    def _span_at(self, op: Operation, name: str | None) -> Span:
        """The span of ``name`` (a value's name) in the text of ``op`` (else the op)."""
        content = self.lexer.input.content
        loc = op.location
        line = loc.line.data - self._line_offset - 1 if isinstance(loc, FileLineColLoc) else -1
        if line < 0 or line >= len(self._line_starts) or loc.filename != self._filename:
            return Span(0, 0, self.lexer.input)  # an op with an explicit loc() elsewhere
        start = min(self._line_starts[line] + loc.column.data - 1, len(content))
        end = content.find("\n", start)
        end = len(content) if end < 0 else end
        if name:
            use = re.compile(re.escape(name) + r"(?![\w$.-])").search(content, start, end)
            if use is not None:
                return Span(use.start(), use.end(), self.lexer.input)
        return Span(start, max(start + 1, _text_end(content, end)), self.lexer.input)

    def parse_optional_type(self):
        """As xDSL's; a type written as one word (``index``, ``i32``, ``f16``...) is looked up
        by its word (`_WORD_TYPES`: the type xDSL parsed from that word before)."""
        token = self._current_token
        if token.kind == MLIRTokenKind.BARE_IDENT:
            word = token.text
            known = _WORD_TYPES.get(word)
            if known is not None:
                self._consume_token()
                return known
            parsed = super().parse_optional_type()
            if isinstance(parsed, _WORD_TYPE_CLASSES):  # xDSL read that one word
                _WORD_TYPES[word] = parsed
            return parsed
        return super().parse_optional_type()

    def resolve_operand(self, operand: UnresolvedOperand, type: Attribute) -> SSAValue:
        """As xDSL's, and a forward reference keeps its name, for `check_dominance`'s errors."""
        value = super().resolve_operand(operand, type)
        if value.name_hint is None and SSAValue.is_valid_name(operand.operand_name):
            value.name_hint = operand.operand_name
        return value

    def parse_affine_map(self) -> AffineMap:
        return _AffineOnlyParser(self._parser_state).parse_affine_map()

    def parse_affine_set(self) -> AffineSet:
        return _AffineOnlyParser(self._parser_state).parse_affine_set()

    def parse_affine_map_of_ssa_ids(self):
        affine_map, spans = _AffineOnlyParser(self._parser_state).parse_affine_map_of_ssa_ids()
        return affine_map, [self.resolve_operand(UnresolvedOperand(span, 0), IndexType())
                            for span in spans]

    def _blame_first_use(self, err: ParseError) -> None:
        """xDSL reports values used but never defined at the end of the input; point at the
        first use instead."""
        m = _UNDEFINED_VALUES.match(err.msg)
        if m is None:
            return
        content = self.lexer.input.content
        for use in re.finditer(re.escape(m.group(1)) + r"(?![\w$.-])", content):
            line_start = content.rfind("\n", 0, use.start()) + 1
            if "//" not in content[line_start:use.start()]:  # not in a comment
                err.span = Span(use.start(), use.end(), self.lexer.input)
                return

    def _blame_op_text(self, err: ParseError, start: int) -> None:
        """An error raised after an op's text was fully read (e.g. a type constraint of its
        custom format) points at the next line's token; point it at the op instead. Only the
        innermost op sees an error first, so only it may move the error."""
        if getattr(err, "_tirx_seen", False):
            return
        err._tirx_seen = True  # type: ignore[attr-defined]
        content = self.lexer.input.content
        end = _text_end(content, err.span.start)
        if err.span.start == self.pos and start < end and "\n" in content[end:err.span.start]:
            err.span = Span(start, end, self.lexer.input)

    def _get_op_by_name(self, name: str) -> type[Operation]:
        """Point an unknown-op error at the op's name (xDSL points at the token after it)."""
        op_type = self.ctx.get_optional_op(name, dialect_stack=self._parser_state.dialect_stack)
        if op_type is not None:
            return op_type
        end = self._current_token.span.start
        at = self.lexer.input.content.rfind(name, 0, end)
        if at < 0:
            self.raise_error(f"Operation {name} is not registered")
        self.raise_error(f"Operation {name} is not registered", at, at + len(name))

    def _attr_cache_key(self, attr_name: str, is_type: bool) -> tuple[tuple, int] | None:
        """(cache key, position of the closing '>') for a ``dialect.name<...>`` body.

        Attributes are immutable values, and a kernel repeats the same buffer types on every
        op, so each distinct text is parsed (and verified) once per parse."""
        if "." not in attr_name or self._current_token.kind != MLIRTokenKind.LESS:
            return None
        body_start = self._current_token.span.end
        try:
            end = self._raw_scan_balanced(body_start)
        except ParseError:  # let the real parser report it
            return None
        return (attr_name, is_type, self.lexer.input.content[body_start:end]), end

    def _parse_dialect_type_or_attribute_body(self, attr_name: str, is_type: bool,
                                              is_opaque: bool, starting_opaque_pos):
        """Report a type or attribute whose verifier rejects it as a parse error at its text
        (xDSL raises a bare VerifyException without a location)."""
        content = self.lexer.input.content
        key = self._attr_cache_key(attr_name, is_type)
        if key is not None and (cached := self._attr_cache.get(key[0])) is not None:
            self._resume_from(key[1] + 1)  # past the closing '>'
            return cached
        start = self._current_token.span.start
        name_at = content.rfind(attr_name, 0, start)
        start = name_at - 1 if name_at > 0 else start
        try:
            attr = super()._parse_dialect_type_or_attribute_body(attr_name, is_type, is_opaque,
                                                                 starting_opaque_pos)
            if key is not None:
                self._attr_cache[key[0]] = attr
            return attr
        except VerifyException as err:
            kind = "type !" if is_type else "attribute #"
            end = max(_text_end(content, self.pos), start + 1)
            self.raise_error(f"invalid {kind}{attr_name}: {err}", start, end)


class _AffineOnlyParser(AffineParser):
    """xDSL's affine parser raises NotImplementedError for a semi-affine expression (a product
    of two dimensions, a division or modulo by a dimension); report it at the operator."""

    def _create_binop_expr(self, lhs: AffineExpr, rhs: AffineExpr, binop) -> AffineExpr:
        try:
            return super()._create_binop_expr(lhs, rhs, binop)
        except NotImplementedError:
            op = binop.text
            raise ParseError(binop.span, f"'{lhs} {op} {rhs}' is not affine: the right-hand side "
                                         f"of '{op}' must be an integer constant (an affine "
                                         f"expression adds dimensions, symbols and constants, "
                                         f"and multiplies, divides (floordiv, ceildiv) or takes "
                                         f"the modulo (mod) only by constants)") from None


def parse_module(text: str | bytes, name: str = "<input>", ctx: Context | None = None,
                 line_offset: int = 0) -> ModuleOp:
    """Parse MLIR text (custom or generic form) into a module with source locations.

    Raises xdsl's ParseError (which prints file:line:col) on malformed input, on input nested
    deeper than `tirx_mlir.nesting.MAX_NESTING_DEPTH`, and on a value used where its definition
    does not dominate the use. Does not run the ops' verifiers.
    """
    ctx = ctx or make_context()
    return LocatedParser(ctx, text, name, line_offset).parse_module()


def _utf8_file(path: str) -> str:
    """The text of the file at ``path``; bytes that are not UTF-8 are a `TirxError` naming
    their line and column (``tirx_mlir.compile(path)`` raised UnicodeDecodeError)."""
    from tirx_mlir.diagnostics import TirxError

    with open(path, "rb") as f:
        data = f.read()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        col = err.start - (data.rfind(b"\n", 0, err.start) + 1) + 1
        raise TirxError(f"{path}:{line}:{col}: the input is not UTF-8 text ({err.reason} at "
                        f"byte {err.start})") from None


def as_module(value: Any, what: str) -> ModuleOp:
    """A fresh module from IR text, a ``.mlir`` path, a module, a kernel op or a builder (a
    ``tirx_mlir.script`` kernel); ``what`` (``"compile"``) names the caller in the error."""
    from tirx_mlir.diagnostics import TirxError

    if isinstance(value, os.PathLike) or isinstance(value, str) and "\n" not in value \
            and value.endswith(".mlir") and os.path.isfile(value):
        return parse_module(_utf8_file(os.fspath(value)), os.fspath(value))
    if isinstance(value, str):
        return parse_module(value, "<input>")
    module = getattr(value, "module", value)  # a tirx_mlir.script kernel builder
    if not isinstance(module, ModuleOp) and hasattr(module, "parent_op"):
        while module is not None and not isinstance(module, ModuleOp):
            module = module.parent_op()
    if not isinstance(module, ModuleOp):
        raise TirxError(f"{what}: cannot take a {type(value).__name__}; give IR text, a "
                        f".mlir path, a ModuleOp, a tirx.kernel op or a script kernel")
    return module.clone()


def _is_kernel(op: Operation) -> bool:
    """Whether ``op`` is a ``tirx.kernel`` (by name: the parser does not import the dialect)."""
    return op.name == "tirx.kernel"
