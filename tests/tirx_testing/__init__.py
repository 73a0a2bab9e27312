"""Helpers shared by the test suite (on the import path through pytest's ``pythonpath``):
`trn` (trn kernels and the nki interpreter), `trn_lowering` (the trn pipeline and three-way
checks), `interp` (tile-level interpreter harness), `nki_mock` (a numpy stand-in of NKI),
`endless` (kernels that never end)."""
