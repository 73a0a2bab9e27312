"""`tirx_mlir.lazy_op_definitions`: an IRDL op class is completed by xDSL's decorator the first
time it is used (an instance, its definition, its parser, its traits), with the same definition
and behaviour as when completed at import; work queued with `when_defined` runs after."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest
from xdsl.dialects.builtin import IndexType
from xdsl.irdl import (IRDLOperation, operand_def, operations, result_def,
                       traits_def)
from xdsl.traits import Pure
from xdsl.utils.exceptions import PyRDLOpDefinitionError, VerifyException

from tirx_mlir import lazy_op_definitions as lazy
from tirx_mlir.located_parser import parse_module  # installs the lazy decorator


def irdl_op_definition(cls):
    """The decorator as a dialect imported now gets it (the installed, lazy one)."""
    return operations.irdl_op_definition(cls)


def _pair_op(decorate):
    @decorate
    class PairOp(IRDLOperation):
        name = "test.lazy_pair"
        lhs = operand_def(IndexType)
        rhs = operand_def(IndexType)
        res = result_def(IndexType)
        traits = traits_def(Pure())
        assembly_format = "$lhs `,` $rhs attr-dict `:` type($res)"

        def __init__(self, lhs, rhs):
            super().__init__(operands=[lhs, rhs], result_types=[IndexType()])

    return PairOp


def _index_value():
    return parse_module("%0 = arith.constant 1 : index", "<lazy>").body.block.first_op.results[0]


def test_install_is_idempotent_and_replaces_the_decorator_everywhere():
    lazy.install()
    installed = operations.irdl_op_definition
    lazy.install()
    assert operations.irdl_op_definition is installed
    assert getattr(installed, "lazy_op_definitions", False)
    import xdsl.irdl

    assert xdsl.irdl.irdl_op_definition is installed


def test_a_recorded_class_has_the_definition_xdsl_builds_eagerly():
    lazy_cls = _pair_op(irdl_op_definition)
    assert lazy.is_pending(lazy_cls)
    eager_cls = _pair_op(operations.irdl_op_definition.eager)
    lazy_def = lazy_cls.get_irdl_definition()
    assert not lazy.is_pending(lazy_cls)
    eager_def = eager_cls.get_irdl_definition()
    assert lazy_def == eager_def
    assert lazy_def.traits == eager_def.traits
    assert set(vars(lazy_cls)) == set(vars(eager_cls))  # the same accessors, no marker left


@pytest.mark.parametrize("first_use", ["init", "create", "build", "definition", "traits", "parse"])
def test_every_first_use_completes_the_class(first_use):
    cls = _pair_op(irdl_op_definition)
    value = _index_value()
    assert lazy.is_pending(cls)
    if first_use == "init":
        op = cls(value, value)
    elif first_use == "create":
        op = cls.create(operands=[value, value], result_types=[IndexType()])
    elif first_use == "build":
        op = cls.build(operands=[value, value], result_types=[IndexType()])
    elif first_use == "definition":
        assert cls.get_irdl_definition().name == "test.lazy_pair"
        op = cls(value, value)
    elif first_use == "traits":
        assert cls.has_trait(Pure)  # asked of the class before any instance exists
        op = cls(value, value)
    else:
        from tirx_mlir.located_parser import LocatedParser, make_context

        ctx = make_context()
        ctx.load_op(cls)
        line = "%1 = test.lazy_pair %0, %0 : index"
        text = f"%0 = arith.constant 1 : index\n{line}"
        module = LocatedParser(ctx, text, "<lazy>").parse_module()
        op = module.body.block.last_op
        assert str(module).splitlines()[-2].strip() == line
    assert not lazy.is_pending(cls)
    assert isinstance(op, cls) and op.lhs is op.operands[0] and op.res is op.results[0]
    op.verify()


def test_the_definition_is_still_verified():
    cls = _pair_op(irdl_op_definition)
    wrong = parse_module("%0 = arith.constant 1 : i32", "<lazy>").body.block.first_op.results[0]
    op = cls.create(operands=[wrong, wrong], result_types=[IndexType()])
    with pytest.raises(VerifyException, match="index"):
        op.verify()


def test_a_subclass_completes_its_parent_first():
    # xDSL reads the parents' class dicts as its decorator left them (and refuses to define an
    # op on top of a defined op class): the parent is completed first, so the subclass gets
    # xDSL's answer, at its first use
    parent = _pair_op(irdl_op_definition)
    assert lazy.is_pending(parent)

    @irdl_op_definition
    class Child(parent):
        name = "test.lazy_child"

    assert not lazy.is_pending(parent) and lazy.is_pending(Child)
    with pytest.raises(PyRDLOpDefinitionError, match="Child.lhs is neither a function"):
        Child.get_irdl_definition()
    eager_parent = _pair_op(operations.irdl_op_definition.eager)
    with pytest.raises(PyRDLOpDefinitionError, match="Child.lhs is neither a function"):
        operations.irdl_op_definition.eager(
            type("Child", (eager_parent,), {"name": "test.lazy_child"}))


def test_when_defined_runs_after_completion_or_at_once():
    cls = _pair_op(irdl_op_definition)
    seen: list[tuple[str, bool]] = []
    lazy.when_defined(cls, lambda c: seen.append(("queued", lazy.is_pending(c))))
    assert seen == []
    cls.get_irdl_definition()
    assert seen == [("queued", False)]
    lazy.when_defined(cls, lambda c: seen.append(("now", lazy.is_pending(c))))
    assert seen == [("queued", False), ("now", False)]


def test_a_malformed_definition_is_reported_at_first_use():
    @irdl_op_definition
    class Bad(IRDLOperation):
        name = "test.lazy_bad"
        x = 3  # neither a field definition nor a method: xDSL refuses the class

    with pytest.raises(PyRDLOpDefinitionError, match="neither a function"):
        Bad.get_irdl_definition()


def test_the_project_work_on_defined_classes_still_runs():
    # def_check's compiled checks (tirx, upstream: queued when the dialect loads) and segment
    # accessors (nki: queued at import) are installed when a class is completed
    from tirx_mlir.backends.trn.dialects.nki import MatmulOp
    from tirx_mlir.dialects.def_check import SegmentOperand
    from tirx_mlir.located_parser import make_context

    ctx = make_context()
    for dialect in ("arith", "tirx"):
        ops = list(ctx.get_dialect(dialect).operations)
        for op in ops:
            op.get_irdl_definition()
        checked = [op for op in ops if getattr(op.verify_, "__wrapped_def_check__", False)]
        assert len(checked) > len(ops) // 2, dialect
    MatmulOp.get_irdl_definition()
    assert sum(isinstance(v, SegmentOperand) for v in vars(MatmulOp).values()) == 4


def test_a_small_compile_completes_few_op_classes():
    probe = ("import sys\nsys.argv = ['tirx-opt', *sys.argv[1:]]\n"
             "from tirx_mlir.tools.tirx_opt import main\n"
             "try:\n    main()\nexcept SystemExit as done:\n    assert not done.code\n"
             "from tirx_mlir.lazy_op_definitions import defined, pending_names\n"
             "print(sorted(defined), len(pending_names()))\n")
    root = Path(__file__).resolve().parents[1]
    run = subprocess.run([sys.executable, "-c", probe, "--pass-pipeline=trn",
                          str(root / "examples" / "trn" / "nki_add_1.mlir"), "-t", "nki",
                          "-o", os.devnull], capture_output=True, text=True, check=True,
                         cwd=root)
    names, left = run.stdout.strip().splitlines()[-1].rsplit("]", 1)
    defined = ast.literal_eval(names + "]")
    assert {"arith.constant", "tirx.kernel", "tirx.copy", "nki.load", "nki.store"} <= set(defined)
    assert "arith.bitcast" not in defined and int(left) > 80
