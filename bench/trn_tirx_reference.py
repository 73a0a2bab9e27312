"""Compile the reference kernels of bench/trn_compile.py with the real TIRx (``tvm_tirx``).

Run by bench/trn_compile.py in a subprocess with the Python of an environment where
``apache-tvm-tirx`` is installed (e.g. /work/tirx_ref_venv); tirx_mlir never imports TIRx. Prints one
JSON object: ``{kernel: {"compile_ms": [...], "instructions": N}}`` where compile_ms are warm
runs of script construction + ``tvm_tirx.tirx.compile(..., pipeline="trn")`` (lowering and NKI
code generation), and instructions counts the NKI instruction statements of the source.

    /work/tirx_ref_venv/bin/python bench/trn_tirx_reference.py --runs 5
"""

from __future__ import annotations

import argparse
import json
import re
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


KERNELS = {"nki_add_1": nki_add_1, "nki_add_2": nki_add_2, "row_sum": row_sum,
           "softmax_128x512": softmax, "matmul_128": matmul_128, "matmul_512": matmul_512}


def source_of(exe) -> str:
    return exe.mod.imports[0].inspect_source()


def count_instructions(source: str) -> int:
    return sum(1 for line in source.splitlines() if INSTRUCTION.search(line))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    result = {}
    for name, build in KERNELS.items():
        times, source = [], ""
        try:
            for i in range(args.runs + 1):
                start = time.perf_counter()
                exe = tvm.tirx.compile(build(), target=TARGET, pipeline="trn")
                source = source_of(exe)
                if i:  # the first run warms caches
                    times.append((time.perf_counter() - start) * 1e3)
            result[name] = {"compile_ms": times, "instructions": count_instructions(source)}
        except Exception as err:  # noqa: BLE001 - report and go on with the other kernels
            result[name] = {"error": f"{type(err).__name__}: {str(err).splitlines()[-1][:200]}"}
    print(json.dumps(result))


if __name__ == "__main__":
    main()
