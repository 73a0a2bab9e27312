"""Compile Triton peers ahead of time, without a GPU: ``python aot.py request.json`` in a Python
that has Triton 3.9 (peers.compile_peers writes the request and runs this).

For each peer of the request and each of its archs: ``triton.compile(ASTSource(...),
target=GPUTarget("cuda", arch, 32))`` ``rounds`` times, each round with a fresh
TRITON_CACHE_DIR (a cold compile: nothing is reused from disk; the process's imports and LLVM
initialisation are warm after the first). Pointer parameters get ``tt.divisibility=16``, what
Triton's JIT gives a 16-byte-aligned tensor (without it Triton assumes 2-byte alignment, cannot
vectorise nor pipeline the loads, and spills). Times come from Triton's compilation listener
(microseconds per stage: ttir, ttgir, llir, ptx, cubin), after one untimed warm-up compile
(``_startup`` gives the import and that first compile); ``to_ptx_s`` is everything before the
cubin stage, ``ptxas_s`` the cubin stage (Triton's bundled ptxas). Writes ``<out>/<peer>@<arch>
.ptx`` and ``.cubin`` and prints one JSON line (see peers.compile_peers).
"""

import json
import os
import sys
import tempfile
import time
from pathlib import Path

_IMPORT_START = time.perf_counter()
sys.path.insert(0, str(Path(__file__).resolve().parent))

import kernels  # noqa: E402
import peers  # noqa: E402 - data only (no tirx_mlir here)
import triton  # noqa: E402
from triton import knobs  # noqa: E402
from triton.backends.compiler import GPUTarget  # noqa: E402

_times = []


def _listener(*, src, metadata, metadata_group, times, cache_hit):
    _times.append((times, cache_hit))


def compile_peer(peer: dict, arch: int, rounds: int, out: Path) -> dict:
    fn = getattr(kernels, peer["kernel"])
    signature = peers.Peer(**peer).signature()
    attrs = {(fn.arg_names.index(p),): [["tt.divisibility", 16]] for p in peer["pointers"]}
    options = {"num_warps": peer["num_warps"], "num_stages": peer["num_stages"]}
    best, walls = None, []
    for _ in range(rounds):
        with tempfile.TemporaryDirectory() as cache:
            os.environ["TRITON_CACHE_DIR"] = cache
            src = triton.compiler.ASTSource(fn=fn, signature=signature,
                                            constexprs=dict(peer["constexprs"]), attrs=attrs)
            _times.clear()
            start = time.perf_counter()
            compiled = triton.compile(src, target=GPUTarget("cuda", arch, 32), options=options)
            wall = time.perf_counter() - start
        times, hit = _times[-1]
        assert not hit, "a fresh TRITON_CACHE_DIR must miss"
        stages = dict(times.lowering_stages)
        ptxas = stages.get("cubin", 0) / 1e6
        run = {"compile_s": wall, "ptxas_s": ptxas, "to_ptx_s": wall - ptxas,
               "stages_s": {k: v / 1e6 for k, v in [("ir", times.ir_initialization),
                                                     *times.lowering_stages]}}
        walls.append(wall)
        best = run if best is None or wall < best["compile_s"] else best
    stem = out / f"{peer['name']}@{arch}"
    stem.with_suffix(".ptx").write_text(compiled.asm["ptx"])
    stem.with_suffix(".cubin").write_bytes(compiled.asm["cubin"])
    return {**best, "all_s": walls, "ptx": str(stem.with_suffix(".ptx")), "cubin": str(stem.with_suffix(".cubin")),
            "shared": compiled.metadata.shared, "num_warps": compiled.metadata.num_warps,
            "kernel": compiled.metadata.name, "triton": triton.__version__}


def main() -> None:
    request = json.loads(Path(sys.argv[1]).read_text())
    out = Path(request["out"])
    knobs.compilation.listener = _listener
    results = {"_startup": {"import_s": time.perf_counter() - _IMPORT_START}}
    if request["peers"]:  # untimed warm-up: the first compile initialises LLVM and the backend
        first = request["peers"][0]
        start = time.perf_counter()
        with tempfile.TemporaryDirectory() as warm:
            compile_peer(first, first["archs"][0], 1, Path(warm))
        results["_startup"]["first_compile_s"] = time.perf_counter() - start
    for peer in request["peers"]:
        for arch in peer["archs"]:
            if request["archs"] and arch not in request["archs"]:
                continue
            key = f"{peer['name']}@{arch}"
            try:
                results[key] = compile_peer(peer, arch, request["rounds"], out)
            except Exception as err:  # noqa: BLE001 - one failed peer is reported, not fatal
                results[key] = {"error": f"{type(err).__name__}: {str(err).splitlines()[0][:300]}"}
    print(json.dumps(results))


if __name__ == "__main__":
    main()
