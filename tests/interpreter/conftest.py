"""Puts the interpreter tests' helper module (interp_harness.py) on the import path."""

import os
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(1234)
