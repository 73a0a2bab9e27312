"""Command-line tools: ``tirx-opt`` (tirx_opt.py), ``tirx-run`` (tirx_run.py) and ``tirx-layout``
(tirx_layout.py, drawing layouts with layout_view.py); ``python -m tirx_mlir TOOL`` (launcher.py).

``tirx-opt`` is xDSL's ``xDSLOptMain`` with everything registered lazily from
`tirx_mlir.registry` (dialects, passes, printers) and named pipelines from
`tirx_mlir.pipelines`. Its helpers: `diagnostics_cli` (located ``file:line:col: error:``
reports, never a traceback), `reproducer` (crash reproducers and their replay), `timing`
(``--mlir-timing``), `ir_printing` (``--mlir-print-ir-*``, ``--diff-passes``), `listings`
(``--list-passes`` grouped by owner), and `xdsl_universe` (the ``xdsl.universe`` entry point
that lets plain ``xdsl-opt`` read tirx IR). ``tirx-run`` reads and writes arrays with
`npy_input` / `npy_output` (bf16/fp8 under their ml_dtypes names).

Each tool module installs `dataclass_cache` (the compiled methods of xDSL's and our dataclasses
kept on disk between runs: about half of a tool's start-up CPU time otherwise) before it
imports xDSL, and
`lazy_packages` (xDSL's ``xdsl.dialects.utils`` importing only the modules whose names are read);
importing this package does not (plain ``xdsl-opt`` imports it through `xdsl_universe`).
"""
