"""``dropout``: zero random elements in training and rescale the others."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.configuration import config
from catena.function_node import FunctionNode
from catena.functions import _arguments
from catena.functions.noise._ratio import check_ratio
from catena.utils import force_array, type_check
from catena.variable import Variable, as_array, as_variable


class Dropout(FunctionNode):
    """Multiplies ``x`` by a mask of zeros and ``1 / (1 - ratio)``.

    Args:
        dropout_ratio: The probability of zeroing an element.
        mask: A scaled mask to use instead of a random one (its values are 0
            and the scale), or None.
    """

    def __init__(self, dropout_ratio: float, mask: Any = None) -> None:
        check_ratio(dropout_ratio, 'dropout')
        self.dropout_ratio = dropout_ratio
        self.mask = None if mask is None else as_array(mask)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x',))
        type_check.expect(in_types[0].dtype.kind == 'f')

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        x, = inputs
        mask = self.mask
        if mask is None:
            xp = backend.get_array_module(x)
            keep = force_array(xp.random.random_sample(x.shape) >= self.dropout_ratio)
            mask = keep.astype(x.dtype)
            mask *= x.dtype.type(1.0 / (1.0 - self.dropout_ratio))
            self.mask = mask
        else:
            if _arguments.array('dropout', 'mask', mask).shape != x.shape:
                raise ValueError(f'dropout: mask must have the shape of x {x.shape}; '
                                 f'got {mask.shape}')
            if mask.dtype != x.dtype:
                mask = self.mask = mask.astype(x.dtype)
        return force_array(x * mask),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return DropoutGrad(self.mask).apply(grad_outputs)


class DropoutGrad(FunctionNode):
    """The gradient of dropout: the output gradient times the same mask."""

    def __init__(self, mask: Any) -> None:
        self.mask = mask

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        return force_array(inputs[0] * self.mask),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        return DropoutGrad(self.mask).apply(grad_outputs)


def dropout(x: Any, ratio: float = .5, *, mask: Any = None,
            return_mask: bool = False) -> Variable | tuple[Variable, Any]:
    """Drops elements of ``x`` at random in training mode.

    Each element is zeroed with probability ``ratio`` and the others are
    multiplied by :math:`1 / (1 - \\mathrm{ratio})`, so that the expected
    value is unchanged. The random draws come from the array module of ``x``
    (``numpy.random`` on the CPU), so seeding it makes them reproducible.
    Outside training (``catena.config.train`` False) ``x`` is returned as it is.

    Args:
        x: A Variable or array of floating point type.
        ratio: The dropout ratio, in :math:`[0, 1)`.
        mask: The scaled mask to use instead of a random one: an array of the
            shape of ``x`` holding 0 where an element is dropped and
            :math:`1 / (1 - \\mathrm{ratio})` where it is kept (``ratio`` is
            then not used to draw anything). A mask returned with
            ``return_mask`` can be passed here.
        return_mask: Also return the mask used (None outside training).

    Returns:
        Variable or tuple: The output, and the mask with ``return_mask``.

    Raises:
        ValueError: If ``ratio`` is not in :math:`[0, 1)` or ``mask`` does
            not have the shape of ``x``.

    .. admonition:: Example

        >>> np.random.seed(0)
        >>> x = np.ones((2, 3), dtype=np.float32)
        >>> F.dropout(x, ratio=0.5).array
        array([[2., 2., 2.],
               [2., 0., 2.]], dtype=float32)
        >>> with catena.using_config('train', False):
        ...     F.dropout(x).array
        array([[1., 1., 1.],
               [1., 1., 1.]], dtype=float32)
    """
    check_ratio(ratio, 'dropout')
    if config.train:
        func = Dropout(ratio, mask)
        y, = func.apply((x,))
        used_mask = func.mask
    else:
        y = as_variable(x)
        used_mask = None
    if return_mask:
        return y, used_mask
    return y
