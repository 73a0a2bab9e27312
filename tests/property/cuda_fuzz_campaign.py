"""A mutation-fuzzing campaign over the CUDA examples, through every CUDA stage a user reaches.

    python tests/property/cuda_fuzz_campaign.py --mutants 2000 --seed 0 --jobs 2
    python tests/property/cuda_fuzz_campaign.py --count 500 --seed 2 --jobs 1 --ptxas --nvcc
    python tests/property/cuda_fuzz_campaign.py --mutants 300 --show internal,hang,injection,disagree

The machinery (mutants, the pool of workers under time and memory limits, the classifier, the
report) is `fuzz_campaign`'s; this campaign brings its own seeds, edits and stages.

Seeds: ``examples/cuda/*.mlir`` and ``examples/cuda/tile/*.mlir``, and each tile-level example
after the cuda pipeline (``name@cuda``), so that edits reach the cuda/ptx/nvshmem ops and the
printers directly. Edits (`CUDA_MUTATIONS`, besides `fuzz_campaign.MUTATIONS`): launch sizes
(zero, negative, huge grid/threads/cluster, too many dimensions), the target's arch and shared
memory, symbol and SSA names that are C/PTX keywords, builtins or hold ``*/``, ``#include``,
quotes and newlines, ptx instruction strings with C payloads, swizzle parameters, deeply nested
regions and huge constants; and `cuda_tile_mutations.TILE_MUTATIONS`, which change a buffer
type's shape (0, 1, -1, 2^40, sizes no tile divides), dtype (f64, i1, f8, one operand or all),
scope, swizzle or global layout everywhere it is written, an op's exec scope, or an op line, so
that the mutant still parses and reaches dispatch. Each mutant also draws options for the cuda
pipeline (`PIPELINE_OPTIONS`: arch, num_stages 0/1/100/-1, target, malformed values).

Stages (`CUDA_STAGES`): parse+verify; ``--disable-verify -t cuda``; ``-t cuda``, ``-t ptx``;
``--pass-pipeline=cuda`` with ``-t cuda`` and ``-t ptx``; ``--pass-pipeline='cuda{OPTIONS}' -t
ptx``; ``tirx-run`` as written and after the cuda pipeline (a small ``--max-steps``);
``tirx_mlir.compile(path, cache=False, **options)`` (`run_compile`: the Python API, ptxas
included; a TirxError or parse error with a place is ``located``, a refused keyword ``cli``,
any other exception ``internal``).

Outcomes, besides `fuzz_campaign.classify`'s:

* ``injection``: CUDA C++ or PTX that holds a payload's marker ``PWN`` outside an identifier
  (`c_injected`): a name or string reached the source unsanitised;
* ``disagree``: the kernel ran as written and after the cuda pipeline (the same random inputs),
  and an output differs: a pass changed the answer, or the interpreter is wrong one way;
* ``ptxas-rejected`` (with ``--ptxas``, and always for ``compile``): ``-t ptx`` after the
  pipeline printed PTX that ptxas refuses: wrong code accepted silently;
* ``nvcc-rejected`` (with ``--nvcc``): nvcc refuses the CUDA C++ ``-t cuda`` printed after the
  pipeline, for the arch of the PTX's ``.target``;
* ``api-unlocated`` (reported for review): ``tirx_mlir.compile`` raised a TirxError or verify
  error that names no place;
* ``accepted-then-rejected`` (reported for review): the pipeline printed PTX but running after
  it failed for a reason other than its step budget, a deadlock or an unencoded tensor map.
"""

from __future__ import annotations

import argparse
import functools
import os
import random
import re
import shutil
import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import fuzz_campaign as fc  # noqa: E402
from cuda_tile_mutations import TILE_MUTATIONS  # noqa: E402
from fuzz_campaign import ROOT, Campaign, Mutant, Pool, _replace_match  # noqa: E402

MAX_STEPS = "20000"
RUN_TOLERANCE = {"rtol": 1e-4, "atol": 1e-5}
"""How far an output after the pipeline may be from the one as written (the pipeline reorders
float sums: mma.sync's order is not the tile gemm's); ``atol`` is per unit of the output's
largest finite magnitude (a sum that cancels keeps the rounding of its large terms)."""
FAILING = ("internal", "hang", "injection", "disagree", "ptxas-rejected", "nvcc-rejected")

# --- seeds --------------------------------------------------------------------------------------

CUDA_PIPELINE = ["--pass-pipeline=cuda"]


def seed_files() -> list[Path]:
    return [*sorted(ROOT.glob("examples/cuda/*.mlir")), *sorted(ROOT.glob("examples/cuda/tile/*.mlir"))]


@functools.cache
def seeds() -> list[tuple[str, str]]:
    """(name, text) of every seed, and each tile-level example after the cuda pipeline
    (``name@cuda``)."""
    out = []
    for path in seed_files():
        name = str(path.relative_to(ROOT))
        out.append((name, path.read_text(encoding="utf-8")))
        if "/tile/" in name:
            code, lowered, _ = fc._run_main("opt", [str(path), *CUDA_PIPELINE, "-t", "mlir"])
            if code == 0:
                out.append((f"{name}@cuda", lowered))
    return out


# --- edits --------------------------------------------------------------------------------------

LAUNCH_NUMBERS = ["0", "-1", "1", "3", "31", "33", "1024", "1025", "2048", "65535", "65536",
                  "2147483647", "2147483648", "9223372036854775807", "99999999999999999999"]
ARCHS = ["sm_0", "sm_50", "sm_70", "sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a",
         "sm_100a", "sm_120", "sm_1000", "sm_90f", "sm_80x", "compute_80", "sm_"]
TARGET_EXTRAS = [" -max_shared_memory_per_block=0", " -max_shared_memory_per_block=1",
                 " -max_shared_memory_per_block=-1", " -max_shared_memory_per_block=99999999999",
                 " -max_threads_per_block=0", " -max_threads_per_block=32", " -arch=sm_70",
                 " -unknown=1", " */ #include <PWN>"]
C_NAMES = ['"int"', '"__global__"', '"threadIdx"', '"blockIdx"', '"main"', '"tirx_dynamic_smem"',
           '"asm"', '"v"', '"cta"', '"1abc"', '".entry"', '"%r1"', '"reg"', '"a*/PWN()/*"',
           '"#include \\"PWN.h\\""', '"a\\0A#define PWN 1"', '"x\\");PWN(\\""', '"ядро"', '""',
           '"a b"', '"$x"', '"__syncthreads"', '"float"', '"const"', '"sum"', '"return"']
SSA_NAMES = ["%int", "%float", "%threadIdx", "%blockIdx", "%asm", "%__syncthreads", "%v",
             "%tirx_dynamic_smem", "%return", "%for", "%r1", "%rd1", "%f1", "%p", "%cta", "%1x"]
C_PAYLOADS = ["*/PWN()/*", "global.v4.f32;\\0A#include <PWN>", 'f32\\22);PWN(\\22',
              "global.nc.v4.f32 */ PWN", "sync.aligned\\0APWN", "", " ", "x" * 3000]

_LAUNCH = re.compile(r"\b(grid|threads|cluster) \[([^\]\n]*)\]")
_ARCH = re.compile(r"-arch=sm_\w+")
_TARGET_END = re.compile(r'(target "[^"\n]*)(")')
_SYMBOL_DEF = re.compile(r"(?<=tirx\.kernel @)[\w$.-]+")
_PTX_STRING = re.compile(r'(?<=ptx\.)[a-z_.]+ "[^"\n]*"')
_SWIZZLE = re.compile(r"swizzle\(\d+, ?\d+, ?\d+\)")
_INT_CONSTANT = re.compile(r"arith\.constant (-?\d+) : (index|i\d+)")


def _launch(rng: random.Random, m: re.Match) -> str:
    dims = [d.strip() for d in m.group(2).split(",") if d.strip()]
    how = rng.choice(["dim", "dim", "dim", "add", "empty", "cluster"])
    if how == "dim" and dims:
        dims[rng.randrange(len(dims))] = rng.choice(LAUNCH_NUMBERS)
    elif how == "add":
        dims += [rng.choice(["1", "2", "0"])] * rng.choice([1, 2, 3])
    elif how == "empty":
        dims = []
    else:
        return f"{m.group(0)} cluster [{rng.choice(LAUNCH_NUMBERS)}]"
    return f"{m.group(1)} [{', '.join(dims)}]"


def _rename_symbol(rng: random.Random, text: str) -> str:
    """Rename the kernel (its definition; a call names it too rarely to matter)."""
    return _replace_match(rng, text, _SYMBOL_DEF, lambda m: rng.choice(C_NAMES))


def _rename_ssa_everywhere(rng: random.Random, text: str) -> str:
    """One SSA name replaced at every use by a C/PTX keyword or builtin (the IR stays valid)."""
    names = sorted(set(re.findall(r"%[A-Za-z_][\w]*(?![\w#:])", text)))
    if not names:
        return text
    old, new = rng.choice(names), rng.choice(SSA_NAMES)
    return re.sub(re.escape(old) + r"(?![\w])", new, text)


def _ptx_string(rng: random.Random, m: re.Match) -> str:
    mnemonic, _ = m.group(0).split(" ", 1)
    return f'{mnemonic} "{rng.choice(C_PAYLOADS)}"'


def _deep_regions(rng: random.Random, text: str) -> str:
    """Wrap the line before the kernel's return in ``scf.if`` nested some hundreds deep."""
    depth = rng.choice([40, 300, 2000])
    at = text.rfind("tirx.return")
    if at < 0:
        return text
    head = "%deep_true = arith.constant true\n" + "scf.if %deep_true {\n" * depth
    return text[:at] + head + "}\n" * depth + text[at:]


def _huge_constant(rng: random.Random, m: re.Match) -> str:
    value = rng.choice(["9223372036854775807", "-9223372036854775808", "2147483648",
                        "18446744073709551616", "4294967296", "-1", "0"])
    return f"arith.constant {value} : {m.group(2)}"


CUDA_MUTATIONS = {
    "launch": lambda r, t: _replace_match(r, t, _LAUNCH, lambda m: _launch(r, m)),
    "arch": lambda r, t: _replace_match(r, t, _ARCH, lambda m: "-arch=" + r.choice(ARCHS)),
    "target-extra": lambda r, t: _replace_match(
        r, t, _TARGET_END, lambda m: m.group(1) + r.choice(TARGET_EXTRAS) + '"'),
    "c-symbol": _rename_symbol,
    "c-ssa": _rename_ssa_everywhere,
    "ptx-string": lambda r, t: _replace_match(r, t, _PTX_STRING, lambda m: _ptx_string(r, m)),
    "swizzle": lambda r, t: _replace_match(
        r, t, _SWIZZLE, lambda m: "swizzle({}, {}, {})".format(
            *(r.choice(["0", "1", "2", "3", "4", "7", "8", "-1", "64"]) for _ in range(3)))),
    "deep-regions": _deep_regions,
    "huge-constant": lambda r, t: _replace_match(r, t, _INT_CONSTANT,
                                                 lambda m: _huge_constant(r, m)),
}
EDIT_TABLES = ((fc.MUTATIONS, 0.3), (CUDA_MUTATIONS, 0.3), (TILE_MUTATIONS, 0.4))
"""Where an edit comes from, and how often: `fuzz_campaign.MUTATIONS` (one token), the CUDA
edits above, `cuda_tile_mutations.TILE_MUTATIONS` (a type or scope everywhere it is written)."""

PIPELINE_OPTIONS = ["", "{arch=sm_80}", "{arch=sm_90a}", "{arch=sm_90a num_stages=4}",
                    "{num_stages=1}", "{num_stages=2}", "{num_stages=0}", "{num_stages=-3}",
                    "{num_stages=1.5}", "{num_stages=true}", "{num_stages=64}",
                    "{num_stages=99999999999999999999}", "{arch=sm_0}", "{arch=sm_70}",
                    "{arch=sm_1000}", "{arch=sm_80 arch=sm_90a}", '{arch="sm_90a\\"x"}',
                    '{target="cuda -arch=sm_80 -max_shared_memory_per_block=1"}',
                    '{target="cuda -arch=sm_90a */ PWN"}', "{target=sm_80}", "{nosuch=1}",
                    "{num_stages=2 num_stages=3}", "{arch=compute_90}", "{num_stages=100}",
                    "{num_stages=-1}", "{arch=sm_100a}", "{arch=garbage}", "{arch=sm_90a}",
                    "{arch=sm_80 num_stages=3}"]


NON_UTF8_SHARE = 0.03
"""How often bytes that are not UTF-8 go into a mutant (after its edits)."""


def mutate(rng: random.Random, seed_list: list[tuple[str, str]]) -> Mutant:
    name, text = rng.choice(seed_list)
    edits = []
    for _ in range(rng.choice([1, 1, 1, 2, 2, 3])):
        table = rng.choices([t for t, _ in EDIT_TABLES], [w for _, w in EDIT_TABLES])[0]
        edit = rng.choice(list(table))
        edits.append(edit)
        text = table[edit](rng, text)
    data = text.encode("utf-8")
    if rng.random() < NON_UTF8_SHARE:
        i = rng.randrange(len(data) + 1)
        data = data[:i] + rng.choice(fc.NON_UTF8) + data[i:]
        edits.append("non-utf8")
    return Mutant(name, edits, data, options=rng.choice(PIPELINE_OPTIONS))


# --- stages -------------------------------------------------------------------------------------

CUDA_STAGES = {
    # name: (tool, extra argv, when: "always" | "parses" | "verifies")
    "verify": ("opt", [], "always"),
    "cuda-unverified": ("opt", ["--disable-verify", "-t", "cuda"], "parses"),
    "cuda": ("opt", ["-t", "cuda"], "verifies"),
    "ptx": ("opt", ["-t", "ptx"], "verifies"),
    "pipeline-cuda": ("opt", [*CUDA_PIPELINE, "-t", "cuda"], "verifies"),
    "pipeline-ptx": ("opt", [*CUDA_PIPELINE, "-t", "ptx"], "verifies"),
    "pipeline-options": ("opt", ["OPTIONS", "-t", "ptx"], "verifies"),
    "run": ("run", ["--max-steps", MAX_STEPS, "--save", "RUN_DIR/as-written"], "verifies"),
    "run-cuda": ("run", [*CUDA_PIPELINE, "--max-steps", MAX_STEPS, "--save",
                         "RUN_DIR/after-pipeline"], "verifies"),
    "compile": ("compile", [], "always"),
}
COMPILE_STAGES = tuple(s for s, (tool, _, _) in CUDA_STAGES.items() if tool == "opt")
"""The stages without the interpreter and without ptxas (the quick pytest run)."""
SOURCE_STAGES = ("cuda-unverified", "cuda", "ptx", "pipeline-cuda", "pipeline-ptx",
                 "pipeline-options", "compile")
EXPECTED_RUN_FAILURE = re.compile(r"step.budget|--max-steps|deadlock|tensor map|"
                                  r"interpreter's limit", re.IGNORECASE)
"""Why a run after the pipeline may fail where the pipeline printed code: its step budget (the
lowered kernel takes more steps), a wait no thread can satisfy on one PE, a tensor-map parameter
(random bytes are no encoded map), an input past the interpreter's memory limit (2^40
elements compile; they do not fit in this machine)."""
_MARKER = re.compile(r"(?<![\w$])PWN|PWN(?![\w$])")


def c_injected(source: str) -> str | None:
    """Why printed CUDA C++ or PTX holds a payload's marker outside an identifier, or None."""
    m = _MARKER.search(source)
    if m is None:
        return None
    line = source[:m.start()].count("\n")
    return f"payload marker outside an identifier on output line {line + 1}: " \
           f"{source.splitlines()[line][:200]!r}"


def _argv(stage: str, path: str, workdir: str, options: str) -> list[str]:
    tool, extra, _ = CUDA_STAGES[stage]
    extra = [f"--pass-pipeline=cuda{options}" if a == "OPTIONS" else
             a.replace("RUN_DIR", workdir) for a in extra]
    argv = [path, *extra]
    if tool == "opt":
        argv += ["--crash-reproducer", os.path.join(workdir, "repro.mlir")]
    return argv


def compile_options(options: str) -> dict[str, object] | None:
    """The pipeline options of a mutant as ``tirx_mlir.compile`` keywords (numbers as ints), or
    None when they are no plain ``{key=value ...}``."""
    if not options:
        return {}
    m = re.fullmatch(r"\{((?:[a-z_]+=[\w.-]+ ?)+)\}", options)
    if m is None:
        return None
    out: dict[str, object] = {}
    for item in m.group(1).split():
        key, value = item.split("=", 1)
        out[key] = int(value) if re.fullmatch(r"-?\d+", value) else value
    return out


_LOCATION = re.compile(r"\S+:\d+:\d+")


def run_compile(path: str, options: str) -> tuple[str, str]:
    """(outcome, detail or the sources) of ``tirx_mlir.compile(path, cache=False, **options)``:
    ``ok`` (the sources, joined, for the injection check), ``located`` (a TirxError about a
    located op, or a parse/verify error that names its line), ``cli`` (a keyword argument refused:
    ValueError, TypeError), ``api-unlocated`` (a TirxError or verify error without a place:
    reported for review), ``ptxas-rejected`` (compile accepted the kernel and
    ptxas refused its PTX), ``internal`` (any other exception), ``hang``."""
    from xdsl.utils.exceptions import DiagnosticException, ParseError

    import tirx_mlir
    from tirx_mlir.diagnostics import TirxError, op_location

    kwargs = compile_options(options)
    signal.signal(signal.SIGPROF, fc._expired)
    signal.setitimer(signal.ITIMER_PROF, fc.SOFT_TIMEOUT_S)
    try:
        art = tirx_mlir.compile(path, cache=False, **(kwargs or {}))
        sources = "\n".join(art.sources.values())
    except fc.Timeout:
        return "hang", f"ran past {fc.SOFT_TIMEOUT_S} s of CPU time"
    except (DiagnosticException, ParseError) as err:
        where = op_location(err.op) if isinstance(err, TirxError) else None
        message = str(err).strip().splitlines()[0] if str(err).strip() else ""
        if where is None and not _LOCATION.search(str(err)):
            return "api-unlocated", f"{type(err).__name__}: {message[:200]}"
        return "located", f"{type(err).__name__}: {message[:200]}"
    except (ValueError, TypeError) as err:
        if kwargs and any(k in str(err) for k in (*kwargs, "option")):  # a keyword refused
            return "cli", f"{type(err).__name__}: {str(err)[:200]}"
        return "internal", f"{type(err).__name__} out of tirx_mlir.compile: {str(err)[:200]}"
    except Exception as err:  # noqa: BLE001 - anything else is a crash of the API
        return "internal", f"{type(err).__name__} out of tirx_mlir.compile: {str(err)[:200]}"
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
    failed = [n for n in art.notes if "ptxas" in n and "failed" in n]
    if failed:
        return "ptxas-rejected", failed[0][:300]
    return "ok", sources


def outputs_differ(workdir: str) -> str | None:
    """Which saved output differs between the run as written and the run after the pipeline."""
    import numpy as np

    import tirx_mlir.tools.tirx_run  # noqa: F401 - registers the ml_dtypes names np.load reads

    first, second = Path(workdir, "as-written"), Path(workdir, "after-pipeline")
    for path in sorted(first.glob("*.npy")):
        other = second / path.name
        if not other.exists():
            return f"{path.name} is missing after the pipeline"
        a = np.load(path).astype(np.float64)
        b = np.load(other).astype(np.float64)
        if a.shape != b.shape:
            return f"{path.stem} has shape {b.shape} after the pipeline, {a.shape} before"
        finite = np.abs(a[np.isfinite(a)])
        scale = max(1.0, float(finite.max())) if finite.size else 1.0
        close = np.isclose(a, b, equal_nan=True, rtol=RUN_TOLERANCE["rtol"],
                           atol=RUN_TOLERANCE["atol"] * scale)
        if not close.all():
            return f"{path.stem} differs after the pipeline ({int(np.sum(~close))} elements)"
    return None


def nvcc_rejects(source: str, arch: str, workdir: str) -> str | None:
    """Why nvcc refuses printed CUDA C++ for ``arch`` (errors only: warnings are no wrong
    code), or None."""
    sys.path.insert(0, str(ROOT / "tests"))
    from tirx_testing.cuda_compile import nvcc_cubins

    result = nvcc_cubins({"kernel": source}, arch, Path(workdir, "nvcc"), extra=())
    return None if result.returncode == 0 else result.log.strip()[:300]


def ptxas_rejects(ptx: str) -> str | None:
    from tirx_mlir.backends.cuda import toolchain

    target = re.search(r"^\.target (sm_\w+)", ptx, re.MULTILINE)
    if target is None:
        return "no .target line"
    result = toolchain.assemble(ptx, target.group(1))
    return None if result.ok else result.log.strip()[:300]


def run_mutant(mutant: Mutant, workdir: str, ptxas: bool = False, nvcc: bool = False,
               stages: tuple[str, ...] = tuple(CUDA_STAGES)) -> list[tuple[str, str, str]]:
    """[(stage, outcome, detail)] of one mutant through those of ``stages`` its validity
    reaches."""
    path = os.path.join(workdir, "in.mlir")
    Path(path).write_bytes(mutant.data)
    for sub in ("as-written", "after-pipeline"):
        shutil.rmtree(os.path.join(workdir, sub), ignore_errors=True)
    results = []
    outs = {}

    def go(stage: str) -> str:
        if CUDA_STAGES[stage][0] == "compile":
            outcome, out = run_compile(path, mutant.options)
            detail = err = "" if outcome == "ok" else out
        else:
            code, out, err = fc._run_main(CUDA_STAGES[stage][0],
                                          _argv(stage, path, workdir, mutant.options))
            outcome, detail = fc.classify(stage, code, out, err)
        if outcome == "ok" and stage in SOURCE_STAGES and (why := c_injected(out)):
            outcome, detail = "injection", why
        if outcome == "located" and (why := fc.misplaced(err, path, mutant.data)):
            outcome, detail = "misplaced", why
        results.append((stage, outcome, detail))
        outs[stage] = (outcome, out, detail)
        return outcome

    reached = {"always"}
    first = go("verify")
    if first == "ok":
        reached |= {"parses", "verifies"}
    elif first == "located" and "op " in results[0][2] and "'" in results[0][2]:
        reached.add("parses")
    for stage, (_, _, when) in CUDA_STAGES.items():
        if stage != "verify" and when in reached and stage in stages:
            go(stage)
    _compare(outs, workdir, results, ptxas, nvcc)
    return results


def _compare(outs: dict, workdir: str, results: list, ptxas: bool, nvcc: bool = False) -> None:
    """The cross-stage checks: the two runs agree; PTX the pipeline printed assembles; a kernel
    the pipeline accepts also runs after it."""
    run, run_cuda, ptx = (outs.get(s, ("",)) for s in ("run", "run-cuda", "pipeline-ptx"))
    if run[0] == "ok" and run_cuda[0] == "ok" and (why := outputs_differ(workdir)):
        results.append(("runs", "disagree", why))
    if ptx[0] == "ok":
        if ptxas and (why := ptxas_rejects(ptx[1])):
            results.append(("ptxas", "ptxas-rejected", why))
        if run_cuda[0] == "located" and not EXPECTED_RUN_FAILURE.search(run_cuda[2]):
            results.append(("wrong-code", "accepted-then-rejected", run_cuda[2]))
        arch = re.search(r"^\.target (sm_\w+)", ptx[1], re.MULTILINE)
        cpp = outs.get("pipeline-cuda", ("",))
        if nvcc and arch and cpp[0] == "ok" and (why := nvcc_rejects(cpp[1], arch.group(1),
                                                                    workdir)):
            results.append(("nvcc", "nvcc-rejected", why))


def cuda_pool(jobs: int, ptxas: bool = False,
              stages: tuple[str, ...] = tuple(CUDA_STAGES), nvcc: bool = False) -> Pool:
    return Pool(jobs, run=functools.partial(run_mutant, ptxas=ptxas, stages=stages, nvcc=nvcc),
                hard_limit_s=2 * fc.SOFT_TIMEOUT_S * len(CUDA_STAGES))


def campaign(mutants: int, seed: int, jobs: int = 2, show: tuple[str, ...] = (),
             progress: bool = False, ptxas: bool = False,
             stages: tuple[str, ...] = tuple(CUDA_STAGES), nvcc: bool = False) -> Campaign:
    return Campaign(mutants, seed, jobs, show, progress, make_mutant=mutate, seed_list=seeds,
                    pool=functools.partial(cuda_pool, ptxas=ptxas, stages=stages, nvcc=nvcc),
                    failing=FAILING)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--mutants", "--count", type=int, default=500)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--ptxas", action="store_true",
                   help="assemble the PTX every accepted mutant's pipeline prints")
    p.add_argument("--nvcc", action="store_true",
                   help="compile the CUDA C++ every accepted mutant's pipeline prints")
    p.add_argument("--show", default=",".join(FAILING),
                   help="comma-separated outcomes whose cases are printed (at most 3 per kind)")
    p.add_argument("--located", type=int, default=0, metavar="N",
                   help="also print the N most frequent kinds of located error")
    args = p.parse_args(argv)
    c = campaign(args.mutants, args.seed, args.jobs, tuple(args.show.split(",")), True, args.ptxas,
                 nvcc=args.nvcc)
    return fc.report(c, c.run(), args.located)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.exit(main())
