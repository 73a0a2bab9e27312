"""Both CUDA printers refuse a thread's local array past CUDA's 512 KiB of local memory per
thread (`checks.local_array_error`), located at the ``tirx.alloc``.

Found by the cuda hostile-input campaign: flash_attention_sm90a after the pipeline with a
register tile made 2^40 elements was a MemoryError in the PTX printer (one register name per
element) and ``float buf[1099511627776];`` in CUDA C++."""

from __future__ import annotations

import pytest

import tirx_mlir  # noqa: F401
from tirx_mlir.diagnostics import op_location
from tirx_mlir.located_parser import parse_module
from tirx_mlir.printers import PrintError
from tirx_mlir.runtime.toolchain import print_with


def _kernel(n: int) -> str:
    return ('tirx.kernel @k(%A: !tirx.buffer<4xf32, global>) grid [1] threads [32] '
            f'target "cuda -arch=sm_80" {{\n  %r = tirx.alloc : !tirx.buffer<{n}xf32, local>\n'
            '  tirx.return\n}\n')


@pytest.mark.parametrize("printer", ["ptx", "cuda"])
@pytest.mark.parametrize("n", [1 << 40, 131073])
def test_a_local_array_past_the_limit_is_a_located_error(printer, n):
    with pytest.raises(PrintError, match=rf"{4 * n} bytes per thread; a CUDA thread has at "
                                         rf"most 524288 bytes of local memory") as err:
        print_with(printer, parse_module(_kernel(n), "big.mlir"))
    assert op_location(err.value.op) == ("big.mlir", 2, 3)


@pytest.mark.parametrize("printer", ["ptx", "cuda"])
def test_a_local_array_at_the_limit_prints(printer):
    print_with(printer, parse_module(_kernel(131072), "big.mlir"))
