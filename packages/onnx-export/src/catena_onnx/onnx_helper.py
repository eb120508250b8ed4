"""Helpers for converters written in onnx-chainer's style (they return NodeProtos).

While the exporter runs a converter it sets the name of the function being
converted (``LinearFunction_0``, ``ReLU_1``, ...); :func:`make_node` and
:class:`GraphBuilder` name the nodes they create after it.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from typing import Any

_func_name: str | None = None


def set_func_name(func_name: str | None) -> None:
    """Sets the name of the function being converted.

    Args:
        func_name: The name (``Label_N``), or None once conversion ends.
    """
    global _func_name
    _func_name = func_name


def get_func_name() -> str:
    """Returns the name of the function being converted.

    Raises:
        RuntimeError: When no conversion is running.
    """
    if _func_name is None:
        raise RuntimeError('onnx_helper names nodes after the function being converted, '
                           'so it can only be used inside a converter')
    return _func_name


@contextlib.contextmanager
def converting(func_name: str) -> Iterator[None]:
    """Sets the function name for the duration of one converter call."""
    previous = _func_name
    set_func_name(func_name)
    try:
        yield
    finally:
        set_func_name(previous)


def make_node(op_type: str, inputs: Sequence[str], outputs: Sequence[str],
              **kwargs: Any) -> Any:
    """Makes an ``onnx.NodeProto`` named after the function being converted.

    Args:
        op_type: The ONNX operator.
        inputs: The input value names.
        outputs: The output value names.
        kwargs: The node's attributes, and ``domain`` / ``doc_string``.

    Returns:
        The NodeProto.
    """
    from onnx import helper

    return helper.make_node(op_type, list(inputs), list(outputs), name=get_func_name(), **kwargs)


class GraphBuilder:
    """Builds a chain of ONNX nodes for one converter.

    The nodes' names (and the default names of their outputs) are
    ``<function name>_tmp_<n>``.
    """

    def __init__(self) -> None:
        self._nodes: list[Any] = []
        self._func_name = get_func_name()

    def node_name(self) -> str:
        """The name the next node gets."""
        return f'{self._func_name}_tmp_{len(self._nodes)}'

    def op(self, op_type: str, input_names: Sequence[str], num_outputs: int = 1,
           **kwargs: Any) -> str | tuple[str, ...]:
        """Appends a node with fresh output names.

        Args:
            op_type: The ONNX operator.
            input_names: The input value names.
            num_outputs: How many outputs the node has.
            kwargs: The node's attributes.

        Returns:
            The output name, or a tuple of them when there are several.
        """
        base = self.node_name()
        names = [base] if num_outputs == 1 else [f'{base}_{i}' for i in range(num_outputs)]
        return self.op_output_named(op_type, input_names, names, **kwargs)

    def op_output_named(self, op_type: str, input_names: Sequence[str],
                        output_names: Sequence[str], **kwargs: Any) -> str | tuple[str, ...]:
        """Appends a node whose outputs have the given names.

        Args:
            op_type: The ONNX operator.
            input_names: The input value names (a list, not one string).
            output_names: The output value names.
            kwargs: The node's attributes.

        Returns:
            The output name, or a tuple of them when there are several.
        """
        from onnx import helper

        if isinstance(input_names, str):
            raise TypeError(f'input_names must be a sequence of names, not the string '
                            f'{input_names!r}')
        node = helper.make_node(op_type, list(input_names), list(output_names),
                                name=self.node_name(), **kwargs)
        self._nodes.append(node)
        return node.output[0] if len(node.output) == 1 else tuple(node.output)

    def nodes(self, output_names: Sequence[str] | None = None) -> tuple[Any, ...]:
        """Returns the nodes built so far (a converter's return value).

        Args:
            output_names: New names for the last node's outputs.
        """
        if output_names is not None:
            last = self._nodes[-1]
            if len(last.output) != len(output_names):
                raise ValueError(f'the last node has {len(last.output)} outputs, '
                                 f'got {len(output_names)} names')
            last.output[:] = list(output_names)
        return tuple(self._nodes)


def write_tensor_pb(filename: str | os.PathLike[str], name: str, value: Any) -> None:
    """Writes ``value`` as an ONNX TensorProto file named ``name``."""
    from onnx import numpy_helper

    with open(filename, 'wb') as f:
        f.write(numpy_helper.from_array(value, name).SerializeToString())


def cleanse_param_name(name: str) -> str:
    """Returns the ONNX name of a parameter path (``/l1/W`` -> ``param_l1_W``)."""
    return 'param' + name.replace('/', '_')


def is_support_non_standard_domain() -> bool:
    """Whether the installed onnx skips schema checks of non-standard domains (always,
    since catena-onnx requires onnx 1.15 or newer)."""
    return True
