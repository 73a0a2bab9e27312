"""The forced-only vector copies vec_128b .. vec_16b: one ld/st pair per thread, chosen only
when forced, declining with the reason otherwise. (A thread-scope program indexed by
tirx.thread_id has no tile-level meaning: it is checked after lowering, with the SIMT
interpreter, against numpy.)"""

from __future__ import annotations

import numpy as np
import pytest

from tirx_testing.cuda_every_stage import check_compiles, lower
from tirx_mlir.backends.cuda.interpreter.api import simulate
from tirx_mlir.diagnostics import TirxError

KERNEL = """tirx.kernel @vf(%X: !tirx.buffer<128x{n}x{t}, global>)
    -> (%Y: !tirx.buffer<128x{n}x{t}, global>) grid [1] threads [128] target "cuda -arch=sm_80" {{
  %t = tirx.thread_id x : index
  %x = tirx.slice %X[%t, 0] [1, {n}] : !tirx.buffer<128x{n}x{t}, global> -> !tirx.buffer<1x{n}x{t}, global>
  %y = tirx.slice %Y[%t, 0] [1, {n}] : !tirx.buffer<128x{n}x{t}, global> -> !tirx.buffer<1x{n}x{t}, global>
  %r = tirx.alloc : !tirx.buffer<1x{n}x{t}, local>
  tirx.copy %r, %x dispatch "{v}" : !tirx.buffer<1x{n}x{t}, local>, !tirx.buffer<1x{n}x{t}, global>
  tirx.copy %y, %r dispatch "{v}" : !tirx.buffer<1x{n}x{t}, global>, !tirx.buffer<1x{n}x{t}, local>
  tirx.return
}}
"""


@pytest.mark.parametrize("v,t,n,ld", [("vec_128b", "f32", 4, 'ptx.ld "global.v4.f32"'),
                                      ("vec_64b", "f16", 4, 'ptx.ld "global.v4.b16"'),
                                      ("vec_32b", "f32", 1, "cuda.load %X")])
def test_one_vector_per_thread(v, t, n, ld):
    final = lower(KERNEL.format(v=v, t=t, n=n))
    x = np.random.default_rng(0).standard_normal((128, n)).astype(t.replace("f", "float"))
    np.testing.assert_array_equal(simulate(final, None, x).outputs[0], x)
    check_compiles(final, "sm_80")
    text = str(final)
    assert text.count(ld) == 1


def test_a_region_of_another_size_declines_with_the_reason():
    with pytest.raises(TirxError, match=r"vec_128b moves exactly 128 bits: the region holds 2"):
        lower(KERNEL.format(v="vec_128b", t="f32", n=2))


def test_sixteen_bit_elements_at_128_bits_need_packing():
    with pytest.raises(TirxError, match="need packed registers; use vec_auto"):
        lower(KERNEL.format(v="vec_128b", t="f16", n=8))


def test_never_chosen_unless_forced():
    text = KERNEL.format(v="vec_128b", t="f32", n=4).replace(' dispatch "vec_128b"', "")
    assert "ptx.ld" in str(lower(text))  # vec_auto's vector, not a forced variant's
