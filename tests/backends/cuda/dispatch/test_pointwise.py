"""pointwise.py's vector groups (`_group`): a register run or a row whose length is not a
power of two is moved in power-of-two vectors that divide it (found by the valid-program
campaign, tests/property/cuda_valid_campaign.py): numpy == tile == SIMT after every pass."""

from __future__ import annotations

from tirx_testing.cuda_every_stage import check_every_stage


def _thread_copy(shape: tuple[int, int], dt: str, mid: str, grid: int = 1) -> str:
    rows, cols = shape
    g = f"!tirx.buffer<{grid * rows}x{cols}x{dt}, global>"
    v = f"!tirx.buffer<{rows}x{cols}x{dt}, global>"
    t = f"!tirx.buffer<{rows}x{cols}x{dt}, {mid}>"
    return f"""tirx.kernel @k(%X: {g}) -> (%Y: {g}) grid [{grid}] threads [1] target "cuda -arch=sm_80" {{
  %cta = tirx.cta_id x : index
  %c = arith.constant {rows} : index
  %row = arith.muli %cta, %c : index
  %x = tirx.slice %X[%row, 0] [{rows}, {cols}] : {g} -> {v}
  %y = tirx.slice %Y[%row, 0] [{rows}, {cols}] : {g} -> {v}
  %t = tirx.alloc : {t}
  tirx.copy thread %t, %x : {t}, {v}
  tirx.copy thread %y, %t : {v}, {t}
  tirx.return
}}
"""


def test_a_run_of_12_registers_moves_in_vectors_of_4():
    """A thread's [1, 12] register tile: ``ld.v4``/``st.v4`` rounds (was a ``v3``, which PTX
    lacks: the variant crashed)."""
    final = check_every_stage(_thread_copy((1, 12), "f32", "local"), lambda x: [x])
    vectors = [op for op in final.walk() if op.name in ("ptx.ld", "ptx.st")]
    assert {op.name for op in vectors} == {"ptx.ld", "ptx.st"}
    assert all("v4" in str(op) for op in vectors), [str(op) for op in vectors]


def test_packed_rows_of_5_halves_are_not_moved_as_words():
    """[8, 5] bf16 rows between global and shared memory: 5 elements are no whole number of
    32-bit words (the copy read 2 words at a 10-byte offset: a misaligned access, and lost
    the fifth element)."""
    check_every_stage(_thread_copy((8, 5), "bf16", "shared", grid=2), lambda x: [x],
                      rtol=0, atol=0)
