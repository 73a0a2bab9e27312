"""Tile dispatch: choosing a backend implementation for each tile primitive.

One package, four modules:

* `registry` — the cases ``(tile op, target kind) -> (variant, priority, predicates, impl)``,
  `register_dispatch`, predicates, `fail`; it imports no xDSL, so a backend registers cheaply;
* `context` — the `DispatchContext` a variant sees (target, exec scope, launch, loops, builder,
  side-effect callbacks);
* `search` — `run_dispatch`: the search by priority and the failure table;
* `builders` — what every backend's variants build with (typed buffers and views, loops,
  divisors, broadcasting alignment, config readers, inserting a tile op).

The registration API is re-exported here; the context, the search and the builders are imported
from their modules (``from tirx_mlir.dispatch.context import DispatchContext``), which need xDSL.
"""

from tirx_mlir.dispatch.registry import (DispatchCase, DispatchFail, Predicate, accepts_guards,
                                         cases_for, exec_scope_in, fail, forced_only,
                                         list_registered_dispatch, no_where, predicate,
                                         register_dispatch, register_dispatch_module)

__all__ = ["DispatchCase", "DispatchFail", "Predicate", "accepts_guards", "cases_for",
           "exec_scope_in", "fail", "forced_only", "list_registered_dispatch", "no_where", "predicate",
           "register_dispatch", "register_dispatch_module"]
