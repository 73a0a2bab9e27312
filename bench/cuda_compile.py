"""Compile time of our CUDA examples to PTX, next to Triton 3.9 compiling its peer ahead of time.

    python bench/cuda_compile.py [--rounds N] [--examples vector_add,tile/softmax]
                                 [--triton-python PATH]

Ours, per example of examples/cuda (CUDA level, no pipeline) and examples/cuda/tile (tile level,
through the registered "cuda" pipeline for the kernel's arch), in this process, warm (one
untimed compile of each first): ``parse`` (located parser + verify), ``pipeline``, ``-t ptx``
and ``-t cuda``, and ``to PTX`` = parse + pipeline + ptx; then ``ptxas`` (a subprocess) apart. Triton's peer
(bench/triton_peers: the same problem and tile sizes, shapes as constexprs) is compiled by
``triton.compile`` for GPUTarget("cuda", 80 | 90, 32) in a Python that has Triton, each compile
with a fresh TRITON_CACHE_DIR; Triton's ``to PTX`` is its stages before the cubin stage and
its ``ptxas`` that stage. Rounds alternate: all of ours once, then all of Triton's once (one
subprocess), N times; each column is the best of the N. Ratios are ours / Triton (below 1:
ours is faster). TIRx 0.1.0a4 is quoted from issue #12 (30 ms vector add, 83 ms mma GEMM, to
CUDA source), not run. Without Triton the script prints how to install it and times ours alone.
Times are printed, never asserted.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from triton_peers import ours as O  # noqa: E402
from triton_peers import peers as P  # noqa: E402

TIRX_QUOTED_MS = {"cuda/vector_add": 30.0, "cuda/gemm_mma_sync": 83.0}
"""TIRx 0.1.0a4 to CUDA source, from issue #12 (not measured here)."""


def ms(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds * 1e3:.1f}"


def ratio(a: float | None, b: float | None) -> str:
    return "-" if a is None or not b else f"{a / b:.3f}x"


def best_into(best: dict, key: str, value: dict) -> None:
    """Each number of ``best[key]`` the least of its rounds (ours: each stage's best)."""
    old = best.setdefault(key, dict(value))
    for k, v in value.items():
        if isinstance(v, (int, float)) and isinstance(old.get(k), (int, float)):
            old[k] = min(old[k], v)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--examples", default="", help="comma-separated stems (tile/<stem> for "
                        "tile examples); default: all")
    parser.add_argument("--triton-python", default=None, help="a Python with triton (default: "
                        "$TIRX_TRITON_PYTHON, else python3 if it imports triton)")
    args = parser.parse_args(argv)
    exs = O.examples([n for n in args.examples.split(",") if n] or None)
    python = P.triton_python(args.triton_python)
    if python is None:
        print(f"Triton side skipped: {P.INSTALL}\n")
    alone = [] if args.examples else [p for p in P.PEERS.values() if p.ours is None]
    peers = [ex.peer for ex in exs if ex.peer] + alone
    peers = list({p.name: p for p in peers}.values())

    ours: dict[str, dict] = {}
    theirs: dict[str, dict] = {}
    failed: dict[str, str] = {}
    startup: dict = {}
    with O.scratch() as tmp:
        for ex in exs:  # untimed warm-up: the printers and passes import on first use
            try:
                O.compile_stages(ex)
            except Exception as err:  # noqa: BLE001 - reported in the table
                failed[ex.name] = f"{type(err).__name__}: {str(err).splitlines()[0][:90]}"
        for _ in range(args.rounds):
            for ex in exs:
                if ex.name in failed:
                    continue
                try:
                    st = O.compile_stages(ex)
                    as_s, _ = O.ptxas(st.ptx, ex.arch, Path(tmp) / f"{ex.stem}.cubin")
                except Exception as err:  # noqa: BLE001 - reported in the table
                    failed[ex.name] = f"{type(err).__name__}: {str(err).splitlines()[0][:90]}"
                    continue
                sec = st.seconds
                best_into(ours, ex.name, {**sec, "to_ptx": sec["parse"] + sec["pipeline"]
                                          + sec["ptx"], "ptxas": as_s, "ops": st.ops})
            if python is not None and peers:
                got = P.compile_peers(python, peers, Path(tmp) / "triton", rounds=1)
                startup = got.pop("_startup", startup)
                for key, value in got.items():
                    if "error" in value:
                        failed[key] = value["error"]
                    elif key not in theirs or value["compile_s"] < theirs[key]["compile_s"]:
                        theirs[key] = value  # the fastest round, its stages with it

    print(f"CUDA compile time, best of {args.rounds} rounds (ms); ours in-process, Triton "
          f"{'3.9 AOT, cold cache' if python else 'not run'}")
    head = (f"{'example':24s} {'arch':7s} {'ops':>5s} {'parse':>7s} {'pipe':>6s} {'ptx':>6s} "
            f"{'cuda':>6s} {'toPTX':>7s} {'ptxas':>7s} | {'Triton peer':18s} {'toPTX':>7s} "
            f"{'ptxas':>7s} {'ratio toPTX':>11s} {'ratio all':>9s}")
    print(head)
    print("-" * len(head))
    for ex in exs:
        if ex.name in failed:
            print(f"{ex.name:24s} {ex.arch:7s} not compiled: {failed[ex.name]}")
            continue
        o = ours[ex.name]
        cells = (f"{ex.name:24s} {ex.arch:7s} {o['ops']:>5d} {ms(o['parse']):>7s} "
                 f"{ms(o['pipeline'] if ex.tile_level else None):>6s} {ms(o['ptx']):>6s} "
                 f"{ms(o['cuda']):>6s} {ms(o['to_ptx']):>7s} {ms(o['ptxas']):>7s} | ")
        key = f"{ex.peer.name}@{int(ex.arch[3:5])}" if ex.peer else None
        t = theirs.get(key) if key else None
        if t is None:
            why = ("no peer" if ex.peer is None else failed.get(key, "Triton not run"))
            print(cells + why)
            continue
        print(cells + f"{ex.peer.name:18s} {ms(t['to_ptx_s']):>7s} {ms(t['ptxas_s']):>7s} "
              f"{ratio(o['to_ptx'], t['to_ptx_s']):>11s} "
              f"{ratio(o['to_ptx'] + o['ptxas'], t['compile_s']):>9s}")
    if theirs:
        print(f"\nTriton peers, every arch (ms; cold cache, best of {args.rounds}; import "
              f"{ms(startup.get('import_s'))}, first compile in a process "
              f"{ms(startup.get('first_compile_s'))}, untimed):")
        print(f"{'peer':20s} {'arch':>4s} {'toPTX':>7s} {'ptxas':>7s} {'total':>7s} "
              f"{'shared B':>9s}  stages (ms)")
        for key, t in sorted(theirs.items()):
            name, arch = key.split("@")
            stages = " ".join(f"{k} {v * 1e3:.0f}" for k, v in t["stages_s"].items())
            print(f"{name:20s} {arch:>4s} {ms(t['to_ptx_s']):>7s} {ms(t['ptxas_s']):>7s} "
                  f"{ms(t['compile_s']):>7s} {t['shared']:>9d}  {stages}")
    for key, why in failed.items():
        if "@" in key:
            print(f"Triton {key}: {why}")
    quoted = [(n, q) for n, q in TIRX_QUOTED_MS.items() if n in ours]
    if quoted:
        print("\nvs TIRx 0.1.0a4 to CUDA source (issue #12's figures, not run here): "
              + ", ".join(f"{n} ours {ms(ours[n]['parse'] + ours[n]['cuda'])} ms / {q:.0f} ms = "
                          f"{(ours[n]['parse'] + ours[n]['cuda']) * 1e3 / q:.3f}x"
                          for n, q in quoted))
    return 0


if __name__ == "__main__":
    sys.exit(main())
