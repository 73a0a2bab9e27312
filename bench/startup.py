"""Start-up time of tirx_mlir, measured against references run in the same session.

    python bench/startup.py [--repeat N]

Times (best of N fresh processes, wall clock):

* ``python -c pass``                        the interpreter alone;
* ``python -c "import xdsl.dialects.builtin"`` the minimum any xDSL tool pays;
* ``python -c "import tirx_mlir"``           with every builtin backend autoloaded;
* the same with ``TIRX_MLIR_BACKEND_AUTOLOAD=0``  (the cost of the loader without backends);
* ``xdsl-opt`` and ``tirx-opt`` on an empty module (the fixed cost of every tool run).

It prints each time and its ratio to the reference of its row, and the modules that
``import tirx_mlir`` pulls in (no xDSL module should be among them).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

BIN = os.path.dirname(sys.executable)


def best_of(cmd: list[str], repeat: int, env: dict[str, str] | None = None,
            stdin: str | None = None) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True, env=env, input=stdin, text=True)
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    py = sys.executable
    env = dict(os.environ)
    off = {**env, "TIRX_MLIR_BACKEND_AUTOLOAD": "0"}
    with tempfile.NamedTemporaryFile("w", suffix=".mlir", delete=False) as f:
        f.write("builtin.module {}\n")
        empty = f.name
    rows = []
    t_pass = best_of([py, "-c", "pass"], args.repeat)
    t_xdsl = best_of([py, "-c", "import xdsl.dialects.builtin"], args.repeat)
    t_import = best_of([py, "-c", "import tirx_mlir"], args.repeat, env)
    t_import_off = best_of([py, "-c", "import tirx_mlir"], args.repeat, off)
    rows.append(("python -c pass", t_pass, None))
    rows.append(("import xdsl.dialects.builtin", t_xdsl, ("python -c pass", t_pass)))
    rows.append(("import tirx_mlir (9 backends)", t_import, ("import xdsl.dialects.builtin",
                                                              t_xdsl)))
    rows.append(("import tirx_mlir (autoload off)", t_import_off, ("python -c pass", t_pass)))
    xdsl_opt = os.path.join(BIN, "xdsl-opt")
    tirx_opt = os.path.join(BIN, "tirx-opt")
    if os.path.exists(xdsl_opt) and os.path.exists(tirx_opt):
        t_xopt = best_of([xdsl_opt, empty], args.repeat)
        t_topt = best_of([tirx_opt, empty], args.repeat, env)
        rows.append(("xdsl-opt empty module", t_xopt, None))
        rows.append(("tirx-opt empty module", t_topt, ("xdsl-opt empty module", t_xopt)))
    os.unlink(empty)
    print(f"best of {args.repeat} fresh processes")
    for name, t, ref in rows:
        ratio = f"  {t / ref[1]:5.2f}x {ref[0]}" if ref else ""
        print(f"{name:34s} {t * 1000:8.1f} ms{ratio}")
    probe = subprocess.run([py, "-c", "import sys, tirx_mlir; print(len(sys.modules)); "
                            "print(sorted(m for m in sys.modules if m.startswith('xdsl')))"],
                           capture_output=True, text=True, check=True)
    count, xdsl_modules = probe.stdout.splitlines()
    print(f"import tirx_mlir loads {count} modules; xDSL modules among them: {xdsl_modules}")


if __name__ == "__main__":
    main()
