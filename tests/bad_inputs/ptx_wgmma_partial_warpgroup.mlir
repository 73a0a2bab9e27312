// ARGS: -t cuda
// EXPECT-ERROR: 'ptx.wgmma_fence' op threads [96] is not a whole number of warpgroups; ptx.wgmma_fence needs all 128 threads (4 warps) of each warpgroup; launch a multiple of 128 threads per block (e.g. threads [128])
// wgmma is executed by the 4 warps of a warpgroup together; 96 threads are 3 warps.
tirx.kernel @k() grid [1] threads [96] target "cuda -arch=sm_90a" {
  ptx.wgmma_fence
  ptx.wgmma_commit_group
  ptx.wgmma_wait_group 0
  tirx.return
}
