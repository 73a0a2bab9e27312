"""Which Triton kernel is the peer of which of our kernels, and compiling the peers ahead of time.

A `Peer` names a kernel of kernels.py, its signature and constexprs (the problem and tile
sizes, as static as ours), ``num_warps``/``num_stages``, the tile (``BM, BN, BK``) of a GEMM,
and the example of ours it matches (None: no example of ours at that size yet). `PEERS` holds the
fixed ones; `peer_from_signature` derives one for a tile-level example from its kernel's
parameters, grid and threads (a row kernel's Triton program takes the same block of rows as
our CTA; `one_row_peer` gives Triton's one-row-per-program form beside it), and for a GEMM
from the tile its gemm op multiplies (``extra
["tile"]``: ours.py reads it from the IR; the grid alone does not say which axis walks M)
(examples/cuda/tile/ land with the "cuda" pipeline).

`compile_peers` runs aot.py in a Python that has Triton (the project itself never imports it):
``--triton-python``, else ``$TIRX_TRITON_PYTHON``, else ``python3`` on PATH if it imports triton;
`triton_python()` says which, or None with `INSTALL` for the message. This module imports
neither triton nor tirx_mlir: aot.py loads it in the Triton venv.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
from dataclasses import asdict, dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
INSTALL = ("Triton is not installed for the bench: python3 -m venv ~/triton-venv && "
           "~/triton-venv/bin/pip install triton==3.9.0 numpy, then set "
           "TIRX_TRITON_PYTHON=~/triton-venv/bin/python (or pass --triton-python); the project's "
           "own venv never gets triton")
ARCHS = (80, 90)
"""GPUTarget("cuda", arch, 32) for each: sm_80 (mma.sync) and sm_90 (wgmma)."""

DTYPES = {"f16": "fp16", "bf16": "bf16", "f32": "fp32", "f64": "fp64", "i32": "i32", "i8": "i8"}
"""Our element type names -> Triton's pointer element names."""


@dataclass(frozen=True)
class Peer:
    name: str
    kernel: str                  # a function of kernels.py
    pointers: dict[str, str]     # pointer parameter -> Triton element type ("fp16")
    constexprs: dict[str, object]
    grid: tuple[int, ...]
    num_warps: int = 4
    num_stages: int = 3
    tile: tuple[int, int, int] | None = None  # BM, BN, BK of a GEMM
    ours: str | None = None      # examples/<ours>.mlir computes the same at the same tile
    archs: tuple[int, ...] = ARCHS
    note: str = ""

    def signature(self) -> dict[str, str]:
        sig = {p: f"*{t}" for p, t in self.pointers.items()}
        return {**sig, **{k: "constexpr" for k in self.constexprs}}

    def to_json(self) -> dict:
        return asdict(self)


def gemm(name: str, m: int, n: int, k: int, tile: tuple[int, int, int], *, ab: str = "fp16",
         c: str = "fp16", warps: int = 4, stages: int = 3, b_nk: bool = True,
         ours: str | None = None, archs: tuple[int, ...] = ARCHS, note: str = "") -> Peer:
    bm, bn, bk = tile
    return Peer(name, "matmul", {"a_ptr": ab, "b_ptr": ab, "c_ptr": c},
                {"M": m, "N": n, "K": k, "BM": bm, "BN": bn, "BK": bk, "B_NK": b_nk},
                (n // bn, m // bm), warps, stages, tile, ours, archs, note)


PEERS: dict[str, Peer] = {p.name: p for p in (
    Peer("vector_add", "vector_add", {"x_ptr": "fp32", "y_ptr": "fp32", "z_ptr": "fp32"},
         {"N": 65536, "BLOCK": 1024}, (64,), num_warps=8, ours="cuda/vector_add",
         note="1024 elements per program on 8 warps, as ours: 256 threads, 4 (16 bytes) each"),
    gemm("gemm_mma_sync", 256, 256, 256, (64, 64, 32), c="fp32", ours="cuda/gemm_mma_sync",
         archs=(80,), note="ours: ldmatrix + mma.sync, one shared stage; Triton: its 3 stages"),
    gemm("tma_wgmma", 64, 128, 16, (64, 128, 16), c="fp32", ours="cuda/tma_wgmma", archs=(90,),
         note="one K step: ours TMA + one wgmma m64n128k16"),
    gemm("gemm_128x128x64", 4096, 4096, 4096, (128, 128, 64),
         note="the issue's reference GEMM; ours when a tile example has this tile"),
    Peer("softmax_1024x1024", "softmax", {"x_ptr": "fp32", "y_ptr": "fp32"}, {"COLS": 1024},
         (1024,), num_warps=4, note="one row per program (per program the same code as "
         "tile/softmax_row's peer, whose problem has 64 rows)"),
    Peer("rmsnorm_1024x1024", "rmsnorm", {"x_ptr": "fp16", "w_ptr": "fp16", "y_ptr": "fp16"},
         {"COLS": 1024, "EPS": 1e-6}, (1024,), num_warps=4, note="one row per program"),
)}


@dataclass
class Param:
    """A buffer parameter of one of our kernels: name, shape, element type (our spelling)."""
    name: str
    shape: tuple[int, ...]
    dtype: str


@dataclass
class KernelShape:
    """What `peer_from_signature` reads of a kernel: its buffers, grid and threads per block."""
    name: str
    params: list[Param]
    grid: tuple[int, ...]
    threads: int
    arch: int
    extra: dict = field(default_factory=dict)


def _elements(p: Param) -> int:
    n = 1
    for d in p.shape:
        n *= d
    return n


def peer_from_signature(ours: str, k: KernelShape) -> Peer | None:
    """The Triton peer of a tile-level example, from its name (gemm/matmul, softmax, rmsnorm,
    add/elementwise) and its parameters (a row kernel: its block of rows per CTA, `row_block`);
    None when the kernel is none of those or its shapes do not say enough (the bench prints
    that it has no peer)."""
    name, warps, archs = k.name.lower(), max(k.threads // 32, 1), (k.arch // 10 * 10,)
    ps = k.params
    if any(w in name for w in ("gemm", "matmul", "mma")) and len(ps) >= 3:
        a, b, c = ps[0], ps[1], ps[-1]
        if len(a.shape) != 2 or len(b.shape) != 2 or len(c.shape) != 2:
            return None
        (m, kk), (n,) = a.shape, c.shape[1:]
        b_nk = b.shape == (n, kk) and (b.shape != (kk, n) or b.name.lower().endswith("t"))
        tile = tuple(int(t) for t in k.extra.get("tile", ()))
        if tile and not (m % tile[0] or n % tile[1] or kk % tile[2]):
            bm, bn, bk = tile
            note = "the tile of the example's gemm (its accumulator and A's K extent)"
        else:
            gx, gy = (k.grid + (1, 1))[:2]
            bm, bn, bk = m // max(gy, 1), n // max(gx, 1), 64 if kk >= 64 else kk
            note = "derived from the example's signature and grid"
        if "mma_warps" in k.extra:
            warps = k.extra["mma_warps"]
            note += f"; {warps} warps, as many as ours that multiply"
        return gemm(k.name, m, n, kk, (bm, bn, bk), ab=DTYPES.get(a.dtype, "fp16"),
                    c=DTYPES.get(c.dtype, "fp16"), warps=warps, b_nk=b_nk, ours=ours,
                    archs=archs, note=note)
    if "flash_attention" in name:
        return _attention_peer(ours, k)
    if len(ps) < 2 or len(ps[0].shape) > 2:
        return None
    if "softmax" in name or "rmsnorm" in name:
        return _row_peer(ours, k)
    if any(w in name for w in ("add", "elementwise", "vector")) and len(ps) == 3:
        total = _elements(ps[0])
        programs = 1
        for g in k.grid:
            programs *= g
        block = total // programs
        if block & (block - 1) or {p.dtype for p in ps} != {ps[0].dtype}:
            return None
        dt = DTYPES.get(ps[0].dtype, "fp32")
        return Peer(k.name, "vector_add", {"x_ptr": dt, "y_ptr": dt, "z_ptr": dt},
                    {"N": total, "BLOCK": block}, (programs,), warps, ours=ours, archs=archs,
                    note=f"{block} elements per program")
    return None


def _attention_peer(ours: str, k: KernelShape) -> Peer | None:
    """A flash-attention forward (Q, K, V [L, D] f16 -> O [L, D]): kernels.flash_attention
    with the example's queries per CTA (L over the grid) as BLOCK_M and BLOCK_N = BLOCK_M (the
    examples' KV block), on 4 warps: one warpgroup (or 4 mma warps) owning BLOCK_M queries, as
    ours (the ring example's producer warpgroup multiplies nothing)."""
    ps = k.params
    if len(ps) != 4 or any(len(p.shape) != 2 for p in ps):
        return None
    (length, d), programs = ps[0].shape, math.prod(k.grid) or 1
    if length % programs or not (_power_of_two(d) and _power_of_two(length // programs)):
        return None
    block = length // programs
    return Peer(k.name, "flash_attention", {"q_ptr": DTYPES.get(ps[0].dtype, "fp16"),
                                            "k_ptr": DTYPES.get(ps[1].dtype, "fp16"),
                                            "v_ptr": DTYPES.get(ps[2].dtype, "fp16"),
                                            "o_ptr": DTYPES.get(ps[3].dtype, "fp32")},
                {"L": length, "D": d, "BLOCK_M": block, "BLOCK_N": block}, (programs,), 4,
                num_stages=3, ours=ours, archs=(k.arch // 10 * 10,),
                note=f"BLOCK_M = BLOCK_N = {block} on 4 warps, Triton's default 3 stages")


def _power_of_two(n: int) -> bool:
    return n > 0 and not n & (n - 1)


def row_block(k: KernelShape) -> int:
    """Rows per program of a row kernel: ``extra["rows"]`` (the row extent of the slice the
    example takes of its first buffer, ours.py reads it from the IR), else the rows over the
    grid's programs; 1 when neither divides the rows."""
    rows = k.params[0].shape[0] if len(k.params[0].shape) == 2 else 1
    block = int(k.extra.get("rows", 0))
    if not block or rows % block:
        programs = math.prod(k.grid) or 1
        block = rows // programs if rows % programs == 0 else 1
    return block


def _row_peer(ours: str, k: KernelShape) -> Peer | None:
    """softmax/rmsnorm: the 2-D ``*_rows`` kernel over the example's block of rows per program
    (same warps), or the one-row kernel when the example takes one row per program."""
    ps, name = k.params, k.name.lower()
    warps, archs = max(k.threads // 32, 1), (k.arch // 10 * 10,)
    rows, cols = (ps[0].shape if len(ps[0].shape) == 2 else (1, ps[0].shape[0]))
    block = row_block(k)
    if not (_power_of_two(cols) and _power_of_two(block)):
        return None  # tl.arange needs powers of two
    dt = DTYPES.get(ps[0].dtype, "fp32")
    y = DTYPES.get(ps[-1].dtype, dt)
    if "softmax" in name:
        kernel, pointers, consts = "softmax", {"x_ptr": dt, "y_ptr": y}, {"COLS": cols}
    elif len(ps) >= 3:
        kernel = "rmsnorm"
        pointers = {"x_ptr": dt, "w_ptr": DTYPES.get(ps[1].dtype, dt), "y_ptr": y}
        consts = {"COLS": cols, "EPS": float(k.extra.get("eps", 1e-6))}
    else:
        return None
    if block == 1:
        return Peer(k.name, kernel, pointers, consts, (rows,), warps, ours=ours, archs=archs,
                    note="one row per program, as ours")
    return Peer(k.name, f"{kernel}_rows", pointers, {**consts, "ROWS": block},
                (rows // block,), warps, ours=ours, archs=archs,
                note=f"a {block}x{cols} block of rows per program, as ours")


def one_row_peer(peer: Peer) -> Peer | None:
    """The one-row-per-program form of a ``*_rows`` peer (same problem, same warps: Triton's
    tutorial shape, ROWS times the programs), None for any other peer."""
    if not peer.kernel.endswith("_rows"):
        return None
    block = int(peer.constexprs["ROWS"])
    consts = {k: v for k, v in peer.constexprs.items() if k != "ROWS"}
    return Peer(f"{peer.name}_1row", peer.kernel.removesuffix("_rows"), peer.pointers, consts,
                (peer.grid[0] * block,), peer.num_warps, peer.num_stages, None, None, peer.archs,
                "one row per program (not ours: ours takes a block of rows)")


def _imports_triton(python: str) -> bool:
    try:
        return subprocess.run([python, "-c", "import triton"], capture_output=True,
                              timeout=120).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def triton_python(explicit: str | None = None) -> str | None:
    """The Python to run Triton with: ``explicit``, else $TIRX_TRITON_PYTHON, else python3 on
    PATH when it imports triton; None when none of them does."""
    for candidate in (explicit, os.environ.get("TIRX_TRITON_PYTHON")):
        if candidate:
            return candidate if _imports_triton(candidate) else None
    found = shutil.which("python3")
    return found if found and _imports_triton(found) else None


def compile_peers(python: str, peers: list[Peer], out: Path, rounds: int = 1,
                  archs: tuple[int, ...] | None = None) -> dict[str, dict]:
    """Compile every peer for each of its archs (or ``archs`` among them) ``rounds`` times, each
    with a fresh TRITON_CACHE_DIR, in one ``python aot.py`` process. Returns
    ``{"<peer>@<arch>": {"ptx", "cubin" (paths under out), "shared", "num_warps", "compile_s",
    "to_ptx_s", "ptxas_s", "stages_s", "all_s"}}`` or ``{"error": ...}`` per entry."""
    out.mkdir(parents=True, exist_ok=True)
    request = {"peers": [p.to_json() for p in peers], "rounds": rounds,
               "archs": list(archs) if archs else None, "out": str(out)}
    req = out / "request.json"
    req.write_text(json.dumps(request))
    env = {**os.environ, "TRITON_DEFAULT_FP_FUSION": "1"}
    proc = subprocess.run([python, str(HERE / "aot.py"), str(req)], capture_output=True,
                          text=True, timeout=3600, env=env)
    if proc.returncode != 0:
        raise RuntimeError(f"{python} {HERE / 'aot.py'} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


if __name__ == "__main__":  # python bench/triton_peers/peers.py: list the peers
    for p in PEERS.values():
        print(f"{p.name:20s} {p.kernel:10s} ours={p.ours} archs={p.archs} {p.note}")
