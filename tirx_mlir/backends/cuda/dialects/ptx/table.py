"""The PTX instruction table: one row per instruction form. Everything else in the ``ptx`` dialect
(ops, verifiers, custom syntax, the PTX text of an instruction, the coverage doc, the assembler
tests) is generated from these rows, so adding an instruction is adding a row here. Rules that
are not a list of choices (forbidden modifier combinations, mma/wgmma fragment sizes) are the
named functions of rules.py.

Minimum sm and PTX ISA versions follow the PTX ISA (NVIDIA, "Parallel Thread Execution ISA",
the "PTX ISA Notes"/"Target ISA Notes" of each instruction) and are checked against ptxas by
tests/backends/cuda/dialects/ptx/test_ptxas.py. Not yet in the table: tcgen05/TMEM (sm_100a),
sparse mma, wgmma integer/b1 forms, tensormap.replace, multimem, clusterlaunchcontrol.
"""

from __future__ import annotations

from tirx_mlir.backends.cuda.dialects.ptx import rules
from tirx_mlir.backends.cuda.dialects.ptx.collective import WARP, WARPGROUP
from tirx_mlir.backends.cuda.dialects.ptx.schema import Entry, Mods, Operand, Req, Slot

# --- shared slot vocabularies -------------------------------------------------------------------

SCOPES = ("cta", "cluster", "gpu", "sys")
SHARED = ("shared", "shared::cta")
INT_TYPES = ("u16", "s16", "u32", "s32", "u64", "s64")
BIT_TYPES = ("b16", "b32", "b64")
LD_TYPES = (*BIT_TYPES, *INT_TYPES, "f32", "f64")
L1_HINTS = ("L1::evict_normal", "L1::evict_unchanged", "L1::evict_first", "L1::evict_last",
            "L1::no_allocate")
L2_PREFETCH = ("L2::64B", "L2::128B", "L2::256B")
DIMS = ("1d", "2d", "3d", "4d", "5d")
L2_EVICT = ("L2::evict_last", "L2::evict_normal", "L2::evict_first", "L2::evict_unchanged")
CACHE_HINT = Slot("hint", ("L2::cache_hint",), True)
"""``.L2::cache_hint``: the access takes the 64-bit cache policy operand `CACHE_POLICY`."""
CACHE_POLICY = Operand("policy", type="b64", when=lambda m: m.get("hint") is not None)
CTA_SHARED_PTX = {"space": ("shared::cta",)}
SHARED_CTA_REQ = Req("sm_75", "7.8", CTA_SHARED_PTX)
CLUSTER_REQS = (Req("sm_90", "7.8", {"scope": ("cluster",)}),
                Req("sm_90", "7.8", {"space": ("shared::cluster",)}))


def _addr(name: str = "addr") -> Operand:
    return Operand(name, "addr", type="b64")


def _mask() -> Operand:
    return Operand("membermask", "imm", example=0xFFFFFFFF)


def _lanes_of(slot: str, table: dict[str | None, int]):
    return lambda m: table[m.get(slot)]  # type: ignore[index]


def _vec_lanes(m: Mods) -> int:
    return {None: 1, "v2": 2, "v4": 4}[m.get("vec")]  # type: ignore[index]


def _dim_lanes(m: Mods) -> int:
    return int(str(m["dim"])[0])


def _type_of(slot: str):
    return lambda m: str(m[slot])


def _red_value_type(m: Mods) -> str:
    return "b32" if m["type"] in rules.RED_PACKED else str(m["type"])


WGMMA_TEMPLATE = "wgmma.mma_async.sync.aligned.{shape}.{dtype}.{atype}.{btype}"
WGMMA_SLOTS = (Slot("shape", rules.WGMMA_SHAPES), Slot("dtype", ("f32", "f16")),
               Slot("atype", tuple(rules.WGMMA_K)), Slot("btype", tuple(rules.WGMMA_K)))
WGMMA_ACC = Operand("d", rw="rw", type=lambda m: "f32" if m["dtype"] == "f32" else "b32",
                    lanes=rules.wgmma_acc_lanes)
WGMMA_SCALES = (Operand("scale_d", type="pred"), Operand("scale_a", "imm", choices=(1, -1)),
                Operand("scale_b", "imm", choices=(1, -1)))
CP_ASYNC_SLOTS = (Slot("cache", ("ca", "cg")), Slot("space", SHARED),
                  Slot("l2", L2_PREFETCH, True))
CP_ASYNC_REQS = (Req("sm_80", "7.0"), Req("sm_80", "7.4", {"l2": L2_PREFETCH}))
CP_ASYNC_OPERANDS = (_addr("dst"), _addr("src"), Operand("cp_size", "imm", choices=(4, 8, 16)))

FLOAT_ROUNDING = Slot("rnd", ("rn", "rz", "rm", "rp"))


def _rounded_f32(name: str, inputs: tuple[str, ...], doc: str) -> Entry:
    """``<name>.<rnd>.f32``: f32 arithmetic rounded in an explicit mode (the rounded forms only:
    plain arithmetic is arith/math in the IR, printed by the printers)."""
    return Entry(f"{name}_rnd", name, f"{name}.{{rnd}}.f32", (FLOAT_ROUNDING,),
                 (Operand("dst", rw="w", type="f32"),
                  *(Operand(n, type="f32") for n in inputs)),
                 (Req("sm_75", "6.3"),), None, f"{doc}, rounded to f32 in the mode",
                 f"{name} (.rnd.f32)")


# --- the rows ------------------------------------------------------------------------------------

MEM_SLOTS = (Slot("sem", ("relaxed", "acquire", "volatile"), True),
             Slot("scope", SCOPES, True),
             Slot("space", ("global", "shared", "shared::cta", "shared::cluster", "local")),
             Slot("nc", ("nc",), True), Slot("l1", L1_HINTS, True), Slot("l2", L2_PREFETCH, True),
             Slot("vec", ("v2", "v4"), True), Slot("type", LD_TYPES))
MEM_REQS = (Req("sm_75", "6.3"), Req("sm_75", "7.4", {"l1": L1_HINTS}),
            Req("sm_75", "7.4", {"l2": ("L2::64B", "L2::128B")}),
            Req("sm_80", "7.4", {"l2": ("L2::256B",)}), SHARED_CTA_REQ, *CLUSTER_REQS)

ROWS: tuple[Entry, ...] = (
    # ---- memory ----
    Entry("ld", "ld", "ld.{sem}.{scope}.{space}.{nc}.{l1}.{hint}.{l2}.{vec}.{type}",
          (*MEM_SLOTS[:5], CACHE_HINT, *MEM_SLOTS[5:]),
          (Operand("dst", rw="w", type=_type_of("type"), lanes=_vec_lanes), _addr(),
           CACHE_POLICY),
          (*MEM_REQS, Req("sm_80", "7.4", {"hint": ("L2::cache_hint",)})), rules.check_memory, "load, scalar or vector, with cache and eviction hints",
          "ld"),
    Entry("st", "st", "st.{sem}.{scope}.{space}.{l1}.{vec}.{type}",
          (Slot("sem", ("relaxed", "release", "volatile"), True), *MEM_SLOTS[1:3],
           *MEM_SLOTS[4:5], *MEM_SLOTS[6:]),
          (_addr(), Operand("src", type=_type_of("type"), lanes=_vec_lanes)),
          MEM_REQS, rules.check_st, "store, scalar or vector, with eviction hints", "st"),
    # ---- moves and conversions ----
    Entry("mov", "mov", "mov.{type}", (Slot("type", (*BIT_TYPES, "u32", "s32", "u64", "f32",
                                                      "f64")),),
          (Operand("dst", rw="w", type=_type_of("type")), Operand("src", type=_type_of("type"))),
          (Req("sm_75", "6.3"),), None, "register move", "mov"),
    Entry("mov_pack", "mov", "mov.{type}", (Slot("type", ("b32", "b64")),),
          (Operand("dst", rw="w", type=_type_of("type")),
           Operand("src", type=lambda m: "b16" if m["type"] == "b32" else "b32", lanes=2)),
          (Req("sm_75", "6.3"),), None, "pack two halves into one register: d = {lo, hi}",
          "mov (pack)"),
    Entry("mov_unpack", "mov", "mov.{type}", (Slot("type", ("b32", "b64")),),
          (Operand("dst", rw="w", type=lambda m: "b16" if m["type"] == "b32" else "b32",
                   lanes=2), Operand("src", type=_type_of("type"))),
          (Req("sm_75", "6.3"),), None, "split a register into two halves: {lo, hi} = a",
          "mov (unpack)"),
    Entry("cvt", "cvt", "cvt.{rnd}.{ftz}.{sat}.{dtype}.{atype}",
          (Slot("rnd", ("rn", "rz", "rm", "rp", "rni", "rzi", "rmi", "rpi"), True),
           Slot("ftz", ("ftz",), True), Slot("sat", ("sat",), True),
           Slot("dtype", ("f16", "bf16", "f32", "f64", "s32", "u32", "s64")),
           Slot("atype", ("f16", "f32", "f64", "s32", "u32"))),
          (Operand("dst", rw="w", type=_type_of("dtype")),
           Operand("src", type=_type_of("atype"))),
          (Req("sm_75", "6.3"), Req("sm_80", "7.0", {"dtype": ("bf16",)})), rules.check_cvt,
          "scalar type conversion", "cvt"),
    Entry("cvt_pack", "cvt", "cvt.rn.{relu}.{dtype}.f32", (Slot("relu", ("relu",), True),
                                                          Slot("dtype", ("f16x2", "bf16x2"))),
          (Operand("dst", rw="w", type="b32"), Operand("hi", type="f32"),
           Operand("lo", type="f32")),
          (Req("sm_80", "7.0"),), None, "pack two f32 into f16x2/bf16x2 (first operand -> upper "
          "half)", "cvt_pack (f16x2/bf16x2)"),
    Entry("cvt_fp8x2", "cvt", "cvt.rn.satfinite.{relu}.{dtype}.f32",
          (Slot("relu", ("relu",), True), Slot("dtype", ("e4m3x2", "e5m2x2"))),
          (Operand("dst", rw="w", type="b16"), Operand("hi", type="f32"),
           Operand("lo", type="f32")),
          (Req("sm_89", "8.1"),), None, "pack two f32 into two fp8 (first operand -> upper byte)",
          "cvt (f8x2)"),
    Entry("cvt_fp8x2_f16x2", "cvt", "cvt.rn.{relu}.f16x2.{atype}",
          (Slot("relu", ("relu",), True), Slot("atype", ("e4m3x2", "e5m2x2"))),
          (Operand("dst", rw="w", type="b32"), Operand("src", type="b16")),
          (Req("sm_89", "8.1"),), None, "unpack two fp8 into f16x2", "cvt (f8x2 -> f16x2)"),
    Entry("cvt_tf32", "cvt", "cvt.{rnd}.tf32.f32", (Slot("rnd", ("rna", "rn", "rz")),),
          (Operand("dst", rw="w", type="b32"), Operand("src", type="f32")),
          (Req("sm_80", "7.0"), Req("sm_90", "7.8", {"rnd": ("rn", "rz")})), None,
          "round f32 to tf32 (kept in a b32 register)", "cvt (tf32)"),
    # ---- f32 arithmetic in an explicit rounding mode ----
    _rounded_f32("add", ("a", "b"), "a + b"),
    _rounded_f32("sub", ("a", "b"), "a - b"),
    _rounded_f32("mul", ("a", "b"), "a * b"),
    _rounded_f32("div", ("a", "b"), "a / b (IEEE)"),
    _rounded_f32("fma", ("a", "b", "c"), "a * b + c fused"),
    _rounded_f32("rcp", ("a",), "1 / a (IEEE)"),
    _rounded_f32("sqrt", ("a",), "sqrt(a) (IEEE)"),
    # ---- warp-level MMA and matrix load/store ----
    Entry("mma_sync", "mma", "mma.sync.aligned.{shape}.row.col.{dtype}.{atype}.{btype}.{ctype}",
          (Slot("shape", ("m16n8k8", "m16n8k16", "m16n8k32")),
           Slot("dtype", ("f32", "f16", "s32")),
           Slot("atype", ("f16", "bf16", "tf32", "s8", "u8", *rules.MMA_FP8)),
           Slot("btype", ("f16", "bf16", "tf32", "s8", "u8", *rules.MMA_FP8)),
           Slot("ctype", ("f32", "f16", "s32"))),
          (Operand("d", rw="w", type=rules.mma_acc_type, lanes=rules.mma_regs(2), vector=True),
           Operand("a", type="b32", lanes=rules.mma_regs(0), vector=True),
           Operand("b", type="b32", lanes=rules.mma_regs(1), vector=True),
           Operand("c", type=rules.mma_acc_type, lanes=rules.mma_regs(2), vector=True)),
          (Req("sm_75", "6.5"), Req("sm_80", "7.0", {"shape": ("m16n8k16", "m16n8k32")}),
           Req("sm_80", "7.0", {"atype": ("bf16", "tf32")}),
           Req("sm_89", "8.4", {"atype": rules.MMA_FP8})), rules.check_mma,
          "warp MMA D = A*B + C (fp8 is native on sm_89/sm_120a, emulated on sm_90a/sm_100a)",
          "mma", collective=WARP),
    Entry("ldmatrix", "ldmatrix", "ldmatrix.sync.aligned.m8n8.{num}.{trans}.{space}.b16",
          (Slot("num", ("x1", "x2", "x4")), Slot("trans", ("trans",), True), Slot("space", SHARED)),
          (Operand("dst", rw="w", lanes=_lanes_of("num", {"x1": 1, "x2": 2, "x4": 4}), vector=True),
           _addr()),
          (Req("sm_75", "6.5"), SHARED_CTA_REQ), None, "load 8x8 b16 matrices from shared",
          "ldmatrix", collective=WARP),
    Entry("stmatrix", "stmatrix", "stmatrix.sync.aligned.m8n8.{num}.{trans}.{space}.b16",
          (Slot("num", ("x1", "x2", "x4")), Slot("trans", ("trans",), True), Slot("space", SHARED)),
          (_addr(), Operand("src", lanes=_lanes_of("num", {"x1": 1, "x2": 2, "x4": 4}),
                            vector=True)),
          (Req("sm_90", "7.8"),), None, "store 8x8 b16 matrices to shared", "stmatrix",
          collective=WARP),
    # ---- cp.async (sm_80 async copy) ----
    Entry("cp_async", "cp.async", "cp.async.{cache}.{space}.global.{l2}", CP_ASYNC_SLOTS,
          CP_ASYNC_OPERANDS, CP_ASYNC_REQS, rules.check_cp_async, "global -> shared copy of 4/8/16 bytes", "cp.async.{ca,cg}"),
    Entry("cp_async_zfill", "cp.async", "cp.async.{cache}.{space}.global.{l2}", CP_ASYNC_SLOTS,
          (*CP_ASYNC_OPERANDS, Operand("src_size", type="u32")), CP_ASYNC_REQS, rules.check_cp_async, "cp.async copying src_size bytes and zero-filling the rest",
          "cp.async.{ca,cg}_src_size"),
    Entry("cp_async_commit_group", "cp.async", "cp.async.commit_group", (), (),
          (Req("sm_80", "7.0"),), None, "close the current cp.async group",
          "cp.async.commit_group"),
    Entry("cp_async_wait_group", "cp.async", "cp.async.wait_group", (),
          (Operand("n", "imm", imm_range=(0, 255)),), (Req("sm_80", "7.0"),), None,
          "wait until at most n cp.async groups are pending", "cp.async.wait_group"),
    Entry("cp_async_wait_all", "cp.async", "cp.async.wait_all", (), (), (Req("sm_80", "7.0"),),
          None, "wait for all cp.async", "cp.async.wait_all"),
    Entry("cp_async_mbarrier_arrive", "cp.async", "cp.async.mbarrier.arrive.{noinc}.{space}.b64",
          (Slot("noinc", ("noinc",), True), Slot("space", SHARED)), (_addr("bar"),),
          (Req("sm_80", "7.0"), SHARED_CTA_REQ), None,
          "arrive on an mbarrier when this thread's cp.async complete",
          "cp.async.mbarrier_arrive"),
    # ---- mbarrier ----
    Entry("mbarrier_init", "mbarrier", "mbarrier.init.{space}.b64", (Slot("space", SHARED),),
          (_addr("bar"), Operand("count", type="u32")), (Req("sm_80", "7.0"), SHARED_CTA_REQ),
          None, "initialise an mbarrier with an expected arrival count", "mbarrier.init"),
    Entry("mbarrier_arrive", "mbarrier", "mbarrier.arrive.{sem}.{scope}.{space}.b64",
          (Slot("sem", ("release",), True), Slot("scope", ("cta", "cluster"), True),
           Slot("space", (*SHARED, "shared::cluster"))),
          (Operand("state", rw="w", type="b64", sink=True), _addr("bar")),
          (Req("sm_80", "7.0"), SHARED_CTA_REQ, Req("sm_80", "8.0", {"sem": ("release",)}),
           Req("sm_90", "8.0", {"scope": ("cluster",)}),
           Req("sm_90", "8.0", {"space": ("shared::cluster",)})),
          lambda m: None if (m.get("sem") is None) == (m.get("scope") is None) else
          ".release and a scope go together",
          "arrive on an mbarrier (a peer CTA's: .shared::cluster, state `_`); returns its state",
          "mbarrier.arrive"),
    Entry("mbarrier_arrive_expect_tx", "mbarrier",
          "mbarrier.arrive.expect_tx.{sem}.{scope}.{space}.b64",
          (Slot("sem", ("release",), True), Slot("scope", ("cta", "cluster"), True),
           Slot("space", SHARED)),
          (Operand("state", rw="w", type="b64", sink=True), _addr("bar"),
           Operand("tx_count", type="u32")),
          (Req("sm_90", "8.0"),),
          lambda m: None if (m.get("sem") is None) == (m.get("scope") is None) else
          ".release and a scope go together",
          "arrive and add tx_count expected bytes (TMA completion)", "mbarrier.arrive_expect_tx"),
    Entry("mbarrier_expect_tx", "mbarrier", "mbarrier.expect_tx.relaxed.{scope}.{space}.b64",
          (Slot("scope", ("cta", "cluster")), Slot("space", ("shared::cta", "shared::cluster"))),
          (_addr("bar"), Operand("tx_count", type="u32")), (Req("sm_90", "8.0"),), None,
          "add expected transaction bytes without arriving", "mbarrier.expect_tx"),
    Entry("mbarrier_test_wait_parity", "mbarrier", "mbarrier.test_wait.parity.{space}.b64",
          (Slot("space", SHARED),),
          (Operand("ready", rw="w", type="pred"), _addr("bar"), Operand("phase", type="u32")),
          (Req("sm_80", "7.1"), SHARED_CTA_REQ), None,
          "non-blocking test of the phase with the given parity", "mbarrier.test_wait_parity"),
    Entry("mbarrier_try_wait_parity", "mbarrier",
          "mbarrier.try_wait.parity.{sem}.{scope}.{space}.b64",
          (Slot("sem", ("acquire",), True), Slot("scope", ("cta", "cluster"), True),
           Slot("space", SHARED)),
          (Operand("ready", rw="w", type="pred"), _addr("bar"), Operand("phase", type="u32")),
          (Req("sm_90", "7.8"), Req("sm_90", "8.0", {"sem": ("acquire",)})),
          lambda m: None if (m.get("sem") is None) == (m.get("scope") is None) else
          ".acquire and a scope go together",
          "potentially blocking wait for the phase with the given parity (loop on ready)",
          "mbarrier.try_wait_parity"),
    Entry("mbarrier_inval", "mbarrier", "mbarrier.inval.{space}.b64", (Slot("space", SHARED),),
          (_addr("bar"),), (Req("sm_80", "7.0"), SHARED_CTA_REQ), None,
          "invalidate an mbarrier before reusing its memory", "mbarrier.inval"),
    # ---- addresses ----
    Entry("cvta", "cvta", "cvta.{to}.{space}.u64",
          (Slot("to", ("to",), True),
           Slot("space", ("global", "shared", "shared::cta", "shared::cluster", "local"))),
          (Operand("dst", rw="w", type="u64"), Operand("src", type="u64")),
          (Req("sm_75", "6.3"), SHARED_CTA_REQ, *CLUSTER_REQS), None,
          "generic address <-> state-space address (.to: generic to the space)", "cvta"),
    Entry("mapa", "mapa", "mapa.shared::cluster.{type}", (Slot("type", ("u32", "u64")),),
          (Operand("dst", rw="w", type=_type_of("type")), Operand("src", type=_type_of("type")),
           Operand("rank", type="u32")),
          (Req("sm_90", "7.8"),), None,
          "the address of the same shared variable in cluster CTA rank (DSMEM)", "mapa"),
    Entry("getctarank", "mapa", "getctarank.shared::cluster.{type}",
          (Slot("type", ("u32", "u64")),),
          (Operand("dst", rw="w", type="u32"), Operand("src", type=_type_of("type"))),
          (Req("sm_90", "7.8"),), None, "the cluster CTA rank owning a shared::cluster address",
          "getctarank"),
    Entry("prmt", "prmt", "prmt.b32.{mode}",
          (Slot("mode", ("f4e", "b4e", "rc8", "ecl", "ecr", "rc16"), True),),
          (Operand("dst", rw="w"), Operand("a"), Operand("b"), Operand("selector")),
          (Req("sm_75", "6.3"),), None, "byte permute of {b, a} by selector", "prmt"),
    # ---- fences ----
    Entry("fence", "fence", "fence.{sem}.{scope}",
          (Slot("sem", ("sc", "acq_rel")), Slot("scope", SCOPES)), (),
          (Req("sm_75", "6.3"), Req("sm_90", "7.8", {"scope": ("cluster",)})), None,
          "memory fence", "fence"),
    Entry("fence_proxy_async", "fence", "fence.proxy.async.{space}",
          (Slot("space", ("shared::cta", "shared::cluster", "global"), True),), (),
          (Req("sm_90", "8.0"),), None,
          "order generic-proxy accesses before async-proxy (TMA, wgmma) ones", "fence.proxy"),
    Entry("fence_mbarrier_init", "fence", "fence.mbarrier_init.release.cluster", (), (),
          (Req("sm_90", "8.0"),), None, "make mbarrier.init visible to the cluster",
          "fence.mbarrier_init"),
    # ---- bulk copies and TMA ----
    Entry("cp_async_bulk_g2s", "cp.async.bulk",
          "cp.async.bulk.{space}.global.mbarrier::complete_tx::bytes",
          (Slot("space", ("shared::cluster", "shared::cta")),),
          (_addr("dst"), _addr("src"), Operand("size", type="u32"), _addr("bar")),
          (Req("sm_90", "8.0"), Req("sm_90", "8.6", CTA_SHARED_PTX)), None,
          "bulk copy global -> shared, completing on an mbarrier", "cp.async.bulk (g2s)"),
    Entry("cp_async_bulk_g2s_multicast", "cp.async.bulk",
          "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster",
          (), (_addr("dst"), _addr("src"), Operand("size", type="u32"), _addr("bar"),
               Operand("cta_mask", type="b16")),
          (Req("sm_90", "8.0"),), None, "bulk copy multicast to the CTAs of cta_mask",
          "cp.async.bulk (g2s multicast)"),
    Entry("cp_async_bulk_s2g", "cp.async.bulk", "cp.async.bulk.global.shared::cta.bulk_group",
          (), (_addr("dst"), _addr("src"), Operand("size", type="u32")),
          (Req("sm_90", "8.0"),), None, "bulk copy shared -> global (bulk group)",
          "cp.async.bulk (s2g)"),
    Entry("cp_async_bulk_s2c", "cp.async.bulk",
          "cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes", (),
          (_addr("dst"), _addr("src"), Operand("size", type="u32"), _addr("bar")),
          (Req("sm_90", "8.0"),), None, "bulk copy to a peer CTA's shared memory",
          "cp.async.bulk (s2c)"),
    Entry("cp_async_bulk_commit_group", "cp.async.bulk", "cp.async.bulk.commit_group", (), (),
          (Req("sm_90", "8.0"),), None, "close the current bulk group",
          "cp.async.bulk.commit_group"),
    Entry("cp_async_bulk_wait_group", "cp.async.bulk", "cp.async.bulk.wait_group.{read}",
          (Slot("read", ("read",), True),), (Operand("n", "imm", imm_range=(0, 63)),),
          (Req("sm_90", "8.0"),), None, "wait until at most n bulk groups are pending (.read: "
          "only their source reads)", "cp.async.bulk.wait_group"),
    Entry("cp_async_bulk_tensor_g2s", "cp.async.bulk.tensor",
          "cp.async.bulk.tensor.{dim}.{space}.global.{mode}.mbarrier::complete_tx::bytes.{hint}",
          (Slot("dim", DIMS), Slot("space", ("shared::cluster", "shared::cta")),
           Slot("mode", ("tile",), True), CACHE_HINT),
          (_addr("dst"), Operand("tmap", "tensor", type="b32", lanes=_dim_lanes), _addr("bar"),
           CACHE_POLICY),
          (Req("sm_90", "8.0"), Req("sm_90", "8.6", CTA_SHARED_PTX)), None,
          "TMA load of a 1d-5d tile, completing on an mbarrier", "cp.async.bulk.tensor (g2s)"),
    Entry("cp_async_bulk_tensor_g2s_multicast", "cp.async.bulk.tensor",
          "cp.async.bulk.tensor.{dim}.shared::cluster.global.{mode}.mbarrier::complete_tx::bytes"
          ".multicast::cluster.{hint}", (Slot("dim", DIMS), Slot("mode", ("tile",), True),
                                         CACHE_HINT),
          (_addr("dst"), Operand("tmap", "tensor", type="b32", lanes=_dim_lanes), _addr("bar"),
           Operand("cta_mask", type="b16"), CACHE_POLICY),
          (Req("sm_90", "8.0"),), None, "TMA load multicast to the CTAs of cta_mask",
          "cp.async.bulk.tensor (g2s multicast)"),
    Entry("cp_async_bulk_tensor_s2g", "cp.async.bulk.tensor",
          "cp.async.bulk.tensor.{dim}.global.shared::cta.{mode}.bulk_group.{hint}",
          (Slot("dim", DIMS), Slot("mode", ("tile",), True), CACHE_HINT),
          (Operand("tmap", "tensor", type="b32", lanes=_dim_lanes), _addr("src"), CACHE_POLICY),
          (Req("sm_90", "8.0"),), None, "TMA store of a 1d-5d tile (bulk group)",
          "cp.async.bulk.tensor (s2g)"),
    Entry("cp_reduce_async_bulk_tensor", "cp.async.bulk.tensor",
          "cp.reduce.async.bulk.tensor.{dim}.global.shared::cta.{redop}.tile.bulk_group.{hint}",
          (Slot("dim", DIMS),
           Slot("redop", ("add", "min", "max", "inc", "dec", "and", "or", "xor")), CACHE_HINT),
          (Operand("tmap", "tensor", type="b32", lanes=_dim_lanes), _addr("src"), CACHE_POLICY),
          (Req("sm_90", "8.0"),), None, "TMA reduce of a shared tile into global",
          "cp.reduce.async.bulk.tensor"),
    Entry("createpolicy", "createpolicy", "createpolicy.fractional.{primary}.b64",
          (Slot("primary", L2_EVICT),),
          (Operand("policy", rw="w", type="b64"),), (Req("sm_80", "7.4"),), None,
          "a 64-bit L2 cache policy (fraction 1.0: every access gets the priority), the "
          "operand of an .L2::cache_hint", "createpolicy"),
    Entry("prefetch_tensormap", "cp.async.bulk.tensor", "prefetch.tensormap", (),
          (_addr("tmap"),), (Req("sm_90", "8.0"),), None, "prefetch a tensor map",
          "prefetch (tensormap)"),
    # ---- wgmma (sm_90a) ----
    Entry("wgmma_fence", "wgmma", "wgmma.fence.sync.aligned", (), (), (Req(("sm_90a",), "8.0"),),
          None, "order register accesses before wgmma.mma_async", "wgmma.fence",
          collective=WARPGROUP),
    Entry("wgmma_commit_group", "wgmma", "wgmma.commit_group.sync.aligned", (), (),
          (Req(("sm_90a",), "8.0"),), None, "close the current wgmma group",
          "wgmma.commit_group", collective=WARPGROUP),
    Entry("wgmma_wait_group", "wgmma", "wgmma.wait_group.sync.aligned", (),
          (Operand("n", "imm", imm_range=(0, 7)),), (Req(("sm_90a",), "8.0"),), None,
          "wait until at most n wgmma groups are pending", "wgmma.wait_group",
          collective=WARPGROUP),
    Entry("wgmma_mma_async_ss", "wgmma", WGMMA_TEMPLATE, WGMMA_SLOTS,
          (WGMMA_ACC, Operand("desc_a", type="b64"), Operand("desc_b", type="b64"),
           *WGMMA_SCALES, Operand("tnsp_a", "imm", choices=(0, 1), when=rules.wgmma_has_transpose),
           Operand("tnsp_b", "imm", choices=(0, 1), when=rules.wgmma_has_transpose)),
          (Req(("sm_90a",), "8.0"),), rules.check_wgmma,
          "warpgroup MMA, A and B from shared memory descriptors; D += A*B when scale_d",
          "wgmma.mma_async (ss)", collective=WARPGROUP),
    Entry("wgmma_mma_async_rs", "wgmma", WGMMA_TEMPLATE, WGMMA_SLOTS,
          (WGMMA_ACC, Operand("a", type="b32", lanes=4), Operand("desc_b", type="b64"),
           *WGMMA_SCALES, Operand("tnsp_b", "imm", choices=(0, 1), when=rules.wgmma_has_transpose)),
          (Req(("sm_90a",), "8.0"),), rules.check_wgmma,
          "warpgroup MMA, A from registers, B from a shared memory descriptor",
          "wgmma.mma_async (rs)", collective=WARPGROUP),
    # ---- warp-level primitives ----
    Entry("elect_sync", "elect.sync", "elect.sync", (),
          (Operand("leader", rw="w", type="b32", sep="|"), Operand("is_leader", rw="w",
                                                                   type="pred"), _mask()),
          (Req("sm_90", "8.0"),), None, "elect one leader lane of membermask", "elect_sync"),
    Entry("shfl_sync", "shfl.sync", "shfl.sync.{mode}.b32",
          (Slot("mode", ("up", "down", "bfly", "idx")),),
          (Operand("dst", rw="w"), Operand("src"), Operand("lane", type="u32"),
           Operand("clamp", "imm", imm_range=(0, 0x1F1F), example=0x1F), _mask()),
          (Req("sm_75", "6.3"),), None, "warp shuffle", "shfl_sync"),
    Entry("vote_sync", "vote.sync", "vote.sync.{mode}.{type}",
          (Slot("mode", ("all", "any", "uni", "ballot")), Slot("type", ("pred", "b32"))),
          (Operand("dst", rw="w", type=_type_of("type")), Operand("pred", type="pred"), _mask()),
          (Req("sm_75", "6.3"),), rules.check_vote, "warp vote / ballot", "vote_sync"),
    Entry("redux_sync", "redux.sync", "redux.sync.{op}.{abs}.{nan}.{type}",
          (Slot("op", ("add", "min", "max", "and", "or", "xor")), Slot("abs", ("abs",), True),
           Slot("nan", ("NaN",), True), Slot("type", ("u32", "s32", "b32", "f32"))),
          (Operand("dst", rw="w", type=_type_of("type")), Operand("src", type=_type_of("type")),
           _mask()),
          (Req("sm_80", "7.0"), Req(("sm_100a", "sm_100f", "sm_103a"), "8.6", {"type": ("f32",)})),
          rules.check_redux, "warp reduction (f32 min/max: sm_100a/sm_100f/sm_103a only)",
          "redux_sync"),
    Entry("activemask", "vote.sync", "activemask.b32", (),
          (Operand("dst", rw="w"),), (Req("sm_75", "6.3"),), None,
          "the mask of the warp's currently active lanes", "activemask"),
    Entry("match_any_sync", "vote.sync", "match.any.sync.{type}", (Slot("type", ("b32", "b64")),),
          (Operand("dst", rw="w"), Operand("src", type=_type_of("type")), _mask()),
          (Req("sm_75", "6.3"),), None, "the lanes of membermask holding the same value",
          "match (any)"),
    # ---- atomics ----
    Entry("atom", "atom", "atom.{sem}.{scope}.{space}.{op}.{noftz}.{type}",
          (Slot("sem", ("relaxed", "acquire", "release", "acq_rel"), True),
           Slot("scope", SCOPES, True),
           Slot("space", ("global", "shared", "shared::cta", "shared::cluster")),
           Slot("op", tuple(rules.ATOM_OPS)), Slot("noftz", ("noftz",), True),
           Slot("type", (*rules.ATOM_TYPES, *rules.RED_PACKED))),
          (Operand("dst", rw="w", type=_red_value_type), _addr(),
           Operand("value", type=_red_value_type)),
          (Req("sm_75", "6.3"), SHARED_CTA_REQ, *CLUSTER_REQS,
           Req("sm_90", "7.8", {"type": ("bf16x2",)})), rules.check_atom,
          "atomic read-modify-write; returns the old value", "atom"),
    Entry("atom_cas", "atom", "atom.{sem}.{scope}.{space}.cas.{type}",
          (Slot("sem", ("relaxed", "acquire", "release", "acq_rel"), True),
           Slot("scope", SCOPES, True),
           Slot("space", ("global", "shared", "shared::cta", "shared::cluster")),
           Slot("type", ("b32", "b64"))),
          (Operand("dst", rw="w", type=_type_of("type")), _addr(),
           Operand("compare", type=_type_of("type")), Operand("value", type=_type_of("type"))),
          (Req("sm_75", "6.3"), SHARED_CTA_REQ, *CLUSTER_REQS), None,
          "atomic compare-and-swap; returns the old value", "atom (cas)"),
    Entry("red", "red", "red.{sem}.{scope}.{space}.{op}.{noftz}.{type}",
          (Slot("sem", ("relaxed", "release"), True), Slot("scope", SCOPES, True),
           Slot("space", ("global", "shared", "shared::cta", "shared::cluster")),
           Slot("op", tuple(o for o in rules.ATOM_OPS if o != "exch")), Slot("noftz", ("noftz",), True),
           Slot("type", (*rules.ATOM_TYPES, *rules.RED_PACKED))),
          (_addr(), Operand("value", type=_red_value_type)),
          (Req("sm_75", "6.3"), SHARED_CTA_REQ, *CLUSTER_REQS,
           Req("sm_90", "7.8", {"type": ("bf16x2",)})), rules.check_atom,
          "reduction into memory (no result)", "red"),
    Entry("red_vec", "red", "red.global.add.{vec}.f32", (Slot("vec", ("v2", "v4")),),
          (_addr(), Operand("value", type="f32", lanes=_vec_lanes)), (Req("sm_90", "8.1"),),
          None, "vector f32 add into global memory", "red (vector)"),
    # ---- barriers and launch control ----
    Entry("bar_sync", "bar", "bar.sync", (), (Operand("id", "imm", imm_range=(0, 15)),),
          (Req("sm_75", "6.3"),), None, "CTA barrier on barrier id (bar.sync 0: __syncthreads)",
          "bar"),
    Entry("bar", "bar", "bar.{mode}", (Slot("mode", ("sync", "arrive")),),
          (Operand("id", "imm", imm_range=(0, 15), example=1),
           Operand("count", "imm", imm_range=(32, 1024), example=128)),
          (Req("sm_75", "6.3"),), lambda m: None if int(m["count"]) % 32 == 0 else  # type: ignore
          "the thread count of a named barrier is a multiple of 32",
          "named barrier over count threads", "bar (named)"),
    Entry("barrier_cluster", "barrier", "barrier.cluster.{mode}.{sem}.{aligned}",
          (Slot("mode", ("arrive", "wait")), Slot("sem", ("release", "relaxed", "acquire"), True),
           Slot("aligned", ("aligned",), True)), (),
          (Req("sm_90", "7.8"), Req("sm_90", "8.0", {"sem": ("release", "relaxed", "acquire")})),
          rules.check_bar_cluster, "cluster-wide barrier, split arrive/wait", "barrier (cluster)"),
    Entry("griddepcontrol", "griddepcontrol", "griddepcontrol.{action}",
          (Slot("action", ("wait", "launch_dependents")),), (), (Req("sm_90", "7.8"),), None,
          "programmatic dependent launch", "griddepcontrol"),
    Entry("setmaxnreg", "setmaxnreg", "setmaxnreg.{action}.sync.aligned.u32",
          (Slot("action", ("inc", "dec")),),
          (Operand("count", "imm", imm_range=(24, 256), example=240),),
          (Req(("sm_90a", "sm_100a", "sm_100f", "sm_103a", "sm_110a", "sm_120a"), "8.0"),),
          lambda m: None if int(m["count"]) % 8 == 0 else  # type: ignore[call-overload]
          "setmaxnreg takes a multiple of 8 registers", "re-balance registers per warpgroup",
          "setmaxnreg", collective=WARPGROUP),
)

ROWS_BY_NAME: dict[str, Entry] = {row.name: row for row in ROWS}
