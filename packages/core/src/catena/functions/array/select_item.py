"""``select_item``: pick one element per row by an index."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.utils import type_check
from catena.variable import Variable


class SelectItem(FunctionNode):
    """``y[i] = x[i, t[i]]`` for a 2-D ``x`` and 1-D integer ``t``."""

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x', 't'))
        x_type, t_type = in_types
        type_check.expect(
            t_type.dtype.kind == 'i',
            x_type.ndim == 2,
            t_type.ndim == 1,
            x_type.shape[0] == t_type.shape[0],
        )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((1,))
        x, t = inputs
        xp = backend.get_array_module(x)
        n = x.shape[1]
        if t.size and bool(((t < 0) | (t >= n)).any()):
            raise ValueError(f'select_item: t must hold labels in [0, {n}) (x.shape[1] is {n}); '
                             f'got values from {int(t.min())} to {int(t.max())}')
        self._in_shape = x.shape
        self._in_dtype = x.dtype
        return x[xp.arange(t.shape[0]), t],

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        t, = self.get_retained_inputs()
        gx = Assign(self._in_shape, self._in_dtype, t.array).apply(grad_outputs)[0]
        return gx, None


class Assign(FunctionNode):
    """The gradient of select_item: a zero array with ``gx[i, t[i]] = gy[i]``."""

    def __init__(self, shape: tuple[int, ...], dtype: Any, t: Any) -> None:
        self.shape = shape
        self.dtype = dtype
        self.t = t

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        gy, = inputs
        xp = backend.get_array_module(gy)
        gx = xp.zeros(self.shape, self.dtype)
        gx[xp.arange(self.t.shape[0]), self.t] = gy
        return gx,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return select_item(grad_outputs[0], self.t),


def select_item(x: Any, t: Any) -> Variable:
    """Selects one element from each row of ``x``: ``y[i] = x[i, t[i]]``.

    Args:
        x: A Variable or array of shape ``(B, N)``.
        t: A Variable or array of integer labels of shape ``(B,)``, each in
            ``[0, N)``.

    Returns:
        Variable: The selected elements, of shape ``(B,)``.

    .. admonition:: Example

        >>> x = np.array([[0, 1, 2], [3, 4, 5]], dtype=np.float32)
        >>> t = np.array([0, 2], dtype=np.int32)
        >>> F.select_item(x, t).array
        array([0., 5.], dtype=float32)
    """
    return SelectItem().apply((x, t))[0]
