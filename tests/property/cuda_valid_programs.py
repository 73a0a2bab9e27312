"""A generator of random *valid* tile-level CUDA programs, and the check of each one.

Unlike the mutation campaign (`cuda_fuzz_campaign.py`), whose mutants are mostly refused, every
program drawn here is one docs/cuda_tile.md says the cuda pipeline takes, so the check can find
silent miscompiles. A program is drawn deterministically from an integer seed (`draw(seed)`),
from one of three families:

* ``chain``: a tile of ``X`` loaded into a buffer (shared, swizzled shared or registers; copy with
  or without an element-type change, or cast), 1-4 tile ops on it (unary exp/exp2/silu/sqrt/
  log2/reciprocal with scale and bias, binary add/sub/mul/fdiv/maximum/minimum with a scalar, a
  row, a column or a full operand in shared/registers/global, fma, a reduction over an axis into
  a buffer with or without ``accum`` broadcast back, a cast round trip, fill/zero, select), then
  stored to ``Y``; exec scope ``cta``, ``warpgroup``, ``warp`` or ``thread`` (one instance of a
  narrower scope per CTA: several would all write the one global tile, which the tile level
  refuses), f32/f16/bf16, shapes that are multiples of the hardware's widths and ragged ones,
  one or two CTAs (each its rows);
* ``mma``: ``tirx.gemm`` at warp or cta scope (mma.sync), f16/bf16/tf32, the four transposes,
  shared operands row-major or swizzled, register operands in fragment layouts, beta 0/1 from a
  zeroed, filled or loaded accumulator, an optional K loop, an elementwise epilogue;
* ``wgmma`` (sm_90a): ``tirx.gemm_async`` at warpgroup or cta scope, f16/bf16, transposes, A in
  shared memory or in registers (the rs form), ``accum``, an epilogue.

`check(program)` runs numpy's model, the tile interpreter, the cuda pipeline and the SIMT
interpreter on its result, and optionally the printers through nvcc and ptxas, and returns an
`Outcome`: ``agree``, ``refused`` (a located TirxError: the reason is its first line),
``disagree`` (which pair), ``internal`` (a traceback), ``nvcc``/``ptxas`` (printed code the tool
rejects). The campaign (`cuda_valid_campaign.py`) runs many seeds; the pytest runs a few.
"""

from __future__ import annotations

import random
import sys
import traceback
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

TESTS = Path(__file__).resolve().parents[1]
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

BYTES = {"f32": 4, "f16": 2, "bf16": 2}
FAMILIES = ("chain", "chain", "chain", "mma", "wgmma")


def np_dtype(dt: str):
    import ml_dtypes

    return {"f32": np.float32, "f16": np.float16, "bf16": ml_dtypes.bfloat16}[dt]


def rounded(value: np.ndarray, dt: str) -> np.ndarray:
    """``value`` stored in a ``dt`` buffer and read back as f32 (the tile semantics' rounding)."""
    return np.asarray(value, np.float32).astype(np_dtype(dt)).astype(np.float32)


def btype(shape, dt: str, scope: str, layout: str = "") -> str:
    dims = "x".join(str(d) for d in shape)
    return f"!tirx.buffer<{dims}x{dt}, {scope}{', ' + layout if layout else ''}>"


@dataclass
class Buf:
    name: str
    shape: tuple[int, ...]
    dt: str
    scope: str
    layout: str = ""

    @property
    def type(self) -> str:
        return btype(self.shape, self.dt, self.scope, self.layout)


@dataclass
class Program:
    """One kernel: its text, inputs, numpy's outputs, tolerances and what was drawn."""

    seed: int
    family: str
    arch: str
    text: str = ""
    inputs: list[np.ndarray] = field(default_factory=list)
    expected: list[np.ndarray] = field(default_factory=list)
    rtol: float = 1e-5
    atol: float = 1e-5
    simt_rtol: float = 1e-5
    """SIMT vs tile interpreter, relative to the output's largest magnitude too: the lowered
    code may sum in another order (reductions, mma), and tf32 rounds the gemm's inputs."""
    drawn: list[str] = field(default_factory=list)
    num_stages: int = 3
    """The cuda pipeline's ``num_stages`` (cuda-pipeline-k-loop's ring depth; 3 is its
    default)."""


class Builder:
    """Lines of a kernel body with fresh names and the buffer types they need."""

    def __init__(self, rng: random.Random) -> None:
        self.rng, self.lines, self.n = rng, [], 0

    def fresh(self, stem: str) -> str:
        self.n += 1
        return f"%{stem}{self.n}"

    def const(self, value, ty: str = "f32") -> str:
        name = self.fresh("c")
        lit = repr(float(value)) if ty.startswith("f") else str(int(value))
        self.lines.append(f"  {name} = arith.constant {lit} : {ty}")
        return name

    def alloc(self, shape, dt: str, scope: str, layout: str = "") -> Buf:
        buf = Buf(self.fresh("t"), tuple(shape), dt, scope, layout)
        self.lines.append(f"  {buf.name} = tirx.alloc : {buf.type}")
        return buf

    def op(self, name: str, scope: str, operands: list, suffix: str = "",
           extra_types: tuple[str, ...] = ()) -> None:
        """``tirx.NAME SCOPE operands SUFFIX : types`` (a keyword operand in ``suffix`` gives
        its type in ``extra_types``)."""
        names = [o.name if isinstance(o, Buf) else o[0] for o in operands]
        types = [o.type if isinstance(o, Buf) else o[1] for o in operands] + list(extra_types)
        self.lines.append(f"  tirx.{name} {scope} {', '.join(names)}{suffix} : {', '.join(types)}")

    def slice(self, src: Buf, offsets: list[str], shape) -> Buf:
        view = Buf(self.fresh("v"), tuple(shape), src.dt, src.scope)
        self.lines.append(f"  {view.name} = tirx.slice {src.name}[{', '.join(offsets)}] "
                          f"[{', '.join(map(str, shape))}] : {src.type} -> {view.type}")
        return view


def _inputs_of(rng: np.random.Generator, shape, dt: str, lo=-1.0, hi=1.0) -> np.ndarray:
    return rng.uniform(lo, hi, shape).astype(np.float32).astype(np_dtype(dt))


def _swizzle_layout(shape, dt: str, rng: random.Random) -> str:
    """A 32/64/128-byte swizzled layout of a shared ``[rows, cols]`` tile when one fits."""
    from tirx_mlir.backends.cuda.layout.swizzle import Swizzle, swizzled_layout

    modes = [m for m in (Swizzle.B32, Swizzle.B64, Swizzle.B128)
             if shape[0] % 8 == 0 and (shape[1] * BYTES[dt]) % m.row_bytes == 0]
    if not modes:
        return ""
    return str(swizzled_layout(shape, BYTES[dt], rng.choice(modes)))


# --- family "chain": loads, elementwise, reductions, casts, stores -------------------------------

SCOPE_THREADS = {"cta": (32, 64, 128, 256), "warpgroup": (128,), "warp": (32,),
                 "thread": (1,)}
"""One instance of a narrower scope per CTA: the tile level refuses several instances
writing the same global or shared tile (sub-CTA ids have no value there to slice by)."""
INSTANCE_THREADS = {"warpgroup": (256, 384), "warp": (64, 128, 256), "thread": (32, 64, 128)}
INSTANCES_SHARE = 0.35
"""A share of the narrower-scope chains runs several instances per CTA (threads from
``INSTANCE_THREADS``): each computes its own replica of the tile in register tiles (reading
global or CTA-staged shared tiles), and CTA-scope copies read the replicas back to ``Y``
(directly or through a shared tile)."""
ROWS = (1, 2, 3, 4, 8, 16, 32, 64, 128)
COLS = (1, 2, 4, 5, 8, 12, 16, 24, 32, 33, 64, 100, 128, 256)
MAX_ELEMS = {"cta": 8192, "warpgroup": 4096, "warp": 2048, "thread": 64}


def _silu(x):
    with np.errstate(over="ignore"):  # exp(-x) of a large negative x: inf, and x / inf = -0
        return x / (np.float32(1) + np.exp(-x))


UNARY = {"exp": np.exp, "exp2": np.exp2, "silu": _silu, "sqrt": np.sqrt, "log2": np.log2,
         "reciprocal": lambda x: np.float32(1) / x}
BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "fdiv": np.divide,
          "maximum": np.maximum, "minimum": np.minimum}
REDUCE = {"sum": np.sum, "max": np.max, "min": np.min}
NARROW_ULP = {"f16": 2e-3, "bf16": 1.6e-2}
"""A relative ulp (and a bit) of the narrow types: the SIMT tolerance of a chain that casts a
reduction's result through one."""


class Chain:
    """State of a ``chain`` program while its ops are drawn."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.nprng = np.random.default_rng(seed)
        self.b = Builder(self.rng)
        self.p = Program(seed, "chain", self.rng.choice(("sm_80", "sm_90a")))
        self.params: list[tuple[str, str]] = []
        self.reduced = False  # a reduction (or fused reduce) drawn so far

    def draw(self) -> Program:
        r, p, b = self.rng, self.p, self.b
        self.scope = r.choice(("cta", "cta", "warpgroup", "warp", "thread"))
        threads = self.threads = r.choice(SCOPE_THREADS[self.scope])
        side = random.Random(f"instances-{self.p.seed}")  # keeps ``r``'s draws as they were
        if self.scope != "cta" and side.random() < INSTANCES_SHARE:
            threads = self.threads = side.choice(INSTANCE_THREADS[self.scope])
        self.n = {"cta": 1, "warpgroup": threads // 128, "warp": threads // 32,
                  "thread": threads}[self.scope]
        grid = r.choice((1, 1, 2))
        while True:
            rows, cols = r.choice(ROWS), r.choice(COLS)
            if rows * cols <= MAX_ELEMS[self.scope]:
                break
        self.shape = (rows, cols)
        io = r.choice(("f32", "f32", "f16", "bf16"))
        self.cdt = r.choice(("f32", io)) if io != "f32" else "f32"
        self.positive = r.random() < 0.4
        lo, hi = (0.5, 2.0) if self.positive else (-1.0, 1.0)
        total = (grid * rows, cols)
        x = _inputs_of(self.nprng, total, io, lo, hi)
        p.inputs.append(x)
        self.X = Buf("%X", total, io, "global")
        self.Y = Buf("%Y", total, io, "global")
        p.drawn += [f"scope={self.scope}", f"threads={threads}", f"grid={grid}",
                    f"tile={rows}x{cols}", f"io={io}", f"compute={self.cdt}"]
        base = self._row_base(grid)
        xg = b.slice(self.X, [base, "0"], self.shape)
        yg = b.slice(self.Y, [base, "0"], self.shape)
        self.xg, self.inst = xg, self._instance_values(x)
        cur = self._buffer(self.cdt, self.shape)
        how = r.choice(("copy", "copy", "cast")) if io != self.cdt else "copy"
        val = rounded(self.inst, self.cdt)
        if how == "copy" and cur.scope == "shared" and io == self.cdt and r.random() < 0.5:
            how, val = self._copy_async(cur, xg, val)
        elif self.n > 1 and side.random() < 0.5:  # staged by the CTA, each instance its copy
            staged = b.alloc(self.shape, io, "shared")
            b.op("copy", "cta", [staged, xg])
            b.op(how, self.scope, [cur, staged])
            how += "(cta-staged)"
        else:
            b.op(how, self.scope, [cur, xg])
        p.drawn.append(f"load:{how}->{cur.scope}{'(swz)' if 'swizzle' in cur.layout else ''}")
        for _ in range(r.randint(1, 4)):
            cur, val = self._step(cur, val)
        if self.n > 1:  # the instances' replicas (register tiles) read back by the CTA
            if side.random() < 0.5:
                out = b.alloc(self.shape, io, "shared")
                b.op("copy", "cta", [out, cur])
                cur = out
            p.drawn.append(f"instances={self.n}:store(cta{'+shared' if cur.scope == 'shared' else ''})")
            b.op("copy", "cta", [yg, cur])
        else:
            b.op("copy", self.scope, [yg, cur])
        p.expected.append(rounded(val, io).reshape(total))
        tol = {"f32": 2e-5, "f16": 2e-3, "bf16": 1.6e-2}
        p.rtol = max(tol[io], tol[self.cdt])
        p.atol = p.rtol * max(1.0, float(np.abs(val).max()))
        params = f"%X: {self.X.type}"
        head = (f"tirx.kernel @k({params}{''.join(f', {n}: {t}' for n, t in self.params)}) -> "
                f"(%Y: {self.Y.type}) grid [{grid}] threads [{threads}] "
                f'target "cuda -arch={p.arch}" {{')
        p.text = "\n".join([head, *b.lines, "  tirx.return", "}", ""])
        return p

    def _copy_async(self, cur: Buf, xg: Buf, val: np.ndarray) -> tuple[str, np.ndarray]:
        """``copy_async`` global -> shared: cp.async (ldgsts; dispatch completes it before its
        reader), with a ``where`` keeping the first rows or (4-byte elements) columns, or on
        sm_90a a TMA load."""
        r, b = self.rng, self.b
        rows, cols = self.shape
        if self.p.arch == "sm_90a" and self.scope == "cta" and r.random() < 0.3:
            b.op("copy_async", self.scope, [cur, xg], ' dispatch "tma_auto"')
            return "copy_async(tma)", val
        pred = r.choice(("", "rows", "cols" if BYTES[cur.dt] == 4 else "rows"))
        if not pred:
            b.op("copy_async", self.scope, [cur, xg])
            return "copy_async", val
        keep = max(0, (rows if pred == "rows" else cols) - r.randint(1, 3))
        d = "d0" if pred == "rows" else "d1"
        b.op("copy_async", self.scope, [cur, xg], f" where (d0, d1) : ({keep - 1} - {d} >= 0)")
        i, j = np.indices(self.shape)
        mask = (i if pred == "rows" else j) <= keep - 1
        return f"copy_async(where {d} < {keep})", np.where(mask[None], val, np.float32(0))

    def _row_base(self, grid: int) -> str:
        """The CTA's first row, ``cta_id * rows`` (every instance of a narrower scope works on
        the CTA's tile: sub-CTA ids have no value at the tile level)."""
        b = self.b
        if grid == 1:
            return "0"
        cta = b.fresh("cta")
        b.lines.append(f"  {cta} = tirx.cta_id x : index")
        rows = b.const(self.shape[0], "index")
        out = b.fresh("row")
        b.lines.append(f"  {out} = arith.muli {cta}, {rows} : index")
        return out

    def _instance_values(self, x: np.ndarray) -> np.ndarray:
        """The tile of every CTA, stacked: ``[ctas, rows, cols]`` (numpy's model runs them all
        at once)."""
        return x.astype(np.float32).reshape(-1, *self.shape)

    def _buffer(self, dt: str, shape, scopes=("local", "local", "shared")) -> Buf:
        r = self.rng
        scope = r.choice(scopes)
        layout = ""
        if scope == "shared" and self.scope != "cta" and self.n > 1:
            scope = "local"  # a shared tile per instance would need its own slice
        if scope == "shared" and len(shape) == 2 and r.random() < 0.4:
            layout = _swizzle_layout(shape, dt, r)
        return self.b.alloc(shape, dt, scope, layout)

    def _operand(self, shape, cur: Buf) -> tuple[object, np.ndarray, str]:
        """A second operand of ``shape`` (broadcastable): a new global input staged in a buffer
        or read in place. A register operand only where it has ``cur``'s shape and ``cur`` is
        in registers too (the same default spread): the elementwise variants refuse a register
        operand another thread holds, saying so."""
        full = (self.p.inputs[0].shape[0] if shape[0] == self.shape[0] else shape[0], shape[1])
        if shape[0] == self.shape[0]:
            full = (self.p.inputs[0].shape[0], shape[1])
        lo, hi = (0.5, 2.0) if self.positive else (-1.0, 1.0)
        dt = self.rng.choice(("f32", self.X.dt))
        w = _inputs_of(self.nprng, full, dt, lo, hi)
        name = f"%W{len(self.params)}"
        gbuf = Buf(name, full, dt, "global")
        self.params.append((name, gbuf.type))
        self.p.inputs.append(w)
        if shape[0] == self.shape[0]:  # per-instance rows: slice like X
            view = self.b.slice(gbuf, [self.xg_offset(), "0"], shape)
            wv = w.astype(np.float32).reshape(-1, *shape)
        else:
            view = gbuf
            wv = w.astype(np.float32)[None]
        where = self.rng.choice(("buffer", "buffer", "global"))
        if where == "global":
            return view, wv, f"global{list(shape)}"
        local = shape == self.shape and cur.scope == "local"
        if self.n > 1 and not local:  # instances share a tile the CTA stages
            buf = self.b.alloc(shape, self.cdt, "shared")
            self.b.op("copy", "cta", [buf, view])
            return buf, rounded(wv, self.cdt), f"cta-staged{list(shape)}"
        buf = self._buffer(self.cdt, shape, ("local", "shared") if local else ("shared",))
        self.b.op("copy", self.scope, [buf, view])
        return buf, rounded(wv, self.cdt), f"{buf.scope}{list(shape)}"

    def xg_offset(self) -> str:
        line = next(ln for ln in self.b.lines if ln.startswith(f"  {self.xg.name} ="))
        return line.split("[", 1)[1].split(",", 1)[0]

    def _store(self, value: np.ndarray, dt: str) -> np.ndarray:
        return rounded(value, dt)

    def _step(self, cur: Buf, val: np.ndarray) -> tuple[Buf, np.ndarray]:
        r, b, p = self.rng, self.b, self.p
        big = float(np.abs(val).max()) if val.size else 0.0
        kinds = ["binary", "binary", "fma", "reduce", "fill", "select", "cast", "unary",
                 "fused", "permute", "move"]
        kind = r.choice(kinds)
        if kind == "move":  # copy to another scope (shared <-> registers), maybe another type
            scopes = ("local", "shared") if self.scope == "cta" or self.n == 1 else ("local",)
            dt = r.choice((cur.dt, self.cdt))
            moved = self._buffer(dt, self.shape, scopes)
            b.op("copy", self.scope, [moved, cur])
            p.drawn.append(f"move:{cur.scope}->{moved.scope}")
            if dt != self.cdt:
                back = self._buffer(self.cdt, self.shape, (moved.scope,))
                b.op("copy", self.scope, [back, moved])
                return back, self._store(val, dt)
            return moved, self._store(val, dt)
        if kind == "fused":
            return self._fused(cur, val, big)
        if kind == "permute":
            per = {"cta": self.threads, "warpgroup": 128, "warp": 32, "thread": 1}[self.scope]
            if cur.scope != "shared" or self.scope == "thread" or \
                    (self.shape[0] * self.shape[1]) % per:
                kind = "unary"
            else:
                return self._permute(cur, val)
        dst = cur if r.random() < 0.6 else self._buffer(self.cdt, self.shape, (cur.scope,))
        if kind == "unary":
            names = ["silu", "exp2", "exp"] if big < 4 else ["silu"]
            if np.all(val > 0.05) and big < 1e3:
                names += ["sqrt", "log2", "reciprocal"]
            fn = r.choice(names)
            scale = r.choice((None, 0.5)) if fn in ("exp", "exp2", "sqrt", "log2") else None
            arg = val
            if scale is not None:
                b.op(fn, self.scope, [dst, cur], f" scale {self._scalar(scale)}", ("f32",))
                arg = val * np.float32(scale)
            else:
                b.op(fn, self.scope, [dst, cur])
            p.drawn.append(f"{fn}{'*' if scale else ''}:{cur.scope}->{dst.scope}")
            return dst, self._store(UNARY[fn](arg), dst.dt)
        if kind in ("binary", "fma"):
            form = r.choice(("scalar", "row", "col", "full"))
            if form == "scalar":
                c = r.choice((0.5, -2.0, 3.0, 1.25))
                other, oval, what = (self._scalar(c), "f32"), np.float32(c), "scalar"
            else:
                shape = {"row": (1, self.shape[1]), "col": (self.shape[0], 1),
                         "full": self.shape}[form]
                other, oval, what = self._operand(shape, cur)
            if kind == "fma":
                bias = r.choice((0.25, -1.0))
                b.op("fma", self.scope, [dst, cur, other, (self._scalar(bias), "f32")])
                p.drawn.append(f"fma[{what}]:{cur.scope}->{dst.scope}")
                return dst, self._store(val * oval + np.float32(bias), dst.dt)
            names = list(BINARY)
            if not (np.all(np.abs(oval) > 0.05)):
                names.remove("fdiv")
            fn = r.choice(names)
            swap = r.random() < 0.3 and fn != "fdiv"
            lhs, rhs = (other, cur) if swap else (cur, other)
            b.op(fn, self.scope, [dst, lhs, rhs])
            p.drawn.append(f"{fn}{'(swapped)' if swap else ''}[{what}]:{cur.scope}->{dst.scope}")
            lv, rv = (oval, val) if swap else (val, oval)
            return dst, self._store(BINARY[fn](lv, rv), dst.dt)
        if kind == "reduce":
            return self._reduce(cur, val, dst)
        if kind == "fill":
            aux = self._buffer(self.cdt, self.shape, (cur.scope,))
            c = r.choice((0.0, 0.5, -1.5))
            if c == 0.0 and r.random() < 0.5:
                b.op("zero", self.scope, [aux])
            else:
                b.op("fill", self.scope, [aux, (self._scalar(c), "f32")])
            fn = r.choice(("add", "maximum", "minimum"))
            b.op(fn, self.scope, [dst, cur, aux])
            p.drawn.append(f"fill({c})+{fn}:{aux.scope}")
            return dst, self._store(BINARY[fn](val, np.float32(c)), dst.dt)
        if kind == "select":
            c = r.choice((0.0, -1.0))
            b.op("select", self.scope, [dst, cur, (self._scalar(c), "f32")],
                 " where (d0, d1) : (d1 - d0 >= 0)")
            i, j = np.indices(self.shape)
            p.drawn.append(f"select:{cur.scope}->{dst.scope}")
            return dst, self._store(np.where((j - i >= 0)[None], val, np.float32(c)), dst.dt)
        # cast round trip through a narrower (or the other half) type
        mid = r.choice([d for d in ("f16", "bf16", "f32") if d != cur.dt])
        if big > 6e4:
            mid = "f32" if cur.dt != "f32" else "bf16"
        if self.reduced and mid != "f32":  # a reduction's order (butterfly or numpy's) can
            # move its f32 result across a rounding boundary of ``mid``: one ulp of it
            p.simt_rtol = max(p.simt_rtol, NARROW_ULP[mid])
        tmp = self._buffer(mid, self.shape)
        b.op("cast", self.scope, [tmp, cur])
        back = dst if dst.dt == self.cdt else self._buffer(self.cdt, self.shape)
        b.op("cast", self.scope, [back, tmp])
        p.drawn.append(f"cast:{cur.scope}->{mid}:{tmp.scope}->{back.scope}")
        return back, self._store(rounded(val, mid), back.dt)

    def _fused(self, cur: Buf, val: np.ndarray, big: float) -> tuple[Buf, np.ndarray]:
        """unary_reduce (exp of x + bias, its row sum), binary_reduce (x * w, its row sum) or
        binary_chain ((x op0 a) op1 b), each then back into the tile."""
        r, b, p = self.rng, self.b, self.p
        rows = (self.shape[0], 1)
        form = r.choice(("unary_reduce", "binary_reduce", "binary_chain"))
        if form == "binary_chain" and cur.dt != "f32":
            form = "binary_reduce"  # decompose keeps unrounded steps: it declines a narrow out
        if form == "binary_chain":
            op0, op1 = r.choice(("add", "sub", "mul")), r.choice(("add", "sub", "mul"))
            a = (self._scalar(0.5), "f32")
            other, oval, what = self._operand((1, self.shape[1]), cur)
            reverse = r.random() < 0.3
            b.op("binary_chain", self.scope, [cur, cur, a, other],
                 f" op0 {op0} op1 {op1}" + (" reverse1" if reverse else ""))
            first = BINARY[op0](val, np.float32(0.5))
            out = BINARY[op1](oval, first) if reverse else BINARY[op1](first, oval)
            p.drawn.append(f"binary_chain {op0},{op1}{' reverse1' if reverse else ''}[{what}]")
            return cur, self._store(out, cur.dt)
        self.reduced = True
        red = self._buffer("f32", rows, (cur.scope,))
        part = self._buffer("f32", self.shape, (cur.scope,))
        if form == "unary_reduce" and big < 4:
            neg = self._buffer("f32", rows, (cur.scope,))
            b.op("reduce_negate", self.scope, [neg, cur], " axes [1] reduce max")
            b.op("unary_reduce", self.scope, [part, red, cur], f" bias {neg.name} unary exp "
                 "reduce sum", (neg.type,))
            e = np.exp(val - val.max(axis=2, keepdims=True))
            rv = e.sum(axis=2, keepdims=True)
            p.drawn.append(f"unary_reduce exp+sum:{cur.scope}")
        else:
            b.op("binary_reduce", self.scope, [part, red, cur, cur], " binary mul reduce sum")
            e = val * val
            rv = e.sum(axis=2, keepdims=True)
            p.drawn.append(f"binary_reduce mul+sum:{cur.scope}")
        # the fused op keeps its elementwise part in f32 (part); the tile gets part - row total
        b.op("sub", self.scope, [cur, part, red])
        return cur, self._store(e - rv, cur.dt)

    def _permute(self, cur: Buf, val: np.ndarray) -> tuple[Buf, np.ndarray]:
        """permute_layout of a shared tile into a swizzled (or row-major) shared tile."""
        layout = _swizzle_layout(self.shape, cur.dt, self.rng)
        dst = self.b.alloc(self.shape, cur.dt, "shared", layout)
        self.b.op("permute_layout", self.scope, [dst, cur])
        self.p.drawn.append(f"permute_layout->{'swizzled' if layout else 'row-major'}")
        return dst, val

    def _scalar(self, value: float) -> str:
        return self.b.const(value)

    def _reduce(self, cur: Buf, val: np.ndarray, dst: Buf) -> tuple[Buf, np.ndarray]:
        r, b, p = self.rng, self.b, self.p
        axes = r.choice(((1,), (1,), (0,), (0, 1)))
        fn = r.choice(("sum", "max", "min", "negate"))
        red_shape = tuple(1 if d in axes else n for d, n in enumerate(self.shape))
        spelled = ", ".join(map(str, axes))
        np_axes = tuple(a + 1 for a in axes)
        red = self._buffer("f32", red_shape, (cur.scope,))
        self.reduced = True
        accum = fn != "negate" and r.random() < 0.4
        init = np.zeros((val.shape[0], *red_shape), np.float32)
        if accum:
            c = r.choice((0.0, 0.5))
            b.op("fill", self.scope, [red, (self._scalar(c), "f32")])
            init[...] = c
        if fn == "negate":
            how = r.choice(("sum", "max", "min"))
            b.op("reduce_negate", self.scope, [red, cur], f" axes [{spelled}] reduce {how}")
            rv = -REDUCE[how](val, axis=np_axes, keepdims=True)
        else:
            b.op(fn, self.scope, [red, cur], f" axes [{spelled}]" + (" accum" if accum else ""))
            rv = REDUCE[fn](val, axis=np_axes, keepdims=True)
            if accum:
                rv = {"sum": lambda a, c: a + c, "max": np.maximum,
                      "min": np.minimum}[fn](rv, init)
        rv = rounded(rv, "f32")
        back = r.choice(("sub", "add", "mul"))
        b.op(back, self.scope, [dst, cur, red])
        p.drawn.append(f"{fn}{'+accum' if accum else ''}(axes {spelled}):{cur.scope}->"
                       f"{red.scope} then {back}")
        return dst, self._store(BINARY[back](val, rv), dst.dt)


def draw_chain(seed: int) -> Program:
    return Chain(seed).draw()


# --- family "mma": tirx.gemm on mma.sync ---------------------------------------------------------


def draw_mma(seed: int) -> Program:
    from tirx_mlir.backends.cuda.layout import fragments as F

    r, nprng = random.Random(seed), np.random.default_rng(seed)
    p = Program(seed, "mma", r.choice(("sm_80", "sm_90a")))
    b = Builder(r)
    dt = r.choice(("f16", "f16", "bf16", "f32"))
    scope = r.choice(("warp", "cta"))
    threads = 32 if scope == "warp" else r.choice((64, 128))
    warps = threads // 32
    m = r.choice((16, 32, 64)) if scope == "warp" else r.choice((32, 64))
    n = r.choice((8, 16, 32))
    ksteps = 8 if dt == "f32" else 16
    k = ksteps * r.choice((1, 2, 4))
    ta, tb = r.random() < 0.3, r.random() < 0.3
    loop = r.random() < 0.3 and k >= 2 * ksteps
    kc = k // 2 if loop else k
    a_shape = (kc, m) if ta else (m, kc)
    b_shape = (n, kc) if tb else (kc, n)
    ga_shape = (k, m) if ta else (m, k)
    gb_shape = (n, k) if tb else (k, n)
    A = _inputs_of(nprng, ga_shape, dt)
    B = _inputs_of(nprng, gb_shape, dt)
    p.inputs += [A, B]
    GA, GB = Buf("%A", ga_shape, dt, "global"), Buf("%B", gb_shape, dt, "global")
    reg_ops = scope == "warp" and not (ta or tb) and not loop and dt != "f32" and \
        r.random() < 0.3
    def operand(shape, frag_of):
        if reg_ops:
            lay = str(F.tile_fragments(frag_of(dt), (shape[0] // 16, shape[1] // (16 if frag_of is F.mma_a else 8))))
            return b.alloc(shape, dt, "local", lay)
        layout = _swizzle_layout(shape, dt, r) if r.random() < 0.5 else ""
        return b.alloc(shape, dt, "shared", layout)
    sa = operand(a_shape, F.mma_a)
    sb = operand(b_shape, F.mma_b)
    acc = b.alloc((m, n), "f32", "local")
    init = r.choice(("zero", "fill", "load", "none"))
    if loop and init == "none":
        init = "zero"
    c0 = np.zeros((m, n), np.float32)
    params = [f"%A: {GA.type}", f"%B: {GB.type}"]
    if init == "zero":
        b.op("zero", scope, [acc])
    elif init == "fill":
        b.op("fill", scope, [acc, (b.const(0.5), "f32")])
        c0[...] = 0.5
    elif init == "load":
        C0 = _inputs_of(nprng, (m, n), "f32")
        p.inputs.append(C0)
        params.append(f"%C0: {btype((m, n), 'f32', 'global')}")
        b.op("copy", scope, [acc, ("%C0", btype((m, n), "f32", "global"))])
        c0 = C0
    stage = "cta" if not reg_ops else scope
    beta = "" if init == "none" else " beta 1.0"
    flags = (" transpose_a" if ta else "") + (" transpose_b" if tb else "")
    if loop:
        lo, hi, step = b.const(0, "index"), b.const(k, "index"), b.const(kc, "index")
        kv = b.fresh("k")
        b.lines.append(f"  scf.for {kv} = {lo} to {hi} step {step} {{")
        va = b.slice(GA, [kv, "0"] if ta else ["0", kv], a_shape)
        vb = b.slice(GB, ["0", kv] if tb else [kv, "0"], b_shape)
    else:
        va, vb = GA, GB
    via_shared = reg_ops and r.random() < 0.5  # registers filled from shared: ldmatrix
    for reg, view in ((sa, va), (sb, vb)):
        if via_shared:
            staged = b.alloc(reg.shape, dt, "shared")
            b.op("copy", "cta", [staged, view])
            b.op("copy", scope, [reg, staged])
        else:
            b.op("copy", stage, [reg, view])
    b.op("gemm", scope, [acc, sa, sb], flags + beta)
    if loop:
        b.lines.append("  }")
    a32, b32 = A.astype(np.float32), B.astype(np.float32)
    if dt == "f32":  # tf32: the interpreter rounds the inputs; numpy keeps them
        pass
    val = (a32.T if ta else a32) @ (b32.T if tb else b32) + c0
    val, out_dt = _epilogue(r, b, nprng, p, params, scope, acc, val, (m, n))
    C = Buf("%C", (m, n), out_dt, "global")
    out_via = "direct"
    acc_layout = F.default_accumulator_layout((m, n), scope, threads)
    if out_dt == "f16" and acc_layout is not None and r.random() < 0.5:
        # cast in registers (the accumulator's layout), then through shared memory (stmatrix
        # on sm_90, element stores before) to global
        half = b.alloc((m, n), "f16", "local", str(acc_layout))
        b.op("cast", scope, [half, acc])
        sc = b.alloc((m, n), "f16", "shared")
        b.op("copy", scope, [sc, half])
        b.op("copy", "cta", [C, sc])
        out_via = "cast+shared"
    else:
        b.op("copy", scope, [C, acc])
    p.drawn.append(f"out={out_via}{'+ldmatrix' if via_shared else ''}")
    p.expected.append(rounded(val, out_dt))
    tol = 2e-2 if dt == "f32" else 1e-3
    p.rtol = max(tol, 2e-3 if out_dt != "f32" else 0)
    p.simt_rtol = 2e-2 if dt == "f32" else 1e-5
    p.atol = p.rtol * max(1.0, float(np.abs(val).max()))
    p.drawn += [f"scope={scope}", f"threads={threads}", f"mnk={m}x{n}x{k}", f"dt={dt}",
                f"ta={ta}", f"tb={tb}", f"loop={loop}", f"init={init}", f"regs={reg_ops}",
                f"swz_a={'swizzle' in sa.layout}", f"swz_b={'swizzle' in sb.layout}"]
    p.text = (f"tirx.kernel @k({', '.join(params)}) -> (%C: {C.type}) grid [1] "
              f'threads [{threads}] target "cuda -arch={p.arch}" {{\n'
              + "\n".join(b.lines) + "\n  tirx.return\n}\n")
    return p


def _epilogue(r, b, nprng, p, params, scope, acc, val, shape):
    """0-2 elementwise ops on the accumulator (a bias row from shared memory, relu, a scale);
    the output type f32 or f16 (the store converts)."""
    for _ in range(r.randint(0, 2)):
        kind = r.choice(("bias", "relu", "scale"))
        if kind == "bias":
            bias = _inputs_of(nprng, (1, shape[1]), "f32")
            p.inputs.append(bias)
            name = f"%Bias{len(p.inputs)}"
            params.append(f"{name}: {btype((1, shape[1]), 'f32', 'global')}")
            sbias = b.alloc((1, shape[1]), "f32", "shared")
            b.op("copy", "cta" if sbias.scope == "shared" else scope,
                 [sbias, (name, btype((1, shape[1]), "f32", "global"))])
            b.op("add", scope, [acc, acc, sbias])
            val = val + bias
        elif kind == "relu":
            b.op("maximum", scope, [acc, acc, (b.const(0.0), "f32")])
            val = np.maximum(val, np.float32(0))
        else:
            b.op("mul", scope, [acc, acc, (b.const(0.5), "f32")])
            val = val * np.float32(0.5)
        p.drawn.append(f"epilogue:{kind}")
    out_dt = r.choice(("f32", "f32", "f16"))
    return rounded(val, "f32"), out_dt


# --- family "wgmma": tirx.gemm_async on sm_90a --------------------------------------------------


def draw_wgmma(seed: int) -> Program:
    r, nprng = random.Random(seed), np.random.default_rng(seed)
    p = Program(seed, "wgmma", "sm_90a")
    b = Builder(r)
    dt = r.choice(("f16", "bf16"))
    scope = r.choice(("warpgroup", "cta"))
    threads = 128 if scope == "warpgroup" else r.choice((128, 256, 384))
    consumers = threads // 128 if scope == "cta" else 1
    m = 64 * r.choice((1, 2)) if consumers <= 2 else 64 * r.choice((1, 2))
    n = r.choice((8, 16, 24, 32, 64, 128))
    k = r.choice((16, 32, 64))
    rs = r.random() < 0.25
    ta = (not rs) and r.random() < 0.3
    tb = r.random() < 0.3
    a_shape = (k, m) if ta else (m, k)
    b_shape = (k, n) if tb else (n, k)
    A, B = _inputs_of(nprng, a_shape, dt), _inputs_of(nprng, b_shape, dt)
    p.inputs += [A, B]
    GA, GB = Buf("%A", a_shape, dt, "global"), Buf("%B", b_shape, dt, "global")
    params = [f"%A: {GA.type}", f"%B: {GB.type}"]
    if rs:
        sa = b.alloc(a_shape, dt, "local")  # cuda-default-layout: the rs fragment layout
        b.op("copy", scope, [sa, GA])
    else:
        sa = b.alloc(a_shape, dt, "shared")
        b.op("copy", "cta", [sa, GA])
    sb = b.alloc(b_shape, dt, "shared")
    b.op("copy", "cta", [sb, GB])
    acc = b.alloc((m, n), "f32", "local")
    accum = r.random() < 0.4
    c0 = np.zeros((m, n), np.float32)
    if accum:
        if r.random() < 0.5:
            C0 = _inputs_of(nprng, (m, n), "f32")
            p.inputs.append(C0)
            params.append(f"%C0: {btype((m, n), 'f32', 'global')}")
            b.op("copy", scope, [acc, ("%C0", btype((m, n), "f32", "global"))])
            c0 = C0
        else:
            b.op("zero", scope, [acc])
    flags = " ".join(f for f, on in (("transpose_a", ta), ("transpose_b", tb),
                                      ("accum", accum)) if on)
    b.op("gemm_async", scope, [acc, sa, sb], (" " + flags) if flags else "")
    a32 = (A.T if ta else A).astype(np.float32)
    b32 = (B if tb else B.T).astype(np.float32)
    val = a32 @ b32 + c0
    val, out_dt = _epilogue(r, b, nprng, p, params, scope, acc, val, (m, n))
    C = Buf("%C", (m, n), out_dt, "global")
    b.op("copy", scope, [C, acc])
    p.expected.append(rounded(val, out_dt))
    p.rtol = 2e-3
    p.atol = p.rtol * max(1.0, float(np.abs(val).max()))
    p.drawn += [f"scope={scope}", f"threads={threads}", f"mnk={m}x{n}x{k}", f"dt={dt}",
                f"ta={ta}", f"tb={tb}", f"rs={rs}", f"accum={accum}"]
    p.text = (f"tirx.kernel @k({', '.join(params)}) -> (%C: {C.type}) grid [1] "
              f'threads [{threads}] target "cuda -arch=sm_90a" {{\n'
              + "\n".join(b.lines) + "\n  tirx.return\n}\n")
    return p


DRAW = {"chain": draw_chain, "mma": draw_mma, "wgmma": draw_wgmma}
MORE_FAMILIES = ("ring", "ring", "sm80", "dsmem")
"""Families of `cuda_valid_kloops` (K-loop GEMMs over rings, sm_80 pipelining, clusters),
drawn for a share of the seeds (`MORE_SHARE`); the other seeds keep the family and program
they had before these were added."""
MORE_SHARE = 0.4
RELOAD_SHARE = 0.1
"""The share of seeds that draw the ``reload`` family (a shared tile reloaded per pass and
read by narrower scopes; the others keep the family they drew before it was added)."""


def base_family(seed: int) -> str:
    """The family ``seed`` drew before `MORE_FAMILIES` were added."""
    return random.Random(f"family-{seed}").choice(FAMILIES)


def family_of(seed: int) -> str:
    if random.Random(f"reload-{seed}").random() < RELOAD_SHARE:
        return "reload"
    if random.Random(f"more-{seed}").random() < MORE_SHARE:
        return random.Random(f"family-{seed}").choice(MORE_FAMILIES)
    return base_family(seed)


def draw(seed: int, family: str | None = None) -> Program:
    """The program of ``seed`` (its family drawn from the seed unless given)."""
    import cuda_valid_kloops

    fam = family or family_of(seed)
    return {**DRAW, **cuda_valid_kloops.DRAW}[fam](seed)


# --- the check ----------------------------------------------------------------------------------


@dataclass
class Outcome:
    kind: str  # agree | refused | disagree | internal | nvcc | ptxas
    detail: str = ""
    stage: str = ""


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def _compare(actual, expected, rtol, atol) -> str | None:
    a = np.asarray(actual, np.float64)
    e = np.asarray(expected, np.float64)
    if a.shape != e.shape:
        return f"shape {a.shape} != {e.shape}"
    if np.isnan(a).any() and not np.isnan(e).any():
        return f"NaN at {np.argwhere(np.isnan(a))[:3].tolist()} (unwritten?)"
    bad = ~np.isclose(a, e, rtol=rtol, atol=atol, equal_nan=True)
    if bad.any():
        idx = tuple(np.argwhere(bad)[0])
        return (f"{int(bad.sum())} of {a.size} differ, first at {list(idx)}: {a[idx]!r} vs "
                f"{e[idx]!r}")
    return None


def check(prog: Program, compile: bool = False, workdir: str | None = None) -> Outcome:
    """numpy == tile interpreter == SIMT interpreter after the cuda pipeline (and, with
    ``compile``, -t cuda through nvcc and -t ptx through ptxas for the program's arch)."""
    from tirx_mlir.diagnostics import TirxError
    from tirx_mlir.located_parser import parse_module
    from tirx_mlir.pipelines import get_pipeline
    from tirx_testing.cuda_every_stage import run

    stage = "parse"
    try:
        module = parse_module(prog.text, f"seed{prog.seed}.mlir")
        module.verify()
        stage = "tile"
        tile = run(module, prog.inputs)
        for out, ref in zip(tile, prog.expected, strict=True):
            bad = _compare(out, ref, prog.rtol, prog.atol)
            if bad:
                return Outcome("disagree", f"tile vs numpy: {bad}", stage)
        stage = "pipeline"
        get_pipeline("cuda", arch=prog.arch, num_stages=prog.num_stages).apply(module)
        stage = "simt"
        simt = run(module, prog.inputs)
        for out, ref in zip(simt, tile, strict=True):
            ref32 = np.asarray(ref, np.float32)
            tight = prog.simt_rtol if np.asarray(ref).dtype == np.float32 else prog.rtol
            bad = _compare(out, ref, tight, tight * max(1.0, float(np.abs(ref32).max())))
            if bad:
                return Outcome("disagree", f"simt vs tile: {bad}", stage)
    except TirxError as exc:
        if "impl raised:" in str(exc):  # a variant crashed; the search reported it as a decline
            return Outcome("internal", str(exc), stage)
        if stage == "simt":  # the lowered kernel fails where the tile level ran: wrong code
            return Outcome("disagree", f"simt raised: {exc}", stage)
        return Outcome("refused", str(exc), stage)
    except Exception as exc:  # noqa: BLE001 - every other exception is a finding
        tb = traceback.format_exc(limit=-6)
        return Outcome("internal", f"{type(exc).__name__}: {_first_line(exc)}\n{tb}", stage)
    if compile:
        return _compiles(module, prog, workdir)
    return Outcome("agree")


def _compiles(module, prog: Program, workdir: str | None) -> Outcome:
    import subprocess
    import tempfile

    from tirx_testing import cuda_compile
    from tirx_mlir.backends.cuda import toolchain
    from tirx_mlir.backends.cuda.printers.cuda_cpp import emit_cuda
    from tirx_mlir.backends.cuda.printers.ptx import emit_ptx

    try:
        cuda, ptx = emit_cuda(module), emit_ptx(module)
    except Exception as exc:  # noqa: BLE001
        return Outcome("internal", f"{type(exc).__name__}: {_first_line(exc)}\n"
                       f"{traceback.format_exc(limit=-6)}", "print")
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        out = Path(tmp)
        built = cuda_compile.nvcc_cubins({"k": cuda}, prog.arch, out,
                                         extra=("-Werror", "all-warnings"))
        if built.returncode != 0:
            return Outcome("nvcc", built.log[-2000:], "nvcc")
        (out / "k.ptx").write_text(ptx)
        proc = subprocess.run([str(toolchain.find_tool("ptxas")), f"-arch={prog.arch}",
                               str(out / "k.ptx"), "-o", str(out / "k.cubin")],
                              capture_output=True, text=True, timeout=300)
        if proc.returncode != 0:
            return Outcome("ptxas", proc.stderr[-2000:], "ptxas")
    return Outcome("agree")
