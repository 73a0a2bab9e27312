// EXPECT-ERROR: Unbalanced ']'
%0 = "test.op"() : () -> !tirx.buffer<128x512xf32, trn.sbuf, S[(128,512:(1@P,1@F)]>
