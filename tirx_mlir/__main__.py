"""``python -m tirx_mlir opt|run ARGS...``: the command-line tools (tools/launcher.py)."""

import sys

from tirx_mlir.tools.launcher import main

sys.exit(main())
