"""Shape, broadcast, axis and dtype rules of the tile primitives, stated once.

The op verifiers call these; the interpreter and the dispatch predicates call the same functions
instead of re-deriving a rule. Each raises `RuleError` with a message that says what to change.
"""

from __future__ import annotations

from collections.abc import Sequence

UNARY_FUNCS = ("exp", "exp2", "log2", "sqrt", "reciprocal", "silu")
"""Unary functions a fused op (unary_reduce) may name."""
BINARY_FUNCS = ("add", "sub", "mul", "fdiv", "maximum", "minimum")
"""Binary functions a fused op (binary_reduce, binary_chain) may name."""
REDUCE_FUNCS = ("sum", "max", "min")
"""Reductions a fused op may name."""
COMMUTATIVE_FUNCS = ("add", "mul", "maximum", "minimum")


class RuleError(ValueError):
    """An operand combination a tile primitive does not accept."""


Shape = tuple[int, ...]


def squeeze(shape: Sequence[int]) -> Shape:
    """The shape without its unit dimensions."""
    return tuple(d for d in shape if d != 1)


def fmt(shape: Sequence[int] | None) -> str:
    return "scalar" if shape is None else "[" + ", ".join(map(str, shape)) + "]"


def check_same_elements(what: str, a: Sequence[int], b: Sequence[int]) -> None:
    """Equal shapes once unit dimensions are dropped (TIRx `_check_copy_regions_match`)."""
    if squeeze(a) != squeeze(b):
        raise RuleError(f"{what}: shapes {fmt(a)} and {fmt(b)} differ (after dropping unit "
                        f"dims); slice the operands to the same shape")


def check_copy(what: str, dst: Sequence[int], src: Sequence[int]) -> None:
    """A copy's source holds the destination's elements (equal shapes once unit dims drop) or
    broadcasts to it NumPy-style (a ``[1, N]`` row copied into every row of ``[P, N]``), as the
    elementwise ops broadcast their operands."""
    if squeeze(src) == squeeze(dst):
        return
    if len(src) <= len(dst) and all(s in (1, d) for s, d in zip(reversed(src), reversed(dst))):
        return
    raise RuleError(f"{what}: the source {fmt(src)} neither has the destination's shape "
                    f"{fmt(dst)} (after dropping unit dims) nor broadcasts to it (right-aligned, "
                    f"each dim equal or 1); slice the operands to matching shapes")


def check_broadcast(what: str, src: Sequence[int] | None, dst: Sequence[int]) -> None:
    """``src`` (a scalar when None) must broadcast to ``dst`` NumPy-style: right-aligned, each
    dim equal or 1, and no more dims than ``dst``."""
    if src is None:
        return
    if len(src) > len(dst) or any(s not in (1, d) for s, d in zip(reversed(src), reversed(dst))):
        raise RuleError(f"{what} of shape {fmt(src)} does not broadcast to the destination "
                        f"{fmt(dst)}; each dim must equal the destination's or be 1 "
                        f"(right-aligned)")


def normalize_axes(axes: Sequence[int], rank: int) -> tuple[int, ...]:
    """Non-negative, sorted, unique reduction axes; each must lie in ``[-rank, rank)``."""
    out = []
    for a in axes:
        if not -rank <= a < rank:
            raise RuleError(f"reduction axis {a} is out of range for a rank-{rank} source; "
                            f"use an axis in [{-rank}, {rank})")
        out.append(a % rank)
    if len(set(out)) != len(out):
        raise RuleError(f"reduction axes {list(axes)} repeat an axis")
    if not out:
        raise RuleError("a reduction needs at least one axis")
    return tuple(sorted(out))


def reduced_shape(src: Sequence[int], axes: Sequence[int], keepdims: bool = True) -> Shape:
    ax = set(normalize_axes(axes, len(src)))
    if keepdims:
        return tuple(1 if i in ax else d for i, d in enumerate(src))
    return tuple(d for i, d in enumerate(src) if i not in ax)


def check_reduction(src: Sequence[int], axes: Sequence[int], dst: Sequence[int]) -> None:
    """The destination holds the kept dims: equal to the reduced shape once unit dims drop
    (so both ``[128]`` and ``[128, 1]`` receive a row reduction of ``[128, 512]``)."""
    kept = reduced_shape(src, axes, keepdims=False)
    if squeeze(kept) != squeeze(dst):
        raise RuleError(f"reducing {fmt(src)} over axes {list(axes)} gives {fmt(kept)}, but the "
                        f"destination is {fmt(dst)}; give the destination the kept dims")


def gemm_dims(a: Sequence[int], b: Sequence[int], transpose_a: bool, transpose_b: bool,
              b_is_n_major: bool = False) -> tuple[int, int, int]:
    """(M, N, K) of ``op(A) @ op(B)``.

    For `gemm`, A is [M, K] ([K, M] when transposed) and B is [K, N] ([N, K] when transposed).
    For `gemm_async` (``b_is_n_major``), TIRx's convention: B is K-major [N, K] unless transposed
    to [K, N].
    """
    if len(a) != 2 or len(b) != 2:
        raise RuleError(f"gemm operands must be 2-D, got A {fmt(a)} and B {fmt(b)}")
    m, ka = (a[1], a[0]) if transpose_a else (a[0], a[1])
    b_kn = not transpose_b if not b_is_n_major else transpose_b
    kb, n = (b[0], b[1]) if b_kn else (b[1], b[0])
    if ka != kb:
        raise RuleError(f"gemm contraction mismatch: op(A) is [{m}, {ka}] but op(B) is "
                        f"[{kb}, {n}]; make the K dims agree (or set a transpose flag)")
    return m, n, ka


def check_func(what: str, name: str, allowed: Sequence[str]) -> None:
    if name not in allowed:
        raise RuleError(f"{what} '{name}' is not one of {', '.join(allowed)}")
