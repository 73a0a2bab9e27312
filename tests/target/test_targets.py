"""Targets: kinds with typed schemas, tags, string/dict round trips, IR attributes, detectors."""

from __future__ import annotations

import pytest

import tirx_mlir
from tirx_mlir.target import (DeviceNotFoundError, Target, TargetError, detect_target_from_device,
                              list_device_detectors, list_tags, list_target_kinds, register_tag,
                              set_target, target_of)
from tirx_mlir.target.kind import AttrSpec, TargetKind, lookup_kind, register_target_kind
from tirx_mlir.target.llvm import host_triple, probe_host


def test_builtin_kinds():
    assert {"llvm", "cuda", "trn", "metal", "rocm", "opencl", "vulkan", "webgpu",
            "hexagon"} <= set(list_target_kinds())


@pytest.mark.parametrize("tag", sorted(list_tags()))
def test_every_tag_round_trips_through_its_string_and_dict(tag):
    target = Target(tag)
    assert Target(str(target)) == target
    assert Target(target.export()) == target
    assert target.tag == tag


def test_cuda_tags():
    h100 = Target("nvidia/nvidia-h100")
    assert (h100.arch, h100.max_shared_memory_per_block, h100.num_sms) == ("sm_90a", 232448, 132)
    assert Target("nvidia/nvidia-h200").arch == "sm_90a"
    assert Target("nvidia/nvidia-b200").arch == "sm_100a"
    assert Target("nvidia/nvidia-a100").arch == "sm_80"
    assert Target("nvidia/nvidia-a10").arch == Target("nvidia/geforce-rtx-3090").arch == "sm_86"
    assert Target("nvidia/nvidia-l4").arch == Target("nvidia/geforce-rtx-4090").arch == "sm_89"
    orin = Target("nvidia/jetson-agx-orin-64gb")
    assert orin.arch == "sm_87" and orin.host.kind_name == "llvm"
    assert orin.host.mtriple == "aarch64-linux-gnu"
    assert h100.keys == ["cuda", "gpu"]


def test_trn_tags_come_from_the_trn_backend():
    assert {"aws/trn1/trn1.2xlarge", "aws/trn1/trn1.32xlarge"} <= set(list_tags("trn"))


def test_other_backend_tags():
    assert set(list_tags("hexagon")) == {f"qcom/hexagon-v{v}" for v in (65, 66, 68, 69, 73, 75)}
    assert Target("qcom/hexagon-v68").vtcm_capacity == 4 * 1024 * 1024
    assert Target("qcom/adreno-opencl-clml").keys == ["adreno", "opencl", "gpu", "clml"]
    assert Target("apple/m2-gpu").host.mtriple == "arm64-apple-macos"


def test_string_with_attributes_and_host():
    t = Target("cuda -arch=sm_90a -max_shared_memory_per_block=232448 "
               "-host='llvm -mtriple=aarch64-linux-gnu'")
    assert t.max_shared_memory_per_block == 232448
    assert t.get("max-shared-memory-per-block") == 232448
    assert t.host == Target("llvm -mtriple=aarch64-linux-gnu")
    assert Target(str(t)) == t
    assert Target("nvidia/nvidia-h100 -max_shared_memory_per_block=49152") \
        .max_shared_memory_per_block == 49152
    assert t.refine(fast_math=True).fast_math is True


@pytest.mark.parametrize("text, message", [
    ("cudaa", "unknown target kind or tag 'cudaa'.*Did you mean 'cuda'"),
    ("cuda -archh=sm_90", "target kind 'cuda' has no attribute 'archh'; allowed: arch, "),
    ("cuda -max_threads_per_block=many", "'max_threads_per_block' expects an integer"),
    ("cuda -arch=volta", r"'arch' must match sm_\(\\d\+\)\(\[af\]\?\) \(e\.g\. sm_90a\); got 'volta'"),
    ("cuda -compiler=clang", "'compiler' must be one of nvrtc, nvcc"),
    ("cuda -fast_math=maybe", "'fast_math' expects a boolean"),
    ("cuda sm_90", "expected -attr=value, got 'sm_90'"),
    ("", "empty target string"),
])
def test_errors_name_what_is_wrong_and_what_is_allowed(text, message):
    with pytest.raises(TargetError, match=message):
        Target(text)


def test_unknown_attribute_access_is_an_attribute_error():
    t = Target("cuda")
    assert getattr(t, "nope", "default") == "default"
    with pytest.raises(TargetError, match="allowed: arch"):
        t.nope  # noqa: B018


def test_tag_conflicts_unless_override():
    from tirx_mlir import registry

    with registry.owner_scope("tag_test"):
        with pytest.raises(registry.RegistryError, match="already registered by 'cuda'"):
            register_tag("nvidia/nvidia-h100", {"kind": "cuda", "arch": "sm_90"})
        with pytest.raises(TargetError, match="no attribute 'bogus'"):
            register_tag("x/bad", {"kind": "cuda", "bogus": 1})
        register_tag("nvidia/nvidia-h100", {"kind": "cuda", "arch": "sm_90"}, override=True)
        assert Target("nvidia/nvidia-h100").arch == "sm_90"
    registry.drop_owner_everywhere("tag_test")
    assert Target("nvidia/nvidia-h100").arch == "sm_90a"
    assert "x/bad" not in list_tags()


def test_targets_on_kernels_and_modules():
    module = tirx_mlir.parse_module(
        'tirx.kernel @k(%X: !tirx.buffer<4xf32, global>) -> () grid [1] threads [1] '
        'target "nvidia/nvidia-h100" {\n  tirx.return\n}')
    kernel = module.body.block.first_op
    assert target_of(kernel) == Target("nvidia/nvidia-h100")
    set_target(module, Target("llvm"))
    set_target(kernel, "aws/trn1/trn1.2xlarge")
    assert target_of(kernel).kind_name == "trn"
    kernel.target = None
    assert target_of(kernel) == Target("llvm")
    text = str(module)
    assert 'tirx.target = #tirx.target<"llvm">' in text
    reparsed = tirx_mlir.parse_module(text)
    assert target_of(reparsed.body.block.first_op) == Target("llvm")
    assert Target("cuda -arch=sm_80").to_attr().data == "cuda -arch=sm_80"


def test_with_target_sets_the_current_target():
    assert Target.current() is None
    with Target("cuda -arch=sm_80") as t:
        assert Target.current() is t
        with Target("llvm"):
            assert Target.current().kind_name == "llvm"
        assert Target.current() is t
    assert Target.current() is None


def test_cpu_detector_is_a_real_probe():
    t = detect_target_from_device("cpu")
    probe = probe_host()
    assert t.kind_name == "llvm" and t.mtriple == host_triple() == probe["mtriple"]
    assert t.num_cores >= 1 and t.vector_width in (128, 256, 512)
    assert Target(str(t)) == t


@pytest.mark.parametrize("device", ["cuda", "cuda:0", "metal", "rocm", "opencl", "vulkan"])
def test_detectors_fail_cleanly_without_the_device(device):
    try:
        target = detect_target_from_device(device)
    except TargetError as err:  # the expected outcome on a machine without that device
        assert "give the target explicitly" in str(err) or isinstance(err, DeviceNotFoundError)
    else:
        assert target.kind_name == device.split(":")[0]


def test_unknown_device_lists_the_known_ones():
    with pytest.raises(TargetError, match="device types with a detector: cpu, cuda, llvm"):
        detect_target_from_device("tpu:0")
    assert {"cpu", "cuda", "rocm", "opencl", "vulkan", "metal"} <= set(list_device_detectors())


def test_rocm_detector_reads_the_kfd_topology(tmp_path):
    from tirx_mlir.backends.rocm import detect_rocm_target, gfx_name

    cpu = tmp_path / "0"
    cpu.mkdir()
    (cpu / "properties").write_text("cpu_cores_count 16\ngfx_target_version 0\n")
    gpu = tmp_path / "1"
    gpu.mkdir()
    (gpu / "properties").write_text("simd_count 1216\nlds_size_in_kb 64\ngfx_target_version "
                                    "90402\nwave_front_size 64\nsimd_per_cu 4\n")
    t = detect_rocm_target("rocm:0", topology=str(tmp_path))
    assert (t.mcpu, t.num_cus, t.max_shared_memory_per_block) == ("gfx942", 304, 65536)
    assert gfx_name(90010) == "gfx90a"
    with pytest.raises(DeviceNotFoundError, match="no ROCm device 1: this machine has 1"):
        detect_rocm_target("rocm:1", topology=str(tmp_path))


def test_cuda_arch_of_a_probed_device():
    from tirx_mlir.backends.cuda.detect import arch_of

    assert [arch_of(8, 0), arch_of(8, 9), arch_of(9, 0), arch_of(10, 0)] == \
        ["sm_80", "sm_89", "sm_90a", "sm_100a"]


def test_kind_schema_has_categories():
    cuda = list_target_kinds()["cuda"]
    assert "arch" in cuda.attr_names("arch")
    assert {"max_shared_memory_per_block", "num_sms", "registers_per_block"} <= \
        set(cuda.attr_names("resource"))
    assert {"compiler", "fast_math"} <= set(cuda.attr_names("option"))
    assert "max_shared_memory_per_block" in cuda.describe()


def test_kernel_target_is_the_one_rule_passes_use():
    """pass option > kernel > module attribute > current target; none at all is a PassError
    unless not required."""
    from tirx_mlir.diagnostics import PassError
    from tirx_mlir.target import kernel_target, target_text_of

    module = tirx_mlir.parse_module(
        'tirx.kernel @k(%X: !tirx.buffer<4xf32, global>) -> () grid [1] threads [1] {\n'
        '  tirx.return\n}')
    kernel = module.body.block.first_op
    assert target_text_of(kernel) is None and kernel_target(kernel, required=False) is None
    with pytest.raises(PassError, match="kernel @k has no target"):
        kernel_target(kernel)
    with Target("llvm"):
        assert kernel_target(kernel) == Target("llvm")
    set_target(module, "nvidia/nvidia-h100")
    assert Target(target_text_of(kernel.body.block.first_op)) == Target("nvidia/nvidia-h100")
    set_target(kernel, "aws/trn1/trn1.2xlarge")
    assert kernel_target(kernel).kind_name == "trn"
    assert kernel_target(kernel, "llvm") == Target("llvm")
    with pytest.raises(PassError, match="unknown target kind or tag 'nope'"):
        kernel_target(kernel, "nope")


def test_a_pass_refuses_more_threads_than_the_targets_limit():
    """A kernel built or changed outside the parser (its target from the module here) meets
    the target's max_threads_per_block when a pass resolves the target: a PassError at the
    kernel, not a pipeline run on a launch the GPU refuses."""
    from tirx_mlir.diagnostics import PassError
    from tirx_mlir.target import kernel_target

    module = tirx_mlir.parse_module(
        'tirx.kernel @k(%X: !tirx.buffer<4xf32, global>) -> () grid [1] threads [2048] {\n'
        '  tirx.return\n}')
    kernel = module.body.block.first_op
    set_target(module, "cuda -arch=sm_90a")
    with pytest.raises(PassError, match=r"threads \[2048\] is 2048 threads per block; the "
                                        r"target .* allows at most 1024"):
        kernel_target(kernel)
    assert kernel_target(kernel, "trn").kind_name == "trn"  # no thread limit
    from tirx_mlir.dialects.tirx.kernel import int_array

    kernel.properties["threads"] = int_array([1024])
    assert kernel_target(kernel).kind_name == "cuda"


@pytest.mark.parametrize("spec, attr, shown", [
    ("trn -partitions=0", "partitions", "0"),
    ("trn -sbuf_bytes_per_partition=0", "sbuf_bytes_per_partition", "0"),
    ("trn -psum_bank_bytes=0", "psum_bank_bytes", "0"),
    ({"kind": "trn", "partitions": 1e20}, "partitions", "100000000000000000000"),
    ({"kind": "trn", "hbm_bytes_per_chip": 1e20}, "hbm_bytes_per_chip", "100000000000000000000"),
    ("cuda -max_shared_memory_per_block=0", "max_shared_memory_per_block", "0"),
    ("cuda -max_threads_per_block=4096", "max_threads_per_block", "4096"),
    ("cuda -max_registers_per_thread=100000", "max_registers_per_thread", "100000"),
    ("nvidia/nvidia-h100 -num_sms=-1", "num_sms", "-1"),
    ("llvm -num_cores=0", "num_cores", "0"),
])
def test_numbers_out_of_their_schema_range_name_the_attribute_value_and_range(spec, attr, shown):
    kind = spec["kind"] if isinstance(spec, dict) else Target(spec.split()[0]).kind_name
    low, high = lookup_kind(kind).spec(attr).bounds
    with pytest.raises(TargetError) as info:
        Target(spec)
    message = str(info.value)
    assert f"attribute '{attr}' must be in [" in message and message.endswith(f"got {shown}")
    assert not low <= float(shown) <= high


def test_every_number_attribute_of_every_tag_is_in_range():
    for name, target in list_tags().items():
        for spec in target.kind.attrs:
            value = target.attrs.get(spec.name)
            if spec.type in (int, float) and value is not None:
                assert spec.bounds[0] <= value <= spec.bounds[1], (name, spec.name, value)


def test_a_schema_range_must_fit_its_attribute():
    with pytest.raises(TargetError, match="a range is"):
        register_target_kind(TargetKind("bad_range_kind", (AttrSpec("x", str, range=(0, 1)),)))
    assert "bad_range_kind" not in list_target_kinds()


def test_a_target_string_is_parsed_again_after_a_tag_or_kind_changes():
    """`Target` keeps each string's parse while the kind and tag registries stay unchanged
    (target._parsed); a registration in between is seen, and each Target owns its attributes."""
    from tirx_mlir import registry

    first = Target("nvidia/nvidia-h100")
    first.attrs["arch"] = "changed"  # a Target's own dict: not the kept parse
    assert Target("nvidia/nvidia-h100").arch == "sm_90a"
    with registry.owner_scope("parse_memo_test"):
        register_tag("nvidia/nvidia-h100", {"kind": "cuda", "arch": "sm_80"}, override=True)
        assert Target("nvidia/nvidia-h100").arch == "sm_80"
    registry.drop_owner_everywhere("parse_memo_test")
    assert Target("nvidia/nvidia-h100").arch == "sm_90a"


def test_binding_a_bad_target_string_is_a_pass_error_at_the_kernel():
    """`bind_target` (a pass's ``target`` option) parses the string first: a kernel never holds
    a target no later op can read."""
    from tirx_mlir.diagnostics import PassError
    from tirx_mlir.dialects.tirx.kernel import KernelOp
    from tirx_mlir.located_parser import parse_module
    from tirx_mlir.target.target import bind_target

    module = parse_module('tirx.kernel @k() grid [1] threads [1] target "cuda -arch=sm_80" {\n'
                          '  tirx.return\n}\n', "bind.mlir")
    kernel = next(op for op in module.walk() if isinstance(op, KernelOp))
    for bad in ("sm_80", 'cuda -arch=sm_90a"x', "cuda -arch=sm_90a*/"):
        with pytest.raises(PassError) as err:
            bind_target(kernel, bad)
        assert err.value.op is kernel
    assert target_of(kernel) == Target("cuda -arch=sm_80")
    bind_target(kernel, "cuda -arch=sm_90a")
    assert target_of(kernel) == Target("cuda -arch=sm_90a")


def test_an_option_given_twice_in_a_target_string_is_refused():
    """Found by the cuda hostile-input campaign: ``cuda -arch=sm_80 -arch=sm_70`` was sm_70 (the
    last won silently; the kernel read as sm_80 lowered for sm_70)."""
    with pytest.raises(TargetError, match="-arch is given twice; give it once"):
        Target("cuda -arch=sm_80 -arch=sm_70")
    assert Target("nvidia/nvidia-h100 -arch=sm_90").get("arch") == "sm_90"  # a tag's, overridden
