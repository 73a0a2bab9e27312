"""``tirx-opt``: tirx_mlir's ``*-opt`` driver, built on xDSL's ``xDSLOptMain``.

    tirx-opt kernel.mlir --pass-pipeline=trn -t nki
    tirx-opt kernel.mlir -p 'tirx-dispatch{target="aws/trn1/trn1.2xlarge"},cse' -o out.mlir
    tirx-opt --print-pipeline=cleanup          # the equivalent -p list
    tirx-opt --list-pipelines | --list-passes | --list-targets | --show-dialects
    tirx-opt k.mlir -p cse,dce --mlir-print-ir-after-change --mlir-timing   # MLIR's spellings
    tirx-opt k.mlir --pass-pipeline=trn --diff-passes   # a unified diff per pass that changed it
    cat k.mlir | tirx-opt - --split-input-file='// ----- next'

Everything is registered lazily: dialects from `tirx_mlir.registry.dialects` (core + whatever a
loaded backend added) and xDSL's own, passes from xDSL and `registry.passes`, printers for ``-t``
from xDSL (``mlir``) and `registry.printers`, named pipelines from `tirx_mlir.pipelines`. A
dialect, pass or printer module is imported only when the input or the command line uses it.

Every failure a user can cause is reported as ``file:line:col: error: <message>`` (exit 1, no
traceback): malformed text, unknown ops/types, verifier failures (located at the failing op),
pass errors (`TirxError`/`PassError` name their op), bad options. Anything else raised by a pass,
verifier, parser or printer is an internal compiler error: reported the same way, with a
reproducer file (input + expanded pipeline) that ``--run-reproducer FILE`` replays.
``TIRX_MLIR_DEBUG=1`` re-raises instead, for developers. ``-o FILE`` is written atomically
(through a symbolic link, in place for a device); a file that cannot be written is
``tirx-opt: error: cannot write 'FILE': <reason>``.

MLIR's flags are spelled as in ``mlir-opt`` beside xDSL's: ``--mlir-print-debuginfo``,
``--mlir-timing`` (`timing`), ``--mlir-print-ir-{before,after}-all``, ``-after-change``,
``-after-failure``, ``--mlir-print-ir-{before,after}=PASS`` and ``--diff-passes``
(`ir_printing`), ``--dump-pass-pipeline``, ``--show-dialects``, ``--verify-each[=false]``,
``--split-input-file[=MARKER]`` and ``-`` for stdin. ``--list-passes``/``--list-targets`` show
the project's entries first, grouped by owner (`listings`).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from functools import cached_property
from io import StringIO
from typing import IO, Sequence

from tirx_mlir.tools import dataclass_cache, lazy_packages, startup_gc

dataclass_cache.install()  # before the xDSL imports below define their dataclasses
lazy_packages.install()
startup_gc.pause()  # no garbage collection while the modules below are imported

from xdsl.dialects.builtin import ModuleOp  # noqa: E402
from xdsl.ir import Attribute  # noqa: E402
from xdsl.passes import ModulePass  # noqa: E402
from xdsl.utils.diagnostic import Diagnostic  # noqa: E402
from xdsl.utils.exceptions import (ArgSpecParseError, DiagnosticException,  # noqa: E402
                                   ParseError)
from xdsl.utils.lexer import Input  # noqa: E402
from xdsl.utils.mlir_lexer import MLIRTokenKind  # noqa: E402
from xdsl.xdsl_opt_main import _empty_post_init, xDSLOptMain  # noqa: E402

import tirx_mlir
from tirx_mlir import registry
from tirx_mlir.located_parser import LocatedParser, make_context
from tirx_mlir.diagnostics import TirxError
from tirx_mlir.tools import listings
from tirx_mlir.tools.atomic_file import OutputFileError, write_atomically
from tirx_mlir.tools.diagnostics_cli import (DEBUG_ENV, Report, ReportedError, debugging,
                                             report_internal_error, report_parse_error,
                                             report_tirx_error, verify_located)
from tirx_mlir.tools.ir_printing import IRPrinting, module_text as _module_text
from tirx_mlir.tools.timing import Timing

startup_gc.resume(freeze=False)

class CLIError(Exception):
    """A bad command line (unknown pass, bad option...): ``tirx-opt: error: ...``, exit 1."""


class _ArgumentParser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse would exit 2; report like every other CLI error
        for flag, hidden in _OPTIONAL_VALUES.items():
            message = message.replace(hidden, flag)
        raise CLIError(f"{message} (see tirx-opt --help)")


class _HelpFormatter(argparse.HelpFormatter):
    """argparse's help layout, without breaking lines at hyphens (a pass or flag name such as
    ``cuda-hoist-invariants`` or ``--list-passes`` stays whole)."""

    def _split_lines(self, text: str, width: int) -> list[str]:
        import textwrap

        text = self._whitespace_matcher.sub(" ", text).strip()  # as argparse's own
        return textwrap.wrap(text, width, break_on_hyphens=False)


DEFAULT_SPLIT_MARKER = "// -----"

_OPTIONAL_VALUES = {"--split-input-file": "--split-input-marker",
                    "--verify-each": "--verify-each-value"}
"""Flags that take an optional ``=VALUE`` as in mlir-opt (``--split-input-file=MARKER``,
``--verify-each=false``); a bare flag never swallows the next word (the input file)."""


def _optional_values(argv: Sequence[str]) -> list[str]:
    """``--flag=VALUE`` -> ``--flag --flag-value=VALUE`` for the flags of `_OPTIONAL_VALUES`."""
    out: list[str] = []
    for arg in argv:
        flag, eq, value = arg.partition("=")
        if eq and flag in _OPTIONAL_VALUES:
            out += [flag, f"{_OPTIONAL_VALUES[flag]}={value}"]
        else:
            out.append(arg)
    return out


def _boolean(text: str) -> bool:
    value = text.strip().lower()
    if value in ("1", "true", "yes", "on"):
        return True
    if value in ("0", "false", "no", "off"):
        return False
    raise argparse.ArgumentTypeError(f"expected true or false, got '{text}'")


class TirxOptMain(xDSLOptMain):
    """xDSLOptMain with lazy registration from tirx_mlir's registries, named pipelines,
    located diagnostics and crash reproducers."""

    version_format = f"tirx-opt {tirx_mlir.__version__} (xdsl {{xdsl_version}})"

    def __init__(self, args: Sequence[str] | None = None):
        self.available_frontends = {}
        self.available_passes = {}
        self.available_targets = {}
        self.ctx = make_context()
        self.register_all_dialects()
        self.register_all_frontends()
        self.register_all_passes()
        self.register_all_targets()
        arg_parser = _ArgumentParser(prog="tirx-opt", allow_abbrev=False,
                                     conflict_handler="resolve", formatter_class=_HelpFormatter,
                                     description="tirx_mlir modular optimizer driver "
                                                 "(MLIR-style; xDSL underneath)")
        self.register_all_arguments(arg_parser)
        argv = sys.argv[1:] if args is None else args
        self.args = arg_parser.parse_args(args=_optional_values(argv))
        if self.args.input_file == "-":
            self.args.input_file = None  # stdin, as mlir-opt reads it
        self.timing = Timing(self.args.mlir_timing)
        self.ir_printing = self._ir_printing()
        if self.args.run_reproducer:
            self._load_reproducer_options()
        self._check_target(self.args.target)
        self.ctx.allow_unregistered = self.args.allow_unregistered_dialect
        if self.args.disable_verify:
            Attribute.__post_init__ = _empty_post_init  # as xdsl-opt does
        if self.args.syntax_highlight:
            Diagnostic.colored = True
        self.setup_pipeline()

    def _check_target(self, text: str) -> None:
        """Reject an unknown ``-t`` printer or bad printer options before reading any input."""
        import inspect

        from xdsl.utils.arg_spec import parse_spec

        try:
            spec = parse_spec(text)
        except ArgSpecParseError as err:
            raise CLIError(f"malformed -t '{text}': {_one_line(err)}") from None
        factory = self.available_targets.get(spec.name)
        if factory is None:
            raise CLIError(f"unknown target '{spec.name}' for -t"
                           f"{_did_you_mean(spec.name, self.available_targets)}; available: "
                           f"{', '.join(sorted(self.available_targets))}")
        if inspect.signature(factory).parameters:  # an old-style emit function: no options
            return
        try:
            factory().from_spec(spec)
        except Exception as err:  # noqa: BLE001 - bad option names or values
            raise CLIError(f"invalid options for -t {spec.name}: {_one_line(err)}") from None

    # ---- registration (lazy: factories only) ----
    @cached_property
    def _multiverse(self):
        from xdsl.universe import Universe

        return Universe.get_multiverse()

    def register_all_dialects(self) -> None:
        """The registry's dialects (already in ``make_context()``), then xDSL's and plugins'."""
        for name, factory in self._multiverse.all_dialects.items():
            if name not in self.ctx.registered_dialect_names:
                self.ctx.register_dialect(name, factory)

    def register_all_passes(self) -> None:
        import tirx_mlir.transforms  # noqa: F401 - registers the core passes

        for name, factory in self._multiverse.all_passes.items():
            self.register_pass(name, factory)
        for name, factory in registry.passes.items():
            self.register_pass(name, factory)

    def register_all_targets(self) -> None:
        for name, factory in self._multiverse.all_targets.items():
            self.available_targets.setdefault(name, factory)
        for name, factory in registry.printers.items():
            self.available_targets[name] = factory

    def register_all_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        super().register_all_arguments(arg_parser)
        self._project_help(arg_parser)
        self._mlir_arguments(arg_parser)
        add = arg_parser.add_argument
        add("--pass-pipeline", metavar="NAME[{opt=val ...}]", default=None,
            help="run a registered pipeline (before any -p passes); see --list-pipelines")
        add("--list-pipelines", action="store_true", help="list the registered pipelines")
        add("--print-diagnostics", action="store_true",
            help="print each chunk's diagnostics to stdout and go on (for FileCheck; what "
                 "xdsl-opt's --verify-diagnostics does); --verify-diagnostics checks them "
                 "against expected-error comments, as mlir-opt")
        add("--print-pipeline", metavar="NAME[{opt=val ...}]", default=None,
            help="print the -p pass list equivalent to a pipeline and exit")
        add("--list-passes", action="store_true",
            help="list the passes: tirx_mlir's by owner (core, each backend), then xDSL's")
        add("--list-targets", action="store_true",
            help="list the -t printers: tirx_mlir's by backend, then xDSL's")
        add("--print-ir-after-all", "--mlir-print-ir-after-all", action="store_true",
            help="print the IR after every pass (to stderr)")
        add("--crash-reproducer", metavar="FILE", default=None,
            help="where to write the reproducer of an internal compiler error (default: a new "
                 "file in $TIRX_MLIR_REPRODUCER_DIR or the temp dir)")
        add("--run-reproducer", metavar="FILE", default=None,
            help="replay a crash reproducer: its input with its pipeline and options")

    def _project_help(self, arg_parser: argparse.ArgumentParser) -> None:
        """xDSL's help for -p/-t lists ~120 unrelated names: say the project's, point to
        --list-passes / --list-targets for the rest; -v gets a help text."""
        helps = {
            "passes": "comma-separated passes to run, name{opt=val ...} (" +
                      listings.summary(self._pass_groups()) + "; see --list-passes)",
            "target": "the output printer (default mlir: MLIR text; " +
                      listings.summary(self._target_groups()) + "; see --list-targets)",
            "version": "print the tirx-opt and xDSL versions and exit",
        }
        for action in arg_parser._actions:  # noqa: SLF001 - argparse has no public setter
            if action.dest in helps:
                action.help = helps[action.dest].replace("%", "%%")

    def _mlir_arguments(self, arg_parser: argparse.ArgumentParser) -> None:
        """mlir-opt's spellings (beside xDSL's), and tirx-opt's --diff-passes."""
        add = arg_parser.add_argument_group(
            "as in mlir-opt", "mlir-opt's spellings beside xDSL's, and tirx-opt's --diff-passes "
            "(docs/tools.md)"
        ).add_argument
        add("--mlir-print-debuginfo", dest="print_debuginfo", action="store_true",
            help="print source locations (loc(...)), as --print-debuginfo")
        add("--mlir-timing", action="store_true",
            help="print a tree of wall-clock and CPU times (parser, each pass, its "
                 "verification, output) to stderr at exit, as mlir-opt's -mlir-timing")
        add("--mlir-timing-display", choices=("tree", "list"), default="tree",
            help="the --mlir-timing layout: tree (default) or list (summed by name)")
        add("--mlir-print-ir-before-all", action="store_true",
            help="print the IR before every pass (to stderr)")
        add("--mlir-print-ir-after-change", action="store_true",
            help="print the IR after each pass that changed it (to stderr)")
        add("--mlir-print-ir-after-failure", action="store_true",
            help="print the IR a failing pass left (also when it fails to verify; to stderr)")
        add("--mlir-print-ir-after", metavar="PASS[,PASS]", action="append", default=[],
            help="print the IR after the passes named (to stderr)")
        add("--mlir-print-ir-before", metavar="PASS[,PASS]", action="append", default=[],
            help="print the IR before the passes named (to stderr)")
        add("--diff-passes", action="store_true",
            help="print a unified diff of the IR for every pass that changed it (to stderr)")
        add("--dump-pass-pipeline", action="store_true",
            help="print the pipeline that runs (as builtin.module(...)) to stderr, then run")
        add("--show-dialects", action="store_true", help="list the dialects and exit")
        add("--verify-each", action="store_true",
            help="verify the IR after each pass (the default); --verify-each=false skips it "
                 "(the input is still verified unless --disable-verify)")
        add("--verify-each-value", type=_boolean, default=True, help=argparse.SUPPRESS)
        add("--split-input-file", action="store_true",
            help=f"split the input at lines '{DEFAULT_SPLIT_MARKER}' (or =MARKER) and process "
                 f"each chunk on its own; the outputs are joined by '{DEFAULT_SPLIT_MARKER}'")
        add("--split-input-marker", default=DEFAULT_SPLIT_MARKER, help=argparse.SUPPRESS)

    def _ir_printing(self) -> IRPrinting:
        """The --mlir-print-ir-* / --diff-passes flags; a pass name they give must exist."""
        def names(values: list[str], flag: str) -> frozenset[str]:
            found = {n.strip() for v in values for n in v.split(",") if n.strip()}
            for name in sorted(found):
                if name not in self.available_passes:
                    raise CLIError(f"{flag}: unknown pass '{name}'"
                                   f"{_did_you_mean(name, self.available_passes)}")
            return frozenset(found)

        a = self.args
        return IRPrinting(sys.stderr, before_all=a.mlir_print_ir_before_all,
                          after_all=a.print_ir_after_all,
                          after_change=a.mlir_print_ir_after_change,
                          after_failure=a.mlir_print_ir_after_failure, diff=a.diff_passes,
                          before_passes=names(a.mlir_print_ir_before, "--mlir-print-ir-before"),
                          after_passes=names(a.mlir_print_ir_after, "--mlir-print-ir-after"))

    def _pass_groups(self) -> list[tuple[str, list[str]]]:
        return listings.group_by_owner(self.available_passes, registry.passes.owner_of)

    def _target_groups(self) -> list[tuple[str, list[str]]]:
        return listings.group_by_owner(self.available_targets, registry.printers.owner_of)

    def _load_reproducer_options(self) -> None:
        if self.args.input_file is not None:
            raise CLIError("--run-reproducer takes the input from the reproducer; drop the "
                           "input file argument")
        from tirx_mlir.tools.reproducer import ReproducerError, read_reproducer

        try:
            config = read_reproducer(self.args.run_reproducer)
        except OSError as err:
            raise CLIError(f"cannot read reproducer: {err}") from None
        except ReproducerError as err:
            raise CLIError(str(err)) from None
        self.args.input_file = self.args.run_reproducer
        self.args.passes = config.passes
        self.args.pass_pipeline = None
        self.args.target = config.target
        self.args.allow_unregistered_dialect = config.allow_unregistered_dialect
        self.args.no_implicit_module = config.no_implicit_module
        self.args.disable_verify = config.disable_verify

    # ---- the pass list ----
    def setup_pipeline(self) -> None:
        from tirx_mlir.pipelines import Pipeline

        passes: list[ModulePass] = []
        if self.args.pass_pipeline:
            passes += self.build_named_pipeline(self.args.pass_pipeline)
        if self.args.passes:
            passes += self.build_passes(self.args.passes)
        self.pipeline = Pipeline("tirx-opt", passes)

    @property
    def passes(self) -> list[ModulePass]:
        return self.pipeline.passes

    @property
    def pass_spec(self) -> str:
        """The expanded pipeline as a -p string."""
        return self.pipeline.spec()

    def build_named_pipeline(self, text: str) -> list[ModulePass]:
        """``--pass-pipeline``: registered pipelines (``trn{max_inst_size=256}``) and passes,
        also in MLIR's ``builtin.module(...)`` form (`pipelines.pipeline_items`)."""
        from tirx_mlir.pipelines import list_pipelines, pipeline_items

        passes: list[ModulePass] = []
        for item in pipeline_items(text):
            name = item.split("{", 1)[0].strip()
            if name in list_pipelines():
                passes += self._named(item, text)
            elif name in self.available_passes:
                passes += self.build_passes(item)
            else:
                known = ", ".join(list_pipelines()) or "(none)"
                raise CLIError(f"unknown pipeline '{name}'"
                               f"{_did_you_mean(name, [*list_pipelines(), *self.available_passes])}"
                               f"; registered pipelines: {known} (or any pass of --list-passes)")
        return passes

    def _named(self, item: str, text: str) -> list[ModulePass]:
        from tirx_mlir.pipelines import get_pipeline, split_pipeline_ref

        try:
            name, options = split_pipeline_ref(item)
        except ArgSpecParseError as err:
            raise CLIError(f"malformed --pass-pipeline '{text}': {_one_line(err)}") from None
        try:
            return list(get_pipeline(name, **options).passes)
        except TirxError as err:  # unknown option
            raise CLIError(err.message) from None
        except Exception as err:  # noqa: BLE001 - a factory rejecting its option values
            raise CLIError(f"pipeline '{name}' rejected options {options}: "
                           f"{type(err).__name__}: {err}") from None

    def build_passes(self, spec: str) -> list[ModulePass]:
        from xdsl.passes import get_pass_option_infos
        from xdsl.utils.arg_spec import parse_pipeline

        from tirx_mlir.pipelines import check_unique_options

        try:
            arg_specs = list(parse_pipeline(spec))
            check_unique_options(spec)
        except ArgSpecParseError as err:
            raise CLIError(f"malformed pass list '{spec}': {_one_line(err)}") from None
        passes: list[ModulePass] = []
        for arg_spec in arg_specs:
            factory = self.available_passes.get(arg_spec.name)
            if factory is None:
                raise CLIError(f"unknown pass '{arg_spec.name}'"
                               f"{_did_you_mean(arg_spec.name, self.available_passes)}; "
                               f"tirx-opt --list-passes lists them")
            try:
                pass_cls = factory()
            except Exception as err:  # noqa: BLE001 - a broken pass module
                raise CLIError(f"cannot load pass '{arg_spec.name}': "
                               f"{type(err).__name__}: {err}") from None
            try:
                passes.append(pass_cls.from_pass_spec(arg_spec))
            except Exception as err:  # noqa: BLE001 - bad option names or values
                options = ", ".join(f"{o[0]}: {o[1]}" for o in get_pass_option_infos(pass_cls))
                raise CLIError(f"invalid options for pass '{arg_spec.name}': {err} "
                               f"(its options: {options or 'none'})") from None
        return passes

    # ---- listings (no input needed) ----
    def print_listing(self, out: IO[str]) -> bool:
        """Handle --list-* / --print-pipeline; True when one was asked for."""
        from tirx_mlir.pipelines import list_pipelines

        if self.args.print_pipeline:
            out.write(",".join(str(p.pipeline_pass_spec())
                               for p in self.build_named_pipeline(self.args.print_pipeline)))
            out.write("\n")
            return True
        if self.args.list_pipelines:
            for name, doc in list_pipelines().items():
                out.write(f"{name}\t{doc}\n")
            return True
        if self.args.list_passes:
            out.write(listings.render(self._pass_groups(), "passes", self.available_passes))
            return True
        if self.args.list_targets:
            out.write(listings.render(self._target_groups(), "printers",
                                      self.available_targets))
            return True
        if self.args.show_dialects:
            out.write("Available Dialects: " +
                      ", ".join(sorted(self.ctx.registered_dialect_names)) + "\n")
            return True
        return False

    # ---- running ----
    def prepare_input(self):
        try:
            f, extension = self.get_input_stream()
        except OSError as err:
            raise CLIError(f"cannot read input: {err}") from None
        if self.args.frontend:
            extension = self.args.frontend
        elif extension not in self.available_frontends:
            extension = "mlir"  # like mlir-opt: any file name is MLIR text
        data = f.read()
        if f is not sys.stdin.buffer:
            f.close()
        if not self.args.split_input_file:
            return [(data, 0)], extension
        marker = self.args.split_input_marker
        if not marker.strip():
            raise CLIError("--split-input-file=MARKER: the marker is empty")
        chunks, line = [], 0
        for piece in data.split(marker.encode()):
            chunks.append((piece, line))
            line += piece.count(b"\n")
        return chunks, extension

    def run(self) -> int:
        with self.timing.scope(("parser", "Parser")):
            chunks, extension = self.prepare_input()
        if self.args.dump_pass_pipeline:
            sys.stderr.write(f"Pass Manager with {len(self.passes)} passes:\n"
                             f"builtin.module({self.pass_spec})\n")
        output = StringIO()
        failed = False
        for i, (data, line_offset) in enumerate(chunks):
            if i:
                output.write(f"{DEFAULT_SPLIT_MARKER}\n")  # as mlir-opt's output marker
            produced: list[tuple[str, str | None, str]] = []
            try:
                output.write(self.run_chunk(data, extension, line_offset))
            except ReportedError as err:
                if self.args.verify_diagnostics and not err.internal:
                    produced.append(("error", err.report.where, err.report.message))
                elif (self.args.print_diagnostics or self.args.parsing_diagnostics) and \
                        not err.internal:
                    output.write(err.report.render())
                    continue
                else:
                    sys.stdout.flush()
                    sys.stderr.write(err.report.render())
                    failed = True
                    continue
            if self.args.verify_diagnostics:
                from tirx_mlir.tools import verify_diagnostics as vd

                text = data.decode("utf-8", "replace")
                failures = vd.check(vd.expectations(text, line_offset + 1), produced,
                                    self.get_input_name())
                if failures:
                    sys.stdout.flush()
                    sys.stderr.write("\n".join(failures) + "\n")
                    failed = True
        with self.timing.scope(("output", "Output")):
            if self.args.output_file is None:
                sys.stdout.write(output.getvalue())
            elif not failed:
                try:
                    write_atomically(self.args.output_file, output.getvalue())
                except OutputFileError as err:
                    raise CLIError(str(err)) from None
        sys.stdout.flush()
        sys.stderr.write(self.timing.report(self.args.mlir_timing_display))
        return 1 if failed else 0

    def run_chunk(self, data: bytes, extension: str, line_offset: int) -> str:
        self._source = data.decode("utf-8", "replace")
        self._where = f"{self.get_input_name()}:{line_offset + 1}:1"
        with self.timing.scope(("parser", "Parser")):
            module = self.parse_input(data, extension, line_offset)
            if not self.args.disable_verify:
                verify_located(module, self._where)
        with self.timing.scope(("pipeline", "'builtin.module' Pipeline")):
            self.apply_passes(module)
        with self.timing.scope(("output", "Output")):
            return self.emit(module)

    def parse_input(self, data: bytes, extension: str, line_offset: int) -> ModuleOp:
        if extension != "mlir":
            return self._guard("parsing", lambda: self.available_frontends[extension](
                _BytesReader(data)))
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as err:
            line = data[:err.start].count(b"\n") + 1 + line_offset
            raise ReportedError(Report(f"{self.get_input_name()}:{line}:1",
                                       f"the input is not UTF-8 text ({err.reason} at byte "
                                       f"{err.start})")) from None
        parser = None
        try:
            parser = LocatedParser(self.ctx, text, self.get_input_name(), line_offset)
            if parser._current_token.kind == MLIRTokenKind.EOF:  # noqa: SLF001 - empty input
                return ModuleOp([])
            return parser.parse_module(not self.args.no_implicit_module)
        except ParseError as err:
            raise ReportedError(report_parse_error(err, self.ctx, line_offset)) from None
        except DiagnosticException as err:
            pos = parser.pos if parser is not None else 0
            raise ReportedError(self._report_at(pos, line_offset, _one_line(err))) from None
        except Exception as err:  # noqa: BLE001
            if debugging():
                raise
            pos = parser.pos if parser is not None else 0
            where = self._report_at(pos, line_offset, "").where or self._where
            raise self._internal("parsing", err, where) from None

    def _report_at(self, pos: int, line_offset: int, message: str) -> Report:
        from xdsl.utils.lexer import Span

        span = Span(pos, pos, Input(self._source, self.get_input_name()), line_offset)
        loc = span.get_location()
        return Report(str(loc), message)

    def apply_passes(self, prog: ModuleOp) -> None:
        """Run the pipeline (`Pipeline.apply`): a failing pass becomes a located report (an
        internal error with a reproducer); after each pass that may change the IR (as
        `Pipeline.apply` decides: not after one that left it as it was) the IR is verified
        (located, with a reproducer; not with --verify-each=false), and timed or printed as
        the flags ask (`timing`, `ir_printing`)."""
        from tirx_mlir.verification import ModuleVerifier

        verify_each = not self.args.disable_verify and self.args.verify_each_value
        verifier = ModuleVerifier()
        printing = self.ir_printing
        index = [0]
        started = [time.perf_counter(), time.process_time()]
        pass_timed = [False]
        printing.start()
        if self.passes:
            printing.before(self.passes[0], prog)

        def time_pass(p: ModulePass) -> None:
            wall, user = time.perf_counter() - started[0], time.process_time() - started[1]
            self.timing.add((("pipeline", "'builtin.module' Pipeline"), ((index[0], "pass"), p.name)),
                            wall, user)
            if self.args.time_passes:
                sys.stderr.write(f"pass '{p.name}': {wall:.4f} s\n")
            pass_timed[0] = True

        def verify(p: ModulePass, module: ModuleOp) -> None:
            time_pass(p)
            try:
                with self.timing.scope(("pipeline", "'builtin.module' Pipeline"),
                                       ((index[0], "verify"), "(V) verify")):
                    verify_located(module, self._where, f"after pass '{p.name}'", verifier)
            except ReportedError as err:
                printing.failed(p, module)
                self._attach_reproducer(err.report, f"the IR after pass '{p.name}' does not "
                                                    f"verify")
                raise

        def after(p: ModulePass, module: ModuleOp) -> None:
            if not pass_timed[0]:
                time_pass(p)
            pass_timed[0] = False
            printing.after(p, module)
            if self.args.print_between_passes and p is not self.passes[-1]:
                print(f"IR after {p.name}:\n{_module_text(module)}\n\n\n")
            index[0] += 1
            if index[0] < len(self.passes):
                printing.before(self.passes[index[0]], module)
            started[:] = [time.perf_counter(), time.process_time()]

        def failed(p: ModulePass, err: Exception) -> None:
            if isinstance(err, ReportedError):  # the verification after ``p``: reported there
                return
            printing.failed(p, prog)
            self._pass_failed(p, err)

        started[:] = [time.perf_counter(), time.process_time()]
        self.pipeline.apply(prog, self.ctx, verify=verify if verify_each else False,
                            callback=after, on_error=failed, verifier=verifier)

    def _pass_failed(self, p: ModulePass, err: Exception) -> None:
        """Report an error raised by pass ``p`` (returning re-raises it: TIRX_MLIR_DEBUG=1)."""
        if isinstance(err, TirxError):
            report = report_tirx_error(err, self._where)
            report.notes.insert(0, f"note: raised by pass '{p.name}'")
            raise ReportedError(report) from None
        if isinstance(err, DiagnosticException):
            raise ReportedError(Report(self._where, f"pass '{p.name}' failed: "
                                                    f"{_one_line(err)}")) from None
        if not debugging():  # a crash inside a pass
            raise self._internal(f"pass '{p.name}'", err, self._where) from None

    def emit(self, prog: ModuleOp) -> str:
        try:
            return self.output_resulting_program(prog)
        except TirxError as err:
            raise ReportedError(report_tirx_error(err, self._where)) from None
        except DiagnosticException as err:
            raise ReportedError(Report(self._where, f"-t {self.args.target}: "
                                                    f"{_one_line(err)}")) from None
        except Exception as err:  # noqa: BLE001 - a crashing printer
            if debugging():
                raise
            raise self._internal(f"printer '-t {self.args.target}'", err, self._where) from None

    # ---- internal errors ----
    def _guard(self, stage: str, fn):
        try:
            return fn()
        except ParseError as err:
            raise ReportedError(report_parse_error(err, self.ctx)) from None
        except DiagnosticException as err:
            raise ReportedError(Report(self._where, _one_line(err))) from None
        except Exception as err:  # noqa: BLE001
            if debugging():
                raise
            raise self._internal(stage, err, self._where) from None

    def _internal(self, stage: str, err: BaseException, where: str) -> ReportedError:
        report = report_internal_error(stage, err, where)
        self._attach_reproducer(report, report.message)
        return ReportedError(report, internal=True)

    def _attach_reproducer(self, report: Report, summary: str) -> None:
        if self.args.run_reproducer:
            report.notes.insert(0, f"note: reproduced from {self.args.run_reproducer}")
            return
        from tirx_mlir.tools.reproducer import ReproducerConfig, write_reproducer

        config = ReproducerConfig(self.pass_spec, self.args.target,
                                  self.args.allow_unregistered_dialect,
                                  self.args.no_implicit_module, self.args.disable_verify)
        try:
            path = write_reproducer(config, self._source, summary, self.args.crash_reproducer,
                                    self.get_input_name())
        except OSError as err:
            report.notes.insert(0, f"note: could not write a reproducer: {err}")
            return
        report.notes[0:0] = [f"note: a reproducer was written to {path}",
                             f"note: replay it with: tirx-opt --run-reproducer {path}"]


class _BytesReader:
    """The ``IO[bytes]`` a registered non-MLIR frontend expects."""

    def __init__(self, data: bytes):
        self._data = data

    def read(self, *_: object) -> bytes:
        return self._data

    def close(self) -> None:
        pass


def _one_line(err: BaseException) -> str:
    return " ".join(str(err).split("\n\n", 1)[0].split())


def _did_you_mean(name: str, candidates) -> str:
    import difflib

    close = difflib.get_close_matches(name, list(candidates), n=3, cutoff=0.6)
    return f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``tirx-opt`` console script; returns the exit code."""
    try:
        # set-up (it imports the printer) and the run make long-lived objects and little
        # garbage: no collection until the run ends, then start-up's and the first run's
        # objects frozen (startup_gc)
        with startup_gc.paused():
            driver = TirxOptMain(argv)
            if driver.print_listing(sys.stdout):
                return 0
            return driver.run()
    except CLIError as err:
        sys.stderr.write(f"tirx-opt: error: {err}\n")
        return 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # the reader went away (`tirx-opt ... | head`): stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1
    except Exception as err:  # noqa: BLE001 - never a bare traceback for users
        if debugging():
            raise
        sys.stderr.write(f"tirx-opt: error: internal compiler error: {type(err).__name__}: "
                         f"{err}\nnote: set {DEBUG_ENV}=1 to see the Python traceback\n")
        return 1


if __name__ == "__main__":
    sys.exit(main())
