"""Named pass pipelines, and building pipelines from passes in Python.

A pipeline is an ordered list of configured pass instances. Backends register named ones with a
factory that takes options::

    register_pipeline("trn", lambda target="aws/trn1/trn1.2xlarge": [...passes...])
    get_pipeline("trn", target="aws/trn2/trn2.48xlarge").apply(module)

and any pipeline can be built by hand, from pass instances, pass classes with options, or
``-p``-style text::

    Pipeline.from_passes(TileDispatchPass(target="nvidia/nvidia-h100"), "cse",
                         (DeadCodeElimination, {}))
    Pipeline.parse("tirx-dispatch{target=nvidia/nvidia-h100},cse")

`Pipeline.apply` runs it (verifying after each pass, calling a callback between passes),
`Pipeline.snapshots` returns the IR after every pass, and `Pipeline.spec` prints the equivalent
``tirx-opt -p`` string, so any run can be replayed pass by pass.
"""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass, field
from typing import IO, Any, Callable, Iterator, Sequence

from typing import TYPE_CHECKING

from tirx_mlir import registry
from tirx_mlir.gc_pause import collector_paused

if TYPE_CHECKING:  # xDSL is imported when a pipeline is built, not when one is registered
    from xdsl.context import Context
    from xdsl.dialects.builtin import ModuleOp
    from xdsl.passes import ModulePass

    from tirx_mlir.verification import ModuleVerifier

_error_class: type | None = None


def _pipeline_error() -> type:
    """`PipelineError` (a TirxError), made on first use so registering imports no xDSL."""
    global _error_class
    if _error_class is None:
        from tirx_mlir.diagnostics import TirxError

        class PipelineError(TirxError):
            """A pipeline that cannot be built: unknown name, pass or option."""

        PipelineError.__module__ = __name__
        PipelineError.__qualname__ = "PipelineError"
        _error_class = PipelineError
    return _error_class


def __getattr__(name: str) -> Any:
    if name == "PipelineError":
        return _pipeline_error()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass(frozen=True)
class PipelineEntry:
    factory: Callable[..., Sequence[ModulePass]]
    doc: str = ""
    tile_level_only: bool = False
    """The pipeline only lowers tile primitives: IR without any is already at the level the
    printers take (`tirx_mlir.compile` then compiles it as it is)."""

    def options(self) -> dict[str, Any]:
        """``{option: default}`` the factory accepts (``...`` for a required one)."""
        return dict(_signature_of(self.factory)[0])

    def takes_any_option(self) -> bool:
        return _signature_of(self.factory)[1]


_signatures: dict[Callable, tuple[dict[str, Any], bool]] = {}


def _signature_of(factory: Callable) -> tuple[dict[str, Any], bool]:
    """A factory's ``({option: default}, takes **options)``, read once per factory
    (``inspect.signature`` costs ~20 us, and a compile asked it two or three times)."""
    known = _signatures.get(factory)
    if known is None:
        params = inspect.signature(factory).parameters.values()
        known = _signatures[factory] = (
            {p.name: (... if p.default is inspect.Parameter.empty else p.default)
             for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)},
            any(p.kind is p.VAR_KEYWORD for p in params))
    return known


pipelines: registry.Registry[PipelineEntry] = registry.Registry("pipeline")


def register_pipeline(name: str, factory: Callable[..., Sequence[ModulePass]], *, doc: str = "",
                      tile_level_only: bool = False, override: bool = False) -> None:
    """Register ``factory(**options) -> [pass instances]`` under ``name`` (``tile_level_only``:
    `PipelineEntry.tile_level_only`)."""
    pipelines.register(name, PipelineEntry(factory, doc or (factory.__doc__ or "").strip()
                                           .split("\n")[0], tile_level_only),
                       override=override)


def is_tile_level_only(name: str) -> bool:
    """Whether pipeline ``name`` only lowers tile primitives (False for an unknown name)."""
    entry = pipelines.get(name)
    return entry is not None and entry.tile_level_only


def list_pipelines() -> dict[str, str]:
    """``{name: one-line description}``."""
    return {name: entry.doc for name, entry in sorted(pipelines.items())}


def pipeline_options(name: str) -> dict[str, Any]:
    """The options of pipeline ``name`` and their defaults."""
    return _entry(name).options()


def _entry(name: str) -> PipelineEntry:
    try:
        return pipelines.lookup(name)
    except registry.RegistryError as err:
        raise _pipeline_error()(str(err), hint="load the backend that provides it, or see "
                                           "tirx_mlir.list_pipelines()") from None


def available_passes() -> dict[str, Callable[[], type[ModulePass]]]:
    """Pass name -> factory of its class: xDSL's passes and every registered one."""
    from xdsl.transforms import get_all_passes

    import tirx_mlir.transforms  # noqa: F401 - registers the core passes

    return {**get_all_passes(), **dict(registry.passes.items())}


@dataclass
class Pipeline:
    """A configured pipeline: an ordered list of pass instances."""

    name: str
    passes: list[ModulePass] = field(default_factory=list)

    # ---- building ----
    @classmethod
    def from_passes(cls, *items: "ModulePass | type[ModulePass] | str | tuple", name: str = "custom"
                    ) -> "Pipeline":
        """A pipeline from pass instances, pass classes (default options), ``(class, {options})``
        pairs, or ``-p``-style text (``"cse"``, ``"tirx-dispatch{target=...}"``)."""
        from xdsl.passes import ModulePass

        passes: list[ModulePass] = []
        for item in items:
            if isinstance(item, ModulePass):
                passes.append(item)
            elif isinstance(item, str):
                passes += cls.parse(item).passes
            elif isinstance(item, tuple) and len(item) == 2:
                passes.append(_instantiate(item[0], dict(item[1])))
            elif isinstance(item, type) and issubclass(item, ModulePass):
                passes.append(_instantiate(item, {}))
            else:
                raise _pipeline_error()(f"cannot make a pass from {item!r}; give a pass instance, a "
                                    f"pass class, (class, {{options}}) or a pass spec string")
        return cls(name, passes)

    @classmethod
    def parse(cls, spec: str, name: str = "custom") -> "Pipeline":
        """A pipeline from ``-p`` text: ``"tirx-dispatch{target=nvidia/nvidia-h100},cse"``."""
        from xdsl.passes import PassPipeline
        from xdsl.utils.exceptions import ArgSpecParseError

        available = available_passes()
        try:
            parsed = PassPipeline.parse_spec(available, spec)
            check_unique_options(spec)
        except ArgSpecParseError as err:  # a BaseException in xDSL
            raise _pipeline_error()(f"malformed pass pipeline '{spec}': {err}") from None
        except (ValueError, TypeError) as err:
            raise _pipeline_error()(f"bad pass pipeline '{spec}': {err}",
                                hint="tirx-opt --list-passes shows the passes") from None
        return cls(name, list(parsed.passes))

    def __add__(self, other: "Pipeline") -> "Pipeline":
        return Pipeline(f"{self.name}+{other.name}", [*self.passes, *other.passes])

    def __iter__(self) -> Iterator[ModulePass]:
        return iter(self.passes)

    def __len__(self) -> int:
        return len(self.passes)

    def spec(self) -> str:
        """The equivalent ``tirx-opt -p`` string."""
        return ",".join(str(p.pipeline_pass_spec()) for p in self.passes)

    def pass_names(self) -> list[str]:
        return [p.name for p in self.passes]

    # ---- running ----
    def apply(self, module: ModuleOp, ctx: Context | None = None, *,
              verify: "bool | Callable[[ModulePass, ModuleOp], None]" = True,
              callback: Callable[[ModulePass, ModuleOp], None] | None = None,
              print_between: IO[str] | None = None,
              on_error: Callable[[ModulePass, Exception], None] | None = None,
              verifier: "ModuleVerifier | None" = None) -> ModuleOp:
        """Run every pass on ``module`` in place.

        Verifies after each pass that may change the IR (not after one that `preserves_ir`, as
        MLIR's pass manager skips a pass that preserved all analyses, nor after one that left
        the IR as it was: `_Unchanged`) unless ``verify=False``; a function given as ``verify``
        is called then, as ``verify(pass, module)``, instead of the verifier's ``check``
        (``tirx-opt``: a located, timed verification); ``callback(pass, module)`` runs after
        each pass (to inspect the IR between passes); ``print_between`` receives the IR after
        each pass, like ``tirx-opt --print-between-passes``. An error raised by a pass or by the
        verifier carries a note naming the pass; ``on_error(pass, error)`` sees it first and may
        raise its own error instead (``tirx-opt`` turns it into a located report). The
        ``verifier`` (a `tirx_mlir.verification.ModuleVerifier`, made here when not given) runs
        each pass, so that a pass reporting its changes is verified only where it changed the
        IR, by this loop or by the ``verify`` function (``tirx-opt``'s ``verify_located``).

        A verifier made here lives only as long as the passes run: its memos (a key and a
        fingerprint per op) are freed before the collector resumes, so the young-generation
        collection that follows the pause does not scan them (`gc_pause`; bench/README.md).
        """
        from tirx_mlir.verification import ModuleVerifier

        if ctx is None:
            from tirx_mlir.located_parser import make_context

            ctx = make_context()
        with collector_paused():
            self._run(module, ctx, verify, callback, print_between, on_error,
                      ModuleVerifier() if verifier is None else verifier)
        return module

    def _run(self, module: ModuleOp, ctx: Context, verify,
             callback: Callable[[ModulePass, ModuleOp], None] | None,
             print_between: IO[str] | None,
             on_error: Callable[[ModulePass, Exception], None] | None,
             verifier: "ModuleVerifier") -> None:
        from tirx_mlir.changes import forget_closed

        unchanged = _Unchanged(module, getattr(verifier, "audit", False) or
                               getattr(verifier, "compare", False) or
                               getattr(verifier, "VERIFY_EVERY_PASS", False))
        try:
            for index, p in enumerate(self.passes):
                self._step(index, p, module, ctx, verify, callback, print_between, on_error,
                           verifier, unchanged)
        finally:
            forget_closed()  # the last log names ops (erased ones too): not kept after the run

    def _step(self, index: int, p: ModulePass, module: ModuleOp, ctx: Context, verify,
              callback, print_between, on_error, verifier: "ModuleVerifier",
              unchanged: "_Unchanged") -> None:
        """Run pass ``p`` (unless `_Unchanged.may_skip`) and verify after it (unless it left the
        IR as it was: `_Unchanged.saw`)."""
        if not unchanged.may_skip(p):
            try:
                changed = unchanged.saw(p, verifier.run_pass, ctx)
                if verify and changed and not preserves_ir(p):
                    verify(p, module) if callable(verify) else verifier.check(module)
                    unchanged.verified = True
            except Exception as err:
                err.add_note(f"in pass '{p.name}' (#{index + 1} of pipeline "
                             f"'{self.name}': {self.spec()})")
                if on_error is not None:
                    on_error(p, err)
                raise
        if print_between is not None:
            print_between.write(f"// -----// IR after {p.name} //----- //\n{module}\n")
        if callback is not None:
            callback(p, module)

    def snapshots(self, module: ModuleOp, ctx: Context | None = None) -> list[tuple[str, ModuleOp]]:
        """Run on a clone and return ``[(pass name, IR after it)]``, starting with ("input", ...)."""
        work = module.clone()
        shots = [("input", work.clone())]
        self.apply(work, ctx, callback=lambda p, m: shots.append((p.name, m.clone())))
        return shots


class _Unchanged:
    """What one run of a pipeline knows of passes that left the IR as it was, from their
    change reports (`tirx_mlir.changes`): a pass that states ``REPORTS_CHANGES`` and reported
    nothing changed nothing (`ChangeLog.empty`), so the IR after it is the IR the last
    verification checked and it is not verified again, as MLIR's pass manager does not verify
    after a pass that preserved everything. And a pass that states ``DETERMINISTIC`` (what it
    changes depends on nothing but the IR and its options) changes nothing when it runs again,
    with equal options, on the IR it last ran on and left as it was: `may_skip` says so, and
    the pipeline then goes on without running it (its callback still sees the IR, the same).

    Neither holds after a pass that does not report, nor while the module holds a region of
    several blocks: xDSL erases an unreachable block without telling a listener, so an empty
    report there does not prove the IR unchanged (looked for after the pass, once after each
    pass that changed the IR, when an empty report is next relied on: 0.5 ms a walk on
    flash_attention_sm80, so not before every pass as well). A pass that erased the last extra
    block of a region is therefore taken at its empty report: the IR it leaves is valid (an
    unreachable block dominates no reachable use), and what it can cost is a deterministic pass
    not run again on the IR after the erasure (a ``dce`` skipped included: dead ops it would
    have erased stay, valid, until a later cleanup). Nor is a pass left unverified before the
    pipeline's first verification: the input itself has not been checked yet (`verified`).
    Under the verifier's audit or comparison (``TIRX_VERIFY_AUDIT``, ``TIRX_VERIFY_COMPARE``),
    or with a verifier whose class states ``VERIFY_EVERY_PASS`` (bench/verify_designs.py: every
    design sees the same passes), every pass runs and is verified after, as before.

    It also knows when the IR holds no dead op (`dead_free`): a pass stating
    ``LEAVES_NO_DEAD_OPS`` leaves none (``canonicalize``: it ends with a region DCE that found
    nothing), one stating ``KEEPS_NO_DEAD_OPS`` makes none (``cse``: it erases an op only for
    an equal one that reads the same values, and an unused op only where it is dead, of
    which there is then none) and neither does a pass that changed nothing; any other pass
    may. A pass stating ``ONLY_ERASES_DEAD_OPS`` (``dce``, the same region DCE) changes
    nothing on such IR, so `may_skip` says to go on without it (the cuda pipeline's three
    ``dce`` runs follow a ``canonicalize`` and a ``cse``)."""

    __slots__ = ("module", "verify_all", "verified", "clean", "multi_block", "dead_free")

    def __init__(self, module: ModuleOp, verify_all: bool) -> None:
        self.module = module
        self.verify_all = verify_all
        self.verified = False
        """Whether this run verified the module yet (the input is not known to be valid before)."""
        self.clean: list[ModulePass] = []
        """The deterministic passes that ran on the IR as it is now and left it so."""
        self.multi_block: bool | None = None
        """Whether the module holds a region of several blocks (None: not looked at since the
        IR last changed)."""
        self.dead_free = False
        """Whether the IR is known to hold no op the ``dce`` would erase."""

    def _single_blocks(self) -> bool:
        if self.multi_block is None:
            from tirx_mlir.ir_walk import has_multi_block_region

            self.multi_block = has_multi_block_region(self.module)
        return not self.multi_block

    def may_skip(self, p: ModulePass) -> bool:
        """``p`` is deterministic and already ran on this IR without changing it, or it only
        erases dead ops and the IR holds none."""
        if self.verify_all:
            return False
        if self.dead_free and getattr(p, "ONLY_ERASES_DEAD_OPS", False):
            return True
        return getattr(p, "DETERMINISTIC", False) and \
            any(type(q) is type(p) and q == p for q in self.clean)

    def saw(self, p: ModulePass, run: Callable, ctx: Context) -> bool:
        """``run(p, ctx, module)`` (the verifier's `run_pass`); whether ``p`` may have changed
        the IR."""
        from tirx_mlir.changes import forget_closed, last_closed, reports_changes

        forget_closed()
        run(p, ctx, self.module)
        if preserves_ir(p):
            return False
        log = last_closed() if reports_changes(p) else None
        if getattr(p, "LEAVES_NO_DEAD_OPS", False):
            self.dead_free = True
        if log is not None and log.empty and self._single_blocks():
            if getattr(p, "DETERMINISTIC", False):
                self.clean.append(p)
            return self.verify_all or not self.verified
        if not getattr(p, "LEAVES_NO_DEAD_OPS", False) and \
                not getattr(p, "KEEPS_NO_DEAD_OPS", False):
            self.dead_free = False
        self.clean.clear()
        self.multi_block = None
        return True


def preserves_ir(p: ModulePass) -> bool:
    """Whether pass ``p`` only reads the IR (an analysis or a check, declared by the class
    attribute ``PRESERVES_IR = True``): the IR after it is the IR before, so it is not verified
    again."""
    return bool(getattr(p, "PRESERVES_IR", False))


def _instantiate(pass_class: Any, options: dict[str, Any]) -> ModulePass:
    from xdsl.passes import ModulePass

    if isinstance(pass_class, str):
        factory = available_passes().get(pass_class)
        if factory is None:
            raise _pipeline_error()(f"unknown pass '{pass_class}'",
                                hint="tirx-opt --list-passes shows the passes")
        pass_class = factory()
    if not (isinstance(pass_class, type) and issubclass(pass_class, ModulePass)):
        raise _pipeline_error()(f"{pass_class!r} is not a ModulePass subclass")
    try:
        return pass_class(**options)
    except TypeError as err:
        from xdsl.passes import get_pass_option_infos

        allowed = ", ".join(info[0] for info in get_pass_option_infos(pass_class)) or "(none)"
        raise _pipeline_error()(f"pass '{pass_class.name}' rejects options {options}: {err}; its "
                            f"options are: {allowed}") from None


def get_pipeline(name: str, **options: Any) -> Pipeline:
    """Build the registered pipeline ``name`` with ``options``.

    An unknown name lists the registered pipelines; an unknown option lists the pipeline's
    options.
    """
    entry = _entry(name)
    accepted = entry.options()
    unknown = [k for k in options if k not in accepted]
    if unknown and not entry.takes_any_option():
        raise _pipeline_error()(
            f"pipeline '{name}' has no option {', '.join(repr(u) for u in unknown)}; its options "
            f"are: {', '.join(f'{k}={v!r}' for k, v in accepted.items()) or '(none)'}")
    return Pipeline(name, list(entry.factory(**options)))


_PLAIN_VALUE = re.compile(r"[A-Za-z0-9_.+-]*")


def quote_option_values(text: str) -> str:
    """Option values that xDSL's spec lexer would split (``aws/trn2/trn2.48xlarge``, ``cuda
    -arch=sm_90a``) quoted: ``trn{target=aws/trn2/x}`` -> ``trn{target="aws/trn2/x"}``. Quoted
    values and plain words are left as they are."""
    out, i, depth = [], 0, 0
    while i < len(text):
        ch = text[i]
        if ch == '"':
            j = text.index('"', i + 1) + 1 if '"' in text[i + 1:] else len(text)
            out.append(text[i:j])
            i = j
            continue
        depth += ch == "{"
        depth -= ch == "}"
        out.append(ch)
        i += 1
        if ch == "=" and depth > 0 and i < len(text) and text[i] != '"':
            j = i  # an unquoted value runs to the next space or closing brace
            while j < len(text) and text[j] not in "} ":
                j += 1
            value = text[i:j]
            out.append(value if _PLAIN_VALUE.fullmatch(value) else f'"{value}"')
            i = j
    return "".join(out)


def split_top_level(text: str) -> list[str]:
    """``"a{x=1,y=2},b(c,d),e"`` -> ["a{x=1,y=2}", "b(c,d)", "e"]: commas outside braces,
    parentheses and quotes."""
    parts, depth, quoted, start = [], 0, False, 0
    for i, ch in enumerate(text):
        if ch == '"':
            quoted = not quoted
        elif not quoted and ch in "{(":
            depth += 1
        elif not quoted and ch in "})":
            depth -= 1
        elif not quoted and not depth and ch == ",":
            parts.append(text[start:i].strip())
            start = i + 1
    parts.append(text[start:].strip())
    return [p for p in parts if p]


def pipeline_items(text: str) -> list[str]:
    """The pass and pipeline references of a ``--pass-pipeline`` text: a registered name
    (``trn{max_inst_size=256}``), a ``-p`` list, or MLIR's textual form
    ``builtin.module(canonicalize,cse)`` (the anchor dropped: every pass here is a module
    pass). Option values are quoted where xDSL's lexer needs it (`quote_option_values`)."""
    text = text.strip()
    m = re.fullmatch(r"builtin\.module\((.*)\)", text, re.S)
    if m is not None:
        text = m.group(1)
    return [quote_option_values(item) for item in split_top_level(text)]


def check_unique_options(text: str) -> None:
    """Raise xDSL's ``ArgSpecParseError`` at an option given twice in one ``{...}`` of a pass or
    pipeline list (xDSL keeps the last value silently: ``cuda{arch=sm_80 arch=sm_90a}``)."""
    from xdsl.utils.arg_spec import PipelineLexer, SpecTokenKind
    from xdsl.utils.exceptions import ArgSpecParseError

    lexer, previous, seen = PipelineLexer(text), None, set()
    while (token := lexer.lex()).kind is not SpecTokenKind.EOF:
        if token.kind is SpecTokenKind.L_BRACE:
            seen = set()
        key = token.span.text
        if token.kind is SpecTokenKind.IDENT and previous in (SpecTokenKind.L_BRACE,
                                                             SpecTokenKind.SPACE):
            if key in seen:
                raise ArgSpecParseError(token, f"option '{key}' is given twice; give it once")
            seen.add(key)
        previous = token.kind


def split_pipeline_ref(text: str) -> tuple[str, dict[str, Any]]:
    """``"trn{target=aws/trn1/trn1.2xlarge}"`` -> ("trn", {"target": "aws/trn1/trn1.2xlarge"})."""
    from xdsl.utils.arg_spec import parse_spec

    spec = parse_spec(quote_option_values(text))
    check_unique_options(quote_option_values(text))
    options: dict[str, Any] = {}
    for key, values in spec.parameters.items():
        options[key.replace("-", "_")] = values[0] if len(values) == 1 else \
            (None if not values else tuple(values))
    return spec.name, options


def _cleanup_passes() -> list[ModulePass]:
    """target-neutral cleanups: canonicalize, cse, dce"""
    from tirx_mlir.transforms.canonicalize import FastCanonicalizePass
    from tirx_mlir.transforms.cse import FastCSEPass
    from tirx_mlir.transforms.dce import FastDCEPass

    return [FastCanonicalizePass(), FastCSEPass(), FastDCEPass()]


with registry.owner_scope("core"):  # whichever backend's hook imported us first
    register_pipeline("cleanup", _cleanup_passes)
