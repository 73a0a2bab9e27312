"""Identifiers from IR names: always valid and unreserved, readable for non-ASCII, unique."""

from __future__ import annotations

import keyword
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tirx_mlir.printers import Namer, sanitize

IDENT = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")


@pytest.mark.parametrize("name, ident", [
    ("A_sbuf", "A_sbuf"), ("0x", "v0x"), ("", "v"), ("a-b", "a_b"),
    ("__import__", "v__import__"), ("--x", "v__x"), ("_tmp", "v_tmp"),
    ("ядро", "v_u044f_u0434_u0440_u043e"), ("café", "cafe"), ("x😀", "x_U0001f600"),
])
def test_sanitize(name, ident):
    assert sanitize(name) == ident


@given(st.text(max_size=30))
def test_sanitize_gives_a_plain_identifier(name):
    ident = sanitize(name)
    assert IDENT.match(ident), ident
    assert sanitize(name) == ident  # stable


def test_fresh_names_starting_with_underscores_terminate():
    namer = Namer(keyword.kwlist)
    names = ("__import__", "__import__", "--x", "ядро", "ядро")
    assert [namer.fresh(n) for n in names] == \
        ["v__import__", "v__import___1", "v__x", "v_u044f_u0434_u0440_u043e",
         "v_u044f_u0434_u0440_u043e_1"]


def test_names_that_sanitise_alike_stay_distinct_and_deterministic():
    names = ["a-b", "a_b", "a.b", "a_b_1", "for", "for"]
    namer = Namer(keyword.kwlist)
    got = [namer.fresh(n) for n in names]
    assert got == ["a_b", "a_b_1", "a_b_2", "a_b_1_1", "for_1", "for_2"]
    assert len(set(got)) == len(got)
    namer2 = Namer(keyword.kwlist)
    assert [namer2.fresh(n) for n in names] == got


def test_unicodedata_is_loaded_only_for_a_non_ascii_name():
    import subprocess
    import sys

    probe = ("import sys\n"
             "from tirx_mlir.printers import sanitize\n"
             "sanitize('a-b'); sanitize('__import__')\n"
             "print('unicodedata' in sys.modules)\n"
             "print(sanitize('café'), 'unicodedata' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True, timeout=120)
    assert out.stdout.split() == ["False", "cafe", "True"]


def test_fresh_resumes_at_the_last_suffix_and_still_gives_the_first_free_one():
    namer = Namer(["r_2"])
    assert [namer.fresh("r") for _ in range(4)] == ["r", "r_1", "r_3", "r_4"]
    assert namer.fresh("r_5") == "r_5"  # taken by another hint: skipped below
    assert namer.fresh("r-6") == "r_6"
    assert [namer.fresh("r") for _ in range(2)] == ["r_7", "r_8"]
    assert namer.fresh("q") == "q" and namer.fresh("q") == "q_1"
