"""``arith`` and ``math`` on lane values: every op of both dialects, registered from
`lane_ops.arith_lanes.ARITH_LANES` and `lane_ops.math_lanes.MATH_LANES` (lane by lane equal to
the core scalar interpreter: integers wrap, float results round to their type, division by zero
and over-wide shifts on an active lane are errors naming its threads).
"""

from __future__ import annotations

from tirx_mlir.backends.cuda.interpreter.impls import lane_impl
from tirx_mlir.backends.cuda.interpreter.lane_ops.adapter import lane_fn_impl
from tirx_mlir.backends.cuda.interpreter.lane_ops.arith_lanes import ARITH_LANES
from tirx_mlir.backends.cuda.interpreter.lane_ops.math_lanes import MATH_LANES

for _op_type, _fn in (*ARITH_LANES.items(), *MATH_LANES.items()):
    lane_impl(_op_type)(lane_fn_impl(_fn))
