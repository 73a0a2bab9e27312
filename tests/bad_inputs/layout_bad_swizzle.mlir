// EXPECT-ERROR: needs atom_len >= swizzle_len
%0 = "test.op"() : () -> !tirx.buffer<8x64xf16, shared, swizzle(3,4,3) S[8,64]>
