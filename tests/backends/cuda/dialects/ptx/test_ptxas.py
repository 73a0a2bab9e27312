"""ptxas is the judge of the PTX table: every row's legal variants (all of them, or a set in which
every modifier value appears, plus a few drawn at random) are rendered into one module per target and assembled for the
row's lowest target and for sm_90a; and for every row, the target just below its minimum (or a
PTX ISA version just below it) is refused both by our verifier and by ptxas.

Skipped only when no ptxas exists (neither the ``cuda`` extra's wheels nor a toolkit)."""

from __future__ import annotations

import re
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor

import pytest
from xdsl.utils.exceptions import VerifyException

from tirx_mlir.backends.cuda import toolchain
from tirx_mlir.backends.cuda.dialects.ptx import forms
from tirx_mlir.backends.cuda.dialects.ptx.arch import Arch, version_key
from tirx_mlir.backends.cuda.dialects.ptx.table import ROWS
from tirx_mlir.target import Target
from tirx_testing.ptx_kernels import instance, module

PTXAS = toolchain.find_tool("ptxas")
pytestmark = pytest.mark.skipif(PTXAS is None, reason=toolchain.missing_reason("ptxas"))

SM90A = Arch.parse("sm_90a")
BELOW = {80: "sm_75", 86: "sm_80", 89: "sm_86", 90: "sm_89", 100: "sm_90"}


SAMPLED_PER_ROW = 8


@pytest.fixture(scope="module")
def instances():
    """Every row's representative variants, then a few random legal ones (fixed seed)."""
    out = []
    for row in ROWS:
        variants = forms.representative_variants(row)
        variants += [m for m in forms.sampled_variants(row, SAMPLED_PER_ROW) if m not in variants]
        out.extend((row, instance(row.name, mods)) for mods in variants)
    return out


def _assemble(arch: str, ops, version: str | None = None):
    mod = module(arch, ops)
    text = mod.text if version is None else re.sub(r"\.version \S+", f".version {version}",
                                                   mod.text, count=1)
    return mod, toolchain.assemble(text, arch, ptxas=PTXAS)


def test_every_row_assembles_for_its_minimum_and_for_sm_90a(instances):
    groups: dict[str, list] = defaultdict(list)
    for _, op in instances:
        need = op.need()
        groups[str(need.lowest_arch)].append(op)
        if need.allows(SM90A) and need.lowest_arch != SM90A:
            groups["sm_90a"].append(op)
    assert {"sm_75", "sm_80", "sm_89", "sm_90", "sm_90a", "sm_100a"} <= set(groups)
    with ThreadPoolExecutor(2) as pool:
        results = dict(zip(groups, pool.map(lambda a: _assemble(a, groups[a]), groups)))
    failures = {arch: "\n".join([*mod.line_of(res.log), res.log[-2000:]])
                for arch, (mod, res) in results.items() if not res.ok}
    assert not failures, failures
    assert len(instances) > 600


def _below_minimum(row, op):
    """(arch, version) just below what ``op`` needs, or None where nothing is lower."""
    need = op.need()
    lowest = need.lowest_arch
    if need.only is not None:  # arch-specific: the plain target of the same number
        return f"sm_{lowest.number}", None
    if lowest.number in BELOW:
        return BELOW[lowest.number], None
    if version_key(need.ptx) > version_key(lowest.min_ptx):
        major, minor = version_key(need.ptx)
        return str(lowest), f"{major}.{minor - 1}" if minor else f"{major - 1}.8"
    return None


def test_below_the_minimum_is_refused_by_the_verifier_and_by_ptxas(instances):
    cases, seen = [], set()
    for row, op in instances:
        if row.name not in seen and (below := _below_minimum(row, op)) is not None:
            seen.add(row.name)
            cases.append((row, op, *below))
    assert len(cases) >= 30
    for row, op, arch, version in cases:
        if version is None:
            with Target(f"cuda -arch={arch}"), pytest.raises(VerifyException,
                                                            match=f"needs .*the kernel targets "
                                                                  f"{arch}"):
                op.verify()
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(lambda c: _assemble(c[2], [c[1]], c[3]), cases))
    accepted = [f"{row.name} on {arch} (.version {version or 'target minimum'})"
                for (row, _, arch, version), (_, res) in zip(cases, results) if res.ok]
    assert not accepted, accepted
