"""C = A @ B for a 128x256 A and a 256x128 B, where A lies in HBM row-major as usual: declared as
the logical [K, M] tensor A^T with a column-major layout, the contraction dim K lands on the
partitions when it is loaded, with no transpose. C is written with rows 160 elements apart after
16 elements of padding (a slice of a wider, padded HBM array). The arguments are logical
tensors; the layouts say how they lie in HBM (docs/trn.md, HBM layouts), and the printed kernel
takes AT and C as flat arrays of the layouts' spans. (Python twin of
examples/trn/matmul_hbm_layouts.mlir.)

    python examples/python/trn/matmul_hbm_layouts.py
"""

from tirx_mlir import script as Tx


@Tx.kernel(target="aws/trn1/trn1.2xlarge")
def matmul_hbm_layouts(AT: Tx.Buffer[(256, 128), "f32", "global", "S[(256,128):(1,256)]"],
                       B: Tx.Buffer[(256, 128), "f32"],
                       C: Tx.Out[(128, 128), "f32", "global", "S[(128,128):(160,1)] + 16"]):
    at = Tx.alloc((256, 128), "f32", scope="trn.sbuf")
    b = Tx.alloc((256, 128), "f32", scope="trn.sbuf")
    c = Tx.alloc((128, 128), "f32", scope="trn.sbuf")
    Tx.copy(at, AT)
    Tx.copy(b, B)
    Tx.gemm(c, at, b, transpose_a=True)
    Tx.copy(C, c)
