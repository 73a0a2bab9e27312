"""A made-up memory scope for tests of backend-neutral code (no backend's scope)."""

from __future__ import annotations

import contextlib
from typing import Iterator

from tirx_mlir import registry


@contextlib.contextmanager
def made_up_scope(name: str, used_by: str) -> Iterator[str]:
    """Register the memory scope ``name`` for the duration of the block, then remove it."""
    owner = f"made-up scope {name}"
    with registry.owner_scope(owner):
        registry.register_memory_scope(name, f"made-up memory of {used_by}")
    try:
        yield name
    finally:
        registry.drop_owner_everywhere(owner)
