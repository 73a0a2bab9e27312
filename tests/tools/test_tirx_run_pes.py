"""tirx-run --pes N: a CUDA-level kernel on N simulated NVSHMEM PEs, outputs summarized and
saved per PE; a tile-level kernel or a count below 1 is refused with a sentence."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from tirx_mlir.tools import tirx_run

ROOT = Path(__file__).parents[2]
RING = ROOT / "examples" / "cuda" / "nvshmem_ring.mlir"


def test_ring_on_three_pes_prints_and_saves_each_pe(tmp_path, capsys):
    send = np.arange(1024, dtype=np.float32)
    np.save(tmp_path / "send.npy", send)
    np.save(tmp_path / "recv.npy", np.zeros(1024, np.float32))
    np.save(tmp_path / "sig.npy", np.zeros(1, np.int64))
    out = tmp_path / "out"
    rc = tirx_run.main([str(RING), "--pes", "3", "--inputs", str(tmp_path / "send.npy"),
                        "--outputs", str(tmp_path / "recv.npy"), str(tmp_path / "sig.npy"),
                        "--save", str(out)])
    lines = capsys.readouterr().out.splitlines()
    assert rc == 0
    assert [line.split(":")[0] for line in lines] == [
        f"%{name} on PE {p}" for p in range(3) for name in ("Recv", "Sig")]
    assert lines[1] == "%Sig on PE 0: [1] i64  min 1  max 1  mean 1  poison 0"
    for p in range(3):
        np.testing.assert_array_equal(np.load(out / f"Recv.pe{p}.npy"), send)
        assert np.load(out / f"Sig.pe{p}.npy").tolist() == [1]
    np.testing.assert_array_equal(np.load(out / "Recv.npy"), send)


def test_pes_on_a_tile_level_kernel_is_refused(capsys):
    assert tirx_run.main([str(ROOT / "examples" / "softmax.mlir"), "--pes", "2"]) == 1
    assert "--pes runs thread-level kernels (those a backend's kernel executor runs, e.g. " \
           "CUDA's cuda/ptx/nvshmem ops) on simulated PEs; @softmax is not one" in \
           capsys.readouterr().err


@pytest.mark.parametrize("bad", ["0", "two"])
def test_pes_must_be_a_positive_count(capsys, bad):
    assert tirx_run.main([str(RING), "--pes", bad]) == 1
    assert f"argument --pes: expected a PE count >= 1, got '{bad}'" in capsys.readouterr().err
