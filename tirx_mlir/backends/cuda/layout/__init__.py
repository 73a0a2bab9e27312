"""Layouts of the CUDA backend: who holds which element (registers, fragments) and where shared
tiles put them (swizzle.py: the 32/64/128-byte swizzled layouts of TMA and wgmma)."""
