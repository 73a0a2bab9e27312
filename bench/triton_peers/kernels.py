"""The Triton 3.9 peers of our CUDA kernels (imported only by aot.py, in the Triton venv).

Shapes and strides are ``tl.constexpr``, as our kernels' are static: Triton specialises on them
and drops the bounds masks a divisible shape does not need, so both sides compile the same
fixed-size problem. Each kernel is the textbook Triton formulation (the tutorials' vector add,
fused softmax, layer norm and matmul), one program per output tile; the row kernels also
in a 2-D form (``*_rows``) that takes a block of ROWS rows per program, as our tile examples do.
"""

import triton
import triton.language as tl


@triton.jit
def vector_add(x_ptr, y_ptr, z_ptr, N: tl.constexpr, BLOCK: tl.constexpr):
    """z = x + y, BLOCK elements per program."""
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    if N % BLOCK == 0:
        tl.store(z_ptr + offs, tl.load(x_ptr + offs) + tl.load(y_ptr + offs))
    else:
        mask = offs < N
        tl.store(z_ptr + offs, tl.load(x_ptr + offs, mask=mask) + tl.load(y_ptr + offs, mask=mask),
                 mask=mask)


@triton.jit
def softmax(x_ptr, y_ptr, COLS: tl.constexpr):
    """y[r, :] = softmax(x[r, :]) over a row of COLS (a power of two), one row per program."""
    offs = tl.program_id(0) * COLS + tl.arange(0, COLS)
    x = tl.load(x_ptr + offs).to(tl.float32)
    e = tl.exp(x - tl.max(x, axis=0))
    tl.store(y_ptr + offs, (e / tl.sum(e, axis=0)).to(y_ptr.dtype.element_ty))


@triton.jit
def rmsnorm(x_ptr, w_ptr, y_ptr, COLS: tl.constexpr, EPS: tl.constexpr):
    """y[r, :] = x[r, :] * rsqrt(mean(x[r, :]^2) + EPS) * w, one row per program."""
    cols = tl.arange(0, COLS)
    offs = tl.program_id(0) * COLS + cols
    x = tl.load(x_ptr + offs).to(tl.float32)
    inv = tl.rsqrt(tl.sum(x * x, axis=0) / COLS + EPS)
    w = tl.load(w_ptr + cols).to(tl.float32)
    tl.store(y_ptr + offs, (x * inv * w).to(y_ptr.dtype.element_ty))


@triton.jit
def softmax_rows(x_ptr, y_ptr, COLS: tl.constexpr, ROWS: tl.constexpr):
    """y[r, :] = softmax(x[r, :]) for the ROWS x COLS block of rows (both powers of two) of
    program r // ROWS: a 2-D block, each row reduced along axis 1."""
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    offs = rows[:, None] * COLS + tl.arange(0, COLS)[None, :]
    x = tl.load(x_ptr + offs).to(tl.float32)
    e = tl.exp(x - tl.max(x, axis=1)[:, None])
    tl.store(y_ptr + offs, (e / tl.sum(e, axis=1)[:, None]).to(y_ptr.dtype.element_ty))


@triton.jit
def rmsnorm_rows(x_ptr, w_ptr, y_ptr, COLS: tl.constexpr, EPS: tl.constexpr,
                 ROWS: tl.constexpr):
    """rmsnorm of the ROWS x COLS block of rows of program r // ROWS (a 2-D block, the weight
    row broadcast over the rows)."""
    cols = tl.arange(0, COLS)
    rows = tl.program_id(0) * ROWS + tl.arange(0, ROWS)
    offs = rows[:, None] * COLS + cols[None, :]
    x = tl.load(x_ptr + offs).to(tl.float32)
    inv = tl.rsqrt(tl.sum(x * x, axis=1) / COLS + EPS)
    w = tl.load(w_ptr + cols).to(tl.float32)
    tl.store(y_ptr + offs, (x * inv[:, None] * w[None, :]).to(y_ptr.dtype.element_ty))


@triton.jit
def matmul(a_ptr, b_ptr, c_ptr, M: tl.constexpr, N: tl.constexpr, K: tl.constexpr,
           BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr, B_NK: tl.constexpr):
    """C (M x N, row-major) = A (M x K, row-major) @ B, with B given as N x K row-major when
    B_NK (the "col" operand of mma.sync, as our GEMMs take it), else K x N; f32 accumulation;
    program (n, m) of a 2-D grid computes the BM x BN tile (m, n)."""
    offs_m = tl.program_id(1) * BM + tl.arange(0, BM)
    offs_n = tl.program_id(0) * BN + tl.arange(0, BN)
    offs_k = tl.arange(0, BK)
    a_ptrs = a_ptr + offs_m[:, None] * K + offs_k[None, :]
    if B_NK:
        b_ptrs = b_ptr + offs_n[None, :] * K + offs_k[:, None]
    else:
        b_ptrs = b_ptr + offs_k[:, None] * N + offs_n[None, :]
    acc = tl.zeros((BM, BN), dtype=tl.float32)
    for _ in range(0, K, BK):
        acc = tl.dot(tl.load(a_ptrs), tl.load(b_ptrs), acc)
        a_ptrs += BK
        b_ptrs += BK if B_NK else BK * N
    c_ptrs = c_ptr + offs_m[:, None] * N + offs_n[None, :]
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty))


@triton.jit
def flash_attention(q_ptr, k_ptr, v_ptr, o_ptr, L: tl.constexpr, D: tl.constexpr,
                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    """O = softmax(Q K^T / sqrt(D)) V for one head (Q, K, V L x D f16, O f32): program i owns
    BLOCK_M queries and walks K/V in blocks of BLOCK_N with FlashAttention-2's online softmax,
    as examples/cuda/tile/gen_flash_attention.py's kernels do (the same statistics, P rounded
    to f16 for P V, O multiplied by 1 / l at the end: one reciprocal per row)."""
    offs_m = tl.program_id(0) * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, D)
    q = tl.load(q_ptr + offs_m[:, None] * D + offs_d[None, :])
    m_i = tl.full([BLOCK_M], -1.0e30, tl.float32)
    l_i = tl.zeros([BLOCK_M], tl.float32)
    acc = tl.zeros([BLOCK_M, D], tl.float32)
    for j in range(0, L, BLOCK_N):
        kt = tl.load(k_ptr + (j + offs_n)[None, :] * D + offs_d[:, None])  # K^T: D x BLOCK_N
        s = tl.dot(q, kt) * (1.0 / tl.sqrt(float(D)))
        m_new = tl.maximum(m_i, tl.max(s, 1))
        alpha = tl.exp(m_i - m_new)
        p = tl.exp(s - m_new[:, None])
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = tl.load(v_ptr + (j + offs_n)[:, None] * D + offs_d[None, :])
        acc = tl.dot(p.to(tl.float16), v, acc)
        m_i = m_new
    tl.store(o_ptr + offs_m[:, None] * D + offs_d[None, :], acc * (1.0 / l_i)[:, None])
