"""tirx-opt --list-passes / --list-targets / --help (tools/listings.py): the project's entries
first, grouped by owner, upstream xDSL's below a heading."""

from __future__ import annotations

import os
import subprocess
import sys

from tirx_mlir.tools.listings import group_by_owner, summary
from tirx_mlir.tools.tirx_opt import main

TOOL = os.path.join(os.path.dirname(sys.executable), "tirx-opt")


def _headings(out: str) -> list[str]:
    return [line for line in out.splitlines() if line and not line.startswith(" ")]


def test_group_by_owner_orders_core_backends_upstream() -> None:
    owners = {"b": "trn", "a": "core", "z": "cuda", "c": None, "d": "core"}
    groups = group_by_owner(owners, owners.get)
    assert groups == [("core", ["a", "d"]), ("cuda", ["z"]), ("trn", ["b"]),
                      ("upstream", ["c"])]
    assert summary(groups) == "core: a, d; cuda: z; trn: b; and 1 upstream xDSL ones"


def test_list_passes_groups_project_passes_first(capsys) -> None:
    assert main(["--list-passes"]) == 0
    out = capsys.readouterr().out
    heads = _headings(out)
    assert heads[0] == "tirx_mlir core passes:"
    assert heads[-1].startswith("upstream xDSL passes (")
    assert {"trn backend passes:", "cuda backend passes:"} <= set(heads)
    core = out.split(heads[1])[0]
    assert "  tirx-dispatch " in core and "Lower tile primitives" in core  # with its docstring
    upstream = out.split(heads[-1])[1]
    assert "licm" in upstream and "convert-arith-to-riscv" in upstream
    assert "  cse " in core and "  dce " in core  # ours in place of xDSL's (same IR, cheaper)
    assert "  cse " not in upstream and "  dce " not in upstream
    assert "convert-arith-to-riscv" not in out.split(heads[-1])[0]


def test_list_targets_groups_printers(capsys) -> None:
    assert main(["--list-targets"]) == 0
    out = capsys.readouterr().out
    heads = _headings(out)
    assert heads[:3] == ["tirx_mlir core printers:", "cuda backend printers:",
                         "trn backend printers:"]
    assert "  tx " in out.split(heads[1])[0]  # the core's own: back to @Tx.kernel source
    assert heads[-1].startswith("upstream xDSL printers (")
    assert "  nki " in out.split(heads[-1])[0] and "wgsl" in out.split(heads[-1])[1]


def test_help_names_project_passes_not_all_of_xdsl() -> None:
    result = subprocess.run([TOOL, "--help"], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0
    text = " ".join(result.stdout.split())
    assert "tirx-dispatch" in text and "upstream xDSL ones; see --list-passes" in text
    assert "riscv" not in text and "stencil" not in text  # xDSL's are counted, not listed
    assert "-v, --version print the tirx-opt and xDSL versions and exit" in text
