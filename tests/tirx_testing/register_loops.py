"""A kernel of register loops for the PTX printer's tests (test_direct_loops.py,
test_expansion_plan.py): every decision of the print-time expansion and every question the
printer asks of the expanded program, in 3 loops."""

# Nested loops (the inner expanded first, its records cloned by the outer) with: an index
# folded through a multiply by one, an add of a constant reassociated onto an nsw add
# ((base + k) + 1 -> base + (k + 1): the global address's immediate), an andi of constants
# (xDSL's folder), a divui that stays (the folder leaves it), a float constant shared by
# the iterations, a local array at non-constant indices (.local), one at constant indices
# (registers); a sibling loop sharing the constants, with a load stored straight back to its
# element (nothing printed), a division by a constant made per iteration (the multiply-high
# sequence), and global and local addresses without a narrow index.
KERNEL = """
tirx.kernel @direct(%X: !tirx.buffer<1024xf32, global>) -> (%Y: !tirx.buffer<1024xf32, global>)
    grid [1] threads [128] target "cuda -arch=sm_80" {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1 : i32
  %eight = arith.constant 8 : i32
  %t = cuda.thread_idx x : index
  %t32 = arith.index_cast %t : index to i32
  %base = arith.muli %t32, %eight overflow<nsw> : i32
  %acc = tirx.alloc : !tirx.buffer<16xf32, local>
  %spill = tirx.alloc : !tirx.buffer<256xf32, local>
  %regs = tirx.alloc : !tirx.buffer<4xf32, local>
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c2 step %c1 {
      %i2 = arith.muli %i, %c2 : index
      %k = arith.addi %i2, %j : index
      %k1 = arith.muli %k, %c1 : index
      %h = arith.divui %k1, %c2 : index
      %k32 = arith.index_cast %k1 : index to i32
      %g0 = arith.addi %base, %k32 overflow<nsw> : i32
      %g1 = arith.addi %g0, %one overflow<nsw> : i32
      %gi = arith.index_cast %g1 : i32 to index
      %x = cuda.load %X, %gi : !tirx.buffer<1024xf32, global>, index -> f32
      %two = arith.constant 2.0 : f32
      %y = arith.mulf %x, %two : f32
      cuda.store %acc, %k1, %y : !tirx.buffer<16xf32, local>, index, f32
      %h8 = arith.addi %h, %c8 : index
      cuda.store %acc, %h8, %x : !tirx.buffer<16xf32, local>, index, f32
      %odd = arith.andi %k1, %c1 : index
      %r0 = cuda.load %regs, %odd : !tirx.buffer<4xf32, local>, index -> f32
      %r1 = arith.addf %r0, %y : f32
      cuda.store %regs, %odd, %r1 : !tirx.buffer<4xf32, local>, index, f32
      scf.yield
    } {cuda.unroll}
    scf.yield
  } {cuda.unroll}
  scf.for %i = %c0 to %c4 step %c1 {
    %v = cuda.load %regs, %i : !tirx.buffer<4xf32, local>, index -> f32
    cuda.store %regs, %i, %v : !tirx.buffer<4xf32, local>, index, f32
    %w = cuda.load %acc, %i : !tirx.buffer<16xf32, local>, index -> f32
    %d = arith.addi %i, %c1 : index
    %q = arith.divui %t, %d : index
    %s = arith.addi %t, %i : index
    cuda.store %spill, %s, %w : !tirx.buffer<256xf32, local>, index, f32
    %r = cuda.load %spill, %q : !tirx.buffer<256xf32, local>, index -> f32
    %o = arith.addi %q, %i : index
    cuda.store %Y, %o, %r : !tirx.buffer<1024xf32, global>, index, f32
    scf.yield
  } {cuda.unroll}
  tirx.return
}
"""
