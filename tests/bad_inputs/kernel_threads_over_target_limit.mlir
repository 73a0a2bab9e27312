// ARGS: --pass-pipeline=cuda -t ptx
// EXPECT-ERROR: @k: threads [64, 32] is 2048 threads per block; the target "cuda -arch=sm_80" allows at most 1024 (max_threads_per_block)
tirx.kernel @k(%A: !tirx.buffer<4xf32, global>) grid [1] threads [64, 32] target "cuda -arch=sm_80" {
  tirx.return
}
