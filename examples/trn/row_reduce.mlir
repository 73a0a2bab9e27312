// Row reductions of a [128, 2048] f32 tile: S = sum(X, axis=-1), M = max(X, axis=-1),
// N = -min(X, axis=-1) (reduce_negate). The sum is limited to 512 free elements per
// instruction (config max_inst_size), so it is a two-stage reduction: four partial sums per row,
// then their sum; max and min reduce each row in one instruction.
//
//   tirx-run examples/trn/row_reduce.mlir
tirx.kernel @row_reduce(%X: !tirx.buffer<128x2048xf32, global>)
    -> (%S: !tirx.buffer<128x1xf32, global>, %M: !tirx.buffer<128x1xf32, global>,
        %N: !tirx.buffer<128x1xf32, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %x = tirx.alloc : !tirx.buffer<128x2048xf32, trn.sbuf>
  %s = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
  %m = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
  %n = tirx.alloc : !tirx.buffer<128x1xf32, trn.sbuf>
  tirx.copy %x, %X : !tirx.buffer<128x2048xf32, trn.sbuf>, !tirx.buffer<128x2048xf32, global>
  tirx.sum %s, %x axes [-1] config {max_inst_size = 512} : !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x2048xf32, trn.sbuf>
  tirx.max %m, %x : !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x2048xf32, trn.sbuf>
  tirx.reduce_negate %n, %x reduce min : !tirx.buffer<128x1xf32, trn.sbuf>, !tirx.buffer<128x2048xf32, trn.sbuf>
  tirx.copy %S, %s : !tirx.buffer<128x1xf32, global>, !tirx.buffer<128x1xf32, trn.sbuf>
  tirx.copy %M, %m : !tirx.buffer<128x1xf32, global>, !tirx.buffer<128x1xf32, trn.sbuf>
  tirx.copy %N, %n : !tirx.buffer<128x1xf32, global>, !tirx.buffer<128x1xf32, trn.sbuf>
  tirx.return
}
