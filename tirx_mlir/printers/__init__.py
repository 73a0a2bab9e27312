"""The source-printer base every backend's ``-t`` printers build on.

* `source_printer.SourcePrinter` (on xDSL's ``BasePrinter``): output and indentation, one
  ``emit_<dialect>_<op>`` method per op with a located `PrintError` for any other op, views and
  scalar ``arith`` inlined where used, closed tables for every attribute string that reaches the
  output, bounded integer literals;
* `operators`: how scalar arith prints per language, stated once (``PYTHON``: ``//`` and ``%``
  floor; ``C`` / ``CPP``: ``/`` and ``%`` truncate toward zero), with the `Language` records;
* `naming`: IR names made into safe, unique identifiers.

A printer for a new language subclasses `SourcePrinter` with its `Language` (docs/backends.md
names each backend's printers; the first backend's are the worked example).
"""

from tirx_mlir.printers.naming import Namer, sanitize
from tirx_mlir.printers.operators import (C, C_OPERATORS, CPP, PYTHON, PYTHON_OPERATORS,
                                          Language, OperatorTable, Spelling)
from tirx_mlir.printers.source_printer import PrintError, SourcePrinter

__all__ = ["C", "CPP", "C_OPERATORS", "Language", "Namer", "OperatorTable", "PYTHON",
           "PYTHON_OPERATORS", "PrintError", "SourcePrinter", "Spelling", "sanitize"]
