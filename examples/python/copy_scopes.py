"""Data movement through the memory hierarchy: global -> shared -> local (registers) -> global,
computing Y = exp(X) on a 64x128 f32 tile with one CTA of 128 threads (4 warps). copy_async
stages the tile (cta scope), permute_layout re-lays it out column-major in shared memory (same
logical values), each warp copies it into registers and applies exp (warp scope: every warp
works on its own `local` registers), and a cta-scope copy writes the result out. (Python twin of
examples/copy_scopes.mlir.)

    python examples/python/copy_scopes.py
"""

from tirx_mlir import script as Tx


@Tx.kernel(threads=(128,))
def exp_through_scopes(X: Tx.Buffer[(64, 128), "f32"], Y: Tx.Out[(64, 128), "f32"]):
    smem = Tx.alloc((64, 128), "f32", scope="shared")
    smem_t = Tx.alloc((64, 128), "f32", scope="shared", layout="S[(64,128):(1,64)]")
    regs = Tx.alloc((64, 128), "f32", scope="local")
    Tx.cta.copy_async(smem, X)
    Tx.cta.permute_layout(smem_t, smem)
    Tx.warp.copy(regs, smem_t)
    Tx.warp.exp(regs, regs)
    Tx.cta.copy(Y, regs)
