"""The ``cuda`` pipeline: tile-level IR -> CUDA-level IR the ``-t cuda`` / ``-t ptx`` printers
emit and the SIMT interpreter runs.

    tirx-opt --pass-pipeline=cuda k.mlir -t ptx
    get_pipeline("cuda", target="cuda -arch=sm_90a").apply(module)

Passes, in order:

0. ``tirx-check-bounds``: slices in bounds in every CTA and loop iteration;
1. ``cuda-default-layout``: every register tile gets a layout over its scope's threads;
2. ``tirx-dispatch``: tile primitives become CUDA-level code (thread ids, physical addresses,
   ``ld``/``st``, registers, barriers);
3. ``cuda-lower-layout``: logical register tiles erased, laid-out buffers flattened;
4. ``cuda-lower-scope-ids``: the core's scope ids (cta_id, warp_id, ...) become CUDA's ids;
5. ``canonicalize``, ``cse``, ``dce``: clean up index arithmetic and dead views;
   ``cuda-split-roles``: a K loop keeping a wgmma group in flight gets one loop per role (the
   consumers' and their drain inside one ``scf.if``);
6. ``cuda-pipeline-k-loop`` (``num_stages`` > 1): loops staging global tiles in shared memory
   become multi-stage cp.async rings, then the cleanup again;
7. ``cuda-allocate-shared``: every shared array a view of the one dynamic arena, reusing bytes
   across barriers, the total checked against the target (the launch's dynamic shared memory);
8. ``cuda-narrow-index``: index arithmetic whose value ranges fit 32 bits computed on i32 (and
   remainders / quotients the ranges decide folded); ``cuda-peel-constants``: the constant part
   of a swizzled offset moved out of the swizzle (one swizzle per thread, immediates per chunk),
   then ``cse``; ``cuda-hoist-invariants``: loop-invariant integer arithmetic moved before its
   loop (out of ``scf.if`` too); ``cuda-strength-reduce``: a loop's ring-slot remainders
   (``(k / BK + s) % stages``) carried as iter_args instead of divided; then the cleanup again.
9. ``cuda-set-max-nreg``: a kernel split by role on sm_90a gives the producer warpgroup's
   registers to the consumers (``setmaxnreg``) and fixes its registers per thread at launch
   (``cuda.max_registers``), for more CTAs per SM.

Options: ``target`` (a cuda target string or tag, default: the kernel's), ``arch`` (shorthand
for ``target="cuda -arch=<arch>"``), ``num_stages`` (the software-pipelining depth of K loops,
default 3; 1 turns it off), ``setmaxnreg`` (default true; false leaves a split kernel's
registers as ptxas allocates them, every warpgroup the same).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # importing xDSL here would cost every `import tirx_mlir`
    from xdsl.passes import ModulePass

OPTIONS = ("target", "arch", "num_stages", "setmaxnreg")


def stage_count(value: Any) -> int:
    """``num_stages`` as an integer of at least 1: a whole number or its decimal text; a bool,
    a fraction or other text is refused (``int()`` would take ``true`` as 1 and ``1.5`` as 1)."""
    if isinstance(value, str) and re.fullmatch(r"[+-]?\d+", value.strip()):
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise ValueError(f"num_stages must be a whole number of at least 1, got {value!r}")
    if value < 1:
        raise ValueError(f"num_stages must be at least 1, got {value}")
    return value


def switch(value: Any, name: str) -> bool:
    """A boolean option: a bool or ``true``/``false`` text (anything else is refused)."""
    if isinstance(value, str) and value.strip().lower() in ("true", "false"):
        return value.strip().lower() == "true"
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be true or false, got {value!r}")
    return value


def cuda_passes(target: str | None = None, arch: str | None = None, num_stages: int = 3,
                setmaxnreg: bool = True, **unknown: Any) -> list[ModulePass]:
    if unknown:
        raise ValueError(f"unknown option(s) of the cuda pipeline: {', '.join(sorted(unknown))}; "
                         f"options: {', '.join(OPTIONS)}")
    if arch is not None:
        if target is not None:
            raise ValueError("give the cuda pipeline either target or arch, not both")
        target = f"cuda -arch={arch}"
    if target is not None:
        from tirx_mlir.target import Target

        if Target(target).kind_name != "cuda":  # a bad string raises its TargetError here
            raise ValueError(f"the cuda pipeline needs a cuda target, got {target!r}")
    from tirx_mlir.transforms.canonicalize import FastCanonicalizePass
    from tirx_mlir.transforms.cse import FastCSEPass
    from tirx_mlir.transforms.dce import FastDCEPass

    from tirx_mlir.backends.cuda.transforms.allocate_shared import CudaAllocateSharedPass
    from tirx_mlir.backends.cuda.transforms.default_layout import CudaDefaultLayoutPass
    from tirx_mlir.backends.cuda.transforms.hoist_invariants import CudaHoistInvariantsPass
    from tirx_mlir.backends.cuda.transforms.lower_layout import CudaLowerLayoutPass
    from tirx_mlir.backends.cuda.transforms.lower_scope_ids import CudaLowerScopeIdsPass
    from tirx_mlir.backends.cuda.transforms.narrow_index import CudaNarrowIndexPass
    from tirx_mlir.backends.cuda.transforms.peel_constants import CudaPeelConstantsPass
    from tirx_mlir.backends.cuda.transforms.pipeline_k_loop import PipelineKLoopPass
    from tirx_mlir.backends.cuda.transforms.set_max_nreg import CudaSetMaxNRegPass
    from tirx_mlir.backends.cuda.transforms.split_roles import CudaSplitRolesPass
    from tirx_mlir.backends.cuda.transforms.strength_reduce import CudaStrengthReducePass
    from tirx_mlir.transforms.check_bounds import CheckBoundsPass
    from tirx_mlir.transforms.tile_dispatch import TileDispatchPass

    num_stages = stage_count(num_stages)
    setmaxnreg = switch(setmaxnreg, "setmaxnreg")
    passes: list[ModulePass] = [
        CheckBoundsPass(), CudaDefaultLayoutPass(target=target), TileDispatchPass(target=target),
        CudaLowerLayoutPass(), CudaLowerScopeIdsPass(),
        FastCanonicalizePass(), FastCSEPass(), FastDCEPass(), CudaSplitRolesPass()]
    if num_stages > 1:
        passes += [PipelineKLoopPass(num_stages=num_stages), FastCanonicalizePass(),
                   FastCSEPass(), FastDCEPass()]
    return passes + [CudaAllocateSharedPass(target=target), CudaNarrowIndexPass(),
                     CudaPeelConstantsPass(), FastCSEPass(),
                     CudaHoistInvariantsPass(), CudaStrengthReducePass(), FastCanonicalizePass(),
                     FastCSEPass(), FastDCEPass(),
                     CudaSetMaxNRegPass(target=target, enabled=setmaxnreg)]


def register_cuda_pipeline() -> None:
    from tirx_mlir.pipelines import register_pipeline

    register_pipeline("cuda", cuda_passes,
                      doc="CUDA: register layouts, tile dispatch to cuda/ptx ops, layout "
                          "lowering, cleanup, shared-memory planning", tile_level_only=True)
