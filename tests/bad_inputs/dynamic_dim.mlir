// EXPECT-ERROR: static shapes
%0 = "test.op"() : () -> !tirx.buffer<?x16xf32, global>
