"""Named pass pipelines.

A pipeline is a named list of configured pass instances, built by a factory that takes options:

    register_pipeline("trn", lambda **opts: [TrnPrivateAlloc(), TileDispatchPass(**opts), ...])
    get_pipeline("trn", target="aws/trn1/trn1.2xlarge").apply(module)

``tirx-opt --pass-pipeline=NAME{opt=val}`` runs one; ``--print-pipeline=NAME`` prints the
equivalent ``-p`` list (`Pipeline.spec`), so any run can be replayed pass by pass.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Sequence

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from tirx_mlir import registry


@dataclass(frozen=True)
class PipelineEntry:
    factory: Callable[..., Sequence[ModulePass]]
    doc: str = ""


pipelines: registry.Registry[PipelineEntry] = registry.Registry("pipeline")


def register_pipeline(name: str, factory: Callable[..., Sequence[ModulePass]], *, doc: str = "",
                      override: bool = False) -> None:
    """Register ``factory(**options) -> [pass instances]`` under ``name``."""
    pipelines.register(name, PipelineEntry(factory, doc), override=override)


def list_pipelines() -> dict[str, str]:
    """``{name: one-line description}``."""
    return {name: entry.doc for name, entry in sorted(pipelines.items())}


@dataclass
class Pipeline:
    """A configured pipeline: an ordered list of pass instances."""

    name: str
    passes: list[ModulePass] = field(default_factory=list)

    def spec(self) -> str:
        """The equivalent ``tirx-opt -p`` string."""
        return ",".join(str(p.pipeline_pass_spec()) for p in self.passes)

    def apply(self, module: ModuleOp, ctx: Context | None = None, *, verify: bool = True,
              callback: Callable[[ModulePass, ModuleOp], None] | None = None) -> ModuleOp:
        """Run every pass on ``module`` in place; ``callback(pass, module)`` after each one
        (to inspect the IR between passes). Verifies after each pass unless ``verify=False``."""
        if ctx is None:
            from tirx_mlir.context import make_context

            ctx = make_context()
        for p in self.passes:
            p.apply(ctx, module)
            if verify:
                module.verify()
            if callback is not None:
                callback(p, module)
        return module

    def snapshots(self, module: ModuleOp, ctx: Context | None = None) -> list[tuple[str, ModuleOp]]:
        """Run on a clone and return ``[(pass name, IR after it)]``, starting with ("input", ...)."""
        work = module.clone()
        shots = [("input", work.clone())]
        self.apply(work, ctx, callback=lambda p, m: shots.append((p.name, m.clone())))
        return shots


def get_pipeline(name: str, **options: Any) -> Pipeline:
    """Build the registered pipeline ``name`` with ``options`` (unknown names list candidates)."""
    entry = pipelines.lookup(name)
    return Pipeline(name, list(entry.factory(**options)))


def split_pipeline_ref(text: str) -> tuple[str, dict[str, Any]]:
    """``"trn{target=aws/trn1/trn1.2xlarge}"`` -> ("trn", {"target": "aws/trn1/trn1.2xlarge"})."""
    from xdsl.utils.arg_spec import parse_spec

    spec = parse_spec(text)
    options: dict[str, Any] = {}
    for key, values in spec.args.items():
        options[key.replace("-", "_")] = values[0] if len(values) == 1 else \
            (None if not values else tuple(values))
    return spec.name, options


def _cleanup_passes(**_: Any) -> list[ModulePass]:
    from xdsl.transforms.canonicalize import CanonicalizePass
    from xdsl.transforms.common_subexpression_elimination import CommonSubexpressionElimination
    from xdsl.transforms.dead_code_elimination import DeadCodeElimination

    return [CanonicalizePass(), CommonSubexpressionElimination(), DeadCodeElimination()]


registry.passes  # noqa: B018 - the pass registry lives in registry.py
register_pipeline("cleanup", _cleanup_passes, doc="target-neutral cleanups: canonicalize, cse, dce")
