"""The NKI call signatures the printers may emit, for both API generations (aws-neuron-sdk `nki/api/nki/isa/__init__.py`, and for the legacy API the SDK 2.26 docs `general/nki/api/nki/isa/__init__.py`).

``LEGACY`` is the ``neuronxcc.nki`` API (NKI 0.1, SDK <= 2.26): calls
return their result (``t[...] = nisa.op(...)``) and take ``mask=``/``dtype=``. ``CURRENT`` is the
``nki`` API of NKI 0.3-0.6 (aws-neuron-sdk `nki/migration/index.rst`): destination first, no masks. Each entry names
the parameters, their kind (positional-or-keyword, keyword-only, ``*args``, ``**kwargs``),
whether they are required, and for some the kind of value they take (an ALU operator, an
activation function, an engine, a buffer, a dtype), so `check.py` can bind every emitted call
like Python would and check what is passed.

Names are canonical (``nki.isa.nc_matmul``); the module aliases of the emitted header
(``nl``, ``nisa``, ``ncc``, ``nt``, ``np``) resolve to them. Sources: the op descriptions of
the NKI ISA reference (argument names as printed there) and the migration guide; parameters that
the reference lists but the printers never pass (``mask``, ``dtype``, ``engine``...) are kept so a
hand-edited kernel checks too.
"""

from __future__ import annotations

from dataclasses import dataclass

from tirx_mlir.backends.trn.dialects.nki.tables import ACTIVATIONS, ALU_OPS

POS = "positional_or_keyword"
KW = "keyword_only"
VARARGS = "var_positional"
VARKW = "var_keyword"


@dataclass(frozen=True)
class Param:
    name: str
    kind: str = POS
    required: bool = True
    value: str | None = None
    """What the argument must be: 'alu' (an nl ALU operator), 'act' (an nl activation
    function), 'engine', 'buffer', 'dtype', 'bool', or None (anything)."""


def p(name: str, value: str | None = None) -> Param:
    """A required positional-or-keyword parameter."""
    return Param(name, POS, True, value)


def o(name: str, value: str | None = None) -> Param:
    """An optional positional-or-keyword parameter."""
    return Param(name, POS, False, value)


def k(name: str, value: str | None = None, required: bool = False) -> Param:
    """A keyword-only parameter."""
    return Param(name, KW, required, value)


ARGS = Param("args", VARARGS, False)
KWARGS = Param("kwargs", VARKW, False)

Signature = tuple[Param, ...]

# --- the legacy API (neuronxcc.nki) -------------------------------------------------------------

_LEGACY_MASK = (k("mask"), k("dtype", "dtype"))

LEGACY: dict[str, Signature] = {
    "nki.language.load": (p("src"), k("mask"), k("dtype", "dtype"), KWARGS),
    "nki.language.store": (p("dst"), p("value"), k("mask"), KWARGS),
    "nki.language.ndarray": (p("shape"), p("dtype", "dtype"), k("buffer", "buffer"),
                             k("name"), KWARGS),
    "nki.language.arange": (ARGS,),
    "nki.language.sequential_range": (ARGS, KWARGS),
    "nki.language.affine_range": (ARGS, KWARGS),
    "nki.language.static_range": (ARGS,),
    "nki.language.par_dim": (p("size"),),
    "nki.language.ds": (p("start"), p("size")),
    "nki.language.program_id": (p("axis"),),
    "nki.language.shared_constant": (p("constant"), o("dtype", "dtype"), KWARGS),
    "nki.language.where": (p("condition"), p("x"), p("y"), *_LEGACY_MASK, KWARGS),
    "nki.isa.nc_matmul": (p("stationary"), p("moving"), o("is_stationary_onezero", "bool"),
                          o("is_moving_onezero", "bool"), o("is_transpose", "bool"),
                          o("tile_position"), o("tile_size"), k("mask"), KWARGS),
    "nki.isa.nc_transpose": (p("data"), *_LEGACY_MASK, k("engine", "engine"), KWARGS),
    "nki.isa.tensor_copy": (p("src"), *_LEGACY_MASK, k("engine", "engine"), KWARGS),
    "nki.isa.activation": (p("op", "act"), p("data"), o("bias"), o("scale"),
                           o("reduce_op", "alu"), o("reduce_res"), o("reduce_cmd"),
                           *_LEGACY_MASK, KWARGS),
    "nki.isa.activation_reduce": (p("op", "act"), p("data"), k("reduce_op", "alu", True),
                                  k("reduce_res", None, True), k("bias"), k("scale"),
                                  *_LEGACY_MASK, KWARGS),
    "nki.isa.reciprocal": (p("data"), *_LEGACY_MASK, KWARGS),
    "nki.isa.tensor_reduce": (p("op", "alu"), p("data"), p("axis"), *_LEGACY_MASK,
                              k("negate", "bool"), k("keepdims", "bool"), KWARGS),
    "nki.isa.tensor_tensor": (p("data1"), p("data2"), p("op", "alu"), *_LEGACY_MASK,
                              k("engine", "engine"), KWARGS),
    "nki.isa.tensor_scalar": (p("data"), p("op0", "alu"), p("operand0"),
                              o("reverse0", "bool"), o("op1", "alu"), o("operand1"),
                              o("reverse1", "bool"), *_LEGACY_MASK, k("engine", "engine"),
                              KWARGS),
    "nki.isa.tensor_scalar_reduce": (k("data", None, True), k("op0", "alu", True),
                                     k("operand0", None, True), k("reduce_op", "alu", True),
                                     k("reduce_res", None, True), k("reverse0", "bool"),
                                     *_LEGACY_MASK, KWARGS),
    "nki.isa.scalar_tensor_tensor": (k("data", None, True), k("op0", "alu", True),
                                     k("operand0", None, True), k("op1", "alu", True),
                                     k("operand1", None, True), k("reverse0", "bool"),
                                     k("reverse1", "bool"), *_LEGACY_MASK, KWARGS),
    "nki.isa.iota": (p("expr"), p("dtype", "dtype"), k("mask"), KWARGS),
    "nki.isa.affine_select": (p("pred"), p("on_true_tile"), p("on_false_value"),
                              *_LEGACY_MASK, KWARGS),
    "nki.isa.memset": (p("shape"), p("value"), p("dtype", "dtype"), k("mask"),
                       k("engine", "engine"), KWARGS),
    "nki.isa.dma_copy": (k("src", None, True), k("dst", None, True), k("mask"),
                         k("dst_rmw_op"), k("oob_mode"), k("dge_mode")),
    "nki.compiler.sbuf.mod_alloc": (k("base_addr", None, True), k("num_free_tiles")),
    "nki.compiler.psum.mod_alloc": (k("base_bank", None, True), k("base_addr"),
                                    k("num_bank_tiles")),
    "nki.baremetal": (o("kernel"), KWARGS),
    "numpy.identity": (p("n"), o("dtype")),
}

# --- the current API (nki 0.3 - 0.6) ------------------------------------------------------------

CURRENT: dict[str, Signature] = {
    "nki.language.ndarray": (p("shape"), p("dtype", "dtype"), o("buffer", "buffer"),
                             o("name"), o("address")),
    "nki.language.ds": (p("start"), p("size")),
    "nki.language.program_id": (p("axis"),),
    "nki.language.affine_range": (ARGS, KWARGS),
    "nki.language.sequential_range": (ARGS, KWARGS),
    "nki.language.static_range": (ARGS, KWARGS),
    "nki.isa.nc_matmul": (p("dst"), p("stationary"), p("moving"),
                          o("is_stationary_onezero", "bool"), o("is_moving_onezero", "bool"),
                          o("is_transpose", "bool"), o("tile_position"), o("tile_size"),
                          o("accumulate"), o("name")),
    "nki.isa.nc_transpose": (p("dst"), p("data"), o("engine", "engine"), o("name")),
    "nki.isa.tensor_copy": (p("dst"), p("src"), o("engine", "engine"), o("name")),
    "nki.isa.tensor_copy_predicated": (p("dst"), p("src"), p("predicate"),
                                       o("reverse_pred", "bool"), o("name")),
    "nki.isa.activation": (p("dst"), p("op", "act"), p("data"), o("bias"), o("scale"),
                           o("reduce_op", "alu"), o("reduce_res"), o("reduce_cmd"), o("name")),
    "nki.isa.activation_reduce": (p("dst"), p("op", "act"), p("data"), p("reduce_op", "alu"),
                                  p("reduce_res"), o("bias"), o("scale"), o("name")),
    "nki.isa.reciprocal": (p("dst"), p("data"), o("name")),
    "nki.isa.tensor_reduce": (p("dst"), p("op", "alu"), p("data"), p("axis"),
                              o("negate", "bool"), o("keepdims", "bool"), o("name")),
    "nki.isa.tensor_tensor": (p("dst"), p("data1"), p("data2"), p("op", "alu"),
                              o("engine", "engine"), o("name")),
    "nki.isa.tensor_scalar": (p("dst"), p("data"), p("op0", "alu"), p("operand0"),
                              o("reverse0", "bool"), o("op1", "alu"), o("operand1"),
                              o("reverse1", "bool"), o("engine", "engine"), o("name")),
    "nki.isa.tensor_scalar_reduce": (p("dst"), p("data"), p("op0", "alu"), p("operand0"),
                                     p("reduce_op", "alu"), p("reduce_res"),
                                     o("reverse0", "bool"), o("reduce_cmd"), o("reduce_init"),
                                     o("reduce_res_negate", "bool"), o("name")),
    "nki.isa.scalar_tensor_tensor": (p("dst"), p("data"), p("op0", "alu"), p("operand0"),
                                     p("op1", "alu"), p("operand1"), o("reverse0", "bool"),
                                     o("reverse1", "bool"), o("name")),
    "nki.isa.iota": (p("dst"), p("pattern"), o("offset"), o("channel_multiplier"), o("name")),
    "nki.isa.affine_select": (p("dst"), p("pattern"), p("channel_multiplier"),
                              p("on_true_tile"), p("on_false_value"), o("cmp_op", "alu"),
                              o("offset"), o("name")),
    "nki.isa.memset": (p("dst"), p("value"), o("engine", "engine"), o("name")),
    "nki.isa.dma_copy": (p("dst"), p("src"), o("oob_mode"), o("dge_mode"), o("name")),
    "nki.jit": (o("func"), KWARGS),
}

TENSOR_METHODS: dict[str, Signature] = {
    "ap": (p("pattern"), o("offset"), o("scalar_offset"), o("vector_offset"),
           o("indirect_dim"), o("dtype")),
    "reshape": (p("shape"),),
}
"""Methods on tensors the printers call (``.ap`` exists in the current API only)."""

# --- attribute constants ------------------------------------------------------------------------

_DTYPES = ("float32", "float16", "bfloat16", "float8_e5m2", "int8", "int16", "int32", "uint8",
           "uint16", "uint32", "bool_")
ALU_NAMES = frozenset(ALU_OPS)
ACT_NAMES = frozenset(ACTIVATIONS)

LEGACY_CONSTANTS = {
    **{f"nki.language.{n}": "alu" for n in ALU_NAMES},
    **{f"nki.language.{n}": "act" for n in ACT_NAMES},
    **{f"nki.language.{n}": "dtype" for n in (*_DTYPES, "float8_e4m3")},
    **{f"numpy.{n}": "dtype" for n in ("float32", "float16", "int8", "int16", "int32",
                                       "int64", "uint8", "uint16", "uint32", "bool_")},
    **{f"nki.language.{n}": "buffer" for n in ("sbuf", "psum", "shared_hbm", "hbm")},
    **{f"nki.isa.{n}_engine": "engine" for n in ("vector", "scalar", "gpsimd", "tensor")},
    "nki.typing.mutable_tensor": None,
    "nki.compiler.enable_stack_allocator": None,
    "nki.compiler.skip_middle_end_transformations": None,
    "math.inf": None, "math.nan": None,
}
CURRENT_CONSTANTS = {
    **{f"nki.language.{n}": "alu" for n in ALU_NAMES},
    **{f"nki.language.{n}": "act" for n in ACT_NAMES},
    **{f"nki.language.{n}": "dtype" for n in (*_DTYPES, "float8_e4m3fn")},
    **{f"nki.language.{n}": "buffer" for n in ("sbuf", "psum", "shared_hbm", "hbm")},
    **{f"nki.isa.engine.{n}": "engine" for n in ("vector", "scalar", "gpsimd", "tensor")},
    "nki.jit": None,
    "math.inf": None, "math.nan": None,
}

MODULES = {
    "legacy": {"neuronxcc.nki": "nki", "neuronxcc.nki.language": "nki.language",
               "neuronxcc.nki.isa": "nki.isa", "neuronxcc.nki.compiler": "nki.compiler",
               "neuronxcc.nki.typing": "nki.typing", "numpy": "numpy", "math": "math"},
    "current": {"nki": "nki", "nki.language": "nki.language", "nki.isa": "nki.isa",
                "numpy": "numpy", "math": "math"},
}
"""Importable modules of each generation -> canonical prefix (other imports are errors)."""

RETURNS = {"nki.compiler.sbuf.mod_alloc": "buffer", "nki.compiler.psum.mod_alloc": "buffer"}
"""Calls whose result is a value of a checked kind (an allocator is a buffer)."""

TABLES = {"legacy": (LEGACY, LEGACY_CONSTANTS), "current": (CURRENT, CURRENT_CONSTANTS)}
