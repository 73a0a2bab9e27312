"""Compiling printed CUDA C++ in tests: nvcc over many translation units in one invocation (one
cubin each), cuobjdump's SASS opcodes, NVRTC through ctypes on the wheel's libnvrtc.

The flags are the strict set of issue 9: every warning an error (``-Werror all-warnings``),
spills and local memory errors in ptxas; the ``(C75xx)`` performance advisories -Werror does
not promote are returned in ``advisories``.
"""

from __future__ import annotations

import ctypes
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tirx_mlir.backends.cuda import sass, toolchain

STRICT = ("-Werror", "all-warnings", "-Xptxas", "--warn-on-spills,--warn-on-local-memory-usage,"
          "-Werror")
NO_SPILLS = ("-Werror", "all-warnings", "-Xptxas", "--warn-on-spills,-Werror")
"""STRICT but allowing a stack frame: printf packs its arguments in local memory."""
ADVISORY = re.compile(r"\(C75\d\d\)")


def wheel_root() -> Path | None:
    nvcc = toolchain.find_tool("nvcc")
    return None if nvcc is None else nvcc.parent.parent


def include_dirs() -> list[Path]:
    """The toolkit's include folder and the CCCL headers under it (cuda_fp16.h needs
    ``<nv/target>``), plus NVSHMEM's when its wheel is installed."""
    root = wheel_root()
    dirs = [] if root is None else [root / "include", root / "include" / "cccl"]
    shmem = nvshmem_include()
    return [d for d in dirs if d.is_dir()] + ([shmem] if shmem else [])


def nvshmem_include() -> Path | None:
    root = wheel_root()
    if root is None:
        return None
    path = root.parent / "nvshmem" / "include"
    return path if (path / "nvshmem.h").is_file() else None


@dataclass
class Compiled:
    returncode: int
    log: str
    cubins: dict[str, Path]

    @property
    def advisories(self) -> list[str]:
        return [line for line in self.log.splitlines() if ADVISORY.search(line)]


def nvcc_cubins(sources: dict[str, str], arch: str, out: Path,
                extra: tuple[str, ...] = STRICT) -> Compiled:
    """Compile every ``name -> source`` to ``out/name.cubin`` in one nvcc run."""
    nvcc = toolchain.find_tool("nvcc")
    assert nvcc is not None
    out.mkdir(parents=True, exist_ok=True)
    files = []
    for name, text in sources.items():
        path = out / f"{name}.cu"
        path.write_text(text)
        files.append(str(path))
    proc = subprocess.run([str(nvcc), f"-arch={arch}", "-cubin", "-odir", str(out), *extra,
                           *files], capture_output=True, text=True, timeout=300)
    return Compiled(proc.returncode, proc.stdout + proc.stderr,
                    {name: out / f"{name}.cubin" for name in sources})


def sass_opcodes(cubin: Path) -> set[str]:
    """The SASS opcodes (with modifiers, ``HMMA.16816.F32``) of a cubin, by cuobjdump."""
    return {i.opcode for code in sass.instructions(sass.disassemble(cubin)).values()
            for i in code}


def ptx_sass_opcodes(ptx: str, arch: str) -> set[str]:
    """The SASS opcodes of printed PTX assembled by ptxas (spills, local memory and C75xx
    advisories are failures); skips the test without ptxas and cuobjdump."""
    import tempfile

    import pytest

    ptxas = toolchain.find_tool("ptxas")
    for tool in ("ptxas", "cuobjdump"):
        if toolchain.find_tool(tool) is None:
            pytest.skip(toolchain.missing_reason(tool))
    with tempfile.TemporaryDirectory() as tmp:
        src, cubin = Path(tmp) / "k.ptx", Path(tmp) / "k.cubin"
        src.write_text(ptx)
        proc = subprocess.run([str(ptxas), f"-arch={arch}", "--warn-on-spills",
                               "--warn-on-local-memory-usage", "-Werror", str(src), "-o",
                               str(cubin)], capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        assert not ADVISORY.search(proc.stderr), proc.stderr
        return sass_opcodes(cubin)


def nvrtc_library() -> Path | None:
    root = wheel_root()
    if root is None:
        return None
    found = sorted((root / "lib").glob("libnvrtc.so*"))
    return found[0] if found else None


def nvrtc_compile(source: str, arch: str, name: str = "kernel.cu") -> tuple[int, str]:
    """NVRTC's result code (0: success) and log for ``source`` compiled for ``arch``."""
    library = nvrtc_library()
    assert library is not None
    for builtins in sorted(library.parent.glob("libnvrtc-builtins.so.*")):
        # libnvrtc dlopens its builtins by soname: loaded first, the wheel's copy is found
        ctypes.CDLL(str(builtins), mode=ctypes.RTLD_GLOBAL)
    lib = ctypes.CDLL(str(library))
    prog = ctypes.c_void_p()
    rc = lib.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), name.encode(), 0, None,
                                None)
    assert rc == 0, f"nvrtcCreateProgram: {rc}"
    options = [f"--gpu-architecture={arch}".encode(), b"--std=c++17"]
    options += [f"-I{d}".encode() for d in include_dirs()]
    argv = (ctypes.c_char_p * len(options))(*options)
    rc = lib.nvrtcCompileProgram(prog, len(options), argv)
    size = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    lib.nvrtcGetProgramLog(prog, log)
    lib.nvrtcDestroyProgram(ctypes.byref(prog))
    return rc, log.value.decode(errors="replace")
