"""``arith`` ops as PTX instructions (the `ArithOps` mixin of the PTX printer).

Integers are signless in arith and typed in PTX: each op picks the PTX type from its own
signedness (``divsi`` -> ``div.s32``, ``divui`` -> ``div.u32``, ``cmpi ult`` -> ``setp.lo.u32``),
at the width of the operands (``index`` is 64-bit). i8 arithmetic is refused (PTX has no 8-bit
registers: it would wrap at 16 bits). Floats use the IEEE-rounded forms (``add.rn`` and
``mul.rn``, which ptxas never contracts into an fma, as arith does not); ``maximumf`` /
``minimumf`` propagate NaN (``max.NaN``, sm_80), ``maxnumf`` / ``minnumf`` drop it (``max``).
Shift amounts are ``.u32`` in PTX, so a 64-bit amount is narrowed first (both treat an amount
of the width or more as out of range: arith calls it poison).

The signed rounding divisions (stated once, here): with ``q = div.s(a, b)`` and ``r = rem.s(a,
b)`` (PTX truncates toward zero, so ``r`` has the sign of ``a``),

* ``floordivsi(a, b) = q - 1`` when ``r != 0`` and ``r`` and ``b`` have opposite signs, else
  ``q``: truncation rounded up exactly when the true quotient is negative and inexact. The sign
  test is ``xor(r, b) < 0`` (the sign bit of the xor is set iff the signs differ), so
  ``floordivsi(-7, 2) = -3 - 1 = -4``, ``floordivsi(7, -2) = -4``, ``floordivsi(-6, 2) = -3``
  (``r = 0``), ``floordivsi(7, 2) = 3``;
* ``ceildivsi(a, b) = q + 1`` when ``r != 0`` and the signs agree (``xor(r, b) >= 0``), else
  ``q``: ``ceildivsi(7, 2) = 4``, ``ceildivsi(-7, 2) = -3``, ``ceildivsi(-7, -2) = 4``;
* ``ceildivui(a, b) = div.u(a, b) + (rem.u(a, b) != 0)``.

64-bit ``divui`` / ``remui`` by a constant are shifts, masks or a multiply-high
(constant_division.py: ptxas calls a subroutine for every 64-bit division).
Division by zero and ``MIN / -1`` are undefined in arith and give what ``div.s`` gives.
``remsi`` is ``rem.s`` (the sign of the dividend, as arith).
tests/backends/cuda/printers/ptx/test_arith_semantics.py checks these rules against Python's
exact integer arithmetic by evaluating the printed sequences.
"""

from __future__ import annotations

import struct

from xdsl.dialects import arith
from xdsl.dialects.builtin import (BFloat16Type, Float16Type, Float32Type, Float64Type,
                                   FloatAttr, IndexType, IntegerAttr, IntegerType, VectorType)
from xdsl.ir import Attribute, Operation, SSAValue

from tirx_mlir.backends.cuda.printers.ptx import registers as regs
from tirx_mlir.backends.cuda.printers.ptx.constant_division import ConstantDivision

INT_BINARY = {
    "arith.addi": "add.s", "arith.subi": "sub.s", "arith.muli": "mul.lo.s",
    "arith.divsi": "div.s", "arith.divui": "div.u", "arith.remsi": "rem.s",
    "arith.remui": "rem.u", "arith.andi": "and.b", "arith.ori": "or.b", "arith.xori": "xor.b",
    "arith.minsi": "min.s", "arith.maxsi": "max.s", "arith.minui": "min.u",
    "arith.maxui": "max.u",
}
SHIFTS = {"arith.shli": "shl.b", "arith.shrsi": "shr.s", "arith.shrui": "shr.u"}
PRED_BINARY = {"arith.andi": "and.pred", "arith.ori": "or.pred", "arith.xori": "xor.pred"}
FLOAT_BINARY = {"arith.addf": "add.rn", "arith.subf": "sub.rn", "arith.mulf": "mul.rn",
                "arith.divf": "div.rn", "arith.maxnumf": "max", "arith.minnumf": "min",
                "arith.maximumf": "max.NaN", "arith.minimumf": "min.NaN"}
CMPI = {"eq": "eq.s", "ne": "ne.s", "slt": "lt.s", "sle": "le.s", "sgt": "gt.s",
        "sge": "ge.s", "ult": "lo.u", "ule": "ls.u", "ugt": "hi.u", "uge": "hs.u"}
CMPF = {"oeq": "eq", "ogt": "gt", "oge": "ge", "olt": "lt", "ole": "le", "one": "ne",
        "ord": "num", "ueq": "equ", "ugt": "gtu", "uge": "geu", "ult": "ltu", "ule": "leu",
        "une": "neu", "uno": "nan"}


def int_width(t: Attribute) -> int | None:
    kind = type(t)  # the two classes first (an isinstance test of an attribute runs ABCMeta's)
    if kind is IndexType:
        return 64
    if kind is IntegerType:
        return t.width.data
    if isinstance(t, IndexType):
        return 64
    if isinstance(t, IntegerType):
        return t.width.data
    return None


def float_name(t: Attribute) -> str | None:
    """The PTX type of a float value: f16/bf16/f32/f64, ``f16x2``/``bf16x2`` for a
    ``vector<2xf16>`` / ``vector<2xbf16>`` (one ``.b32`` register holding both halves)."""
    name = _FLOAT_NAMES.get(type(t))  # the scalar floats first: no isinstance of a type
    if name is None and isinstance(t, VectorType) and t.get_shape() == (2,):
        inner = float_name(t.element_type)
        return f"{inner}x2" if inner in ("f16", "bf16") else None
    return name


_FLOAT_NAMES = {Float16Type: "f16", BFloat16Type: "bf16", Float32Type: "f32", Float64Type: "f64"}


def float_literal(t: Attribute, value: float) -> str:
    """A PTX float immediate, exact: ``0f`` + f32 bits, ``0d`` + f64 bits; f16/bf16 are b16
    bit patterns (``0x3C00``)."""
    name = float_name(t)
    if name == "f64":
        return "0d" + struct.pack(">d", value).hex().upper()
    bits = struct.pack(">f", value)
    if name == "f32":
        return "0f" + bits.hex().upper()
    if name == "bf16":
        return "0x" + bits[:2].hex().upper()  # truncation; arith folds constants already
    return "0x" + struct.pack(">e", value).hex().upper()


class ArithOps(ConstantDivision):
    """``emit_arith_*``: one instruction (or a short fixed sequence) per op."""

    # ---- helpers ----
    def int_bits(self, value: SSAValue, op: Operation) -> int:
        w = int_width(value.type)
        if w is None or w == 8:
            raise self.fail(f"{op.name} on {value.type} has no PTX form (integers of 16, 32 "
                            f"or 64 bits, and index)", op)
        return w

    def emit_arith_constant(self, op: arith.ConstantOp) -> None:
        result, *_ = op.results  # op.result, without xDSL's accessor (thousands of ops)
        value, t = op.value, result.type
        if isinstance(value, IntegerAttr) and int_width(t) == 1:
            self.line(f"setp.ne.u32 {self.define(result)}, {1 if value.value.data else 0}, 0;")
        elif isinstance(value, IntegerAttr) and int_width(t) is not None:
            literal = self.checked_int(value.value.data, op)
            self.line(f"mov.b{max(16, int_width(t))} {self.define(result)}, {literal};")
        elif isinstance(value, FloatAttr) and float_name(t) is not None:
            kind = float_name(t)
            mov = "b16" if kind in ("f16", "bf16") else kind
            self.line(f"mov.{mov} {self.define(result)}, "
                      f"{float_literal(t, value.value.data)};")
        else:
            raise self.fail(f"the PTX printer cannot materialise a constant {value} of type "
                            f"{t}", op, hint="scalar integer and float constants only")

    def binary(self, op: Operation, mnemonic: str) -> None:
        lhs, rhs = op._operands  # noqa: SLF001 - op.operands, cheaper
        result, *_ = op.results
        self.line(f"{mnemonic} {self.define(result)}, {self.reg(lhs)}, {self.reg(rhs)};")

    def int_binary(self, op: Operation) -> None:
        lhs = op.operands[0]
        if int_width(lhs.type) == 1 and op.name in PRED_BINARY:
            return self.binary(op, PRED_BINARY[op.name])
        w = self.int_bits(lhs, op)
        if w in (32, 64) and op.name in ("arith.divui", "arith.remui") and \
                self.constant_udiv(op, w):
            return
        self.binary(op, f"{INT_BINARY[op.name]}{w}")

    def shift(self, op: Operation) -> None:
        lhs, rhs = op.operands
        w = self.int_bits(lhs, op)
        amount = self.reg(rhs)
        if int_width(rhs.type) != 32:
            narrowed = self.temp(regs.B32)
            self.line(f"cvt.u32.u{self.int_bits(rhs, op)} {narrowed}, {amount};")
            amount = narrowed
        self.line(f"{SHIFTS[op.name]}{w} {self.define(op.result)}, {self.reg(lhs)}, {amount};")

    def float_binary(self, op: Operation) -> None:
        lhs, *_ = op._operands  # noqa: SLF001 - op.operands[0], cheaper
        kind = float_name(lhs.type)
        mnemonic = FLOAT_BINARY[op.name]
        half = kind in ("f16", "f16x2", "bf16x2")
        if kind is None or kind == "bf16" or (half and op.name == "arith.divf") or \
                (kind == "f64" and ".NaN" in mnemonic):
            raise self.fail(f"{op.name} on {op.operands[0].type} has no PTX form here", op,
                            hint="compute in f32 (arith.extf / arith.truncf around it)")
        if ".NaN" in mnemonic:
            self.need(80, "7.0", f"{op.name} ({mnemonic})", op)
        minmax = mnemonic.startswith(("max", "min"))
        if kind in ("f16", "f16x2"):
            self.need(80 if minmax else 53, "7.0" if minmax else "4.2", f"{op.name} on {kind}", op)
        elif kind == "bf16x2":  # add/sub/mul.rn.bf16x2 are sm_90's; max/min sm_80's
            self.need(80 if minmax else 90, "7.0" if minmax else "7.8", f"{op.name} on bf16x2",
                      op)
        self.binary(op, f"{mnemonic}.{kind}")

    def emit_arith_negf(self, op: arith.NegfOp) -> None:
        kind = float_name(op.operand.type)
        if kind not in ("f32", "f64", "f16"):
            raise self.fail(f"arith.negf on {op.operand.type} has no PTX form here", op)
        self.line(f"neg.{kind} {self.define(op.result)}, {self.reg(op.operand)};")

    # ---- the rounding divisions ----
    def rounding_division(self, op: Operation, signed: bool, floor: bool) -> None:
        a, b = op.operands
        w = self.int_bits(a, op)
        s = "s" if signed else "u"
        cls = self.cls_of(a)
        q, r, adj = self.temp(cls), self.temp(cls), self.temp(cls)
        inexact = self.temp(regs.PRED)
        self.line(f"div.{s}{w} {q}, {self.reg(a)}, {self.reg(b)};")
        self.line(f"rem.{s}{w} {r}, {self.reg(a)}, {self.reg(b)};")
        self.line(f"setp.ne.s{w} {inexact}, {r}, 0;")
        if signed:
            signs, differ, apply = self.temp(cls), self.temp(regs.PRED), self.temp(regs.PRED)
            self.line(f"xor.b{w} {signs}, {r}, {self.reg(b)};")
            self.line(f"setp.{'lt' if floor else 'ge'}.s{w} {differ}, {signs}, 0;")
            self.line(f"and.pred {apply}, {inexact}, {differ};")
            inexact = apply
        self.line(f"selp.b{w} {adj}, 1, 0, {inexact};")
        self.line(f"{'sub' if floor else 'add'}.s{w} {self.define(op.results[0])}, {q}, {adj};")

    def emit_arith_floordivsi(self, op: Operation) -> None:
        self.rounding_division(op, signed=True, floor=True)

    def emit_arith_ceildivsi(self, op: Operation) -> None:
        self.rounding_division(op, signed=True, floor=False)

    def emit_arith_ceildivui(self, op: Operation) -> None:
        self.rounding_division(op, signed=False, floor=False)

    # ---- comparisons and select ----
    def emit_arith_cmpi(self, op: arith.CmpiOp) -> None:
        index = op.predicate.value.data
        names = arith.CMPI_COMPARISON_OPERATIONS
        predicate = names[index] if 0 <= index < len(names) else index
        cmp = self.choose(CMPI, predicate, "arith.cmpi predicate", op)
        if int_width(op.lhs.type) == 1:
            if predicate not in ("eq", "ne"):
                raise self.fail(f"arith.cmpi {predicate} on i1 has no PTX form; compare "
                                f"with eq/ne", op)
            d = self.define(op.result)
            self.line(f"xor.pred {d}, {self.reg(op.lhs)}, {self.reg(op.rhs)};")
            if predicate == "eq":
                self.line(f"not.pred {d}, {d};")
            return
        w = self.int_bits(op.lhs, op)
        self.binary(op, f"setp.{cmp}{w}")

    def emit_arith_cmpf(self, op: arith.CmpfOp) -> None:
        index = op.predicate.value.data
        names = arith.CMPF_COMPARISON_OPERATIONS
        predicate = names[index] if 0 <= index < len(names) else index
        cmp = self.choose(CMPF, predicate, "arith.cmpf predicate", op)
        kind = float_name(op.lhs.type)
        if kind not in ("f16", "f32", "f64"):
            raise self.fail(f"arith.cmpf on {op.lhs.type} has no PTX form here", op)
        self.binary(op, f"setp.{cmp}.{kind}")

    def emit_arith_select(self, op: arith.SelectOp) -> None:
        c, a, b = self.reg(op.cond), self.reg(op.lhs), self.reg(op.rhs)
        cls = self.cls_of(op.result)
        d = self.define(op.result)
        if cls is regs.PRED:
            notc, t = self.temp(regs.PRED), self.temp(regs.PRED)
            self.line(f"not.pred {notc}, {c};")
            self.line(f"and.pred {t}, {notc}, {b};")
            self.line(f"and.pred {d}, {c}, {a};")
            self.line(f"or.pred {d}, {d}, {t};")
            return
        self.line(f"selp.{cls.ptx_type} {d}, {a}, {b}, {c};")

    # ---- conversions ----
    def emit_arith_index_cast(self, op: Operation) -> None:
        self.int_resize(op, signed=True)

    def emit_arith_index_castui(self, op: Operation) -> None:
        self.int_resize(op, signed=False)

    def emit_arith_extsi(self, op: Operation) -> None:
        self.int_resize(op, signed=True)

    def emit_arith_extui(self, op: Operation) -> None:
        self.int_resize(op, signed=False)

    def emit_arith_trunci(self, op: Operation) -> None:
        self.int_resize(op, signed=False)

    def int_resize(self, op: Operation, signed: bool) -> None:
        src, dst = op.operands[0], op.results[0]
        sw, dw = int_width(src.type), int_width(dst.type)
        if sw is None or dw is None or 8 in (sw, dw):
            raise self.fail(f"{op.name} from {src.type} to {dst.type} has no PTX form here", op)
        a, d = self.reg(src), self.define(dst)
        if sw == 1:
            self.line(f"selp.{'s' if signed else 'u'}{dw} {d}, {-1 if signed else 1}, 0, {a};")
        elif dw == 1:
            low = self.temp(self.cls_of(src))
            self.line(f"and.b{sw} {low}, {a}, 1;")
            self.line(f"setp.ne.b{sw} {d}, {low}, 0;")
        elif sw == dw:
            self.line(f"mov.b{dw} {d}, {a};")
        else:
            s = "s" if signed and dw > sw else "u"
            self.line(f"cvt.{s}{dw}.{s}{sw} {d}, {a};")

    def convert(self, op: Operation, src: SSAValue, dst: SSAValue,
                rounding: str | None) -> None:
        self.convert_register(op, src.type, self.reg(src), dst, rounding)

    def convert_register(self, op: Operation, st: Attribute, a: str, dst: SSAValue,
                         rounding: str | None) -> None:
        """``cvt`` from ``src``'s type to ``dst``'s (arith casts and cuda.cvt): float -> int
        rounds as ``rounding`` (default toward zero, as C), int -> float and float narrowing
        to nearest unless told; bf16 -> f32 is exact (the bf16 bits are the high half)."""
        dt = dst.type
        sf, df = float_name(st), float_name(dt)
        si, di = int_width(st), int_width(dt)
        if (sf is None and si in (None, 1)) or (df is None and di in (None, 1)):
            raise self.fail(f"{op.name} from {st} to {dt} has no PTX form here", op)
        if sf == "bf16" and df == "f32":
            wide = self.temp(regs.B32)
            self.line(f"cvt.u32.u16 {wide}, {a};")
            self.line(f"shl.b32 {wide}, {wide}, 16;")
            self.line(f"mov.b32 {self.define(dst)}, {wide};")
            return
        if "bf16" in (sf, df):
            self.need(80, "7.0", "bf16 conversions", op)
            if sf is not None and df is not None and {sf, df} != {"bf16", "f32"}:
                raise self.fail(f"{op.name} from {st} to {dt}: PTX converts bf16 to and from "
                                f"f32 only here; go through f32", op)
            if df == "bf16" and rounding in ("rd", "ru"):
                self.need(90, "7.8", f"bf16 conversions rounding {rounding}", op)
        sname = sf or (("u" if _unsigned(st) else "s") + str(si))
        dname = df or (("u" if _unsigned(dt) else "s") + str(di))
        if sf and df:
            narrowing = _float_bits(df) < _float_bits(sf)
            mode = (rounding or "rn") if narrowing else None
            table = {"rn": "rn", "rz": "rz", "rd": "rm", "ru": "rp"}
        elif sf:
            mode, table = rounding or "rz", {"rn": "rni", "rz": "rzi", "rd": "rmi", "ru": "rpi"}
        elif df:
            mode, table = rounding or "rn", {"rn": "rn", "rz": "rz", "rd": "rm", "ru": "rp"}
        else:
            mode, table = None, {}
            if si == di:
                self.line(f"mov.b{di} {self.define(dst)}, {a};")
                return
        spelled = "" if mode is None else "." + self.choose(table, mode, "rounding", op)
        self.line(f"cvt{spelled}.{dname}.{sname} {self.define(dst)}, {a};")

    def emit_arith_sitofp(self, op: Operation) -> None:
        self.convert(op, op.operands[0], op.results[0], None)

    def emit_arith_uitofp(self, op: Operation) -> None:
        src = op.operands[0]
        w = self.int_bits(src, op)
        df = float_name(op.results[0].type)
        if df not in ("f16", "f32", "f64"):
            raise self.fail(f"arith.uitofp to {op.results[0].type} has no PTX form here", op)
        self.line(f"cvt.rn.{df}.u{w} {self.define(op.results[0])}, {self.reg(src)};")

    def emit_arith_fptosi(self, op: Operation) -> None:
        self.convert(op, op.operands[0], op.results[0], None)

    def emit_arith_fptoui(self, op: Operation) -> None:
        sf = float_name(op.operands[0].type)
        w = self.int_bits(op.results[0], op)
        if sf not in ("f16", "f32", "f64"):
            raise self.fail(f"arith.fptoui from {op.operands[0].type} has no PTX form here", op)
        self.line(f"cvt.rzi.u{w}.{sf} {self.define(op.results[0])}, {self.reg(op.operands[0])};")

    def emit_arith_extf(self, op: Operation) -> None:
        self.convert(op, op.operands[0], op.results[0], None)

    def emit_arith_truncf(self, op: Operation) -> None:
        self.convert(op, op.operands[0], op.results[0], None)

    def emit_arith_bitcast(self, op: Operation) -> None:
        src, dst = op.operands[0], op.results[0]
        cls = self.cls_of(dst)
        if self.cls_of(src).bits != cls.bits or cls is regs.PRED:
            raise self.fail(f"arith.bitcast from {src.type} to {dst.type} has no PTX form", op)
        self.line(f"mov.b{cls.bits} {self.define(dst)}, {self.reg(src)};")


def _unsigned(t: Attribute) -> bool:
    return isinstance(t, IntegerType) and t.signedness.data.name == "UNSIGNED"


def _float_bits(name: str) -> int:
    return {"f16": 16, "bf16": 16, "f32": 32, "f64": 64}[name]


def _install() -> None:
    for name in INT_BINARY:
        setattr(ArithOps, "emit_" + name.replace(".", "_"), ArithOps.int_binary)
    for name in SHIFTS:
        setattr(ArithOps, "emit_" + name.replace(".", "_"), ArithOps.shift)
    for name in FLOAT_BINARY:
        setattr(ArithOps, "emit_" + name.replace(".", "_"), ArithOps.float_binary)


_install()
