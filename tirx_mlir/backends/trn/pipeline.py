"""The ``trn`` pipeline: tile-level IR -> physical NKI-level IR with addresses.

    tirx-opt --pass-pipeline=trn k.mlir -t nki
    get_pipeline("trn", target="aws/trn1/trn1.2xlarge", max_inst_size=1024).apply(module)

Passes, in order:

0. ``tirx-check-bounds``: slices in bounds in every CTA and loop iteration, no division by zero,
   no i64 overflow in index arithmetic, wherever the IR decides it (run again after cleanup, so
   no fold changes what the printed code computes);
1. ``trn-default-layout``: every on-chip buffer gets a Trainium layout (explicit ones are
   checked);
2. ``tirx-dispatch``: tile primitives become ``scf.for`` loops of nki instructions over logical
   views;
3. ``trn-lower-layout``: buffers become physical ``[P, F]`` tiles and views physical views;
4. ``canonicalize``, ``cse``, ``dce``: clean up index arithmetic and dead views (nki ops write
   memory, so nothing that matters is removed);
5. ``trn-allocate``: SBUF/PSUM byte offsets with liveness-based reuse (``trn.addr``).

Options: ``target`` (a trn target string or tag, default: the kernel's), ``max_inst_size``
(free elements per elementwise/copy instruction; default 512 as TIRx, per-op ``config``
overrides it).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # importing xDSL here would cost every `import tirx_mlir` ~0.2 s
    from xdsl.passes import ModulePass


def trn_passes(target: str | None = None, max_inst_size: int | None = None,
               **unknown: Any) -> list[ModulePass]:
    if unknown:
        raise ValueError(f"unknown option(s) of the trn pipeline: {', '.join(sorted(unknown))}; "
                         f"options: target, max_inst_size")
    from tirx_mlir.transforms.canonicalize import FastCanonicalizePass
    from tirx_mlir.transforms.cse import FastCSEPass
    from tirx_mlir.transforms.dce import FastDCEPass

    from tirx_mlir.backends.trn.transforms.allocate import TrnAllocatePass
    from tirx_mlir.backends.trn.transforms.default_layout import TrnDefaultLayoutPass
    from tirx_mlir.backends.trn.transforms.lower_layout import TrnLowerLayoutPass
    from tirx_mlir.transforms.check_bounds import CheckBoundsPass
    from tirx_mlir.transforms.tile_dispatch import TileDispatchPass

    passes: list[ModulePass] = [CheckBoundsPass(), TrnDefaultLayoutPass(target=target)]
    if max_inst_size is not None:  # its module imported only for a pipeline that names it
        from tirx_mlir.backends.trn.transforms.inst_size import TrnMaxInstSizePass

        passes.append(TrnMaxInstSizePass(max_inst_size=int(max_inst_size)))
    passes += [TileDispatchPass(target=target), TrnLowerLayoutPass(target=target),
               FastCanonicalizePass(), FastCSEPass(), FastDCEPass(),
               CheckBoundsPass(), TrnAllocatePass(target=target)]
    return passes


def register_trn_pipeline() -> None:
    from tirx_mlir.pipelines import register_pipeline

    register_pipeline("trn", trn_passes,
                      doc="Trainium: default layouts, tile dispatch to nki, layout lowering, "
                          "cleanup, SBUF/PSUM allocation")
