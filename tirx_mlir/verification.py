"""Verifying a module after every pass, cheaply: each op's own checks run once per distinct input.

MLIR's pass manager verifies the IR after every pass, and so does `Pipeline.apply`; most ops are
unchanged by most passes, so their checks would compute the same answer again. `ModuleVerifier`
keeps that default and makes it cheap: an op class that states what its verifier reads

* ``VERIFY_READS = "local"``: its own operand and result types, properties, attributes and their
  counts (as `irdl`'s generic checks do), and the value of each operand an ``arith.constant``
  defines (a slice's constant guard is checked against its maximum);
* ``VERIFY_READS = "views"``: those, plus the resolved view (`access.resolve_access`) of each
  buffer operand, the type and attributes of the allocation the view reads, and the op's target;

has its ``verify_`` (the generic IRDL checks and its custom rules) run once per distinct value of
what it reads, for the life of the verifier (one pipeline run). Every key holds the attributes and
SSA values it names, so none of them can be freed and its identity reused while the memo lives.
Ops that do not state it (and any op with regions, successors or a trait whose check is not
local) are verified in full every time; the structural rules (parents, terminators, erased
operands) are checked for every op. While one verification runs nothing mutates the IR, so views
are resolved once per verification (`access.shared_views`) and shared by the keys and the checks.

A verification that fails is redone by xDSL's ``module.verify()``, so the error reported is
exactly the one the plain verifier gives.
"""

from __future__ import annotations

from xdsl.ir import Block, ErasedSSAValue, Operation, Region
from xdsl.irdl import IRDLOperation
from xdsl.traits import IsTerminator, NoTerminator, OpTrait
from xdsl.utils.exceptions import VerifyException

LOCAL_DIALECTS = ("arith",)
"""Dialects whose ops' verifiers read only their own types and attributes (xDSL's arith)."""

_TRIVIAL_TRAITS: set[type] = set()
_memoisable: dict[type, str | None] = {}


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
    """A function whose body does nothing (``pass`` / ``return``)."""
    import dis

    if not hasattr(function, "__code__"):
        return False
    steps = [(i.opname, i.argval) for i in dis.get_instructions(function)  # type: ignore[arg-type]
             if i.opname not in ("RESUME", "NOP")]
    return steps in ([("LOAD_CONST", None), ("RETURN_VALUE", None)], [("RETURN_CONST", None)])


def reads_of(op: Operation) -> str | None:
    """What the verifier of ``op``'s class reads ("local", "views"), or None: verify in full."""
    cls = type(op)
    try:
        return _memoisable[cls]
    except KeyError:
        pass
    reads = getattr(cls, "VERIFY_READS", None)
    if reads is None and op.name.split(".", 1)[0] in LOCAL_DIALECTS:
        reads = "local"
    if reads is not None and not (isinstance(op, IRDLOperation) and
                                  all(_trait_is_local(t) for t in cls.traits)):
        reads = None
    _memoisable[cls] = reads
    return reads


def verify_keys(op: Operation, reads: str) -> tuple[tuple, tuple]:
    """Everything the verifier of ``op`` reads, twice: by value, and with each attribute by its
    identity (attributes are immutable: one object, one value; hashing an id is cheap, and the
    memo holds the value key, so no id is reused while it lives)."""
    values: list = [type(op)]
    ids: list = [type(op)]
    for v in op.operands:
        owner = v.owner  # by name: importing xDSL's arith costs start-up time
        constant = owner.properties.get("value") if isinstance(owner, Operation) and \
            owner.name == "arith.constant" else None
        values += (v.type, constant)
        ids += (id(v.type), id(constant))
    values.append(None)
    ids.append(None)
    for v in op.results:
        values.append(v.type)
        ids.append(id(v.type))
    values.append(None)
    ids.append(None)
    for items in (op.properties.items(), op.attributes.items()):
        for name, attr in items:
            values += (name, attr)
            ids += (name, id(attr))
        values.append(None)
        ids.append(None)
    if reads == "views":
        from tirx_mlir.dialects.tirx.access import resolve_access
        from tirx_mlir.dialects.tirx.attributes import BufferType
        from tirx_mlir.target.target import target_text_of

        for value in op.operands:
            if isinstance(value.type, BufferType):
                access = resolve_access(value)
                values += (access, access.buffer.type)
                ids += (access, id(access.buffer.type))
                root = access.buffer.owner
                if isinstance(root, Operation):
                    for name, attr in root.attributes.items():
                        values += (name, attr)
                        ids += (name, id(attr))
                values.append(None)
                ids.append(None)
        target = target_text_of(op)
        values.append(target)
        ids.append(target)
    return tuple(values), tuple(ids)


class ModuleVerifier:
    """Verifies a module as ``module.verify()`` does, each op's own checks memoised (see the
    module docstring); make one per pipeline run, call `verify` after each pass."""

    def __init__(self) -> None:
        self._verified: dict[tuple, tuple] = {}
        """Keys verified, by value and by identity (`verify_keys`), each to the key by value."""

    def verify(self, module: Operation) -> None:
        from tirx_mlir.dialects.tirx.access import shared_views

        try:
            with shared_views():
                self._verify_op(module)
        except Exception as err:  # noqa: BLE001 - the plain verifier words the error
            module.verify()
            raise err

    def _verify_op(self, op: Operation) -> None:
        reads = None if op.regions or op.successors else reads_of(op)
        if reads is None:
            op.verify(verify_nested_ops=False)
            for region in op.regions:
                self._verify_region(region)
            return
        for operand in op.operands:
            if isinstance(operand, ErasedSSAValue):
                raise ValueError("Erased SSA value is used by the operation")
        _check_terminator(op)
        try:
            key, fast = verify_keys(op, reads)
        except Exception:  # noqa: BLE001 - e.g. a view that does not resolve: check in full
            op.verify(verify_nested_ops=False)
            return
        if fast in self._verified:
            return
        if key not in self._verified:  # equal attributes held by other objects
            op.verify(verify_nested_ops=False)
            self._verified[key] = key
        self._verified[fast] = key  # keeps the attributes, hence their ids, alive

    def _verify_region(self, region: Region) -> None:
        for block in region.blocks:
            if block.parent is not region:
                raise ValueError("Parent pointer of block does not refer to containing region")
            self._verify_block(block)

    def _verify_block(self, block: Block) -> None:
        for op in block.ops:
            if op.parent is not block:
                raise ValueError("Parent pointer of operation does not refer to containing "
                                 "region")
            self._verify_op(op)
        if block.first_op is None:
            region = block.parent
            parent = region.parent if region is not None else None
            if parent is not None and len(region.blocks) == 1 and \
                    not parent.has_trait(NoTerminator):
                raise VerifyException(f"Operation {parent.name} contains empty block in "
                                      "single-block region that expects at least a terminator")


def _check_terminator(op: Operation) -> None:
    """xDSL's rule for the last op of a block (`Operation.verify`), for an op checked from the
    memo (one without successors)."""
    block = op.parent
    region = block.parent if block is not None else None
    if region is None or block.last_op is not op:
        return
    if len(region.blocks) == 1:
        parent = region.parent
        if parent is not None and not parent.has_trait(NoTerminator) and \
                not op.has_trait(IsTerminator):
            raise VerifyException(f"Operation {op.name} terminates block in single-block "
                                  "region but is not a terminator")
    elif len(region.blocks) > 1 and not op.has_trait(IsTerminator):
        raise VerifyException(f"Operation {op.name} terminates block in multi-block region "
                              "but is not a terminator")
