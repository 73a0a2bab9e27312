"""Where the CUDA tools are, and running ptxas.

`find_tool("ptxas")` looks, in order, in the pip wheels of the ``cuda`` extra
(``nvidia-cuda-nvcc`` and ``nvidia-cuda-cuobjdump`` put their binaries in
``<site-packages>/nvidia/cu13/bin``), then in ``$CUDA_HOME/bin`` (or ``$CUDA_PATH/bin``), then on
``PATH``. It returns None when the tool is nowhere; callers (tests) skip with `missing_reason`.

`assemble(ptx, arch)` runs ``ptxas -arch=<arch>`` on PTX text and returns its exit status and
messages; `AssembleResult.ok` is true when ptxas accepted the module.
"""

from __future__ import annotations

import os
import shutil
import site
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

TOOLS = ("nvcc", "ptxas", "cuobjdump", "nvdisasm")
WHEEL_BIN_DIRS = ("nvidia/cu13/bin", "nvidia/cuda_nvcc/bin", "nvidia/cuda_cuobjdump/bin")


def _site_dirs() -> list[Path]:
    dirs = [*sys.path, *site.getsitepackages(), site.getusersitepackages()]
    return [Path(d) for d in dict.fromkeys(dirs) if d]


def wheel_tool(name: str) -> Path | None:
    """The tool from an installed NVIDIA pip wheel, if any."""
    for base in _site_dirs():
        for sub in WHEEL_BIN_DIRS:
            path = base / sub / name
            if path.is_file() and os.access(path, os.X_OK):
                return path
    return None


def find_tool(name: str) -> Path | None:
    """``name`` (nvcc, ptxas, cuobjdump, nvdisasm): the wheels, then CUDA_HOME, then PATH."""
    if (path := wheel_tool(name)) is not None:
        return path
    for var in ("CUDA_HOME", "CUDA_PATH"):
        if (home := os.environ.get(var)) and (Path(home) / "bin" / name).is_file():
            return Path(home) / "bin" / name
    found = shutil.which(name)
    return Path(found) if found else None


def missing_reason(name: str) -> str:
    return (f"{name} not found: install the cuda extra (pip install -e '.[cuda]'), or set "
            f"CUDA_HOME to a CUDA 13 toolkit, or put {name} on PATH")


@dataclass(frozen=True)
class AssembleResult:
    returncode: int
    log: str

    @property
    def ok(self) -> bool:
        return self.returncode == 0


def assemble(ptx: str, arch: str, *, ptxas: Path | None = None,
             extra: tuple[str, ...] = ()) -> AssembleResult:
    """Assemble ``ptx`` for ``arch`` (e.g. ``sm_90a``) with ptxas; the cubin is discarded."""
    tool = ptxas or find_tool("ptxas")
    if tool is None:
        raise FileNotFoundError(missing_reason("ptxas"))
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "k.cubin"
        proc = subprocess.run([str(tool), f"-arch={arch}", *extra, "-", "-o", str(out)],
                              input=ptx, capture_output=True, text=True, timeout=120)
    return AssembleResult(proc.returncode, proc.stderr + proc.stdout)
