"""bench/triton_peers/peers.py: the peers derived from a tile example's signature, and finding a
Python with Triton."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "bench"))

from triton_peers.peers import (PEERS, KernelShape, Param, one_row_peer,  # noqa: E402
                                peer_from_signature, row_block, triton_python)


def shape(name, params, grid, threads=128, arch=80):
    return KernelShape(name, [Param(*p) for p in params], grid, threads, arch)


def test_gemm_tile_from_grid_and_b_layout():
    k = shape("gemm_mma_sync", [("A", (256, 512), "f16"), ("Bt", (256, 512), "f16"),
                                ("C", (256, 256), "f32")], (2, 4))
    p = peer_from_signature("cuda/tile/gemm_mma_sync", k)
    assert p.kernel == "matmul" and p.tile == (64, 128, 64) and p.grid == (2, 4)
    assert p.constexprs["B_NK"] is True and (p.constexprs["M"], p.constexprs["N"],
                                             p.constexprs["K"]) == (256, 256, 512)
    assert p.pointers == {"a_ptr": "fp16", "b_ptr": "fp16", "c_ptr": "fp32"} and p.archs == (80,)
    kn = shape("matmul", [("A", (128, 64), "bf16"), ("B", (64, 256), "bf16"),
                          ("C", (128, 256), "bf16")], (1, 1), threads=256, arch=90)
    p = peer_from_signature("x", kn)
    assert p.constexprs["B_NK"] is False and p.num_warps == 8 and p.archs == (90,)


def test_a_warp_specialized_gemm_peer_gets_the_multiplying_warps():
    k = KernelShape("gemm_sm90a", [Param("A", (256, 256), "f16"), Param("B", (256, 256), "f16"),
                                   Param("C", (256, 256), "f32")], (2, 2), 384, 90,
                    {"mma_warps": 8})
    p = peer_from_signature("cuda/tile/gemm_sm90a", k)
    assert p.num_warps == 8 and p.tile == (128, 128, 64) and "as many as ours" in p.note


def test_the_gemm_op_s_tile_wins_over_the_grid():
    # gemm_multicast_sm90a: 2 CTAs along x, each 128 rows of a 256x128 C; the grid alone reads
    # x as N (Triton's grid) and would make the peer's tile 256x64
    params = [Param("A", (256, 256), "f16"), Param("B", (128, 256), "f16"),
              Param("C", (256, 128), "f32")]
    by_grid = peer_from_signature("g", KernelShape("gemm", params, (2,), 128, 90))
    assert by_grid.tile == (256, 64, 64) and "grid" in by_grid.note
    k = KernelShape("gemm", params, (2,), 256, 90, {"tile": (128, 128, 32), "mma_warps": 4})
    p = peer_from_signature("g", k)
    assert p.tile == (128, 128, 32) and p.grid == (1, 2) and p.num_warps == 4
    assert (p.constexprs["BM"], p.constexprs["BN"], p.constexprs["BK"]) == (128, 128, 32)
    assert "gemm" in p.note
    # a tile that does not divide the problem is not the CTA's: back to the grid
    odd = KernelShape("gemm", params, (2,), 128, 90, {"tile": (96, 128, 64)})
    assert peer_from_signature("g", odd).tile == (256, 64, 64)


def test_the_example_gemms_tiles_and_mma_warps():
    from triton_peers.ours import examples
    by_name = {e.name: e for e in examples(["tile/gemm_sm90a", "tile/gemm_sm80",
                                            "tile/gemm_multicast_sm90a"])}
    # sm_90a: 3 warpgroups, the last one the TMA producer; sm_80: every warp multiplies
    assert by_name["cuda/tile/gemm_sm90a"].shape.extra == {"tile": (128, 128, 64),
                                                           "mma_warps": 8}
    assert by_name["cuda/tile/gemm_sm90a"].peer.num_warps == 8
    # gemm_sm80 walks K in steps of 32 (its shared tiles are 128x32 and 32x128)
    assert by_name["cuda/tile/gemm_sm80"].shape.extra == {"tile": (128, 128, 32)}
    assert by_name["cuda/tile/gemm_sm80"].peer.tile == (128, 128, 32)
    # one grid axis that walks M: each CTA a 128x128 tile, one consumer warpgroup
    multicast = by_name["cuda/tile/gemm_multicast_sm90a"].peer
    assert multicast.tile == (128, 128, 64) and multicast.num_warps == 4


def test_row_kernels_and_elementwise():
    sm = peer_from_signature("s", shape("softmax", [("X", (64, 2048), "f32"),
                                                    ("Y", (64, 2048), "f32")], (64,)))
    assert sm.kernel == "softmax" and sm.constexprs == {"COLS": 2048} and sm.grid == (64,)
    assert one_row_peer(sm) is None  # already one row per program
    rms = peer_from_signature("r", shape("rmsnorm", [("X", (8, 512), "f16"), ("W", (512,), "f16"),
                                                     ("Y", (8, 512), "f16")], (8,)))
    assert rms.kernel == "rmsnorm" and rms.constexprs["COLS"] == 512
    add = peer_from_signature("a", shape("add", [("A", (4096,), "f32")] * 3, (16,), threads=256))
    assert add.constexprs == {"N": 4096, "BLOCK": 256} and add.num_warps == 8
    assert peer_from_signature("s", shape("softmax", [("X", (4, 1000), "f32"),
                                                      ("Y", (4, 1000), "f32")], (4,))) is None
    assert peer_from_signature("t", shape("transpose", [("X", (4, 4), "f32")] * 2, (1,))) is None


def test_row_kernels_take_the_example_s_block_of_rows():
    # 512 rows on 16 CTAs: 32 rows per program, from the grid or from the slices (extra)
    k = shape("softmax", [("X", (512, 256), "f32"), ("Y", (512, 256), "f32")], (16,))
    assert row_block(k) == 32
    p = peer_from_signature("cuda/tile/softmax", k)
    assert p.kernel == "softmax_rows" and p.constexprs == {"COLS": 256, "ROWS": 32}
    assert p.grid == (16,) and p.num_warps == 4 and "32x256" in p.note
    one = one_row_peer(p)
    assert one.kernel == "softmax" and one.constexprs == {"COLS": 256} and one.grid == (512,)
    assert one.num_warps == 4 and one.ours is None and one.name == "softmax_1row"
    # the slices' rows win over the grid (a 2-D grid whose y does not walk rows)
    k2 = KernelShape("rmsnorm", [Param("X", (256, 512), "f16"), Param("W", (1, 512), "f16"),
                                 Param("Y", (256, 512), "f16")], (32, 2), 128, 80, {"rows": 8})
    r = peer_from_signature("r", k2)
    assert r.kernel == "rmsnorm_rows" and r.constexprs["ROWS"] == 8 and r.grid == (32,)
    assert set(r.pointers) == {"x_ptr", "w_ptr", "y_ptr"}
    assert one_row_peer(r).constexprs == {"COLS": 512, "EPS": 1e-6}
    # a block that is no power of two has no tl.arange: no peer
    odd = shape("softmax", [("X", (48, 256), "f32"), ("Y", (48, 256), "f32")], (2,))
    assert row_block(odd) == 24 and peer_from_signature("s", odd) is None
    # rows the grid does not divide: one row per program
    assert row_block(shape("softmax", [("X", (10, 256), "f32")] * 2, (3,))) == 1


def test_the_row_examples_blocks_of_rows():
    from triton_peers.ours import examples
    by_name = {e.name: e for e in examples(["tile/softmax", "tile/softmax_registers",
                                            "tile/rmsnorm"])}
    for name, rows, cols in (("softmax", 32, 256), ("softmax_registers", 32, 256),
                             ("rmsnorm", 8, 512)):
        ex = by_name[f"cuda/tile/{name}"]
        assert ex.shape.extra["rows"] == rows
        assert ex.peer.constexprs["ROWS"] == rows and ex.peer.constexprs["COLS"] == cols
        assert ex.peer.num_warps == 4 and ex.peer.kernel.endswith("_rows")
        assert [o.kernel for o in ex.others] == [ex.peer.kernel.removesuffix("_rows")]


def test_fixed_peers_name_existing_examples():
    for peer in PEERS.values():
        if peer.ours:
            assert (ROOT / "examples" / f"{peer.ours}.mlir").is_file(), peer.ours


def fake_python(path: Path, status: int) -> str:
    path.write_text(f"#!/bin/sh\nexit {status}\n")
    path.chmod(0o755)
    return str(path)


def test_the_python_for_triton(tmp_path, monkeypatch):
    with_triton, without = fake_python(tmp_path / "yes", 0), fake_python(tmp_path / "no", 1)
    monkeypatch.setenv("TIRX_TRITON_PYTHON", without)
    assert triton_python() is None
    assert triton_python(with_triton) == with_triton  # the option wins over the variable
    monkeypatch.setenv("TIRX_TRITON_PYTHON", with_triton)
    assert triton_python() == with_triton
    assert triton_python(str(tmp_path / "absent")) is None
