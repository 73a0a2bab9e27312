// EXPECT-ERROR: got EOF
%0 = "test.op"() : () -> !tirx.buffer<128x
