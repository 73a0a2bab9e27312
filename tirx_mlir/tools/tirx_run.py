"""``tirx-run``: run a kernel of an IR file with the reference interpreter.

    tirx-run examples/softmax.mlir                          # random inputs (--seed 0)
    tirx-run k.mlir --entry gemm --inputs a.npy b.npy --save out/
    tirx-run k.mlir --pass-pipeline cleanup -p cse          # run passes first (as tirx-opt does)

The file is parsed with source locations and verified; the passes run (each followed by a
verification); then the kernel (``--entry``, or the file's only kernel) runs on the ``.npy``
inputs or on random ones (standard normal floats, small integers; see `launch.random_array`).
Each output gets one line: its name, shape, dtype, min/max/mean over the non-NaN elements and the
count of NaN (floats) or poison (integers) elements, which flag memory the kernel never wrote.
``--save DIR`` writes every parameter (inputs and outputs) as ``DIR/<name>.npy``, so a run can be
replayed with ``--inputs``; the files are written all or none (`atomic_file`). bf16 and fp8
arrays are stored under their ml_dtypes names (`npy_output`): ``np.load`` returns them as the
same values once ``ml_dtypes`` is imported, and ``--inputs`` reads them back (also the raw 2- or
1-byte records that older runs wrote).

``--pes N`` runs a CUDA-level kernel on N simulated NVSHMEM PEs (the SIMT interpreter): every PE
gets its own copy of each parameter (the symmetric heap; the inputs are the same on every PE),
each output is summarized once per PE (``%Recv on PE 1: ...``), and ``--save`` also writes PE p's
outputs as ``DIR/<name>.pe<p>.npy`` (``DIR/<name>.npy`` holds PE 0's, as without ``--pes``).

``--expect REF.npy ...`` (one per output) or ``--expect-dir DIR`` (``DIR/<name>.npy``, as
``--save`` writes) compares the outputs with references within ``--rtol``/``--atol`` (tools/
expect.py): one line per output, exit status 1 on any mismatch.

``--stats`` prints, after the outputs, what a thread-level (CUDA) kernel did: instructions,
shared-memory requests, wavefronts and bank conflicts, barriers, per op and per block.
``--no-racecheck`` turns off the check of a thread-level kernel's shared memory for data races.

A run takes at most ``--max-steps`` steps (an op each, tile ops one more per 256 elements; default
`core.DEFAULT_MAX_STEPS`, 0 = no limit); past that it stops with an error located at the loop
that was running.

Errors (a missing file, an unknown entry, inputs of the wrong shape or dtype, parse, verifier,
pass and run-time errors) print ``file:line:col: error: ...`` (or ``tirx-run: error: ...``) and
exit with status 1; never a Python traceback (set TIRX_MLIR_DEBUG=1 for one). Ctrl-C stops the
run with ``tirx-run: interrupted`` and status 130, as a shell reports SIGINT.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from tirx_mlir.tools import dataclass_cache, lazy_packages

dataclass_cache.install()  # before this tool imports xDSL
lazy_packages.install()

import numpy as np  # noqa: E402

USAGE_EXAMPLES = """examples:
  tirx-run examples/softmax.mlir
  tirx-run k.mlir --entry gemm --inputs a.npy b.npy --save out/
  tirx-run k.mlir --inputs a.npy b.npy --expect c_ref.npy --rtol 1e-3
  tirx-run k.mlir --pass-pipeline cleanup -p cse
  tirx-run examples/cuda/nvshmem_ring.mlir --pes 4 --outputs zeros.npy sig0.npy --save out/"""


class CLIError(Exception):
    """A bad command line or input file: ``tirx-run: error: ...``, exit 1."""


class _ArgumentParser(argparse.ArgumentParser):
    def error(self, message: str):  # argparse would exit 2 with its own format
        raise CLIError(f"{message} (see tirx-run --help)")


def _parser() -> argparse.ArgumentParser:
    p = _ArgumentParser(prog="tirx-run", description="Run a tirx kernel with the reference "
                        "interpreter and summarize its outputs.", epilog=USAGE_EXAMPLES,
                        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--version", action="version", version=_version())
    p.add_argument("file", help="the .mlir file ('-' reads stdin)")
    p.add_argument("--entry", metavar="NAME", help="the kernel to run (default: the only one)")
    p.add_argument("--inputs", nargs="+", metavar="NPY", default=None,
                   help="one .npy file per kernel input, in order (default: random inputs)")
    p.add_argument("--outputs", nargs="+", metavar="NPY", default=None,
                   help="initial contents of the outputs (default: fresh NaN/poison memory)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random inputs (default 0)")
    p.add_argument("--cast-inputs", action="store_true",
                   help="round inputs of another dtype to the parameter's type")
    p.add_argument("--save", metavar="DIR", help="write every parameter as DIR/<name>.npy")
    p.add_argument("--expect", nargs="+", metavar="NPY", default=None,
                   help="reference arrays, one per output in order: compare and exit 1 on a "
                        "mismatch")
    p.add_argument("--expect-dir", metavar="DIR", default=None,
                   help="compare each output with DIR/<name>.npy (as --save writes them)")
    p.add_argument("--rtol", type=float, default=None,
                   help="relative tolerance of --expect (default 1e-5; integers: exact)")
    p.add_argument("--atol", type=float, default=None,
                   help="absolute tolerance of --expect (default 1e-6; integers: exact)")
    p.add_argument("-p", "--passes", metavar="PASSES", default="",
                   help="passes to run first, as for tirx-opt -p")
    p.add_argument("--pass-pipeline", metavar="NAME[{opt=val ...}]", default=None,
                   help="a registered pipeline to run first (before -p)")
    p.add_argument("--print-ir", action="store_true", help="print the IR that runs")
    p.add_argument("--stats", action="store_true",
                   help="after the outputs, print what a thread-level (CUDA) kernel did: "
                        "instructions, shared-memory bank conflicts and barriers, per op and "
                        "per block")
    p.add_argument("--no-racecheck", action="store_true",
                   help="do not check a thread-level kernel's shared memory for data races")
    p.add_argument("--max-steps", metavar="N", type=_steps, default=None,
                   help="steps (ops; tile ops one more per 256 elements) the run may take before "
                        "it stops with an error naming the loop "
                        "(default 50,000,000; 0 = no limit)")
    p.add_argument("--pes", metavar="N", type=_pes, default=1,
                   help="run a CUDA-level kernel on N simulated NVSHMEM PEs: outputs are "
                        "summarized per PE and --save writes DIR/<name>.pe<p>.npy for each "
                        "(default 1)")
    return p


def _version() -> str:
    from importlib.metadata import version

    from tirx_mlir import __version__

    return f"tirx-run {__version__} (xdsl {version('xdsl')})"


def _pes(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a PE count >= 1, got '{text}'")
    return value


def _steps(text: str) -> int:
    try:
        value = int(text.replace("_", "").replace(",", ""))
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected an integer >= 0 (0 = no limit), got "
                                         f"'{text}'")
    return value


# --- stages -------------------------------------------------------------------------------------


def _read(path: str) -> str:
    if path == "-":
        return sys.stdin.read()
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError) as err:
        raise CLIError(f"cannot read '{path}': {getattr(err, 'strerror', None) or err}") from None


def _passes(args: argparse.Namespace) -> list:
    if not args.passes and not args.pass_pipeline:
        return []
    from tirx_mlir.tools import tirx_opt

    opt_args = ["-p", args.passes] if args.passes else []
    if args.pass_pipeline:
        opt_args += ["--pass-pipeline", args.pass_pipeline]
    try:
        return tirx_opt.TirxOptMain(opt_args).passes
    except tirx_opt.CLIError as err:
        raise CLIError(str(err).replace("tirx-opt --help", "tirx-run --help")) from None


def _apply_passes(module, passes: list, where: str) -> None:
    from xdsl.utils.exceptions import DiagnosticException

    from tirx_mlir.located_parser import make_context
    from tirx_mlir.diagnostics import TirxError
    from tirx_mlir.tools.diagnostics_cli import (Report, ReportedError, report_tirx_error,
                                                 verify_located)

    ctx = make_context()
    for p in passes:
        try:
            p.apply(ctx, module)
        except TirxError as err:
            report = report_tirx_error(err, where)
            report.notes.insert(0, f"note: raised by pass '{p.name}'")
            raise ReportedError(report) from None
        except DiagnosticException as err:
            raise ReportedError(Report(where, f"pass '{p.name}' failed: "
                                              f"{str(err).splitlines()[0]}")) from None
        verify_located(module, where, f"after pass '{p.name}'")


def _load_arrays(paths: Sequence[str], params) -> list[np.ndarray]:
    """One array per ``.npy`` path, for the parameters ``params`` (checked: `npy_input`)."""
    from tirx_mlir.dialects.tirx import dtypes
    from tirx_mlir.tools.npy_input import NpyInputError, read_npy

    try:
        return [read_npy(path, dtypes.numpy_dtype(btype.element_type))
                for path, (_, btype) in zip(paths, params)]
    except NpyInputError as err:
        raise CLIError(str(err)) from None


def _inputs(runner, args: argparse.Namespace) -> list[np.ndarray]:
    params = runner.params[:runner.n_inputs]
    if args.inputs is None:
        return runner.random_inputs(np.random.default_rng(args.seed))
    if len(args.inputs) != len(params):
        names = ", ".join(f"%{n}" for n, _ in params) or "none"
        raise CLIError(f"@{runner.kernel.kernel_name} takes {len(params)} input(s) ({names}), "
                       f"got {len(args.inputs)} --inputs files")
    return _load_arrays(args.inputs, params)


def _configure_executors(interp, args: argparse.Namespace) -> None:
    """Hand the run options of the flags to every kernel executor that takes options (one that
    does not know an option ignores it: ``--no-racecheck`` means nothing to the tile level)."""
    from tirx_mlir import registry

    values = {"racecheck": False} if args.no_racecheck else {}
    if args.pes > 1:
        values["pes"] = args.pes
    for _, executor in registry.kernel_executors.items():
        if executor.configure is None:
            continue
        for name, value in values.items():
            try:
                executor.configure()(interp, **{name: value})
            except TypeError:  # an executor without this option
                pass


def _stats(interp) -> str:
    """``--stats``: the statistics of the executors that ran the kernel."""
    from tirx_mlir import registry

    reports = [executor.report()(interp) for _, executor in registry.kernel_executors.items()
               if executor.report is not None]
    reports = [r for r in reports if r]
    return "\n".join(reports) if reports else \
        "stats: none (the tile-level interpreter ran this kernel; it counts no instructions)"


def summarize(name: str, arr: np.ndarray) -> str:
    """One line: name, shape, dtype, min/max/mean of the non-NaN elements, NaN/poison count."""
    from tirx_mlir.interpreter import runtime

    dtype = runtime.dtype_name(arr.dtype)
    bad = runtime.poisoned(arr)
    kind = "nan" if runtime.is_float_dtype(arr.dtype) else "poison"
    good = arr[~bad].astype(np.float64)
    stats = (f"min {good.min():.6g}  max {good.max():.6g}  mean {good.mean():.6g}"
             if good.size else "min -  max -  mean -")
    return f"%{name}: {list(arr.shape)} {dtype}  {stats}  {kind} {int(bad.sum())}"


def _save(directory: str, named: Sequence[tuple[str, np.ndarray]]) -> None:
    """Every array to ``DIR/<name>.npy``, all or none: each is written to a temporary name
    first, so a failure leaves the files of an earlier run intact."""
    from tirx_mlir.tools.atomic_file import OutputFileError, write_files_atomically

    try:
        os.makedirs(directory, exist_ok=True)
    except OSError as err:
        raise CLIError(f"cannot save to '{directory}': {err.strerror or err}") from None

    from tirx_mlir.tools.npy_output import write_npy

    def saver(arr: np.ndarray):
        return lambda f: write_npy(f, arr)

    try:
        write_files_atomically([(os.path.join(directory, f"{name}.npy"), saver(arr))
                                for name, arr in named])
    except OutputFileError as err:
        raise CLIError(str(err)) from None


def run(argv: Sequence[str] | None = None) -> int:
    from xdsl.utils.exceptions import ParseError

    from tirx_mlir.located_parser import make_context, parse_module
    from tirx_mlir.diagnostics import TirxError
    from tirx_mlir.interpreter.launch import KernelRunner
    from tirx_mlir.tools.diagnostics_cli import (ReportedError, report_parse_error,
                                                 report_tirx_error, verify_located)

    args = _parser().parse_args(argv)
    where = "<stdin>" if args.file == "-" else args.file
    passes = _passes(args)
    text = _read(args.file)
    ctx = make_context()
    try:
        module = parse_module(text, where, ctx)
        verify_located(module, where)
        _apply_passes(module, passes, where)
        if args.print_ir:
            print(module)
        runner = KernelRunner(module, args.entry, max_steps=args.max_steps)
        _configure_executors(runner.interpreter, args)
        inputs = _inputs(runner, args)
        outputs = _load_arrays(args.outputs or [], runner.params[runner.n_inputs:])
        prepared = runner.prepare([*inputs, *outputs], args.cast_inputs)
        saved_inputs = [a.copy() for a in prepared[:runner.n_inputs]] if args.save else []
        results = runner.run(prepared)
    except ParseError as err:
        raise ReportedError(report_parse_error(
            err, ctx, unregistered_hint="tirx-run runs only ops it has semantics for: load the "
                                        "backend that defines the dialect")) from None
    except TirxError as err:
        raise ReportedError(report_tirx_error(err, where)) from None
    out_names = [name for name, _ in runner.params[runner.n_inputs:]]
    per_pe = _outputs_per_pe(runner, args, results)
    for p, outputs in enumerate(per_pe):
        for name, arr in zip(out_names, outputs):
            print(summarize(name if len(per_pe) == 1 else f"{name} on PE {p}", arr))
    if args.stats:
        print(_stats(runner.interpreter))
    if args.save:
        named = list(zip([name for name, _ in runner.params], [*saved_inputs, *results]))
        if len(per_pe) > 1:
            named += [(f"{name}.pe{p}", arr) for p, outputs in enumerate(per_pe)
                      for name, arr in zip(out_names, outputs)]
        _save(args.save, named)
    return _check_expected(runner, args, results)


def _check_expected(runner, args: argparse.Namespace, results) -> int:
    """``--expect`` / ``--expect-dir``: 0 when every output matches its reference, else 1."""
    from tirx_mlir.interpreter.runtime import is_float_dtype
    from tirx_mlir.tools import expect

    out_params = runner.params[runner.n_inputs:]
    if args.expect is not None and args.expect_dir is not None:
        raise CLIError("give --expect or --expect-dir, not both")
    if args.expect is not None:
        paths = args.expect
        if len(paths) != len(out_params):
            names = ", ".join(f"%{n}" for n, _ in out_params)
            raise CLIError(f"@{runner.kernel.kernel_name} has {len(out_params)} output(s) "
                           f"({names}), got {len(paths)} --expect files")
    elif args.expect_dir is not None:
        paths = [os.path.join(args.expect_dir, f"{name}.npy") for name, _ in out_params]
    else:
        if args.rtol is not None or args.atol is not None:
            raise CLIError("--rtol/--atol set the tolerance of --expect or --expect-dir")
        return 0
    refs = _load_arrays(paths, out_params)
    ok = True
    for (name, _), out, ref in zip(out_params, results, refs):
        exact = not is_float_dtype(out.dtype) and args.rtol is None and args.atol is None
        rtol = 0.0 if exact else (expect.DEFAULT_RTOL if args.rtol is None else args.rtol)
        atol = 0.0 if exact else (expect.DEFAULT_ATOL if args.atol is None else args.atol)
        verdict = expect.compare(name, out, ref, rtol, atol)
        print(verdict.line)
        ok &= verdict.ok
    return 0 if ok else 1


def _outputs_per_pe(runner, args: argparse.Namespace, results) -> list:
    """[outputs of PE 0, of PE 1, ...] (``--pes``), from the executor that ran the kernel."""
    if args.pes == 1:
        return [results]
    from tirx_mlir import registry

    for _, executor in registry.kernel_executors.items():
        per_pe = None if executor.outputs_per_pe is None else \
            executor.outputs_per_pe()(runner.interpreter)
        if per_pe:
            return per_pe
    raise CLIError(f"--pes runs thread-level kernels (those a backend's kernel executor runs, "
                   f"e.g. CUDA's cuda/ptx/nvshmem ops) on simulated PEs; "
                   f"@{runner.kernel.kernel_name} is not one")


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``tirx-run`` console script; returns the exit code."""
    from tirx_mlir.tools.diagnostics_cli import ReportedError

    try:
        return run(argv)
    except CLIError as err:
        sys.stderr.write(f"tirx-run: error: {err}\n")
    except ReportedError as err:
        sys.stderr.write(err.report.render())
    except KeyboardInterrupt:
        sys.stderr.write("tirx-run: interrupted\n")
        return 130
    except BrokenPipeError:  # the reader went away (`tirx-run ... | head`): stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except Exception as err:  # noqa: BLE001 - a bug in the interpreter or a pass
        if os.environ.get("TIRX_MLIR_DEBUG"):
            raise
        sys.stderr.write(f"tirx-run: internal error: {type(err).__name__}: {err}\n"
                         f"note: this is a bug in tirx_mlir; set TIRX_MLIR_DEBUG=1 to see the "
                         f"Python traceback\n")
    return 1


if __name__ == "__main__":
    sys.exit(main())
