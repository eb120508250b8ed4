"""``sigmoid_cross_entropy``: the cross entropy of sigmoids and binary labels."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.activation.sigmoid import sigmoid
from catena.functions.loss import _argcheck
from catena.functions.math.sum import sum as _sum
from catena.utils import force_array, type_check
from catena.variable import Variable


class SigmoidCrossEntropy(FunctionNode):
    """Sigmoid cross entropy of scores ``x`` and labels ``t`` (0, 1 or ignore_label)."""

    ignore_label = -1

    def __init__(self, normalize: bool = True, reduce: str = 'mean') -> None:
        self.normalize = normalize
        self.reduce = reduce

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x', 't'))
        x_type, t_type = in_types
        _argcheck.expect_float('x', x_type)
        _argcheck.expect_labels('x', x_type, 't', t_type, _argcheck.shape_of(x_type),
                                'x.shape')

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        x, t = inputs
        xp = backend.get_array_module(x)
        dtype = x.dtype
        _argcheck.check_label_range('sigmoid_cross_entropy', t, 0, 2, x.shape,
                                    self.ignore_label)
        valid = t != self.ignore_label
        mask = None if bool(valid.all()) else valid.astype(dtype)
        target = t.astype(dtype)
        if mask is not None:
            target *= mask  # ignored labels become 0
        # softplus(x) - x * t, with softplus(x) = max(x, 0) + log1p(exp(-|x|))
        loss = xp.log1p(xp.exp(-abs(x)))
        loss += xp.maximum(x, dtype.type(0))
        loss -= x * target
        if mask is not None:
            loss *= mask
        self._target = target
        self._mask = mask
        if self.reduce == 'no':
            self._coeff = dtype.type(1)
            return force_array(loss),
        count = (int(valid.sum()) if mask is not None else t.size) if self.normalize \
            else x.shape[0]
        self._coeff = dtype.type(1.0 / max(count, 1))
        return force_array(loss.sum() * self._coeff, dtype),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, = self.get_retained_inputs()
        grad = SigmoidCrossEntropyGrad(self._target, self._mask, self._coeff,
                                       self.reduce == 'mean')
        return grad.apply((x, grad_outputs[0]))[0], None


class SigmoidCrossEntropyGrad(FunctionNode):
    """``gx = gy * coeff * mask * (sigmoid(x) - t)``."""

    def __init__(self, target: Any, mask: Any, coeff: Any, mean: bool) -> None:
        self.target = target
        self.mask = mask
        self.coeff = coeff
        self.mean = mean

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, gy = inputs
        xp = backend.get_array_module(x)
        half = x.dtype.type(0.5)
        gx = xp.tanh(x * half)  # sigmoid(x) = (tanh(x / 2) + 1) / 2, without overflow
        gx *= half
        gx += half
        if self.mask is not None:
            gx *= self.mask
        gx -= self.target
        gx *= gy * self.coeff
        return gx,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, gy = self.get_retained_inputs()
        ggx, = grad_outputs
        y = sigmoid(x)
        mask = self.mask
        ret: list[Any] = []
        for i in indexes:
            if i == 0:
                g = ggx * (gy * self.coeff) * (y * (1.0 - y))
                ret.append(g if mask is None else g * mask)
            else:
                residual = y - self.target if mask is None else y * mask - self.target
                g = ggx * residual * self.coeff
                ret.append(_sum(g) if self.mean else g)
        return tuple(ret)


def sigmoid_cross_entropy(x: Any, t: Any, normalize: bool = True,
                          reduce: str = 'mean') -> Variable:
    """The cross entropy between ``sigmoid(x)`` and binary labels ``t``.

    The loss of an element is :math:`-t \\log \\sigma(x) - (1 - t) \\log(1 -
    \\sigma(x))`, computed as :math:`\\log(1 + e^x) - t x` without overflow.
    Elements labelled ``-1`` are ignored (their loss is zero).

    Args:
        x: Scores of floating point type.
        t: Integer labels of ``x``'s shape: 0, 1 or -1 (ignore).
        normalize: With ``reduce='mean'``, divide the summed loss by the
            number of labels that are not ignored (True) or by the batch size
            ``x.shape[0]`` (False).
        reduce: ``'mean'`` for a scalar, ``'no'`` for the loss of every element.

    Returns:
        Variable: The loss.

    Raises:
        ValueError: If ``reduce`` is unknown or a label is not 0, 1 or -1.

    .. admonition:: Example

        >>> x = np.array([[0.0, 2.0], [-1.0, 1.0]], dtype=np.float32)
        >>> t = np.array([[0, 1], [-1, 1]], dtype=np.int32)
        >>> F.sigmoid_cross_entropy(x, t, reduce='no').array.round(4)
        array([[0.6931, 0.1269],
               [0.    , 0.3133]], dtype=float32)
    """
    _argcheck.check_reduce('sigmoid_cross_entropy', reduce, _argcheck.REDUCE_MEAN_NO)
    return SigmoidCrossEntropy(normalize, reduce).apply((x, t))[0]
