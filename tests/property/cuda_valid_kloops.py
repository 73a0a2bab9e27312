"""Random valid K-loop GEMMs and cluster programs for the valid-program campaign.

Families (each drawn from an integer seed, as `cuda_valid_programs.draw` does):

* ``ring`` (sm_90a): the GEMM shape of examples/cuda/tile/gemm_sm90a.mlir. ``gemm_async cta``
  in a K loop over ring stages (``[stages, rows, cols]`` shared allocs, stages 2-4) filled by
  ``copy_async`` (TMA, ``ldgsts`` cp.async, or one of each), 1-2 consumer warpgroups with or
  without a producer warpgroup, M/N/K tiles, transposes, a grid of CTAs each its C tile, an
  epilogue (bias/relu/scale), C stored as f32 or f16 from the registers or through a shared
  tile and a TMA store. Some draw A as a *one-shot* load (one tile loaded before the loop and
  read by every iteration), some inside an outer loop (the one-shot load re-issued per outer
  iteration) or between two K loops. Some draw a cluster (2 or 4 CTAs along x, or 2x2) whose CTAs share the B tile
  (and, 2x2, the A tile) through TMA multicast (``config {cta_mask}``).
* ``sm80`` (sm_80 or sm_90a): ``tirx.gemm cta`` (mma.sync) in a K loop whose operands are
  copied into shared tiles (``copy`` or ``copy_async``; row-major or swizzled) each iteration,
  the cuda pipeline run with ``num_stages`` 1-4 (cuda-pipeline-k-loop: a cp.async ring).
* ``dsmem`` (sm_90a): examples/cuda/tile/cluster_exchange.mlir's form: clusters of 2 or 4
  CTAs, each CTA at every step copies its tile (or a row band of it) into a peer's receive
  buffer (``copy_async remote_cta``), ``cluster_sync``, and adds what it received.
* ``reload``: a shared tile reloaded every pass of a loop (TMA, cp.async with the pipeline's
  ``num_stages`` 1-3, or ``copy``; at CTA scope, or at warpgroup/warp scope in a CTA of one
  warpgroup/warp) and read by every warp or thread (warp, warpgroup or thread scope: their
  barriers do not order other warps) into register replicas summed over the passes: the
  reload must wait for every reader of the previous pass (dispatch/shared_refill.py). In
  `RELOAD_GUARD_SHARE` of them the load is inside ``scf.if`` on the pass number (skipped at
  one pass, the same in every CTA or one per CTA, or never): a CTA-uniform branch.
"""

from __future__ import annotations

import random

import numpy as np

from cuda_valid_programs import Buf, Builder, Program, _inputs_of, btype, rounded


def _kernel_text(p: Program, params: list[str], outs: str, launch: str, b: Builder) -> str:
    return (f"tirx.kernel @k({', '.join(params)}) -> ({outs}) {launch} "
            f'target "cuda -arch={p.arch}" {{\n' + "\n".join(b.lines) + "\n  tirx.return\n}\n")


def _ids(b: Builder, grid: tuple[int, int]) -> tuple[str, str]:
    """``cta_id x`` and ``cta_id y`` (``0`` where the grid has one CTA that way)."""
    out = []
    for axis, n in zip("xy", grid):
        if n == 1:
            out.append(b.const(0, "index"))
            continue
        name = b.fresh("cta")
        b.lines.append(f"  {name} = tirx.cta_id {axis} : index")
        out.append(name)
    return out[0], out[1]


def _muli(b: Builder, x: str, c: int) -> str:
    out, k = b.fresh("i"), b.const(c, "index")
    b.lines.append(f"  {out} = arith.muli {x}, {k} : index")
    return out


def _stage_view(b: Builder, ring: Buf, slot: str) -> Buf:
    rows, cols = ring.shape[1:]
    v3 = Buf(b.fresh("v"), (1, rows, cols), ring.dt, "shared")
    b.lines.append(f"    {v3.name} = tirx.slice {ring.name}[{slot}, 0, 0] [1, {rows}, {cols}] "
                   f": {ring.type} -> {v3.type}")
    v = Buf(b.fresh("v"), (rows, cols), ring.dt, "shared")
    b.lines.append(f"    {v.name} = tirx.reshape {v3.name} : {v3.type} -> {v.type}")
    return v


def _epilogue(r, b: Builder, nprng, p: Program, params: list, acc: Buf, val: np.ndarray,
              n_total: int, n0: str, n_of_cta) -> np.ndarray:
    """0-2 of bias (a row of a global ``[1, N]``, this CTA's columns, staged in shared
    memory), relu and scale on the accumulator; ``val`` is ``[ctas..., m, n]`` per CTA and
    ``n_of_cta(bias)`` gives each CTA's bias columns broadcast like ``val``."""
    m, n = acc.shape
    for _ in range(r.randint(0, 2)):
        kind = r.choice(("bias", "relu", "scale"))
        if kind == "bias":
            bias = _inputs_of(nprng, (1, n_total), "f32")
            p.inputs.append(bias)
            g = Buf(f"%Bias{len(p.inputs)}", (1, n_total), "f32", "global")
            params.append(f"{g.name}: {g.type}")
            view = b.slice(g, ["0", n0], (1, n)) if n_total != n else g
            sbias = b.alloc((1, n), "f32", "shared")
            b.op("copy", "cta", [sbias, view])
            b.op("add", "cta", [acc, acc, sbias])
            val = val + n_of_cta(bias)
        elif kind == "relu":
            b.op("maximum", "cta", [acc, acc, (b.const(0.0), "f32")])
            val = np.maximum(val, np.float32(0))
        else:
            b.op("mul", "cta", [acc, acc, (b.const(0.5), "f32")])
            val = val * np.float32(0.5)
        p.drawn.append(f"epilogue:{kind}")
    return rounded(val, "f32")


def _store(r, b: Builder, p: Program, acc: Buf, C: Buf, m0: str, n0: str, tma: bool) -> str:
    """C's tile from the accumulator: directly, or (f16 or f32) through a shared tile and a
    generic or (sm_90a) TMA store."""
    m, n = acc.shape
    view = b.slice(C, [m0, n0], (m, n)) if C.shape != (m, n) else C
    how = r.choice(("direct", "direct", "shared"))
    if how == "direct":
        b.op("copy", "cta", [view, acc])
        return "store:direct"
    staged = b.alloc((m, n), C.dt, "shared")
    b.op("copy", "cta", [staged, acc])
    if tma and r.random() < 0.7:
        b.op("copy_async", "cta", [view, staged], ' dispatch "tma_auto"')
        return "store:shared+tma"
    b.op("copy", "cta", [view, staged])
    return "store:shared+copy"


def _copy_async(b: Builder, dst: Buf, src: Buf, how: str, config: str, mask: str) -> None:
    """``copy_async cta`` by ``how``, multicast by a ``config`` or a run-time ``mask``."""
    if mask:
        b.op("copy_async", "cta", [dst, src], f' cta_mask {mask} dispatch "{how}"', ("index",))
    else:
        b.op("copy_async", "cta", [dst, src], f' dispatch "{how}"{config}')


def _runtime_masks(b: Builder, shape: tuple[int, int], ax: str, ay: str,
                   with_a: bool) -> tuple[str, str]:
    """(A's, B's) ``cta_mask`` operands computed at run time from ``cta_id x`` (only
    constants, arith and the ids: a pipelined ring recomputes them at kernel entry): every CTA
    of a cluster along x, ``(1 << x) | (full ^ (1 << x))`` for B; none for A."""
    gm, _ = shape
    return "", _all_ranks(b, ax, gm)


def _all_ranks(b: Builder, cta: str, size: int) -> str:
    """The mask of every CTA of a cluster of ``size`` along x, computed at run time from the
    CTA's id: ``(1 << r) | (full ^ (1 << r))`` with ``r = cta % size``."""
    def op(kind: str, lhs: str, rhs: str) -> str:
        out = b.fresh("m")
        b.lines.append(f"  {out} = arith.{kind} {lhs}, {rhs} : index")
        return out
    own = op("shli", b.const(1, "index"), op("remui", cta, b.const(size, "index")))
    return op("ori", own, op("xori", b.const((1 << size) - 1, "index"), own))


# --- family "ring": gemm_async over TMA / cp.async rings ----------------------------------------


def draw_ring(seed: int) -> Program:
    r, nprng = random.Random(seed), np.random.default_rng(seed)
    p = Program(seed, "ring", "sm_90a")
    b = Builder(r)
    dt = r.choice(("f16", "bf16"))
    consumers = r.choice((1, 1, 2))
    producer = r.random() < 0.7
    threads = 128 * (consumers + producer)
    m = 64 * consumers * r.choice((1, 1, 2))
    n = r.choice((32, 64, 64, 128))
    bk = r.choice((32, 64, 64))
    stages = r.choice((2, 3, 4))
    ksteps = r.choice((1, 2, 3, 4, 6))
    form = r.choice(("ring", "ring", "ring", "one_shot", "outer", "twice"))
    ta = r.random() < 0.25
    tb = r.random() < 0.25
    cluster = ""
    gm, gn = r.choice(((1, 1), (1, 1), (2, 1), (1, 2), (2, 2)))
    mc_a = mc_b = ""
    if form == "ring" and r.random() < 0.35:
        shape = r.choice(((2, 1), (4, 1), (2, 2)))
        gm, gn = shape
        if shape == (2, 2):
            cluster = " cluster [2, 2]"
            mc_b = " config {cta_mask = array<i64: 3, 3, 12, 12>}"  # rows: same n block
            if r.random() < 0.6:
                mc_a = " config {cta_mask = array<i64: 5, 10, 5, 10>}"  # columns: same m
        else:
            cluster = f" cluster [{shape[0]}]"
            mc_b = f" config {{cta_mask = {(1 << shape[0]) - 1}}}"
        if m // shape[0] < 8 * max(shape) or m % (8 * shape[0]):
            m = 128
    k = bk * ksteps
    outer = 2 if form in ("outer", "twice") else 1
    # global A: [M_total, K_total] (or its transpose), B: [N_total, K_total] (transpose_b:
    # [K_total, N_total]); the one-shot forms read A's first bk columns (per outer step its
    # own bk columns) and B's K blocks
    mt, nt = gm * m, gn * n
    a_k = bk * outer if form in ("one_shot", "outer", "twice") else k
    b_k = k * outer
    ga = (a_k, mt) if ta else (mt, a_k)
    gb = (b_k, nt) if tb else (nt, b_k)
    A, B = _inputs_of(nprng, ga, dt), _inputs_of(nprng, gb, dt)
    p.inputs += [A, B]
    GA, GB = Buf("%A", ga, dt, "global"), Buf("%B", gb, dt, "global")
    params = [f"%A: {GA.type}", f"%B: {GB.type}"]
    ax, ay = _ids(b, (gm, gn))
    m0, n0 = (_muli(b, ax, m) if gm > 1 else ax), (_muli(b, ay, n) if gn > 1 else ay)
    # a run-time mask needs one global tile for the whole cluster (docs/cuda_tile.md): the
    # clusters along x, whose B is every CTA's (A is per CTA there)
    runtime_mask = gn == 1 and bool(cluster) and random.Random(f"mask-{seed}").random() < 0.5
    rt_a = rt_b = ""
    if runtime_mask:  # the same masks as a cta_mask operand, computed from the CTA ids
        rt_a, rt_b = _runtime_masks(b, (gm, gn), ax, ay, bool(mc_a))
        mc_a, mc_b = "", ""
    ta_shape = (bk, m) if ta else (m, bk)
    tb_shape = (bk, n) if tb else (n, bk)
    how_a = r.choice(("tma_auto", "tma_auto", "ldgsts"))
    how_b = r.choice(("tma_auto", "tma_auto", "ldgsts"))
    if mc_b or mc_a or rt_b:
        how_a = how_b = "tma_auto"
    acc = b.alloc((m, n), "f32", "local")
    ring_b = b.alloc((stages, *tb_shape), dt, "shared")
    one_a = form in ("one_shot", "outer", "twice")
    ring_a = b.alloc(ta_shape if one_a else (stages, *ta_shape), dt, "shared")
    init = r.choice(("zero", "zero", "load"))
    params_c0 = None
    if init == "load":
        C0 = _inputs_of(nprng, (mt, nt), "f32")
        p.inputs.append(C0)
        g0 = Buf("%C0", (mt, nt), "f32", "global")
        params_c0 = f"%C0: {g0.type}"
        view = b.slice(g0, [m0, n0], (m, n)) if (mt, nt) != (m, n) else g0
        b.op("copy", "cta", [acc, view])
    else:
        b.op("zero", "cta", [acc])
    if params_c0:
        params.append(params_c0)
    c = {v: b.const(v, "index") for v in sorted({0, 1, 2, stages, ksteps, bk})}

    def a_view(kcol: str) -> Buf:
        return b.slice(GA, [kcol, m0] if ta else [m0, kcol], ta_shape)

    def b_view(kcol: str) -> Buf:
        return b.slice(GB, [kcol, n0] if tb else [n0, kcol], tb_shape)

    flags = (" transpose_a" if ta else "") + (" transpose_b" if tb else "") + " accum"

    def k_loop(kbase: str | None) -> None:
        kv = b.fresh("k")
        b.lines.append(f"  scf.for {kv} = {c[0]} to {c[ksteps]} step {c[1]} {{")
        slot = b.fresh("s")
        b.lines.append(f"  {slot} = arith.remui {kv}, {c[stages]} : index")
        kc = b.fresh("i")
        b.lines.append(f"  {kc} = arith.muli {kv}, {c[bk]} : index")
        if kbase:
            kc2 = b.fresh("i")
            b.lines.append(f"  {kc2} = arith.addi {kbase}, {kc} : index")
            kc = kc2
        sb = _stage_view(b, ring_b, slot)
        if one_a:
            sa = ring_a
        else:
            sa = _stage_view(b, ring_a, slot)
            _copy_async(b, sa, a_view(kc), how_a, mc_a, rt_a)
        bv = b_view(kc)
        _copy_async(b, sb, bv, how_b, mc_b, rt_b)
        b.op("gemm_async", "cta", [acc, sa, sb], flags)
        b.lines.append("  }")

    def one_shot_pass(o: str) -> None:
        """The one-shot load of A's ``o``-th bk columns, then the K loop over B's blocks
        ``o * ksteps ..``."""
        oa = b.fresh("i")
        b.lines.append(f"  {oa} = arith.muli {o}, {c[bk]} : index")
        b.op("copy_async", "cta", [ring_a, a_view(oa)], f' dispatch "{how_a}"')
        kbase = b.fresh("i")
        b.lines.append(f"  {kbase} = arith.muli {o}, {kk} : index")
        k_loop(kbase)

    kk = b.const(k, "index")
    if form == "outer":  # the one-shot load of A re-issued per outer step
        o = b.fresh("o")
        b.lines.append(f"  scf.for {o} = {c[0]} to {c[outer]} step {c[1]} {{")
        one_shot_pass(o)
        b.lines.append("  }")
    elif form in ("one_shot", "twice"):  # once, or reloaded between two K loops
        for i in range(outer):
            one_shot_pass(c[i])
    else:
        k_loop(None)
    # numpy: per CTA (gm, gn) tiles
    a32 = A.astype(np.float32)
    a32 = a32.T if ta else a32  # [mt, a_k]
    b32 = B.astype(np.float32)
    b32 = b32 if tb else b32.T  # [b_k, nt]
    c0 = p.inputs[2].astype(np.float32) if init == "load" else np.zeros((mt, nt), np.float32)
    if one_a:
        total = np.zeros((mt, nt), np.float32)
        for oi in range(outer):
            a_blk = a32[:, oi * bk:(oi + 1) * bk]
            for j in range(ksteps):
                kk0 = oi * k + j * bk
                total += a_blk @ b32[kk0:kk0 + bk]
        val = total + c0
    else:
        val = a32 @ b32 + c0
    tiles = val.reshape(gm, m, gn, n).transpose(0, 2, 1, 3)  # [gm, gn, m, n]

    def bias_of(bias):
        return bias.reshape(gn, 1, n)[None]
    tiles = _epilogue(r, b, nprng, p, params, acc, tiles, nt, n0, bias_of)
    out_dt = r.choice(("f32", "f32", "f16"))
    C = Buf("%C", (mt, nt), out_dt, "global")
    how_store = _store(r, b, p, acc, C, m0, n0, tma=True)
    p.expected.append(rounded(tiles.transpose(0, 2, 1, 3).reshape(mt, nt), out_dt))
    p.rtol = 2e-3
    p.atol = p.rtol * max(1.0, float(np.abs(tiles).max()))
    p.drawn += [f"form={form}", f"threads={threads}", f"consumers={consumers}",
                f"producer={producer}", f"mnk={m}x{n}x{k}", f"bk={bk}", f"stages={stages}",
                f"dt={dt}", f"ta={ta}", f"tb={tb}", f"grid={gm}x{gn}{cluster}",
                f"a={how_a}{'(mc)' if mc_a or rt_a else ''}",
                f"b={how_b}{'(mc)' if mc_b or rt_b else ''}",
                f"mask={'runtime' if runtime_mask else 'config'}" if cluster else "mask=none",
                f"init={init}", how_store, f"out={out_dt}"]
    launch = f"grid [{gm}, {gn}] threads [{threads}]{cluster}"
    p.text = _kernel_text(p, params, f"%C: {C.type}", launch, b)
    return p


# --- family "sm80": mma.sync GEMMs in K loops, cuda-pipeline-k-loop ---------------------------


def draw_sm80(seed: int) -> Program:
    from cuda_valid_programs import _swizzle_layout

    r, nprng = random.Random(seed), np.random.default_rng(seed)
    p = Program(seed, "sm80", r.choice(("sm_80", "sm_80", "sm_90a")))
    p.num_stages = r.choice((1, 2, 3, 4))
    b = Builder(r)
    dt = r.choice(("f16", "f16", "bf16"))
    threads = r.choice((64, 128, 128, 256))
    m = r.choice((32, 64, 128)) if threads < 256 else r.choice((64, 128))
    n = r.choice((32, 64, 128))
    bk = r.choice((16, 32, 64))
    ksteps = r.choice((2, 3, 4, 8))
    k = bk * ksteps
    ta, tb = r.random() < 0.2, r.random() < 0.2
    gm, gn = r.choice(((1, 1), (1, 1), (2, 1), (1, 2), (2, 2)))
    mt, nt = gm * m, gn * n
    ga = (k, mt) if ta else (mt, k)
    gb = (nt, k) if tb else (k, nt)
    A, B = _inputs_of(nprng, ga, dt), _inputs_of(nprng, gb, dt)
    p.inputs += [A, B]
    GA, GB = Buf("%A", ga, dt, "global"), Buf("%B", gb, dt, "global")
    params = [f"%A: {GA.type}", f"%B: {GB.type}"]
    ax, ay = _ids(b, (gm, gn))
    m0, n0 = (_muli(b, ax, m) if gm > 1 else ax), (_muli(b, ay, n) if gn > 1 else ay)
    a_shape = (bk, m) if ta else (m, bk)
    b_shape = (n, bk) if tb else (bk, n)

    def tile(shape):
        lay = _swizzle_layout(shape, dt, r) if r.random() < 0.5 else ""
        return b.alloc(shape, dt, "shared", lay)
    sa, sb = tile(a_shape), tile(b_shape)
    acc = b.alloc((m, n), "f32", "local")
    b.op("zero", "cta", [acc])
    c0, cbk, ck = b.const(0, "index"), b.const(bk, "index"), b.const(k, "index")
    kv = b.fresh("k")
    b.lines.append(f"  scf.for {kv} = {c0} to {ck} step {cbk} {{")
    start = len(b.lines)
    va = b.slice(GA, [kv, m0] if ta else [m0, kv], a_shape)
    vb = b.slice(GB, [n0, kv] if tb else [kv, n0], b_shape)
    how = r.choice(("copy", "copy", "copy_async"))
    b.op(how, "cta", [sa, va])
    b.op(how, "cta", [sb, vb])
    flags = (" transpose_a" if ta else "") + (" transpose_b" if tb else "")
    b.op("gemm", "cta", [acc, sa, sb], flags + " beta 1.0")
    b.lines.append("  }")
    a32, b32 = A.astype(np.float32), B.astype(np.float32)
    val = (a32.T if ta else a32) @ (b32.T if tb else b32)
    tiles = val.reshape(gm, m, gn, n).transpose(0, 2, 1, 3)
    tiles = _epilogue(r, b, nprng, p, params, acc, tiles, nt, n0,
                      lambda bias: bias.reshape(gn, 1, n)[None])
    out_dt = r.choice(("f32", "f32", "f16"))
    C = Buf("%C", (mt, nt), out_dt, "global")
    how_store = _store(r, b, p, acc, C, m0, n0, tma=p.arch == "sm_90a")
    p.expected.append(rounded(tiles.transpose(0, 2, 1, 3).reshape(mt, nt), out_dt))
    p.rtol = 2e-3
    p.atol = p.rtol * max(1.0, float(np.abs(tiles).max()))
    p.drawn += [f"threads={threads}", f"mnk={m}x{n}x{k}", f"bk={bk}", f"dt={dt}", f"ta={ta}",
                f"tb={tb}", f"grid={gm}x{gn}", f"load={how}", f"num_stages={p.num_stages}",
                f"swz_a={'swizzle' in sa.layout}", f"swz_b={'swizzle' in sb.layout}",
                how_store, f"out={out_dt}"]
    launch = f"grid [{gm}, {gn}] threads [{threads}]"
    p.text = _kernel_text(p, params, f"%C: {C.type}", launch, b)
    return p


# --- family "dsmem": copies between the CTAs of a cluster --------------------------------------


def draw_dsmem(seed: int) -> Program:
    r, nprng = random.Random(seed), np.random.default_rng(seed)
    p = Program(seed, "dsmem", "sm_90a")
    b = Builder(r)
    csize = r.choice((2, 2, 4))
    clusters = r.choice((1, 2))
    ctas = csize * clusters
    threads = r.choice((32, 128, 256))
    dt = r.choice(("f32", "f32", "f16"))
    rows = r.choice((1, 4, 8, 16, 32))
    cols = r.choice((4, 8, 16, 32, 64)) * (2 if dt == "f16" else 1)
    steps = r.choice((1, 2, 3, 4))
    peer_of = r.choice(("xor1", "next")) if csize == 4 else "xor1"
    acc_scope = r.choice(("local", "shared"))
    # send only the first half of the rows (a band of the shared accumulator gets it)
    band = rows >= 2 and acc_scope == "shared" and r.random() < 0.4
    sent_rows = rows // 2 if band else rows
    Ag = Buf("%A", (steps, ctas, rows, cols), dt, "global")
    A = _inputs_of(nprng, Ag.shape, dt)
    p.inputs.append(A)
    C = Buf("%C", (ctas, rows, cols), "f32", "global")
    bx = b.fresh("cta")
    b.lines.append(f"  {bx} = tirx.cta_id x : index")
    rank = b.fresh("rank")
    b.lines.append(f"  {rank} = tirx.cta_id_in_cluster x : index")
    c0, c1, c2 = (b.const(v, "index") for v in (0, 1, 2))
    cs, cn = b.const(csize, "index"), b.const(steps, "index")
    peer = b.fresh("peer")
    if peer_of == "xor1":
        b.lines.append(f"  {peer} = arith.xori {rank}, {c1} : index")
    else:
        nxt = b.fresh("i")
        b.lines.append(f"  {nxt} = arith.addi {rank}, {c1} : index")
        b.lines.append(f"  {peer} = arith.remui {nxt}, {cs} : index")
    # a tile per cluster multicast to its CTAs by a run-time cta_mask (one global tile for
    # the whole cluster: a run-time mask's rule); keeps ``r``'s draws as they were
    group = csize if random.Random(f"mask-{seed}").random() < 0.4 else 0
    if group:
        Bg = Buf("%B", (steps * clusters * rows, cols), dt, "global")
        Bv = _inputs_of(nprng, Bg.shape, dt)
        p.inputs.append(Bv)
        mask = _all_ranks(b, bx, csize)
        cid = b.fresh("cl")
        b.lines.append(f"  {cid} = tirx.cluster_id x : index")
        shared_b = b.alloc((rows, cols), dt, "shared")
    send = b.alloc((rows, cols), dt, "shared")
    recv = b.alloc((2, rows, cols), dt, "shared")
    acc = b.alloc((rows, cols), "f32", acc_scope)
    b.op("zero", "cta", [acc])
    kv = b.fresh("k")
    b.lines.append(f"  scf.for {kv} = {c0} to {cn} step {c1} {{")
    start = len(b.lines)
    slot = b.fresh("s")
    b.lines.append(f"  {slot} = arith.remui {kv}, {c2} : index")
    a4 = Buf(b.fresh("v"), (1, 1, rows, cols), dt, "global")
    b.lines.append(f"  {a4.name} = tirx.slice %A[{kv}, {bx}, 0, 0] [1, 1, {rows}, {cols}] : "
                   f"{Ag.type} -> {a4.type}")
    a = Buf(b.fresh("v"), (rows, cols), dt, "global")
    b.lines.append(f"  {a.name} = tirx.reshape {a4.name} : {a4.type} -> {a.type}")
    b.op("copy", "cta", [send, a])
    if group:  # rows (k * clusters + cluster) * rows ..
        row = b.fresh("i")
        b.lines.append(f"  {row} = arith.muli {kv}, {b.const(clusters, 'index')} : index")
        row2 = b.fresh("i")
        b.lines.append(f"  {row2} = arith.addi {row}, {cid} : index")
        row3 = _muli(b, row2, rows)
        gv = b.slice(Bg, [row3, "0"], (rows, cols))
        b.op("copy_async", "cta", [shared_b, gv], f' cta_mask {mask} dispatch "tma_auto"',
             ("index",))
        b.op("add", "cta", [acc, acc, shared_b])
    r3 = Buf(b.fresh("v"), (1, rows, cols), dt, "shared")
    b.lines.append(f"  {r3.name} = tirx.slice {recv.name}[{slot}, 0, 0] [1, {rows}, {cols}] : "
                   f"{recv.type} -> {r3.type}")
    rv = Buf(b.fresh("v"), (rows, cols), dt, "shared")
    b.lines.append(f"  {rv.name} = tirx.reshape {r3.name} : {r3.type} -> {rv.type}")
    src, dst = send, rv
    if band:
        src = b.slice(send, ["0", "0"], (sent_rows, cols))
        dst = b.slice(rv, ["0", "0"], (sent_rows, cols))
    b.lines.append(f"  tirx.copy_async cta {dst.name}, {src.name} remote_cta {peer} : "
                   f"{dst.type}, {src.type}, index")
    b.lines.append("  tirx.cluster_sync cluster")
    b.op("add", "cta", [acc, acc, send])
    into = b.slice(acc, ["0", "0"], (sent_rows, cols)) if band else acc
    b.op("add", "cta", [into, into, dst])
    b.lines.append("  }")
    out = Buf(b.fresh("v"), (1, rows, cols), "f32", "global")
    b.lines.append(f"  {out.name} = tirx.slice %C[{bx}, 0, 0] [1, {rows}, {cols}] : "
                   f"{C.type} -> {out.type}")
    o2 = Buf(b.fresh("v"), (rows, cols), "f32", "global")
    b.lines.append(f"  {o2.name} = tirx.reshape {out.name} : {out.type} -> {o2.type}")
    b.op("copy", "cta", [o2, acc])
    a32 = A.astype(np.float32)
    val = np.zeros((ctas, rows, cols), np.float32)
    for cta in range(ctas):
        base, rk = cta - cta % csize, cta % csize
        sender = base + (rk ^ 1 if peer_of == "xor1" else (rk - 1) % csize)
        for s in range(steps):
            val[cta] += a32[s, cta]
            val[cta, :sent_rows] += a32[s, sender, :sent_rows]
            if group:
                blk = (s * clusters + cta // csize) * rows
                val[cta] += Bv[blk:blk + rows].astype(np.float32)
    if band:
        p.drawn.append(f"band={sent_rows}")
    if group:
        p.drawn.append("multicast(runtime mask)")
    params = [f"%A: {Ag.type}"] + ([f"%B: {Bg.type}"] if group else [])
    p.expected.append(val)
    p.rtol = 1e-5 if dt == "f32" else 1e-3
    p.atol = p.rtol * max(1.0, float(np.abs(val).max()))
    p.drawn += [f"cluster={csize}", f"ctas={ctas}", f"threads={threads}", f"dt={dt}",
                f"tile={rows}x{cols}", f"steps={steps}", f"peer={peer_of}",
                f"acc={acc.scope}"]
    launch = f"grid [{ctas}] threads [{threads}] cluster [{csize}]"
    p.text = _kernel_text(p, params, f"%C: {C.type}", launch, b)
    return p


# --- family "reload": a shared tile reloaded each pass, read by narrower scopes --------------


RELOAD_GUARD_SHARE = 0.4
"""The share of ``reload`` programs whose load is inside ``scf.if`` on the pass number (and,
half of them, the CTA): a CTA-uniform branch, where the refill barrier must still be."""


def _reload_guard(b: Builder, seed: int, blocks: int, grid: int, k: str,
                  cta: str) -> list[int] | None:
    """Opens ``scf.if`` around the reload of pass ``k`` (drawn from a generator of its own,
    so the programs without it are drawn as before): the load is skipped at one pass >= 1
    (the same in every CTA, or ``1 + cta % (blocks - 1)``) or never (``blocks``). Returns
    the pass each CTA skips, or None when no branch was drawn."""
    side = random.Random(f"reload-guard-{seed}")
    if side.random() >= RELOAD_GUARD_SHARE:
        return None
    cond = b.fresh("p")
    if side.random() < 0.5 or blocks < 3:
        skip = side.choice([blocks] + list(range(1, blocks)))
        b.lines.append(f"  {cond} = arith.cmpi ne, {k}, {b.const(skip, 'index')} : index")
        skips = [skip] * grid
    else:
        rem, at = b.fresh("i"), b.fresh("i")
        b.lines.append(f"  {rem} = arith.remui {cta}, {b.const(blocks - 1, 'index')} : index")
        b.lines.append(f"  {at} = arith.addi {rem}, {b.const(1, 'index')} : index")
        b.lines.append(f"  {cond} = arith.cmpi ne, {k}, {at} : index")
        skips = [1 + g % (blocks - 1) for g in range(grid)]
    b.lines.append(f"  scf.if {cond} {{")
    return skips


def draw_reload(seed: int) -> Program:
    r, nprng = random.Random(seed), np.random.default_rng(seed)
    how = r.choice(("tma", "tma", "ldgsts", "copy"))
    p = Program(seed, "reload", "sm_90a" if how == "tma" else r.choice(("sm_80", "sm_90a")))
    b = Builder(r)
    threads = r.choice((32, 64, 128, 128, 256))
    reader = r.choice({32: ("thread",), 64: ("warp", "thread"), 128: ("warp", "warp", "thread"),
                       256: ("warp", "warpgroup", "thread")}[threads])
    scopes = ["cta"] + {32: ["warp"], 128: ["warpgroup"]}.get(threads, [])
    load_scope = r.choice(scopes)
    dt = r.choice(("f32", "f32", "f16"))
    esize = 4 if dt == "f32" else 2
    if reader == "thread":
        rows, cols = r.choice(((1, 16), (2, 16), (4, 8), (2, 32), (4, 16), (8, 8)))
    else:
        rows, cols = r.choice(((4, 16), (8, 16), (16, 32), (32, 64), (8, 64), (32, 32)))
    cols = max(cols, 16 // esize)  # a 16-byte row: a TMA box's inner extent, cp.async chunks
    blocks = r.choice((2, 3, 4))
    grid = r.choice((1, 1, 2))
    twice = r.random() < 0.5  # reads the tile twice: acc += s * s, else acc += s
    xg_shape = (grid * blocks * rows, cols)
    X = _inputs_of(nprng, xg_shape, dt)
    p.inputs.append(X)
    XG = Buf("%X", xg_shape, dt, "global")
    Y = Buf("%Y", (grid * rows, cols), "f32", "global")
    cta = b.fresh("cta")
    b.lines.append(f"  {cta} = tirx.cta_id x : index")
    c0, c1 = b.const(0, "index"), b.const(1, "index")
    cb, crows = b.const(blocks, "index"), b.const(rows, "index")
    base = b.fresh("i")
    b.lines.append(f"  {base} = arith.muli {cta}, {b.const(blocks * rows, 'index')} : index")
    s = b.alloc((rows, cols), dt, "shared")
    acc = b.alloc((rows, cols), "f32", "local")
    rv = b.alloc((rows, cols), "f32", "local")
    b.op("zero", reader, [acc])
    i = b.fresh("k")
    b.lines.append(f"  scf.for {i} = {c0} to {cb} step {c1} {{")
    off, row = b.fresh("i"), b.fresh("i")
    b.lines.append(f"  {off} = arith.muli {i}, {crows} : index")
    b.lines.append(f"  {row} = arith.addi {base}, {off} : index")
    xv = b.slice(XG, [row, "0"], (rows, cols))
    skips = _reload_guard(b, seed, blocks, grid, i, cta)
    if how == "copy":
        b.op("copy", load_scope, [s, xv])
    else:
        b.op("copy_async", load_scope, [s, xv], f' dispatch "{"tma_auto" if how == "tma" else "ldgsts"}"')
    if skips is not None:
        b.lines.append("  }")
    b.op("copy", reader, [rv, s])
    if twice:
        b.op("mul", reader, [rv, rv, s])
    b.op("add", reader, [acc, acc, rv])
    b.lines.append("  }")
    yv = b.slice(Y, [_muli(b, cta, rows), "0"], (rows, cols)) if grid > 1 else Y
    b.op("copy", "cta", [yv, acc])
    x32 = X.astype(np.float32).reshape(grid, blocks, rows, cols)
    if skips is not None:  # pass skips[g] of CTA g reads the block of the pass before
        loaded = [[k - 1 if k == skips[g] else k for k in range(blocks)] for g in range(grid)]
        x32 = np.stack([x32[g, loaded[g]] for g in range(grid)])
    val = (x32 * x32 if twice else x32).sum(axis=1, dtype=np.float32)
    p.expected.append(val.reshape(grid * rows, cols))
    p.rtol = 1e-5 if dt == "f32" else 1e-3
    p.atol = p.rtol * max(1.0, float(np.abs(val).max()))
    p.drawn += [f"load={how}@{load_scope}", f"reader={reader}", f"threads={threads}",
                f"tile={rows}x{cols}", f"dt={dt}", f"blocks={blocks}", f"grid={grid}",
                f"twice={twice}"] + ([] if skips is None else [f"skip={skips}"])
    if how == "ldgsts":  # 1: cuda-pipeline-k-loop leaves the cp.async loop as written
        p.num_stages = r.choice((1, 2, 3))
        p.drawn.append(f"num_stages={p.num_stages}")
    launch = f"grid [{grid}] threads [{threads}]"
    p.text = _kernel_text(p, [f"%X: {XG.type}"], f"%Y: {Y.type}", launch, b)
    return p


DRAW = {"ring": draw_ring, "sm80": draw_sm80, "dsmem": draw_dsmem, "reload": draw_reload}
