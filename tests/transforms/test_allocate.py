"""The core allocator on its own, with a made-up memory (no backend's): placement, reuse of dead
ranges, loops extending live ranges, alignment/granule rounding, the reserve, fixed addresses,
the footprint and the failure report."""

from __future__ import annotations

import pytest
from xdsl.dialects.builtin import IntegerAttr, i64

from tirx_mlir.diagnostics import PassError
from tirx_mlir.dialects.tirx.attributes import BufferType
from tirx_mlir.dialects.tirx.buffer_ops import AllocOp
from tirx_mlir.dialects.tirx.kernel import KernelOp
from tirx_mlir.dialects.tirx.memory_space import MemorySpace
from tirx_mlir.located_parser import make_context, parse_module
from tirx_mlir.transforms.allocate import (AllocatePass, Buffer, FailureReport, ProgramOrder,
                                           allocate_kernel, live_range, place)
from tirx_testing.scopes import made_up_scope

SCOPE = "test.scratch"
ADDR = "test.addr"


@pytest.fixture(autouse=True)
def scratch_scope():
    with made_up_scope(SCOPE, "the allocator tests"):
        yield


def space(**overrides) -> MemorySpace:
    fields = dict(scope=SCOPE, rows=4, bytes_per_row=1024, address_attr=ADDR, alignment=16,
                  row_name="lane", footprint_attr="test.bytes", source="the test memory")
    return MemorySpace(**{**fields, **overrides})


def t(spec: str, scope: str = SCOPE) -> str:
    return f"!tirx.buffer<{spec}, {scope}>"


def module_of(body: str, name: str = "alloc.mlir"):
    text = f"tirx.kernel @k() grid [1] threads [1] {{\n{body}\n  tirx.return\n}}\n"
    return parse_module(text, name)


def kernel_of(module) -> KernelOp:
    return next(op for op in module.walk() if isinstance(op, KernelOp))


def addresses(module) -> dict[str, int]:
    return {op.result.name_hint: op.attributes[ADDR].value.data for op in module.walk()
            if isinstance(op, AllocOp) and ADDR in op.attributes}


CHAIN = f"""  %a = tirx.alloc : {t('4x64xf32')}
  %b = tirx.alloc : {t('4x64xf32')}
  %c = tirx.alloc : {t('4x64xf32')}
  tirx.zero %a : {t('4x64xf32')}
  tirx.copy %b, %a : {t('4x64xf32')}, {t('4x64xf32')}
  tirx.copy %c, %b : {t('4x64xf32')}, {t('4x64xf32')}"""


def test_buffers_live_together_get_disjoint_addresses():
    module = module_of(CHAIN)
    allocate_kernel(kernel_of(module), [space()])
    addr = addresses(module)
    assert addr["a"] != addr["b"] and addr["b"] != addr["c"]  # a-b and b-c are live together
    assert sorted({addr["a"], addr["b"]}) == [0, 256]  # 64 f32 per lane each, first fit


def test_a_buffer_reuses_the_memory_of_one_whose_range_has_ended():
    module = module_of(CHAIN)
    footprints = allocate_kernel(kernel_of(module), [space()])
    addr = addresses(module)
    assert addr["c"] == addr["a"]  # a's last use comes before c's first
    assert footprints == {SCOPE: 512}
    assert kernel_of(module).attributes["test.bytes"] == IntegerAttr(512, i64)


def test_a_buffer_with_its_own_alignment_starts_at_a_multiple_of_it():
    """Unit 16, a fixed buffer at [0, 48): a 1024-aligned buffer live with it goes to 1024 (not
    48), and a 16-aligned one then fills the gap at 48."""
    allocs = [AllocOp(BufferType([n], i64, SCOPE)) for n in (6, 8, 2)]
    fixed = Buffer(allocs[0], 48, 0, 10, addr=0)
    wide = Buffer(allocs[1], 64, 0, 10, align=1024)
    small = Buffer(allocs[2], 16, 0, 10)
    assert place([fixed, wide, small], 4096, 16) == []
    assert (wide.addr, small.addr) == (1024, 48)
    assert place([Buffer(allocs[1], 64, 0, 10, align=1024), Buffer(allocs[0], 48, 0, 10,
                                                                   addr=0)], 1050, 16) != []


def test_views_count_as_uses_of_their_buffer():
    body = f"""  %a = tirx.alloc : {t('4x64xf32')}
  %b = tirx.alloc : {t('4x64xf32')}
  %v = tirx.slice %a[0, 0] [4, 32] : {t('4x64xf32')} -> {t('4x32xf32')}
  tirx.zero %a : {t('4x64xf32')}
  tirx.zero %b : {t('4x64xf32')}
  tirx.zero %v : {t('4x32xf32')}"""
    module = module_of(body)
    allocate_kernel(kernel_of(module), [space()])
    addr = addresses(module)
    assert addr["a"] != addr["b"]  # %a stays live through its view's last use


LOOP = f"""  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %t = tirx.alloc : {t('4x64xf32')}
  %u = tirx.alloc : {t('4x64xf32')}
  scf.for %i = %c0 to %c4 step %c1 {{
    tirx.zero %t : {t('4x64xf32')}
    tirx.zero %u : {t('4x64xf32')}
  }}"""


def test_a_use_inside_a_loop_keeps_the_buffer_live_for_the_whole_loop():
    module = module_of(LOOP)
    kernel = kernel_of(module)
    order = ProgramOrder(kernel)
    allocs = {op.result.name_hint: op for op in kernel.walk() if isinstance(op, AllocOp)}
    loop = next(op for op in kernel.walk() if op.name == "scf.for")
    whole_loop = (order.pos[loop], order.end[loop])
    assert live_range(allocs["t"], order) == whole_loop == live_range(allocs["u"], order)
    allocate_kernel(kernel, [space()])
    addr = addresses(module)
    # in program order %t dies before %u is first written, but the next iteration needs %t again
    assert addr["t"] != addr["u"]


def two_live(a: str, b: str) -> str:
    """Buffers %a and %b (of specs a, b) live together."""
    return f"""  %a = tirx.alloc : {t(a)}
  %b = tirx.alloc : {t(b)}
  tirx.zero %a : {t(a)}
  tirx.zero %b : {t(b)}
  tirx.zero %a : {t(a)}"""


@pytest.mark.parametrize("a, b, figures, addrs", [
    # 100 and 12 bytes per lane: one 256-byte granule each, at granule boundaries
    ("4x25xf32", "4x3xf32", dict(granule=256), [0, 256]),
    # 12 bytes per lane each, rounded up to the 64-byte alignment
    ("4x3xf32", "4x3xf32", dict(alignment=64), [0, 64]),
])
def test_sizes_and_addresses_round_to_the_alignment_and_granule(a, b, figures, addrs):
    module = module_of(two_live(a, b))
    footprints = allocate_kernel(kernel_of(module), [space(**figures)])
    assert sorted(addresses(module).values()) == addrs
    assert footprints[SCOPE] == 2 * addrs[1]


def test_a_one_row_memory_holds_the_whole_buffer():
    module = module_of(CHAIN)
    footprints = allocate_kernel(kernel_of(module), [space(rows=1, bytes_per_row=4096)])
    assert footprints[SCOPE] == 2 * 4 * 64 * 4  # two live buffers of 4x64 f32


def test_given_addresses_are_kept_and_avoided():
    body = CHAIN.replace("%a = tirx.alloc : ", f"%a = tirx.alloc {{{ADDR} = 512 : i64}} : ")
    module = module_of(body)
    allocate_kernel(kernel_of(module), [space()])
    addr = addresses(module)
    assert addr["a"] == 512 and addr["b"] == 0 and addr["c"] == 256


def test_other_scopes_are_left_alone():
    body = f"""  %a = tirx.alloc : {t('4x64xf32', 'shared')}
  tirx.zero %a : {t('4x64xf32', 'shared')}"""
    module = module_of(body)
    assert allocate_kernel(kernel_of(module), [space()]) == {SCOPE: 0}
    assert addresses(module) == {}


def test_the_reserve_is_never_allocated():
    body = f"""  %a = tirx.alloc : {t('4x200xf32')}
  tirx.zero %a : {t('4x200xf32')}"""
    allocate_kernel(kernel_of(module_of(body)), [space()])  # 800 of 1024 bytes per lane
    with pytest.raises(PassError, match="800 bytes per lane .* but 768 are available"):
        allocate_kernel(kernel_of(module_of(body)), [space(reserve=256)])


TOO_BIG = f"""  %x = tirx.alloc : {t('4x100xf32')}
  %y = tirx.alloc : {t('4x160xf32')}
  %s = tirx.alloc : {t('4x4xf32')}
  tirx.zero %s : {t('4x4xf32')}
  tirx.zero %x : {t('4x100xf32')}
  tirx.zero %y : {t('4x160xf32')}
  tirx.zero %x : {t('4x100xf32')}"""


def test_the_failure_report_gives_the_peak_the_live_buffers_and_what_did_not_fit():
    module = module_of(TOO_BIG, "big.mlir")
    report = FailureReport("TEST-ALLOC", "make it smaller")
    with pytest.raises(PassError) as info:
        allocate_kernel(kernel_of(module), [space(bytes_per_row=1024)], report=report)
    err = info.value
    assert err.op is kernel_of(module) and err.code == "TEST-ALLOC"
    assert err.hint == "make it smaller"
    first, live, failed = err.message.splitlines()
    # %x (400 B) and %y (640 B) are live together: 1040 bytes per lane, 1024 available
    assert first.startswith(f"kernel @k does not fit in {SCOPE}: it needs 1040 bytes per lane "
                            f"at its peak (buffers live together, first allocated at big.mlir:")
    assert first.endswith("but 1024 are available (the test memory)")
    assert live == (f"live at the peak: %y {t('4x160xf32')} (640 B), "
                    f"%x {t('4x100xf32')} (400 B)")
    assert failed == f"could not place: %x {t('4x100xf32')} (400 B)"


def test_the_failure_report_names_fragmentation():
    # %f is pinned in the middle of the row: 768 bytes per lane are free in total, but no
    # stretch of the 512 that %g needs
    body = f"""  %f = tirx.alloc {{{ADDR} = 384 : i64}} : {t('4x64xf32')}
  %g = tirx.alloc : {t('4x128xf32')}
  tirx.zero %f : {t('4x64xf32')}
  tirx.zero %g : {t('4x128xf32')}
  tirx.zero %f : {t('4x64xf32')}"""
    with pytest.raises(PassError) as info:
        allocate_kernel(kernel_of(module_of(body)), [space()])
    first = info.value.message.splitlines()[0]
    assert "it needs 768 bytes per lane" in first and "1024 are available" in first
    assert first.endswith("; the live buffers fit in total but not without fragmentation")


class _Pass(AllocatePass):
    name = "test-allocate"

    def memory_spaces(self, module, kernel):
        return [space()]

    def check(self, alloc, btype: BufferType, memory: MemorySpace) -> None:
        if btype.rank != 2:
            raise PassError("only 2-d buffers here", alloc)


def test_a_pass_built_on_the_base_allocates_every_kernel_and_applies_its_check():
    module = module_of(CHAIN)
    _Pass().apply(make_context(), module)
    assert set(addresses(module)) == {"a", "b", "c"}
    bad = module_of(f"  %a = tirx.alloc : {t('4x4x4xf32')}\n  tirx.zero %a : {t('4x4x4xf32')}")
    with pytest.raises(PassError, match="only 2-d buffers here"):
        _Pass().apply(make_context(), bad)

