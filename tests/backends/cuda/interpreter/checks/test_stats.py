"""SimtStats: per-op counts, barriers per block and the --stats table."""

import numpy as np

from tirx_mlir.backends.cuda.interpreter.checks.banks import bank_wavefronts
from tirx_mlir.backends.cuda.interpreter.checks.stats import SimtStats


class FakeOp:
    """An op stand-in: a name and no location."""

    def __init__(self, name):
        self.name = name
        self.location = None

    def parent_op(self):
        return None


def test_counts_per_op_and_table():
    stats = SimtStats()
    load, store = FakeOp("cuda.load"), FakeOp("cuda.store")
    warps = np.repeat([0, 1], 32)
    stats.record_op(store, warps)
    stats.record_shared(store, bank_wavefronts(warps, np.tile(np.arange(32), 2),
                                               np.tile(np.arange(32), 2) * 4, 4))
    stats.record_op(load, warps[:40])
    stats.record_shared(load, bank_wavefronts(warps[:40], np.arange(40) % 32,
                                              np.arange(40) % 32 * 128, 4))
    stats.record_barrier("cta", [(0, 0, 0), (1, 0, 0)])
    stats.record_barrier("cta", [(0, 0, 0)])
    assert [e.name for e in stats.ops.values()] == ["cuda.store", "cuda.load"]
    (ld,) = stats.by_name("cuda.load")
    assert (ld.warp_instructions, ld.thread_instructions, ld.shared_requests) == (2, 40, 2)
    assert (ld.wavefronts, ld.bank_conflicts) == (32 + 8, 31 + 7)
    assert stats.bank_conflicts == 38 and stats.thread_instructions == 104
    assert stats.barriers_per_block("cta") == {(0, 0, 0): 2, (1, 0, 0): 1}
    assert stats.table().splitlines() == [
        "instructions: 104 thread, 4 warp",
        "barriers per block (cta): min 1, max 2 over 2 blocks",
        "shared bank conflicts: 38",
        "op          location  warp-instrs  thread-instrs  shared-reqs  wavefronts  conflicts",
        "cuda.store  -                   2             64            2           2          0",
        "cuda.load   -                   2             40            2          40         38",
    ]
