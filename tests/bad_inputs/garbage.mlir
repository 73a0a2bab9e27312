// EXPECT-ERROR: identifier expected
@@@ ### !!! this is not MLIR at all ::: <<<
