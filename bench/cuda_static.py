"""Static comparison of our CUDA kernels with Triton 3.9's at the same tile sizes: registers,
spills, shared memory, occupancy, and the SASS opcode mix of the main loop.

    python bench/cuda_static.py [--examples gemm_mma_sync,tile/softmax] [--triton-python PATH]
                                [--sass DIR]

For every example of ours that has a Triton peer (bench/triton_peers: same problem, same tile,
shapes as constexprs; a tile example's GEMM tile is read from its gemm op, so both sides
multiply the same BM x BN x BK per CTA; a row kernel's block of rows per CTA from its slices,
so Triton's program takes the same ROWS x COLS block, with Triton's one-row-per-program form
as an extra row), and for the peers without an example of ours yet, both
cubins are read with cuobjdump (tirx_mlir.backends.cuda.sass): registers, stack and static
shared memory from ``-res-usage``; spill instructions are the STL/LDL of the SASS; dynamic
shared memory is
Triton's launch size (``metadata.shared``) and what our ``cuda.dynamic_shared`` views reach.
The main loop is the backward branch of the SASS holding the most tensor-core instructions
(else the largest); its opcode families are counted (tensor core HMMA/HGMMA, full wgmma waits
``WARPGROUP.DEPBAR.LE gsb0, 0x0`` (WAIT0), LDGSTS (cp.async),
UTMALDG (TMA), LDSM (ldmatrix), LDS/STS, LDG/STG, BAR, EX2 (``MUFU.EX2``: exp2), SHFL (warp
shuffles), all). Two columns are of the whole function instead: SASS, its instructions (NOPs
left out, the guarded subroutines in), and FCHK, the IEEE ``div.rn``/``rcp.rn`` ptxas expanded
(each one an ``FCHK`` + a guarded ``CALL`` of the slow path inline). For a GEMM the counts are per K
tile: the loop body's tensor-core multiply-adds divided by a K tile's share of one warp (HMMA)
or warpgroup (HGMMA), ``BM*BN*BK / units``, is how many K tiles one trip does (ptxas unrolls;
the units are the warps that multiply: a TMA producer warpgroup is not one);
a K loop ptxas unrolled completely has no back edge, and the whole function is divided by its
K tiles (``K / BK``; marked "unrolled"). Occupancy is from registers, shared memory and threads
per block against the SM's limits (`SM_LIMITS`). Ratios are ours / Triton (the counts only
when both are per the same thing: a loop trip of ours is not a whole Triton kernel). Nothing is asserted.
``--sass DIR`` keeps both disassemblies there.
"""

from __future__ import annotations

import argparse
import math
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from triton_peers import ours as O  # noqa: E402
from triton_peers import peers as P  # noqa: E402

from tirx_mlir.backends.cuda import sass  # noqa: E402

SM_LIMITS = {
    # CUDA C++ Programming Guide, "Compute Capabilities", table "Technical Specifications per
    # Compute Capability": 32-bit registers per SM, shared memory per SM (the part a block can
    # get: 164 KB of 8.0's 192 KB unified L1/shared, 228 KB of 9.0's 256 KB), resident threads
    # and blocks per SM, 1 KB of shared memory reserved per block (8.x and 9.0).
    80: {"regs": 65536, "smem": 164 * 1024, "threads": 2048, "blocks": 32, "reserved": 1024},
    90: {"regs": 65536, "smem": 228 * 1024, "threads": 2048, "blocks": 32, "reserved": 1024},
}
REG_UNIT = 256
"""Registers are allocated per warp in units of 256 (the CUDA Occupancy Calculator's register
allocation unit size for compute capability 8.0 and 9.0)."""
SMEM_UNIT = 128
"""Shared memory is allocated per block in units of 128 bytes (the calculator's granularity)."""
COLUMNS = ("TC", "WAIT0", "LDGSTS", "UTMALDG", "LDSM", "LDS", "STS", "LDG", "STG", "BAR", "EX2",
           "SHFL", "all")
KERNEL_COLUMNS = ("SASS", "FCHK")
"""Whole-function columns: every instruction but NOPs (guarded subroutines in), and the FCHKs
(one per IEEE division or reciprocal ptxas expanded)."""
EX2 = "EX2"
"""The column of ``MUFU.EX2`` (exp2; the family MUFU also holds RCP, RSQ, ...)."""
FULL_WAIT = "WAIT0"
"""The column of the main loop's full wgmma waits (``WARPGROUP.DEPBAR.LE gsb0, 0x0``, what
``wgmma.wait_group 0`` becomes): one per K tile when no wgmma group stays in flight across K
steps, none when one does (``wgmma.wait_group 1``: ``0x1``)."""


def occupancy(arch: int, regs: int, smem: int, threads: int) -> tuple[int, float]:
    """(resident blocks per SM, fraction of the SM's threads resident)."""
    lim = SM_LIMITS[80 if arch < 90 else 90]
    warps = math.ceil(threads / 32)
    per_warp = math.ceil(max(regs, 1) * 32 / REG_UNIT) * REG_UNIT
    by_regs = (lim["regs"] // per_warp) // warps
    block_smem = math.ceil((smem + lim["reserved"]) / SMEM_UNIT) * SMEM_UNIT
    by_smem = lim["smem"] // block_smem
    blocks = min(by_regs, by_smem, lim["threads"] // (warps * 32), lim["blocks"])
    return blocks, blocks * warps * 32 / lim["threads"]


@dataclass
class Static:
    regs: int
    stack: int
    spills: tuple[int, int]   # STL, LDL instructions in the SASS
    static_smem: int
    dynamic_smem: int
    threads: int
    arch: int
    counts: Counter           # opcode families per K tile (GEMM) or per loop trip
    per: str                  # what the counts are per
    sass_text: str
    kernel: Counter | None = None  # KERNEL_COLUMNS, of the whole function


def read_cubin(cubin: bytes, function: str | None, threads: int, arch: int, dynamic: int,
               tile: tuple[int, int, int] | None, k: int | None,
               mma_threads: int | None = None) -> Static:
    text = sass.disassemble(cubin)
    code = sass.instructions(text)
    usage = sass.res_usage(cubin)
    name = function if function in code else next(iter(code))
    res = usage.get(name) or next(iter(usage.values()))
    fn, called = sass.split_subroutines(code[name])  # guarded (cold) calls: counted apart
    spills = sass.opcode_mix(code[name])
    whole = sass.opcode_mix(fn)
    lp = sass.main_loop(fn)
    if tile is not None and lp is not None and not any(i.family in sass.TENSOR_CORE
                                                       for i in lp.body):
        lp = None  # a GEMM whose loops are waits (an mbarrier spin): its K loop is unrolled
    body = Counter(sass.opcode_mix(lp.body)) if lp else whole
    body[FULL_WAIT] = sum(1 for i in (lp.body if lp else fn)
                          if i.opcode.startswith("WARPGROUP.DEPBAR")
                          and i.operands.replace(" ", "").endswith("gsb0,0x0"))
    body[EX2] = sum(1 for i in (lp.body if lp else fn) if i.opcode.startswith("MUFU.EX2"))
    cold = sum(1 for i in called if i.family != "NOP")
    per = "loop trip" if lp else "kernel" + (f" (+{cold} in guarded CALLs)" if cold else "")
    if tile is not None:
        bm, bn, bk = tile
        macs = sum(sass.tensor_core_macs(i.opcode) for i in (lp.body if lp else fn))
        hgmma = any(i.family == "HGMMA" for i in fn)
        units = max((mma_threads or threads) // (128 if hgmma else 32), 1)
        ktiles = macs / (bm * bn * bk / units) if macs else 0
        if lp is None and k:
            ktiles, per = k / bk, "K tile, unrolled"
        elif ktiles:
            per = f"K tile ({ktiles:g}/trip)" if ktiles != 1 else "K tile"
        if ktiles:
            body = Counter({f: c / ktiles for f, c in body.items()})
    counts = Counter()
    for fam, c in body.items():
        if fam == "NOP":  # alignment padding
            continue
        counts[fam] += c
        if fam in sass.TENSOR_CORE:
            counts["TC"] += c
        if fam not in (FULL_WAIT, EX2):  # not families: their instructions count already
            counts["all"] += c
    kernel = Counter({"SASS": sum(1 for i in code[name] if i.family != "NOP"),
                      "FCHK": spills["FCHK"]})
    return Static(res.registers, res.stack, (spills["STL"], spills["LDL"]), res.shared, dynamic,
                  threads, arch, counts, per, text, kernel)


def ours_static(ex: O.Example, tmp: Path) -> tuple[Static, Static | str]:
    """Our kernel read twice: assembled from ``-t ptx`` by ptxas (what the runtime loads) and
    compiled from ``-t cuda`` by nvcc (or why that did not run)."""
    st = O.compile_stages(ex)
    cubin = tmp / f"{ex.stem}.cubin"
    O.ptxas(st.ptx, ex.arch, cubin)
    via_ptx = _ours_read(ex, st, cubin)
    try:
        cu_cubin = tmp / f"{ex.stem}.cu.cubin"
        O.nvcc(st.cuda, ex.arch, cu_cubin)
    except (FileNotFoundError, RuntimeError) as err:
        return via_ptx, str(err).splitlines()[0][:100]
    return via_ptx, _ours_read(ex, st, cu_cubin)


def _ours_read(ex: O.Example, st: O.Stages, cubin: Path) -> Static:
    from tirx_mlir.backends.cuda.runtime.toolchain import dynamic_shared_bytes
    from tirx_mlir.interpreter.launch import find_kernel

    kernel = find_kernel(st.module)
    tile = ex.peer.tile if ex.peer else None
    k = ex.peer.constexprs.get("K") if ex.peer else None
    mma_warps = ex.shape.extra.get("mma_warps")
    return read_cubin(cubin.read_bytes(), kernel.sym_name.data, kernel.num_threads(),
                      int(ex.arch[3:5]), dynamic_shared_bytes(kernel), tile, k,
                      mma_warps * 32 if mma_warps else None)


def triton_static(peer: P.Peer, got: dict) -> Static:
    cubin = Path(got["cubin"]).read_bytes()
    arch = int(got["key_arch"])
    return read_cubin(cubin, got["kernel"], got["num_warps"] * 32, arch, got["shared"],
                      peer.tile, peer.constexprs.get("K"))


def fmt(v: float) -> str:
    return f"{v:.0f}" if float(v).is_integer() else f"{v:.2f}"


def row(label: str, side: str, s: Static) -> str:
    blocks, occ = occupancy(s.arch, s.regs, s.static_smem + s.dynamic_smem, s.threads)
    counts = " ".join(f"{fmt(s.counts.get(c, 0)):>7s}" for c in COLUMNS)
    counts += " | " + " ".join(f"{(s.kernel or {}).get(c, 0):>5d}" for c in KERNEL_COLUMNS)
    return (f"{label:26s} {side:7s} sm_{s.arch:<3d} {s.regs:>4d} {s.spills[0]:>3d}/{s.spills[1]:<3d} "
            f"{s.stack:>5d} {s.static_smem:>6d}+{s.dynamic_smem:<6d} {s.threads:>4d} "
            f"{blocks:>3d} {occ:>5.0%} | {counts}  per {s.per}")


def _unit(per: str) -> str:
    """What counts are per, without the notes: "K tile", "loop trip" or "kernel"."""
    return per.split(" (")[0].split(",")[0]


def ratio_row(a: Static, b: Static) -> str:
    def r(x: float, y: float) -> str:
        return "-" if not y else f"{x / y:.2f}"
    ab, ao = occupancy(a.arch, a.regs, a.static_smem + a.dynamic_smem, a.threads)
    bb, bo = occupancy(b.arch, b.regs, b.static_smem + b.dynamic_smem, b.threads)
    smem = r(a.static_smem + a.dynamic_smem, b.static_smem + b.dynamic_smem)
    whole = " | " + " ".join(f"{r((a.kernel or {}).get(c, 0), (b.kernel or {}).get(c, 0)):>5s}"
                             for c in KERNEL_COLUMNS)
    if _unit(a.per) != _unit(b.per):  # a loop trip against a whole kernel: no ratio
        return (f"{'':26s} {'ratio':7s} {'':6s} {r(a.regs, b.regs):>4s} {'':7s} {'':5s} "
                f"{smem:>13s} {'':4s} {r(ab, bb):>3s} {r(ao, bo):>5s} | counts per {a.per} "
                f"(ours) and per {b.per} (Triton): not compared{whole}")
    counts = " ".join(f"{r(a.counts.get(c, 0), b.counts.get(c, 0)):>7s}" for c in COLUMNS)
    return (f"{'':26s} {'ratio':7s} {'':6s} {r(a.regs, b.regs):>4s} {'':7s} {'':5s} "
            f"{smem:>13s} {'':4s} {r(ab, bb):>3s} {r(ao, bo):>5s} | {counts}{whole}")


HEADER = (f"{'kernel (BMxBNxBK)':26s} {'side':7s} {'arch':6s} {'regs':>4s} {'STL/LDL':7s} "
          f"{'stack':>5s} {'smem st+dyn':>13s} {'thr':>4s} {'blk':>3s} {'occ':>5s} | "
          + " ".join(f"{c:>7s}" for c in COLUMNS) + " | "
          + " ".join(f"{c:>5s}" for c in KERNEL_COLUMNS))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", default="", help="comma-separated stems (tile/<stem> for "
                        "tile examples); default: every example with a Triton peer")
    parser.add_argument("--triton-python", default=None, help="a Python with triton (default: "
                        "$TIRX_TRITON_PYTHON, else python3 if it imports triton)")
    parser.add_argument("--sass", default=None, help="a folder to keep the disassemblies in")
    args = parser.parse_args(argv)
    python = P.triton_python(args.triton_python)
    if python is None:
        print(f"Triton side skipped: {P.INSTALL}\n")
    exs = [ex for ex in O.examples([n for n in args.examples.split(",") if n] or None)
           if ex.peer is not None]
    alone = [] if args.examples else [p for p in P.PEERS.values() if p.ours is None]
    keep = Path(args.sass) if args.sass else None
    if keep:
        keep.mkdir(parents=True, exist_ok=True)
    print(HEADER)
    print("-" * len(HEADER))
    with O.scratch() as tmp:
        theirs = {}
        if python is not None:
            want = [p for ex in exs for p in (ex.peer, *ex.others)] + alone
            theirs = P.compile_peers(python, list({p.name: p for p in want}.values()),
                                     Path(tmp) / "triton")
            theirs.pop("_startup", None)

        def triton_side(peer: P.Peer, arch: int) -> Static | str:
            got = theirs.get(f"{peer.name}@{arch}")
            if got is None:
                return "Triton not run" if python is None else f"no Triton build for sm_{arch}"
            if "error" in got:
                return f"Triton failed: {got['error']}"
            return triton_static(peer, {**got, "key_arch": arch})

        for ex in exs:
            tile = ex.peer.tile
            label = f"{ex.name.removeprefix('cuda/')}" + (f" {'x'.join(map(str, tile))}"
                                                          if tile else "")
            try:
                mine, via_cuda = ours_static(ex, Path(tmp))
            except Exception as err:  # noqa: BLE001 - reported in the table
                print(f"{label:26s} ours   not compiled: {type(err).__name__}: "
                      f"{str(err).splitlines()[0][:100]}")
                continue
            print(row(label, "ours", mine))
            if isinstance(via_cuda, str):
                print(f"{'':26s} ours.cu not compiled: {via_cuda}")
            else:
                print(row("", "ours.cu", via_cuda))
            other = triton_side(ex.peer, mine.arch // 10 * 10)
            if isinstance(other, str):
                print(f"{'':26s} triton {other}")
            else:
                print(row("", "triton", other))
                print(ratio_row(mine, other))
            for extra in ex.others:
                more = triton_side(extra, mine.arch // 10 * 10)
                if isinstance(more, str):
                    print(f"{'  1 row/program':26s} triton {more}")
                    continue
                print(row("  1 row/program", "triton", more))  # other work: no ratio
            if keep:
                (keep / f"{ex.stem}.ours.sass").write_text(mine.sass_text)
                if not isinstance(other, str):
                    (keep / f"{ex.stem}.triton.sass").write_text(other.sass_text)
        for peer in alone:
            for arch in peer.archs:
                other = triton_side(peer, arch)
                label = peer.name + (f" {'x'.join(map(str, peer.tile))}" if peer.tile else "")
                if isinstance(other, str):
                    print(f"{label:26s} triton {other}")
                    continue
                print(row(label, "triton", other) + "  (no example of ours yet)")
    print("\nours: -t ptx assembled by ptxas (what the runtime loads); ours.cu: -t cuda compiled "
          "by nvcc; ratios are ours / Triton")
    print("triton: Triton's peer at our tile (a row kernel's block of rows per program, as "
          "ours); 1 row/program: Triton's tutorial form of a row kernel, for reference")
    print("TC: tensor-core instructions (HMMA on sm_80, HGMMA on sm_90); occ: resident threads "
          "/ 2048 from registers, shared memory (+1 KiB reserved per block) and threads per block")
    print("EX2: MUFU.EX2; SASS, FCHK (after the last |): the whole function's instructions "
          "(NOPs aside) and its IEEE divisions / reciprocals (FCHK + guarded slow-path CALL)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
