"""``Tx.cuda``, ``Tx.ptx``, ``Tx.nvshmem`` (backends/cuda/script.py): registered by the cuda
backend, reached by the builder and by ``@Tx.kernel``, errors at the user's line, and printed
back by ``-t tx`` as calls that parse to the same IR."""

from __future__ import annotations

import importlib.util
import inspect

import numpy as np
import pytest

from tirx_mlir import registry
from tirx_mlir import script as Tx
from tirx_testing.source_errors import assert_reported_at_marked_line
from tirx_mlir.script.to_script import module_to_script
from tirx_testing.ir_structure import structural_diff

SM80 = "cuda -arch=sm_80"
SM90 = "cuda -arch=sm_90a"



def test_the_cuda_backend_registers_the_namespaces():
    for name in ("cuda", "ptx", "nvshmem"):
        assert registry.script_namespaces.owner_of(name) == "cuda"
        assert getattr(Tx, name) is registry.script_namespaces.get(name)
    assert "shfl_sync" in dir(Tx.cuda) and "mma_sync" in dir(Tx.ptx)
    assert "put" in dir(Tx.nvshmem) and Tx.cuda.cta_sync is Tx.cuda.sync_threads


def test_every_ptx_row_has_a_function():
    """The ptx namespace is generated from the instruction table: no row is left out."""
    from tirx_mlir.backends.cuda.dialects.ptx.table import ROWS

    assert sorted(dir(Tx.ptx)) == sorted(row.name for row in ROWS)


def _roundtrip(module, tmp_path):
    source = module_to_script(module)
    path = tmp_path / "printed.py"
    path.write_text(source)
    spec = importlib.util.spec_from_file_location("printed", path)
    printed = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(printed)
    (kernel,) = [v for v in vars(printed).values() if isinstance(v, Tx.Kernel)]
    assert structural_diff(kernel.ir, module) is None, source
    return source


def test_builder_and_parser_build_the_same_cuda_ops(tmp_path):
    with Tx.kernel("k", inputs={"X": Tx.buffer((256,))}, outputs={"Y": Tx.buffer((256,))},
                   threads=(256,), target=SM80) as kb:
        X, Y = kb.args
        t = Tx.cuda.thread_idx("x")
        x = Tx.cuda.load(X, t, nc=True)
        s = Tx.cuda.warp_reduce("sum", -1, x * 2.0)
        Tx.cuda.cta_sync()
        Tx.cuda.store(Y, t, s - x)

    @Tx.kernel(target=SM80, threads=(256,))
    def k(X: Tx.Buffer[(256,), "f32"], Y: Tx.Out[(256,), "f32"]):
        t = Tx.cuda.thread_idx("x")
        x = Tx.cuda.load(X, t, nc=True)
        s = Tx.cuda.warp_reduce("sum", -1, x * 2.0)
        Tx.cuda.cta_sync()
        Tx.cuda.store(Y, t, s - x)

    kb.module.verify()
    assert structural_diff(k.ir, kb.module) is None
    assert "cuda.warp_reduce sum" in str(k.ir) and "arith.mulf" in str(k.ir)
    x = np.arange(256, dtype=np.float32)
    want = np.repeat(x.reshape(8, 32).sum(1) * 2, 32) - x
    np.testing.assert_array_equal(k.interpret(x), want)
    source = _roundtrip(k.ir, tmp_path)
    assert 'Tx.cuda.warp_reduce("sum", Tx.const(-1, "i32"), ' in source


def test_ptx_mma_and_shared_memory_round_trip(tmp_path):
    """Vector operands are lists, a .b32 register holding packed halves, several results a
    tuple; ``-t tx`` prints them back so."""

    @Tx.kernel(target=SM80, threads=(32,))
    def mma(A: Tx.Buffer[(4,), "i32"], B: Tx.Buffer[(2,), "i32"], D: Tx.Out[(4,), "f32"]):
        lane = Tx.cuda.lane_id()
        a = [Tx.cuda.load(A, 0), Tx.cuda.load(A, 1), Tx.cuda.load(A, 2), Tx.cuda.load(A, 3)]
        b = [Tx.cuda.load(B, 0), Tx.cuda.load(B, 1)]
        zero = Tx.const(0.0, "f32")
        d = Tx.ptx.mma_sync("m16n8k16.f32.f16.f16.f32", a, b, [zero, zero, zero, zero])
        if lane == 0:
            Tx.cuda.store(D, 0, d[0] + d[1] + d[2] + d[3])

    text = str(mma.ir)
    assert 'ptx.mma_sync "m16n8k16.f32.f16.f16.f32"' in text
    source = _roundtrip(mma.ir, tmp_path)
    assert 'Tx.ptx.mma_sync("m16n8k16.f32.f16.f16.f32", [' in source


def test_ptx_modifiers_by_keyword_and_immediates(tmp_path):
    with Tx.kernel("k", inputs={"G": Tx.buffer((64,))}, outputs={"Y": Tx.buffer((64,))},
                   threads=(32,), target=SM80) as k:
        G, Y = k.args
        s = Tx.cuda.shared_alloc(result_types=["!tirx.buffer<64xf32, shared>"])
        Tx.ptx.cp_async(Tx.cuda.address(s, 0), Tx.cuda.address(G, 0), 16, cache="cg",
                        space="shared")
        Tx.ptx.cp_async_wait_all()
        Tx.cuda.cta_sync()
        t = Tx.cuda.thread_idx("x")
        Tx.cuda.store(Y, t, Tx.cuda.load(s, t))
    k.module.verify()
    text = str(k.module)
    assert 'ptx.cp_async "cg.shared"' in text and ", 16 :" in text
    source = _roundtrip(k.module, tmp_path)
    assert 'Tx.ptx.cp_async("cg.shared", ' in source and ", 16)" in source
    assert 'result_types=["!tirx.buffer<64xf32, shared>"]' in source


def test_nvshmem_ops_build_with_typed_constants():
    with Tx.kernel("ring", inputs={"X": Tx.buffer((64,))}, outputs={"Y": Tx.buffer((64,))},
                   threads=(32,), target=SM80) as k:
        X, Y = k.args
        me = Tx.nvshmem.my_pe()
        n = Tx.nvshmem.n_pes()
        Tx.nvshmem.put(Y, X, 64, (me + 1) - n * 0)
        Tx.nvshmem.barrier_all()
    k.module.verify()
    text = str(k.module)
    assert "nvshmem.put" in text and "nvshmem.barrier_all" in text
    assert "arith.constant 64 : index" in text  # nelems: an index


# --- mistakes, at the user's line ------------------------------------------------------------


def _unknown_cuda_op():
    @Tx.kernel(target=SM80, threads=(32,))
    def k(X: Tx.Buffer[(32,), "f32"]):
        Tx.cuda.shfl_synk("xor", -1, 1.0, 1)  # ERR
    return k.ir


def _unknown_ptx_instruction():
    @Tx.kernel(target=SM80, threads=(32,))
    def k(X: Tx.Buffer[(32,), "f32"]):
        Tx.ptx.ldmatrx("x4", 0)  # ERR
    return k.ir


def _wrong_operand_count():
    @Tx.kernel(target=SM80, threads=(32,))
    def k(X: Tx.Buffer[(32,), "f32"]):
        Tx.cuda.shfl_sync("xor", -1, 1.0)  # ERR
    return k.ir


def _wrong_operand_type():
    @Tx.kernel(target=SM80, threads=(32,))
    def k(X: Tx.Buffer[(32,), "f32"]):
        t = Tx.cuda.thread_idx("x")
        Tx.cuda.shfl_sync("xor", t, 1.0, 1)  # ERR
    return k.ir


def _wrong_ptx_operands():
    @Tx.kernel(target=SM80, threads=(32,))
    def k(X: Tx.Buffer[(32,), "f32"]):
        p = Tx.cuda.address(X, 0)
        Tx.ptx.ld("global.v4.f32", p, p)  # ERR
    return k.ir


def _wrong_ptx_modifier():
    @Tx.kernel(target=SM80, threads=(32,))
    def k(X: Tx.Buffer[(32,), "f32"]):
        p = Tx.cuda.address(X, 0)
        Tx.ptx.ld("global.v3.f32", p)  # ERR
    return k.ir


def _missing_head():
    @Tx.kernel(target=SM80, threads=(32,))
    def k(X: Tx.Buffer[(32,), "f32"]):
        Tx.cuda.shfl_sync(-1, 1.0, 1)  # ERR
    return k.ir


def _needs_result_type():
    @Tx.kernel(target=SM80, threads=(32,))
    def k(X: Tx.Buffer[(32,), "f32"]):
        Tx.cuda.cvt(Tx.cuda.load(X, 0))  # ERR
    return k.ir


def _arch_rule():
    @Tx.kernel(target=SM80, threads=(32,))
    def k(X: Tx.Buffer[(32,), "f32"]):
        Tx.cuda.elect_sync(-1)  # ERR
    return k.ir


def _mixed_scalar_types():
    @Tx.kernel(target=SM80, threads=(32,))
    def k(X: Tx.Buffer[(32,), "f32"]):
        x = Tx.cuda.load(X, 0)
        y = x + Tx.cuda.activemask()  # ERR
    return k.ir


def _branch_on_a_float():
    @Tx.kernel(target=SM80, threads=(32,))
    def k(X: Tx.Buffer[(32,), "f32"]):
        x = Tx.cuda.load(X, 0)
        if x:  # ERR
            Tx.cuda.cta_sync()
    return k.ir


MISTAKES = [
    (_mixed_scalar_types, "`+` of a f32 value and a i32"),
    (_branch_on_a_float, "no Python truth value"),
    (_unknown_cuda_op, "Tx.cuda has no op 'shfl_synk'; did you mean Tx.cuda.shfl_sync"),
    (_unknown_ptx_instruction, "Tx.ptx has no instruction 'ldmatrx'; did you mean "
                               "Tx.ptx.ldmatrix"),
    (_wrong_operand_count, "Tx.cuda.shfl_sync is missing lane"),
    (_wrong_operand_type, "mask"),
    (_wrong_ptx_operands, "takes 1 operands (addr), got 2"),
    (_wrong_ptx_modifier, "v3"),
    (_missing_head, "Tx.cuda.shfl_sync needs its mode first"),
    (_needs_result_type, "cannot infer its result type"),
    (_arch_rule, "sm_90"),
]


@pytest.mark.parametrize("make,message", MISTAKES, ids=[m.__name__.strip("_") for m, _ in MISTAKES])
def test_mistake_is_reported_at_its_line(make, message):
    assert_reported_at_marked_line(make, message)


def test_builder_errors_are_at_the_callers_line_too():
    with Tx.kernel("k", inputs={"X": Tx.buffer((32,))}, outputs={}, threads=(32,),
                   target=SM80):
        with pytest.raises(Tx.SourceError) as info:
            Tx.ptx.mma_synk()
        line = inspect.currentframe().f_lineno - 1
    assert info.value.where.line == line and "Tx.ptx.mma_sync" in str(info.value)
    assert isinstance(info.value, AttributeError)
    assert not hasattr(Tx.cuda, "no_such_op")


def test_unknown_op_is_located_once():
    """The namespace's error names its place once (the parser does not prefix a located error
    with its location again)."""
    with pytest.raises(Tx.SourceError) as info:
        _unknown_cuda_op()
    text = str(info.value)
    assert text.count("error:") == 1, text
    assert info.value.message.startswith("Tx.cuda has no op 'shfl_synk'")
