// Row sum and row max of a 256x512 f32 matrix, into two 1-D outputs.
// Two CTAs, one 128-row tile each. Each tile is reduced in two 256-column halves: the second
// half folds into the first with `accum` (as a kernel that streams columns through shared memory
// would do).
//
//   tirx-run examples/row_reduce.mlir
tirx.kernel @row_sum_max(%X: !tirx.buffer<256x512xf32, global>)
    -> (%S: !tirx.buffer<256xf32, global>, %M: !tirx.buffer<256xf32, global>) grid [2] threads [128] {
  %cta = tirx.cta_id x : index
  %c128 = arith.constant 128 : index
  %row = arith.muli %cta, %c128 : index
  %acc_s = tirx.alloc : !tirx.buffer<128xf32, shared>
  %acc_m = tirx.alloc : !tirx.buffer<128xf32, shared>
  %tile = tirx.alloc : !tirx.buffer<128x256xf32, shared>
  %x0 = tirx.slice %X[%row, 0] [128, 256] : !tirx.buffer<256x512xf32, global> -> !tirx.buffer<128x256xf32, global>
  tirx.copy cta %tile, %x0 : !tirx.buffer<128x256xf32, shared>, !tirx.buffer<128x256xf32, global>
  tirx.sum cta %acc_s, %tile axes [-1] : !tirx.buffer<128xf32, shared>, !tirx.buffer<128x256xf32, shared>
  tirx.max cta %acc_m, %tile axes [-1] : !tirx.buffer<128xf32, shared>, !tirx.buffer<128x256xf32, shared>
  %x1 = tirx.slice %X[%row, 256] [128, 256] : !tirx.buffer<256x512xf32, global> -> !tirx.buffer<128x256xf32, global>
  tirx.copy cta %tile, %x1 : !tirx.buffer<128x256xf32, shared>, !tirx.buffer<128x256xf32, global>
  tirx.sum cta %acc_s, %tile axes [-1] accum : !tirx.buffer<128xf32, shared>, !tirx.buffer<128x256xf32, shared>
  tirx.max cta %acc_m, %tile axes [-1] accum : !tirx.buffer<128xf32, shared>, !tirx.buffer<128x256xf32, shared>
  %s = tirx.slice %S[%row] [128] : !tirx.buffer<256xf32, global> -> !tirx.buffer<128xf32, global>
  %m = tirx.slice %M[%row] [128] : !tirx.buffer<256xf32, global> -> !tirx.buffer<128xf32, global>
  tirx.copy cta %s, %acc_s : !tirx.buffer<128xf32, global>, !tirx.buffer<128xf32, shared>
  tirx.copy cta %m, %acc_m : !tirx.buffer<128xf32, global>, !tirx.buffer<128xf32, shared>
  tirx.return
}
