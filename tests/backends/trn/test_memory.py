"""trn's memory facts: the backend registers its scopes and axes itself, the memory descriptions
follow the target's limits, and IR naming trn.sbuf parses whenever the backend is loaded (with
autoload off, the error says to load it)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tirx_mlir import registry
from tirx_mlir.backends.trn import memory
from tirx_mlir.backends.trn.target_tags import TrnLimits
from tirx_mlir.target import Target

KERNEL = """tirx.kernel @k() grid [1] threads [1] {
  %a = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf, S[(128,512):(1@P,1@F)]>
  tirx.return
}
"""


def test_the_backend_owns_its_scopes_and_axes():
    for scope in (memory.SBUF, memory.PSUM):
        assert registry.memory_scopes.owner_of(scope) == "trn"
    for axis in (memory.PARTITION_AXIS, memory.FREE_AXIS, memory.BANK_AXIS):
        assert registry.layout_axes.owner_of(axis) == "trn"
        assert registry.layout_axes.get(axis) == "memory"
    made = registry.registrations_of("trn")
    assert set(made["memory scope"]) == set(memory.ON_CHIP)


def test_memory_spaces_follow_the_target_limits():
    sbuf, psum = memory.memory_spaces(TrnLimits())
    assert (sbuf.scope, sbuf.rows, sbuf.capacity, sbuf.unit) == (memory.SBUF, 128, 180224, 64)
    assert (psum.scope, psum.capacity, psum.unit) == (memory.PSUM, 16384, 2048)
    assert sbuf.address_attr == psum.address_attr == memory.ADDR_ATTR
    assert (sbuf.footprint_attr, psum.footprint_attr) == ("trn.sbuf_bytes", "trn.psum_bytes")
    trn2 = TrnLimits.from_target(Target("aws/trn2/trn2.48xlarge"))
    assert memory.memory_space(trn2, memory.SBUF).bytes_per_row == 229376
    assert "trn2.48xlarge" in memory.memory_space(trn2, memory.PSUM).source
    assert memory.memory_spaces(TrnLimits(), 128)[0].unit == 128  # trn-allocate{align=128}


def test_ir_naming_trn_scopes_parses_when_the_backend_is_loaded():
    from tirx_mlir.located_parser import parse_module

    parse_module(KERNEL, "k.mlir").verify()


def _child(code: str) -> subprocess.CompletedProcess:
    env = {**__import__("os").environ, "TIRX_MLIR_BACKEND_AUTOLOAD": "0"}
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, env=env)


@pytest.mark.parametrize("load_first", [False, True])
def test_without_autoload_the_unknown_scope_error_says_to_load_the_backend(load_first):
    code = (
        "import tirx_mlir, tirx_mlir.backends as b\n"
        + ("b.load('trn')\n" if load_first else "")
        + "from tirx_mlir.located_parser import parse_module\n"
        + f"try:\n    parse_module({KERNEL!r}, 'k.mlir'); print('parsed')\n"
        + "except Exception as e:\n    print(type(e).__name__, e)\n")
    out = _child(code)
    assert out.returncode == 0, out.stderr
    if load_first:
        assert out.stdout.strip() == "parsed"
        return
    assert "k.mlir:2:" in out.stdout
    assert "unknown memory scope 'trn.sbuf'" in out.stdout
    assert "TIRX_MLIR_BACKEND_AUTOLOAD=0 is set" in out.stdout
    assert "tirx_mlir.backends.load('trn')" in out.stdout
