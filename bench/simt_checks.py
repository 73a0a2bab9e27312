"""Speed of the SIMT interpreter's shared-memory checks, per access of a 256-thread CTA.

    python bench/simt_checks.py [--accesses 20000]

Feeds the racecheck (`checks.races`) and the bank-conflict counter (`checks.banks`) a stream of
f32 shared accesses by 256 threads (a transpose tile's row writes and padded column reads with a
CTA barrier between the phases), and prints CPU microseconds per access and the ratio against the
reference measured in the same run: the access itself as numpy does it (a 256-lane gather or
scatter of f32 words in a byte arena). Times are printed, never asserted.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from tirx_mlir.backends.cuda.interpreter.checks.banks import bank_wavefronts
from tirx_mlir.backends.cuda.interpreter.checks.races import SharedRaceCheck
from tirx_mlir.backends.cuda.interpreter.wave import Wave

THREADS, ARENA = 256, 32 * 33 * 4


def stream(n: int):
    """``(kind, offsets, barrier after)``: a tile's 4 row writes, a barrier, 4 column reads, a
    barrier, over and over (race-free, as transpose.mlir's two phases)."""
    lanes = np.arange(THREADS)
    tx, ty = lanes % 32, lanes // 32
    for i in range(n):
        j = i % 4 * 8
        if i % 8 < 4:
            yield "write", ((ty + j) * 33 + tx) * 4, i % 4 == 3
        else:
            yield "read", (tx * 33 + ty + j) * 4, i % 4 == 3


def run_checks(n: int) -> float:
    wave = Wave((THREADS, 1, 1), (1, 1, 1), None, np.arange(1))
    race = SharedRaceCheck(wave, ARENA)
    lanes, cta = np.arange(THREADS), np.zeros(THREADS, np.int64)
    warp, lane = wave.warp, wave.lane
    start = time.process_time()
    for kind, offsets, barrier in stream(n):
        assert race.access(kind, cta, offsets, 4, lanes, kind) is None
        bank_wavefronts(warp, lane, offsets, 4)
        if barrier:
            race.barrier("cta", lanes)
    return time.process_time() - start


def run_reference(n: int) -> float:
    arena = np.zeros(ARENA, np.uint8)
    value = np.ones(THREADS, np.float32)
    start = time.process_time()
    for kind, offsets, _ in stream(n):
        words = arena.view(np.float32)
        if kind == "write":
            words[offsets // 4] = value
        else:
            value = words[offsets // 4]
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--accesses", type=int, default=20000)
    n = parser.parse_args().accesses
    run_checks(200)  # warm
    checks, reference = run_checks(n), run_reference(n)
    print(f"{n} accesses by {THREADS} threads")
    print(f"checks (racecheck + banks): {checks / n * 1e6:8.1f} us/access")
    print(f"reference (numpy access):   {reference / n * 1e6:8.1f} us/access")
    print(f"ratio checks / reference:   {checks / reference:8.1f}x")


if __name__ == "__main__":
    main()
