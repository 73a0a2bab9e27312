// EXPECT-ERROR: unsupported buffer element type
%0 = "test.op"() : () -> !tirx.buffer<16xcomplex<f32>, global>
