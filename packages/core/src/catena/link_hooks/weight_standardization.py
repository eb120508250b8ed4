"""``WeightStandardization``: standardizes a link's weight per output channel."""

from __future__ import annotations

import numbers
from typing import Any

from catena import variable
from catena.functions.math.average import average
from catena.functions.math.sqrt import sqrt
from catena.link_hooks import _weight_hook


class WeightStandardization(_weight_hook.WeightReplacingHook):
    """Standardizes a link's weight to zero mean and unit variance per output channel.

    While the hooked link runs forward, its weight ``W`` is replaced by
    ``(W - mean) / sqrt(var + eps)``, where the mean and the (biased)
    variance are taken for each output channel over all the other axes. The
    computation is differentiable, so gradients reach the original ``W``.

    The output-channel axis is 1 for
    :class:`~catena.links.Deconvolution2D` and
    :class:`~catena.links.DeconvolutionND`, 0 for other links. The hook
    applies to one link at a time and cannot be used as a ``with`` block.

    Args:
        eps: Added to the variance before its square root.
        weight_name: The attribute name of the weight to standardize.
        name: The name of the hook (default ``'WeightStandardization'``).

    .. admonition:: Example

        >>> conv = L.Convolution2D(3, 8, 3).add_hook(
        ...     catena.link_hooks.WeightStandardization())
        >>> conv(np.ones((1, 3, 5, 5), np.float32)).shape
        (1, 8, 3, 3)
    """

    name = 'WeightStandardization'

    def __init__(self, eps: float = 1e-5, weight_name: str = 'W',
                 name: str | None = None) -> None:
        if isinstance(eps, bool) or not isinstance(eps, numbers.Real) or eps < 0:
            raise ValueError(f'eps must be a non-negative number; got {eps!r}')
        super().__init__(weight_name, name)
        self.eps: float = float(eps)

    def _replacement(self, link: Any, weight: variable.Parameter) -> variable.Variable:
        return self.standardize(weight, _weight_hook.output_axis(link))

    def standardize(self, weight: Any, axis: int = 0) -> variable.Variable:
        """Returns ``weight`` standardized for each index along ``axis``.

        Args:
            weight: A Variable (or Parameter) with at least two axes.
            axis: The output-channel axis.

        Returns:
            Variable: The standardized weight, of the same shape.
        """
        reduced = tuple(i for i in range(weight.ndim) if i != axis)
        if not reduced:
            raise ValueError(f'{self.name}: the weight needs at least two axes to be '
                             f'standardized per output channel; got shape {weight.shape}')
        centered = weight - average(weight, axis=reduced, keepdims=True)
        variance = average(centered * centered, axis=reduced, keepdims=True)
        return centered / sqrt(variance + self.eps)


__all__ = ['WeightStandardization']
