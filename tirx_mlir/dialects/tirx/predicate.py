"""The affine predicate of ``tirx.select``: an integer set over the destination's indices (dims)
and index values bound by the op (symbols: loop variables, scope ids).

``where (d0, d1) : (d1 - d0 - 1 >= 0)`` holds where every constraint holds;
``where (d0, d1)[s0] : (999 - 128 * s0 - d0 >= 0)`` reads a symbol too. This module is the one
place that reads such a set: it prints it readably, evaluates it on index grids (the
interpreter) and exposes its linear form (backends map it to hardware predicates, e.g. NKI's
affine_select ``channel_multiplier`` and pattern steps).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from xdsl.ir.affine import (AffineBinaryOpExpr, AffineBinaryOpKind, AffineConstantExpr,
                            AffineDimExpr, AffineExpr, AffineSymExpr)
from xdsl.ir.affine.affine_set import AffineConstraintKind, AffineSet

if TYPE_CHECKING:
    import numpy as np


@dataclass(frozen=True)
class LinearConstraint:
    """``sum(coeffs[i] * d_i) + sum(sym_coeffs[j] * s_j) + const  (>= | ==)  0``."""

    coeffs: tuple[int, ...]
    const: int
    is_equality: bool
    sym_coeffs: tuple[int, ...] = ()

    def __str__(self) -> str:
        atoms = {**{f"d{i}": a for i, a in enumerate(self.coeffs)},
                 **{f"s{j}": a for j, a in enumerate(self.sym_coeffs)}}
        return _sum_text(atoms, self.const) + (" == 0" if self.is_equality else " >= 0")


def _linear(expr: AffineExpr, num_dims: int, num_syms: int = 0) -> tuple[list[int], int] | None:
    """Coefficients per dim then per symbol, and the constant, of an affine expression; None if
    not linear (mod, floordiv, ceildiv, or a product of two variables)."""
    width = num_dims + num_syms
    if isinstance(expr, AffineConstantExpr):
        return [0] * width, expr.value
    if isinstance(expr, (AffineDimExpr, AffineSymExpr)):
        coeffs = [0] * width
        coeffs[expr.position + (num_dims if isinstance(expr, AffineSymExpr) else 0)] = 1
        return coeffs, 0
    if not isinstance(expr, AffineBinaryOpExpr):
        return None
    lhs, rhs = _linear(expr.lhs, num_dims, num_syms), _linear(expr.rhs, num_dims, num_syms)
    if lhs is None or rhs is None:
        return None
    if expr.kind == AffineBinaryOpKind.Add:
        return [a + b for a, b in zip(lhs[0], rhs[0])], lhs[1] + rhs[1]
    if expr.kind == AffineBinaryOpKind.Mul:
        if not any(lhs[0]):
            return [lhs[1] * b for b in rhs[0]], lhs[1] * rhs[1]
        if not any(rhs[0]):
            return [rhs[1] * a for a in lhs[0]], lhs[1] * rhs[1]
    return None


def _linear_constraint(c, num_dims: int, num_syms: int) -> LinearConstraint | None:
    form = _linear(c.lhs - c.rhs, num_dims, num_syms)
    if form is None:
        return None
    coeffs, const = form
    if c.kind == AffineConstraintKind.le:  # lhs <= rhs  <=>  rhs - lhs >= 0
        coeffs, const = [-a for a in coeffs], -const
    return LinearConstraint(tuple(coeffs[:num_dims]), const, c.kind == AffineConstraintKind.eq,
                            tuple(coeffs[num_dims:]))


def linear_constraints(aset: AffineSet) -> list[LinearConstraint] | None:
    """The set as linear constraints, or None when some constraint is not linear."""
    out = [_linear_constraint(c, aset.num_dims, aset.num_symbols) for c in aset.constraints]
    return None if any(c is None for c in out) else out  # type: ignore[return-value]


def _sum_text(atoms: dict[str, int], const: int) -> str:
    terms: list[str] = []
    for atom, a in atoms.items():
        if a == 0:
            continue
        mag = "" if abs(a) == 1 else f"{abs(a)} * "
        sign = "-" if a < 0 else "+"
        terms.append(f"{sign} {mag}{atom}")
    if const or not terms:
        terms.append(f"{'-' if const < 0 else '+'} {abs(const)}")
    text = " ".join(terms)
    return text[2:] if text.startswith("+ ") else "-" + text[2:]


_OP_WORD = {AffineBinaryOpKind.Mod: "mod", AffineBinaryOpKind.FloorDiv: "floordiv",
            AffineBinaryOpKind.CeilDiv: "ceildiv"}


def _atoms(expr: AffineExpr) -> tuple[dict[str, int], int]:
    """An expression as a sum of coefficient * atom + constant, where atoms are dims, symbols
    and parenthesised non-linear sub-expressions."""
    if isinstance(expr, AffineConstantExpr):
        return {}, expr.value
    if isinstance(expr, (AffineDimExpr, AffineSymExpr)):
        return {str(expr): 1}, 0
    assert isinstance(expr, AffineBinaryOpExpr)
    if expr.kind == AffineBinaryOpKind.Add:
        (a, ca), (b, cb) = _atoms(expr.lhs), _atoms(expr.rhs)
        return {k: a.get(k, 0) + b.get(k, 0) for k in {**a, **b}}, ca + cb
    if expr.kind == AffineBinaryOpKind.Mul:
        (a, ca), (b, cb) = _atoms(expr.lhs), _atoms(expr.rhs)
        if not a:
            return {k: ca * v for k, v in b.items()}, ca * cb
        if not b:
            return {k: cb * v for k, v in a.items()}, ca * cb
    word = _OP_WORD.get(expr.kind, "*")
    return {f"({_operand_text(expr.lhs)} {word} {_operand_text(expr.rhs)})": 1}, 0


def _operand_text(expr: AffineExpr) -> str:
    atoms, const = _atoms(expr)
    simple = (not const and len(atoms) == 1 and next(iter(atoms.values())) == 1) or not atoms
    text = _sum_text(atoms, const)
    return text if simple else f"({text})"


def _expr_text(expr: AffineExpr) -> str:
    atoms, const = _atoms(expr)
    return _sum_text(atoms, const)


def format_affine_set(aset: AffineSet) -> str:
    """``(d0, d1) : (d1 - d0 - 1 >= 0)``: readable and parseable by xDSL and MLIR."""
    dims = ", ".join(f"d{i}" for i in range(aset.num_dims))
    syms = "" if not aset.num_symbols else \
        "[" + ", ".join(f"s{i}" for i in range(aset.num_symbols)) + "]"
    parts = [f"{_expr_text(c.lhs - c.rhs)} {c.kind.value} 0" for c in aset.constraints]
    return f"({dims}){syms} : ({', '.join(parts)})"


def evaluate(aset: AffineSet, shape: tuple[int, ...] | list[int],
             symbols: tuple[int, ...] | list[int] = ()) -> np.ndarray:
    """Boolean mask of ``shape``: where every constraint of the set holds, with the symbols
    bound to ``symbols``.

    Evaluated once over broadcast index grids (``np.ogrid``), never per element.
    """
    import numpy as np

    if len(symbols) != aset.num_symbols:
        raise ValueError(f"the set has {aset.num_symbols} symbols, {len(symbols)} values given")
    grids = list(np.ogrid[tuple(slice(0, n) for n in shape)]) if len(shape) else []
    syms = [int(s) for s in symbols]
    mask = np.ones(tuple(shape), dtype=bool)
    for c in aset.constraints:
        value = c.lhs.eval(grids, syms) - c.rhs.eval(grids, syms)
        if c.kind == AffineConstraintKind.ge:
            mask &= value >= 0
        elif c.kind == AffineConstraintKind.le:
            mask &= value <= 0
        else:
            mask &= value == 0
    return mask
