"""The PTX `Language` record for the printer base: PTX has no expression syntax, so its operator
table is empty (every arith op is an instruction, arith.py); its reserved words are the names
the printer itself declares."""

from tirx_mlir.printers.operators import Language, OperatorTable

PTX_OPERATORS = OperatorTable(language="PTX", ops={}, boolean={}, true="1", false="0",
                              nan="0f7FFFFFFF", inf="0f7F800000")
PTX = Language("PTX", PTX_OPERATORS, frozenset(), indent=4)
