"""``hinge``: the one-vs-all hinge loss of scores and labels."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.activation.relu import relu
from catena.functions.loss import _argcheck
from catena.utils import force_array, type_check
from catena.variable import Variable

_NORMS = ('L1', 'L2')


class Hinge(FunctionNode):
    """Hinge loss of ``x`` (N, K) with labels ``t`` (N,) in the one-vs-all setting."""

    def __init__(self, norm: str = 'L1', reduce: str = 'mean') -> None:
        self.norm = norm
        self.reduce = reduce

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x', 't'))
        x_type, t_type = in_types
        _argcheck.expect_float('x', x_type)
        _argcheck.expect_ndim('x', x_type, 2)
        _argcheck.expect_labels('x', x_type, 't', t_type, _argcheck.shape_of(x_type)[:1],
                                '(x.shape[0],)')

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0,))
        x, t = inputs
        xp = backend.get_array_module(x)
        dtype = x.dtype
        n = x.shape[0]
        _argcheck.check_label_range('hinge', t, 0, x.shape[1], x.shape)
        # sign is -1 at the label and +1 elsewhere; the margin is 1 + sign * x
        sign = xp.ones_like(x)
        sign[xp.arange(n), t] = -1
        self._sign = sign
        margin = x * sign
        margin += dtype.type(1)
        loss = xp.maximum(margin, dtype.type(0), out=margin)
        if self.norm == 'L2':
            loss *= loss
        if self.reduce == 'mean':
            return force_array(loss.sum() / dtype.type(max(n, 1)), dtype),
        return loss,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, = self.get_retained_inputs()
        gy, = grad_outputs
        if self.reduce == 'mean':
            gy = gy * (1.0 / max(x.shape[0], 1))
        sign = self._sign
        if self.norm == 'L1':
            active = (x.array * sign > -1).astype(x.dtype)  # margin > 0
            return gy * (sign * active), None
        return gy * (relu(x * sign + 1.0) * (2.0 * sign)), None


def hinge(x: Any, t: Any, norm: str = 'L1', reduce: str = 'mean') -> Variable:
    """One-vs-all hinge loss.

    With :math:`s_{nk} = -1` where :math:`k = t_n` and :math:`+1` elsewhere,
    the loss of an element is :math:`\\max(0, 1 + s_{nk} x_{nk})` (``'L1'``)
    or its square (``'L2'``).

    Args:
        x: Scores of floating point type, of shape ``(N, K)``.
        t: Integer labels of shape ``(N,)``, each in ``[0, K)``.
        norm: ``'L1'`` or ``'L2'``.
        reduce: ``'mean'`` for the sum divided by ``N``, ``'no'`` for the loss of
            every element (of ``x``'s shape).

    Returns:
        Variable: The loss.

    Raises:
        NotImplementedError: If ``norm`` is unknown (as in Chainer).
        ValueError: If ``reduce`` is unknown or a label is out of range.

    .. admonition:: Example

        >>> x = np.array([[2.0, -0.5], [0.5, 0.0]], dtype=np.float32)
        >>> t = np.array([0, 1], dtype=np.int32)
        >>> F.hinge(x, t, reduce='no').array
        array([[0. , 0.5],
               [1.5, 1. ]], dtype=float32)
    """
    if norm not in _NORMS:
        raise NotImplementedError(f"hinge: norm must be 'L1' or 'L2'; got {norm!r}")
    _argcheck.check_reduce('hinge', reduce, _argcheck.REDUCE_MEAN_NO)
    return Hinge(norm, reduce).apply((x, t))[0]
