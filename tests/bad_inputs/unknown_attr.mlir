// EXPECT-ERROR: unknown type or attribute 'tirx.layut'
"test.op"() {l = #tirx.layut<S[8]>} : () -> ()
