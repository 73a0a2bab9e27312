"""The closed tables of the CUDA C++ printer: every word it writes for an attribute or a type.

Keys are the dialects' spellings (MLIR type names, op head words); a key not here is a located
error of the printer, never text in the output.
"""

from __future__ import annotations

SCALARS = {
    "i1": "bool", "i8": "signed char", "i16": "short", "i32": "int", "i64": "long long",
    "ui8": "unsigned char", "ui16": "unsigned short", "ui32": "unsigned int",
    "index": "long long", "f16": "__half", "bf16": "__nv_bfloat16", "f32": "float",
    "f64": "double",
}
VECTORS = {
    ("f32", 2): "float2", ("f32", 4): "float4", ("i32", 2): "int2", ("i32", 4): "int4",
    ("ui32", 2): "uint2", ("ui32", 4): "uint4", ("f64", 2): "double2", ("i64", 2): "longlong2",
    ("f16", 2): "__half2", ("bf16", 2): "__nv_bfloat162",
}
HALF_TYPES = {"f16": "cuda_fp16.h", "bf16": "cuda_bf16.h"}
"""Element types whose CUDA types come from a header (included only when used)."""

DIM_BUILTINS = {"cuda.thread_idx": "threadIdx", "cuda.block_idx": "blockIdx",
                "cuda.block_dim": "blockDim", "cuda.grid_dim": "gridDim"}
DIMS = {"x": "x", "y": "y", "z": "z"}
SPECIAL_REGISTERS = {"cuda.cluster_idx": "clusterid", "cuda.cluster_dim": "cluster_nctaid",
                     "cuda.cluster_block_idx": "cluster_ctaid"}
"""Cluster ids have no CUDA built-in outside cooperative_groups: read as PTX special
registers (``mov.u32 %0, %%cluster_ctaid.x``)."""

VOTE = {"all": "__all_sync", "any": "__any_sync", "uni": "__uni_sync",
        "ballot": "__ballot_sync"}
SHUFFLE = {"idx": "__shfl_sync", "up": "__shfl_up_sync", "down": "__shfl_down_sync",
           "xor": "__shfl_xor_sync"}
SYNC_VOTE = {"and": "__syncthreads_and", "or": "__syncthreads_or",
             "count": "__syncthreads_count"}
REDUCE = {"sum": "({0} + {1})", "and": "({0} & {1})", "or": "({0} | {1})",
          "xor": "({0} ^ {1})", "max": "(({0} > {1}) ? {0} : {1})",
          "min": "(({0} < {1}) ? {0} : {1})"}
"""How a warp or block reduction combines two partial values."""

ATOMIC = {"add": "atomicAdd", "max": "atomicMax", "min": "atomicMin", "exch": "atomicExch",
          "and": "atomicAnd", "or": "atomicOr", "xor": "atomicXor"}
ATOMIC_SCOPE = {"cta": "_block", "gpu": "", "sys": "_system"}
FENCE = {"cta": "__threadfence_block();", "gpu": "__threadfence();",
         "sys": "__threadfence_system();",
         "cluster": 'asm volatile("fence.acq_rel.cluster;" ::: "memory");'}

LOAD_CACHE = {"ca": "__ldca", "cg": "__ldcg", "cs": "__ldcs", "lu": "__ldlu", "cv": "__ldcv"}
STORE_CACHE = {"wb": "__stwb", "cg": "__stcg", "cs": "__stcs", "wt": "__stwt"}

FAST_MATH = {"exp2": "exp2f", "exp": "__expf", "log2": "__log2f", "log": "__logf",
             "rcp": "__frcp_rn", "rsqrt": "rsqrtf", "sqrt": "__fsqrt_rn", "sin": "__sinf",
             "cos": "__cosf", "tanh": "tanhf"}
"""``cuda.fast`` on f32: the fast intrinsic (exp2f and tanhf compile to ex2.approx /
tanh.approx under ``--use_fast_math``; rsqrtf is rsqrt.approx)."""
PACK = {"f16": "__floats2half2_rn", "bf16": "__floats2bfloat162_rn"}
UNPACK_F32 = {"f16": "__half22float2", "bf16": "__bfloat1622float2"}
"""half2 / bfloat162 -> float2, both halves widened at once (TIRx's ``cast_vec2``)."""
UNPACK_SAME = {"f16": ("__low2half", "__high2half"),
               "bf16": ("__low2bfloat16", "__high2bfloat16")}

ROUNDS = ("rn", "rz", "rd", "ru")
_ROUNDED = {("f32", "f16"): "__float2half", ("f32", "bf16"): "__float2bfloat16",
            ("f32", "i32"): "__float2int", ("f32", "ui32"): "__float2uint",
            ("f32", "i64"): "__float2ll", ("f64", "f32"): "__double2float",
            ("f64", "i32"): "__double2int", ("f64", "i64"): "__double2ll",
            ("i32", "f32"): "__int2float", ("ui32", "f32"): "__uint2float",
            ("i64", "f32"): "__ll2float", ("i64", "f64"): "__ll2double",
            ("f16", "i32"): "__half2int", ("bf16", "i32"): "__bfloat162int"}
CVT = {
    **{(s, d, r): f"{fn}_{r}" for (s, d), fn in _ROUNDED.items() for r in ROUNDS},
    ("f16", "f32", None): "__half2float", ("bf16", "f32", None): "__bfloat162float",
    ("f32", "f64", None): "static_cast<double>", ("i32", "f64", None): "static_cast<double>",
    ("i8", "i32", None): "static_cast<int>", ("i16", "i32", None): "static_cast<int>",
    ("i32", "i64", None): "static_cast<long long>",
}
BITCAST = {("i32", "f32"): "__int_as_float", ("f32", "i32"): "__float_as_int",
           ("ui32", "f32"): "__uint_as_float", ("f32", "ui32"): "__float_as_uint",
           ("i64", "f64"): "__longlong_as_double", ("f64", "i64"): "__double_as_longlong",
           ("i16", "f16"): "__short_as_half", ("f16", "i16"): "__half_as_short",
           ("i16", "bf16"): "__short_as_bfloat16", ("bf16", "i16"): "__bfloat16_as_short"}
"""``arith.bitcast`` (same bits, another type) -> the CUDA intrinsic."""
CVT_DEFAULT_ROUND = {True: "rz", False: "rn"}
"""The rounding of a ``cuda.cvt`` without one: rz float -> int (C's cast), rn otherwise."""

CONSTRAINTS = {"bool": "r", "signed char": "h", "short": "h", "unsigned short": "h",
               "int": "r", "unsigned int": "r", "long long": "l", "float": "f",
               "double": "d", "__half": "h", "__nv_bfloat16": "h"}
"""Inline-asm constraint letter by the C++ type of the value (the PTX register class)."""
HALF_BITS = {"__half": ("__half_as_ushort", "__ushort_as_half"),
             "__nv_bfloat16": ("__bfloat16_as_ushort", "__ushort_as_bfloat16")}
"""A 16-bit float passes through an ``"h"`` register as its bits."""

NVSHMEM_GROUP = {"thread": ("nvshmem_", ""), "warp": ("nvshmemx_", "_warp"),
                 "block": ("nvshmemx_", "_block")}
NVSHMEM_SIGNAL = {"set": "NVSHMEM_SIGNAL_SET", "add": "NVSHMEM_SIGNAL_ADD"}
NVSHMEM_CMP = {"eq": "NVSHMEM_CMP_EQ", "ne": "NVSHMEM_CMP_NE", "gt": "NVSHMEM_CMP_GT",
               "ge": "NVSHMEM_CMP_GE", "lt": "NVSHMEM_CMP_LT", "le": "NVSHMEM_CMP_LE"}
NVSHMEM_WAIT_TYPE = {"i32": "int", "ui32": "uint32", "i64": "int64"}

MATH = {"math.exp": {"float": "expf", "double": "exp"},
        "math.exp2": {"float": "exp2f", "double": "exp2"},
        "math.log2": {"float": "log2f", "double": "log2"},
        "math.sqrt": {"float": "sqrtf", "double": "sqrt"},
        "math.rsqrt": {"float": "rsqrtf", "double": "rsqrt"},
        "math.fma": {"float": "fmaf", "double": "fma"}}
"""``math`` op -> C++ type -> the CUDA math library function (CUDA Math API)."""
