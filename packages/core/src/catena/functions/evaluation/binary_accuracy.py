"""``binary_accuracy``: the accuracy of binary predictions from raw scores."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.utils import type_check
from catena.variable import Variable, as_array


class BinaryAccuracy(FunctionNode):
    """Binary accuracy (not differentiable); labels of -1 are ignored."""

    ignore_label = -1

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('y', 't'))
        y_type, t_type = in_types
        type_check.expect(
            y_type.dtype.kind == 'f',
            t_type.dtype.kind == 'i',
            t_type.shape == y_type.shape,
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        y, t = inputs
        xp = backend.get_array_module(y)
        if t.size and bool(((t != 0) & (t != 1) & (t != self.ignore_label)).any()):
            raise ValueError(f'binary_accuracy: the labels t (shape {t.shape}, dtype {t.dtype}) '
                             f'must be 0, 1 or -1 (ignored); got values from {int(t.min())} '
                             f'to {int(t.max())}')
        correct = (y >= 0) == t
        valid = (t != self.ignore_label).sum()
        return xp.asarray(correct.sum() / xp.maximum(valid, 1), dtype=y.dtype),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return (None,) * len(indexes)


def binary_accuracy(y: Any, t: Any) -> Variable:
    """The accuracy of binary classification from raw scores.

    A sample is predicted positive where its score ``y`` is at least 0 (the
    logit of a probability of at least one half). Labels of -1 are ignored:
    they count neither as right nor as wrong. The result does not take a
    gradient.

    Args:
        y: A Variable or array of floating point type: the scores.
        t: An array of integer type of the shape of ``y``: the labels, 0, 1
            or -1 (ignored).

    Returns:
        Variable: A scalar of the dtype of ``y``; 0 if all labels are ignored.

    .. admonition:: Example

        >>> y = np.array([[-1.0, 2.0], [0.5, -0.3]], dtype=np.float32)
        >>> F.binary_accuracy(y, np.array([[0, 1], [0, -1]], dtype=np.int32)).array
        array(0.6666667, dtype=float32)
    """
    return BinaryAccuracy().apply((as_array(y), as_array(t)))[0]
