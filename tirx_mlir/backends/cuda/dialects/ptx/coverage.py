"""docs/cuda_ptx_coverage.md, generated from the PTX table: every row with its modifiers, operands,
minimum sm and PTX ISA version, then TIRx's ``T.ptx`` families against the rows covering them.

    python -m tirx_mlir.backends.cuda.dialects.ptx.coverage > docs/cuda_ptx_coverage.md

tests/backends/cuda/dialects/ptx/test_coverage.py fails when the checked-in doc is stale.
"""

from __future__ import annotations

import re

from tirx_mlir.backends.cuda.dialects.ptx.arch import requirement
from tirx_mlir.backends.cuda.dialects.ptx.schema import Entry, Operand, Req
from tirx_mlir.backends.cuda.dialects.ptx.table import ROWS

TIRX_SOURCE = "apache/tvm `python/tvm/backend/cuda/ptx/table.py`"

# TIRx's T.ptx families and their entry counts (the table of the source above).
TIRX_FAMILIES: dict[str, dict[str, int]] = {
    "integer/float ALU": {
        "max": 2, "min": 2, "fns": 1, "add": 3, "sub": 3, "mul": 4, "mad": 3, "mul24": 1,
        "mad24": 1, "sad": 1, "div": 2, "rem": 1, "abs": 3, "neg": 3, "popc": 1, "clz": 1,
        "bfind": 1, "brev": 1, "bfe": 1, "bfi": 1, "szext": 1, "bmsk": 1, "dp4a": 1, "dp2a": 1,
        "fma": 2, "rcp": 1, "sqrt": 1, "rsqrt": 1, "ex2": 2, "sin": 1, "cos": 1, "lg2": 1,
        "tanh": 2, "testp": 1, "copysign": 1},
    "compare/select/logic": {
        "set": 4, "setp": 8, "selp": 1, "slct": 1, "and": 1, "or": 1, "xor": 1, "not": 1,
        "cnot": 1, "lop3": 2, "shf": 1, "shl": 1, "shr": 1, "prmt": 1},
    "moves/conversions": {"mov": 11, "cvt": 27, "cvt_pack": 2, "cvta": 2, "mapa": 2,
                          "isspacep": 1, "getctarank": 2},
    "memory": {"ld": 3, "st": 3, "st_bulk": 1, "st_async": 3, "ldu": 2, "prefetch": 1,
               "prefetchu": 1, "applypriority": 1, "discard": 1, "createpolicy": 4,
               "multimem_ld_reduce": 3, "multimem_st": 3, "multimem_red": 3, "atom": 6, "red": 2,
               "red_async": 2},
    "async copy/TMA": {"cp": 22, "tensormap_replace": 8, "tensormap_cp_fenceproxy": 1},
    "matrix load/store": {"ldmatrix": 3, "stmatrix": 2},
    "MMA": {"mma": 12, "wgmma": 19, "tcgen05": 20},
    "barriers/sync": {"mbarrier": 25, "bar": 8, "barrier": 9, "fence": 5, "vote_sync": 2,
                      "match": 3, "activemask": 1, "elect_sync": 1, "redux_sync": 3,
                      "shfl_sync": 2, "griddepcontrol": 1, "clusterlaunchcontrol": 4,
                      "setmaxnreg": 1},
}

WHY_NOT_YET = {
    "tcgen05": "tcgen05/TMEM (sm_100a) waits for the Blackwell part of the backend",
    "integer/float ALU": "scalar arithmetic is arith/math in the IR and printed as C++ or PTX "
                         "by the printers, not table rows",
    "compare/select/logic": "as above (arith/scf in the IR)",
}


def tirx_family(entry: Entry) -> str:
    return re.split(r"[ .(]", entry.tirx, maxsplit=1)[0]


def _req_text(req: Req) -> str:
    where = " / ".join(req.sm) if isinstance(req.sm, tuple) else f"{req.sm}+"
    cond = ", ".join(f"{k} in {{{', '.join(v)}}}" for k, v in req.when.items())
    return f"{where}, PTX {req.ptx}" + (f" when {cond}" if cond else "")


def _operand_text(op: Operand) -> str:
    lanes = "" if op.lanes == 1 else ("xN" if callable(op.lanes) else f"x{op.lanes}")
    typ = "" if op.kind == "imm" else ("." + op.type if isinstance(op.type, str) else ".T")
    if op.kind == "imm":
        values = "|".join(map(str, op.choices)) if op.choices else \
            f"{op.imm_range[0]}..{op.imm_range[1]}"
        return f"{op.name}=imm({values})"
    mark = {"r": "", "w": "out ", "rw": "inout "}[op.rw]
    wrap = {"addr": "[{}]", "tensor": "[tmap, {{{}}}]"}.get(op.kind, "{}")
    return mark + wrap.format(f"{op.name}{typ}{lanes}")


def _slots_text(entry: Entry) -> str:
    return "<br>".join(f"`{s.name}{'?' if s.optional else ''}`: "
                       + ", ".join(f"`{c}`" for c in s.choices[:12])
                       + (f", ... ({len(s.choices)})" if len(s.choices) > 12 else "")
                       for s in entry.slots) or "—"


def _base_need(entry: Entry) -> str:
    return requirement(entry, {}).describe()  # the requirements without a `when`


def _row_line(entry: Entry) -> str:
    extra = [_req_text(r) for r in entry.requires if r.when]
    cells = [f"`ptx.{entry.name}`", f"`{entry.template}`", _slots_text(entry),
             ", ".join(_operand_text(o) for o in entry.operands) or "—",
             _base_need(entry), "<br>".join(extra) or "—", entry.doc]
    return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"


HEADER = """# PTX instruction coverage of the `ptx` dialect

Generated from `tirx_mlir/backends/cuda/dialects/ptx/table.py` by
`python -m tirx_mlir.backends.cuda.dialects.ptx.coverage > docs/cuda_ptx_coverage.md`; a test
fails when this file is stale. Do not edit by hand.

Each row of the table is one op `ptx.<name>`: its verifier, custom syntax and PTX text come from
the row. To add an instruction, add a row (`Entry`) to `table.py`: its PTX `template` with
`{slot}` placeholders, the modifier `slots` and their choices, the `operands` in PTX order
(kind reg/addr/imm/tensor, read/write, lanes, PTX type), the minimum sm and PTX ISA version
(`requires`, optionally per modifier value), and a `check` for combinations the ISA forbids.
tests/backends/cuda/dialects/ptx/test_ptxas.py then assembles its variants with ptxas for its
lowest target and sm_90a, and checks the target below is refused.

Columns: *modifiers* lists each slot (`?`: optional) with its choices; *operands* in PTX order
(`out`: a result, `inout`: read and written, `[..]`: an address, `xN`: a vector whose length
follows from the modifiers, `.T`: a type given by a modifier); *needs* is what the row needs
with no optional modifier; *more needs* are the extra requirements of some modifier values.

Not in the table yet: tcgen05 / TMEM (sm_100a-class), sparse `mma.sp`, wgmma integer/b1 and
`.sp` forms, `tensormap.replace`, `multimem`, `clusterlaunchcontrol`, `st.async`, the
`createpolicy` forms other than `.fractional` with fraction 1.0, and `.L2::cache_hint` on
instructions other than `ld` and the TMA copies.
"""


def _tirx_section() -> list[str]:
    rows_by_family: dict[str, list[str]] = {}
    for entry in ROWS:
        rows_by_family.setdefault(tirx_family(entry), []).append(f"`ptx.{entry.name}`")
    families = sum(len(f) for f in TIRX_FAMILIES.values())
    entries = sum(sum(f.values()) for f in TIRX_FAMILIES.values())
    covered = sum(1 for f in TIRX_FAMILIES.values() for name in f if name in rows_by_family)
    lines = ["", "## TIRx's `T.ptx` families", "",
             f"TIRx ({TIRX_SOURCE}) has {entries} entries in {families} families; "
             f"{covered} families have rows here.", "",
             "| area | TIRx family (entries) | rows here |", "|---|---|---|"]
    for area, members in TIRX_FAMILIES.items():
        for name, count in members.items():
            ours = ", ".join(rows_by_family.get(name, [])) or \
                ("— " + WHY_NOT_YET.get(name, WHY_NOT_YET.get(area, "not yet")))
            lines.append(f"| {area} | `{name}` ({count}) | {ours} |")
    return lines


def coverage_markdown() -> str:
    lines = [HEADER, "## Rows", "",
             f"{len(ROWS)} rows in {len({e.family for e in ROWS})} families.", ""]
    for family in dict.fromkeys(e.family for e in ROWS):
        lines += [f"### {family}", "",
                  "| op | PTX template | modifiers | operands | needs | more needs | what |",
                  "|---|---|---|---|---|---|---|"]
        lines += [_row_line(e) for e in ROWS if e.family == family]
        lines.append("")
    lines += _tirx_section()
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(coverage_markdown(), end="")
