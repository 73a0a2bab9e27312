"""The shared memory one block may use on a cuda target (`target_tags.max_shared_bytes`): what
the target states (the tags state the product's figure), else its arch's opt-in maximum from the
CUDA C++ Programming Guide's compute-capability table, else the 48 KiB every block may use."""

from __future__ import annotations

import pytest

import tirx_mlir  # noqa: F401  (registers the cuda target kind)
from tirx_mlir.backends import load
from tirx_mlir.backends.cuda.target_tags import DEFAULT_SHARED_BYTES, max_shared_bytes
from tirx_mlir.target import Target

load("cuda")


@pytest.mark.parametrize("spec,expected", [
    ("cuda -arch=sm_80", 166912), ("cuda -arch=sm_90a", 232448), ("cuda -arch=sm_86", 101376),
    ("cuda -arch=sm_75", 65536), ("cuda -arch=sm_100a", 232448),
    ("nvidia/nvidia-a100", 166912), ("nvidia/nvidia-h100", 232448), ("nvidia/nvidia-l4", 101376),
    ("nvidia/nvidia-h100 -max_shared_memory_per_block=49152", 49152),
    ("cuda -arch=sm_80 -max_shared_memory_per_block=65536", 65536),
    ("cuda", DEFAULT_SHARED_BYTES), ("cuda -arch=sm_61", DEFAULT_SHARED_BYTES),
])
def test_shared_memory_per_block(spec, expected):
    assert max_shared_bytes(Target(spec)) == expected
