// RUN: tirx-opt %s -p cuda-default-layout,tirx-dispatch --split-input-file --verify-diagnostics
// cta_masks that cannot work (dispatch/cluster_masks.py, tma_multicast.py): each is an error at
// the copy saying what to write.

// A CTA not in its own mask: an integer mask is every CTA's, so it must be the whole cluster.
tirx.kernel @k(%A: !tirx.buffer<256x256xf16, global>) -> (%O: !tirx.buffer<64x64xf16, global>)
    grid [2, 2] threads [128] cluster [2, 2] target "cuda -arch=sm_90a" {
  %bx = tirx.cta_id x : index
  %by = tirx.cta_id y : index
  %c64 = arith.constant 64 : index
  %row = arith.muli %by, %c64 : index
  %s = tirx.alloc : !tirx.buffer<64x64xf16, shared>
  %a = tirx.slice %A[%row, %c64] [64, 64] : !tirx.buffer<256x256xf16, global> -> !tirx.buffer<64x64xf16, global>
  // expected-error@+1 {{the CTA of rank 2 is not in its own cta_mask 0b11}}
  tirx.copy_async cta %s, %a dispatch "tma_auto" config {cta_mask = 3} : !tirx.buffer<64x64xf16, shared>, !tirx.buffer<64x64xf16, global>
  tirx.copy cta %O, %s : !tirx.buffer<64x64xf16, global>, !tirx.buffer<64x64xf16, shared>
  tirx.return
}

// -----

// A mask outside the cluster (ranks 0..3).
tirx.kernel @k(%A: !tirx.buffer<256x256xf16, global>) -> (%O: !tirx.buffer<64x64xf16, global>)
    grid [2, 2] threads [128] cluster [2, 2] target "cuda -arch=sm_90a" {
  %bx = tirx.cta_id x : index
  %by = tirx.cta_id y : index
  %c64 = arith.constant 64 : index
  %row = arith.muli %by, %c64 : index
  %s = tirx.alloc : !tirx.buffer<64x64xf16, shared>
  %a = tirx.slice %A[%row, %c64] [64, 64] : !tirx.buffer<256x256xf16, global> -> !tirx.buffer<64x64xf16, global>
  // expected-error@+1 {{config cta_mask 0b11100 (rank 3) names CTAs outside the cluster of 4}}
  tirx.copy_async cta %s, %a dispatch "tma_auto" config {cta_mask = array<i64: 3, 3, 12, 28>} : !tirx.buffer<64x64xf16, shared>, !tirx.buffer<64x64xf16, global>
  tirx.copy cta %O, %s : !tirx.buffer<64x64xf16, global>, !tirx.buffer<64x64xf16, shared>
  tirx.return
}

// -----

// Masks that disagree: rank 0 multicasts to rank 1, whose mask leaves rank 0 out.
tirx.kernel @k(%A: !tirx.buffer<256x256xf16, global>) -> (%O: !tirx.buffer<64x64xf16, global>)
    grid [2, 2] threads [128] cluster [2, 2] target "cuda -arch=sm_90a" {
  %bx = tirx.cta_id x : index
  %by = tirx.cta_id y : index
  %c64 = arith.constant 64 : index
  %row = arith.muli %by, %c64 : index
  %s = tirx.alloc : !tirx.buffer<64x64xf16, shared>
  %a = tirx.slice %A[%row, %c64] [64, 64] : !tirx.buffer<256x256xf16, global> -> !tirx.buffer<64x64xf16, global>
  // expected-error@+1 {{rank 0 multicasts to rank 1 (0b11) but rank 1's mask is 0b110}}
  tirx.copy_async cta %s, %a dispatch "tma_auto" config {cta_mask = array<i64: 3, 6, 12, 12>} : !tirx.buffer<64x64xf16, shared>, !tirx.buffer<64x64xf16, global>
  tirx.copy cta %O, %s : !tirx.buffer<64x64xf16, global>, !tirx.buffer<64x64xf16, shared>
  tirx.return
}

// -----

// The rows of a 2x2 cluster multicast a tile that differs along the row (it depends on x).
tirx.kernel @k(%A: !tirx.buffer<256x256xf16, global>) -> (%O: !tirx.buffer<64x64xf16, global>)
    grid [2, 2] threads [128] cluster [2, 2] target "cuda -arch=sm_90a" {
  %bx = tirx.cta_id x : index
  %by = tirx.cta_id y : index
  %c64 = arith.constant 64 : index
  %row = arith.muli %bx, %c64 : index
  %s = tirx.alloc : !tirx.buffer<64x64xf16, shared>
  %a = tirx.slice %A[%row, %c64] [64, 64] : !tirx.buffer<256x256xf16, global> -> !tirx.buffer<64x64xf16, global>
  // expected-error@+1 {{the global tile differs between the CTAs of a multicast group}}
  tirx.copy_async cta %s, %a dispatch "tma_auto" config {cta_mask = array<i64: 3, 3, 12, 12>} : !tirx.buffer<64x64xf16, shared>, !tirx.buffer<64x64xf16, global>
  tirx.copy cta %O, %s : !tirx.buffer<64x64xf16, global>, !tirx.buffer<64x64xf16, shared>
  tirx.return
}

// -----

// A 16-row box shared by 4 CTAs: 4-row slices are not whole 8-row swizzle atoms.
tirx.kernel @k(%A: !tirx.buffer<256x256xf16, global>) -> (%O: !tirx.buffer<16x64xf16, global>)
    grid [4] threads [128] cluster [4] target "cuda -arch=sm_90a" {
  %bx = tirx.cta_id x : index
  %by = tirx.cta_id y : index
  %c64 = arith.constant 64 : index
  %row = arith.muli %by, %c64 : index
  %s = tirx.alloc : !tirx.buffer<16x64xf16, shared>
  %a = tirx.slice %A[%row, %c64] [16, 64] : !tirx.buffer<256x256xf16, global> -> !tirx.buffer<16x64xf16, global>
  // expected-error@+1 {{16 rows do not cut into 4 slices of whole 8-row atoms}}
  tirx.copy_async cta %s, %a dispatch "tma_auto" config {cta_mask = 15} : !tirx.buffer<16x64xf16, shared>, !tirx.buffer<16x64xf16, global>
  tirx.copy cta %O, %s : !tirx.buffer<16x64xf16, global>, !tirx.buffer<16x64xf16, shared>
  tirx.return
}
