"""``huber_loss``: squared error near zero, absolute error beyond ``delta``."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.array.broadcast import broadcast_to
from catena.functions.array.expand_dims import expand_dims
from catena.functions.loss import _argcheck
from catena.functions.math.clip import clip
from catena.utils import force_array, type_check
from catena.variable import Variable

_REDUCES = ('sum_along_second_axis', 'no')


class HuberLoss(FunctionNode):
    """Element-wise Huber loss of ``x - t``, optionally summed along axis 1."""

    def __init__(self, delta: float, reduce: str = 'sum_along_second_axis') -> None:
        self.delta = delta
        self.reduce = reduce

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x', 't'))
        _argcheck.expect_same(('x', 't'), in_types)
        if self.reduce == 'sum_along_second_axis' and len(_argcheck.shape_of(in_types[0])) < 2:
            raise type_check.InvalidType(
                "x.ndim >= 2 (reduce='sum_along_second_axis' sums over axis 1)",
                f'x.shape={_argcheck.shape_of(in_types[0])}')

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, t = inputs
        xp = backend.get_array_module(x)
        dtype = x.dtype
        delta = dtype.type(self.delta)
        # with c = min(|d|, delta): c * (|d| - c / 2) is d^2 / 2 inside, delta (|d| - delta / 2)
        # outside
        ad = force_array(x - t)
        xp.abs(ad, out=ad)
        c = xp.minimum(ad, delta)
        ad -= c * dtype.type(0.5)
        ad *= c
        if self.reduce == 'sum_along_second_axis':
            return force_array(ad.sum(axis=1)),
        return ad,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, t = self.get_retained_inputs()
        gy, = grad_outputs
        if self.reduce == 'sum_along_second_axis':
            gy = broadcast_to(expand_dims(gy, 1), x.shape)
        gx = gy * clip(x - t, -self.delta, self.delta)
        return tuple(gx if i == 0 else -gx for i in indexes)


def huber_loss(x: Any, t: Any, delta: float,
               reduce: str = 'sum_along_second_axis') -> Variable:
    """Huber loss: :math:`\\frac{1}{2} d^2` where :math:`|d| \\le \\delta`, else
    :math:`\\delta (|d| - \\frac{1}{2} \\delta)`, with :math:`d = x - t`.

    Args:
        x: A Variable or array of floating point type.
        t: A Variable or array of the shape and dtype of ``x``.
        delta: The threshold between the quadratic and the linear parts.
        reduce: ``'sum_along_second_axis'`` sums the loss over axis 1;
            ``'no'`` returns the loss of every element.

    Returns:
        Variable: The loss: ``x``'s shape without axis 1, or ``x``'s shape.

    Raises:
        ValueError: If ``reduce`` is unknown.

    .. admonition:: Example

        >>> x = np.array([[0.5, 3.0]], dtype=np.float32)
        >>> F.huber_loss(x, np.zeros_like(x), delta=1.0, reduce='no').array
        array([[0.125, 2.5  ]], dtype=float32)
        >>> F.huber_loss(x, np.zeros_like(x), delta=1.0).array
        array([2.625], dtype=float32)
    """
    _argcheck.check_reduce('huber_loss', reduce, _REDUCES)
    return HuberLoss(delta, reduce).apply((x, t))[0]
