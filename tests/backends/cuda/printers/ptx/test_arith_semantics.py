"""The printed sequences of the integer divisions compute what arith defines: a kernel of
``floordivsi``, ``ceildivsi``, ``ceildivui``, ``divsi``, ``remsi``, ``divui``, ``remui`` on
constant operands (negative ones, and the extremes of the width) is printed with ``-t ptx`` and
its straight-line PTX is run by a small evaluator of the instructions it uses (PTX ISA
semantics: ``div`` truncates toward zero, ``rem`` takes the dividend's sign, registers wrap at
their width), and every stored value is compared with Python's exact arithmetic. ptxas only says
the text is well-formed; this says the arithmetic is right. An instruction the evaluator does
not know fails the test (it cannot pass by skipping one)."""

from __future__ import annotations

import re

import pytest

import tirx_mlir  # noqa: F401
from tirx_mlir.backends import load
from tirx_mlir.backends.cuda.printers.ptx import emit_ptx
from tirx_mlir.located_parser import parse_module

load("cuda")


def _trunc_div(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


EXPECTED = {
    "floordivsi": lambda a, b, w: a // b,
    "ceildivsi": lambda a, b, w: -(-a // b),
    "divsi": lambda a, b, w: _trunc_div(a, b),
    "remsi": lambda a, b, w: a - b * _trunc_div(a, b),
    "ceildivui": lambda a, b, w: -(-(a % 2**w) // (b % 2**w)),
    "divui": lambda a, b, w: (a % 2**w) // (b % 2**w),
    "remui": lambda a, b, w: (a % 2**w) % (b % 2**w),
}


def cases(width: int) -> list[tuple[str, int, int]]:
    lo, hi = -(2 ** (width - 1)), 2 ** (width - 1) - 1
    dividends = [-7, -6, -5, -1, 0, 1, 5, 6, 7, lo, lo + 1, hi]
    divisors = [-7, -3, -2, -1, 1, 2, 3, 7, hi, lo]
    return [(op, a, b) for op in EXPECTED for a in dividends for b in divisors
            if not (a == lo and b == -1)]


def kernel(width: int, items: list[tuple[str, int, int]]) -> str:
    t = f"i{width}"
    lines = []
    for k, (op, a, b) in enumerate(items):
        lines += [f"  %a{k} = arith.constant {a} : {t}", f"  %b{k} = arith.constant {b} : {t}",
                  f"  %r{k} = arith.{op} %a{k}, %b{k} : {t}",
                  f"  %i{k} = arith.constant {k} : index",
                  f"  cuda.store %Y, %i{k}, %r{k} : !tirx.buffer<{len(items)}x{t}, global>, "
                  f"index, {t}"]
    body = "\n".join(lines)
    return (f'tirx.kernel @div() -> (%Y: !tirx.buffer<{len(items)}x{t}, global>) grid [1] '
            f'threads [1] target "cuda -arch=sm_80" {{\n{body}\n  tirx.return\n}}\n')


class Machine:
    """Registers and memory of one thread running straight-line PTX."""

    def __init__(self) -> None:
        self.regs: dict[str, int] = {}
        self.memory: dict[int, int] = {}

    def get(self, operand: str, width: int) -> int:
        value = self.regs[operand] if operand.startswith("%") else int(operand.rstrip("U"), 0)
        return value % 2**width

    def signed(self, operand: str, width: int) -> int:
        v = self.get(operand, width)
        return v - 2**width if v >= 2 ** (width - 1) else v

    def run(self, text: str) -> None:
        body = text[text.index("{", text.index(".entry")) + 1:text.rindex("}")]
        for raw in body.strip().splitlines():
            line = raw.strip()
            if not line or line.startswith(".reg") or line == "ret;":
                continue
            self.step(line)

    def step(self, line: str) -> None:
        m = re.fullmatch(r"([a-z0-9.]+) (.*);", line)
        assert m, f"not an instruction: {line}"
        opcode, args = m.group(1), [a.strip() for a in m.group(2).split(",")]
        parts = opcode.split(".")
        width = int(re.sub(r"\D", "", parts[-1]) or 1) if parts[-1] != "pred" else 1
        d = args[0]
        if opcode == "ld.param.u64":
            self.regs[d] = 1 << 40
        elif opcode in ("cvta.to.global.u64", "mov.b32", "mov.b64"):
            self.regs[d] = self.get(args[1], width)
        elif opcode == "mad.lo.s64":
            self.regs[d] = (self.get(args[1], 64) * self.get(args[2], 64) +
                            self.get(args[3], 64)) % 2**64
        elif parts[0] in ("div", "rem") and parts[1][0] == "s":
            a, b = self.signed(args[1], width), self.signed(args[2], width)
            q = _trunc_div(a, b)
            self.regs[d] = (q if parts[0] == "div" else a - b * q) % 2**width
        elif parts[0] in ("div", "rem"):
            a, b = self.get(args[1], width), self.get(args[2], width)
            self.regs[d] = a // b if parts[0] == "div" else a % b
        elif opcode in ("mul.hi.u64", "mul.hi.u32"):
            self.regs[d] = (self.get(args[1], width) * self.get(args[2], width)) >> width
        elif opcode in ("mul.lo.s64", "mul.lo.s32"):
            self.regs[d] = (self.get(args[1], width) * self.get(args[2], width)) % 2**width
        elif parts[0] == "shr" and parts[1][0] == "u":
            self.regs[d] = self.get(args[1], width) >> self.get(args[2], 32)
        elif parts[0] == "and" and opcode != "and.pred":
            self.regs[d] = self.get(args[1], width) & self.get(args[2], width)
        elif parts[0] == "setp":
            a, b = self.signed(args[1], width), self.signed(args[2], width)
            self.regs[d] = int({"ne": a != b, "lt": a < b, "ge": a >= b}[parts[1]])
        elif opcode == "and.pred":
            self.regs[d] = self.regs[args[1]] & self.regs[args[2]]
        elif parts[0] == "xor":
            self.regs[d] = self.get(args[1], width) ^ self.get(args[2], width)
        elif parts[0] == "selp":
            self.regs[d] = self.get(args[1] if self.regs[args[3]] else args[2], width)
        elif parts[0] in ("add", "sub"):
            sign = 1 if parts[0] == "add" else -1
            self.regs[d] = (self.get(args[1], width) + sign * self.get(args[2], width)) \
                % 2**width
        elif parts[0] == "st":
            self.memory[self.get(d.strip("[]"), 64)] = self.get(args[1], width)
        else:
            raise AssertionError(f"the evaluator does not know {opcode}: {line}")


@pytest.mark.parametrize("width", [32, 64])
def test_printed_divisions_compute_what_arith_defines(width):
    items = cases(width)
    ptx = emit_ptx(parse_module(kernel(width, items), "div.mlir"))
    machine = Machine()
    machine.run(ptx)
    base, size = 1 << 40, width // 8
    wrong = []
    for k, (op, a, b) in enumerate(items):
        want = EXPECTED[op](a, b, width) % 2**width
        got = machine.memory[base + k * size]
        if got != want:
            wrong.append(f"{op}({a}, {b}) = {got}, want {want}")
    assert not wrong, "\n".join(wrong[:20])


DIVISORS = {
    64: [1, 2, 3, 5, 6, 7, 24, 32, 96, 1000, 2**32 - 1, 2**32 + 1, 2**63 - 1, 2**63, 2**63 + 5,
         2**64 - 7, 2**64 - 2, 2**64 - 1],
    32: [1, 2, 3, 5, 6, 7, 24, 32, 96, 1000, 2**16 + 1, 2**31 - 1, 2**31, 2**31 + 5, 2**32 - 7,
         2**32 - 1],
}


@pytest.mark.parametrize("width", [64, 32])
def test_unsigned_division_by_constants_is_reduced_and_exact(width):
    """divui/remui on index or i64 (and on i32: narrowed index arithmetic) by constants print
    as shifts, masks or a multiply-high: ptxas would call its 64-bit division routine, and
    turns div.u32 by an immediate into its reciprocal sequence. Exact for powers of two, small
    odd and even divisors, the stage counts of pipelines and divisors at the top of the range."""
    import random

    rng = random.Random(7)
    top = 2**width
    dividends = [0, 1, top // 2 - 1, top // 2, top - 1] + [rng.randrange(top) for _ in range(6)]
    items = [(op, a - top if a >= top // 2 else a, b - top if b >= top // 2 else b)
             for op in ("divui", "remui") for a in dividends for b in DIVISORS[width]]
    ptx = emit_ptx(parse_module(kernel(width, items), "div.mlir"))
    assert not re.search(rf"\b(div|rem)\.u{width}", ptx)
    machine = Machine()
    machine.run(ptx)
    wrong = [f"{op}({a % top}, {b % top})" for k, (op, a, b) in enumerate(items)
             if machine.memory[(1 << 40) + width // 8 * k] != EXPECTED[op](a, b, width) % top]
    assert not wrong, "\n".join(wrong[:20])


def test_the_evaluator_catches_a_wrong_rounding():
    """The check can fail: truncation where floor is wanted is caught on -7 // 2."""
    items = [("floordivsi", -7, 2)]
    ptx = emit_ptx(parse_module(kernel(32, items), "div.mlir"))
    broken = ptx.replace("sub.s32", "add.s32")
    machine = Machine()
    machine.run(broken)
    assert machine.memory[1 << 40] != (-7 // 2) % 2**32
