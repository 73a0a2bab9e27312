"""Speed on a GPU (bench/gpu/gemm.sh runs it): our GEMMs next to torch.matmul (cuBLAS) and
Triton, our memory-bound kernels next to the device's copy bandwidth, in one run.

    bench/gpu/gemm.sh [--size 4096] [--elems 67108864] [--rows 65536] [--repeat 50] [--dry-run]

GEMM (f16 in, f32 accumulation): examples/cuda/gemm_mma_sync regenerated at ``--size`` (its
generator takes the size; 64x64x32 tiles, 4 warps) and every examples/cuda/tile GEMM resized to
``--size``^3 by resize.py (at the size it declares where its shape cannot be resized; the line
says why), each launched through the project runtime (``tirx_mlir.compile`` -> the CUDA device,
docs/runtime.md), next to ``torch.matmul`` on the same shape and the Triton peers (the same CTA
tile as ours, and Triton's 128x128x64, both with 3 stages; matmul_bias_relu's epilogue is
checked against torch but has no Triton peer) when triton imports. TFLOP/s = 2*M*N*K / time;
ratios ours / cuBLAS and ours / Triton; the result is checked against torch (relative max
error). Memory-bound: examples/cuda/vector_add resized to ``--elems`` f32 and the tile softmax
examples resized to ``--rows`` rows (resize.py), next to a device-to-device copy of the same
bytes and the peak copy bandwidth (a 256 MiB copy); GB/s and ratios. Each time is the mean of
``--repeat`` launches after a warm-up, bracketed by device synchronisations (the same for every
side). Each part says why when its dependency is missing (torch, triton, the GPU) and goes on.

``--dry-run`` needs no GPU: it compiles everything (ours to PTX and a cubin; Triton's peers
ahead of time for ``--arch`` when triton imports), makes the inputs, checks them against the
kernels' signatures and prints every launch it would time. Exit status: 0, 1 a result that
disagrees with torch or a failed compile, 2 no GPU (without --dry-run).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
EXAMPLES = ROOT / "examples" / "cuda"
TOLERANCE = 2e-2
"""Largest |ours - torch| / max |torch| accepted for f16 inputs with f32 accumulation."""


def optional(name: str):
    """The module, or None when it does not import (the part that needs it is skipped)."""
    try:
        return __import__(name)
    except Exception:  # noqa: BLE001 - any failure to import means the part cannot run
        return None


@dataclass
class Case:
    """One kernel of ours to time: its text, the problem it solves, and how to check it."""
    name: str
    kind: str                      # "gemm" or "memory"
    text: str
    note: str = ""
    mnk: tuple[int, int, int] | None = None   # GEMM: M, N, K; B given as N x K (B^T)
    b_nk: bool = True
    moved: int = 0                 # memory-bound: bytes read + written
    reference: str = ""            # memory-bound: "add" or "softmax"
    art: object = None
    error: str = ""
    shapes: list = field(default_factory=list)
    tile: tuple[int, int, int] | None = None   # GEMM: our CTA tile (BM, BN, BK)
    epilogue: str = ""             # GEMM: "bias_relu" (C = relu(A @ B + bias)) or "" (C = A @ B)


def gemm_mma_sync_at(size: int) -> tuple[str, str]:
    """examples/cuda/gemm_mma_sync.mlir's kernel at ``size``^3, from its generator."""
    path = EXAMPLES / "gen_gemm_mma_sync.py"
    spec = importlib.util.spec_from_file_location("gen_gemm_mma_sync", path)
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    if size % gen.TILE or size % gen.KSTEP:
        raise ValueError(f"--size {size} is not a multiple of the {gen.TILE}x{gen.KSTEP} tile")
    gen.SIZE = size
    gen.BUF = f"!tirx.buffer<{size * size}xf16, global>"
    gen.OUT = f"!tirx.buffer<{size * size}xf32, global>"
    text = gen.kernel()
    if f"grid [{size // gen.TILE}, {size // gen.TILE}]" not in text:
        raise ValueError("the generator no longer takes its size from SIZE/BUF/OUT")
    return text, f"64x64x32 tiles, regenerated at {size}^3"


def vector_add_at(n: int) -> str:
    text = (EXAMPLES / "vector_add.mlir").read_text()
    if n % 1024 or "65536xf32" not in text or "grid [64]" not in text:
        raise ValueError(f"vector_add resizes in steps of 1024 elements (got {n})")
    return text.replace("65536xf32", f"{n}xf32").replace("grid [64]", f"grid [{n // 1024}]")


def kernel_of(text: str):
    """The one kernel of the IR ``text``."""
    from tirx_mlir.interpreter.launch import find_kernel
    from tirx_mlir.located_parser import parse_module

    return find_kernel(parse_module(text))


def shapes_of(text: str) -> list[tuple[str, tuple[int, ...], np.dtype]]:
    """(name, shape, numpy dtype) of each buffer parameter, inputs first."""
    from tirx_mlir.dialects.tirx import dtypes
    from tirx_mlir.interpreter.launch import buffer_params

    return [(n, tuple(t.get_shape()), np.dtype(dtypes.numpy_dtype(t.element_type)))
            for n, t in buffer_params(kernel_of(text))]


def b_is_n_by_k(text: str) -> bool:
    """Whether the kernel's one CTA-scope GEMM takes B as N x K (C = A @ B^T): gemm_async's
    K-major B unless ``transpose_b``, tirx.gemm's K x N B with ``transpose_b``. Read from the
    op, not the shapes: a square problem's B is N x K and K x N alike."""
    gemms = [op for op in kernel_of(text).walk()
             if op.name in ("tirx.gemm", "tirx.gemm_async")]
    if len(gemms) != 1:
        raise ValueError(f"expected one tile GEMM, found {len(gemms)}")
    op = gemms[0]
    return (op.transpose_b is None) == (op.name == "tirx.gemm_async")


def tile_cases(size: int, rows: int) -> list[Case]:
    """examples/cuda/tile GEMMs at ``size``^3 and row kernels at ``rows`` rows (resize.py), each
    at its declared size where it cannot be resized (the note says why)."""
    from resize import gemm_at, rows_at
    from triton_peers.ours import gemm_tile

    out = []
    for path in sorted((EXAMPLES / "tile").glob("*.mlir")):
        text, stem = path.read_text(), path.stem.lower()
        name = f"tile/{path.stem}"
        try:
            shapes = shapes_of(text)
        except Exception as err:  # noqa: BLE001
            out.append(Case(name, "skip", text, error=f"does not parse: {err}"))
            continue
        if any(w in stem for w in ("gemm", "matmul", "mma")) and len(shapes) >= 3:
            (_, a, _), (_, c, _) = shapes[0], shapes[-1]
            if len(a) == 2 and len(c) == 2:
                b_nk, tile = b_is_n_by_k(text), gemm_tile(kernel_of(text))
                try:
                    text, note = gemm_at(text, size), f"resized to {size}^3"
                except ValueError as err:
                    note = f"declared size ({err})"
                shapes = shapes_of(text)
                (_, a, _), (_, c, _) = shapes[0], shapes[-1]
                out.append(Case(name, "gemm", text, note, (a[0], c[1], a[1]), b_nk, tile=tile,
                                epilogue="bias_relu" if "bias" in stem and "relu" in stem
                                else ""))
                continue
        if "softmax" in stem or any(w in stem for w in ("add", "elementwise")):
            try:
                text, note = rows_at(text, rows), f"resized to {rows} rows"
            except ValueError as err:
                note = f"declared size ({err})"
            shapes = shapes_of(text)
            nbytes = sum(int(np.prod(s)) * dt.itemsize for _, s, dt in shapes)
            out.append(Case(name, "memory", text, note, moved=nbytes,
                            reference="softmax" if "softmax" in stem else "add"))
    return out


def build_cases(args) -> list[Case]:
    cases = []
    try:
        text, note = gemm_mma_sync_at(args.size)
        cases.append(Case("gemm_mma_sync", "gemm", text, note, (args.size,) * 3))
    except Exception as err:  # noqa: BLE001
        cases.append(Case("gemm_mma_sync", "skip", "", error=str(err)))
    try:
        cases.append(Case("vector_add", "memory", vector_add_at(args.elems),
                          f"{args.elems} f32", moved=3 * args.elems * 4, reference="add"))
    except Exception as err:  # noqa: BLE001
        cases.append(Case("vector_add", "skip", "", error=str(err)))
    cases += tile_cases(args.size, args.rows)
    cases.append(Case("tma_wgmma", "skip", "", error="one 64x128x16 tile without a K loop: "
                      "no GEMM to time at size (a tile-level wgmma GEMM will be)"))
    import tirx_mlir

    for case in cases:
        if case.kind == "skip":
            continue
        try:
            case.art = tirx_mlir.compile(case.text)
            case.shapes = shapes_of(case.text)
            if case.art.binary is None:
                case.error = "; ".join(case.art.notes) or "no cubin"
        except Exception as err:  # noqa: BLE001 - reported, the others go on
            case.error = f"{type(err).__name__}: {str(err).splitlines()[0][:200]}"
    return cases


def kernel_line(case: Case) -> str:
    from tirx_mlir.interpreter.launch import find_kernel

    kernel = find_kernel(case.art.lowered)
    stats = next(iter(case.art.stats.get("kernels", {}).values()), {})
    return (f"grid {list(kernel.grid_dims())} x {kernel.num_threads()} threads, "
            f"{stats.get('registers', '?')} regs, {stats.get('spill_stores', '?')} B spilled, "
            f"{stats.get('shared_bytes', '?')} B static smem")


# ---------------------------------------------------------------------------- the Triton side
def triton_peers(case: Case):
    """[(label, launch(a, b, c), c_dtype)] for a GEMM case: the same tile as ours, then
    Triton's 128x128x64; [] when triton does not import."""
    if optional("triton") is None:
        return []
    from triton_peers import kernels

    m, n, k = case.mnk
    out = []
    same = case.tile or (64, 64, 32)
    for label, (bm, bn, bk), warps in ((f"triton {'x'.join(map(str, same))}", same, 4),
                                       ("triton 128x128x64", (128, 128, 64), 4)):
        if m % bm or n % bn or k % bk:
            continue

        def launch(a, b, c, bm=bm, bn=bn, bk=bk, warps=warps):
            kernels.matmul[(n // bn, m // bm)](a, b, c, M=m, N=n, K=k, BM=bm, BN=bn, BK=bk,
                                               B_NK=case.b_nk, num_warps=warps, num_stages=3)
        out.append((label, launch, (bm, bn, bk)))
    return out


def triton_aot(cases: list[Case], arch: int) -> None:
    """Dry run: compile the Triton peers ahead of time for ``arch``."""
    triton = optional("triton")
    if triton is None:
        print("triton: does not import here; its peers are skipped (the GPU run needs triton "
              "in this Python: pip install triton)")
        return
    from triton.backends.compiler import GPUTarget

    from triton_peers import kernels

    for case in cases:
        if case.kind != "gemm" or case.mnk is None or case.epilogue or case.error:
            continue
        m, n, k = case.mnk
        for bm, bn, bk in dict.fromkeys((case.tile or (64, 64, 32), (128, 128, 64))):
            src = triton.compiler.ASTSource(
                fn=kernels.matmul, signature={"a_ptr": "*fp16", "b_ptr": "*fp16",
                                              "c_ptr": "*fp16", **{c: "constexpr" for c in
                                              ("M", "N", "K", "BM", "BN", "BK", "B_NK")}},
                constexprs={"M": m, "N": n, "K": k, "BM": bm, "BN": bn, "BK": bk,
                            "B_NK": case.b_nk},
                attrs={(i,): [["tt.divisibility", 16]] for i in range(3)})
            start = time.perf_counter()
            got = triton.compile(src, target=GPUTarget("cuda", arch, 32),
                                 options={"num_warps": 4, "num_stages": 3})
            print(f"  triton {bm}x{bn}x{bk} for sm_{arch}: compiled in "
                  f"{time.perf_counter() - start:.2f} s, {got.metadata.shared} B shared; would "
                  f"launch grid ({n // bn}, {m // bm}) x {got.metadata.num_warps * 32} threads")


# ---------------------------------------------------------------------------- timing
def arguments(fn, bufs: list, dev) -> list:
    """The launch's arguments from our buffers, given in the order of the user's parameters:
    the tensor maps a TMA kernel's lowering adds are built over them on the host."""
    sig = fn.signature
    return sig.build_arguments(dict(zip(sig.user_params, bufs)), dev)


def timed(fn, repeat: int, sync) -> float:
    fn()
    sync()
    start = time.perf_counter()
    for _ in range(repeat):
        fn()
    sync()
    return (time.perf_counter() - start) / repeat


def run_gemm(case: Case, dev, torch, repeat: int) -> bool:
    m, n, k = case.mnk
    flops = 2 * m * n * k
    rng = np.random.default_rng(0)
    a = rng.standard_normal((m, k), dtype=np.float32).astype(np.float16)
    b = rng.standard_normal((n, k) if case.b_nk else (k, n), dtype=np.float32).astype(np.float16)
    extra = [rng.standard_normal(s, dtype=np.float32).astype(dt)
             for _, s, dt in case.shapes[2:-1]]   # epilogue operands (a 1 x N bias)
    fn = case.art.load(dev).only_function()
    bufs = [dev.to_device(a.reshape(case.shapes[0][1])), dev.to_device(b.reshape(case.shapes[1][1])),
            *(dev.to_device(x) for x in extra),
            dev.alloc(shape=case.shapes[-1][1], dtype=case.shapes[-1][2])]
    args = arguments(fn, bufs, dev)
    t_ours = timed(lambda: fn.launch_default(args), repeat, dev.synchronize)
    ours = np.asarray(bufs[-1].numpy(), np.float32).reshape(m, n)
    for buf in bufs:
        buf.free()
    print(f"{case.name:22s} ours    {t_ours * 1e3:9.3f} ms {flops / t_ours / 1e12:8.2f} TFLOP/s"
          f"   ({case.note}; {kernel_line(case)})")
    ok = True
    if torch is None:
        print(f"{'':22s} torch   skipped: torch does not import")
        return ok
    ta, tb = torch.from_numpy(a).cuda(), torch.from_numpy(b).cuda()
    tbk = tb.T if case.b_nk else tb
    t_torch = timed(lambda: torch.matmul(ta, tbk), repeat, torch.cuda.synchronize)
    want = torch.matmul(ta.float(), tbk.float())
    if case.epilogue == "bias_relu":
        want = torch.relu(want + torch.from_numpy(extra[0]).cuda())
    want = want.cpu().numpy()
    err = float(np.max(np.abs(ours - want)) / max(np.max(np.abs(want)), 1e-30))
    ok = err <= TOLERANCE
    what = "cuBLAS (the matmul alone)" if case.epilogue else "cuBLAS"
    print(f"{'':22s} {what:7s} {t_torch * 1e3:9.3f} ms {flops / t_torch / 1e12:8.2f} TFLOP/s"
          f"   ours / cuBLAS {t_torch / t_ours:6.1%} of its speed; ours vs torch f32: rel err "
          f"{err:.2e} {'ok' if ok else 'MISMATCH'}")
    peers = [] if case.epilogue else triton_peers(case)
    if not peers:
        print(f"{'':22s} triton  skipped: "
              + ("a plain-GEMM peer only" if case.epilogue else "triton does not import"))
    for label, launch, _ in peers:
        c = torch.empty((m, n), dtype=torch.float16, device="cuda")
        try:
            t_tri = timed(lambda: launch(ta, tb, c), repeat, torch.cuda.synchronize)
        except Exception as err:  # noqa: BLE001 - one failed peer is reported
            print(f"{'':22s} {label}: failed: {str(err).splitlines()[0][:120]}")
            continue
        print(f"{'':22s} {label:18s} {t_tri * 1e3:9.3f} ms {flops / t_tri / 1e12:8.2f} TFLOP/s"
              f"   ours / it {t_tri / t_ours:6.1%} of its speed")
    return ok


def run_memory(case: Case, dev, torch, repeat: int, peak: float) -> bool:
    rng = np.random.default_rng(0)
    fn = case.art.load(dev).only_function()
    n_in = len(case.shapes) - 1
    host = [rng.standard_normal(s, dtype=np.float32).astype(dt)
            for _, s, dt in case.shapes[:n_in]]
    bufs = [dev.to_device(h) for h in host]
    out_name, out_shape, out_dt = case.shapes[-1]
    bufs.append(dev.alloc(shape=out_shape, dtype=out_dt))
    args = arguments(fn, bufs, dev)
    t_ours = timed(lambda: fn.launch_default(args), repeat, dev.synchronize)
    got = np.asarray(bufs[-1].numpy(), np.float64)
    half = case.moved // 2
    src, dst = dev.alloc(half), dev.alloc(half)
    t_copy = timed(lambda: dev.copy_d2d(dst, src), repeat, dev.synchronize)
    for buf in (*bufs, src, dst):
        buf.free()
    x = [h.astype(np.float64) for h in host]
    if case.reference == "add":
        want = x[0] + x[1]
    else:
        e = np.exp(x[0] - x[0].max(axis=-1, keepdims=True))
        want = e / e.sum(axis=-1, keepdims=True)
    err = float(np.max(np.abs(got.reshape(want.shape) - want)))
    ok = err <= TOLERANCE
    gbs = case.moved / t_ours / 1e9
    print(f"{case.name:22s} ours    {t_ours * 1e6:9.1f} us {gbs:8.1f} GB/s   ({case.note}; "
          f"max err {err:.1e} {'ok' if ok else 'MISMATCH'})")
    print(f"{'':22s} copy    {t_copy * 1e6:9.1f} us {case.moved / t_copy / 1e9:8.1f} GB/s   "
          f"(the same bytes, device to device) ours / copy {t_copy / t_ours:6.1%}, "
          f"ours / peak copy {gbs / peak:6.1%}")
    if torch is not None:
        tx = [torch.from_numpy(h).cuda() for h in host]
        op = (lambda: torch.add(tx[0], tx[1])) if case.reference == "add" else \
            (lambda: torch.softmax(tx[0], dim=-1))
        t_t = timed(op, repeat, torch.cuda.synchronize)
        print(f"{'':22s} torch   {t_t * 1e6:9.1f} us {case.moved / t_t / 1e9:8.1f} GB/s   "
              f"ours / torch {t_t / t_ours:6.1%} of its speed")
    return ok


def peak_copy(dev, repeat: int) -> float:
    big = 256 << 20
    src, dst = dev.alloc(big), dev.alloc(big)
    t = timed(lambda: dev.copy_d2d(dst, src), max(repeat // 5, 5), dev.synchronize)
    src.free()
    dst.free()
    return 2 * big / t / 1e9


# ---------------------------------------------------------------------------- main
def dry_run(cases: list[Case], args) -> int:
    print(f"dry run: compiled, nothing launched (GPU: {gpu_reason() or 'present'})")
    bad = 0
    for case in cases:
        if case.kind == "skip" or case.error:
            bad += bool(case.error and case.kind != "skip")
            print(f"{case.name:22s} {'skipped' if case.kind == 'skip' else 'FAILED'}: "
                  f"{case.error}")
            continue
        ptx = case.art.sources.get("ptx", "")
        what = (f"{2 * np.prod(case.mnk) / 1e9:.3g} GFLOP, {case.mnk}" if case.kind == "gemm"
                else f"{case.moved / 1e6:.3g} MB moved")
        shapes = ", ".join(f"{n}: {'x'.join(map(str, s))} {dt}" for n, s, dt in case.shapes)
        print(f"{case.name:22s} would launch {kernel_line(case)}; {what}; {len(ptx)} B of PTX, "
              f"{len(case.art.binary)} B cubin for {case.art.stats.get('arch')}")
        print(f"{'':22s} buffers {shapes}; references: "
              + ("torch.matmul, Triton peers" if case.kind == "gemm" else
                 f"d2d copy of the same bytes, torch.{case.reference}"))
    print(f"torch: {'imports' if optional('torch') else 'does not import: its parts are skipped'}")
    triton_aot(cases, args.arch)
    return 1 if bad else 0


def gpu_reason() -> str | None:
    try:
        from tirx_mlir.backends.cuda.runtime.driver import unavailable_reason
    except Exception as err:  # noqa: BLE001
        return f"the CUDA runtime does not import: {err}"
    return unavailable_reason()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=4096, help="M = N = K of the GEMMs")
    parser.add_argument("--elems", type=int, default=1 << 26, help="f32 elements of vector_add")
    parser.add_argument("--rows", type=int, default=1 << 16,
                        help="rows of the tile row kernels (softmax)")
    parser.add_argument("--repeat", type=int, default=50)
    parser.add_argument("--arch", type=int, default=90, help="Triton's target in --dry-run")
    parser.add_argument("--dry-run", action="store_true",
                        help="compile and print the launches; needs no GPU")
    args = parser.parse_args(argv)
    missing = [m for m in ("xdsl", "ml_dtypes") if optional(m) is None]
    if missing:
        print(f"bench/gpu/gemm: {sys.executable} lacks {', '.join(missing)}: pip install -e "
              f"'{ROOT}[cuda]' first", file=sys.stderr)
        return 2
    os.environ.setdefault("TRITON_DEFAULT_FP_FUSION", "1")
    if not args.dry_run and (reason := gpu_reason()) is not None:
        print(f"bench/gpu/gemm: no GPU: {reason} (--dry-run compiles without one)",
              file=sys.stderr)
        return 2
    cases = build_cases(args)
    if args.dry_run:
        return dry_run(cases, args)
    from tirx_mlir.runtime import get_device

    dev = get_device("cuda")
    torch = optional("torch")
    if torch is not None and not torch.cuda.is_available():
        print("torch: imports but sees no GPU; its parts are skipped")
        torch = None
    print(f"device: {dev.name} {dev.arch}; torch {getattr(torch, '__version__', 'absent')}, "
          f"triton {getattr(optional('triton'), '__version__', 'absent')}")
    peak = peak_copy(dev, args.repeat)
    print(f"peak copy bandwidth (256 MiB device to device): {peak:.1f} GB/s\n")
    ok = True
    for case in cases:
        if case.kind == "skip" or case.error:
            ok &= case.kind == "skip"
            print(f"{case.name:22s} {'skipped' if case.kind == 'skip' else 'FAILED'}: "
                  f"{case.error}")
            continue
        try:
            ok &= (run_gemm(case, dev, torch, args.repeat) if case.kind == "gemm"
                   else run_memory(case, dev, torch, args.repeat, peak))
        except Exception as err:  # noqa: BLE001 - one failed case is reported, the rest run
            ok = False
            print(f"{case.name:22s} FAILED: {type(err).__name__}: {str(err).splitlines()[0]}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
