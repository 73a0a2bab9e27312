"""Compile the reference kernels of bench/trn_compile.py with the real TIRx (``tvm_tirx``).

Run by bench/trn_compile.py in a subprocess with the Python of an environment where
``apache-tvm-tirx`` is installed (e.g. /work/tirx_ref_venv); tirx_mlir never imports TIRx. Prints one
JSON object: ``{kernel: {"compile_ms": [...], "instructions": N}}`` where compile_ms are warm
runs of script construction + ``tvm_tirx.tirx.compile(..., pipeline="trn")`` (lowering and NKI
code generation), and instructions counts the NKI instruction statements of the source. With
``--serve`` it answers the alternating rounds of bench/trn_compile.py instead (see `serve`).

    /work/tirx_ref_venv/bin/python bench/trn_tirx_reference.py --runs 5
    /work/tirx_ref_venv/bin/python bench/trn_tirx_reference.py --serve
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time

import tvm_tirx as tvm
from tvm_tirx.backend.trn.axis import F, P
from tvm_tirx.script import tirx as T

TARGET = tvm.target.Target("aws/trn1/trn1.2xlarge")
INSTRUCTION = re.compile(r"nl\.load\(|nl\.store\(|nisa\.\w+\(|^\s*\w+\[[^=]*\]\s*=\s*-?[\d.]+e[+-]\d+\s*$")


def sbuf(shape, layout, dtype="float32"):
    return T.alloc_tensor(ty_args=[T.Tensor(shape, dtype, scope="trn.sbuf",
                                            layout=T.TileLayout(layout))])


def nki_add_1():
    @T.function
    def kernel(A: T.Tensor((128, 512), "float32"), B: T.Tensor((128, 512), "float32")):
        T.func_attr({"trn.num_input_args": 1})
        T.device_entry()
        a = sbuf((128, 512), T.S[(128, 512):(1 @ P, 1 @ F)])
        b = sbuf((128, 512), T.S[(128, 512):(1 @ P, 1 @ F)])
        T.trn.tile.load(a, A)
        T.trn.tile.tensorscalar(b, a, T.float32(1.0), opcode="add")
        T.trn.tile.store(B, b)
    return kernel


def nki_add_2():
    @T.function
    def kernel(A: T.Tensor((128, 2048), "float32"), B: T.Tensor((128, 2048), "float32")):
        T.func_attr({"trn.num_input_args": 1})
        T.device_entry()
        a = sbuf((128, 512), T.S[(128, 512):(1 @ P, 1 @ F)])
        b = sbuf((128, 512), T.S[(128, 512):(1 @ P, 1 @ F)])
        for k in range(4):
            T.trn.tile.load(a, A[:, k * 512:k * 512 + 512])
            T.trn.tile.tensorscalar(b, a, T.float32(1.0), opcode="add")
            T.trn.tile.store(B[:, k * 512:k * 512 + 512], b)
    return kernel


def row_sum():
    @T.function
    def kernel(X: T.Tensor((128, 2048), "float32"), S: T.Tensor((128, 1), "float32")):
        T.func_attr({"trn.num_input_args": 1})
        T.device_entry()
        x = sbuf((128, 2048), T.S[(128, 2048):(1 @ P, 1 @ F)])
        s = sbuf((128, 1), T.S[(128, 1):(1 @ P, 1 @ F)])
        T.trn.tile.load(x, X)
        T.trn.tile.tensorreduce(s, x, reduce_op="sum")
        T.trn.tile.store(S, s)
    return kernel


def softmax():
    @T.function
    def kernel(X: T.Tensor((128, 512), "float32"), Y: T.Tensor((128, 512), "float32")):
        T.func_attr({"trn.num_input_args": 1})
        T.device_entry()
        x = sbuf((128, 512), T.S[(128, 512):(1 @ P, 1 @ F)])
        m = sbuf((128, 1), T.S[(128, 1):(1 @ P, 1 @ F)])
        s = sbuf((128, 1), T.S[(128, 1):(1 @ P, 1 @ F)])
        T.trn.tile.load(x, X)
        T.trn.tile.tensorreduce(m, x, reduce_op="max", negate=True)
        T.trn.tile.activation_reduce(x, s, x, bias=m, opcode="exp", reduce_op="sum")
        T.trn.tile.reciprocal(s, s)
        T.trn.tile.tensorscalar(x, x, s, opcode="mul")
        T.trn.tile.store(Y, x)
    return kernel


def matmul_128():
    @T.function
    def kernel(AT: T.Tensor((128, 128), "float32"), B: T.Tensor((128, 128), "float32"),
               C: T.Tensor((128, 128), "float32")):
        T.func_attr({"trn.num_input_args": 2})
        T.device_entry()
        at = sbuf((128, 128), T.S[(128, 128):(1 @ P, 1 @ F)])
        b = sbuf((128, 128), T.S[(128, 128):(1 @ P, 1 @ F)])
        c = sbuf((128, 128), T.S[(128, 128):(1 @ P, 1 @ F)])
        T.trn.tile.load(at, AT)
        T.trn.tile.load(b, B)
        T.trn.tile.matmul(c, at, b, transpose_A=True)
        T.trn.tile.store(C, c)
    return kernel


def matmul_512():
    @T.function
    def kernel(AT: T.Tensor((512, 512), "float32"), B: T.Tensor((512, 512), "float32"),
               C: T.Tensor((512, 512), "float32")):
        T.func_attr({"trn.num_input_args": 2})
        T.device_entry()
        at = sbuf((512, 512), T.S[(4, 128, 512):(512 @ F, 1 @ P, 1 @ F)])
        b = sbuf((512, 512), T.S[(4, 128, 512):(512 @ F, 1 @ P, 1 @ F)])
        c = sbuf((512, 512), T.S[(4, 128, 512):(512 @ F, 1 @ P, 1 @ F)])
        T.trn.tile.load(at, AT)
        T.trn.tile.load(b, B)
        T.trn.tile.matmul(c, at, b, transpose_A=True)
        T.trn.tile.store(C, c)
    return kernel


def matmul_wide_n():
    """N = 5120: ten 512-column PSUM tiles (TIRx's gemm loops over N, rotating 8 PSUM banks)."""
    @T.function
    def kernel(AT: T.Tensor((128, 128), "float32"), B: T.Tensor((128, 5120), "float32"),
               C: T.Tensor((128, 5120), "float32")):
        T.func_attr({"trn.num_input_args": 2})
        T.device_entry()
        at = sbuf((128, 128), T.S[(128, 128):(1 @ P, 1 @ F)])
        b = sbuf((128, 5120), T.S[(128, 5120):(1 @ P, 1 @ F)])
        c = sbuf((128, 5120), T.S[(128, 5120):(1 @ P, 1 @ F)])
        T.trn.tile.load(at, AT)
        T.trn.tile.load(b, B)
        T.trn.tile.matmul(c, at, b, transpose_A=True)
        T.trn.tile.store(C, c)
    return kernel


KERNELS = {"nki_add_1": nki_add_1, "nki_add_2": nki_add_2, "row_sum": row_sum,
           "softmax_128x512": softmax, "matmul_128": matmul_128, "matmul_512": matmul_512,
           "matmul_wide_n": matmul_wide_n}


def source_of(exe) -> str:
    return exe.mod.imports[0].inspect_source()


def count_instructions(source: str) -> int:
    return sum(1 for line in source.splitlines() if INSTRUCTION.search(line))


def compile_once(name: str) -> tuple[tuple[float, float], str]:
    """``((wall_s, cpu_s), NKI source)`` of script construction + compile + source of one kernel."""
    wall, cpu = time.perf_counter(), time.process_time()
    exe = tvm.tirx.compile(KERNELS[name](), target=TARGET, pipeline="trn")
    source = source_of(exe)
    return (time.perf_counter() - wall, time.process_time() - cpu), source


def error_text(err: Exception) -> str:
    return f"{type(err).__name__}: {str(err).splitlines()[-1][:200] if str(err) else ''}"


def serve() -> None:
    """Warm every kernel, print ``{"_meta": {"instructions": {kernel: n}, "errors": {...}}}``,
    then answer each stdin line (a JSON list of kernel names) with one JSON line
    ``{kernel: [wall_s, cpu_s]}`` (``{kernel: {"error": text}}`` for one that fails)."""
    counts, failed = {}, {}
    for name in KERNELS:
        try:
            counts[name] = count_instructions(compile_once(name)[1])
        except Exception as err:  # noqa: BLE001 - answered as this kernel's error
            failed[name] = error_text(err)
    print(json.dumps({"_meta": {"version": tvm.__version__, "instructions": counts,
                                "errors": failed}}), flush=True)
    for line in sys.stdin:
        answer: dict = {}
        for name in json.loads(line):
            if name in failed or name not in KERNELS:
                answer[name] = {"error": failed.get(name, f"no TIRx kernel named {name!r}")}
                continue
            answer[name] = compile_once(name)[0]
        print(json.dumps(answer), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--serve", action="store_true",
                        help="answer rounds on stdin (bench/trn_compile.py's alternating rounds)")
    args = parser.parse_args()
    if args.serve:
        serve()
        return
    result = {}
    for name in KERNELS:
        times, source = [], ""
        try:
            for i in range(args.runs + 1):
                (wall, _), source = compile_once(name)
                if i:  # the first run warms caches
                    times.append(wall * 1e3)
            result[name] = {"compile_ms": times, "instructions": count_instructions(source)}
        except Exception as err:  # noqa: BLE001 - report and go on with the other kernels
            result[name] = {"error": error_text(err)}
    print(json.dumps(result))


if __name__ == "__main__":
    main()
