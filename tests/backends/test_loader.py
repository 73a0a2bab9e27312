"""The backend loader: load / is_loaded / loaded_backends, the tirx_mlir.tirx alias, rollback,
thread safety, autoload and its switches."""

from __future__ import annotations

import importlib
import subprocess
import sys
import threading

import pytest

import tirx_mlir
from tirx_mlir import backends, registry
from tirx_mlir.backends import BUILTIN_BACKENDS, BackendLoadError


def test_builtins_autoloaded_in_fixed_order():
    loaded = backends.loaded_backends()
    assert loaded[:len(BUILTIN_BACKENDS)] == BUILTIN_BACKENDS
    assert BUILTIN_BACKENDS[:2] == ("cuda", "trn")
    assert all(backends.is_loaded(b) for b in BUILTIN_BACKENDS)


def test_alias_is_the_same_module_object():
    import tirx_mlir.backends.cuda.target_tags as real
    import tirx_mlir.tirx.cuda.target_tags as alias
    from tirx_mlir.tirx.cuda import target_tags as from_import

    assert alias is real and from_import is real
    assert sys.modules["tirx_mlir.tirx.cuda"] is sys.modules["tirx_mlir.backends.cuda"]
    assert tirx_mlir.tirx.cuda is sys.modules["tirx_mlir.backends.cuda"]
    # the real module keeps its identity (the import system must not rename it)
    assert real.__name__ == "tirx_mlir.backends.cuda.target_tags"
    assert real.__spec__.name == "tirx_mlir.backends.cuda.target_tags"


def test_alias_of_a_submodule_not_imported_yet():
    sys.modules.pop("tirx_mlir.backends.cuda.detect", None)
    sys.modules.pop("tirx_mlir.tirx.cuda.detect", None)
    alias = importlib.import_module("tirx_mlir.tirx.cuda.detect")
    assert alias is sys.modules["tirx_mlir.backends.cuda.detect"]


def test_alias_of_an_unloaded_backend_does_not_exist():
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("tirx_mlir.tirx.not_a_backend.sub")
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("tirx_mlir.tirx.not_a_backend")


def test_load_runs_the_hook_once_and_is_idempotent(tirx_test):
    assert tirx_test.REGISTER_CALLS == ["tirx_test"]
    backends.load("tirx_test")
    backends.load("tirx_test")
    assert tirx_test.REGISTER_CALLS == ["tirx_test"]
    assert backends.is_loaded("tirx_test")
    assert "tirx_test" in backends.loaded_backends()
    import tirx_mlir.tirx.tirx_test.variants as alias

    assert alias is sys.modules["tirx_mlir.backends.tirx_test.variants"]


def test_registrations_are_owned_by_the_backend(tirx_test):
    owned = registry.registrations_of("tirx_test")
    assert owned["target kind"] == ["tirx_test"]
    assert sorted(owned["target tag"]) == ["test/small", "test/wide"]
    assert owned["pipeline"] == ["tirx_test"]
    assert owned["memory scope"] == ["tirx_test.scratch"]
    assert owned["layout axis"] == ["TLaneX"]
    assert owned["dispatch module"] == [("tirx_test", "tirx_mlir.backends.tirx_test.variants")]


def test_missing_package_is_a_clear_error():
    with pytest.raises(BackendLoadError, match="expected a Python package "
                                               "'tirx_mlir.backends.nosuchbackend'"):
        backends.load("nosuchbackend")
    assert not backends.is_loaded("nosuchbackend")


@pytest.mark.parametrize("name", ["_loader", "a-b", "", "1x"])
def test_bad_names_are_rejected(name):
    with pytest.raises(BackendLoadError, match="invalid backend name"):
        backends.load(name)


def test_package_without_register_backend_is_rejected(testbackends_path):
    with pytest.raises(BackendLoadError, match="has no register_backend"):
        backends.load("tirx_nohook")
    assert not backends.is_loaded("tirx_nohook")
    assert "tirx_mlir.backends.tirx_nohook" not in sys.modules
    assert "tirx_mlir.tirx.tirx_nohook" not in sys.modules


def _snapshot() -> dict[str, dict]:
    return {reg.what: reg.listing() for reg in registry.all_registries()}


def test_failed_load_leaves_no_trace(testbackends_path):
    import tirx_mlir.dispatch as dispatch
    from tirx_mlir.pipelines import get_pipeline, list_pipelines
    from tirx_mlir.target import list_device_detectors, list_tags, list_target_kinds

    cleanup_spec = get_pipeline("cleanup").spec()
    before = _snapshot()
    with pytest.raises(RuntimeError, match="hardware not supported"):
        backends.load("tirx_broken")
    broken = sys.modules.get("tirx_mlir.backends.tirx_broken")
    assert broken is None, "the failed backend's package stays importable"
    assert _snapshot() == before
    assert not backends.is_loaded("tirx_broken")
    assert "tirx_broken" not in backends.loaded_backends()
    assert not hasattr(tirx_mlir.tirx, "tirx_broken")
    assert not [m for m in sys.modules if "tirx_broken" in m]
    assert "broken_pipeline" not in list_pipelines()
    assert get_pipeline("cleanup").spec() == cleanup_spec  # the override was undone
    assert "broken/tag" not in list_tags() and "broken/cuda-tag" not in list_tags()
    assert "broken_kind" not in list_target_kinds()
    assert "broken_dev" not in list_device_detectors()
    assert "broken_variant" not in dispatch.list_registered_dispatch().get("tirx.copy", {}) \
        .get("cuda", [])
    assert registry.registrations_of("tirx_broken") == {}


def test_a_fixed_backend_loads_after_a_failure(testbackends_path):
    with pytest.raises(RuntimeError):
        backends.load("tirx_broken")
    module = importlib.import_module("tirx_mlir.backends.tirx_broken")
    module.SHOULD_FAIL[0] = False  # the module object is fresh: re-executed after the rollback
    try:
        backends.load("tirx_broken")
        assert backends.is_loaded("tirx_broken")
        assert module.CALLS == [1]
        import tirx_mlir.tirx.tirx_broken.helper as helper

        assert helper is sys.modules["tirx_mlir.backends.tirx_broken.helper"]
        assert "broken/tag" in registry.registrations_of("tirx_broken")["target tag"]
    finally:
        backends._loader._unload_for_tests("tirx_broken")
    assert registry.registrations_of("tirx_broken") == {}


def test_registrations_made_by_core_modules_first_imported_in_a_hook_stay_core():
    # tirx_mlir.pipelines registers "cleanup" at import; whoever imports it first, it is core's
    assert registry.registrations_of("core")["pipeline"] == ["cleanup"]
    assert "llvm" in registry.registrations_of("core")["target kind"]


def test_a_dependency_loaded_by_a_hook_is_owned_by_itself():
    # adreno's hook loads opencl and vulkan: their kinds are theirs, adreno owns only its tags
    assert registry.registrations_of("opencl")["target kind"] == ["opencl"]
    assert set(registry.registrations_of("adreno")) == {"target tag"}


def test_concurrent_loads_run_the_hook_once(testbackends_path, child_env):
    code = """
import sys, threading
from tirx_mlir import backends
backends.add_search_path(sys.argv[1])
barrier = threading.Barrier(8)
errors = []
def worker():
    barrier.wait()
    try:
        backends.load("tirx_test")
        assert backends.is_loaded("tirx_test")
        import tirx_mlir.tirx.tirx_test as t
        assert t.REGISTER_CALLS == ["tirx_test"]
    except Exception as e:
        errors.append(e)
threads = [threading.Thread(target=worker) for _ in range(8)]
[t.start() for t in threads]; [t.join() for t in threads]
import tirx_mlir.backends.tirx_test as m
print(len(m.REGISTER_CALLS), errors)
"""
    out = subprocess.run([sys.executable, "-c", code, testbackends_path], capture_output=True,
                         text=True, timeout=120, env=child_env(TIRX_MLIR_BACKEND_AUTOLOAD="0"))
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "1 []"


@pytest.fixture
def child(child_env):
    def run(code: str, **env: str) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              timeout=120, env=child_env(**env))

    return run


def test_autoload_can_be_switched_off(child):
    out = child("import tirx_mlir, tirx_mlir.backends as b; print(b.loaded_backends())",
                 TIRX_MLIR_BACKEND_AUTOLOAD="0")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "()"
    out = child("import tirx_mlir.backends as b; b.load('adreno'); print(b.loaded_backends())",
                 TIRX_MLIR_BACKEND_AUTOLOAD="0")
    # a backend is recorded before its hook runs (as in TIRx), so adreno precedes what it loads
    assert out.stdout.strip() == "('adreno', 'opencl', 'vulkan')"


def test_extra_backends_from_the_environment(child):
    out = child("import tirx_mlir.backends as b; print(b.loaded_backends()[-1])",
                 TIRX_MLIR_BACKENDS="tirx_test")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "tirx_test"
    out = child("import tirx_mlir.backends as b; print(b.is_loaded('tirx_broken'))",
                 TIRX_MLIR_BACKENDS="tirx_broken")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"
    assert "failed to load backend 'tirx_broken'" in out.stderr
    assert "hardware not supported" in out.stderr


def test_the_autoload_hook_is_strict_for_builtin_backends(child):
    # a builtin backend that fails breaks `import tirx_mlir`, as in TIRx
    code = ("import tirx_mlir.backends._autoload as a\n"
            "a._done = False\n"
            "a.BUILTIN_BACKENDS = ('cuda', 'nosuch')\n"
            "a._autoload_backends()\n")
    out = child(code)
    assert out.returncode != 0
    assert "expected a Python package 'tirx_mlir.backends.nosuch'" in out.stderr


def test_import_with_every_builtin_backend_imports_no_xdsl(child):
    # start-up: hooks register factories; dialects, passes and variants load on first use
    out = child("import sys, tirx_mlir, tirx_mlir.backends as b\n"
                "assert len(b.loaded_backends()) >= 9\n"
                "print(sorted(m for m in sys.modules if m.split('.')[0] in ('xdsl', 'numpy')))")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_a_registration_from_a_thread_the_hook_started_is_rolled_back(testbackends_path):
    with pytest.raises(RuntimeError, match="failing after its worker registered"):
        backends.load("tirx_threaded")
    assert "tirx_threaded_scope" not in registry.list_memory_scopes()
    assert registry.registrations_of("tirx_threaded") == {}


def test_a_thread_that_existed_before_a_hook_keeps_registering_as_itself():
    import threading

    started, done = threading.Event(), threading.Event()

    def worker():
        started.wait()
        registry.register_memory_scope("tirx_outside_scope", "not the hook's")
        done.set()

    thread = threading.Thread(target=worker)
    thread.start()
    try:
        with registry.hook_scope("tirx_some_hook"):
            started.set()
            done.wait(30)
        assert registry.memory_scopes.owner_of("tirx_outside_scope") == "core"
    finally:
        thread.join()
        registry.memory_scopes.unregister("tirx_outside_scope")
