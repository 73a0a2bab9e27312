"""Which packages a fresh ``tirx-opt`` process imports: `packages_imported_compiling` runs one
compile of an example in a new interpreter and lists the modules of the named top-level
packages it loaded (a lazy-import test asserts the list is empty)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def packages_imported_compiling(example: Path, out: Path, packages: tuple[str, ...],
                                *flags: str) -> list[str]:
    """Run ``tirx-opt example *flags -o out`` in a fresh Python process (it must succeed) and
    return the sorted names of the loaded modules whose top-level package is in ``packages``."""
    probe = ("import sys\nsys.argv = ['tirx-opt', *sys.argv[1:]]\n"
             "from tirx_mlir.tools.tirx_opt import main\n"
             "try:\n    main()\nexcept SystemExit as done:\n    assert not done.code\n"
             f"print(sorted(m for m in sys.modules if m.split('.')[0] in {packages!r}))\n")
    run = subprocess.run([sys.executable, "-c", probe, str(example), *flags, "-o", str(out)],
                         capture_output=True, text=True, check=True, cwd=ROOT)
    return ast.literal_eval(run.stdout.strip().splitlines()[-1])
