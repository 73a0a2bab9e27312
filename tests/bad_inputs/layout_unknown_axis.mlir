// EXPECT-ERROR: unknown layout axis 'lane'
%0 = "test.op"() : () -> !tirx.buffer<32xf32, local, S[(32):(1@lane)]>
