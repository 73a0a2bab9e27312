"""wgmma on the SIMT interpreter: kernels of one warpgroup that fill shared memory with plain
stores (the TMA 32B-swizzled image of the operands, prepared on the host), build descriptors as
examples/cuda/tma_wgmma.mlir does, and run wgmma.mma_async (ss and rs, chained) — against numpy;
tma_wgmma.mlir itself once the TMA ops are there; and the accumulator-ownership rules as located errors: reading a result before the wait_group
that retires it, waiting on an uncommitted group, a missing fence, a non-uniform descriptor."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from tirx_mlir.interpreter.runtime import InterpretError
from tirx_testing.ptx_isa_fragments import isa_a, isa_wgmma_d, k_major_32b_image
from tirx_testing.simt import cuda_kernel, run_simt
from tirx_mlir.backends.cuda.interpreter.tensor_core.packing import pack

DESC_HI = -4611685949707845632      # tma_wgmma.mlir: LBO 1, SBO 16 (256 B), 32B swizzle


def _buf(n: int, t: str, space: str = "global") -> str:
    return f"!tirx.buffer<{n}x{t}, {space}>"


def _copy(src: str, dst: str, n: int) -> str:
    """Every thread copies elements ``t + 128 j`` of ``src`` (global) into ``dst`` (shared)."""
    return f"""
  %n{dst} = arith.constant {n // 128} : index
  scf.for %j = %c0 to %n{dst} step %c1 {{
    %o = arith.muli %j, %c128 : index
    %i = arith.addi %o, %t : index
    %v = cuda.load %{src}, %i : {_buf(n, 'f16')}, index -> f16
    cuda.store %{dst}, %i, %v : {_buf(n, 'f16', 'shared')}, index, f16
  }}"""


def _desc(name: str, n: int) -> str:
    return f"""
  %p{name} = cuda.address %{name}, %c0 : {_buf(n, 'f16', 'shared')}, index -> i32
  %w{name} = arith.extui %p{name} : i32 to i64
  %l{name} = arith.andi %w{name}, %lo_mask : i64
  %s{name} = arith.divsi %l{name}, %sixteen : i64
  %desc{name} = arith.ori %s{name}, %desc_hi : i64"""


def wgmma_kernel(n: int, tiles: int = 1, rs: bool = False, fence: bool = True,
                 commit: bool = True, read_early: bool = False,
                 proxy_fence: str | None = "writers", fence_space: str = "shared::cta",
                 before_wait: str = "", after_wait: str = "") -> str:
    """``tiles`` chained m64n<n>k16 wgmmas (D = sum of A_i * B_i^T) of one warpgroup; A from
    shared memory (ss) or from registers loaded per thread from ``Ar`` (rs). The plain stores
    reach wgmma's async proxy through a ``fence.proxy.async`` of ``fence_space`` executed by
    the ``proxy_fence`` threads: "writers" before the barrier, "readers" after it, "thread0"
    (thread 0 only, before the barrier), or None. ``before_wait`` / ``after_wait``: code
    placed right before / after the ``wgmma.wait_group 0`` (``{last}`` names the results)."""
    regs = n // 2
    f32s = ", ".join(["f32"] * regs)
    ins, body = [], []
    for k in range(tiles):
        if not rs:
            ins.append(f"%A{k}: {_buf(1024, 'f16')}")
        ins.append(f"%B{k}: {_buf(16 * n, 'f16')}")
    if rs:
        ins.append(f"%Ar: {_buf(512 * tiles, 'i32')}")
    for k in range(tiles):
        if not rs:
            body.append(f"  %sA{k} = cuda.shared_alloc align 1024 : {_buf(1024, 'f16', 'shared')}")
        body.append(f"  %sB{k} = cuda.shared_alloc align 1024 : {_buf(16 * n, 'f16', 'shared')}")
    for k in range(tiles):
        body += [_copy(f"A{k}", f"sA{k}", 1024)] if not rs else []
        body += [_copy(f"B{k}", f"sB{k}", 16 * n)]
    fence_op = f'  ptx.fence_proxy_async "{fence_space}"'
    if proxy_fence == "writers":
        body.append(fence_op)
    if proxy_fence == "thread0":
        body.append(f"  %t_is_0 = arith.cmpi eq, %t, %c0 : index\n  scf.if %t_is_0 {{\n"
                    f"  {fence_op}\n  }}")
    body.append("  cuda.sync_threads")
    if proxy_fence == "readers":
        body.append(fence_op)
    for k in range(tiles):
        body += [_desc(f"sA{k}", 1024)] if not rs else []
        body += [_desc(f"sB{k}", 16 * n)]
    if fence:
        body.append("  ptx.wgmma_fence")
    acc = ", ".join(["%zero"] * regs)
    for k in range(tiles):
        scale = "%false" if k == 0 else "%true"
        if rs:
            for r in range(4):
                body.append(f"  %ai{k}_{r}c = arith.constant {512 * k + r} : index")
                body.append(f"  %ai{k}_{r} = arith.addi %t4, %ai{k}_{r}c : index")
                body.append(f"  %a{k}_{r} = cuda.load %Ar, %ai{k}_{r} : "
                            f"{_buf(512 * tiles, 'i32')}, index -> i32")
            a = ", ".join(f"%a{k}_{r}" for r in range(4))
            body.append(f'  %d{k}:{regs} = ptx.wgmma_mma_async_rs "m64n{n}k16.f32.f16.f16" '
                        f'{{{acc}}}, {{{a}}}, %descsB{k}, {scale}, 1, 1, 0 : ({f32s}, i32, i32, '
                        f'i32, i32, i64, i1) -> ({f32s})')
        else:
            body.append(f'  %d{k}:{regs} = ptx.wgmma_mma_async_ss "m64n{n}k16.f32.f16.f16" '
                        f'{{{acc}}}, %descsA{k}, %descsB{k}, {scale}, 1, 1, 0, 0 : ({f32s}, '
                        f'i64, i64, i1) -> ({f32s})')
        acc = ", ".join(f"%d{k}#{i}" for i in range(regs))
    last = f"%d{tiles - 1}"
    stores = [f"""  %off{i} = arith.constant {8 * ((i // 2) % 2) * n + 8 * (i // 4) + i % 2} : index
  %oi{i} = arith.addi %base, %off{i} : index
  cuda.store %D, %oi{i}, {last}#{i} : {_buf(64 * n, 'f32')}, index, f32""" for i in range(regs)]
    if commit:
        body.append("  ptx.wgmma_commit_group")
    body.append(f"""  %warp = arith.divui %t, %c32 : index
  %lane = arith.remui %t, %c32 : index
  %g = arith.divui %lane, %c4 : index
  %q = arith.remui %lane, %c4 : index
  %w16 = arith.muli %warp, %c16 : index
  %row = arith.addi %w16, %g : index
  %rown = arith.muli %row, %cn : index
  %q2 = arith.muli %q, %c2 : index
  %base = arith.addi %rown, %q2 : index""")
    if read_early:
        body.append(f"  cuda.store %D, %base, {last}#0 : {_buf(64 * n, 'f32')}, index, f32")
    body.append(before_wait.replace("{last}", last))
    body.append("  ptx.wgmma_wait_group 0")
    body.append(after_wait.replace("{last}", last))
    body += stores
    head = f"""  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %c128 = arith.constant 128 : index
  %cn = arith.constant {n} : index
  %lo_mask = arith.constant 262128 : i64
  %sixteen = arith.constant 16 : i64
  %desc_hi = arith.constant {DESC_HI} : i64
  %zero = arith.constant 0.0 : f32
  %false = arith.constant false
  %true = arith.constant true
  %t = cuda.thread_idx x : index
  %t4 = arith.muli %t, %c4 : index"""
    sig = f"({', '.join(ins)}) -> (%D: {_buf(64 * n, 'f32')})"
    return cuda_kernel(sig, head + "\n" + "\n".join(body), "grid [1] threads [128]")


def _operands(n: int, tiles: int, rng):
    a = [rng.integers(-4, 5, (64, 16)).astype(np.float16) for _ in range(tiles)]
    bt = [rng.integers(-4, 5, (n, 16)).astype(np.float16) for _ in range(tiles)]
    want = sum(x.astype(np.float32) @ y.T.astype(np.float32) for x, y in zip(a, bt))
    return a, bt, want


def _images(mats) -> list[np.ndarray]:
    return [k_major_32b_image(m).view(np.float16) for m in mats]


@pytest.mark.parametrize("n, tiles", [(128, 1), (64, 2), (8, 3)])
def test_ss_matches_numpy(n: int, tiles: int) -> None:
    a, bt, want = _operands(n, tiles, np.random.default_rng(n + tiles))
    args = [x for pair in zip(_images(a), _images(bt)) for x in pair]
    (d,), _ = run_simt(wgmma_kernel(n, tiles), *args)
    np.testing.assert_array_equal(d.reshape(64, n), want)


def _a_registers(a: np.ndarray) -> np.ndarray:
    """The rs A registers of a 64x16 f16 A, 4 per thread, by the ISA's fragment formula."""
    elems = np.empty((128, 8), np.float16)
    for tid in range(128):
        for i in range(8):
            r, c = isa_a("m16n8k16", 16, tid % 32, i)
            elems[tid, i] = a[16 * (tid // 32) + r, c]
    return pack(elems, "f16").reshape(-1)


def test_rs_matches_numpy() -> None:
    a, bt, want = _operands(32, 2, np.random.default_rng(9))
    args = [*_images(bt), np.concatenate([_a_registers(x) for x in a])]
    (d,), _ = run_simt(wgmma_kernel(32, 2, rs=True), *args)
    np.testing.assert_array_equal(d.reshape(64, 32), want)


def _run_with(n: int = 8, **kw) -> None:
    a, bt, _ = _operands(n, 1, np.random.default_rng(0))
    run_simt(wgmma_kernel(n, **kw), *_images(a), *_images(bt))


def test_reading_an_accumulator_before_its_wait_is_an_error() -> None:
    with pytest.raises(InterpretError, match=r"cuda.store: reads a value before the "
                       r"wgmma.commit_group and wgmma.wait_group that retire the "
                       r"wgmma.mma_async at <test>:\d+:\d+ .*threads 0-127 of CTA \(0,0,0\)"):
        _run_with(read_early=True)


SB0 = "!tirx.buffer<128xf16, shared>"
OVERWRITE_B = f"""  %one = arith.constant 1.0 : f16
  %first = arith.cmpi eq, %t, %c0 : index
  scf.if %first {{
    cuda.store %sB0, %c0, %one : {SB0}, index, f16
  }}"""


def test_writing_an_operand_before_its_wait_is_an_error() -> None:
    """wgmma may read its shared matrices until the wait that retires its group
    (wgmma_reads.py): a store into B before that wait is a located error naming the wgmma;
    the same store after the wait is fine."""
    with pytest.raises(InterpretError, match=r"\[async\] cuda.store: writes shared offset \d+ "
                       r"\(%sB0\[0\]\) of CTA \(0,0,0\), which the ptx.wgmma_mma_async_ss at "
                       r"<test>:\d+:\d+ issued by threads 0-127 of CTA \(0,0,0\) may still be "
                       r"reading"):
        _run_with(before_wait=OVERWRITE_B)
    _run_with(after_wait=OVERWRITE_B)


KEEP = """  %r = tirx.alloc : !tirx.buffer<1xf32, local>
  cuda.store %r, %c0, {last}#0 : !tirx.buffer<1xf32, local>, index, f32
  %back = cuda.load %r, %c0 : !tirx.buffer<1xf32, local>, index -> f32"""


def test_an_accumulator_in_flight_kept_in_a_register_tile() -> None:
    """Stored into a register tile before its wait, an accumulator stays in flight there
    (local_arrays.py): read back and used before the wait it is the located error, after the
    wait it reads as stored."""
    with pytest.raises(InterpretError, match=r"arith.addf: reads a value before the "
                       r"wgmma.commit_group and wgmma.wait_group"):
        _run_with(before_wait=KEEP + "\n  %twice = arith.addf %back, %back : f32")
    _run_with(before_wait=KEEP, after_wait="  %twice = arith.addf %back, %back : f32")


def test_waiting_on_an_uncommitted_wgmma_is_an_error() -> None:
    with pytest.raises(InterpretError, match="reads a value before the wgmma.commit_group and "
                                             "wgmma.wait_group"):
        _run_with(commit=False)


def test_mma_async_without_a_fence_is_an_error() -> None:
    with pytest.raises(InterpretError, match=r"wgmma.mma_async before its warpgroup executed "
                                             r"wgmma.fence \(threads 0-127"):
        _run_with(fence=False)


def test_reader_fence_after_the_barrier_matches_numpy() -> None:
    """A fence.proxy.async of the wgmma's threads after the barrier that orders the stores
    before them (on the causality path from the writes to the wgmma) is enough."""
    a, bt, want = _operands(64, 2, np.random.default_rng(3))
    args = [x for pair in zip(_images(a), _images(bt)) for x in pair]
    (d,), _ = run_simt(wgmma_kernel(64, 2, proxy_fence="readers"), *args)
    np.testing.assert_array_equal(d.reshape(64, 64), want)


def test_stores_read_by_wgmma_without_a_proxy_fence_are_an_error() -> None:
    """Plain shared stores (generic proxy), a barrier, then wgmma reading them through its
    descriptors (async proxy) without fence.proxy.async: the error names both ops, the
    byte, and the writing thread."""
    with pytest.raises(InterpretError) as err:
        _run_with(proxy_fence=None)
    text = str(err.value)
    assert re.search(r"<test>:\d+:\d+: error: \[proxy\] ptx.wgmma_mma_async_ss: reads shared "
                     r"offset \d+ \(%sB0\[0\]\) of CTA \(0,0,0\) through the async proxy, but "
                     r"its last write, by the cuda.store at <test>:\d+:\d+ in thread \(0,0,0\) "
                     r"of CTA \(0,0,0\), went through the generic proxy, .* \(threads 0-127 of "
                     r"CTA \(0,0,0\)\)", text), text
    assert "(256 bytes of this read are unfenced)" in text  # B: 8 x 16 f16
    assert "add ptx.fence_proxy_async" in text


@pytest.mark.parametrize("proxy_fence, space", [("thread0", "shared::cta"),
                                                ("writers", "global")])
def test_a_fence_that_misses_the_writer_or_shared_memory_is_an_error(proxy_fence, space):
    """Thread 0's fence orders its own stores, not thread 1's (whose bytes the first wgmma
    operand also holds); a fence.proxy.async.global orders no shared memory."""
    with pytest.raises(InterpretError, match=r"\[proxy\] ptx.wgmma_mma_async_ss: reads shared "
                                             r"offset \d+ \(%sB0\[(\d+)\]\)"):
        _run_with(proxy_fence=proxy_fence, fence_space=space)


def test_descriptor_must_be_uniform_in_the_warpgroup() -> None:
    text = wgmma_kernel(8).replace(
        "%descsA0 = arith.ori %ssA0, %desc_hi : i64",
        "%descsA00 = arith.ori %ssA0, %desc_hi : i64\n  %tt = arith.index_cast %t : index to i64"
        "\n  %descsA0 = arith.addi %descsA00, %tt : i64")
    a, bt, _ = _operands(8, 1, np.random.default_rng(0))
    with pytest.raises(InterpretError, match="the A descriptor differs between the threads of "
                                             "a warpgroup"):
        run_simt(text, *_images(a), *_images(bt))


def test_wgmma_needs_whole_warpgroups() -> None:
    from tirx_mlir.diagnostics import TirxError
    from tirx_mlir.dialects.tirx.kernel import int_array
    from tirx_mlir.interpreter import KernelRunner
    from tirx_mlir.located_parser import parse_module

    a, bt, _ = _operands(8, 1, np.random.default_rng(0))
    text = wgmma_kernel(8).replace("threads [128]", "threads [96]")
    with pytest.raises(TirxError, match=r"threads \[96\] is not a whole number of warpgroups; "
                                        r"ptx.wgmma_fence needs all 128 threads"):
        run_simt(text, *_images(a), *_images(bt))  # the op verifier, before the run
    # a kernel given 96 threads after verification: the interpreter refuses it itself
    module = parse_module(wgmma_kernel(8), "<test>")
    kernel = next(op for op in module.walk() if op.name == "tirx.kernel")
    kernel.properties["threads"] = int_array([96])
    with pytest.raises(InterpretError, match="needs whole warpgroups of 128 threads, but the "
                                             "CTA has 96 threads"):
        KernelRunner(module)(*_images(a), *_images(bt))


def test_tma_wgmma_example_matches_numpy() -> None:
    """examples/cuda/tma_wgmma.mlir end to end: TMA (32B swizzle) tiles, the kernel's own
    descriptors, one m64n128k16. Needs the TMA/mbarrier implementations and their tensor-map
    encoder (tensor_map.py, another part of the SIMT interpreter)."""
    tensor_map = pytest.importorskip("tirx_mlir.backends.cuda.interpreter.tensor_map",
                                     reason="the SIMT interpreter's TMA ops are not merged yet")
    rng = np.random.default_rng(4)
    a = rng.standard_normal((64, 16)).astype(np.float16)
    bt = rng.standard_normal((128, 16)).astype(np.float16)
    maps = [tensor_map.encode_tensor_map(a, (16, 64), swizzle="32B"),
            tensor_map.encode_tensor_map(bt, (16, 128), swizzle="32B")]
    text = (Path(__file__).resolve().parents[5] / "examples/cuda/tma_wgmma.mlir").read_text()
    (d,), _ = run_simt(text, *maps)
    want = a.astype(np.float64) @ bt.T.astype(np.float64)
    np.testing.assert_allclose(d.reshape(64, 128), want, rtol=1e-5, atol=1e-5)


def test_a_wgmma_reading_a_tma_tile_before_its_mbarrier_wait_is_an_error() -> None:
    """tma_wgmma.mlir without its mbarrier wait: the TMA tiles have not landed when the wgmma
    reads its shared operands, a located error at the wgmma naming the TMA copy (the bytes
    would be the fresh arena's NaN otherwise)."""
    from tirx_mlir.backends.cuda.interpreter.tensor_map import encode_tensor_map

    text = (Path(__file__).resolve().parents[5] / "examples/cuda/tma_wgmma.mlir").read_text()
    start = text.index("  scf.while () : () -> () {\n    %ready = ptx.mbarrier_try_wait_parity")
    end = text.index("  }\n", text.index("scf.yield", start)) + 4
    maps = [encode_tensor_map(np.zeros((64, 16), np.float16), (16, 64), swizzle="32B"),
            encode_tensor_map(np.zeros((128, 16), np.float16), (16, 128), swizzle="32B")]
    with pytest.raises(InterpretError, match=r"\[async\] ptx.wgmma_mma_async_ss: reads shared "
                       r"offset \d+ \(%s[AB]\[\d+\]\) of CTA \(0,0,0\), the destination of the "
                       r"ptx.cp_async_bulk_tensor_g2s at <test>:\d+:\d+ issued by thread "
                       r"\(0,0,0\)"):
        run_simt(text[:start] + text[end:], *maps)
