"""The SIMT interpreter: runs CUDA-level kernels (``cuda``, ``ptx``, ``nvshmem`` ops with
``arith``/``math``/``scf``) on a CPU, a whole wave of CTAs at a time, every op for all lanes of
a group at once (numpy arrays over lanes).

    out = tirx_mlir.interpret(ir_text, "vector_add", a, b)     # handed here by the core

Modules: ``values`` (how SSA values are held per lane), ``wave`` (lane geometry), ``memory``
(global/shared memory, addresses, checked accesses, atomics), ``engine`` (groups, divergence,
the scheduler, deadlock detection, the step budget), ``impls`` (the op -> implementation
table), ``executor`` (launch: waves, parameters, shared layout, options, statistics),
``stats``, ``api`` (`simulate`); op families: ``control`` (scf), ``arith_ops``, ``cuda_ops`` (ids, addresses,
loads/stores, shared memory), ``barriers``, ``ptx_rows`` (the ptx dispatch by table row),
``ptx_memory_ops``.
"""


def simulate(*args, **kwargs):
    """`api.simulate`: run a CUDA-level kernel with SIMT options; returns outputs and stats."""
    from tirx_mlir.backends.cuda.interpreter.api import simulate as run

    return run(*args, **kwargs)
