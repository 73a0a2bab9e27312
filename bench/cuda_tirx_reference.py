"""Produce CUDA C++ with the real TIRx (``tvm_tirx``) for the peers of our CUDA examples, timed.

Run with the Python of an environment where ``apache-tvm-tirx`` is installed (e.g.
/work/tirx_ref_venv, made by ``pip install apache-tvm-tirx==0.1.0a4``); tirx_mlir never imports
TIRx. bench/cuda_print.py runs it in a subprocess, side by side with ours.

The kernels are written with TIRx's own script API (``tvm_tirx.script.tirx``, its ``T.ptx`` and
``T.cuda`` namespaces) and do what the examples of examples/cuda of the same name do:

* ``vector_add``: 64 blocks of 256 threads, each thread one ``ld.global.nc.v4.f32`` of A and of
  B, four adds, one ``st.global.v4.f32``;
* ``mma_tile``: one warp stages a 16x16 A and an 8x16 B^T (f16) in shared memory, ``ldmatrix``
  x4 / x2, one ``mma.sync.m16n8k16`` from a zero accumulator, stores the 16x8 f32 D;
* ``gemm_mma_sync``: the 256x256x256 f16 -> f32 GEMM, 4x4 blocks of 4 warps, 64x64 block tiles,
  K steps of 32 staged with ``ld.global.nc.v4.b32`` / ``st.shared.v4.b32`` in the 64-byte
  swizzle, per K half two ``ldmatrix.x4`` for A and two for B^T, then 8 ``mma.sync`` per warp.

What is timed, per run, wall (``time.perf_counter``) and CPU (``time.process_time``) apart:

* ``script``: building the function from its Python source (the ``@T.function`` parser);
* ``compile``: ``tvm_tirx.tirx.compile(func, target=cuda sm_80)``: the TIRx lowering pipeline,
  the host launcher's LLVM code generation and the CUDA C++ code generation. This wheel's CUDA
  device module is the source-only fallback ("CUDA runtime is not linked into this build"), so
  nothing is compiled by NVRTC or nvcc;
* ``source``: ``exe.mod.imports[0].inspect_source()``, the CUDA C++ text.

    python bench/cuda_tirx_reference.py --runs 5 [--kernels vector_add,gemm_mma_sync]
        prints one JSON object {kernel: {"wall_ms": [...], "cpu_ms": [...], "stages": {stage:
        {"wall_ms": [...], "cpu_ms": [...]}}, "ptx_sites": {opcode: n}, "source_lines": n}},
        after one untimed warm-up run of each kernel; a kernel that fails has {"error": text};
        "_meta" holds the TIRx version, the arch, the target and the device module's kind.
    python bench/cuda_tirx_reference.py --serve
        warms every kernel, prints the "_meta" line (with each kernel's "ptx_sites"), then for
        each line of stdin (a JSON list of kernel names) prints one JSON line {kernel: {"stages":
        {stage: [wall_s, cpu_s]}}} (or {"error": text}): the alternating rounds of
        bench/cuda_print.py without an import per round.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import sys
import time
from pathlib import Path

import tvm_tirx as tvm
from tvm_tirx.script import tirx as T

sys.path.insert(0, str(Path(__file__).resolve().parent))

from cuda_source_sites import ptx_sites  # noqa: E402

TARGET = {"kind": "cuda", "arch": "sm_80"}
MMA = "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
STAGES = ("script", "compile", "source")


def vector_add():
    @T.function
    def vector_add(A: T.Tensor((65536,), "float32"), B: T.Tensor((65536,), "float32"),
                   C: T.Tensor((65536,), "float32")):
        with T.launch_thread("blockIdx.x", 64) as bx:
            with T.launch_thread("threadIdx.x", 256) as tx:
                a = T.alloc_local((4,), "float32")
                b = T.alloc_local((4,), "float32")
                s = T.alloc_local((4,), "float32")
                i = (bx * 256 + tx) * 4
                T.ptx.ld.global_.nc.v4.f32(a[0], a[1], a[2], a[3], A.ptr_to([i]))
                T.ptx.ld.global_.nc.v4.f32(b[0], b[1], b[2], b[3], B.ptr_to([i]))
                for v in T.unroll(4):
                    s[v] = a[v] + b[v]
                T.ptx.st.global_.v4.f32(C.ptr_to([i]), s[0], s[1], s[2], s[3])
    return vector_add


def mma_tile():
    @T.function
    def mma_tile(A: T.Tensor((256,), "float16"), Bt: T.Tensor((128,), "float16"),
                 D: T.Tensor((128,), "float32")):
        with T.launch_thread("blockIdx.x", 1):
            with T.launch_thread("threadIdx.x", 32) as lane:
                sA = T.alloc_shared((256,), "float16")
                sB = T.alloc_shared((128,), "float16")
                fa = T.alloc_local((4,), "uint32")
                fb = T.alloc_local((2,), "uint32")
                d = T.alloc_local((4,), "float32")
                for k in range(4):  # two f16 a lane (ours: one __half2 copy)
                    for v in T.unroll(2):
                        sA[k * 64 + lane * 2 + v] = A[k * 64 + lane * 2 + v]
                for k in range(2):
                    for v in T.unroll(2):
                        sB[k * 64 + lane * 2 + v] = Bt[k * 64 + lane * 2 + v]
                T.cuda.cta_sync()
                T.ptx.ldmatrix.sync.aligned.m8n8.x4.shared__cta.b16(
                    fa[0], fa[1], fa[2], fa[3], sA.ptr_to([lane % 16 * 16 + lane // 16 * 8]))
                T.ptx.ldmatrix.sync.aligned.m8n8.x2.shared__cta.b16(
                    fb[0], fb[1], sB.ptr_to([lane % 8 * 16 + lane // 8 % 2 * 8]))
                T.ptx[MMA](d[0], d[1], d[2], d[3], fa[0], fa[1], fa[2], fa[3], fb[0], fb[1],
                           T.float32(0), T.float32(0), T.float32(0), T.float32(0))
                for e in T.unroll(4):
                    D[lane // 4 * 8 + lane % 4 * 2 + e // 2 * 64 + e % 2] = d[e]
    return mma_tile


def gemm_mma_sync():
    @T.function
    def gemm_mma_sync(A: T.Tensor((65536,), "float16"), Bt: T.Tensor((65536,), "float16"),
                      D: T.Tensor((65536,), "float32")):
        with T.launch_thread("blockIdx.y", 4) as by:
            with T.launch_thread("blockIdx.x", 4) as bx:
                with T.launch_thread("threadIdx.x", 128) as t:
                    sA = T.alloc_shared((2048,), "float16")  # 64 x 32, 64-byte rows
                    sB = T.alloc_shared((2048,), "float16")
                    acc = T.alloc_local((32,), "float32")  # 2 x 4 mma tiles x 4 a lane
                    fa = T.alloc_local((8,), "uint32")
                    fb = T.alloc_local((8,), "uint32")
                    v = T.alloc_local((4,), "uint32")
                    for e in T.unroll(32):
                        acc[e] = T.float32(0)
                    lane = t % 32
                    wm = t // 64
                    wn = t // 32 % 2
                    crow = t // 4
                    cq = t % 4
                    for kt in range(8):
                        for h in T.unroll(2):  # rows crow and crow + 32; chunk cq ^ (row / 2) % 4
                            row = crow + 32 * h
                            s = row * 32 + T.bitwise_xor(cq, row // 2 % 4) * 8
                            T.ptx.ld.global_.nc.v4.b32(
                                v[0], v[1], v[2], v[3],
                                A.ptr_to([(by * 64 + row) * 256 + kt * 32 + cq * 8]))
                            T.ptx.st.shared.v4.b32(sA.ptr_to([s]), v[0], v[1], v[2], v[3])
                            T.ptx.ld.global_.nc.v4.b32(
                                v[0], v[1], v[2], v[3],
                                Bt.ptr_to([(bx * 64 + row) * 256 + kt * 32 + cq * 8]))
                            T.ptx.st.shared.v4.b32(sB.ptr_to([s]), v[0], v[1], v[2], v[3])
                        T.cuda.cta_sync()
                        for kk in T.unroll(2):
                            for i in T.unroll(2):
                                ra = wm * 32 + 16 * i + lane % 16
                                ca = lane // 16 + 2 * kk
                                T.ptx.ldmatrix.sync.aligned.m8n8.x4.shared__cta.b16(
                                    fa[4 * i], fa[4 * i + 1], fa[4 * i + 2], fa[4 * i + 3],
                                    sA.ptr_to([ra * 32 + T.bitwise_xor(ca, ra // 2 % 4) * 8]))
                            for p in T.unroll(2):
                                rb = wn * 32 + 16 * p + 8 * (lane // 16) + lane % 8
                                cb = lane // 8 % 2 + 2 * kk
                                T.ptx.ldmatrix.sync.aligned.m8n8.x4.shared__cta.b16(
                                    fb[4 * p], fb[4 * p + 1], fb[4 * p + 2], fb[4 * p + 3],
                                    sB.ptr_to([rb * 32 + T.bitwise_xor(cb, rb // 2 % 4) * 8]))
                            for i in T.unroll(2):
                                for j in T.unroll(4):
                                    c = 16 * i + 4 * j
                                    b = 4 * (j // 2) + 2 * (j % 2)
                                    T.ptx[MMA](acc[c], acc[c + 1], acc[c + 2], acc[c + 3],
                                               fa[4 * i], fa[4 * i + 1], fa[4 * i + 2],
                                               fa[4 * i + 3], fb[b], fb[b + 1],
                                               acc[c], acc[c + 1], acc[c + 2], acc[c + 3])
                        T.cuda.cta_sync()
                    for i in T.unroll(2):
                        for j in T.unroll(4):
                            for e in T.unroll(4):
                                D[(by * 64 + wm * 32 + lane // 4 + 16 * i + 8 * (e // 2)) * 256
                                  + bx * 64 + wn * 32 + lane % 4 * 2 + 8 * j + e % 2] = \
                                    acc[16 * i + 4 * j + e]
    return gemm_mma_sync


KERNELS = {"vector_add": vector_add, "mma_tile": mma_tile, "gemm_mma_sync": gemm_mma_sync}
"""Kernel name (the stem of its examples/cuda peer) -> a function building it."""


class Lap:
    """Wall and CPU seconds since the last lap (or the start)."""

    def __init__(self) -> None:
        self.wall, self.cpu = time.perf_counter(), time.process_time()

    def __call__(self) -> list[float]:
        wall, cpu = time.perf_counter(), time.process_time()
        lap, self.wall, self.cpu = [wall - self.wall, cpu - self.cpu], wall, cpu
        return lap


def run_once(name: str, target) -> tuple[dict[str, list[float]], str]:
    """One run of ``name``: ``({stage: [wall_s, cpu_s]}, CUDA source)``."""
    lap = Lap()
    func = KERNELS[name]()
    stages = {"script": lap()}
    exe = tvm.tirx.compile(func, target=target)
    stages["compile"] = lap()
    source = exe.mod.imports[0].inspect_source()
    stages["source"] = lap()
    return stages, source


def error_text(err: Exception) -> str:
    lines = [line for line in str(err).splitlines() if line.strip()]
    return f"{type(err).__name__}: {(lines[-1] if lines else '')[:300]}"


def meta(target) -> dict:
    """The TIRx version, the target, and the kind of the device module the compile gives."""
    info = {"version": importlib.metadata.version("apache-tvm-tirx"), "arch": TARGET["arch"],
            "target": str(target)}
    try:
        info["device_module"] = tvm.tirx.compile(KERNELS["vector_add"](),
                                                 target=target).mod.imports[0].kind
    except Exception as err:  # noqa: BLE001 - reported, the kernels report their own errors
        info["device_module"] = error_text(err)
    return info


def summary(runs: list[dict[str, list[float]]], source: str) -> dict:
    ms = lambda stage, k: [r[stage][k] * 1e3 for r in runs]  # noqa: E731
    return {"wall_ms": [sum(r[s][0] for s in STAGES) * 1e3 for r in runs],
            "cpu_ms": [sum(r[s][1] for s in STAGES) * 1e3 for r in runs],
            "stages": {s: {"wall_ms": ms(s, 0), "cpu_ms": ms(s, 1)} for s in STAGES},
            "ptx_sites": ptx_sites(source), "source_lines": source.count("\n")}


def one_shot(names: list[str], runs: int, target) -> dict:
    result = {"_meta": meta(target)}
    for name in names:
        try:
            run_once(name, target)  # untimed warm-up
            samples = [run_once(name, target) for _ in range(runs)]
            result[name] = summary([s for s, _ in samples], samples[-1][1])
        except Exception as err:  # noqa: BLE001 - report and go on with the other kernels
            result[name] = {"error": error_text(err)}
    return result


def serve(target) -> None:
    """Warm every kernel, then answer one JSON line per request line (a JSON list of names)."""
    failed, sites = {}, {}
    for name in KERNELS:
        try:
            sites[name] = ptx_sites(run_once(name, target)[1])
        except Exception as err:  # noqa: BLE001 - answered as this kernel's error
            failed[name] = error_text(err)
    print(json.dumps({"_meta": {**meta(target), "ptx_sites": sites}}), flush=True)
    for line in sys.stdin:
        answer = {}
        for name in json.loads(line):
            if name not in KERNELS:
                answer[name] = {"error": f"no TIRx kernel named {name!r}"}
            elif name in failed:
                answer[name] = {"error": failed[name]}
            else:
                try:
                    answer[name] = {"stages": run_once(name, target)[0]}
                except Exception as err:  # noqa: BLE001
                    answer[name] = {"error": error_text(err)}
        print(json.dumps(answer), flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="timed runs a kernel (one-shot mode)")
    parser.add_argument("--kernels", default="", help=f"comma-separated, of {', '.join(KERNELS)}"
                        " (default: all)")
    parser.add_argument("--serve", action="store_true", help="answer rounds on stdin")
    args = parser.parse_args(argv)
    target = tvm.target.Target(TARGET)
    if args.serve:
        serve(target)
        return 0
    names = [n for n in args.kernels.split(",") if n] or list(KERNELS)
    unknown = [n for n in names if n not in KERNELS]
    if unknown:
        parser.error(f"unknown kernel(s) {', '.join(unknown)}; known: {', '.join(KERNELS)}")
    print(json.dumps(one_shot(names, args.runs, target)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
