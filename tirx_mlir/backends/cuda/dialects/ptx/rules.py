"""The rules of the PTX table that are not a list of choices: modifier combinations the PTX ISA
forbids (each ``check_*`` returns the reason, or None), and fragment sizes and register types
that depend on several modifiers (mma, wgmma). table.py's rows refer to these by name.
"""

from __future__ import annotations

from tirx_mlir.backends.cuda.dialects.ptx.schema import Mods


def _bits(t: str) -> int:
    return int("".join(c for c in t if c.isdigit()) or 32)


def check_memory(m: Mods) -> str | None:
    sem, scope, space = m.get("sem"), m.get("scope"), m.get("space")
    if (sem in ("relaxed", "acquire", "release")) != (scope is not None):
        return ".relaxed/.acquire/.release need a scope (.cta/.cluster/.gpu/.sys) and a scope " \
               "needs one of them"
    if sem is not None and space == "local":
        return f".{sem} does not apply to .local"
    if sem == "volatile" and (m.get("l1") or m.get("hint")):
        return "eviction and cache hints cannot be combined with .volatile"
    if m.get("nc") and (space != "global" or sem is not None):
        return ".nc is for weak .global loads only"
    if (m.get("l1") or m.get("l2") or m.get("hint")) and space != "global":
        return "L1/L2 cache hints apply to .global accesses only"
    if m.get("vec") == "v4" and _bits(str(m["type"])) == 64:
        return ".v4 of a 64-bit type is a 256-bit access (sm_100 only); use .v2"
    return None


def check_st(m: Mods) -> str | None:
    if m.get("l2"):
        return "st takes no L2 prefetch hint"
    return check_memory(m)


def check_cvt(m: Mods) -> str | None:
    pair = (m["dtype"], m["atype"])
    rnd = m.get("rnd")
    if pair not in CVT_PAIRS:
        return f"cvt.{pair[0]}.{pair[1]} is not a supported conversion; supported: " + \
               ", ".join(f"{d}.{a}" for d, a in CVT_PAIRS)
    need = CVT_PAIRS[pair]
    if need == "int" and rnd not in ("rni", "rzi", "rmi", "rpi"):
        return "a float-to-integer cvt needs an integer rounding (.rni/.rzi/.rmi/.rpi)"
    if need == "float" and rnd not in ("rn", "rz", "rm", "rp"):
        return "this cvt loses precision and needs a float rounding (.rn/.rz/.rm/.rp)"
    if need == "" and rnd is not None:
        return f"cvt.{pair[0]}.{pair[1]} is exact and takes no rounding modifier"
    if m.get("ftz") and "f32" not in pair:
        return ".ftz applies to conversions from or to .f32"
    if m.get("sat") and m["dtype"] not in ("f32", "f16"):
        return ".sat applies to float destinations only"
    return None


CVT_PAIRS: dict[tuple[str, str], str] = {
    ("f16", "f32"): "float", ("bf16", "f32"): "float", ("f32", "f16"): "",
    ("f32", "f64"): "float", ("f64", "f32"): "", ("f32", "s32"): "float", ("f32", "u32"): "float",
    ("s32", "f32"): "int", ("u32", "f32"): "int", ("s64", "f64"): "int",
}


def check_mma(m: Mods) -> str | None:
    key = (m["shape"], m["atype"], m["btype"], m["dtype"])
    if key not in MMA_SHAPES:
        return f"mma.sync {'.'.join(key)} (shape, A, B, D types) is not a supported form"
    if m["ctype"] != m["dtype"]:
        return "the C accumulator type must equal the D type"
    return None


MMA_FP8 = ("e4m3", "e5m2")
MMA_SHAPES: dict[tuple[str, str, str, str], tuple[int, int, int]] = {
    # (shape, atype, btype, dtype) -> (A regs, B regs, C/D regs), b32 each
    ("m16n8k8", "f16", "f16", "f32"): (2, 1, 4), ("m16n8k8", "f16", "f16", "f16"): (2, 1, 2),
    ("m16n8k8", "bf16", "bf16", "f32"): (2, 1, 4), ("m16n8k8", "tf32", "tf32", "f32"): (4, 2, 4),
    ("m16n8k16", "f16", "f16", "f32"): (4, 2, 4), ("m16n8k16", "f16", "f16", "f16"): (4, 2, 2),
    ("m16n8k16", "bf16", "bf16", "f32"): (4, 2, 4), ("m16n8k16", "s8", "s8", "s32"): (2, 1, 4),
    ("m16n8k16", "u8", "u8", "s32"): (2, 1, 4),
    **{("m16n8k32", a, b, "s32"): (4, 2, 4) for a in ("s8", "u8") for b in ("s8", "u8")},
    **{("m16n8k32", a, b, "f32"): (4, 2, 4) for a in MMA_FP8 for b in MMA_FP8},
}


def mma_regs(i: int):
    return lambda m: MMA_SHAPES[(m["shape"], m["atype"], m["btype"], m["dtype"])][i]  # type: ignore


def mma_acc_type(m: Mods) -> str:
    return {"f32": "f32", "s32": "s32", "f16": "b32"}[str(m["dtype"])]


def check_cp_async(m: Mods) -> str | None:
    if m["cache"] == "cg" and m["cp_size"] != 16:
        return "cp.async.cg copies 16 bytes; use .ca for 4 or 8"
    return None


WGMMA_N = tuple(range(8, 257, 8))
WGMMA_K = {"f16": 16, "bf16": 16, "tf32": 8, "e4m3": 32, "e5m2": 32}
WGMMA_SHAPES = tuple(f"m64n{n}k{k}" for k in (16, 8, 32) for n in WGMMA_N)


def wgmma_n(m: Mods) -> int:
    return int(str(m["shape"]).split("n")[1].split("k")[0])


def check_wgmma(m: Mods) -> str | None:
    a, b, d = m["atype"], m["btype"], m["dtype"]
    k = int(str(m["shape"]).split("k")[1])
    if k != WGMMA_K[str(a)]:
        return f"wgmma with .{a} inputs has K = {WGMMA_K[str(a)]}, not {k}"
    if (a in MMA_FP8) != (b in MMA_FP8) or (a not in MMA_FP8 and a != b):
        return "wgmma A and B types must match (fp8 inputs may mix e4m3/e5m2)"
    if d == "f16" and a in ("bf16", "tf32"):
        return f"a .{a} wgmma accumulates in .f32 only"
    return None


def wgmma_acc_lanes(m: Mods) -> int:
    return wgmma_n(m) // (2 if m["dtype"] == "f32" else 4)


def wgmma_has_transpose(m: Mods) -> bool:
    return m["atype"] in ("f16", "bf16")


def check_redux(m: Mods) -> str | None:
    op, t = m["op"], m["type"]
    if t == "f32":
        return None if op in ("min", "max") else "redux.sync on .f32 is .min/.max only"
    if m.get("abs") or m.get("nan"):
        return ".abs/.NaN apply to .f32 redux only"
    if op in ("and", "or", "xor"):
        return None if t == "b32" else f"redux.sync.{op} takes .b32"
    return None if t in ("u32", "s32") else f"redux.sync.{op} takes .u32/.s32"


def check_vote(m: Mods) -> str | None:
    ballot = m["mode"] == "ballot"
    if ballot != (m["type"] == "b32"):
        return "vote.sync.ballot produces .b32; .all/.any/.uni produce .pred"
    return None


ATOM_TYPES = ("b32", "b64", "u32", "s32", "u64", "s64", "f32", "f64")
ATOM_OPS: dict[str, tuple[str, ...]] = {
    "add": ("u32", "s32", "u64", "f32", "f64"), "min": ("u32", "s32", "u64", "s64"),
    "max": ("u32", "s32", "u64", "s64"), "inc": ("u32",), "dec": ("u32",),
    "exch": ("b32", "b64"), "and": ("b32", "b64"), "or": ("b32", "b64"), "xor": ("b32", "b64"),
}
RED_PACKED = ("f16x2", "bf16x2")


def check_atom(m: Mods) -> str | None:
    op, t = str(m["op"]), str(m["type"])
    if t in RED_PACKED:
        if op != "add" or not m.get("noftz"):
            return f".{t} reductions are add.noftz only"
        return None
    if m.get("noftz"):
        return ".noftz is for .f16x2/.bf16x2 only"
    if t not in ATOM_OPS[op]:
        return f".{op} takes {', '.join('.' + x for x in ATOM_OPS[op])}, not .{t}"
    return None


def check_bar_cluster(m: Mods) -> str | None:
    sem = m.get("sem")
    if m["mode"] == "arrive" and sem == "acquire":
        return "barrier.cluster.arrive takes .release or .relaxed"
    if m["mode"] == "wait" and sem in ("release", "relaxed"):
        return "barrier.cluster.wait takes .acquire only"
    return None


