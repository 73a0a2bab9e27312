"""TMA and bulk copies on the SIMT interpreter: tensor loads read back from shared memory with
plain loads (no swizzle, 32B/64B/128B swizzles against hand-computed positions, element
strides, out-of-bounds zero and NaN fill), the tma_wgmma tiles, tensor stores and reductions,
bulk stores and their bulk groups, multicast in a cluster (to all of it; to a row of it, a
wrong mask or expect_tx a deadlock), bulk copies into a peer CTA's shared
memory on its barrier, and the checks (reading a TMA or peer-copy destination before its
phase, overwriting a bulk store's source before wait_group.read)."""

from __future__ import annotations

import numpy as np
import pytest

from tirx_testing.simt import cuda_kernel, run_simt
from tirx_testing.simt_async import spin_wait
from tirx_mlir.backends.cuda.interpreter.tensor_map import encode_tensor_map
from tirx_mlir.backends.cuda.interpreter.tma import swizzle
from tirx_mlir.interpreter.runtime import InterpretError

MAPS = " attributes {cuda.tensor_maps = array<i64: 0>}"


def _load_kernel(box_bytes: int, rank: int, coords: tuple[int, ...], wait: bool = True,
                 policy: str | None = None) -> str:
    """Thread 0 TMA-loads the box at ``coords`` into shared memory (1024-aligned); after the
    mbarrier wait every thread copies the shared words to Out. With ``policy``, the copy
    carries ``.L2::cache_hint`` and a policy made by ``createpolicy`` of that priority."""
    words = box_bytes // 4
    cs = "".join(f"  %k{i} = arith.constant {c} : i32\n" for i, c in enumerate(coords))
    names = ", ".join(f"%k{i}" for i in range(len(coords)))
    types = ", ".join("i32" for _ in coords)
    waiting = spin_wait() if wait else ""
    made = "" if policy is None else \
        f'    %pol = ptx.createpolicy "{policy}" : () -> i64\n'
    hint, pol, pol_t = ("", "", "") if policy is None else (".L2::cache_hint", ", %pol", ", i64")
    return cuda_kernel(
        f"(%Tm: !tirx.buffer<128xi8, global>) -> (%Out: !tirx.buffer<{words}xi32, global>)", f"""
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %cw = arith.constant {words} : index
  %p0 = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %bytes = arith.constant {box_bytes} : i32
  %true = arith.constant true
{cs}  %sm = cuda.shared_alloc align 1024 : !tirx.buffer<{words}xi32, shared>
  %bar = cuda.shared_alloc align 8 : !tirx.buffer<1xi64, shared>
  %pb = cuda.address %bar, %c0 : !tirx.buffer<1xi64, shared>, index -> i32
  %ps = cuda.address %sm, %c0 : !tirx.buffer<{words}xi32, shared>, index -> i32
  %map = cuda.address %Tm, %c0 : !tirx.buffer<128xi8, global>, index -> i64
  %t = cuda.thread_idx x : index
  %leader = arith.cmpi eq, %t, %c0 : index
  scf.if %leader {{
    ptx.mbarrier_init "shared" [%pb], %one : (i32, i32) -> ()
    ptx.fence_proxy_async "shared::cta"
    ptx.prefetch_tensormap [%map] : (i64) -> ()
    %s = ptx.mbarrier_arrive_expect_tx "shared" [%pb], %bytes : (i32, i32) -> i64
{made}    ptx.cp_async_bulk_tensor_g2s "{rank}d.shared::cluster{hint}" [%ps], [%map, {{{names}}}], [%pb]{pol} : (i32, i64, {types}, i32{pol_t}) -> ()
  }}
{waiting}
  scf.for %i = %t to %cw step %c32 {{
    %v = cuda.load %sm, %i : !tirx.buffer<{words}xi32, shared>, index -> i32
    cuda.store %Out, %i, %v : !tirx.buffer<{words}xi32, global>, index, i32
  }}""", attrs=MAPS)


def _tma_load(array, box, coords, **kw) -> np.ndarray:
    """The shared bytes a TMA load of ``box`` at ``coords`` leaves."""
    policy = kw.pop("policy", None)
    tmap = encode_tensor_map(array, box, **kw)
    itemsize = array.dtype.itemsize
    counts = [-(-b // e) for b, e in zip(box, kw.get("element_strides") or [1] * len(box))]
    nbytes = int(np.prod(counts)) * itemsize
    (out,), _ = run_simt(_load_kernel(nbytes, len(box), coords, policy=policy), tmap)
    return out.view(np.uint8)


def test_swizzle_xors_16_byte_chunks_by_the_128_byte_row():
    o = np.arange(2048)
    assert (swizzle(o, 0) == o).all()
    # 32B: bit 7 into bit 4 -> in each 256 bytes, the second 128 swap their 16-byte halves
    assert swizzle(np.array([0, 16, 128, 144, 256 + 128]), 32).tolist() == [0, 16, 144, 128,
                                                                           256 + 144]
    # 128B: chunk c of 128-byte row r goes to chunk c ^ (r % 8)
    r, c = np.meshgrid(np.arange(16), np.arange(8), indexing="ij")
    got = swizzle(r * 128 + c * 16, 128)
    np.testing.assert_array_equal(got, r * 128 + (c ^ (r % 8)) * 16)
    # 64B: chunk bits 4-5 XOR row bits 7-8
    np.testing.assert_array_equal(swizzle(r * 128 + c * 16, 64),
                                  r * 128 + (c ^ ((r % 4) & 3)) * 16)
    for span in (32, 64, 128):  # a permutation of each 1024-byte block
        assert sorted(swizzle(o, span).tolist()) == o.tolist()


def test_tile_load_without_swizzle_is_the_box_in_c_order():
    a = np.arange(20 * 40, dtype=np.float16).reshape(20, 40)
    got = _tma_load(a, (16, 8), (4, 2))
    np.testing.assert_array_equal(got.view(np.float16).reshape(8, 16), a[2:10, 4:20])


@pytest.mark.parametrize("policy", ["L2::evict_first", "L2::evict_last"])
def test_a_cache_hint_changes_no_byte(policy):
    """createpolicy + .L2::cache_hint: where L2 keeps the lines, never what lands."""
    a = np.arange(20 * 40, dtype=np.float16).reshape(20, 40)
    got = _tma_load(a, (16, 8), (4, 2), policy=policy)
    np.testing.assert_array_equal(got.view(np.float16).reshape(8, 16), a[2:10, 4:20])


@pytest.mark.parametrize("mode,span", [("32B", 32), ("64B", 64), ("128B", 128)])
def test_swizzled_tile_load_puts_each_byte_where_the_swizzle_says(mode, span):
    cols = span // 2
    a = (np.arange(64 * cols) % 2039).astype(np.float16).reshape(64, cols)
    got = _tma_load(a, (cols, 64), (0, 0), swizzle=mode)
    plain = a.view(np.uint8).reshape(-1)
    expected = np.empty_like(plain)
    expected[swizzle(np.arange(plain.size), span)] = plain
    np.testing.assert_array_equal(got, expected)
    # hand-computed: row 4 starts at byte 4 * span; with 32B its first 16 bytes move to +16
    if span == 32:
        np.testing.assert_array_equal(got[144:160], plain[128:144])


def test_tma_wgmma_tiles_land_as_the_hardware_lays_them_out():
    # the A tile of examples/cuda/tma_wgmma.mlir: 64x16 f16, K-major, 32-byte swizzle
    a = np.random.default_rng(5).standard_normal((64, 16)).astype(np.float16)
    got = _tma_load(a, (16, 64), (0, 0), swizzle="32B").view(np.float16)
    for row in (0, 3, 4, 7, 8, 63):
        for half in (0, 1):
            start = row * 32 + 16 * half
            at = int(swizzle(np.array([start]), 32)[0]) // 2
            np.testing.assert_array_equal(got[at:at + 8], a[row, 8 * half:8 * half + 8])


def test_element_strides_and_out_of_bounds_fill():
    a = np.arange(8 * 16, dtype=np.float32).reshape(8, 16) + 1
    # rows -2, 0, 2, 4 (element stride 2 on dim 1), cols 12..19: partly outside -> zeros
    got = _tma_load(a, (8, 8), (12, -2), element_strides=(1, 2)).view(np.float32)
    expected = np.zeros((4, 8), np.float32)
    for i, row in enumerate(range(-2, 6, 2)):
        for j, col in enumerate(range(12, 20)):
            if 0 <= row < 8 and col < 16:
                expected[i, j] = a[row, col]
    np.testing.assert_array_equal(got.reshape(4, 8), expected)
    nan = _tma_load(a, (8, 8), (12, -2), element_strides=(1, 2), oob_fill="nan")
    nan = nan.view(np.float32).reshape(4, 8)
    np.testing.assert_array_equal(np.isnan(nan), expected == 0)


def test_reading_a_tma_destination_before_the_phase_is_an_error():
    a = np.ones((8, 16), np.float32)
    with pytest.raises(InterpretError) as err:
        run_simt(_load_kernel(512, 2, (0, 0), wait=False), encode_tensor_map(a, (16, 8)))
    msg = str(err.value)
    assert "[async] cuda.load: reads shared offset 0 (%sm[0]) of CTA (0,0,0), the destination " \
           "of the ptx.cp_async_bulk_tensor_g2s at <test>:24:5 issued by thread (0,0,0) of " \
           "CTA (0,0,0), before the copy has landed (it lands at a test of its mbarrier's " \
           "phase" in msg


def _store_kernel(op: str) -> str:
    # TMA-load a 8x32 f32 box (128B swizzle) of map 0, then store / reduce it with map 1 at
    # (32, 8) and wait for the bulk group
    return cuda_kernel(
        "(%Tm: !tirx.buffer<128xi8, global>, %Tn: !tirx.buffer<128xi8, global>) -> "
        "(%Out: !tirx.buffer<1xi32, global>)", f"""
  %c0 = arith.constant 0 : index
  %p0 = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %bytes = arith.constant 1024 : i32
  %z = arith.constant 0 : i32
  %x = arith.constant 32 : i32
  %y = arith.constant 8 : i32
  %true = arith.constant true
  %sm = cuda.shared_alloc align 1024 : !tirx.buffer<256xf32, shared>
  %bar = cuda.shared_alloc align 8 : !tirx.buffer<1xi64, shared>
  %pb = cuda.address %bar, %c0 : !tirx.buffer<1xi64, shared>, index -> i32
  %ps = cuda.address %sm, %c0 : !tirx.buffer<256xf32, shared>, index -> i32
  %m = cuda.address %Tm, %c0 : !tirx.buffer<128xi8, global>, index -> i64
  %n = cuda.address %Tn, %c0 : !tirx.buffer<128xi8, global>, index -> i64
  ptx.mbarrier_init "shared" [%pb], %one : (i32, i32) -> ()
  %s = ptx.mbarrier_arrive_expect_tx "shared" [%pb], %bytes : (i32, i32) -> i64
  ptx.cp_async_bulk_tensor_g2s "2d.shared::cta" [%ps], [%m, {{%z, %z}}], [%pb] : (i32, i64, i32, i32, i32) -> ()
{spin_wait()}
  {op} [%n, {{%x, %y}}], [%ps] : (i64, i32, i32, i32) -> ()
  ptx.cp_async_bulk_commit_group
  ptx.cp_async_bulk_wait_group "read" 0""", "grid [1] threads [1]", attrs=(
        " attributes {cuda.tensor_maps = array<i64: 0, 1>}"))


@pytest.mark.parametrize("op", ['ptx.cp_async_bulk_tensor_s2g "2d"',
                                'ptx.cp_reduce_async_bulk_tensor "2d.add"'])
def test_tensor_store_and_reduce_write_the_box_back_unswizzled(op):
    a = np.random.default_rng(6).standard_normal((8, 32)).astype(np.float32)
    out = np.full((20, 72), 0.5, np.float32)
    before = out.copy()
    run_simt(_store_kernel(op), encode_tensor_map(a, (32, 8), swizzle="128B"),
             encode_tensor_map(out, (32, 8), swizzle="128B"))
    expected = before.copy()
    expected[8:16, 32:64] = a if "s2g" in op else a + 0.5
    np.testing.assert_array_equal(out, expected)


def test_tensor_store_skips_out_of_bounds_elements():
    a = np.arange(256, dtype=np.float32).reshape(8, 32)
    out = np.zeros((12, 40), np.float32)
    run_simt(_store_kernel('ptx.cp_async_bulk_tensor_s2g "2d"'),
             encode_tensor_map(a, (32, 8), swizzle="128B"),
             encode_tensor_map(out, (32, 8), swizzle="128B"))
    expected = np.zeros((12, 40), np.float32)
    expected[8:12, 32:40] = a[:4, :8]
    np.testing.assert_array_equal(out, expected)


def _bulk_store_kernel(overwrite_before_wait: bool) -> str:
    wait = "ptx.cp_async_bulk_wait_group \"read\" 0"
    first, second = ("", wait) if overwrite_before_wait else (wait, "")
    return cuda_kernel(
        "(%In: !tirx.buffer<8xi32, global>) -> (%Out: !tirx.buffer<8xi32, global>)", f"""
  %c0 = arith.constant 0 : index
  %size = arith.constant 32 : i32
  %nine = arith.constant 9 : i32
  %sm = cuda.shared_alloc align 16 : !tirx.buffer<8xi32, shared>
  %ps = cuda.address %sm, %c0 : !tirx.buffer<8xi32, shared>, index -> i32
  %go = cuda.address %Out, %c0 : !tirx.buffer<8xi32, global>, index -> i64
  %v = cuda.load %In, %c0 : !tirx.buffer<8xi32, global>, index -> vector<4xi32>
  cuda.store %sm, %c0, %v : !tirx.buffer<8xi32, shared>, index, vector<4xi32>
  %c4 = arith.constant 4 : index
  %w = cuda.load %In, %c4 : !tirx.buffer<8xi32, global>, index -> vector<4xi32>
  cuda.store %sm, %c4, %w : !tirx.buffer<8xi32, shared>, index, vector<4xi32>
  ptx.fence_proxy_async "shared::cta"
  ptx.cp_async_bulk_s2g [%go], [%ps], %size : (i64, i32, i32) -> ()
  ptx.cp_async_bulk_commit_group
  {first}
  cuda.store %sm, %c4, %nine : !tirx.buffer<8xi32, shared>, index, i32
  {second}""", "grid [1] threads [1]")


def test_bulk_store_copies_and_its_source_is_free_after_wait_group_read():
    x = np.arange(8, dtype=np.int32) + 3
    (out,), _ = run_simt(_bulk_store_kernel(False), x)
    np.testing.assert_array_equal(out, x)


def test_overwriting_a_bulk_store_source_before_wait_group_read_is_an_error():
    with pytest.raises(InterpretError) as err:
        run_simt(_bulk_store_kernel(True), np.zeros(8, np.int32))
    assert "[async] cuda.store: overwrites shared offset 16 (%sm[4]) of CTA (0,0,0), which the " \
           "ptx.cp_async_bulk_s2g at <test>:15:3 issued by thread (0,0,0) of CTA (0,0,0) may " \
           "still be reading" in str(err.value)


def test_multicast_load_writes_every_cta_of_the_mask():
    # cluster of 2: each CTA expects 64 bytes on its own barrier; rank 0 multicasts to both
    text = cuda_kernel(
        "(%In: !tirx.buffer<16xi32, global>) -> (%Out: !tirx.buffer<32xi32, global>)", """
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %p0 = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %bytes = arith.constant 64 : i32
  %mask = arith.constant 3 : i16
  %true = arith.constant true
  %sm = cuda.shared_alloc align 128 : !tirx.buffer<16xi32, shared>
  %bar = cuda.shared_alloc align 8 : !tirx.buffer<1xi64, shared>
  %pb = cuda.address %bar, %c0 : !tirx.buffer<1xi64, shared>, index -> i32
  %ps = cuda.address %sm, %c0 : !tirx.buffer<16xi32, shared>, index -> i32
  %g = cuda.address %In, %c0 : !tirx.buffer<16xi32, global>, index -> i64
  %rank = cuda.cluster_block_rank : index
  ptx.mbarrier_init "shared" [%pb], %one : (i32, i32) -> ()
  %s = ptx.mbarrier_arrive_expect_tx "shared" [%pb], %bytes : (i32, i32) -> i64
  cuda.sync_cluster
  %first = arith.cmpi eq, %rank, %c0 : index
  scf.if %first {
    ptx.cp_async_bulk_g2s_multicast [%ps], [%g], %bytes, [%pb], %mask : (i32, i64, i32, i32, i16) -> ()
  }
""" + spin_wait() + """
  %b = cuda.block_idx x : index
  %base = arith.muli %b, %c16 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c16 step %c1 {
    %v = cuda.load %sm, %i : !tirx.buffer<16xi32, shared>, index -> i32
    %o = arith.addi %base, %i : index
    cuda.store %Out, %o, %v : !tirx.buffer<32xi32, global>, index, i32
  }""", "grid [2] cluster [2] threads [1]")
    x = np.arange(16, dtype=np.int32) * 5
    (out,), _ = run_simt(text, x)
    np.testing.assert_array_equal(out, np.concatenate([x, x]))


def _row_multicast(masks: tuple[int, int], expect: int) -> str:
    """A 2x2 cluster (rank x + 2y), one thread per CTA: each CTA expects ``expect`` bytes on its
    own barrier; the CTA x = 0 of row y multicasts row y of In (64 bytes) to ``masks[y]``; after
    its wait each CTA copies its tile to Out[rank]."""
    return cuda_kernel(
        "(%In: !tirx.buffer<32xi32, global>) -> (%Out: !tirx.buffer<64xi32, global>)", f"""
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c16 = arith.constant 16 : index
  %p0 = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %size = arith.constant 64 : i32
  %bytes = arith.constant {expect} : i32
  %true = arith.constant true
  %sm = cuda.shared_alloc align 128 : !tirx.buffer<16xi32, shared>
  %bar = cuda.shared_alloc align 8 : !tirx.buffer<1xi64, shared>
  %pb = cuda.address %bar, %c0 : !tirx.buffer<1xi64, shared>, index -> i32
  %ps = cuda.address %sm, %c0 : !tirx.buffer<16xi32, shared>, index -> i32
  %rank = cuda.cluster_block_rank : index
  %y = arith.divui %rank, %c2 : index
  %x = arith.remui %rank, %c2 : index
  %row = arith.muli %y, %c16 : index
  %g = cuda.address %In, %row : !tirx.buffer<32xi32, global>, index -> i64
  %top = arith.cmpi eq, %y, %c0 : index
  %m0 = arith.constant {masks[0]} : i16
  %m1 = arith.constant {masks[1]} : i16
  %mask = arith.select %top, %m0, %m1 : i16
  ptx.mbarrier_init "shared" [%pb], %one : (i32, i32) -> ()
  %s = ptx.mbarrier_arrive_expect_tx "shared" [%pb], %bytes : (i32, i32) -> i64
  cuda.sync_cluster
  %issuer = arith.cmpi eq, %x, %c0 : index
  scf.if %issuer {{
    ptx.cp_async_bulk_g2s_multicast [%ps], [%g], %size, [%pb], %mask : (i32, i64, i32, i32, i16) -> ()
  }}
""" + spin_wait() + """
  %base = arith.muli %rank, %c16 : index
  scf.for %i = %c0 to %c16 step %c1 {
    %v = cuda.load %sm, %i : !tirx.buffer<16xi32, shared>, index -> i32
    %o = arith.addi %base, %i : index
    cuda.store %Out, %o, %v : !tirx.buffer<64xi32, global>, index, i32
  }
  cuda.sync_cluster""", "grid [2, 2] cluster [2, 2] threads [1]")


def test_multicast_to_a_row_of_the_cluster_reaches_only_the_row():
    """Masks 0b0011 and 0b1100: each row's CTAs receive their row's 64 bytes, each barrier
    counts them once."""
    x = np.arange(32, dtype=np.int32) * 3
    (out,), _ = run_simt(_row_multicast((3, 12), 64), x)
    np.testing.assert_array_equal(out.reshape(4, 16), x.reshape(2, 16)[[0, 0, 1, 1]])


@pytest.mark.parametrize("masks, expect, why", [
    ((3, 12), 32, "-32 transaction bytes pending"),   # expect_tx of half the tile
    ((3, 12), 128, "64 transaction bytes pending"),   # of two tiles
    ((1, 12), 64, "CTA (1,0,0)"),                     # rank 1 left out of row 0's mask
])
def test_a_wrong_expect_tx_or_mask_is_a_deadlock_naming_the_barrier(masks, expect, why):
    """A barrier whose expected bytes are not what the masks deliver to its CTA never
    completes: the run stops as a deadlock naming the barrier and its pending bytes."""
    with pytest.raises(InterpretError) as err:
        run_simt(_row_multicast(masks, expect), np.zeros(32, np.int32))
    text = str(err.value).splitlines()[0]
    assert "deadlock" in text and "%bar[0]" in text and why in text, text


def test_a_mask_reaching_past_the_row_leaves_bytes_no_phase_expected():
    """Row 0 multicast to 0b0111: the CTA of rank 2 receives row 0's bytes besides its own
    row's, 128 bytes on its barrier for the 64 its phase expects; the phase completes on the
    first 64 and the other 64 are left over (on a GPU they overwrite the tile at some time):
    the run ends with an error naming the barrier. The racecheck sees it first: the two
    multicasts write those bytes of rank 2 unordered (a WAW hazard at the op)."""
    with pytest.raises(InterpretError) as err:
        run_simt(_row_multicast((7, 12), 64), np.zeros(32, np.int32), racecheck=False)
    text = str(err.value).splitlines()[0]
    assert "%bar[0]) of CTA (0,1,0) in phase 1 holding 64 transaction bytes more than its " \
        "phases expected" in text, text
    with pytest.raises(InterpretError) as err:
        run_simt(_row_multicast((7, 12), 64), np.zeros(32, np.int32))
    text = str(err.value).splitlines()[0]
    assert "[race] ptx.cp_async_bulk_g2s_multicast: potential WAW hazard at __shared__ 0x0 in " \
        "block (0,1,0)" in text, text


def test_bulk_shared_to_cluster_copy_completes_on_the_destination_barrier():
    # s2c into the CTA's own shared memory (a shared::cluster address of rank 0 is its own)
    text = cuda_kernel("(%In: !tirx.buffer<8xi32, global>) -> (%Out: !tirx.buffer<8xi32, "
                       "global>)", """
  %c0 = arith.constant 0 : index
  %c8 = arith.constant 8 : index
  %p0 = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %size = arith.constant 32 : i32
  %true = arith.constant true
  %src = cuda.shared_alloc align 16 : !tirx.buffer<8xi32, shared>
  %dst = cuda.shared_alloc align 16 : !tirx.buffer<8xi32, shared>
  %bar = cuda.shared_alloc align 8 : !tirx.buffer<1xi64, shared>
  %pb = cuda.address %bar, %c0 : !tirx.buffer<1xi64, shared>, index -> i32
  %ps = cuda.address %src, %c0 : !tirx.buffer<8xi32, shared>, index -> i32
  %pd = cuda.address %dst, %c0 : !tirx.buffer<8xi32, shared>, index -> i32
  %v = cuda.load %In, %c0 : !tirx.buffer<8xi32, global>, index -> vector<4xi32>
  cuda.store %src, %c0, %v : !tirx.buffer<8xi32, shared>, index, vector<4xi32>
  %c4 = arith.constant 4 : index
  %w = cuda.load %In, %c4 : !tirx.buffer<8xi32, global>, index -> vector<4xi32>
  cuda.store %src, %c4, %w : !tirx.buffer<8xi32, shared>, index, vector<4xi32>
  ptx.mbarrier_init "shared" [%pb], %one : (i32, i32) -> ()
  %s = ptx.mbarrier_arrive_expect_tx "shared" [%pb], %size : (i32, i32) -> i64
  ptx.fence_proxy_async "shared::cta"
  ptx.cp_async_bulk_s2c [%pd], [%ps], %size, [%pb] : (i32, i32, i32, i32) -> ()
""" + spin_wait() + """
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %x = cuda.load %dst, %i : !tirx.buffer<8xi32, shared>, index -> i32
    cuda.store %Out, %i, %x : !tirx.buffer<8xi32, global>, index, i32
  }""", "grid [1] cluster [1] threads [1]")
    x = np.arange(8, dtype=np.int32) - 4
    (out,), _ = run_simt(text, x)
    np.testing.assert_array_equal(out, x)


@pytest.mark.parametrize("redop,expected", [
    ("add", [5, 7, 12, 0xFFFFFFFF]), ("min", [2, 3, 2, 0]), ("max", [3, 4, 10, 0xFFFFFFFF]),
    ("inc", [3, 4, 0, 0]), ("dec", [1, 2, 2, 0]), ("and", [2, 0, 2, 0]),
    ("or", [3, 7, 10, 0xFFFFFFFF]), ("xor", [1, 7, 8, 0xFFFFFFFF])])
def test_integer_reductions_follow_the_ptx_formulas(redop, expected):
    from tirx_mlir.backends.cuda.interpreter.tensor_map import decode
    from tirx_mlir.backends.cuda.interpreter.tma import reduce_values

    tmap = decode(encode_tensor_map(np.zeros(4, np.uint32), (4,)))
    old = np.array([2, 3, 10, 0xFFFFFFFF], np.uint32)
    new = np.array([3, 4, 2, 0], np.uint32)
    # inc: old >= new ? 0 : old + 1;  dec: old == 0 or old > new ? new : old - 1
    assert reduce_values(None, redop, tmap, old, new, 0).tolist() == expected


def test_tma_wgmma_example_computes_a_times_b_transposed():
    # the TMA tiles (32-byte swizzle) decoded by wgmma's shared-memory descriptors: the two
    # agree on where every byte is only if the swizzle is the hardware's
    pytest.importorskip("tirx_mlir.backends.cuda.interpreter.tensor_core",
                        reason="needs the wgmma implementation (tensor_core)")
    from pathlib import Path

    from tirx_mlir.backends.cuda.interpreter import simulate

    text = (Path(__file__).parents[4] / "examples" / "cuda" / "tma_wgmma.mlir").read_text()
    rng = np.random.default_rng(7)
    a = rng.standard_normal((64, 16)).astype(np.float16)
    b = rng.standard_normal((128, 16)).astype(np.float16)
    run = simulate(text, "tma_wgmma", encode_tensor_map(a, (16, 64), swizzle="32B"),
                   encode_tensor_map(b, (16, 128), swizzle="32B"))
    expected = a.astype(np.float32) @ b.astype(np.float32).T
    np.testing.assert_allclose(run.outputs[0].reshape(64, 128), expected, rtol=1e-5,
                               atol=1e-5)
    unswizzled = simulate(text, "tma_wgmma", encode_tensor_map(a, (16, 64)),
                          encode_tensor_map(b, (16, 128)))
    assert not np.allclose(unswizzled.outputs[0].reshape(64, 128), expected, atol=1e-2)


def _peer_copy_kernel(read_early: bool) -> str:
    """Each CTA of a 2-CTA cluster bulk-copies its 8 words into the peer's %dst, arming the
    peer's barrier itself (expect_tx at cluster scope on the mapa'd address); the peer's
    thread arrives after a cluster barrier and waits (the dsmem protocol of
    dispatch/copy_async_dsmem.py)."""
    early = """
  %e = cuda.load %dst, %c0 : !tirx.buffer<8xi32, shared>, index -> i32""" if read_early else ""
    return cuda_kernel("(%In: !tirx.buffer<16xi32, global>) -> (%Out: !tirx.buffer<16xi32, "
                       "global>)", """
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %p0 = arith.constant 0 : i32
  %one = arith.constant 1 : i32
  %size = arith.constant 32 : i32
  %true = arith.constant true
  %src = cuda.shared_alloc align 16 : !tirx.buffer<8xi32, shared>
  %dst = cuda.shared_alloc align 16 : !tirx.buffer<8xi32, shared>
  %bar = cuda.shared_alloc align 8 : !tirx.buffer<1xi64, shared>
  %pb = cuda.address %bar, %c0 : !tirx.buffer<1xi64, shared>, index -> i32
  %ps = cuda.address %src, %c0 : !tirx.buffer<8xi32, shared>, index -> i32
  %pd = cuda.address %dst, %c0 : !tirx.buffer<8xi32, shared>, index -> i32
  %b = cuda.block_idx x : index
  %base = arith.muli %b, %c8 : index
  %base4 = arith.addi %base, %c4 : index
  %v = cuda.load %In, %base : !tirx.buffer<16xi32, global>, index -> vector<4xi32>
  cuda.store %src, %c0, %v : !tirx.buffer<8xi32, shared>, index, vector<4xi32>
  %w = cuda.load %In, %base4 : !tirx.buffer<16xi32, global>, index -> vector<4xi32>
  cuda.store %src, %c4, %w : !tirx.buffer<8xi32, shared>, index, vector<4xi32>
  ptx.mbarrier_init "shared" [%pb], %one : (i32, i32) -> ()
  ptx.fence_mbarrier_init
  cuda.sync_cluster
  %rank_index = cuda.cluster_block_rank : index
  %rank = arith.index_cast %rank_index : index to i32
  %peer = arith.xori %rank, %one : i32
  %rb = ptx.mapa "u32" %pb, %peer : (i32, i32) -> i32
  %rd = ptx.mapa "u32" %pd, %peer : (i32, i32) -> i32
  ptx.fence_proxy_async "shared::cta"
  ptx.mbarrier_expect_tx "cluster.shared::cluster" [%rb], %size : (i32, i32) -> ()
  ptx.cp_async_bulk_s2c [%rd], [%ps], %size, [%rb] : (i32, i32, i32, i32) -> ()
  cuda.sync_cluster""" + early + """
  %s = ptx.mbarrier_arrive "shared" [%pb] : (i32) -> i64
""" + spin_wait() + """
  cuda.sync_cluster
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c8 step %c1 {
    %x = cuda.load %dst, %i : !tirx.buffer<8xi32, shared>, index -> i32
    %o = arith.addi %base, %i : index
    cuda.store %Out, %o, %x : !tirx.buffer<16xi32, global>, index, i32
  }""", "grid [2] cluster [2] threads [1]")


def test_bulk_copy_into_the_peer_cta_completes_on_the_peers_barrier():
    x = np.arange(16, dtype=np.int32) * 3
    (out,), _ = run_simt(_peer_copy_kernel(read_early=False), x)
    np.testing.assert_array_equal(out, np.concatenate([x[8:], x[:8]]))


def test_reading_a_peer_copy_before_the_barrier_phase_is_an_error():
    with pytest.raises(InterpretError, match="cp_async_bulk_s2c"):
        run_simt(_peer_copy_kernel(read_early=True), np.arange(16, dtype=np.int32))
