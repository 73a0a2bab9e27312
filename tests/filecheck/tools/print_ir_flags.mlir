// mlir-opt's IR-printing flags and tirx-opt's --diff-passes, as a user types them.
// RUN: tirx-opt %s -p cse,dce,cse --mlir-print-ir-after-change -o /dev/null 2>&1 | filecheck %s --check-prefix=CHANGE
// RUN: tirx-opt %s -p cse,dce --diff-passes -o /dev/null 2>&1 | filecheck %s --check-prefix=DIFF
// RUN: cat %s | tirx-opt - -p dce --mlir-print-ir-before=dce --dump-pass-pipeline 2>&1 | filecheck %s --check-prefix=STDIN

// CHANGE:     // -----// IR Dump After cse //----- //
// CHANGE:     %c0 = arith.constant 0 : index
// CHANGE-NOT: %c1
// CHANGE:     // -----// IR Dump After dce //----- //
// CHANGE-NOT: IR Dump

// DIFF:      --- before cse
// DIFF-NEXT: +++ after cse
// DIFF:      -    %c1 = arith.constant 0 : index
// DIFF-NEXT: -    %dead = arith.addi %c0, %c1 : index
// DIFF:      --- before dce
// DIFF-NEXT: +++ after dce
// DIFF:      -    %c0 = arith.constant 0 : index

// STDIN:      Pass Manager with 1 passes:
// STDIN-NEXT: builtin.module(dce)
// STDIN:      // -----// IR Dump Before dce //----- //
// STDIN:      %dead = arith.addi
// STDIN:      tirx.kernel @k
// STDIN-NOT:  %dead
tirx.kernel @k(%A: !tirx.buffer<8xf32, global>) -> (%B: !tirx.buffer<8xf32, global>) grid [1] threads [1] {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 0 : index
  %dead = arith.addi %c0, %c1 : index
  tirx.exp %B, %A : !tirx.buffer<8xf32, global>, !tirx.buffer<8xf32, global>
  tirx.return
}
