"""What every ``nki`` op shares: operand roles, one custom syntax, and the verifier skeleton.

Custom form (one grammar for all nki ops)::

    nki.<op> <positional operands> (<keyword> <value>)* attr-dict? : <operand types>

* positional operands are tiles (``!tirx.buffer`` values, usually ``tirx.slice`` views) or, where
  NKI takes a scalar, f32/integer SSA values;
* an optional operand is written ``<its name> %value`` (``bias %b``, ``operand1 %c``);
* a property is written ``<its name> <value>``: a flag is a bare keyword (``negate``), a name an
  identifier (``op add``), an integer ``offset 3``, an integer list ``axes [1]``, a float
  ``on_false -inf`` and an access pattern ``pattern [[-1, 128], [1, 4]]``;
* the types of all present operands follow the colon, in declaration order.

The grammar, construction from Python values and the typed property accessors are the core's
`tirx_mlir.dialects.tirx.op_syntax.KeywordOp` (shared with the tile primitives). A subclass
declares operands and properties with IRDL, lists the operands it writes in ``DSTS`` and those
that may be scalars in ``SCALARS``, names the custom-syntax kind of each property in
``KEYWORDS``, and states its hardware rules in ``verify_nki(limits)``.
"""

from __future__ import annotations

from typing import ClassVar

from xdsl.ir import SSAValue
from xdsl.utils.exceptions import VerifyException

from tirx_mlir.backends.trn.dialects.nki import checks
from tirx_mlir.backends.trn.target_tags import TrnLimits
from tirx_mlir.dialects.tirx import rules
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.op_syntax import KeywordOp


class NkiOp(KeywordOp):
    """Base class of the nki ops (one NKI ISA instruction each)."""

    SCALARS: ClassVar[tuple[str, ...]] = ()
    """Operands that may be an SSA scalar instead of a tile."""
    ENGINE: ClassVar[str] = "vector"
    """The engine that runs the instruction (documentation and placement rules)."""
    VERIFY_READS: ClassVar[str] = "views"
    """`tirx_mlir.verification`: the checks read the op's types and properties, its operands'
    views and their allocations, and its target."""
    VERIFY_ALLOC_ATTRS: ClassVar[tuple[str, ...]] = ()
    """`tirx_mlir.verification`: the attributes of an operand's allocation the checks read
    (none; an op whose checks read ``trn.addr`` names it)."""
    VERIFY_OPERAND_VALUES: ClassVar[bool] = False
    """`tirx_mlir.verification`: the checks read neither the value of a constant operand (a
    scalar operand's rules read its type) nor which operands are one value (an instruction may
    read and write one tile)."""
    VERIFY_FINGERPRINT_LATER: ClassVar[bool] = True
    """`tirx_mlir.verification`: trn-lower-layout retypes nearly every nki op that tile
    dispatch made, and the passes after it report what they change, so the verification does
    not build the fingerprint of one it meets new (a later verification comparing it keys it
    instead; a fingerprint of an nki op holds its views' key anyway)."""
    VERIFY_VIEW_FACTS: ClassVar = staticmethod(checks.tile_view_facts)
    """`tirx_mlir.verification`: what the checks read of a tile operand's view beyond its
    buffer's type (the per-tile rules: `checks.tile_view_facts`); an op whose own rules read
    more of its views states its own function."""

    def limits(self) -> TrnLimits:
        return checks.limits_for(self)

    def written_buffers(self) -> list[SSAValue]:
        """The buffers the instruction writes (its ``DSTS``): what the interpreter's launch
        reads to know which kernel inputs a run may change (the others are not copied)."""
        return self.dst_operands()

    # ---- verification ----
    VERIFY_VIEW_RULES: ClassVar[str] = "verify_views"
    """`tirx_mlir.verification`: the method holding every rule of `verify_` that reads the
    operands' views (`verify_views`); the others (operand kinds, `verify_nki`) read only the
    op's types, properties and target, so an op whose types, properties and target are those
    of an op found valid is checked by that method alone."""

    def verify_(self) -> None:
        try:
            limits = checks.limits_for(self)
            for name, value in self.named_operands().items():
                self._verify_operand_kind(name, value)
            self._check_tiles(limits)
            self.verify_nki(limits)
            self.verify_nki_views(limits)
        except rules.RuleError as err:
            raise VerifyException(str(err)) from None  # tools prefix "'<op>' op"

    def verify_views(self) -> None:
        """The rules of `verify_` that read the operands' views: the per-tile rules of each tile
        operand (`checks.check_tile`) and the op's own (`verify_nki_views`)."""
        try:
            limits = checks.limits_for(self)
            self._check_tiles(limits)
            self.verify_nki_views(limits)
        except rules.RuleError as err:
            raise VerifyException(str(err)) from None

    def _check_tiles(self, limits: TrnLimits) -> None:
        """The per-tile rules (`checks.check_tile`) of each tile operand."""
        for name, value in self.named_operands().items():
            if isinstance(value.type, BufferType):
                checks.check_tile(self, name, value, limits)

    def _verify_operand_kind(self, name: str, value: SSAValue) -> None:
        if isinstance(value.type, BufferType):
            return
        if name not in self.SCALARS:
            raise rules.RuleError(f"operand '{name}' must be a tile (!tirx.buffer), got "
                                  f"{value.type}")
        if not checks.is_scalar_type(value.type):
            raise rules.RuleError(f"operand '{name}' must be a tile or an f32/integer scalar, "
                                  f"got {value.type}")

    def verify_nki(self, limits: TrnLimits) -> None:
        """Op-specific hardware rules that read the op's types, properties and ``limits`` only
        (not its operands' views: those go in `verify_nki_views`); raise rules.RuleError."""

    def verify_nki_views(self, limits: TrnLimits) -> None:
        """Op-specific hardware rules that read the operands' views (run after `verify_nki`);
        raise rules.RuleError."""

