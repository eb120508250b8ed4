"""``identity``: returns its inputs as new variables in the graph."""

from __future__ import annotations

from typing import Any

from catena.function_node import FunctionNode
from catena.variable import Variable


class Identity(FunctionNode):
    """Passes every input through unchanged; gradients pass back unchanged."""

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return inputs

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return tuple([grad_outputs[i] for i in indexes])


def identity(*inputs: Any) -> Variable | tuple[Variable, ...]:
    """Just returns the input variables.

    The outputs share the input arrays, but are new variables created by an
    :class:`Identity` node, so gradients flow back through them unchanged.

    Args:
        inputs: Variables or arrays, of any dtype.

    Returns:
        Variable or tuple: The output variable when there is one input, else
        a tuple of them.

    .. admonition:: Example

        >>> x = np.array([1.0, 2.0], dtype=np.float32)
        >>> F.identity(x).array
        array([1., 2.], dtype=float32)
        >>> len(F.identity(x, x))
        2
    """
    outputs = Identity().apply(inputs)
    return outputs[0] if len(outputs) == 1 else outputs
