"""What every tile primitive shares: exec scope, forced dispatch variant, config, and syntax.

Custom form (one grammar for all 31 primitives)::

    tirx.<op> <scope>? <operands> (<keyword> <value>)* (dispatch "<variant>")?
              (config {k = v})? attr-dict? region? : <operand types>

* ``<scope>`` is one of cluster, cta, warpgroup, warp, thread (default thread, omitted).
* optional operands and op-specific properties are written as ``keyword value``:
  flags as a bare keyword (``accum``), integer lists as ``axes [-1]``, floats as ``alpha 2.0``,
  names as ``reduce sum``, the select predicate as ``where (d0, d1) : (d1 - d0 - 1 >= 0)``.
* operands are buffers (``!tirx.buffer``) or scalars (index, integer or float SSA values).

The operand/keyword grammar is `op_syntax.KeywordOp`'s; this base adds the exec-scope head and
the ``dispatch``/``config`` tail. A subclass declares its operands with ``operand_def``/
``opt_operand_def`` (positional operands first, in order), its properties with ``prop_def``/
``opt_prop_def`` and their syntax kinds in ``KEYWORDS``, lists which operands it writes in
``DSTS``, and states its rules in ``verify_tile``.
"""

from __future__ import annotations

from typing import ClassVar, Sequence

from xdsl.dialects.builtin import DictionaryAttr, IndexType, IntegerType, StringAttr
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import opt_prop_def, prop_def
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from tirx_mlir.dialects.tirx import dtypes, rules
from tirx_mlir.dialects.tirx.attributes import BufferType, ExecScope, ExecScopeAttr
from tirx_mlir.dialects.tirx.kernel import enclosing_kernel
from tirx_mlir.dialects.tirx.op_syntax import KeywordOp
from tirx_mlir.type_tests import IsInstance

DISPATCHED_ATTR = "tirx.dispatched"
"""Module attribute set by tile dispatch: from then on a remaining tile op is a verifier error."""


def is_scalar_type(t: Attribute) -> bool:
    return isinstance(t, (IndexType, IntegerType)) or dtypes.is_supported(t) and dtypes.is_float(t)


def operand_shape(value: SSAValue) -> tuple[int, ...] | None:
    """Shape of a buffer operand; None for a scalar."""
    t = value.type
    return t.get_shape() if isinstance(t, BufferType) else None


class TileOp(KeywordOp):
    """Base class of the tile primitives."""

    BUFFER_ONLY: ClassVar[tuple[str, ...]] = ()
    """Operands (besides DSTS) that must be buffers, not scalars."""
    TAIL_KEYWORDS: ClassVar[tuple[str, ...]] = ("dispatch", "config")
    VERIFY_READS: ClassVar[str] = "kernel"
    """`tirx_mlir.verification`: the checks read the op's types and properties, its enclosing
    kernel's launch (threads, cluster) and the top-level module's attributes."""
    VERIFY_FINGERPRINT_LATER: ClassVar[bool] = True
    """`tirx_mlir.verification`: tile dispatch replaces every tile primitive, so the
    verification does not build the fingerprint of one it meets new (a later verification
    comparing it keys it instead)."""

    scope = prop_def(ExecScopeAttr, default_value=ExecScopeAttr(ExecScope.THREAD))
    dispatch = opt_prop_def(StringAttr)
    config = opt_prop_def(DictionaryAttr)

    def __init__(self, *operands: SSAValue | None, scope: ExecScope | str = ExecScope.THREAD,
                 dispatch: str | None = None, config: dict[str, Attribute] | None = None,
                 regions: Sequence = (), **props: object):
        """Operands in declaration order (None for an absent optional one); properties by name
        (Python values are converted: bool -> flag, list[int] -> ints, float, str -> name)."""
        extra: dict[str, Attribute] = {"scope": ExecScopeAttr(ExecScope(scope))}
        if dispatch is not None:
            extra["dispatch"] = StringAttr(dispatch)
        if config:
            extra["config"] = DictionaryAttr(dict(config))
        super().__init__(*operands, regions=regions, extra_properties=extra, **props)

    @property
    def exec_scope(self) -> ExecScope:
        return self.scope.data

    def config_dict(self) -> dict[str, Attribute]:
        return {} if self.config is None else dict(self.config.data)

    # ---- verification ----
    def verify_(self) -> None:
        named = self.named_operands()
        for name, value in named.items():
            t = value.type
            must_be_buffer = name in self.DSTS or name in self.BUFFER_ONLY
            if must_be_buffer and not isinstance(t, BufferType):
                raise VerifyException(f"operand '{name}' must be a !tirx.buffer, got {t}")
            if not isinstance(t, BufferType) and not is_scalar_type(t):
                raise VerifyException(f"operand '{name}' must be a !tirx.buffer or a scalar "
                                      f"(index, integer or float), got {t}")
        self._verify_workspace(named)
        try:
            self.verify_tile()
        except rules.RuleError as err:
            raise VerifyException(str(err)) from None
        self._verify_exec_scope()
        self._verify_not_after_dispatch()

    def verify_tile(self) -> None:
        """Op-specific rules; raise rules.RuleError or VerifyException."""

    def _verify_workspace(self, named: dict[str, SSAValue]) -> None:
        """tile_ops.WORKSPACE_DOC: at most one buffer, none of the op's other operands."""
        workspace = self.variadic_operands().get("workspace", ())
        if len(workspace) > 1:
            raise VerifyException(f"{self.name} takes at most one workspace buffer, got "
                                  f"{len(workspace)}")
        for value in workspace:
            same = [n for n, v in named.items() if v is value]
            if same:
                raise VerifyException(f"the workspace of {self.name} is also its operand "
                                      f"'{same[0]}'; give scratch of its own (the op may "
                                      f"overwrite the workspace)")

    def _verify_exec_scope(self) -> None:
        kernel = enclosing_kernel(self)
        if kernel is None:
            return
        scope = self.exec_scope
        n = kernel.num_threads()
        need = {ExecScope.WARP: 32, ExecScope.WARPGROUP: 128}.get(scope)
        if need is not None and (n < need or n % need):
            raise VerifyException(
                f"a {scope.value}-scope {self.name} needs a multiple of {need} threads per CTA, "
                f"but kernel @{kernel.kernel_name} launches {n}; change `threads` or the scope")
        if scope == ExecScope.CLUSTER and kernel.cluster_dims() is None:
            raise VerifyException(f"a cluster-scope {self.name} needs a cluster launch; add "
                                  f"`cluster [..]` to kernel @{kernel.kernel_name}")

    def _verify_not_after_dispatch(self) -> None:
        module = self.get_toplevel_object()
        if isinstance(module, Operation) and DISPATCHED_ATTR in module.attributes:
            raise VerifyException(
                f"tile primitive {self.name} is left after tile dispatch; no dispatch variant "
                f"lowered it (run tirx-dispatch with a target that implements it)")

    # ---- syntax: the exec-scope head and the dispatch/config tail ----
    @classmethod
    def parse_head(cls, parser: Parser) -> dict[str, Attribute]:
        scope = parser.parse_optional_keyword_in([s.value for s in ExecScope]) or "thread"
        return {"scope": ExecScopeAttr(ExecScope(scope))}

    @classmethod
    def parse_tail_keyword(cls, parser: Parser, kw: str) -> Attribute:
        if kw == "dispatch":
            return StringAttr(parser.parse_str_literal())
        return DictionaryAttr(parser.parse_optional_dictionary_attr_dict())

    def print_head(self, printer: Printer) -> None:
        if self.exec_scope != ExecScope.THREAD:
            printer.print_string(f" {self.exec_scope.value}")

    def print_tail(self, printer: Printer) -> None:
        if self.dispatch is not None:
            printer.print_string(" dispatch ")
            printer.print_string_literal(self.dispatch.data)
        if self.config is not None:
            printer.print_string(" config ")
            printer.print_attr_dict(self.config.data)


is_tile_op = IsInstance(TileOp)
"""``isinstance(op, TileOp)``, answered once per op class (`tirx_mlir.type_tests`)."""
