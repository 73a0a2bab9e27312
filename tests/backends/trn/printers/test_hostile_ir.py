"""Hostile IR fed to both NKI printers with verification off: names that once hung the
unique-name loop print, and attribute strings or numbers that would inject text or absurd
values are refused with a located ``[nki-print]`` error, whatever a verifier said."""

from __future__ import annotations

import ast
import pathlib
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tirx_testing.trn import parse
from xdsl.dialects.builtin import StringAttr

from tirx_mlir.backends.trn.printers import emit_nki
from tirx_mlir.diagnostics import op_location
from tirx_mlir.printers import PrintError

APIS = ("current", "legacy")
INJECTED = '__import__("sys")'
SBUF = "!tirx.buffer<128x512xf32, trn.sbuf>"
HBM = "!tirx.buffer<128x512xf32, global>"


def kernel(body: str, name: str = "k", alloc_attrs: str = "{trn.addr = 0 : i64}") -> str:
    return f"""
tirx.kernel @{name}(%A: {HBM}) -> (%B: {HBM}) grid [1] threads [1] target "aws/trn1/trn1.2xlarge" {{
  %a = tirx.alloc {alloc_attrs} : {SBUF}
  %b = tirx.alloc {{trn.addr = 2048 : i64}} : {SBUF}
  %one = arith.constant 1.0 : f32
  nki.load %a, %A : {SBUF}, {HBM}
{body}
  nki.store %B, %b : {HBM}, {SBUF}
  tirx.return
}}
"""


def tensor_scalar(op0: str) -> str:
    return (f'  "nki.tensor_scalar"(%b, %a, %one) <{{op0 = {op0}, operandSegmentSizes = '
            f'array<i32: 1, 1, 1, 0>}}> : ({SBUF}, {SBUF}, f32) -> ()')


COPY = f"  nki.tensor_copy %b, %a : {SBUF}, {SBUF}"
HOSTILE = {
    "alu operator": kernel(tensor_scalar(r'"add, __import__(\"sys\").exit(3)) #"')),
    "alu operator of another type": kernel(tensor_scalar("7 : i64")),
    "activation function": kernel(
        f'  "nki.activation"(%b, %a) <{{func = "exp)\\n__import__(\\"sys\\")#", '
        f'operandSegmentSizes = array<i32: 1, 1, 0, 0>}}> : ({SBUF}, {SBUF}) -> ()'),
    "engine": kernel(f'  "nki.tensor_copy"(%b, %a) <{{engine = "vector; __import__(\\"sys\\")"}}>'
                     f' : ({SBUF}, {SBUF}) -> ()'),
    "loop kind": kernel(f"""  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %c2 step %c1 {{
  {COPY}
  }} {{trn.loop = "range\\n__import__(\\"sys\\")"}}"""),
    "negative address": kernel(COPY, alloc_attrs="{trn.addr = -4096 : i64}"),
    "huge address": kernel(COPY, alloc_attrs="{trn.addr = 9000000000000 : i64}"),
    "address past the end of SBUF": kernel(COPY, alloc_attrs="{trn.addr = 196607 : i64}"),
    "absurd integer": kernel(f"""  %big = arith.constant 1267650600228229401496703205376 : i128
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.index_cast %big : i128 to index
  scf.for %i = %c0 to %n step %c1 {{
  {COPY}
  }}"""),
    "comparison predicate": kernel(f"""  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %p = "arith.cmpi"(%c0, %c1) <{{predicate = 99 : i64}}> : (index, index) -> i1
  scf.if %p {{
  {COPY}
  }}"""),
}


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("case", HOSTILE)
def test_hostile_attribute_is_a_located_print_error(case, api):
    module = parse(HOSTILE[case], verify=False)
    with pytest.raises(PrintError) as info:
        emit_nki(module, api)
    err = info.value
    assert err.code == "nki-print"
    assert op_location(err.op) is not None, "the error names no place in the file"
    assert err.op is not module and err.op.name != "builtin.module", err


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("name, expected", [
    ('"__import__"', "v__import__"), ('"--x"', "v__x"),
    ('"ядро"', "v_u044f_u0434_u0440_u043e")])
def test_names_that_sanitise_to_underscores_print(name, expected, api):
    text = emit_nki(parse(kernel(COPY, name=name)), api)
    assert f"def {expected}(" in text
    ast.parse(text)


@pytest.mark.parametrize("api", APIS)
def test_names_that_sanitise_alike_are_distinct_functions(api):
    text = emit_nki(parse(kernel(COPY, name='"a-b"') + kernel(COPY, name="a_b")), api)
    functions = [n.name for n in ast.parse(text).body if isinstance(n, ast.FunctionDef)]
    assert functions == ["a_b", "a_b_1"]
    assert emit_nki(parse(kernel(COPY, name='"a-b"') + kernel(COPY, name="a_b")), api) == text


@pytest.mark.parametrize("target", ["nki", "nki-legacy"])
@pytest.mark.parametrize("case", ["alu operator", "activation function", "engine",
                                  "negative address"])
def test_tirx_opt_disable_verify_refuses_cleanly(case, target, tmp_path):
    path = tmp_path / "hostile.mlir"
    path.write_text(HOSTILE[case])
    result = subprocess.run([sys.executable, "-m", "tirx_mlir.tools.tirx_opt", str(path),
                             "--disable-verify", "-t", target],
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr and "internal compiler error" not in result.stderr
    assert f"{path}:" in result.stderr and "error: " in result.stderr
    assert "[nki-print]" in result.stderr
    assert INJECTED not in result.stdout and "def " not in result.stdout


@pytest.mark.parametrize("api", APIS)
def test_an_attribute_of_the_wrong_kind_is_blamed_on_its_op(api):
    golden = pathlib.Path(__file__).parents[3] / "filecheck/backends/trn/printers/nki.mlir"
    module = parse(golden.read_text().split("// -----")[1])  # nki_add_2: sliced columns
    view = next(o for o in module.walk() if o.name == "tirx.slice")
    view.properties["static_offsets"] = StringAttr(INJECTED)
    with pytest.raises(PrintError, match="tirx.slice does not satisfy its own definition") \
            as info:
        emit_nki(module, api)
    assert info.value.op is view


# ---- any string, set in Python on a verified module ----
STRING_PROPERTIES = {
    "nki.tensor_scalar": ("op0", kernel(tensor_scalar('"add"'))),
    "nki.activation": ("func", kernel(
        f'  nki.activation %b, %a func exp : {SBUF}, {SBUF}')),
    "nki.tensor_copy": ("engine", kernel(f"  nki.tensor_copy %b, %a engine vector : {SBUF}, "
                                         f"{SBUF}")),
}


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(sorted(STRING_PROPERTIES)),
       st.one_of(st.text(min_size=1, max_size=40),
                 st.sampled_from(["add", "exp", "vector", "gpsimd", "__import__"])),
       st.sampled_from(APIS))
def test_any_string_property_prints_only_from_its_table(op_name, text, api):
    prop, source = STRING_PROPERTIES[op_name]
    module = parse(source)
    op = next(o for o in module.walk() if o.name == op_name)
    op.properties[prop] = StringAttr(text)
    try:
        printed = emit_nki(module, api)
    except PrintError as err:
        assert err.op is op
        return
    assert text.isidentifier(), f"{text!r} was printed"
    ast.parse(printed)
