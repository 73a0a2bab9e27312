"""Targets and PTX ISA versions: each target's lowest ``.version`` is what ptxas accepts (and the
version below is refused), and a row's requirements fold into one `Need` per variant."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from tirx_mlir.backends.cuda import toolchain
from tirx_mlir.backends.cuda.dialects.ptx.arch import (TARGET_MIN_PTX, Arch, Need, ptx_header,
                                                       ptx_version, requirement, version_key)
from tirx_mlir.backends.cuda.dialects.ptx.table import ROWS_BY_NAME

PTXAS = toolchain.find_tool("ptxas")


def _empty_module(arch: str, version: str) -> str:
    return f".version {version}\n.target {arch}\n.address_size 64\n" \
           ".visible .entry k()\n{\n    ret;\n}\n"


def _below(version: str) -> str:
    major, minor = version_key(version)
    return f"{major}.{minor - 1}" if minor else f"{major - 1}.8"


@pytest.mark.skipif(PTXAS is None, reason=toolchain.missing_reason("ptxas"))
def test_each_target_minimum_is_what_ptxas_accepts():
    jobs = [(arch, v) for arch, low in TARGET_MIN_PTX.items() for v in (low, _below(low))]
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda j: toolchain.assemble(_empty_module(*j), j[0],
                                                             ptxas=PTXAS).ok, jobs))
    wrong = [f"{arch} .version {v}: {'accepted' if ok else 'refused'}"
             for (arch, v), ok in zip(jobs, results) if ok != (v == TARGET_MIN_PTX[arch])]
    assert not wrong, wrong


def test_arch_parsing():
    assert Arch.parse("sm_90a") == Arch(90, "a") and str(Arch(100, "f")) == "sm_100f"
    with pytest.raises(ValueError, match="'compute_90' is not an sm architecture"):
        Arch.parse("compute_90")


def test_needs_fold_per_variant():
    ld = ROWS_BY_NAME["ld"]
    assert requirement(ld, {"space": "global", "type": "f32"}) == Need(75, None, "6.3")
    hinted = requirement(ld, {"space": "shared::cluster", "l2": "L2::256B", "type": "f32"})
    assert hinted == Need(90, None, "7.8")
    redux = requirement(ROWS_BY_NAME["redux_sync"], {"op": "max", "type": "f32"})
    assert redux.only == ("sm_100a", "sm_100f", "sm_103a") and redux.ptx == "8.6"
    assert redux.allows(Arch.parse("sm_103a")) and not redux.allows(Arch.parse("sm_120a"))
    assert Need(80, None, "7.0").allows(Arch.parse("sm_90a"))
    assert not Need(90, ("sm_90a",), "8.0").allows(Arch.parse("sm_100a"))


def test_the_module_version_is_the_target_minimum_or_what_features_need():
    assert ptx_version(Arch.parse("sm_80")) == "7.0"
    assert ptx_version(Arch.parse("sm_80"), [Need(80, None, "7.4")]) == "7.4"
    assert ptx_version(Arch.parse("sm_90a"), [Need(80, None, "7.4")]) == "8.0"
    assert ptx_header(Arch.parse("sm_90a"), [Need(90, None, "8.6")]) == \
        ".version 8.6\n.target sm_90a\n.address_size 64\n"
