"""A double-buffered global -> shared -> global copy with cp.async (LDGSTS on sm_80+). Each block
copies 16 tiles of 1024 floats; each of its 256 threads moves 16 bytes of a tile. While the
block drains stage k % 2, the copy of tile k + 1 into the other stage is in flight:
cp.async.wait_group 1 waits for all but the newest group. (Python twin of
examples/cuda/cp_async_copy.mlir.)

    python examples/python/cuda/cp_async_copy.py
"""

from tirx_mlir import script as Tx


@Tx.kernel(target='cuda -arch=sm_80', grid=(16,), threads=(256,))
def cp_async_copy(In: Tx.Buffer[(262144,), 'f32'], Out: Tx.Out[(262144,), 'f32']):
    stages = Tx.cuda.shared_alloc(align=128, result_types=['!tirx.buffer<2x1024xf32, shared>'])
    t = Tx.cuda.thread_idx('x')
    b = Tx.cuda.block_idx('x')
    first = b * 16384
    mine = t * 4
    src0 = first + mine
    g0 = Tx.cuda.address(In, src0)
    s0 = Tx.cuda.address(stages, mine)
    Tx.ptx.cp_async('cg.shared', s0, g0, 16)
    Tx.ptx.cp_async_commit_group()
    for k in range(0, 16, 1):
        v_next = k + 1
        more = v_next < 16
        if more:
            nstage = Tx.urem(v_next, 2)
            noff = nstage * 1024
            nidx = noff + mine
            ntile = v_next * 1024
            nsrc0 = first + ntile
            nsrc = nsrc0 + mine
            gn = Tx.cuda.address(In, nsrc)
            sn = Tx.cuda.address(stages, nidx)
            Tx.ptx.cp_async('cg.shared', sn, gn, 16)
        Tx.ptx.cp_async_commit_group()
        Tx.ptx.cp_async_wait_group(1)
        Tx.cuda.sync_threads()
        stage = Tx.urem(k, 2)
        off = stage * 1024
        idx = off + mine
        sk = Tx.cuda.address(stages, idx)
        v = Tx.ptx.ld('shared.v4.f32', sk)
        tile = k * 1024
        dst0 = first + tile
        dst = dst0 + mine
        gd = Tx.cuda.address(Out, dst)
        Tx.ptx.st('global.v4.f32', gd, [v[0], v[1], v[2], v[3]])
        Tx.cuda.sync_threads()
