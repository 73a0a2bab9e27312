"""Dialects of the CUDA backend: ``ptx`` (one op per PTX instruction form, from a table)."""
