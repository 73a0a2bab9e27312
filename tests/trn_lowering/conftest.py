"""Makes the shared helpers of tests/trn_lowering (trn_lowering_support.py) importable under
importlib mode."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
