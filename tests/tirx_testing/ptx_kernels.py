"""Minimal PTX modules around rendered ptx ops, for assembling the table's rows with ptxas.

`instance(row, mods)` builds one verified ``ptx.<row>`` op with fresh operands of the table's
types (`in_module` puts such ops in a module); `module(arch, ops)` renders ops into one ``.entry`` with a correct header
(``.version max(target minimum, features used)``, ``.target``, ``.address_size 64``) and one
register declaration per register class; `line_of` maps a ptxas error line back to its op.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.dialects.builtin import Float32Type, Float64Type, IntegerType, ModuleOp
from xdsl.dialects.test import TestOp
from xdsl.ir import SSAValue

from tirx_mlir.backends.cuda.dialects.ptx import forms
from tirx_mlir.backends.cuda.dialects.ptx.arch import Arch, ptx_header
from tirx_mlir.backends.cuda.dialects.ptx.ops import OPS_BY_ROW, PtxOp, default_type, make
from tirx_mlir.backends.cuda.dialects.ptx.render import render, tied_values

_CLASSES = (("pred", "p"), ("b16", "h"), ("b32", "r"), ("f32", "f"), ("b64", "rd"),
            ("f64", "fd"))


def operand_values(row: str, mods: dict) -> list[SSAValue]:
    """Fresh values of the types the row reads (addresses as i64)."""
    types = []
    for place in forms.places(OPS_BY_ROW[row].ENTRY, mods):
        if place.operand.rw == "w" or place.operand.kind == "imm":
            continue
        if place.operand.kind == "addr":
            types.append(IntegerType(64))
        elif place.operand.kind == "tensor":
            types.extend([IntegerType(64)] + [IntegerType(32)] * place.lanes)
        else:
            types.extend([default_type(place.type)] * place.lanes)
    return list(TestOp(result_types=types).results) if types else []


def instance(row: str, mods: dict) -> PtxOp:
    op = make(row, operand_values(row, mods), **mods)
    op.verify()
    return op


def in_module(ops: list[PtxOp]) -> ModuleOp:
    """A module holding each op after the test.op that defines its operands."""
    body = []
    for op in ops:
        if op.args:
            body.append(op.args[0].owner)
        body.append(op)
    return ModuleOp(body)


def _class_of(value: SSAValue) -> str:
    t = value.type
    if isinstance(t, Float32Type):
        return "f32"
    if isinstance(t, Float64Type):
        return "f64"
    width = t.width.data if isinstance(t, IntegerType) else t.bitwidth  # type: ignore
    return {1: "pred", 16: "b16", 32: "b32", 64: "b64"}[width]


@dataclass
class Module:
    text: str
    lines: dict[int, str]
    """1-based line number -> the rendered instruction on it."""

    def line_of(self, log: str) -> list[str]:
        """The instructions ptxas complained about (``line N;`` in its messages)."""
        import re

        return [f"line {n}: {self.lines.get(int(n), '?')}"
                for n in re.findall(r"line (\d+);", log)]


def module(arch: str, ops: list[PtxOp], name: str = "k") -> Module:
    target = Arch.parse(arch)
    counters = {cls: 0 for cls, _ in _CLASSES}
    prefix = dict(_CLASSES)
    names: dict[SSAValue, str] = {}

    def reg(value: SSAValue) -> str:
        if value not in names:
            cls = _class_of(value)
            counters[cls] += 1
            names[value] = f"%{prefix[cls]}{counters[cls]}"
        return names[value]

    body = []
    for op in ops:
        for result, operand in tied_values(op):
            names[result] = reg(operand)
        body.append(render(op, reg))
    head = ptx_header(target, [op.need() for op in ops])
    lines = [head.rstrip("\n"), f".visible .entry {name}()", ".maxntid 128, 1, 1", "{"]
    lines += [f"    .reg .{cls} %{p}<{counters[cls] + 1}>;" for cls, p in _CLASSES]
    first = len("\n".join(lines).splitlines()) + 1
    lines += [f"    {text}" for text in body] + ["    ret;", "}", ""]
    return Module("\n".join(lines), {first + i: text for i, text in enumerate(body)})
