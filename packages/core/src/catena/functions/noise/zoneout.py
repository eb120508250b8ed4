"""``zoneout``: keep random elements of the previous state of a recurrent network."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.configuration import config
from catena.function_node import FunctionNode
from catena.functions.noise._ratio import check_ratio
from catena.utils import force_array, type_check
from catena.variable import Variable, as_variable


class Zoneout(FunctionNode):
    """Picks each element from ``h`` with probability ``zoneout_ratio``, else from ``x``."""

    def __init__(self, zoneout_ratio: float) -> None:
        check_ratio(zoneout_ratio, 'zoneout', closed=True)
        self.zoneout_ratio = zoneout_ratio

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('h', 'x'))
        h_type, x_type = in_types
        type_check.expect(
            h_type.dtype.kind == 'f',
            h_type.dtype == x_type.dtype,
            h_type.shape == x_type.shape,
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        h, x = inputs
        xp = backend.get_array_module(x)
        # rand(*shape), as Chainer draws (the same stream as random_sample(shape)); for
        # a 0-d x it gives a Python float, hence asarray.
        self.flag_x = xp.asarray(xp.random.rand(*x.shape) >= self.zoneout_ratio)
        self.flag_h = ~self.flag_x
        return force_array(xp.where(self.flag_x, x, h)),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        gy, = grad_outputs
        return tuple(gy * (self.flag_h if index == 0 else self.flag_x) for index in indexes)


def zoneout(h: Any, x: Any, ratio: float = .5) -> Variable:
    """Zoneout: keeps elements of the previous state ``h`` at random.

    In training mode each element of the output is taken from ``h`` with
    probability ``ratio`` and from the new state ``x`` otherwise
    (`Krueger et al., 2016 <https://arxiv.org/abs/1606.01305>`_). Outside
    training (``catena.config.train`` False) ``x`` is returned. The draws come
    from the array module of ``x`` (``numpy.random`` on the CPU).

    Args:
        h: The previous state: a Variable or array of floating point type.
        x: The new state, of the shape and dtype of ``h``.
        ratio: The probability of keeping the previous state, in :math:`[0, 1]`.

    Returns:
        Variable: The mixed state.

    Raises:
        ValueError: If ``ratio`` is not in :math:`[0, 1]`.

    .. admonition:: Example

        >>> h = np.zeros(4, dtype=np.float32)
        >>> x = np.ones(4, dtype=np.float32)
        >>> F.zoneout(h, x, ratio=1.0).array
        array([0., 0., 0., 0.], dtype=float32)
    """
    check_ratio(ratio, 'zoneout', closed=True)
    if config.train:
        return Zoneout(ratio).apply((h, x))[0]
    return as_variable(x)
