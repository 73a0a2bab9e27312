"""Helpers shared by the test suite (on the import path through pytest's ``pythonpath``):
`trn` (trn kernels and the nki interpreter), `trn_lowering` (the trn pipeline and three-way
checks), `interp` (tile-level interpreter harness), `nki_mock` (a numpy stand-in of NKI),
`cuda` (SSA values and buffers for building cuda/nvshmem ops), `scopes` (a made-up
memory scope for backend-neutral tests), `endless` (kernels that never end)."""
