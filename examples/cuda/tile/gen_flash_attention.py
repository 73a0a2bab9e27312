"""Writes the flash-attention forward examples (FlashAttention-2's loop) from one template:

    python examples/cuda/tile/gen_flash_attention.py sm_80 > examples/cuda/tile/flash_attention_sm80.mlir
    python examples/cuda/tile/gen_flash_attention.py sm_90a > examples/cuda/tile/flash_attention_sm90a.mlir
    python examples/cuda/tile/gen_flash_attention.py sm_90a_ring > examples/cuda/tile/flash_attention_ring_sm90a.mlir

An optional second argument is the sequence length (default 256). The first two differ only in
the tensor-core primitive: ``tirx.gemm`` (mma.sync, P multiplied from the registers it was
computed in) on sm_80, ``tirx.gemm_async`` (wgmma, P staged through a swizzled shared tile) on
sm_90a. ``sm_90a_ring`` is the sm_90a loop pipelined: Q loaded once by the TMA (a one-shot
load), K and V blocks in TMA rings of `STAGES` stage tiles (copy_async forced to tma_auto into
``ring[j % STAGES]``) in a CTA of two warpgroups, so the lowering gives the ring copies to a producer warpgroup and the GEMMs and the
softmax to the consumer warpgroup, each role in a loop of its own; P stays in registers (the
wgmma rs form), so the loop has no shared store and no barrier, and P V stays in flight until
the next block's S wait.
"""

import sys

D = 64
BM = BN = 64
STAGES = 2
"""The ring's stage tiles per operand (K, V) in the sm_90a_ring example."""
ARCHS = {
    # the accumulator layout (warp w: rows 16w..16w+15 as m16n8 C fragments) and its row tile
    "sm_80": ("S[(4,2,8,8,4,2):(1@warpid,2,4@laneid,4,1@laneid,1)]",
              "S[(4,2,8,1):(1@warpid,1,4@laneid,1)] + R[4:1@laneid]"),
    "sm_90a": ("S[(1,1,4,2,8,8,4,2):(4@warpid,32,1@warpid,2,4@laneid,4,1@laneid,1)]",
               "S[(4,2,8,1):(1@warpid,1,4@laneid,1)] + R[4:1@laneid]"),
}
ARCHS["sm_90a_ring"] = ARCHS["sm_90a"]
HEADER = {
    "sm_80": """// Flash-attention forward on sm_80 tensor cores: O = softmax(Q K^T / 8) V for one head, Q, K, V
// {L}x64 f16, O f32. Each CTA (4 warps) owns 64 queries; warp w owns rows 16w..16w+15 of every
// register tile (the m16n8 accumulator layout over a 4x1 warp grid), so the row statistics m
// (running max) and l (running sum) live in the 4 lanes that hold a row (a [64, 1] register tile
// replicated over lane % 4) and every row reduction stays in its warp (two shfl.bfly steps).
// Per KV block of 64: S = Q K^T (mma.sync; K^T read with ldmatrix from the [N, D] tile),
// m' = max(m, rowmax(S / 8)), P = exp(S / 8 - m'), l = l exp(m - m') + rowsum(P),
// O = O exp(m - m') + P V, P converted to f16 in the registers it was computed in (the m16n8 C
// fragments of two n-tiles are the A fragment of one k16 step). Finally O = O * (1 / l): one
// reciprocal per row, then multiplies (FlashAttention-2's normalisation; an IEEE division per
// element would be 32 divisions a thread).""",
    "sm_90a": """// Flash-attention forward on sm_90a with wgmma: O = softmax(Q K^T / 8) V for one head, Q, K, V
// {L}x64 f16, O f32. Each CTA is one warpgroup owning 64 queries: S = Q K^T and O += P V are
// wgmma m64n64k16 (A and B from 128-byte-swizzled shared tiles through matrix descriptors;
// K's [N, D] tile is gemm_async's K-major B, V's [N, D] tile the MN-major one, transpose_b).
// Warp w of the warpgroup holds rows 16w..16w+15 of the accumulators, so the row statistics m
// and l live in the 4 lanes of a row and every row reduction stays in its warp. P is computed
// in registers and staged, as f16, in a swizzled shared tile for the second wgmma. Per KV
// block: m' = max(m, rowmax(S / 8)), P = exp(S / 8 - m'), l = l exp(m - m') + rowsum(P),
// O = O exp(m - m') + P V; finally O = O * (1 / l), one reciprocal per row.""",
    "sm_90a_ring": """// Flash-attention forward on sm_90a, pipelined: O = softmax(Q K^T / 8) V for one head, Q, K, V
// {L}x64 f16, O f32. Each CTA of two warpgroups owns 64 queries; its Q tile is loaded once by
// the TMA before the loop (a one-shot load: the consumer warpgroup waits for it once, before
// the loop; dispatch/tma_one_shot.py). K and V blocks of 64 rows go through TMA rings of {S}
// stage tiles each (ring[j % {S}]); nothing else is written about the pipeline:
// the lowering gives the copies to thread 0 of warpgroup 1 (the producer: wait until
// the stage is empty, arm its full mbarrier, issue the box) and the GEMMs and the softmax to
// warpgroup 0 (the consumer: wait until full, wgmma, release the stage), and splits the loop
// so that each role runs a loop of its own (dispatch/ring_loop_roles.py,
// transforms/split_roles.py): the producer runs up to {S} blocks ahead. S = Q K^T is wgmma
// m64n64k16 from shared tiles (K's [N, D] stage the K-major B); P stays in the registers it was
// computed in, as f16 in the accumulator layout, the A of O += P V (the wgmma rs form; V's
// [N, D] stage the MN-major B, transpose_b), so the loop has no shared store and no barrier.
// S waits with wgmma.wait_group 0 (the softmax reads it right away); P V commits without a
// wait, retired by the next block's S wait (its V stage released there) or by the drain after
// the loop. Per KV block: m' = max(m, rowmax(S / 8)), P = exp(S / 8 - m'),
// l = l exp(m - m') + rowsum(P), O = O exp(m - m') + P V; finally O = O * (1 / l), one
// reciprocal per row.""",
}


SOFTMAX = """    tirx.mul cta %s, %s, %scale : {acc}, {acc}, f32
    tirx.max cta %mnew, %s : {row}, {acc}
    tirx.maximum cta %mnew, %mnew, %m : {row}, {row}, {row}
    tirx.sub cta %alpha, %m, %mnew : {row}, {row}, {row}
    tirx.exp cta %alpha, %alpha : {row}, {row}
    tirx.sub cta %s, %s, %mnew : {acc}, {acc}, {row}
    tirx.exp cta %s, %s : {acc}, {acc}
    tirx.sum cta %rs, %s : {row}, {acc}
    tirx.fma cta %l, %l, %alpha, %rs : {row}, {row}, {row}, {row}
    tirx.mul cta %o, %o, %alpha : {acc}, {acc}, {row}"""


def kernel(arch: str, L: int) -> str:
    if arch == "sm_90a_ring":
        return ring_kernel(L)
    acc_layout, row_layout = ARCHS[arch]
    name = f"flash_attention_{arch.replace('_', '')}"
    g = lambda t: f"!tirx.buffer<{L}x{D}x{t}, global>"  # noqa: E731
    acc = f"!tirx.buffer<{BM}x{BN}xf32, local, {acc_layout}>"
    row = f"!tirx.buffer<{BM}x1xf32, local, {row_layout}>"
    tile = f"!tirx.buffer<{BM}x{D}xf16, shared, swizzle(3,3,3) S[{BM},{D}]>"
    gt = f"!tirx.buffer<{BM}x{D}xf16, global>"
    if arch == "sm_80":
        p_type = f"!tirx.buffer<{BM}x{BN}xf16, local, {acc_layout}>"
        qk = f"tirx.gemm cta %s, %sq, %sk transpose_b : {acc}, {tile}, {tile}"
        pv = f"tirx.gemm cta %o, %p, %sv beta 1.0 : {acc}, {p_type}, {tile}"
    else:
        p_type = tile
        qk = f"tirx.gemm_async cta %s, %sq, %sk : {acc}, {tile}, {tile}"
        pv = f"tirx.gemm_async cta %o, %p, %sv transpose_b accum : {acc}, {tile}, {tile}"
    rows = "\n".join(f"  %{r} = tirx.alloc : {row}" for r in ("m", "mnew", "alpha", "l", "rs"))
    return f"""{HEADER[arch].format(L=L)}
// Generated by examples/cuda/tile/gen_flash_attention.py.
//
//   tirx-run examples/cuda/tile/{name}.mlir
//   tirx-opt --pass-pipeline=cuda examples/cuda/tile/{name}.mlir -t cuda
tirx.kernel @{name}(%Q: {g("f16")}, %K: {g("f16")}, %V: {g("f16")})
    -> (%O: {g("f32")}) grid [{L // BM}] threads [128] target "cuda -arch={arch}" {{
  %cta = tirx.cta_id x : index
  %c0 = arith.constant 0 : index
  %cn = arith.constant {BN} : index
  %cl = arith.constant {L} : index
  %cm = arith.constant {BM} : index
  %scale = arith.constant 0.125 : f32
  %ninf = arith.constant -1.0e30 : f32
  %m0 = arith.muli %cta, %cm : index
  %sq = tirx.alloc : {tile}
  %sk = tirx.alloc : {tile}
  %sv = tirx.alloc : {tile}
  %o = tirx.alloc : {acc}
  %s = tirx.alloc : {acc}
  %p = tirx.alloc : {p_type}
{rows}
  %q = tirx.slice %Q[%m0, 0] [{BM}, {D}] : {g("f16")} -> {gt}
  tirx.copy cta %sq, %q : {tile}, {gt}
  tirx.zero cta %o : {acc}
  tirx.fill cta %m, %ninf : {row}, f32
  tirx.zero cta %l : {row}
  scf.for %kb = %c0 to %cl step %cn {{
    %k = tirx.slice %K[%kb, 0] [{BN}, {D}] : {g("f16")} -> {gt}
    %v = tirx.slice %V[%kb, 0] [{BN}, {D}] : {g("f16")} -> {gt}
    tirx.copy cta %sk, %k : {tile}, {gt}
    tirx.copy cta %sv, %v : {tile}, {gt}
    {qk}
{SOFTMAX.format(acc=acc, row=row)}
    tirx.cast cta %p, %s : {p_type}, {acc}
    {pv}
    tirx.copy cta %m, %mnew : {row}, {row}
  }}
  tirx.reciprocal cta %l, %l : {row}, {row}
  tirx.mul cta %o, %o, %l : {acc}, {acc}, {row}
  %out = tirx.slice %O[%m0, 0] [{BM}, {D}] : {g("f32")} -> !tirx.buffer<{BM}x{D}xf32, global>
  tirx.copy cta %out, %o : !tirx.buffer<{BM}x{D}xf32, global>, {acc}
  tirx.return
}}
"""


def ring_kernel(L: int) -> str:
    """The pipelined sm_90a form (module docstring): K and V in TMA rings, two warpgroups."""
    acc_layout, row_layout = ARCHS["sm_90a"]
    name = "flash_attention_ring_sm90a"
    g = lambda t: f"!tirx.buffer<{L}x{D}x{t}, global>"  # noqa: E731
    acc = f"!tirx.buffer<{BM}x{BN}xf32, local, {acc_layout}>"
    row = f"!tirx.buffer<{BM}x1xf32, local, {row_layout}>"
    tile = f"!tirx.buffer<{BM}x{D}xf16, shared, swizzle(3,3,3) S[{BM},{D}]>"
    p_type = f"!tirx.buffer<{BM}x{BN}xf16, local, {acc_layout}>"
    ring = f"!tirx.buffer<{STAGES}x{BN}x{D}xf16, shared>"
    stage3 = f"!tirx.buffer<1x{BN}x{D}xf16, shared>"
    stage = f"!tirx.buffer<{BN}x{D}xf16, shared>"
    gt = f"!tirx.buffer<{BM}x{D}xf16, global>"
    rows = "\n".join(f"  %{r} = tirx.alloc : {row}" for r in ("m", "mnew", "alpha", "l", "rs"))
    softmax = SOFTMAX.format(acc=acc, row=row)
    return f"""{HEADER["sm_90a_ring"].format(L=L, S=STAGES)}
// Generated by examples/cuda/tile/gen_flash_attention.py.
//
//   tirx-run examples/cuda/tile/{name}.mlir
//   tirx-opt --pass-pipeline=cuda examples/cuda/tile/{name}.mlir -t cuda
tirx.kernel @{name}(%Q: {g("f16")}, %K: {g("f16")}, %V: {g("f16")})
    -> (%O: {g("f32")}) grid [{L // BM}] threads [256] target "cuda -arch=sm_90a" {{
  %cta = tirx.cta_id x : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cs = arith.constant {STAGES} : index
  %cb = arith.constant {L // BN} : index
  %cn = arith.constant {BN} : index
  %cm = arith.constant {BM} : index
  %scale = arith.constant 0.125 : f32
  %ninf = arith.constant -1.0e30 : f32
  %m0 = arith.muli %cta, %cm : index
  %sq = tirx.alloc : {tile}
  %rk = tirx.alloc : {ring}
  %rv = tirx.alloc : {ring}
  %o = tirx.alloc : {acc}
  %s = tirx.alloc : {acc}
  %p = tirx.alloc : {p_type}
{rows}
  %q = tirx.slice %Q[%m0, 0] [{BM}, {D}] : {g("f16")} -> {gt}
  tirx.copy_async cta %sq, %q dispatch "tma_auto" : {tile}, {gt}
  tirx.zero cta %o : {acc}
  tirx.fill cta %m, %ninf : {row}, f32
  tirx.zero cta %l : {row}
  scf.for %j = %c0 to %cb step %c1 {{
    %st = arith.remui %j, %cs : index
    %kb = arith.muli %j, %cn : index
    %k = tirx.slice %K[%kb, 0] [{BN}, {D}] : {g("f16")} -> {gt}
    %v = tirx.slice %V[%kb, 0] [{BN}, {D}] : {g("f16")} -> {gt}
    %k3 = tirx.slice %rk[%st, 0, 0] [1, {BN}, {D}] : {ring} -> {stage3}
    %v3 = tirx.slice %rv[%st, 0, 0] [1, {BN}, {D}] : {ring} -> {stage3}
    %sk = tirx.reshape %k3 : {stage3} -> {stage}
    %sv = tirx.reshape %v3 : {stage3} -> {stage}
    tirx.copy_async cta %sk, %k dispatch "tma_auto" : {stage}, {gt}
    tirx.copy_async cta %sv, %v dispatch "tma_auto" : {stage}, {gt}
    tirx.gemm_async cta %s, %sq, %sk : {acc}, {tile}, {stage}
{softmax}
    tirx.cast cta %p, %s : {p_type}, {acc}
    tirx.gemm_async cta %o, %p, %sv transpose_b accum : {acc}, {p_type}, {stage}
    tirx.copy cta %m, %mnew : {row}, {row}
  }}
  tirx.reciprocal cta %l, %l : {row}, {row}
  tirx.mul cta %o, %o, %l : {acc}, {acc}, {row}
  %out = tirx.slice %O[%m0, 0] [{BM}, {D}] : {g("f32")} -> !tirx.buffer<{BM}x{D}xf32, global>
  tirx.copy cta %out, %o : !tirx.buffer<{BM}x{D}xf32, global>, {acc}
  tirx.return
}}
"""


if __name__ == "__main__":
    arch = sys.argv[1] if len(sys.argv) > 1 else "sm_80"
    length = int(sys.argv[2]) if len(sys.argv) > 2 else 256
    sys.stdout.write(kernel(arch, length))
