"""A test-only backend whose register_backend() registers from a worker thread (calling a core
registry function directly, so no code of this package is on the thread's stack) and then
raises: the thread's registration must be rolled back with the hook."""

from __future__ import annotations

import threading


def register_backend() -> None:
    from tirx_mlir import registry

    worker = threading.Thread(target=registry.register_memory_scope,
                              args=("tirx_threaded_scope", "registered from a worker thread"))
    worker.start()
    worker.join()
    raise RuntimeError("tirx_threaded: failing after its worker registered")
