"""Dialects of the Trainium backend: ``nki`` (one op per NKI ISA instruction)."""
