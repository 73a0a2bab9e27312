"""``tirx_mlir.compile``: from a kernel to an `Artifact` in one call, through the disk cache.

    art = tirx_mlir.compile("examples/trn/add.mlir")                   # target from the kernel
    art = tirx_mlir.compile(module, target="aws/trn2/trn2.48xlarge", max_inst_size=1024)
    art = tirx_mlir.compile(k.module, pipeline="canonicalize,cse")    # a spec, a name, a Pipeline

Steps: parse (IR text or a path) or clone (a module, a ``tirx.kernel`` op, a
``tirx_mlir.script`` kernel builder) the input, so the caller's IR is never changed; verify;
resolve the target (``target=``, else the kernels'); choose the pipeline: ``pipeline=None``
takes the pipeline named like the target kind when one is registered (``trn`` -> the ``trn``
pipeline, ``cuda`` -> the ``cuda`` pipeline, given ``target`` and the other ``**options``),
else none, because the IR is already at the level the printers take; so is a module without
tile primitives whose kind's pipeline only lowers them (``tile_level_only``: a CUDA kernel
written with the cuda/ptx ops), compiled as it is; look the compile up in the cache; otherwise run the pipeline and the kind's `Toolchain`
(sources, binary, statistics) and store the result.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from tirx_mlir.diagnostics import TirxError
from tirx_mlir.runtime.artifact import Artifact
from tirx_mlir.runtime.cache import CompileCache, Entry, cache_enabled, compile_key
from tirx_mlir.runtime.toolchain import Build, toolchain_for

if TYPE_CHECKING:
    from xdsl.dialects.builtin import ModuleOp

    from tirx_mlir.pipelines import Pipeline
    from tirx_mlir.target import Target

NO_PIPELINE = ("", "none")


def compile(module_or_kernel: Any, target: "Target | str | None" = None,  # noqa: A001
            pipeline: "Pipeline | str | None" = None, *, source: str | None = None,
            cache: "bool | str | os.PathLike | None" = None, **options: Any) -> Artifact:
    """Compile a module (or IR text, a path, a kernel op, a script kernel) for ``target``.

    ``pipeline``: None (from the target kind), a registered name, a pass spec
    (``"canonicalize,cse"``), a `Pipeline`, or ``"none"``. ``options`` go to the named pipeline.
    ``source`` picks the primary printer (e.g. ``"nki-legacy"``). ``cache``: None (on unless
    ``TIRX_MLIR_CACHE=0``), False, True, or a directory.
    """
    from tirx_mlir.interpreter.launch import verify_module
    from tirx_mlir.located_parser import as_module
    from tirx_mlir.pipelines import is_tile_level_only

    module = as_module(module_or_kernel, "compile")
    verify_module(module)
    tgt, target_option = resolve_target(module, target)
    if pipeline is None and not options and is_tile_level_only(tgt.kind_name) and \
            not _has_tile_ops(module):
        pipeline = "none"
    pipe = resolve_pipeline(pipeline, tgt, target_option, options)
    toolchain = toolchain_for(tgt.kind_name)
    spec = pipe.spec() if pipe is not None else ""
    store = _cache(cache)
    key = compile_key({"ir": str(module), "target": str(tgt), "pipeline": spec,
                       "options": {k: repr(v) for k, v in sorted(options.items())},
                       "source": source, "tools": toolchain.versions()}) if store else None
    entry = store.load(key) if store is not None else None
    if entry is not None:
        build = Build(entry.sources, entry.binary, entry.meta.get("stats", {}),
                      list(entry.meta.get("notes", [])), entry.meta.get("primary"),
                      dict(entry.meta.get("failed", {})))
        return Artifact(ir=module, lowered_text=entry.lowered, target=tgt, pipeline=spec,
                        build=build, toolchain=toolchain, key=key, cache_hit=True)
    lowered = module.clone()
    if pipe is not None:
        apply_located(pipe, lowered)
        tgt = bound_target(lowered, tgt)
    build = toolchain.build(lowered, tgt, source)
    lowered_text = str(lowered)
    if store is not None:
        problem = store.store(key, Entry(lowered_text, build.sources, build.binary,
                                         {"stats": build.stats, "notes": build.notes,
                                          "primary": build.primary, "failed": build.failed,
                                          "target": str(tgt), "pipeline": spec}))
        if problem:
            build.notes.append(problem)
    return Artifact(ir=module, lowered_text=lowered_text, target=tgt, pipeline=spec, build=build,
                    toolchain=toolchain, key=key, cache_hit=False, lowered=lowered)


def _cache(cache: "bool | str | os.PathLike | None") -> CompileCache | None:
    if cache is None:
        return CompileCache() if cache_enabled() else None
    if cache is False:
        return None
    return CompileCache() if cache is True else CompileCache(cache)


def resolve_target(module: "ModuleOp", target: "Target | str | None") -> tuple["Target", Any]:
    """The Target, and the value to pass as the pipeline's ``target`` option (None: the
    kernels' own)."""
    from tirx_mlir.dialects.tirx.kernel import kernels
    from tirx_mlir.target import Target, TargetError, target_of

    found = kernels(module)
    if not found:
        raise TirxError("compile: the module has no tirx.kernel", module)
    try:
        if target is not None:
            return Target(target), str(target) if not isinstance(target, Target) else str(target)
        tgt = target_of(found[0])
    except TargetError as err:
        raise TirxError(f"compile: {err}", found[0]) from None
    if tgt is None:
        raise TirxError(f"compile: kernel @{found[0].kernel_name} has no target", found[0],
                        hint="pass target=... or add `target \"...\"` to the kernel")
    return tgt, None


def apply_located(pipe: "Pipeline", module: "ModuleOp") -> None:
    """Run ``pipe`` on ``module``; IR that does not verify after a pass is a `TirxError` at the
    first op that fails (as ``tirx-opt`` reports it), not xDSL's bare VerifyException: e.g.
    ``arch=sm_70`` bound to a kernel whose ops need sm_75, or ``arch=`` of a GPU with less shared
    memory than the kernel's views reach."""
    from xdsl.utils.exceptions import VerifyException

    try:
        pipe.apply(module)
    except VerifyException as err:
        from tirx_mlir.dialects.tirx.kernel import kernels

        bad = next((op for op in module.walk() if not _verifies(op)), None) or \
            next(iter(kernels(module)), None)  # e.g. a dominance-only failure: the kernel
        located = TirxError(str(err).removeprefix("Operation does not verify: "), bad)
        located.__notes__ = [n for n in getattr(err, "__notes__", []) if n.startswith("in pass")]
        raise located from None


def _verifies(op) -> bool:
    from xdsl.utils.exceptions import VerifyException

    try:
        op.verify(verify_nested_ops=False)
    except VerifyException:
        return False
    return True


def bound_target(lowered: "ModuleOp", target: "Target") -> "Target":
    """The target the pipeline left on the lowered kernels (an option such as ``arch=`` binds
    one), else ``target``: the toolchain builds for what the code was lowered for (with the
    kernel's own, ``arch=sm_90a`` on an sm_80 kernel printed ``.target sm_90a`` and ptxas ran
    with ``-arch=sm_80``)."""
    from tirx_mlir.dialects.tirx.kernel import kernels
    from tirx_mlir.target import TargetError, target_of

    found = kernels(lowered)
    try:
        bound = target_of(found[0]) if found else None
    except TargetError:
        return target
    return target if bound is None else bound


def _has_tile_ops(module) -> bool:
    from tirx_mlir.dialects.tirx.tile_base import TileOp

    return any(isinstance(op, TileOp) for op in module.walk())


def resolve_pipeline(pipeline: Any, target: "Target", target_option: Any,
                     options: dict[str, Any]) -> "Pipeline | None":
    from tirx_mlir.pipelines import Pipeline, get_pipeline, list_pipelines, pipeline_options

    if isinstance(pipeline, Pipeline):
        return _no_options(pipeline, options)
    if pipeline is None:
        if target.kind_name not in list_pipelines():
            if options:
                raise TirxError(f"compile: options {', '.join(sorted(options))} given, but "
                                f"target kind '{target.kind_name}' has no pipeline to take them",
                                hint="its IR is compiled as it is (no pipeline)")
            return None
        pipeline = target.kind_name
    if not isinstance(pipeline, str):
        raise TirxError(f"compile: pipeline= takes a name, a pass spec or a Pipeline, not "
                        f"{type(pipeline).__name__}")
    if pipeline.strip().lower() in NO_PIPELINE:
        return _no_options(None, options)
    if pipeline in list_pipelines():
        opts = dict(options)
        if target_option is not None and "target" in pipeline_options(pipeline):
            opts.setdefault("target", target_option)
        return get_pipeline(pipeline, **opts)
    return _no_options(Pipeline.parse(pipeline), options)


def _no_options(pipe: "Pipeline | None", options: dict[str, Any]) -> "Pipeline | None":
    if options:
        raise TirxError(f"compile: options {', '.join(sorted(options))} only go to a named "
                        f"pipeline", hint="put pass options in the spec: 'pass{opt=value}'")
    return pipe
