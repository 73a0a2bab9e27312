"""The CUDA backend: the ``cuda`` target kind, the NVIDIA tags, the ``cuda`` device detector,
CUDA's memory scopes, the ``cuda``, ``ptx`` and ``nvshmem`` dialects and the ``-t cuda`` (CUDA C++)
and ``-t ptx`` printers.

`register_backend()` is the one place that registers what the backend provides: the target
description (target_tags.py), a real device probe through the CUDA driver API (detect.py), the
tensor-memory scope and its axes (memory.py), the dialects (dialects/cuda/, dialects/ptx/,
dialects/nvshmem/), their script namespaces ``Tx.cuda``, ``Tx.ptx``, ``Tx.nvshmem``
(script.py), the printers (printers/cuda_cpp/, printers/ptx/) and the SIMT interpreter
of CUDA-level kernels (interpreter/, a kernel executor), the runtime device (runtime/), the
tile-dispatch variants (dispatch/), the passes (transforms/) and the ``cuda`` pipeline
(pipeline.py), all registered as factories so ``import tirx_mlir`` imports none of them.
"""

from __future__ import annotations

BACKEND_NAME = "cuda"
_PKG = "tirx_mlir.backends.cuda"


def detect_cuda_target(device):
    """The ``cuda`` device detector (imports the driver-API probe only when used)."""
    from tirx_mlir.backends.cuda.detect import detect_cuda_target as probe

    return probe(device)


def register_backend() -> None:
    """Register the cuda kind, its tags, the ``cuda`` device detector, CUDA's memory scopes and
    the ``cuda``, ``ptx`` and ``nvshmem`` dialects and the ``-t cuda`` / ``-t ptx`` printers
    (imported on first use)."""
    from tirx_mlir import registry
    from tirx_mlir.registry import Lazy
    from tirx_mlir.backends.cuda.memory import register_cuda_memory
    from tirx_mlir.backends.cuda.runtime import register_cuda_runtime
    from tirx_mlir.backends.cuda.script import NAMESPACES  # imports no xDSL: made on use
    from tirx_mlir.backends.cuda.target_tags import register_cuda_target
    from tirx_mlir.target import register_device_target_detector

    register_cuda_target()
    register_device_target_detector("cuda", detect_cuda_target)
    register_cuda_memory()
    registry.register_dialect("cuda", Lazy(f"{_PKG}.dialects.cuda", "CUDA"))
    registry.register_dialect("ptx", Lazy(f"{_PKG}.dialects.ptx", "PTX"))
    registry.register_dialect("nvshmem", Lazy(f"{_PKG}.dialects.nvshmem", "NVSHMEM"))
    registry.register_printer("cuda", Lazy(f"{_PKG}.printers.cuda_cpp", "CudaTarget"))
    registry.register_printer("ptx", Lazy(f"{_PKG}.printers.ptx.target", "PtxTarget"))
    registry.register_kernel_executor("cuda-simt", ("cuda", "ptx", "nvshmem"),
                                      Lazy(f"{_PKG}.interpreter.executor", "run_kernel"),
                                      configure=Lazy(f"{_PKG}.interpreter.executor", "configure"),
                                      outputs_per_pe=Lazy(f"{_PKG}.interpreter.executor",
                                                          "outputs_per_pe"),
                                      report=Lazy(f"{_PKG}.interpreter.executor", "stats_report"))
    register_cuda_runtime()
    for name, namespace in NAMESPACES.items():  # Tx.cuda, Tx.ptx, Tx.nvshmem
        registry.register_script_namespace(name, namespace)
    _register_lowering(registry)


CUDA_PASSES = {
    "cuda-default-layout": ("default_layout", "CudaDefaultLayoutPass"),
    "cuda-lower-layout": ("lower_layout", "CudaLowerLayoutPass"),
    "cuda-lower-scope-ids": ("lower_scope_ids", "CudaLowerScopeIdsPass"),
    "cuda-allocate-shared": ("allocate_shared", "CudaAllocateSharedPass"),
    "cuda-pipeline-k-loop": ("pipeline_k_loop", "PipelineKLoopPass"),
    "cuda-narrow-index": ("narrow_index", "CudaNarrowIndexPass"),
    "cuda-hoist-invariants": ("hoist_invariants", "CudaHoistInvariantsPass"),
    "cuda-strength-reduce": ("strength_reduce", "CudaStrengthReducePass"),
    "cuda-peel-constants": ("peel_constants", "CudaPeelConstantsPass"),
    "cuda-split-roles": ("split_roles", "CudaSplitRolesPass"),
    "cuda-set-max-nreg": ("set_max_nreg", "CudaSetMaxNRegPass"),
}
"""pass name -> (module under transforms/, class)."""


def _register_lowering(registry) -> None:
    """Tile dispatch (variant modules imported on first use), the cuda passes and the
    ``cuda`` pipeline."""
    from tirx_mlir.backends.cuda.dispatch import register_cuda_dispatch
    from tirx_mlir.backends.cuda.pipeline import register_cuda_pipeline
    from tirx_mlir.registry import Lazy

    register_cuda_dispatch()
    for name, (module, cls) in CUDA_PASSES.items():
        registry.register_pass(name, Lazy(f"{_PKG}.transforms.{module}", cls))
    register_cuda_pipeline()
