"""Our side of the CUDA benches: the examples, compiled stage by stage, and their Triton peers.

`examples()` lists examples/cuda/*.mlir (CUDA level: written with the cuda/ptx ops, no
pipeline) and examples/cuda/tile/*.mlir (tile level: the "cuda" pipeline, once it is
registered), each with its arch (from the kernel's target) and its peer (peers.PEERS by
``ours``, else derived from its signature; a row kernel's block of rows is read from the
slices of its first buffer, and its one-row-per-program form comes as ``others``). `compile_stages(example)` parses, runs the
pipeline, prints ``-t ptx`` and ``-t cuda``, timing each stage in this process; `ptxas(ptx,
arch)` assembles the PTX to a cubin (timed, a subprocess as Triton's is).
"""

from __future__ import annotations

import io
import re
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from triton_peers.peers import (PEERS, KernelShape, Param, Peer, one_row_peer,
                                peer_from_signature)

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "cuda"
SKIP = {"nvshmem_ring": "calls NVSHMEM (the -t ptx printer refuses it)"}


@dataclass
class Example:
    name: str           # "cuda/vector_add", "cuda/tile/softmax"
    path: Path
    tile_level: bool
    arch: str           # "sm_80", "sm_90a"
    shape: KernelShape
    peer: Peer | None
    others: tuple[Peer, ...] = ()  # more Triton forms shown beside the peer (one row/program)

    @property
    def stem(self) -> str:
        return self.path.stem


def _arch_of(text: str) -> str:
    m = re.search(r"-arch=(sm_\d+a?)", text)
    return m.group(1) if m else "sm_80"


def kernel_shape(path: Path, text: str, arch: str) -> KernelShape:
    from tirx_mlir.interpreter.launch import buffer_params, find_kernel
    from tirx_mlir.located_parser import parse_module

    kernel = find_kernel(parse_module(text, str(path)))
    params = [Param(name, tuple(t.get_shape()), str(t.element_type))
              for name, t in buffer_params(kernel)]
    tile = gemm_tile(kernel)
    extra = {"tile": tile, **_mma_warps(kernel)} if tile else {**_mma_warps(kernel),
                                                                 **_row_block(kernel)}
    return KernelShape(path.stem, params, kernel.grid_dims(), kernel.num_threads(),
                       int(arch[3:5]), extra)


def _row_block(kernel) -> dict:
    """``{"rows": n}``: the row extent of the 2-D slices a kernel without a GEMM takes of its
    first buffer parameter when they all agree (a row kernel's block of rows per CTA), else
    nothing."""
    first = kernel.body.block.args[0] if kernel.body.block.args else None
    sizes = {op.result.type.get_shape()[0] for op in kernel.walk()
             if op.name == "tirx.slice" and op.source is first
             and len(op.result.type.get_shape()) == 2}
    return {"rows": sizes.pop()} if len(sizes) == 1 else {}


def gemm_tile(kernel) -> tuple[int, int, int] | None:
    """``(BM, BN, BK)`` from the kernel's one CTA-scope ``tirx.gemm``/``gemm_async``:
    its accumulator is the CTA's BM x BN tile of C and A's K extent is BK. The grid alone
    cannot say it: which grid axis walks M is the example's choice (gemm_multicast_sm90a's
    one axis walks M, a 2-D grid's x walks N), and BK is not in the signature at all. None
    when there is no such op or more than one (the peer then falls back to the grid; also
    bench/gpu/gemm.py's Triton peers)."""
    gemms = [op for op in kernel.walk() if op.name in ("tirx.gemm", "tirx.gemm_async")
             and op.exec_scope.value == "cta"]
    if len(gemms) != 1:
        return None
    op = gemms[0]
    acc = op.d if op.name == "tirx.gemm" else op.c
    bm, bn = acc.type.get_shape()[-2:]
    a = op.a.type.get_shape()[-2:]
    bk = a[0] if op.transpose_a is not None else a[1]
    return bm, bn, bk


def _mma_warps(kernel) -> dict:
    """``{"mma_warps": n}`` for a kernel whose CTA-scope wgmma GEMM the cuda lowering splits
    into a TMA producer warpgroup and consumer warpgroups (layout/roles.py): Triton's warps
    both load and multiply, so its peer gets as many warps as ours that multiply."""
    from tirx_mlir.backends.cuda.layout.roles import WARPGROUP, consumer_warpgroups, warpgroups
    if warpgroups(kernel) < 2 or not any(op.name == "tirx.gemm_async" for op in kernel.walk()):
        return {}
    return {"mma_warps": consumer_warpgroups(kernel) * WARPGROUP // 32}


def examples(names: list[str] | None = None) -> list[Example]:
    """Our CUDA examples (``names``: stems or "tile/<stem>" to pick some), in a stable order."""
    by_ours = {p.ours: p for p in PEERS.values() if p.ours}
    paths = sorted(EXAMPLES.glob("*.mlir")) + sorted((EXAMPLES / "tile").glob("*.mlir"))
    out = []
    for path in paths:
        tile = path.parent.name == "tile"
        name = f"cuda/tile/{path.stem}" if tile else f"cuda/{path.stem}"
        if path.stem in SKIP or (names and path.stem not in names
                                 and name.removeprefix("cuda/") not in names):
            continue
        text = path.read_text()
        arch = _arch_of(text)
        shape = kernel_shape(path, text, arch)
        peer = by_ours.get(name) or (peer_from_signature(name, shape) if tile else None)
        one_row = one_row_peer(peer) if peer else None
        out.append(Example(name, path, tile, arch, shape, peer, (one_row,) if one_row else ()))
    return out


def cuda_pipeline(arch: str):
    """The registered "cuda" pipeline for ``arch``, or None while it is not registered."""
    from tirx_mlir.pipelines import get_pipeline, list_pipelines, pipeline_options

    if "cuda" not in list_pipelines():
        return None
    opts = pipeline_options("cuda")
    given = {"arch": arch} if "arch" in opts else (
        {"target": f"cuda -arch={arch}"} if "target" in opts else {})
    return get_pipeline("cuda", **given)


@dataclass
class Stages:
    seconds: dict[str, float]  # parse, pipeline, ptx, cuda
    ptx: str
    cuda: str                  # the -t cuda translation unit
    ops: int
    module: object             # the lowered ModuleOp


def compile_stages(ex: Example) -> Stages:
    """Parse, pipeline (tile level only), ``-t ptx`` and ``-t cuda`` of one example, timed."""
    from tirx_mlir import registry
    from tirx_mlir.located_parser import make_context, parse_module

    text = ex.path.read_text()
    sec = {}
    start = time.perf_counter()
    ctx = make_context()
    module = parse_module(text, str(ex.path), ctx)
    module.verify()
    sec["parse"] = time.perf_counter() - start
    start = time.perf_counter()
    if ex.tile_level:
        pipe = cuda_pipeline(ex.arch)
        if pipe is None:
            raise LookupError("no 'cuda' pipeline registered yet (issue #12)")
        pipe.apply(module, ctx)
    sec["pipeline"] = time.perf_counter() - start
    texts = {}
    for printer in ("ptx", "cuda"):
        start = time.perf_counter()
        out = io.StringIO()
        registry.printers.lookup(printer)()().emit(ctx, module, out)
        texts[printer] = out.getvalue()
        sec[printer] = time.perf_counter() - start
    return Stages(sec, texts["ptx"], texts["cuda"], sum(1 for _ in module.walk()), module)


def ptxas(ptx: str, arch: str, cubin: Path) -> tuple[float, str]:
    """Assemble ``ptx`` into ``cubin`` with ``ptxas -v``; (seconds, its log)."""
    from tirx_mlir.backends.cuda.toolchain import find_tool, missing_reason

    tool = find_tool("ptxas")
    if tool is None:
        raise FileNotFoundError(missing_reason("ptxas"))
    start = time.perf_counter()
    proc = subprocess.run([str(tool), "-v", f"-arch={arch}", "-", "-o", str(cubin)], input=ptx,
                          capture_output=True, text=True, timeout=600)
    took = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"ptxas -arch={arch} failed: {proc.stderr.strip()[:500]}")
    return took, proc.stderr + proc.stdout


def nvcc(source: str, arch: str, cubin: Path) -> None:
    """Compile a ``-t cuda`` translation unit to ``cubin`` with nvcc (the toolkit's headers
    from the nvidia-cuda-nvcc wheel when it is the one found)."""
    from tirx_mlir.backends.cuda.toolchain import find_tool, missing_reason

    tool = find_tool("nvcc")
    if tool is None:
        raise FileNotFoundError(missing_reason("nvcc"))
    root = tool.parent.parent
    includes = [f"-I{d}" for d in (root / "include", root / "include" / "cccl") if d.is_dir()]
    unit = cubin.with_suffix(".cu")
    unit.write_text(source)
    proc = subprocess.run([str(tool), f"-arch={arch}", "-cubin", *includes, str(unit), "-o",
                           str(cubin)], capture_output=True, text=True, timeout=600)
    if proc.returncode != 0:
        raise RuntimeError(f"nvcc -arch={arch} failed: {(proc.stderr or proc.stdout)[:500]}")


def scratch() -> tempfile.TemporaryDirectory:
    return tempfile.TemporaryDirectory(prefix="tirx_cuda_bench_")
