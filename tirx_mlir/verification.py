"""Verifying a module after every pass, cheaply: each op's own checks run once per distinct input.

MLIR's pass manager verifies the IR after every pass, and so does `Pipeline.apply`; most ops are
unchanged by most passes, so their checks would compute the same answer again. `ModuleVerifier`
keeps that default and makes it cheap: an op class that states what its verifier reads

* ``VERIFY_READS = "local"``: its own operand and result types, properties, attributes and their
  counts (as `irdl`'s generic checks do), the value of each operand an ``arith.constant``
  defines (a slice's constant guard is checked against its maximum), and which of its operands
  are one value (a tile op's workspace must not be one of its other operands); xDSL's arith,
  math, scf.yield and scf.condition read neither of the last two, and arith.constant reads its
  ``value`` only as the attribute's class and type (`TYPED_VALUE_PROPS`), so their keys leave
  out what they do not read (the constants of one type share one check); a class naming in
  ``VERIFY_CONSTANT_RULES`` the method that holds every rule of its reading a constant operand
  (a backend's load and store: a constant index's alignment and bounds) is keyed without the
  constants, and that method alone runs for an op whose key is found (accesses of one type at
  other constant indices share the rest of the check);
* ``VERIFY_READS = "views"``: those, plus the resolved view (`access.resolve_access`) of each
  buffer operand, the type of the allocation the view reads and those of its attributes the
  class names in ``VERIFY_ALLOC_ATTRS`` (all of them when it names none: the nki ops name none
  but the matmul, whose PSUM bank check reads ``trn.addr``), and the op's target (as "kernel");
  a class stating ``VERIFY_VIEW_FACTS`` (a function of the resolved view) is keyed by what that
  function returns instead of the view (the nki ops: the sizes, steps and numeric partition
  offset the per-tile rules read, `checks.tile_view_facts`), and one stating
  ``VERIFY_OPERAND_VALUES = False`` reads neither its constant operands' values nor which
  operands are one value (the nki ops); a class naming in ``VERIFY_VIEW_RULES`` the method that
  holds every rule of its check reading the views (the nki ops' per-tile rules and the matmul's
  PSUM bank) runs that method alone for an op whose key is new but whose `_local_key`, target
  and site are those of an op found valid (the rest of its check, the generic checks and its
  rules of types and properties, read nothing else);
* ``VERIFY_READS = "kernel"``: those of "local", plus the properties of the enclosing
  ``tirx.kernel`` (its launch), the attributes of the top-level op and the target (the
  kernel's, the module's or the current ``with Target``'s): the tile primitives, the cuda and
  ptx ops;
* ``VERIFY_READS = "region"`` (an op with regions): its own types, properties and attributes,
  and the contents of its regions: the blocks, their argument types and, for every op nested
  in them, the op itself, its operands (as values), types, properties and attributes, and
  where it sits (as `IsolatedFromAbove`, `SymbolTable` and a loop's check of its ``yield``
  read them);

has its ``verify_`` (the generic IRDL checks, its traits and its custom rules) run once per
distinct value of what it reads, for the life of the verifier (one pipeline run). Of the traits,
those whose check is empty are local; `HasParent` reads the parent op's class and `IsTerminator`
whether the op ends its block, which the key then holds; the traits that read an op's regions
(`IsolatedFromAbove`, `SymbolTable`, `NoTerminator`, `SingleBlockImplicitTerminator`) are allowed
only with ``"region"``. Ops that state nothing (and any op with successors or another trait) are
verified in full every time; the structural rules (parents, terminators, erased operands) are
checked for every op.

A key is a tuple of small ints: each attribute it reads (a type, a property, an attribute) is
named by a serial that equal attributes share, found by the object's id (its value is hashed
once per object, not at every verification: a ``!tirx.buffer`` type with its layout hashes
deeply), so equal attributes held by other objects (the 256 equal loads a dispatch built) find
the same key. Every attribute a serial was given for is kept, so its id is not reused while the
verifier lives. Building a key costs its look-ups, so an op with a key (not a region op) the last
verification found valid is first compared with what it was then (`_fingerprint`: the objects
its key reads, compared by identity, then by value): when nothing changed its token is reused
and its key is not built, so an unchanged op costs one list built and compared; one whose
fingerprint differs only in which values its operands are or in its block (a use redirected by
canonicalize or cse, an op hoisted) keeps its key's serial when the key does not read them
(`ModuleVerifier._same_key`). An op of a class stating ``VERIFY_FINGERPRINT_LATER = True``
(the tile primitives, which tile dispatch replaces; the nki ops, which trn-lower-layout
retypes) is not fingerprinted when met new, since it is rarely compared (`_unbuilt`): a
verification that compares it later builds its key instead. Any other op without regions
new to the memo (most of the ops a verification keys: ~4,150 a gemm_sm80 pipeline, ~100 of
them checked) has its fingerprint and its key built in one pass over it
(`ModuleVerifier._visit_new_leaf`). A region op's
key holds, for each op nested in its blocks, the op's id, its key's serial and its operands'
ids, so it is found again exactly when nothing in its regions
changed (the incremental re-verification MLIR gets from preserved analyses): a pass that
rewrote one loop re-checks that loop and its ancestors, not its siblings. Of those, the check
of scf.for, scf.if, tirx.kernel and builtin.module (`REGION_CHECK_READS`) reads only their
blocks' argument types and last ops (the module: its ops' symbol names), so it runs again only
when those, or the op's own types and attributes, changed. Only the region keys
the last verification met are kept, with the ops and blocks they name (older IR is not kept
alive); after a report (below), a region op on its path holds what the report reached, so its
key is neither hashed nor kept (hashing a kernel's key costs a pass over a token per op of its
body): it gets a new serial, as a changed op does. A view is resolved once for the life of
the verifier: its key holds the serial of the view it resolves to, found through a record of
what the resolution reads (the chain of view ops, their properties, result types and the
index arithmetic of their offsets).
When only what a check reads beyond the op's own types and attributes changed (a view, its
site, its regions), xDSL's generic IRDL checks, which read only those, are not run again; its
traits and its own ``verify_`` are. Of those, ``IsolatedFromAbove`` is decided from the values
an op's regions use but do not define, kept per region key and gathered from the direct
children (`_free_values`): when none is left free the walk over every nested operand is not
run. While one verification runs nothing mutates the IR, so views are resolved once per
verification (`access.shared_views`) and shared by the keys and the checks.

A verification that fails is redone by xDSL's ``module.verify()``, so the error reported is
exactly the one the plain verifier gives.

**Passes that report what they changed.** The walk above still visits every op after every pass.
A pass whose class states ``REPORTS_CHANGES = True`` reports its changes to the `ChangeLog` that
`ModuleVerifier.run_pass` installs while it runs (`tirx_mlir.changes.current_changes`;
`change_listener` gives a
`PatternRewriteWalker` a listener that reports what its rewriter does): ``changed(op)`` after it
changes an existing op (operands, types, properties, attributes, place; ``inside=False`` when only
the op's own attributes changed: then of its users only the "views" ops reading their views'
allocation attributes are reached, through the views, `_attribute_readers`; trn-allocate
reports the addresses it gives so), ``removed(op)`` before it detaches, erases or replaces one; a
new op need not be named when its block is (by either call). The next verification (and
its dominance check, `check`) then enters only the region ops on the path to what the report
reaches (`_path_of`): the blocks of the ops named, the users of a changed or removed op's
results, everything
inside a changed region op (a kernel's properties are its ops' launch, the module's attributes
their target) and every new region op, with all it holds (region ops moved into it, as a loop
rebuilt around its old body, are entered too). The users of a removed op (``ChangeLog.users``)
only have their operands redirected: their results, properties, attributes and place are as
they were, so their own users are not reached through them, unless they are view ops or the
index arithmetic `access.index_expr` folds through (`_kind_of`): then what reads the view they
resolve to is reached (through the index ops and views using them; an index op's other users
read only its type, which did not change). A user of a changed op is reached as a removed op's
is. An op only moved (``ChangeLog.moving`` before its removal and insertion are reported:
canonicalize's hoisted constants, cuda-hoist-invariants' moved ops) and its users without
regions keep their entries: the same op reads the same values, so only the dominance of their
uses is checked (and the moved op, when its block changed, is compared as a changed op is). A
new region op stated ``ChangeLog.rebuilt`` (of the class of the op it replaces, in its block,
around its regions, every change in them reported: cuda-strength-reduce's loops) has the ops
in it that the report does not reach checked for their dominance only, not with all it holds.
Another region op keeps its token without being visited,
and in a block on the path an op the report does not reach keeps its token without its
fingerprint being built (ops whose verification reads where they end their block, terminators,
are compared as before). The dominance of an op the walk visits there (new, reached by the report,
or moved into the block) is checked during the walk (`_dominated`: each operand defined in a block
being walked, before the op or the op holding it), not by a second walk, and so is every op's in
a full verification; a use not dominated, a region of several blocks, or any error, is decided
by the full `tirx_mlir.dominance` check first (its error, as the plain verifiers give). The
operands `_dominated` finds defined in an enclosing block are what the region ops between read
from outside (`_free_after_report`): added to a known region op's free values, or all of a new
one's (every op in it was checked).
The verification is full after a pass that does not report, when the current ``with
Target`` changed, and when the IR has a region of several blocks (xDSL erases an unreachable block
without telling a listener).
Whether a report is whole is not decided by the
verifier at run time (finding an unreported change costs the walk it saves): with
``TIRX_VERIFY_AUDIT=1`` (`AUDIT_ENV`; the test suite sets it) each verification from a report is
followed by a full one, and an op the report let it skip that is not what the last verification
found valid raises `UnreportedChange` naming it (the full dominance check runs too, and a use it
finds not dominated raises `UnreportedChange`). With ``TIRX_VERIFY_COMPARE=1`` (`COMPARE_ENV`)
each verdict, after a report or not, is compared with the plain verifiers' on the same IR
(``module.verify()`` and the full dominance check): a disagreement raises `VerdictMismatch`. The
reporting passes (`tirx_mlir.changes` holds
the reporting API): canonicalize, cse and dce (`tirx_mlir.transforms`), the core's allocation
(trn-allocate), cuda-default-layout, cuda-lower-layout, cuda-lower-scope-ids,
cuda-pipeline-k-loop, cuda-allocate-shared, cuda-strength-reduce, cuda-narrow-index,
cuda-peel-constants, cuda-hoist-invariants, cuda-set-max-nreg, trn-default-layout,
trn-max-inst-size and trn-lower-layout (`tirx_mlir.dialects.tirx.buffer_ops.replace_alloc` and
`tirx_mlir.target.target.bind_target` report for their callers); every other pass is verified in
full. tirx-dispatch does not report: it marks the module ``tirx.dispatched``, which every op
reading its kernel context reads, and the ops after it are nearly all new.
"""

from __future__ import annotations

import os
import sys
from opcode import opmap

from xdsl.ir import Block, BlockArgument, ErasedSSAValue, OpResult, Operation, SSAValue
from xdsl.irdl import IRDLOperation
from xdsl.traits import (HasParent, IsolatedFromAbove, IsTerminator, NoTerminator, OpTrait,
                         OptionalSymbolOpInterface, SameOperandsAndResultType,
                         SingleBlockImplicitTerminator, SymbolOpInterface, SymbolTable)
from xdsl.utils.exceptions import VerifyException

from tirx_mlir.changes import (ChangeLog, change_listener,  # noqa: F401 - the passes' API
                               current_changes, reporting_to, reports_changes)
from tirx_mlir.dialects.def_check import install_def_check, isolated_from_above
from tirx_mlir.ir_walk import walk_ops

LOCAL_DIALECTS = ("arith", "math")
"""Dialects whose ops' verifiers read only their own types and attributes (xDSL's arith and
math)."""

STATED_READS = {"scf.yield": "local", "scf.condition": "local", "scf.for": "region",
                "scf.if": "region", "scf.while": "region", "builtin.module": "region"}
"""What the verifiers of xDSL ops (which cannot state ``VERIFY_READS``) read: scf.yield's and
scf.condition's checks are their traits (the parent's class, the end of the block); scf.for and
scf.if check their bounds and operands against their block's arguments and ``yield``, scf.while
its operand and result types against its blocks' argument types; builtin.module's traits check
its body."""

REGION_CHECK_READS = {"scf.for": "ends", "scf.if": "ends", "tirx.kernel": "ends",
                      "builtin.module": "symbols"}
"""Region ops whose own check (`ModuleVerifier._check`: the generic IRDL checks, the traits and
the class's ``verify_``) reads of their regions only their blocks' argument types and
``"ends"``, each block's last op as its class and its operands' types (`_ends`), or
``"symbols"``, the ``sym_name`` of each op of its body (`_symbols`): scf.for (the block count and
arguments, `SingleBlockImplicitTerminator`'s ``scf.yield``, whose operand types its ``verify_``
compares with the loop-carried values), scf.if (the same trait), tirx.kernel (its parameters'
types, the ``tirx.return`` ending its body) and builtin.module (`NoTerminator`'s block count,
`SymbolTable`'s names defined twice). `IsolatedFromAbove` (the kernel's, the module's) is
decided apart: the memo is used only when the op is known isolated. Their region key changes
whenever an op inside them changes; the check itself runs once per distinct ``(class, types,
properties, attributes, site, block argument types, ends or symbols)``
(`ModuleVerifier._region_check_key`)."""

TYPED_VALUE_PROPS = {"arith.constant": "value"}
"""Properties whose constraint reads only the attribute's class and its type parameter:
arith.constant's ``value`` (an IntegerAttr, FloatAttr, DenseIntOrFPElementsAttr or
DenseResourceAttr whose type is the result's; the number itself is checked when the attribute
is built). Its key holds that pair, so the constants of one type share one check."""


def _reads_no_values(name: str) -> bool:
    """Whether xDSL's verifier of op ``name`` reads no operand's constant value nor which
    operands are one value: the arith and math ops (types only) and the "local" scf ops (their
    traits)."""
    return name.split(".", 1)[0] in LOCAL_DIALECTS or STATED_READS.get(name) == "local"


_SITE_TRAITS = {HasParent.verify: "parent", IsTerminator.verify: "last",
                SymbolOpInterface.verify: "", OptionalSymbolOpInterface.verify: "",
                SameOperandsAndResultType.verify: ""}
"""Trait checks an op's key answers: by the parent op's class, by whether the op ends its block,
by its own attributes and types."""
_REGION_TRAITS = {IsolatedFromAbove.verify, SymbolTable.verify, NoTerminator.verify,
                  SingleBlockImplicitTerminator.verify}
"""Trait checks that read an op's regions (answered by a ``"region"`` key)."""

_NONE: frozenset = frozenset()
"""No op (`ModuleVerifier._uses_moved` outside a verification after a move)."""

_LEAF_READS = ("local", "kernel")
"""The plans `ModuleVerifier._visit_new_leaf` keys (not "views": a view that does not resolve
leaves the op without a fingerprint, verified in full)."""

_FOLDED = ("arith.addi", "arith.subi", "arith.muli")
"""The index arithmetic `access.index_expr` folds through (besides constants)."""

_TRIVIAL_TRAITS: set[type] = set()
_plans: dict[type, "_Plan | None"] = {}


AUDIT_ENV = "TIRX_VERIFY_AUDIT"
"""Set (not "0"): after each verification from a pass's change report, verify in full too and
raise `UnreportedChange` if the pass changed an op it did not report (the test suite sets it)."""


class UnreportedChange(VerifyException):
    """A pass that states ``REPORTS_CHANGES`` changed an op without reporting it."""


COMPARE_ENV = "TIRX_VERIFY_COMPARE"
"""Set (not "0"): after each verification, verify the module with the plain verifiers too
(``module.verify()``, and the full dominance check after `ModuleVerifier.check`) and raise
`VerdictMismatch` when their verdict differs (`ModuleVerifier.compare`; a debugging switch)."""


class VerdictMismatch(VerifyException):
    """The memoised verification and the plain verifiers disagree on a module."""


_TYPED_CLASSES: tuple = ()


def _typed_value_classes() -> tuple:
    """The attribute classes a `TYPED_VALUE_PROPS` property is keyed by class and type for:
    those arith.constant's constraint accepts, each reading only its ``type`` parameter."""
    global _TYPED_CLASSES
    if not _TYPED_CLASSES:
        from xdsl.dialects.builtin import (DenseIntOrFPElementsAttr, DenseResourceAttr, FloatAttr,
                                           IntegerAttr)

        _TYPED_CLASSES = (IntegerAttr, FloatAttr, DenseIntOrFPElementsAttr, DenseResourceAttr)
    return _TYPED_CLASSES


_VIEW, _INDEX = 2, 1
_KINDS: dict[type, int] = {}


def _kind_of(op: Operation) -> int:
    """What a view's resolution reads of ``op``, found once per class: `_VIEW` for a view op
    (its users read the view it resolves to), `_INDEX` for the index arithmetic
    `access.index_expr` folds through (`_FOLDED`: a view reads its value), 0 for any other
    op (its users read only its results' types, and a constant's value)."""
    cls = type(op)
    kind = _KINDS.get(cls)
    if kind is None:
        kind = _KINDS[cls] = _VIEW if issubclass(cls, _view_op_classes()) else \
            _INDEX if op.name in _FOLDED else 0
    return kind


def _view_op_classes() -> tuple:
    from tirx_mlir.dialects.tirx.buffer_ops import VIEW_OPS

    return VIEW_OPS


class _Plan:
    """What the key of an op class holds: ``reads``, the site facts its traits check and the
    attributes of an allocation a "views" verifier reads (None: all)."""

    __slots__ = ("reads", "parent", "last", "alloc_attrs", "operand_values", "typed_value",
                 "constant_rules", "view_facts", "view_rules", "unbuilt", "leaf")

    def __init__(self, reads: str, parent: bool, last: bool,
                 alloc_attrs: tuple[str, ...] | None, operand_values: bool = True,
                 typed_value: str | None = None, constant_rules: str | None = None,
                 view_facts=None, view_rules: str | None = None, unbuilt: bool = False):
        self.reads, self.parent, self.last = reads, parent, last
        self.unbuilt = unbuilt
        self.leaf = reads in _LEAF_READS and not unbuilt
        """An op of the class without regions or successors, new to the memo, is keyed by
        `ModuleVerifier._visit_new_leaf`."""
        """The class states ``VERIFY_FINGERPRINT_LATER = True``: a later pass of the pipelines
        replaces or changes nearly every op of it (the tile primitives: tile dispatch; the nki
        ops: trn-lower-layout retypes them), so the fingerprint of one met new is left unbuilt
        (`_unbuilt`); a later verification comparing the op builds its key instead and finds
        it."""
        self.alloc_attrs = alloc_attrs
        self.operand_values = operand_values
        """Whether the check reads the constant values of its operands and which operands are
        one value (not xDSL's arith, math, scf.yield and scf.condition: `_reads_no_values`; not
        a class stating ``VERIFY_OPERAND_VALUES = False``)."""
        self.typed_value = typed_value
        """The property the check reads only as its class and type (`TYPED_VALUE_PROPS`)."""
        self.constant_rules = constant_rules
        """The method holding every rule of the class that reads its operands' constant values
        (``VERIFY_CONSTANT_RULES``): the key leaves the constants out and the method runs for
        each op whose key is built and found."""
        self.view_rules = view_rules
        """A "views" class's ``VERIFY_VIEW_RULES``: the method holding every rule of its check
        that reads its operands' views; the rest of the check reads only what `_local_key`
        holds and the target, so an op whose key is new but whose `_local_key`, target and site
        are those of an op found valid runs that method alone."""
        self.view_facts = view_facts
        """A "views" class's ``VERIFY_VIEW_FACTS``: what its checks read of a resolved view
        beyond the type of the buffer it views (`ModuleVerifier._views_key`); None: the whole
        view."""


def _trait_is_local(trait: OpTrait) -> bool:
    """A trait whose check does nothing (Pure, memory effects, folders, interfaces...): its
    ``verify`` is `OpTrait`'s or one whose body is empty."""
    kind = type(trait)
    if kind in _TRIVIAL_TRAITS:
        return True
    verify = getattr(kind, "verify", None)
    if verify is OpTrait.verify or _returns_none_only(verify):
        _TRIVIAL_TRAITS.add(kind)
        return True
    return False


def _returns_none_only(function: object) -> bool:
    """A function whose body does nothing (``pass`` / ``return``): its instructions, but for
    ``RESUME``, ``NOP`` and inline caches, are ``LOAD_CONST None; RETURN_VALUE`` (or 3.12's
    ``RETURN_CONST None``). Read from the code's bytes (two per instruction, deoptimised, as
    ``dis`` reads them) rather than through ``dis``, whose decoding of a trait's whole
    ``verify`` cost a compile's first verification ~0.8 ms."""
    code = getattr(function, "__code__", None)
    if code is None:
        return False
    raw = code.co_code
    steps = []
    for i in range(0, len(raw), 2):
        if raw[i] in _NO_STEP:
            continue
        if len(steps) == 2:
            return False  # a third step: the body does something
        steps.append((raw[i], raw[i + 1]))
    if len(steps) == 2:
        (load, index), (ret, _) = steps
        return load == _LOAD_CONST and ret == _RETURN_VALUE and code.co_consts[index] is None
    return len(steps) == 1 and steps[0][0] == _RETURN_CONST and \
        code.co_consts[steps[0][1]] is None


_NO_STEP = frozenset(opmap[name] for name in ("RESUME", "NOP", "CACHE") if name in opmap)
"""What `_returns_none_only` skips, as ``dis.get_instructions`` skips inline caches and the
check skipped ``RESUME`` and ``NOP``."""
_LOAD_CONST, _RETURN_VALUE = opmap["LOAD_CONST"], opmap.get("RETURN_VALUE", -1)
_RETURN_CONST = opmap.get("RETURN_CONST", -1)


def _plan_of(op: Operation) -> "_Plan | None":
    """What the key of ``op``'s class holds (None: verify in full), found once per class; the
    first time, an upstream IRDL class still on xDSL's generated ``verify_`` gets the compiled
    definition check (`def_check.install_def_check`, as the dialects the context loads do):
    a pass may build ops of a dialect the parsed input never named (dispatch's arith ops)."""
    cls = type(op)
    try:
        return _plans[cls]
    except KeyError:
        pass
    if isinstance(op, IRDLOperation):
        install_def_check(cls)  # an upstream op a pass built, its dialect never loaded
    reads = getattr(cls, "VERIFY_READS", None) or STATED_READS.get(op.name)
    if reads is None and op.name.split(".", 1)[0] in LOCAL_DIALECTS:
        reads = "local"
    plan = None
    if reads is not None and isinstance(op, IRDLOperation):
        sites: set[str] = set()
        for trait in cls.traits:
            verify = getattr(type(trait), "verify", None)
            if verify in _SITE_TRAITS:
                sites.add(_SITE_TRAITS[verify])
            elif not (_trait_is_local(trait) or (reads == "region" and verify in _REGION_TRAITS)):
                break
        else:
            plan = _Plan(reads, "parent" in sites, "last" in sites,
                         getattr(cls, "VERIFY_ALLOC_ATTRS", None),
                         operand_values=getattr(cls, "VERIFY_OPERAND_VALUES", True) and (
                             getattr(cls, "VERIFY_READS", None) is not None
                             or not _reads_no_values(op.name)),
                         typed_value=TYPED_VALUE_PROPS.get(op.name),
                         constant_rules=getattr(cls, "VERIFY_CONSTANT_RULES", None),
                         view_facts=getattr(cls, "VERIFY_VIEW_FACTS", None),
                         view_rules=getattr(cls, "VERIFY_VIEW_RULES", None),
                         unbuilt=getattr(cls, "VERIFY_FINGERPRINT_LATER", False))
    _plans[cls] = plan
    return plan


def reads_of(op: Operation) -> str | None:
    """What the verifier of ``op``'s class reads ("local", "views", "region"), or None: verify
    in full."""
    plan = _plan_of(op)
    return None if plan is None else plan.reads


_split: dict[type, tuple] = {}


def _split_verifier(cls: type) -> tuple | None:
    """(the traits, the custom check or None) of an IRDL op class, whose ``verify_`` xDSL
    (or `tirx_mlir.dialects.def_check`) makes as "the generic checks (traits last), then the
    class's own ``verify_``"; None when the class's ``verify_`` is not one of those (it is then
    run whole)."""
    verify = cls.__dict__.get("verify_")
    known = _split.get(cls)
    if known is not None and known[0] is verify:
        return known[1]
    code = getattr(verify, "__code__", None)
    parts = getattr(verify, "__split__", None)  # `def_check`'s verify_ states its parts
    if parts is None and code is not None and \
            code.co_freevars == ("custom_verify", "op_def") and \
            code.co_filename.endswith(("irdl/operations.py", "irdl\\operations.py")):
        cells = dict(zip(code.co_freevars, (c.cell_contents for c in verify.__closure__)))
        parts = (tuple(cells["op_def"].traits), cells["custom_verify"])
    _split[cls] = (verify, parts)
    return parts


def _generic_length(local: tuple) -> int:
    """How many items of a `ModuleVerifier._local_key` xDSL's generic checks read: the class,
    the four counts, the operand and result types, and a (name, serial) pair per property and
    attribute."""
    return 5 + local[1] + local[2] + 2 * (local[3] + local[4])


_NO_SITE = (None, None)
"""`_site` of an op whose traits check nothing of where it sits."""


def _site(op: Operation, plan: _Plan) -> tuple:
    """The facts about where ``op`` sits that its traits check."""
    block = op.parent
    parent = type(block.parent.parent) if plan.parent and block is not None and \
        block.parent is not None else None
    return parent, (block is not None and block.last_op is op) if plan.last else None


def _aliases(operands: tuple) -> tuple:
    """Which operands are one value (a check may compare them: a tile op's workspace must not be
    one of its other operands): empty when all differ, else each operand's first position."""
    if len(set(map(id, operands))) == len(operands):
        return ()
    ids = list(map(id, operands))
    return tuple(map(ids.index, ids))  # each operand's first position


class ModuleVerifier:
    """Verifies a module as ``module.verify()`` does, each op's own checks memoised (see the
    module docstring); make one per pipeline run, run each pass by `run_pass` and call `check`
    (or `check_dominance` and `verify`) after it."""

    def __init__(self) -> None:
        self._verified: dict[tuple, int] = {}
        """The keys of the ops found valid (and of the generic checks passed), each to its
        serial (what a region key holds of the op)."""
        self._serial_of_id: dict[int, int] = {}
        """The value serial (`_intern`) of each attribute a key named, by the attribute's id."""
        self._serial_of_value: dict[object, int] = {}
        self._kept: list = []
        """The attributes `_serial_of_id` names (kept alive, so their ids are not reused)."""
        self._regions: dict[int, tuple[tuple, int]] = {}
        """The keys of the region ops the last verification found valid, each with its serial,
        by the key's hash (computed once a visit: a kernel's key is as long as its body; a key
        whose hash another holds is compared and not found, then checked again). A key names
        its ops and blocks by id; `_held` keeps them alive, and the IR a pass replaced is not
        kept alive longer."""
        self._regions_now: dict[int, tuple[tuple, int]] = {}
        self._free: dict[int, frozenset[int] | None] = {}
        """`_free_values` of the region ops whose keys `_regions` holds, by serial."""
        self._held: list = []
        self._held_now: list = []
        self._ops: dict[int, tuple] = {}
        """(the op, its `_fingerprint`, its token, its `_Plan`) of each op with a key (not a
        region op) the last verification found valid, by the op's id: an op whose fingerprint
        is unchanged has its token again without its key being built."""
        self._ops_now: dict[int, tuple] = {}
        self._serials = 0
        self._targets: dict[int, str | None] = {}
        self._contexts: dict[int, tuple] = {}
        """By the id of the block (xDSL hashes an IR node in Python; the blocks outlive a
        verification)."""
        self._views_now: dict[int, tuple] = {}
        self._operand_views_now: dict[tuple[int, int], tuple] = {}
        """`_operand_view` by (the value's id, the plan's id), for one verification."""
        self._indices_now: dict[int, tuple] = {}
        self._view_records: dict[tuple, tuple] = {}
        """Static views resolved, by the identities in their chain (`_view`)."""
        self._facts_of: dict[tuple, int] = {}
        """`_facts`: by (the class's ``VERIFY_VIEW_FACTS``, the view's serial)."""
        self._offsets_of: dict[int, int] = {}
        """`_offset_count` of each ``operandSegmentSizes`` attribute, by its id."""
        self._tokens: dict[int, tuple] = {}
        """(the op, its token) of each region op the last verification found valid, by id: a
        region op off the `_path` has its token again without being visited."""
        self._tokens_now: dict[int, tuple] = {}
        self._always: set[int] = set()
        """The ids of the ops holding (at any depth) an op verified in full at every visit
        (no plan, no fingerprint): always on the path."""
        self._always_now: set[int] = set()
        self._verified_once = False
        self._multi_block = False
        """Whether the last verification met a region of several blocks (the next one is
        full: xDSL erases an unreachable block without telling a listener)."""
        self._last_target: int | None = None
        self._pending: ChangeLog | None = None
        """What the pass `run_pass` ran last reported (None: it reports nothing: verify all)."""
        self._path: set[int] | None = None
        """The ids of the region ops the current verification enters (None: all)."""
        self._affected: set[int] | None = None
        """The ids of the ops the report reaches (`_path_of`): in a block on the path, the
        others have their tokens again without their fingerprints (None: all are compared)."""
        self._pending_affected: set[int] | None = None
        self._uses_moved: set[int] = _NONE
        """Of ``_affected``, the ids of the ops whose only change is that an op defining one of
        their operands moved (`ChangeLog.moving`): in the block where the last verification
        found them, only the dominance of their uses is checked (`_visit_block`)."""
        self._pending_uses_moved: set[int] = _NONE
        self._rebuilt: set[int] = _NONE
        """The ids of the region ops the report states were built around the blocks of the ops
        they replace (`ChangeLog.rebuilt`)."""
        self._pending_rebuilt: set[int] = _NONE
        self._auditing = False
        self._unreported: list[Operation] = []
        self._marked: set[int] = set()
        """The ids `_mark_always` marked in this verification."""
        self._visited: list[Operation] = []
        """The ops `_visit` ran on in this verification, after a report
        (`_free_after_report`)."""
        self._entered: set[int] = set()
        """The ids of the region ops the last verification from a report entered: their
        region keys are neither looked up nor kept (what they hold changed; hashing a kernel's
        key costs a pass over its body), and the audit's full verification that follows does not
        take their keys, not found, for an unreported change (their contents it checks op by
        op)."""
        self._spans: dict[int, tuple[int, list[SSAValue]]] = {}
        """For each region op `_free_after_report` ran on in this verification, by id: where
        its descendants end in ``_visited`` and the values they use from outside it (a region
        op holding it reads that list instead of its descendants again)."""
        self._dom: list | None = None
        """While `check` verifies from a report: the blocks being walked, each with its
        graph-region flag and the ids of its ops walked so far (`_dominated`)."""
        self._dom_failed = False
        self._outer: list[tuple[SSAValue, int]] = []
        """While `check` verifies from a report: each operand `_dominated` found defined in a
        block enclosing its user's, with that block's depth in ``_dom``."""
        self.audit = os.environ.get(AUDIT_ENV, "") not in ("", "0")
        """Check each verification from a change report against a full one (`AUDIT_ENV`)."""
        self.compare = os.environ.get(COMPARE_ENV, "") not in ("", "0")
        """Check each verdict against the plain verifiers' (`COMPARE_ENV`)."""

    # ---- change reports -----------------------------------------------------------------------
    def run_pass(self, p: object, ctx: object, module: Operation) -> None:
        """``p.apply(ctx, module)``, recording what it reports when its class states
        ``REPORTS_CHANGES = True`` (`reports_changes`): the next verification then visits only
        what the report reaches (`_path_of`); otherwise the next verification is full."""
        self._pending = self._path = self._pending_affected = None
        self._pending_uses_moved = self._pending_rebuilt = _NONE
        if not reports_changes(p):
            p.apply(ctx, module)  # type: ignore[attr-defined]
            return
        with reporting_to(ChangeLog()) as log:
            p.apply(ctx, module)  # type: ignore[attr-defined]
        self._pending = log

    def check_dominance(self, module: Operation) -> None:
        """`tirx_mlir.dominance.check_dominance`, entering only the region ops on the path of
        the last pass's report (all of them without one)."""
        from tirx_mlir.dominance import check_dominance

        path = self._pending_path(module)
        if path is None:
            check_dominance(module)
            return
        tokens = self._tokens

        def enter(op: Operation) -> bool:  # on the path, or new (with all it holds)
            if id(op) in path:
                return True
            if tokens.get(id(op), (None,))[0] is op:
                return False
            path.update(id(inner) for inner in op.walk() if inner.regions)
            return True

        check_dominance(module, enter)

    def check(self, module: Operation) -> None:
        """The dominance check, then `verify` (what a pass manager runs after a pass), as
        `_check_module` does; with ``compare`` (`COMPARE_ENV`), its verdict is checked against
        the plain verifiers' (`_compare`)."""
        if not self.compare:
            self._check_module(module)
            return
        self._compare(module, self._check_module, dominance=True)

    def _check_module(self, module: Operation) -> None:
        """The dominance check, then `verify` (what a pass manager runs after a pass). The
        dominance of each op the verification visits is checked during its walk
        (`_dominated`): every op in a full verification; after a pass that reported its
        changes, those the report reaches (an op it does not reach kept its operands and its
        place, and so did their definitions). A use found not dominated, or a region of several
        blocks, is decided by the full check (its first error in textual order, as the full
        check alone gives; so is any error of the verification); the audit (`AUDIT_ENV`) runs
        the full check too."""
        from tirx_mlir.dominance import DominanceError, check_dominance

        full = self._pending_path(module) is None
        self._dom, self._dom_failed, self._outer = [], False, []
        try:
            self._verify_module(module)
        except Exception:
            self._dom = None
            check_dominance(module)  # a dominance error first, as the full check would give
            raise
        finally:
            self._dom, self._outer = None, []
        if self._dom_failed:
            try:
                check_dominance(module)
            except DominanceError:
                self._verified_once = False  # the next verification is full
                raise
        if self.audit and not full:
            try:
                check_dominance(module)
            except DominanceError as err:
                raise UnreportedChange(f"the pass broke dominance where its report did not "
                                       f"reach: {err}") from err

    def _dominated(self, op: Operation) -> None:
        """Whether each operand of ``op`` is visible where it is used (`tirx_mlir.dominance`'s
        rule), from the blocks `_visit_block` is walking (``_dom``): a block argument of one of
        them, or the result of an op walked before ``op`` (or before the op holding it) in one
        of them, any op of a graph region (the module's body); else ``_dom_failed`` is set.
        Each operand defined in an enclosing block is recorded with that block's depth
        (``_outer``): the region ops between use it from outside (`_free_after_report`)."""
        dom = self._dom
        top, graph, walked = dom[-1]
        for value in op._operands:  # noqa: SLF001
            kind = type(value)
            if kind is OpResult:
                definer = value.op
                block = definer.parent
                if block is top:  # most uses: a definition in the same block
                    if not graph and id(definer) not in walked:
                        self._dom_failed = True
                    continue
            elif kind is BlockArgument:
                definer, block = None, value.block
                if block is top:
                    continue
            else:  # erased
                self._dom_failed = True
                self._outer.append((value, -1))
                continue
            depth = len(dom) - 2  # the enclosing blocks, innermost first
            while depth >= 0:
                frame = dom[depth]
                if frame[0] is block:
                    if definer is not None and not frame[1] and id(definer) not in frame[2]:
                        self._dom_failed = True
                    self._outer.append((value, depth))
                    break
                depth -= 1
            else:  # not in a block being walked (another block of a region of several, or
                self._dom_failed = True  # not in the module): outside every region op around
                self._outer.append((value, -1))

    def _pending_path(self, module: Operation) -> set[int] | None:
        if self._pending is not None and self._path is None:
            self._path = self._path_of(self._pending, module)
            if self._path is None:
                self._pending = None
        return self._path

    def _path_of(self, log: "ChangeLog", module: Operation) -> set[int] | None:
        """The ids of the region ops a verification after ``log`` must enter: those holding a
        block where an op was reported changed or removed, where a user of a changed op's
        results sits (through the view ops and index arithmetic that a view's resolution
        reads), every region op inside a changed op (its properties may be a kernel's launch or
        the module's target) and those that always are (`_always`); None: verify all (no
        verification to compare with, a region of several blocks, another current target).
        Sets ``_pending_affected``: the ids of the changed ops, of those users and of every op
        inside a changed op."""
        if not self._verified_once or self._multi_block:
            return None
        from tirx_mlir.target.target import Target

        current = Target.current()
        if (None if current is None else self._serial(str(current))) != self._last_target:
            return None
        blocks: dict[int, Block] = {id(block): block for block in log.blocks}
        path: set[int] = set(self._always)
        seen: set[int] = set()
        self._pending_affected = seen
        for op in log.own:  # verified itself (entered: its contents keep their tokens)
            if op.parent is not None:
                path.add(id(op))
                seen.add(id(op))
                blocks[id(op.parent)] = op.parent
                if op.results:
                    _attribute_readers(op, seen, blocks)
        stack = list(log.ops)
        resolved: list[Operation] = []
        """View ops and index arithmetic whose operands changed: their results' types did not,
        what a view's resolution reads of them did (`_kind_of`)."""
        done: set[int] = set()
        """The ops handled as changed (one reached first as a user is in ``seen``, not here:
        reported changed too, its own users are reached)."""
        done_resolved: set[int] = set()

        reached: set[int] = set()
        """The ops `reach` handled (a user of several changed ops, or named again, once)."""

        kinds = _KINDS

        def reach(user: Operation) -> None:  # an op whose operands changed
            key = id(user)
            if key in reached:
                return
            reached.add(key)
            kind = kinds.get(type(user))
            if kind is None:
                kind = _kind_of(user)
            if kind:
                resolved.append(user)
                return
            block = user.parent
            if block is not None:
                seen.add(key)
                blocks[id(block)] = block
                if user.regions:
                    path.add(key)

        for user in log.users:  # only which values their operands are changed
            reach(user)
        uses_moved: set[int] = set()
        """The leaf ops only moved (`ChangeLog.moving`) and their leaf users: only the
        dominance of their uses changed, and, of a moved op, its block (when it changed, it is
        verified as a changed op is: `_visit_block`). A view's resolution reads its chain's ops
        and values, not where they are: the views and index arithmetic using a moved op are
        not reached through it."""
        for op in log.moved:
            if op.regions or op._successors:  # noqa: SLF001 - what it holds: verified as a
                stack.append(op)  # changed op
                continue
            block = op.parent
            if block is None:  # detached later: what it left is in ``log.blocks``
                continue
            uses_moved.add(id(op))
            blocks[id(block)] = block
            for result in op.results:
                use = result.first_use
                while use is not None:
                    user = use.operation
                    if user.regions or user._successors:  # noqa: SLF001
                        reach(user)
                    elif user.parent is not None:
                        uses_moved.add(id(user))
                        blocks[id(user.parent)] = user.parent
                    use = use._next_use  # noqa: SLF001
        while stack or resolved:
            if resolved:  # a view or an index whose resolution changed
                op = resolved.pop()
                if id(op) in done_resolved:
                    continue
                done_resolved.add(id(op))
                seen.add(id(op))
                if op.parent is None:
                    continue
                blocks[id(op.parent)] = op.parent
                view = _kind_of(op) == _VIEW
                for result in op.results:
                    use = result.first_use  # the uses by their links (`result.uses`)
                    while use is not None:
                        user = use.operation
                        if view or _kind_of(user):  # an index's other users read its type only
                            reach(user)
                        use = use._next_use  # noqa: SLF001
                continue
            op = stack.pop()
            if id(op) in done:
                continue
            done.add(id(op))
            seen.add(id(op))
            block = op.parent
            if block is None:  # detached: what it left is in ``log.blocks``
                continue
            blocks[id(block)] = block
            if op.regions:
                if op is module:
                    return None
                for inner in walk_ops(op):
                    seen.add(id(inner))
                    if inner.regions:
                        path.add(id(inner))
            for result in op.results:
                use = result.first_use  # the uses by their links (`result.uses`)
                while use is not None:
                    reach(use.operation)
                    use = use._next_use  # noqa: SLF001
        for block in blocks.values():
            owner = block.parent_op()
            while owner is not None and id(owner) not in path:
                path.add(id(owner))
                owner = owner.parent_op()
        path.add(id(module))
        uses_moved -= seen  # reached otherwise too: verified as such
        seen |= uses_moved
        self._pending_uses_moved = uses_moved
        self._pending_rebuilt = {id(op) for op in log.rebuilds}
        return path

    def verify(self, module: Operation) -> None:
        """Verify ``module`` (raise as ``module.verify()`` would); after a pass `run_pass` ran
        that reported its changes, visit only the region ops on their path (`_path_of`). With
        ``compare`` (`COMPARE_ENV`), the verdict is checked against ``module.verify()``'s."""
        if not self.compare:
            self._verify_module(module)
            return
        self._compare(module, self._verify_module, dominance=False)

    def _compare(self, module: Operation, verify, dominance: bool) -> None:
        """``verify(module)``, then the plain verifiers on the same IR (xDSL's
        ``module.verify()``, and `tirx_mlir.dominance.check_dominance` when ``dominance``): both
        accept, or both reject (the error raised is ``verify``'s, which words it as the plain
        one does); otherwise `VerdictMismatch`. Everything the memo skipped (unchanged ops,
        region ops off the report's path, keys found) is then checked against what a full
        verification of every op decides. An audit's `UnreportedChange` is its own finding (a
        pass's report, not a verdict) and passes through as it is."""
        from tirx_mlir.dominance import check_dominance

        def plain() -> Exception | None:
            try:
                if dominance:
                    check_dominance(module)
                module.verify()
            except Exception as err:  # noqa: BLE001 - the plain verdict, compared below
                return err
            return None

        try:
            verify(module)
        except (VerdictMismatch, UnreportedChange):
            raise
        except Exception as err:
            if plain() is None:
                raise VerdictMismatch(f"the memoised verification rejects what the plain "
                                      f"verifiers accept: {err}") from err
            raise
        error = plain()
        if error is not None:
            raise VerdictMismatch(f"the memoised verification accepts what the plain verifiers "
                                  f"reject: {error}") from error

    def _verify_module(self, module: Operation) -> None:
        """`verify` without the comparison."""
        path = self._pending_path(module)
        self._affected = self._pending_affected if path is not None else None
        self._uses_moved = self._pending_uses_moved if path is not None else _NONE
        self._rebuilt = self._pending_rebuilt if path is not None else _NONE
        self._pending = self._path = self._pending_affected = None
        self._pending_uses_moved = self._pending_rebuilt = _NONE
        try:
            self._verify(module, path)
        finally:
            self._affected, self._uses_moved, self._rebuilt = None, _NONE, _NONE
        if path is not None and self.audit:
            self._audit(module)

    def _audit(self, module: Operation) -> None:
        """Verify ``module`` in full after a verification from a report: every op the report
        let it skip must be found unchanged (its fingerprint or region key known); one that is
        not was changed by the pass without a report."""
        self._auditing, self._unreported = True, []
        try:
            self._verify(module, None)
        finally:
            self._auditing = False
        if self._unreported:
            names = ", ".join(sorted({op.name for op in self._unreported}))
            raise UnreportedChange(f"the pass changed {len(self._unreported)} op(s) ({names}) "
                                   "without reporting them (`tirx_mlir.verification.ChangeLog`)")

    def _verify(self, module: Operation, path: set[int] | None) -> None:
        from tirx_mlir.dialects.tirx.access import resolve_access, shared_answers, shared_views
        from tirx_mlir.dialects.tirx.attributes import BufferType
        from tirx_mlir.dialects.tirx.buffer_ops import ReshapeOp, SliceOp, TransposeOp
        from tirx_mlir.target.target import Target

        self._buffer_type, self._resolve = BufferType, resolve_access
        self._answers = shared_answers
        self._view_ops = (SliceOp, TransposeOp, ReshapeOp)
        arith = sys.modules.get("xdsl.dialects.arith")  # not loaded: no constant in the IR
        self._constant_class = arith.ConstantOp if arith is not None else None
        from xdsl.dialects.builtin import IntegerAttr

        self._integer_attr = IntegerAttr

        self._targets, self._contexts, self._views_now, self._indices_now = {}, {}, {}, {}
        self._operand_views_now = {}
        self._path, self._visited, self._marked = path, [], set()
        if not self._auditing:
            self._entered = set()
        self._spans = {}
        if path is None:
            self._regions_now, self._held_now, self._ops_now = {}, [], {}
            self._tokens_now, self._always_now, self._multi_block = {}, set(), False
        else:  # what the skipped region ops hold stays as the last verification left it:
            # the memos are updated in place (each op is looked up before its entry is
            # written, and an entry is written only for an op found valid), not copied
            self._regions_now, self._held_now = self._regions, [self._held]
            self._ops_now, self._tokens_now = self._ops, self._tokens
            self._always_now = self._always
        current = Target.current()  # what a check reads when the IR names no target
        self._current_target = None if current is None else self._serial(str(current))
        try:
            with shared_views():
                self._visit(module)
        except Exception as err:  # noqa: BLE001 - the plain verifier words the error
            self._verified_once = False  # the memo is not whole: the next one is full
            module.verify()
            raise err
        finally:
            self._targets, self._contexts, self._views_now, self._indices_now = {}, {}, {}, {}
            self._operand_views_now = {}
            self._path, self._visited, self._spans = None, [], {}
        self._regions, self._regions_now = self._regions_now, {}
        self._ops, self._ops_now = self._ops_now, {}
        self._tokens, self._tokens_now = self._tokens_now, {}
        self._always, self._always_now = self._always_now, set()
        live = {entry[1] for entry in self._regions.values()}
        live.update(entry[1][1] for entry in self._tokens.values())  # visited after a report
        self._free = {serial: f for serial, f in self._free.items() if serial in live}
        self._held, self._held_now = self._held_now, []
        self._verified_once, self._last_target = True, self._current_target

    # ---- serials ------------------------------------------------------------------------------
    def _serial(self, attr: object) -> int:
        """A number equal for equal attributes (``attr``'s value hashed once per object)."""
        try:
            return self._serial_of_id[id(attr)]
        except KeyError:
            pass
        values = self._serial_of_value
        serial = values.get(attr)
        if serial is None:
            serial = values[attr] = len(values) + 1  # never 0: `known(...) or serial(...)`
        self._serial_of_id[id(attr)] = serial
        self._kept.append(attr)
        return serial

    def _new_serial(self) -> int:
        self._serials += 1
        return self._serials

    # ---- one op -------------------------------------------------------------------------------
    def _visit(self, op: Operation, fingerprint: list | None = None) -> tuple:
        """Verify ``op`` and everything in it; return its token: what a parent's key holds of
        it (the op's id, the serial of its key and its operands' ids)."""
        path = self._path
        if path is not None and op.regions:
            last = self._tokens.get(id(op))
            if last is None or last[0] is not op:  # new: all it holds is checked
                affected, moved = self._affected, self._uses_moved
                if id(op) in self._rebuilt:  # around the blocks of the op it replaced, every
                    for inner in walk_ops(op):  # change in them reported: what the report does
                        if id(inner) not in affected:  # not reach, its dominance only
                            moved.add(id(inner))
                            affected.add(id(inner))
                        if inner.regions:
                            path.add(id(inner))
                else:
                    inside = walk_ops(op)
                    for inner in inside:  # region ops moved into it entered too
                        affected.add(id(inner))
                        if inner.regions:
                            path.add(id(inner))
                    if moved:  # verified as the new op's contents are, in full
                        moved.difference_update(map(id, inside))
            elif id(op) not in path:  # nothing the report reaches is in it
                _check_terminator(op)
                return last[1]
        if path is not None:
            self._visited.append(op)
        self._held_now.append(op)
        plan = None if op._successors else _plan_of(op)  # noqa: SLF001
        if plan is not None and plan.reads == "region" and op.regions:
            return self._visit_region_op(op, plan)
        if plan is None or plan.reads == "region" or op.regions:
            self._mark_always(op)
            op.verify(verify_nested_ops=False)
            self._contents(op)
            return (id(op), self._new_serial())  # never equal to an earlier token
        unbuilt = None  # audited, and its entry `_unbuilt`: decided by its token below
        if self._auditing:
            last = self._ops.get(id(op))
            if last is not None and last[0] is op and last[1][0] is None:
                unbuilt = last
        if fingerprint is None and (self._auditing or not plan.unbuilt):
            fingerprint = self._fingerprint(op, plan)  # (else left unbuilt: `_unbuilt`)
            if fingerprint is None:
                self._mark_always(op)
        if self._auditing and unbuilt is None and fingerprint is not None and \
                id(op) not in self._always:
            self._unreported.append(op)  # its fingerprint is not the one found valid
        for operand in op._operands:  # noqa: SLF001
            if type(operand) is ErasedSSAValue:  # no subclasses; `isinstance` asks the ABC
                raise ValueError("Erased SSA value is used by the operation")
        if op._next_op is None:  # noqa: SLF001 - the last op of its block (or detached)
            _check_terminator(op)
        try:
            local = self._local_key(op, plan)
            reads = plan.reads
            site = _site(op, plan) if plan.parent or plan.last else _NO_SITE
            if reads == "local":
                key = local + site
            elif fingerprint is not None:  # its last part: the views or the kernel context
                key = local + fingerprint[-1] + site
            else:
                key = local + (self._views_key(op, plan) if reads == "views" else
                               self._context(op)) + site
        except Exception:  # noqa: BLE001 - e.g. a view that does not resolve: check in full
            self._mark_always(op)
            op.verify(verify_nested_ops=False)
            return (id(op), self._new_serial())
        verified = self._verified
        serial = verified.get(key)
        if serial is None:
            rules = plan.view_rules
            if rules is None:
                self._check(op, local, ())
            else:  # the rules not reading views: once per (types and attributes, target, site)
                signature = ("view rules", local, self._target(op), self._current_target, site)
                if signature in verified:
                    getattr(op, rules)()
                else:
                    self._check(op, local, ())
                    verified[signature] = 0
            serial = verified[key] = self._new_serial()
        elif plan.constant_rules is not None:  # found without its constants: their rules
            getattr(op, plan.constant_rules)()
        token = (id(op), serial, *map(id, op._operands))  # noqa: SLF001
        if unbuilt is not None and id(op) not in self._always and (
                token[1:] != unbuilt[2][1:] or op.parent is not unbuilt[1][2]):
            self._unreported.append(op)  # another key, other operands or another block
        if fingerprint is not None:
            self._ops_now[id(op)] = (op, fingerprint, token, plan)
        elif plan.unbuilt:
            self._ops_now[id(op)] = (op, _unbuilt(op), token, plan)
        return token

    def _visit_new_leaf(self, op: Operation, plan: _Plan) -> tuple:
        """`_visit` of an op without regions or successors that the last verification did not
        find valid (new to the memo), whose plan reads "local" or "kernel" and does not leave
        fingerprints unbuilt (`_unbuilt`, which `_visit` audits): the same steps, with its
        fingerprint and `_local_key` built in one pass over the op (`_leaf_parts`)."""
        try:
            fingerprint, local = self._leaf_parts(op, plan)
        except Exception:  # noqa: BLE001 - an erased operand, a key not built: as `_visit` does
            return self._visit(op)
        if self._path is not None:
            self._visited.append(op)
        self._held_now.append(op)
        if self._auditing and id(op) not in self._always:
            self._unreported.append(op)  # its fingerprint is not the one found valid
        if op._next_op is None:  # noqa: SLF001 - the last op of its block (or detached)
            _check_terminator(op)
        site = _site(op, plan) if plan.parent or plan.last else _NO_SITE
        key = local + site if plan.reads == "local" else local + fingerprint[-1] + site
        verified = self._verified
        serial = verified.get(key)
        if serial is None:
            self._check(op, local, ())
            serial = verified[key] = self._new_serial()
        elif plan.constant_rules is not None:  # found without its constants: their rules
            getattr(op, plan.constant_rules)()
        token = (id(op), serial, *map(id, op._operands))  # noqa: SLF001
        self._ops_now[id(op)] = (op, fingerprint, token, plan)
        return token

    def _leaf_parts(self, op: Operation, plan: _Plan) -> tuple[list, tuple]:
        """(`_fingerprint`, `_local_key`) of an op whose plan reads "local" or "kernel", built
        in one pass over its operands, results, properties and attributes: equal to the two
        built apart (tests/test_verification_leaf_parts.py). Raises xDSL's error for an erased
        operand (as `_visit` does before building the key)."""
        known, serial = self._serial_of_id.get, self._serial
        operands, results = op._operands, op.results  # noqa: SLF001
        props, attrs = op.properties, op.attributes
        values = plan.operand_values
        constant = self._constant_class if values else None
        constants: list | None = [] if values and plan.constant_rules is None else None
        parts: list = [operands, results, op.parent, op._successors]  # noqa: SLF001
        key: list = [type(op), len(operands), len(results), len(props), len(attrs)]
        add, append = parts.append, key.append
        for value in operands:
            kind = type(value)
            if kind is ErasedSSAValue:
                raise ValueError("Erased SSA value is used by the operation")
            t = value._type  # noqa: SLF001
            add(t)
            append(known(id(t)) or serial(t))
            if not values:
                continue
            if kind is OpResult and type(value.op) is constant:
                c = value.op.properties.get("value")
                add(c)
                if constants is not None:
                    constants.append(known(id(c)) or serial(c))
            elif constants is not None:
                constants.append(None)
        for value in results:
            t = value._type  # noqa: SLF001
            add(t)
            append(known(id(t)) or serial(t))
        items = props.items()
        parts += items
        typed = plan.typed_value
        for name, a in items:
            if name == typed and type(a) in _typed_value_classes():
                t = a.type  # type: ignore[attr-defined]
                key += (name, (type(a), known(id(t)) or serial(t)))
            else:
                key += (name, known(id(a)) or serial(a))
        add(None)  # properties and attributes never compare alike
        items = attrs.items()
        parts += items
        for name, a in items:
            key += (name, known(id(a)) or serial(a))
        if plan.parent or plan.last:
            add(_site(op, plan))
        if plan.reads == "kernel":
            add(self._context(op))
        if values:
            if constants is not None:
                key += constants
            if len(operands) > 1:
                key += _aliases(operands)
        return parts, tuple(key)

    def _same_key(self, op: Operation, last: tuple, fingerprint: list) -> bool:
        """Whether ``op``, whose fingerprint ``last`` (its `_ops` entry) is not ``fingerprint``,
        has the key it had: all but its operands (``fingerprint[0]``) and its block
        (``fingerprint[2]``: the key reads where an op sits only through its site and kernel
        context, which the fingerprint holds apart) are equal, so are their count and, when
        its check reads them (``operand_values``), which of them are one value (`_aliases`);
        none is erased. Not while auditing (the audit's full verification reports such an op
        as changed without a report)."""
        old = last[1]
        operands = op._operands  # noqa: SLF001
        if old[0] is None or self._auditing or len(old[0]) != len(operands) or \
                old[1] is not fingerprint[1] or old[3:] != fingerprint[3:]:
            return False
        for operand in operands:
            if type(operand) is ErasedSSAValue:
                return False  # `_visit` raises xDSL's error
        if last[3].operand_values and len(operands) > 1 and \
                _aliases(old[0]) != _aliases(operands):
            return False
        if self._path is not None:
            self._visited.append(op)  # its operands may now be free values (`_free_after_report`)
        return True

    def _mark_always(self, op: Operation) -> None:
        """``op`` is verified in full at every visit: the region ops holding it are always on
        the path. The walk up stops at an op marked in this verification, not at one only
        carried over from the last (after a report the set starts as the last one's: a moved
        op's new ancestors are not in it)."""
        marked, always = self._marked, self._always_now
        node: Operation | None = op
        while node is not None and id(node) not in marked:
            marked.add(id(node))
            always.add(id(node))
            node = node.parent_op()

    def _fingerprint(self, op: Operation, plan: _Plan) -> list | None:
        """Everything the key of a "local", "kernel" or "views" op reads, as the objects themselves
        (compared with ``==``: identity first, then the value of an attribute, so an equal
        fingerprint means an equal key): its operands, each operand's type and the value
        property of an ``arith.constant`` defining it, its results and their types, its
        properties and attributes, its block, its site (`_site`), its kernel context and its
        views (`_views_key`, shared by the ops reading a view; None when one does not resolve).
        Building it costs no hashing and no `_serial` look-ups, so an op that a pass left
        as it was is recognised for a fraction of the cost of its key."""
        operands, results = op._operands, op.results  # noqa: SLF001
        constant = self._constant_class if plan.operand_values else None
        parts: list = [operands, results, op.parent, op._successors]  # noqa: SLF001
        if constant is None:  # its check reads no operand's value (xDSL's arith, math...)
            for value in operands:
                parts.append(value._type)  # noqa: SLF001
        else:
            for value in operands:
                parts.append(value._type)  # noqa: SLF001
                if type(value) is OpResult and type(value.op) is constant:
                    parts.append(value.op.properties.get("value"))
        for value in results:
            parts.append(value._type)  # noqa: SLF001
        parts += op.properties.items()
        parts.append(None)  # properties and attributes never compare alike
        parts += op.attributes.items()
        if plan.parent or plan.last:
            parts.append(_site(op, plan))
        if plan.reads == "kernel":
            parts.append(self._context(op))
        elif plan.reads == "views":
            try:
                parts.append(self._views_key(op, plan))
            except Exception:  # noqa: BLE001 - a view that does not resolve: no fingerprint
                return None
        return parts

    def _local_key(self, op: Operation, plan: _Plan) -> tuple:
        """What a "local" verifier of ``op`` reads, each attribute by its `_serial`: its class,
        each operand's and result's type, the properties and attributes (what xDSL's generic
        checks read: the first `_generic_length` items; the property ``plan.typed_value`` as
        its class and its type's serial), then, when the plan says its check reads them
        (``operand_values``), the value an ``arith.constant`` gives an operand (not when a
        method holds the rules reading them: ``constant_rules``) and which operands are one
        value (`_aliases`)."""
        known, serial, constant = self._serial_of_id.get, self._serial, self._constant_class
        operands, results = op._operands, op.results  # noqa: SLF001
        props, attrs = op.properties, op.attributes
        key: list = [type(op), len(operands), len(results), len(props), len(attrs)]
        append = key.append
        for value in operands:
            t = value._type  # noqa: SLF001
            append(known(id(t)) or serial(t))
        for value in results:
            t = value._type  # noqa: SLF001
            append(known(id(t)) or serial(t))
        typed = plan.typed_value
        for name, a in props.items():
            if name == typed and type(a) in _typed_value_classes():
                t = a.type  # type: ignore[attr-defined]
                key += (name, (type(a), known(id(t)) or serial(t)))
            else:
                key += (name, known(id(a)) or serial(a))
        for name, a in attrs.items():
            key += (name, known(id(a)) or serial(a))
        if not plan.operand_values:
            return tuple(key)
        if plan.constant_rules is None:
            for value in operands:
                owner = value.owner
                if type(owner) is constant:
                    c = owner.properties["value"]
                    append(known(id(c)) or serial(c))
                else:
                    append(None)
        if len(operands) > 1:
            key += _aliases(operands)
        return tuple(key)

    def _check(self, op: Operation, local: tuple, shape: tuple, isolated: bool = False) -> None:
        """``op.verify(verify_nested_ops=False)``, but for the generic IRDL checks (operand,
        result, region and property constraints) when they passed for equal types,
        properties, attributes and region ``shape`` before: then only its traits' and its own
        checks run (they read the views, the site or the regions that changed); of them,
        ``IsolatedFromAbove``'s walk only when ``isolated`` is not known (`_free_values`)."""
        parts = _split_verifier(type(op))
        # the generic checks read the types, properties and attributes, not the constants that a
        # load's index operands are (many loads of one type share them)
        generic = ("irdl", local[:_generic_length(local)], shape) if parts is not None else None
        if parts is None or generic not in self._verified:
            check_generic = getattr(type(op).__dict__.get("verify_"), "__generic__", None)
            if parts is None or not (isolated and check_generic is not None):
                op.verify(verify_nested_ops=False)
                if generic is not None:
                    self._verified[generic] = 0
                return
            # a region op known isolated (a kernel whose launch changed): the definition's
            # checks, then its traits and own checks below, without the isolation walk
            try:
                check_generic(op)
            except Exception:  # noqa: BLE001 - xDSL's verifier decides and words the error
                op.verify(verify_nested_ops=False)
                self._verified[generic] = 0
                return
            self._verified[generic] = 0
        traits, custom = parts
        for trait in traits:
            if type(trait) is IsolatedFromAbove:
                if not isolated:
                    isolated_from_above(op)  # xDSL's verdict and message, in one walk
            else:
                trait.verify(op)
        if custom is not None:
            custom(op)

    def _views_key(self, op: Operation, plan: _Plan) -> tuple:
        """What a "views" verifier reads beyond `_local_key`: each buffer operand's resolved
        view (`_view`), the type of the buffer it views and the attributes of its allocation
        that the class reads (``VERIFY_ALLOC_ATTRS``; all when it states none), and the
        target. A class stating ``VERIFY_VIEW_FACTS`` (a function of a resolved
        `access.AccessPattern` returning a hashable value: what its checks read of the view
        beyond the buffer's type and those attributes) is keyed by that value instead of the
        view (`_facts`): the ops whose views differ only in what its checks do not read (the
        buffer viewed, an offset it does not check, the values its offsets are computed from)
        share one verdict."""
        known, buffer_type = self._operand_views_now, self._buffer_type
        key: list = []
        for value in op._operands:  # noqa: SLF001
            part = known.get((id(value), id(plan)))
            if part is None:
                if not isinstance(value._type, buffer_type):  # noqa: SLF001
                    continue
                part = self._operand_view(value, plan)
            key += part
        key += (self._target(op), self._current_target)
        return tuple(key)

    def _operand_view(self, value: SSAValue, plan: _Plan) -> tuple:
        """What `_views_key` holds of the buffer operand ``value`` for an op of ``plan``, found
        once per verification (the many ops reading one tile share it; nothing changes the IR
        while a verification runs)."""
        serial = self._serial
        names = plan.alloc_attrs
        facts = plan.view_facts
        view, access = self._view(value)
        root = access.buffer
        if facts is not None:
            view = self._facts(facts, view, access)
        part: list = [None, view, serial(root.type)]
        attributes = getattr(root.owner, "attributes", None)  # None: a block argument
        if attributes:
            if names is None:
                for name, attr in attributes.items():
                    part += (name, serial(attr))
            else:
                for name in names:
                    part += (name, serial(attributes.get(name)))
        answer = self._operand_views_now[id(value), id(plan)] = tuple(part)
        return answer

    def _facts(self, facts, view: int, access: object) -> int:
        """The `_serial` of ``facts(access)`` (a class's ``VERIFY_VIEW_FACTS`` of the view whose
        serial is ``view``), found once per pair for the life of the verifier."""
        try:
            return self._facts_of[facts, view]
        except KeyError:
            answer = self._facts_of[facts, view] = self._serial(facts(access))
            return answer

    def _context(self, op: Operation) -> tuple:
        """The properties of ``op``'s enclosing kernel and the attributes of the top-level op,
        by `_serial` (shared by the ops of a block, for one verification)."""
        block = op.parent
        try:
            return self._contexts[id(block)]
        except KeyError:
            pass
        from tirx_mlir.dialects.tirx.kernel import enclosing_kernel

        kernel = enclosing_kernel(op)
        serial = self._serial
        key: list = [kernel is None, self._target(op), self._current_target]
        top = op.get_toplevel_object()
        for items in (kernel.properties.items() if kernel is not None else (),
                      top.attributes.items() if isinstance(top, Operation) and top is not op
                      else ()):
            for name, attr in items:
                key += (name, serial(attr))
            key.append(None)
        answer = tuple(key)
        if block is not None:
            self._contexts[id(block)] = answer
        return answer

    def _target(self, op: Operation) -> str | None:
        block = op.parent
        try:
            return self._targets[id(block)]
        except KeyError:
            from tirx_mlir.target.target import target_text_of

            text = target_text_of(op)
            if block is not None:
                self._targets[id(block)] = text
            return text

    def _view(self, value: SSAValue) -> tuple:
        """(the `_serial` of the view ``value`` resolves to, its resolved view). A view is
        resolved once for the life of the verifier: its record is found by what its
        resolution reads (`_view_signature`; the record holds the objects it names by
        identity), and a view found so is given to the checks of this verification
        (`access.shared_answers`) as if they had resolved it."""
        try:
            return self._views_now[id(value)]
        except KeyError:
            pass
        signature, kept = self._view_signature(value)
        record = self._view_records.get(signature)
        if record is None:
            access = self._resolve(value)
            record = self._view_records[signature] = (self._serial(access), access, kept)
        else:
            answers = self._answers()
            if answers is not None and value not in answers:
                answers[value] = record[1]  # equal to what `resolve_access` would find
        answer = self._views_now[id(value)] = (record[0], record[1])
        return answer

    def _view_signature(self, value: SSAValue) -> tuple[tuple, tuple]:
        """What the resolution of ``value`` reads, as a record's key: for a view op's result,
        its class, the `_serial` of the view of its source (by value), of its result type and of
        each property, and its SSA offsets, sizes and guards (`_index_signature`; an offset that
        folds to a number, by value), so the equal views that dispatch builds again and again
        (the same slice of one tile for each instruction) are resolved once, and so is a view
        whose constant offset cse or canonicalize replaced by an equal one; for any other value
        (a buffer, the root of a chain), the value itself."""
        owner = value.owner
        if not isinstance(owner, self._view_ops):
            return (id(value), id(value.type)), (value, value.type)
        operands = owner._operands  # noqa: SLF001
        serial = self._serial
        signature: list = [type(owner), self._view(operands[0])[0], serial(value.type)]
        offsets = 0
        for name, attr in owner.properties.items():
            signature.append(serial(attr))
            if name == "operandSegmentSizes":
                offsets = self._offset_count(attr)
        kept: list = []
        for position, index in enumerate(operands[1:]):
            part, held = self._index_signature(index, position < offsets)
            signature.append(part)
            kept += held
        return tuple(signature), tuple(kept)

    def _offset_count(self, segments: object) -> int:
        """How many of a slice's index operands are offsets (its ``operandSegmentSizes``'
        second entry), found once per attribute object (`_serial` keeps it alive)."""
        try:
            return self._offsets_of[id(segments)]
        except KeyError:
            values = segments.get_values()  # type: ignore[attr-defined]
            count = self._offsets_of[id(segments)] = values[1] if len(values) > 1 else 0
            return count

    def _index_signature(self, value: SSAValue, offset: bool = False) -> tuple[tuple, tuple]:
        """What `access.index_expr` reads of ``value``: the constants, additions and
        multiplications it folds through, by identity (the objects named by id kept), but for an
        integer constant folded as an ``offset`` (or inside the arithmetic), which
        `access.index_expr` reads as its number only: by the `_serial` of its value. A guard
        (not an ``offset``) is kept in the resolved view as the value itself: by identity."""
        owner = value.owner
        if offset and type(owner) is self._constant_class:
            attr = owner.properties.get("value")
            if type(attr) is self._integer_attr:
                return (0, self._serial(attr)), ()
        try:
            return self._indices_now[id(value)]
        except KeyError:
            pass
        name = getattr(type(owner), "name", None)
        if name == "arith.constant":
            attr = owner.properties.get("value")
            answer = (id(value), id(owner), id(attr)), (value, owner, attr)
        elif name in _FOLDED:
            parts = [self._index_signature(v, True) for v in owner._operands]  # noqa: SLF001
            answer = (id(value), id(owner), *(p[0] for p in parts)), \
                (value, owner, *(a for p in parts for a in p[1]))
        else:
            answer = (id(value),), (value,)
        self._indices_now[id(value)] = answer
        return answer

    def _visit_region_op(self, op: Operation, plan: _Plan) -> tuple:
        for operand in op._operands:  # noqa: SLF001
            if isinstance(operand, ErasedSSAValue):
                raise ValueError("Erased SSA value is used by the operation")
        _check_terminator(op)
        start, outer = len(self._visited), len(self._outer)
        contents = self._contents(op)
        local = self._local_key(op, plan)
        key = (local, _site(op, plan), contents)
        if self._path is not None:  # after a report: on its path, what it holds changed
            digest = entry = None
            self._entered.add(id(op))
        else:
            digest = hash(key)  # once: a kernel's key holds a token per op of its body
            entry = self._regions.get(digest)
            if entry is None or entry[0] != key:
                entry = self._regions_now.get(digest)
                if entry is not None and entry[0] != key:
                    entry = None
        serial = None if entry is None else entry[1]
        if serial is None:
            if self._auditing and id(op) not in self._always and id(op) not in self._entered:
                self._unreported.append(op)
            serial = self._new_serial()
            free = self._free_after_report(op, start, outer)
            if free is None:
                free = self._free_values(op, contents)
            self._free[serial] = free
            serial_of = self._serial
            shape = tuple(tuple(tuple(serial_of(arg.type) for arg in block.args)
                                for block in region.blocks) for region in op.regions)
            isolated = free == frozenset()
            narrow = self._region_check_key(op, key, shape, isolated)
            if narrow is None or narrow not in self._verified:
                self._check(op, local, shape, isolated=isolated)
                if narrow is not None:
                    self._verified[narrow] = 0
            if free and _has_trait(type(op), IsolatedFromAbove):
                self._free[serial] = frozenset()  # the check passed: nothing is free (exact)
        if digest is not None:
            self._regions_now[digest] = (key, serial)
        token = (id(op), serial, *map(id, op._operands))  # noqa: SLF001
        self._tokens_now[id(op)] = (op, token)
        return token

    def _region_check_key(self, op: Operation, key: tuple, shape: tuple,
                          isolated: bool) -> tuple | None:
        """What the check of a `REGION_CHECK_READS` op reads (its region key's local part and
        site, its blocks' argument types ``shape`` and `_ends`), as a key of ``_verified``; None
        for another class, or for an op `IsolatedFromAbove` not known ``isolated`` (its check
        then walks its regions)."""
        cls = type(op)
        reads = _NARROW.get(cls, 0)
        if reads == 0:
            reads = _NARROW[cls] = REGION_CHECK_READS.get(op.name)
        if reads is None or (not isolated and _has_trait(cls, IsolatedFromAbove)):
            return None
        return ("region check", key[0], key[1], shape,
                self._ends(op) if reads == "ends" else self._symbols(op))

    def _ends(self, op: Operation) -> tuple:
        """Each block of ``op``'s regions, by its last op: its class and its operands' types
        (by `_serial`), or None when the block is empty."""
        serial = self._serial
        ends: list = []
        for region in op.regions:
            for block in region.blocks:
                last = block._last_op  # noqa: SLF001
                ends.append(None if last is None else  # noqa: SLF001 (``_type``, ``_operands``)
                            (type(last), *(serial(v._type) for v in last._operands)))
        return tuple(ends)

    def _symbols(self, op: Operation) -> tuple:
        """The ``sym_name`` of each op in ``op``'s blocks (by `_serial`; None for an op without
        one), what xDSL's `SymbolTable` check reads of them."""
        serial = self._serial
        names: list = []
        for region in op.regions:
            for block in region.blocks:
                for child in block.ops:
                    name = child.get_attr_or_prop("sym_name")
                    names.append(None if name is None else serial(name))
        return tuple(names)

    def _free_after_report(self, op: Operation, start: int,
                           outer: int | None = None) -> frozenset[int] | None:
        """After a report (`_path`): the values ``op``'s regions used from outside at the last
        verification, with the operands of the ops visited in it now (``_visited[start:]``)
        that are defined outside. The others the report does not reach, so their operands and
        where those are defined are as they were; a value no longer used may remain, so the
        set may hold more than `_free_values` (an empty one is exact: ``op`` is isolated from
        above). None: not known (`_free_values` decides). A region op visited in it whose own
        set was found so (`_spans`) is read from the values its descendants use from outside it,
        not by its descendants again. While `check` walks (``_dom``), those operands are the
        ones `_dominated` recorded in ``_outer`` from ``outer`` on, defined in a block enclosing
        ``op`` (or in no block being walked); the ops visited but not `_dominated` are not
        reached by the report (their operands are as they were)."""
        dom = self._dom
        if dom is not None and outer is not None and not self._auditing:  # `check`
            depth = len(dom) - 1  # of the block holding ``op``: its own blocks were deeper
            records = self._outer
            found = [record for record in records[outer:] if record[1] <= depth]
            records[outer:] = found  # the others are defined in ``op``: so in its holders
            if self._path is None:  # every op in it was `_dominated`: exact
                return frozenset([id(record[0]) for record in found])
            last = self._tokens.get(id(op))
            if last is None or last[0] is not op:  # new: every op in it was, too
                return frozenset([id(record[0]) for record in found])
            free = self._free.get(last[1][1])
            if free is None:
                return None
            return free.union([id(record[0]) for record in found]) if found else free
        if self._path is None:
            return None
        last = self._tokens.get(id(op))
        if last is None or last[0] is not op:
            return None
        free = self._free.get(last[1][1])
        if free is None:
            return None
        visited, spans = self._visited, self._spans
        end = len(visited)
        inside: dict[int, bool] = {}  # by block id: in ``op`` or not (`_within`, once a block)
        outside: list[SSAValue] = []
        i = start
        while i < end:
            child = visited[i]
            i += 1
            span = spans.get(id(child)) if child.regions else None
            operands = child._operands  # noqa: SLF001
            groups = (operands,) if span is None else (operands, span[1])
            for values in groups:
                for value in values:
                    kind = type(value)
                    if kind is OpResult:
                        block = value.op.parent
                    elif kind is BlockArgument:
                        block = value.block
                    else:  # erased: its owner, as any other value's
                        owner = value.owner
                        block = owner if isinstance(owner, Block) else owner.parent
                    known = inside.get(id(block))
                    if known is None:
                        known = inside[id(block)] = _within(block, op)
                    if not known:  # defined outside ``op`` (or detached)
                        outside.append(value)
            if span is not None:  # what its descendants use from outside it is in ``span[1]``
                i = span[0]
        spans[id(op)] = (end, outside)
        return free.union(map(id, outside)) if outside else free

    def _free_values(self, op: Operation, contents: tuple) -> frozenset[int] | None:
        """The ids of the values the ops in ``op``'s regions use (at any depth) that are not
        defined in them (results of ops and arguments of blocks nested in ``op``), from its
        direct children and the sets kept for the region ops among them; None when a child's is
        not known. Empty: ``op`` is isolated from above (xDSL's trait would pass)."""
        used: set[int] = set()
        defined: set[int] = set()
        free = self._free
        define, use = defined.update, used.update
        for region, blocks in zip(op.regions, contents):
            for block, (_, _, tokens) in zip(region.blocks, blocks):
                define(map(id, block.args))
                child = block._first_op  # noqa: SLF001 - the ops by their links (`block.ops`)
                i = 0
                while child is not None:
                    define(map(id, child.results))
                    use(map(id, child._operands))  # noqa: SLF001
                    if child.regions:
                        inner = free.get(tokens[i][1])
                        if inner is None:
                            return None
                        use(inner)
                    child = child._next_op  # noqa: SLF001
                    i += 1
        return frozenset(used - defined)

    def _contents(self, op: Operation) -> tuple:
        """Verify the ops in ``op``'s regions; their blocks, argument types and tokens (by
        id and `_serial`)."""
        serial = self._serial
        regions = []
        for region in op.regions:
            blocks = []
            if len(region.blocks) > 1:
                self._multi_block = True
                self._dom_failed = True  # dominance across blocks: the full check decides
            for block in region.blocks:
                if block.parent is not region:
                    raise ValueError("Parent pointer of block does not refer to containing "
                                     "region")
                self._held_now.append(block)
                blocks.append((id(block), tuple(serial(arg.type) for arg in block.args),
                               self._visit_block(block)))
            regions.append(tuple(blocks))
        return tuple(regions)

    def _visit_block(self, block: Block) -> tuple:
        """The tokens of the ops of ``block``, verified; an op whose `_fingerprint` is the one
        the last verification found valid has its token again (the fast path, inline), and one
        whose fingerprint differs only in which values its operands are (`_same_key`: a use
        redirected by canonicalize, cse, a pass replacing a value) has its key's serial again
        without the key being built. After a report, an op it does not reach that is where the
        last verification found it (not moved here, not the block's last op, not a terminator)
        costs only its token and its place in the dominance walk (`_skip_unreached`)."""
        tokens: list = []
        append, held = tokens.append, self._held_now.append
        known, now, fingerprint = self._ops.get, self._ops_now, self._fingerprint
        affected, moved, plans = self._affected, self._uses_moved, _plans
        dom = None if self._auditing else self._dom
        walked: set[int] = set()
        if dom is not None:  # `check` after a report: the dominance of what it reaches
            parent = block.parent_op()
            dom.append((block, parent is not None and parent.name == "builtin.module", walked))
        last_op = block._last_op  # noqa: SLF001
        op = block._first_op  # noqa: SLF001
        while op is not None:
            if affected is not None and id(op) not in affected:  # after a report: skip what
                op = self._skip_unreached(op, block, last_op, append, walked)  # it does not reach
                if op is None:
                    break
            if op.parent is not block:
                raise ValueError("Parent pointer of operation does not refer to containing "
                                 "region")
            last, now_fp = known(id(op)), None
            if dom is not None and (affected is None or not (
                    last is not None and last[0] is op and id(op) not in affected and
                    last[1][2] is block)):
                self._dominated(op)  # every op, or new, reached by the report or moved here
            if last is not None and last[0] is op and (
                    (affected is not None and (id(op) not in affected or id(op) in moved) and
                     not last[3].last and last[1][2] is block)  # not moved here (xDSL's
                    # inline_block tells no one); of the users of a moved op, only their
                    # dominance (above)
                    or (last[1][0] is not None and  # unbuilt: keyed (`_unbuilt`)
                        last[1] == (now_fp := fingerprint(op, last[3])))):
                if moved and id(op) in moved:  # the values it uses may now be defined
                    self._visited.append(op)  # outside a region op (`_free_after_report`)
                if op is last_op:
                    _check_terminator(op)
                held(op)
                now[id(op)] = last
                append(last[2])
            elif now_fp is not None and self._same_key(op, last, now_fp):
                if op is last_op:
                    _check_terminator(op)
                token = (id(op), last[2][1], *map(id, op._operands))  # noqa: SLF001
                held(op)
                now[id(op)] = (op, now_fp, token, last[3])
                append(token)
            elif now_fp is None and not op.regions and not op._successors and \
                    (plan := plans.get(type(op)) or _plan_of(op)) is not None and plan.leaf:
                append(self._visit_new_leaf(op, plan))  # new (or its id reused): the most common
            else:
                append(self._visit(op, now_fp))
            walked.add(id(op))
            op = op._next_op  # noqa: SLF001
        if dom is not None:
            dom.pop()
        if block.first_op is None:
            region = block.parent
            parent = region.parent if region is not None else None
            if parent is not None and len(region.blocks) == 1 and \
                    not parent.has_trait(NoTerminator):
                raise VerifyException(f"Operation {parent.name} contains empty block in "
                                      "single-block region that expects at least a terminator")
        return tuple(tokens)

    def _skip_unreached(self, op: Operation | None, block: Block, last_op: Operation | None,
                        append, walked: set[int]) -> Operation | None:
        """From ``op`` on in ``block`` (after a report), pass over the ops the report does not
        reach that the last verification found valid in this block, none of them ``last_op``
        nor a terminator: each keeps its `_ops` entry (carried over), its token and, for the
        dominance walk, its place (``walked``); their operands and places are as they were
        (the report names every change), so neither their checks nor their dominance are
        looked at. Returns the first op that needs more (None at the end of the block)."""
        known, affected, add = self._ops.get, self._affected, walked.add
        while op is not None:
            i = id(op)
            last = known(i)
            if last is None or last[0] is not op or i in affected or op is last_op or \
                    last[1][2] is not block or last[3].last or op.parent is not block:
                return op
            append(last[2])
            add(i)
            op = op._next_op  # noqa: SLF001
        return None


def _unbuilt(op: Operation) -> list:
    """The `ModuleVerifier._ops` entry's fingerprint of an op the verification met new (not
    built by `_visit_block`): its place only (``[None, None, block]``: what `_skip_unreached`
    and the dominance walk read of an entry), the fingerprint itself left to the next
    verification that compares the op (equal to no fingerprint: the op's key is then built
    and found). Most new ops are replaced or changed before they are compared (dispatch
    replaces the tile ops, trn-lower-layout retypes the nki ops), so their fingerprints were
    built for nothing."""
    return [None, None, op.parent]


def _attribute_readers(op: Operation, seen: set[int], blocks: dict[int, Block]) -> None:
    """Add to ``seen`` (and their blocks to ``blocks``) the ops whose key reads the attributes
    of ``op``, an op reported changed in its own attributes only (``changed(op,
    inside=False)``; an allocation given its address) besides ``op`` itself: the "views" ops
    whose plan reads the attributes of the allocation their views resolve to
    (``VERIFY_ALLOC_ATTRS`` not empty, or not stated), found through the view ops using its
    results. The other
    users read only its results (their types and which values they are), which did not change;
    an op verified in full at every visit (no plan) is visited wherever it is."""
    stack, done = [op], {id(op)}
    roles = _ATTRIBUTE_ROLES
    while stack:
        for result in stack.pop().results:
            for use in result.uses:
                user = use.operation
                role = roles.get(type(user))
                if role is None:
                    role = _attribute_role(user)
                if role == 0 or id(user) in done:
                    continue
                done.add(id(user))
                if role == _VIEW:
                    stack.append(user)
                elif user.parent is not None:
                    seen.add(id(user))
                    blocks[id(user.parent)] = user.parent


_ATTRIBUTE_ROLES: dict[type, int] = {}
"""`_attribute_role` by op class."""


def _attribute_role(op: Operation) -> int:
    """What an op using an allocation's results (or its views') reads of its attributes,
    found once per class: `_VIEW` (a view op: the ops using it may read them), 1 (a "views" op
    whose plan reads them) or 0 (none: the others' keys read only the values they use and their
    types); an op with successors (verified in full) is 0 without being kept."""
    if op._successors:  # noqa: SLF001
        return 0
    kind = _kind_of(op)
    if kind != _VIEW:
        plan = _plan_of(op)
        kind = 1 if plan is not None and plan.reads == "views" and plan.alloc_attrs != () else 0
    _ATTRIBUTE_ROLES[type(op)] = kind
    return kind


def _within(block: Block | None, op: Operation) -> bool:
    """Whether ``block`` is nested (at any depth) in ``op``'s regions."""
    while block is not None:
        holder = block.parent_op()
        if holder is op:
            return True
        block = holder.parent if holder is not None else None
    return False


def _check_terminator(op: Operation) -> None:
    """xDSL's rule for the last op of a block (`Operation.verify`), for an op checked from the
    memo (one without successors)."""
    block = op.parent
    region = block.parent if block is not None else None
    if region is None or block.last_op is not op:
        return
    if len(region.blocks) == 1:
        parent = region.parent
        if parent is not None and not _has_trait(type(parent), NoTerminator) and \
                not _has_trait(type(op), IsTerminator):
            raise VerifyException(f"Operation {op.name} terminates block in single-block "
                                  "region but is not a terminator")
    elif len(region.blocks) > 1 and not _has_trait(type(op), IsTerminator):
        raise VerifyException(f"Operation {op.name} terminates block in multi-block region "
                              "but is not a terminator")


_NARROW: dict[type, str | None] = {}
"""What the check of a `REGION_CHECK_READS` class reads of its blocks (None: another class)."""

_class_traits: dict[tuple[type, type], bool] = {}


def _has_trait(cls: type, trait: type) -> bool:
    """``cls.has_trait(trait)``, found once per op class (traits are declared on the class)."""
    try:
        return _class_traits[cls, trait]
    except KeyError:
        answer = _class_traits[cls, trait] = cls.has_trait(trait)
        return answer
