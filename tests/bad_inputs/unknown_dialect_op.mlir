// EXPECT-ERROR: no dialect 'frob' is registered
"frob.tensor_copy"() : () -> ()
