"""``r2_score``: the coefficient of determination of a regression."""

from __future__ import annotations

from typing import Any

import numpy

from catena import backend
from catena.function_node import FunctionNode
from catena.utils import type_check
from catena.variable import Variable, as_array

_MULTIOUTPUTS = ('uniform_average', 'raw_values')


class R2_score(FunctionNode):  # noqa: N801 - Chainer's name
    """The :math:`R^2` score (not differentiable)."""

    def __init__(self, sample_weight: Any, multioutput: str) -> None:
        if multioutput not in _MULTIOUTPUTS:
            raise ValueError(f"r2_score: multioutput must be 'uniform_average' or "
                             f"'raw_values'; got {multioutput!r}")
        self.weighted = sample_weight is not None
        self.multioutput = multioutput

    def check_type_forward(self, in_types: Any) -> None:
        names = ('pred', 'true', 'sample_weight') if self.weighted else ('pred', 'true')
        type_check._argname(in_types, names)
        pred_type, true_type = in_types[0], in_types[1]
        type_check.expect(
            pred_type.dtype.kind == 'f',
            true_type.dtype.kind == 'f',
            pred_type.shape == true_type.shape,
            pred_type.ndim >= 1,
        )
        if self.weighted:
            weight_type = in_types[2]
            type_check.expect(
                weight_type.dtype.kind == 'f',
                weight_type.ndim == 1,
                weight_type.shape[0] == pred_type.shape[0],
            )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        pred, true = inputs[0], inputs[1]
        xp = backend.get_array_module(pred)
        # Sums of squares in at least float32 (float16 would overflow or round badly).
        compute = numpy.promote_types(pred.dtype, numpy.float32)
        pred = pred.astype(compute, copy=False)
        true = true.astype(compute, copy=False)
        if self.weighted:
            weight = inputs[2].astype(compute, copy=False).reshape(
                (-1,) + (1,) * (true.ndim - 1))
            mean = (weight * true).sum(axis=0) / weight.sum()
            residual = (weight * (pred - true) ** 2).sum(axis=0)
            total = (weight * (true - mean) ** 2).sum(axis=0)
        else:
            residual = ((pred - true) ** 2).sum(axis=0)
            total = ((true - true.mean(axis=0)) ** 2).sum(axis=0)
        constant = total == 0
        # A constant target scores 0 (the ratio would divide by zero).
        score = xp.where(constant, 0.0, 1.0 - residual / xp.where(constant, 1.0, total))
        score = xp.asarray(score, dtype=inputs[0].dtype)
        if self.multioutput == 'uniform_average':
            return xp.asarray(score.mean(), dtype=score.dtype),
        return score,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return (None,) * len(indexes)


def r2_score(pred: Any, true: Any, sample_weight: Any = None,
             multioutput: str = 'uniform_average') -> Variable:
    """The :math:`R^2` (coefficient of determination) of a regression.

    .. math::
        R^2 = 1 - \\frac{\\sum_i w_i (\\hat y_i - y_i)^2}{\\sum_i w_i (y_i - \\bar y)^2}

    computed over axis 0 (the samples) for each output, with :math:`\\bar y`
    the (weighted) mean of the targets. 1 is a perfect fit, 0 is as good as
    predicting the mean, and it is negative for worse fits. An output whose
    target is constant scores 0. The result takes no gradient.

    Args:
        pred: A Variable or array of floating point type, shape ``(N, ...)``:
            the predictions.
        true: An array of the shape of ``pred``: the targets.
        sample_weight: None (all samples weigh 1), or a floating point array
            of shape ``(N,)``: the weights :math:`w_i` of the samples.
        multioutput: ``'uniform_average'`` averages the scores of the
            outputs into a scalar; ``'raw_values'`` returns one per output
            (of the shape of ``pred`` without axis 0).

    Returns:
        Variable: The score, of the dtype of ``pred``.

    .. admonition:: Example

        >>> true = np.array([1.0, 2.0, 3.0, 4.0], dtype=np.float32)
        >>> F.r2_score(np.array([1.0, 2.0, 3.0, 5.0], dtype=np.float32), true).array
        array(0.8, dtype=float32)
    """
    func = R2_score(sample_weight, multioutput)
    if sample_weight is None:
        return func.apply((as_array(pred), as_array(true)))[0]
    return func.apply((as_array(pred), as_array(true), as_array(sample_weight)))[0]
