"""Whether the CUDA level has per-thread local arrays yet (cuda.load/store on a ``local`` buffer,
the register arrays the register-tile variants use): tests of register tiles skip until then."""

from __future__ import annotations

import functools

import pytest

PROBE = """tirx.kernel @probe() grid [1] threads [32] target "cuda -arch=sm_80" {
  %r = tirx.alloc : !tirx.buffer<4xf32, local>
  %c0 = arith.constant 0 : index
  %v = arith.constant 1.0 : f32
  cuda.store %r, %c0, %v : !tirx.buffer<4xf32, local>, index, f32
  tirx.return
}
"""


@functools.cache
def local_arrays_supported() -> bool:
    from tirx_mlir.located_parser import parse_module

    try:
        parse_module(PROBE, "probe").verify()
    except Exception:  # noqa: BLE001 - any refusal means: not supported yet
        return False
    return True


def needs_local_arrays(test):
    """Skip ``test`` while cuda.load/store refuse local arrays."""
    return pytest.mark.skipif(not local_arrays_supported(),
                              reason="cuda.load/store on local (per-thread register) arrays "
                                     "are not in this tree yet")(test)
