"""``Tx.nki``: build nki ops from Python, at the current insertion point of the front end.

    from tirx_mlir import script as Tx

    with Tx.kernel("add1", inputs={"A": Tx.buffer((128, 512))},
                   outputs={"B": Tx.buffer((128, 512))}, target="aws/trn1/trn1.2xlarge") as k:
        A, B = k.args
        a = Tx.alloc((128, 512), scope="trn.sbuf")
        Tx.nki.load(a, A)
        Tx.nki.tensor_scalar(a, a, 1.0, op0="add")
        with Tx.range(0, 4) as kk:
            Tx.nki.matmul(acc, w[:, kk, :], x[:, kk, :], accumulate_if=Tx.nki.nonzero(kk))
        Tx.nki.store(B, a)

One function per nki op, named after it: operands positionally in the op's order (the
destination first), optional operands and properties as keywords (``bias=``, ``scale=``,
``operand1=``, ``op0="subtract"``, ``reverse0=True``, ``axes=[-1]``, ``pattern=[[1, 512]]``).
Operands are front-end buffers/views, index values, SSA values or Python numbers (a float
becomes an f32 constant; an int becomes an i32 constant where the op wants an integer, else
f32). ``accumulate_if=True`` is the static ``accumulate`` flag. Each op is verified as it is
built, so a hardware-limit error points at the Python line that made it.

Importing this module imports neither xDSL nor numpy (start-up time): the builders are made on
first use.
"""

from __future__ import annotations

from typing import Any, Callable


class NkiNamespace:
    """The ``nki`` script namespace (registered by the trn backend as ``Tx.nki``)."""

    def __init__(self) -> None:
        self._builders: dict[str, Callable[..., Any]] | None = None

    def _table(self) -> dict[str, Callable[..., Any]]:
        if self._builders is None:
            from tirx_mlir.backends.trn.dialects.nki import NKI_OPS

            self._builders = {op.name.split(".", 1)[1]: _op_builder(op) for op in NKI_OPS}
        return self._builders

    def __getattr__(self, name: str) -> Callable[..., Any]:
        if name.startswith("_"):
            raise AttributeError(name)
        from tirx_mlir.script.namespace import lookup  # the close names, at the user's line

        return lookup("nki", self._table(), name)

    def __dir__(self) -> list[str]:
        return sorted([*self._table(), "nonzero"])

    @staticmethod
    def nonzero(index: Any) -> Any:
        """An i1 that holds when ``index != 0``: ``accumulate_if=Tx.nki.nonzero(k)`` makes the
        first step of a K loop from 0 overwrite and the later ones accumulate."""
        from xdsl.dialects import arith

        from tirx_mlir.dialects.tirx.access import const_index
        from tirx_mlir.script.builder import Index

        value = Index.wrap(index) if isinstance(index, (Index, int)) else index
        return arith.CmpiOp(value, const_index(None, 0), "ne").result


def _op_builder(op_cls: type) -> Callable[..., Any]:
    from xdsl.utils.exceptions import VerifyException

    from tirx_mlir.script.builder import ScriptError, bind_arguments

    names = [n for n, _ in op_cls.get_irdl_definition().operands]
    short = op_cls.name.split(".", 1)[1]

    def build(*args: Any, **kwargs: Any) -> Any:
        accumulate = kwargs.get("accumulate_if")
        if isinstance(accumulate, bool):  # a Python bool is the static accumulate flag
            kwargs.pop("accumulate_if")
            kwargs["accumulate"] = accumulate
        values, props = bind_arguments(op_cls, args, kwargs, f"Tx.nki.{short}")
        wants_int = _integer_scalars(op_cls, values, props)
        operands = [_operand(values[n], n in wants_int) if n in values else None for n in names]
        op = op_cls(*operands, **props)
        try:
            op.verify_()  # the hardware rules (the block is still being built)
        except VerifyException as err:
            raise ScriptError(f"Tx.nki.{short}: {err}") from None
        return op

    build.__name__ = short
    build.__doc__ = op_cls.__doc__
    return build


def _integer_scalars(op_cls: type, values: dict[str, Any], props: dict[str, Any]) -> set[str]:
    """Operands whose Python ints become i32 (not f32) constants: the fill value of an integer
    tile and the operands of bit-vector operators."""
    from tirx_mlir.backends.trn.dialects.nki import tables
    from tirx_mlir.dialects.tirx import dtypes
    from tirx_mlir.dialects.tirx.attributes import BufferType

    dst = getattr(values.get("dst"), "value", values.get("dst"))
    dst_int = isinstance(getattr(dst, "type", None), BufferType) and \
        dtypes.is_integer(dst.type.element_type)
    bitvec = any(tables.ALU_OPS.get(props.get(k)) is not None and
                 tables.ALU_OPS[props[k]].kind == tables.BITVEC for k in ("op0", "op1"))
    if op_cls.name == "nki.memset" and dst_int:
        return {"value"}
    if op_cls.name == "nki.select" and dst_int:
        return {"on_false"}
    return {"operand0", "operand1"} if bitvec else set()


def _operand(value: Any, integer: bool) -> Any:
    from xdsl.dialects import arith
    from xdsl.dialects.builtin import IntegerAttr, i32

    from tirx_mlir.script.builder import operand

    if integer and isinstance(value, int) and not isinstance(value, bool):
        return arith.ConstantOp(IntegerAttr(value, i32)).result
    return operand(value)


NKI = NkiNamespace()
"""The namespace object ``register_backend`` publishes as ``Tx.nki``."""
