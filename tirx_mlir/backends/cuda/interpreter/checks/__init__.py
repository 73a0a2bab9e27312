"""Checks of the SIMT interpreter that watch shared memory: bank conflicts, races and proxies.

``banks`` counts the wavefronts of each warp's shared access the way Nsight Compute does;
``races`` is a racecheck over the shared arenas of a wave, ordered by barriers; ``observers``
plugs both into a run (memory observers); ``proxies`` checks that generic-proxy writes reach
async-proxy accesses (wgmma, bulk and TMA copies) through a ``fence.proxy.async``. All pure
numpy, vectorised over the lanes of an access.
"""
