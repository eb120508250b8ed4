"""``accuracy``: the fraction of samples whose highest score is at the true label."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.evaluation import _labels
from catena.variable import Variable, as_array


class Accuracy(FunctionNode):
    """Multiclass accuracy (not differentiable)."""

    def __init__(self, ignore_label: int | None = None) -> None:
        if ignore_label is not None and not isinstance(ignore_label, int):
            raise TypeError(f'accuracy: ignore_label must be None or an int; '
                            f'got {ignore_label!r}')
        self.ignore_label = ignore_label

    def check_type_forward(self, in_types: Any) -> None:
        _labels.check_scores_and_labels(in_types)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        y, t = inputs
        xp = backend.get_array_module(y)
        _labels.check_label_range('accuracy', t, y.shape[1], self.ignore_label,
                                  f'y has {y.shape[1]} classes on axis 1, shape {y.shape}')
        pred = y.argmax(axis=1).reshape(t.shape)
        correct = pred == t
        if self.ignore_label is None:
            return xp.asarray(correct.sum() / max(t.size, 1), dtype=y.dtype),
        valid = t != self.ignore_label
        correct &= valid
        # 0 when every label is ignored.
        return xp.asarray(correct.sum() / xp.maximum(valid.sum(), 1), dtype=y.dtype),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return (None,) * len(indexes)


def accuracy(y: Any, t: Any, ignore_label: int | None = None) -> Variable:
    """The classification accuracy of a minibatch.

    The prediction for each sample is the class of the highest score along
    axis 1 of ``y``; the accuracy is the fraction of samples whose
    prediction equals the label. Samples labelled ``ignore_label`` count
    neither as right nor as wrong (the accuracy is 0 if all are ignored).
    The result does not take a gradient.

    Args:
        y: A Variable or array of floating point type, shape ``(N, C)`` or
            ``(N, C, d_1, ..., d_k)``: the scores of the ``C`` classes.
        t: An array of integer type, shape ``(N,)`` or ``(N, d_1, ...,
            d_k)``: the labels in ``[0, C)``.
        ignore_label: A label value to skip, or None.

    Returns:
        Variable: A scalar of the dtype of ``y``.

    Raises:
        ValueError: A label is outside ``[0, C)`` (and is not ``ignore_label``).

    .. admonition:: Example

        >>> y = np.array([[0.1, 0.9], [0.8, 0.2], [0.3, 0.7]], dtype=np.float32)
        >>> F.accuracy(y, np.array([1, 1, -1], dtype=np.int32), ignore_label=-1).array
        array(0.5, dtype=float32)
    """
    return Accuracy(ignore_label).apply((as_array(y), as_array(t)))[0]
