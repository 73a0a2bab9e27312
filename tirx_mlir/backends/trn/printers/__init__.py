"""NKI printers: ``-t nki`` (current ``import nki`` API, NKI 0.3 - 0.6) and ``-t nki-legacy``
(``neuronxcc.nki``, the form TIRx emits for trn1).

    tirx-opt kernel.mlir --pass-pipeline=trn -t nki
    text = emit_nki(module)                   # or emit_nki(module, api="legacy")

Contract (what the printers accept, i.e. what the trn pipeline produces): a module of
``tirx.kernel`` ops whose bodies hold only

* ``tirx.alloc`` of trn.sbuf / trn.psum (partition dim first) or global scratch, optionally with
  a ``trn.addr`` integer attribute (byte offset in each partition, from the allocator);
* views: ``tirx.slice`` (offsets affine in loop variables and CTA ids), ``tirx.transpose``,
  ``tirx.reshape``; they print as subscripts where used;
* ``scf.for`` without iter_args (``trn.loop`` = "sequential" | "affine" | "static" picks the
  NKI loop kind) and ``scf.if`` without results;
* ``arith`` on index/integer/float scalars and ``tirx.cta_id`` (``nl.program_id``), printed as
  Python expressions where used;
* nki ops, and the final ``tirx.return``.

Anything else is a `TirxError` (code ``nki-print``) that names the op. Symbol and value names
are sanitized into fresh Python identifiers, and every attribute string (ALU operators,
activation functions, engines, comparisons, loop kinds, dtypes, memory scopes) is printed only
from a closed table, integers only inside the signed 64-bit range and ``trn.addr`` only inside
its memory, so IR cannot inject text even when it skipped verification. The emitted source
is valid Python and, by default, is checked against the signature table (signatures.py) before
it is returned; a mismatch would be a printer bug and raises.

Modules: ``emitter`` (the NKI frame on the core's `tirx_mlir.printers.SourcePrinter`: loops,
allocation, the closed tables, the common ops),
``current`` and ``legacy`` (the two generations), ``signatures`` + ``check`` (the table and the
AST checker), ``targets`` (the xDSL ``-t`` targets).
"""

from __future__ import annotations

from typing import Any


def emit_nki(module: Any, api: str = "current", check: bool = True) -> str:
    """NKI Python for ``module`` (api: 'current' for ``-t nki``, 'legacy' for ``-t
    nki-legacy``)."""
    from tirx_mlir.backends.trn.printers.targets import emit

    return emit(module, api, check)
