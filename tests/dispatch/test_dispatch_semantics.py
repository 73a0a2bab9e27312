"""Tile dispatch semantics (TIRx §2.2/§2.3) with the test-only backend ``tirx_test``:
ordering, ties, decline, forced variants, failure tables, crashing predicates and impls,
nested dispatch, private buffers shared by key, init-code placement, leftovers, rollback."""

from __future__ import annotations

import pytest
from xdsl.dialects import test as test_dialect
from xdsl.dialects.builtin import StringAttr
from xdsl.utils.exceptions import VerifyException

import tirx_mlir
from tirx_mlir import registry
from tirx_mlir.diagnostics import PassError, format_location
from tirx_mlir.dispatch import cases_for, list_registered_dispatch, register_dispatch
from tirx_mlir.transforms.tile_dispatch import TileDispatchPass
from tirx_mlir.target import Target

BUF = "!tirx.buffer<16x4xf32, global>"


def kernel(body: str, target: str = "test/small", args: str = "") -> str:
    return (f'tirx.kernel @k(%X: {BUF}{args}) -> (%Y: {BUF}) grid [1] threads [1] '
            f'target "{target}" {{\n{body}\n  tirx.return\n}}')


def copy(config: str = "", extra: str = "") -> str:
    cfg = f" config {{{config}}}" if config else ""
    return f"  tirx.copy %Y, %X{extra}{cfg} : {BUF}, {BUF}"


def dispatch(text: str, **options):
    module = tirx_mlir.parse_module(text, "k.mlir")
    module.verify()
    TileDispatchPass(**options).apply(tirx_mlir.make_context(), module)
    module.verify()
    return module


def markers(module) -> list[str]:
    return [op.attributes["variant"].data for op in module.walk()
            if isinstance(op, test_dialect.TestOp) and "variant" in op.attributes]


def inits(module) -> list[str]:
    return [op.attributes["init"].data for op in module.walk()
            if isinstance(op, test_dialect.TestOp) and "init" in op.attributes]


@pytest.fixture(autouse=True)
def _backend(tirx_test):
    return tirx_test


def test_variants_are_tried_by_priority_then_name():
    order = [c.variant for c in cases_for("tirx.copy", "tirx_test")]
    assert order == ["vec_forced", "fast", "crashy", "alpha", "beta"]
    assert list_registered_dispatch()["tirx.copy"]["tirx_test"] == order


def test_highest_priority_accepting_variant_wins():
    assert markers(dispatch(kernel(copy()))) == ["fast"]


def test_predicate_reject_moves_on_and_ties_break_by_name():
    # test/wide has fast=false: fast is rejected, crashy rejects, alpha beats beta by name
    assert markers(dispatch(kernel(copy(), "test/wide"))) == ["alpha-started", "alpha"]


def test_decline_moves_on_and_leaves_no_trace():
    module = dispatch(kernel(copy("decline_alpha"), "test/wide"))
    assert markers(module) == ["beta-started", "beta"]  # alpha's partial work is gone


def test_a_predicate_raising_dispatch_fail_is_a_reject():
    assert markers(dispatch(kernel(copy("slow")))) == ["alpha-started", "alpha"]


def test_forced_variant_only_that_one_and_its_predicates_still_run():
    assert markers(dispatch(kernel(copy(extra=' dispatch "beta"')))) == ["beta-started", "beta"]
    assert markers(dispatch(kernel(copy(extra=' dispatch "vec_forced"')))) == ["vec_forced"]
    with pytest.raises(PassError) as err:
        dispatch(kernel(copy(extra=' dispatch "fast"'), "test/wide"))
    assert "fast (prio=10) | rejected: target_fast — target has fast=false" in err.value.message


def test_forced_unknown_variant_lists_the_registered_ones():
    with pytest.raises(PassError, match="no variant named 'nope' is registered") as err:
        dispatch(kernel(copy(extra=' dispatch "nope"')))
    assert err.value.hint == "registered variants: vec_forced, fast, crashy, alpha, beta"


def test_failure_table_has_one_row_per_variant_and_is_located_at_the_op():
    with pytest.raises(PassError) as err:
        dispatch(kernel(copy("decline_alpha, beta_raises"), "test/wide"))
    rows = err.value.message.splitlines()
    assert rows[0] == "tile dispatch failed: op=tirx.copy target=tirx_test"
    assert rows[1].startswith("Variant") and "| Error" in rows[1]
    body = rows[3:]
    assert body == [
        "vec_forced (prio=20) | rejected: forced_only — only used when forced with dispatch "
        "\"vec_forced\"",
        "fast (prio=10)       | rejected: target_fast — target has fast=false",
        "crashy (prio=7)      | rejected: crash_if_asked — only used by crash tests",
        "alpha (prio=5)       | declined — config says decline_alpha",
        "beta (prio=5)        | impl raised: ValueError: beta cannot copy this",
    ]
    assert format_location(err.value.op) == "k.mlir:2:3"
    assert isinstance(err.value.__cause__, ValueError)  # chained from the last impl exception


def test_a_crashing_predicate_is_a_reject_with_its_exception():
    module = dispatch(kernel(copy("crash, slow")))
    assert markers(module) == ["alpha-started", "alpha"]
    with pytest.raises(PassError) as err:
        dispatch(kernel(copy("crash, slow, decline_alpha, beta_raises")))
    assert ("crashy (prio=7)      | rejected: crash_if_asked — predicate exception: "
            "ZeroDivisionError: integer division or modulo by zero") in err.value.message


def test_no_variant_for_the_op():
    with pytest.raises(PassError, match="no registered variants for this op/target"):
        dispatch(kernel(f"  tirx.sqrt %Y, %X : {BUF}, {BUF}"))


def test_nested_dispatch_lowers_tile_ops_emitted_by_a_variant():
    module = dispatch(kernel(f"  tirx.add %Y, %X, %X : {BUF}, {BUF}, {BUF}"))
    assert markers(module) == ["fast", "add-rhs"]
    text = str(module)
    assert "tirx.copy" not in text and "tirx.add" not in text


def test_runaway_nesting_is_an_error_not_a_hang():
    with pytest.raises(PassError, match="nested deeper than 8 levels"):
        dispatch(kernel(f"  tirx.reciprocal %Y, %X config {{reemit}} : {BUF}, {BUF}"))


def test_private_buffers_are_shared_by_key_and_initialised_once():
    body = "\n".join([f"  tirx.exp %Y, %X : {BUF}, {BUF}"] * 3)
    module = dispatch(kernel(body))
    k = next(iter(module.body.block.ops))
    entry = list(k.body.block.ops)
    allocs = [o for o in entry if o.name == "tirx.alloc"]
    assert len(allocs) == 1 and str(allocs[0].result.type) == \
        "!tirx.buffer<4xf32, tirx_test.scratch>"
    uses = [o for o in entry if isinstance(o, test_dialect.TestOp) and "variant" in o.attributes]
    assert [o.operands[2] for o in uses] == [allocs[0].result] * 3
    # init code: the private buffer's init once, then each add_init in request order,
    # all after the allocations and before the first original op
    assert inits(module) == ["lut", "exp-once", "exp-once", "exp-once"]
    names = [o.attributes.get("init", o.attributes.get("variant")).data
             if isinstance(o, test_dialect.TestOp) else o.name for o in entry]
    assert names == ["tirx.alloc", "lut", "exp-once", "exp-once", "exp-once", "with_lut",
                     "with_lut", "with_lut", "tirx.return"]


def test_private_buffer_of_a_different_size_is_a_different_buffer():
    body = f"  tirx.exp %Y, %X : {BUF}, {BUF}"
    module = tirx_mlir.parse_module(kernel(body) + "\n" + kernel(body, "test/wide")
                                    .replace("@k", "@k2"))
    TileDispatchPass().apply(tirx_mlir.make_context(), module)
    types = sorted(str(o.result.type) for o in module.walk() if o.name == "tirx.alloc")
    assert types == ["!tirx.buffer<16xf32, tirx_test.scratch>",
                     "!tirx.buffer<4xf32, tirx_test.scratch>"]


def test_a_tile_op_left_after_dispatch_fails_verification():
    module = dispatch(kernel(copy()))
    k = next(iter(module.body.block.ops))
    leftover = tirx_mlir.parse_module(kernel(copy())).body.block.ops.first.body.block.ops.first
    leftover.detach()
    # rewire the stray copy onto this kernel's arguments and put it in
    leftover.operands = list(k.body.block.args)[::-1]
    k.body.block.insert_op_before(leftover, k.body.block.last_op)
    with pytest.raises(VerifyException, match="left after tile dispatch"):
        module.verify()


def test_target_comes_from_option_kernel_module_or_with_block():
    text = kernel(copy()).replace(' target "test/small"', "")
    assert markers(dispatch(text, target="test/wide")) == ["alpha-started", "alpha"]
    module_attr = '"builtin.module"() ({\n' + text + '\n}) {tirx.target = #tirx.target<"test/wide">} : () -> ()'
    assert markers(dispatch(module_attr)) == ["alpha-started", "alpha"]
    with Target("test/small"):
        assert markers(dispatch(text)) == ["fast"]
    with pytest.raises(PassError, match="has no target"):
        dispatch(text)
    with pytest.raises(PassError, match="unknown target kind or tag 'test/nope'"):
        dispatch(text, target="test/nope")


def test_context_facts(tirx_test):
    seen = {}
    with registry.owner_scope("tirx_test_ctx"):
        @register_dispatch("fill", "tirx_test", variant="probe")
        def probe(op, ctx):
            seen.update(kind=ctx.target_kind, scope=ctx.scope_kind, cta=ctx.is_cta,
                        grid=ctx.grid, threads=ctx.threads, gpu=ctx.is_target("test"),
                        loops=[(r.lower, r.upper, r.step, r.trip_count) for r in ctx.loop_ranges()])
    try:
        text = ('tirx.kernel @k(%X: !tirx.buffer<16x4xf32, global>) -> () grid [2, 3] '
                'threads [128] target "test/small" {\n'
                '  %c0 = arith.constant 0 : index\n  %c8 = arith.constant 8 : index\n'
                '  %c2 = arith.constant 2 : index\n  %v = arith.constant 1.0 : f32\n'
                '  scf.for %i = %c0 to %c8 step %c2 {\n'
                '    tirx.fill cta %X, %v : !tirx.buffer<16x4xf32, global>, f32\n  }\n'
                '  tirx.return\n}')
        dispatch(text)
    finally:
        registry.drop_owner_everywhere("tirx_test_ctx")
    assert seen == {"kind": "tirx_test", "scope": "cta", "cta": True, "grid": (2, 3),
                    "threads": (128,), "gpu": True, "loops": [(0, 8, 2, 4)]}
    assert "probe" not in list_registered_dispatch().get("tirx.fill", {}).get("tirx_test", [])


def test_duplicate_variant_conflicts_unless_override():
    with registry.owner_scope("tirx_test_dup"):
        with pytest.raises(registry.RegistryError, match="already registered by 'tirx_test'"):
            register_dispatch("copy", "tirx_test", variant="fast", priority=99)(lambda o, c: None)
        register_dispatch("copy", "tirx_test", variant="fast", priority=99,
                          override=True)(lambda o, c: None)
        assert cases_for("tirx.copy", "tirx_test")[0].priority == 99
    registry.drop_owner_everywhere("tirx_test_dup")  # rollback restores the overridden case
    assert [c.variant for c in cases_for("tirx.copy", "tirx_test")][:2] == ["vec_forced", "fast"]
    assert cases_for("tirx.copy", "tirx_test")[1].priority == 10


def test_a_variant_registered_after_a_lookup_is_found_by_the_next():
    before = [c.variant for c in cases_for("tirx.copy", "tirx_test")]  # fills the memo
    with registry.owner_scope("tirx_test_late"):
        register_dispatch("copy", "tirx_test", variant="late", priority=-5)(lambda o, c: None)
    try:
        after = [c.variant for c in cases_for("tirx.copy", "tirx_test")]
        assert "late" in after and [v for v in after if v != "late"] == before
    finally:
        registry.drop_owner_everywhere("tirx_test_late")
    assert [c.variant for c in cases_for("tirx.copy", "tirx_test")] == before


def test_a_shared_predicate_runs_once_per_op_and_facts_are_computed_once(tirx_test):
    """A predicate several cases share is evaluated once per op (search.py); `ctx.once` gives
    a predicate and the impls one computation per op; a new op asks again."""
    from tirx_mlir.dispatch import fail, predicate

    calls = {"shared": 0, "fact": 0}

    def fact(op, ctx):
        def compute():
            calls["fact"] += 1
            return op.name
        return ctx.once("test.fact", compute)

    def shared(op, ctx):
        calls["shared"] += 1
        return fact(op, ctx) == "tirx.fill", "not a fill"

    when = (predicate("shared", shared),)
    with registry.owner_scope("tirx_test_once"):
        @register_dispatch("fill", "tirx_test", variant="first", priority=3, when=when)
        def first(op, ctx):
            fact(op, ctx)
            fail("first declines")

        @register_dispatch("fill", "tirx_test", variant="second", priority=2, when=when)
        def second(op, ctx):
            assert fact(op, ctx) == "tirx.fill"
            ctx.insert(test_dialect.TestOp(attributes={"variant": StringAttr("second")}))
    try:
        fill = "  tirx.fill %Y, %v : " + BUF + ", f32"
        text = kernel("  %v = arith.constant 1.0 : f32\n" + fill + "\n" + fill)
        module = dispatch(text)
    finally:
        registry.drop_owner_everywhere("tirx_test_once")
    assert markers(module) == ["second", "second"]
    assert calls == {"shared": 2, "fact": 2}  # two ops: once each, across both cases
