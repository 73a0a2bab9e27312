"""What an mbarrier phase carries: clock joins and the phases a waiter acquires."""

import numpy as np

from tirx_mlir.backends.cuda.interpreter.checks.mbarrier_clocks import Clock, PhaseClocks


def _clock(cta_vec=None, lane_vec=None, lands=()):
    return Clock({} if cta_vec is None else {0: np.array(cta_vec, np.int32)},
                 {} if lane_vec is None else {3: np.array(lane_vec, np.int32)},
                 np.array(lands, np.int32))


def test_join_is_the_elementwise_maximum_and_keeps_what_only_one_side_has():
    a = _clock([1, 5], None, [2])
    a.join(_clock([3, 2], [7, 0], [0, 4]))
    assert a.warps[0].tolist() == [3, 5] and a.lanes[3].tolist() == [7, 0]
    assert a.lands.tolist() == [2, 4]
    b = Clock()
    b.join(a)
    a.warps[0][0] = 99                              # joins copy: no aliasing
    assert b.warps[0].tolist() == [3, 5]


def test_a_waiter_acquires_its_phase_and_those_before_not_later_ones():
    phases = PhaseClocks(number=2)
    phases.add(0, _clock([1, 0]))
    phases.add(1, _clock([0, 4]))
    phases.add(2, _clock([9, 9]))                   # an arrival that spilled into phase 2
    assert phases.upto(1).warps[0].tolist() == [1, 4]
    assert sorted(phases.later) == [2]
    assert phases.upto(2).warps[0].tolist() == [9, 9]
    assert phases.number == 2
