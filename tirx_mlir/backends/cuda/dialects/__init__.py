"""Dialects of the CUDA backend: ``cuda`` (CUDA C++ built-ins and intrinsics as a kernel author
writes them), ``ptx`` (one op per PTX instruction form, generated from a table) and ``nvshmem``
(NVSHMEM's device API)."""
