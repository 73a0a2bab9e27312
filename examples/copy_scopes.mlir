// Data movement through the memory hierarchy: global -> shared -> local (registers) -> global,
// computing Y = exp(X) on a 64x128 f32 tile with one CTA of 128 threads (4 warps).
// copy_async stages the tile (cta scope), permute_layout re-lays it out column-major in shared
// memory (same logical values), each warp copies it into registers and applies exp (warp scope:
// every warp works on its own `local` registers), and a cta-scope copy writes the result out.
//
//   tirx-run examples/copy_scopes.mlir
tirx.kernel @exp_through_scopes(%X: !tirx.buffer<64x128xf32, global>)
    -> (%Y: !tirx.buffer<64x128xf32, global>) grid [1] threads [128] {
  %smem = tirx.alloc : !tirx.buffer<64x128xf32, shared>
  %smem_t = tirx.alloc : !tirx.buffer<64x128xf32, shared, S[(64,128):(1,64)]>
  %regs = tirx.alloc : !tirx.buffer<64x128xf32, local>
  tirx.copy_async cta %smem, %X : !tirx.buffer<64x128xf32, shared>, !tirx.buffer<64x128xf32, global>
  tirx.permute_layout cta %smem_t, %smem : !tirx.buffer<64x128xf32, shared, S[(64,128):(1,64)]>, !tirx.buffer<64x128xf32, shared>
  tirx.copy warp %regs, %smem_t : !tirx.buffer<64x128xf32, local>, !tirx.buffer<64x128xf32, shared, S[(64,128):(1,64)]>
  tirx.exp warp %regs, %regs : !tirx.buffer<64x128xf32, local>, !tirx.buffer<64x128xf32, local>
  tirx.copy cta %Y, %regs : !tirx.buffer<64x128xf32, global>, !tirx.buffer<64x128xf32, local>
  tirx.return
}
