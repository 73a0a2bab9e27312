"""MLIR's memory effects for the arith ops xDSL 0.74 declares none for.

MLIR gives every arith op ``NoMemoryEffect`` (``Arith_Op`` in ArithOps.td; the divisions add
``ConditionallySpeculatable``, as xDSL's ``arith.divui`` has it). xDSL 0.74 leaves
``arith.remui`` and ``arith.extsi`` without any memory-effect trait, so `xdsl.traits.get_effects`
answers "unknown" for them: ``cse`` never merges two equal remainders (the CUDA lowering's
``tid % 32`` for the lane id, made once per tile op that asks) and ``dce`` never erases an
unused one. `complete_arith_effects` gives those classes traits of their own with the one MLIR
states (once; a class that has a memory-effect trait by then is left alone; their bases keep
theirs), before the passes' `FactsByClass` reads them.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.ir import OpTraits
from xdsl.traits import MemoryEffect, NoMemoryEffect

from tirx_mlir.lazy_op_definitions import when_defined

WITHOUT_EFFECTS = (arith.RemUIOp, arith.ExtSIOp)
"""The arith classes xDSL 0.74 gives no memory-effect trait (every other arith op has one)."""


def complete_arith_effects() -> None:
    """Queue the trait for each class (`when_defined`: a class completed lazily gets it when
    its definition is made, before anything reads its traits; no class is completed here)."""
    for op_class in WITHOUT_EFFECTS:
        when_defined(op_class, _add_no_memory_effect)


def _add_no_memory_effect(op_class: type) -> None:
    """Give ``op_class`` traits of its own with the effect added: a class that declares no
    traits shares its ``OpTraits`` object with its bases (``arith.remui`` with xDSL's binary-op
    bases and ``HasFolderInterface``), and adding to that object would make every class sharing
    it - any dialect's op mixing in ``HasFolderInterface`` - pure as well."""
    if op_class.get_traits_of_type(MemoryEffect):
        return
    own = OpTraits(lambda traits=tuple(op_class.traits): (*traits, NoMemoryEffect()))
    definition = op_class.get_irdl_definition()
    if definition.traits is op_class.traits:  # the definition reads the class's object
        definition.traits = own
    op_class.traits = own
