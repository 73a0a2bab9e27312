// RUN: tirx-opt %s --split-input-file -t nki | filecheck %s
// RUN: tirx-opt %s --split-input-file -t nki-legacy | filecheck %s
// Symbol names the printers once looped on forever (their sanitised form starts with `__`),
// non-ASCII names (a readable, stable escape) and names that sanitise alike (two functions).

tirx.kernel @"__import__"(%A: !tirx.buffer<128x512xf32, global>) -> (%B: !tirx.buffer<128x512xf32, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  nki.load %a, %A : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, global>
  nki.store %B, %a : !tirx.buffer<128x512xf32, global>, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.return
}
// CHECK: def v__import__(

// -----

tirx.kernel @"--x"(%A: !tirx.buffer<128x512xf32, global>) -> (%B: !tirx.buffer<128x512xf32, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  nki.load %a, %A : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, global>
  nki.store %B, %a : !tirx.buffer<128x512xf32, global>, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.return
}
// CHECK: def v__x(

// -----

tirx.kernel @"ядро"(%A: !tirx.buffer<128x512xf32, global>) -> (%B: !tirx.buffer<128x512xf32, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  nki.load %a, %A : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, global>
  nki.store %B, %a : !tirx.buffer<128x512xf32, global>, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.return
}
// CHECK: def v_u044f_u0434_u0440_u043e(

// -----

tirx.kernel @"a-b"(%A: !tirx.buffer<128x512xf32, global>) -> (%B: !tirx.buffer<128x512xf32, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  nki.load %a, %A : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, global>
  nki.store %B, %a : !tirx.buffer<128x512xf32, global>, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.return
}

tirx.kernel @a_b(%A: !tirx.buffer<128x512xf32, global>) -> (%B: !tirx.buffer<128x512xf32, global>) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {
  %a = tirx.alloc : !tirx.buffer<128x512xf32, trn.sbuf>
  nki.load %a, %A : !tirx.buffer<128x512xf32, trn.sbuf>, !tirx.buffer<128x512xf32, global>
  nki.store %B, %a : !tirx.buffer<128x512xf32, global>, !tirx.buffer<128x512xf32, trn.sbuf>
  tirx.return
}
// CHECK: def a_b(
// CHECK: def a_b_1(
