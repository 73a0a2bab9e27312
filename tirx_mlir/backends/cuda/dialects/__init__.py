"""Dialects of the CUDA backend: ``cuda`` (CUDA C++ built-ins and intrinsics as a kernel author
writes them) and ``nvshmem`` (NVSHMEM's device API)."""
