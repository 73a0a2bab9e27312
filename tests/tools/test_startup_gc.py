"""`startup_gc`: the collector off while a tool starts, on again after, start-up frozen once."""

from __future__ import annotations

import gc
import subprocess
import sys
from pathlib import Path

from tirx_mlir.tools import startup_gc


def test_paused_turns_the_collector_off_and_back_on_even_when_the_block_raises():
    assert gc.isenabled()
    try:
        with startup_gc.paused():
            assert not gc.isenabled()
            raise KeyError("in the block")
    except KeyError:
        pass
    assert gc.isenabled()


def test_resume_leaves_a_collector_that_was_already_off_off():
    gc.disable()
    try:
        startup_gc.pause()
        startup_gc.resume()
        assert not gc.isenabled()
    finally:
        gc.enable()


PROBE = """
import gc, io, contextlib, sys
from tirx_mlir.tools import tirx_opt, startup_gc
assert gc.isenabled(), "importing the tool leaves the collector on"
assert gc.get_freeze_count() == 0, "importing the tool freezes nothing"
with contextlib.redirect_stdout(io.StringIO()):
    assert tirx_opt.main([sys.argv[1]]) == 0
frozen = gc.get_freeze_count()
with contextlib.redirect_stdout(io.StringIO()):
    assert tirx_opt.main([sys.argv[1]]) == 0
print(gc.isenabled(), frozen > 1000, gc.get_freeze_count() <= frozen)  # freed ones leave it
"""


def test_the_tool_runs_with_the_collector_on_and_freezes_start_up_once(tmp_path):
    empty = tmp_path / "empty.mlir"
    empty.write_text("builtin.module {}\n")
    out = subprocess.run([sys.executable, "-c", PROBE, str(empty)], capture_output=True,
                         text=True, check=True)
    assert out.stdout.split() == ["True", "True", "True"]


RUN_PROBE = """
import gc, io, contextlib, sys
from tirx_mlir.tools import tirx_opt
collections = []
gc.callbacks.append(lambda phase, info: phase == "start" and collections.append(info))
argv = ["--pass-pipeline=trn", sys.argv[1], "-t", "nki"]
with contextlib.redirect_stdout(io.StringIO()) as out:
    assert tirx_opt.main(argv) == 0
print(len(collections), gc.isenabled(), gc.get_freeze_count() > 1000, "nki.jit" in out.getvalue())
"""


def test_a_compile_runs_without_a_collection_and_ends_with_the_collector_on(tmp_path):
    # the collector stays off through set-up, parsing, the passes and printing (a Trainium
    # compile triggered ~9 collections when it was on for parsing and printing), then is on
    # again with what the first run made frozen
    kernel = Path(__file__).resolve().parents[2] / "examples" / "trn" / "layernorm_affine_rows.mlir"
    out = subprocess.run([sys.executable, "-c", RUN_PROBE, str(kernel)], capture_output=True,
                         text=True, check=True)
    assert out.stdout.split() == ["0", "True", "True", "True"]
