"""Checks of the SIMT interpreter that watch shared memory: bank conflicts and races.

``banks`` counts the wavefronts of each warp's shared access the way Nsight Compute does;
``races`` is a racecheck over the shared arenas of a wave, ordered by barriers; ``observers``
plugs both into a run (memory observers). All pure numpy, vectorised over the lanes of an access.
"""
