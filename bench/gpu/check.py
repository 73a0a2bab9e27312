"""The GPU check (bench/gpu/run.sh runs it): every CUDA example on the CUDA device against the
interpreter device, the pool statistics, and vector_add against the copy bandwidth.

For each example of examples/cuda and examples/cuda/tile: compile it (tirx_mlir.compile: CUDA
C++, PTX, a cubin), make random inputs from its signature, run it on the CUDA device and on the
interpreter device (a tile example: the tile-level interpreter on the program as written), and
print max |difference| (or why a side could not run; NVSHMEM kernels need nvshmrun). Kernels
with TMA tensor-map parameters get their maps from `TENSOR_MAPS` (encoded on the host). Then the
pool statistics of the CUDA device, and the time of vector_add against a device-to-device copy
of the same bytes, and the copy bandwidth of a large buffer (GB/s, ratios printed, nothing
asserted but equality). A fault that loses the device (an illegal instruction, say) ends the
CUDA context: the examples after it run in a new process (``--from N``). Exit status: 0 all
compared runs agree, 1 a mismatch or a failed run, 2 no GPU.
"""

from __future__ import annotations

import argparse
import glob
import os
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

TENSOR_MAPS = {
    # example: {parameter index: (name of the tensor, shape, dtype, box, swizzle)}
    "tma_wgmma": {0: ("A", (64, 16), np.float16, (64, 16), "32B"),
                  1: ("B", (128, 16), np.float16, (128, 16), "32B")},
}
REFERENCES = {
    "tma_wgmma": lambda t: [(t["A"].astype(np.float32) @ t["B"].astype(np.float32).T).ravel()],
}
SKIP = {"nvshmem_ring": "an NVSHMEM kernel: it needs nvshmrun and a symmetric heap"}


def inputs_for(art, rng, source: str | None = None):
    """Random inputs for the kernel's signature: the program as written where ``source`` is
    given (a tile kernel, whose lowered form adds the tensor maps the host builds)."""
    from tirx_mlir.interpreter.launch import buffer_params, find_kernel, random_array
    from tirx_mlir.located_parser import parse_module

    kernel = find_kernel(parse_module(source) if source is not None else art.lowered)
    return [random_array(t, rng) for _, t in buffer_params(kernel)[:kernel.n_inputs]]


def run_with_tensor_maps(art, name, dev, rng):
    """Launch a kernel whose tensor-map parameters are built from random tensors."""
    from tirx_mlir.backends.cuda.runtime.tensor_map import encode_tiled

    fn = art.load(dev).only_function()
    tensors, args, outs = {}, [], []
    for i, param in enumerate(fn.signature.params):
        spec = TENSOR_MAPS[name].get(i)
        if spec is not None:
            tname, shape, dtype, box, swizzle = spec
            tensors[tname] = rng.standard_normal(shape).astype(dtype)
            buf = dev.to_device(tensors[tname])
            args.append(encode_tiled(buf, box=box, swizzle=swizzle))
            outs.append(buf)
        else:
            args.append(dev.alloc(shape=param.shape, dtype=param.dtype))
    fn.launch_default(args)
    results = [a.numpy() for a, p in zip(args, fn.signature.params)
               if not p.by_value and p in fn.signature.outputs]
    for b in [*outs, *(a for a, p in zip(args, fn.signature.params) if not p.by_value)]:
        b.free()
    return results, REFERENCES[name](tensors)


def compare(name, got, want):
    worst = 0.0
    for g, w in zip(got, want):
        g64, w64 = np.asarray(g, np.float64), np.asarray(w, np.float64)
        if g64.shape != w64.shape or np.isnan(g64).sum() != np.isnan(w64).sum():
            return float("inf")
        worst = max(worst, float(np.nanmax(np.abs(g64 - w64), initial=0.0)))
    return worst


def example_paths() -> list[str]:
    return [*sorted(glob.glob(os.path.join(ROOT, "examples", "cuda", "*.mlir"))),
            *sorted(glob.glob(os.path.join(ROOT, "examples", "cuda", "tile", "*.mlir")))]


def check_examples(dev, start: int = 0, only: set[str] | None = None) -> tuple[bool, int | None]:
    """Run the examples from index ``start``: (all agreed, None), or (ok so far, the index
    of the example after which the device was lost: a fault ends the CUDA context)."""
    import tirx_mlir
    from tirx_mlir.diagnostics import TirxError
    from tirx_mlir.runtime.errors import DeviceLost

    ok = True
    rng = np.random.default_rng(0)
    if start == 0:
        print(f"{'example':28s} {'cuda device':>14s}  vs interpreter device / reference")
    paths = example_paths()
    for index in range(start, len(paths)):
        path = paths[index]
        name = os.path.relpath(path, os.path.join(ROOT, "examples", "cuda"))[:-5]
        if only is not None and name not in only:
            continue
        if name in SKIP:
            print(f"{name:28s} {'skipped':>14s}  {SKIP[name]}")
            continue
        try:
            art = tirx_mlir.compile(path)
            if name in TENSOR_MAPS:
                got, want = run_with_tensor_maps(art, name, dev, rng)
                diff = compare(name, got, want)
                ok &= diff <= 1e-2
                print(f"{name:28s} {'ran':>14s}  max |cuda - numpy| = {diff:.3g}")
                continue
            ins = inputs_for(art, rng, open(path).read() if name.startswith("tile/") else None)
            got = art.run(*ins, device=dev)
        except Exception as err:  # noqa: BLE001 - a failed example is reported, the rest run
            ok = False
            print(f"{name:28s} {'FAILED':>14s}  {type(err).__name__}: "
                  f"{(str(err).splitlines() or [''])[0][:200]}")
            if isinstance(err, DeviceLost):
                return False, index
            continue
        got = got if isinstance(got, tuple) else (got,)
        try:
            if name.startswith("tile/"):  # the tile-level program, as written
                want = tirx_mlir.interpret(open(path).read(), None, *ins, name=path)
            else:
                want = art.run(*ins, device="interpreter")
        except TirxError as err:
            nan = sum(int(np.isnan(np.asarray(g, np.float64)).sum()) for g in got)
            print(f"{name:28s} {'ran':>14s}  interpreter device: not yet "
                  f"({str(err).splitlines()[0][:70]}); cuda NaNs {nan}")
            continue
        want = want if isinstance(want, tuple) else (want,)
        diff = compare(name, got, want)
        scale = max((float(np.nanmax(np.abs(np.asarray(w, np.float64)), initial=0.0))
                     for w in want), default=0.0)
        ok &= diff <= 1e-3 * max(1.0, scale)
        verdict = "" if diff <= 1e-3 * max(1.0, scale) else "  MISMATCH"
        print(f"{name:28s} {'ran':>14s}  max |cuda - interpreter| = {diff:.3g}"
              f" (max |interpreter| {scale:.3g}){verdict}")
    return ok, None


def timed(fn, repeat: int, dev) -> float:
    fn()
    dev.synchronize()
    start = time.perf_counter()
    for _ in range(repeat):
        fn()
    dev.synchronize()
    return (time.perf_counter() - start) / repeat


def bandwidth(dev, repeat: int) -> None:
    import tirx_mlir

    art = tirx_mlir.compile(os.path.join(ROOT, "examples", "cuda", "vector_add.mlir"))
    fn = art.load(dev).get_function("vector_add")
    n = fn.signature.params[0].shape[0]
    bufs = [dev.to_device(np.ones(n, np.float32)) for _ in range(2)]
    bufs.append(dev.alloc(shape=(n,), dtype="f32"))
    t_add = timed(lambda: fn.launch_default(bufs), repeat, dev)
    t_copy = timed(lambda: dev.copy_d2d(bufs[2], bufs[0]), repeat, dev)
    moved_add, moved_copy = 3 * n * 4, 2 * n * 4
    big = 256 << 20
    src, dst = dev.alloc(big), dev.alloc(big)
    t_big = timed(lambda: dev.copy_d2d(dst, src), max(repeat // 20, 5), dev)
    for b in (*bufs, src, dst):
        b.free()
    print(f"vector_add ({n} f32): {t_add * 1e6:8.2f} us, {moved_add / t_add / 1e9:7.2f} GB/s")
    print(f"d2d copy   ({n * 4} B): {t_copy * 1e6:8.2f} us, {moved_copy / t_copy / 1e9:7.2f} GB/s"
          f"   vector_add / copy time: {t_add / t_copy:.2f}x")
    print(f"d2d copy   (256 MiB):  {t_big * 1e3:8.3f} ms, {2 * big / t_big / 1e9:7.1f} GB/s "
          f"(peak copy bandwidth; vector_add reaches {moved_add / t_add / (2 * big / t_big):.1%})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--from", dest="start", type=int, default=0,
                        help="start at this example (a run whose device was lost goes on so)")
    parser.add_argument("--only", default=None,
                        help="these examples alone (comma-separated, e.g. tile/gemm_sm90a), "
                             "without the bandwidth timing (to run under compute-sanitizer)")
    args = parser.parse_args()
    sys.path.insert(0, ROOT)
    from tirx_mlir.backends.cuda.runtime.driver import unavailable_reason
    from tirx_mlir.runtime import get_device

    reason = unavailable_reason()
    if reason is not None:
        print(f"bench/gpu: no GPU to check: {reason}", file=sys.stderr)
        return 2
    dev = get_device("cuda")
    if args.start == 0:
        print(f"device: {dev.name} {dev.arch}, memory free/total {dev.memory_info()}")
    only = None if args.only is None else set(args.only.split(","))
    ok, lost_at = check_examples(dev, args.start, only)
    if lost_at is not None:  # the rest in a new process: a lost CUDA context stays lost
        print("  (the device is lost: the remaining examples run in a new process)")
        child = subprocess.run([sys.executable, os.path.abspath(__file__), "--from",
                                str(lost_at + 1), "--repeat", str(args.repeat),
                                *(["--only", args.only] if args.only else [])])
        return 1 if child.returncode in (0, 1) else child.returncode
    print(f"pool: {dev.pool.stats()}")
    if only is not None:
        return 0 if ok else 1
    bandwidth(dev, args.repeat)
    print(f"pool after the timing: {dev.pool.stats()}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
