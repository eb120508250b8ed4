"""``layer_normalization``: normalization over the units of each sample."""

from __future__ import annotations

from typing import Any

from catena.functions.normalization.group_normalization import _PerSampleNormalization
from catena.utils import type_check
from catena.variable import Variable


class LayerNormalization(_PerSampleNormalization):
    """Layer normalization (see :func:`layer_normalization`)."""

    function = 'layer_normalization'

    def __init__(self, eps: float = 1e-5) -> None:
        super().__init__(eps)

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('x', 'gamma', 'beta'))
        x_type, gamma_type, beta_type = in_types
        type_check.expect(
            x_type.dtype.kind == 'f',
            x_type.ndim == 2,
            gamma_type.ndim == 1,
            gamma_type.dtype == x_type.dtype,
            beta_type.dtype == x_type.dtype,
            x_type.shape[1] == gamma_type.shape[0],
            gamma_type.shape == beta_type.shape,
        )


def layer_normalization(x: Any, gamma: Any, beta: Any, eps: float = 1e-5) -> Variable:
    """Layer normalization.

    Each row of ``x`` (shape ``(batch_size, units)``, e.g. the output of
    :func:`~catena.functions.linear`) is normalized by its own mean and
    (biased) variance over the units, then scaled by ``gamma`` and shifted
    by ``beta`` unit by unit.

    Args:
        x: A batch of vectors, of shape ``(batch_size, units)``.
        gamma: The scale, of shape ``(units,)`` and x's dtype.
        beta: The shift, of shape ``(units,)`` and x's dtype.
        eps: Added to the variance.

    Returns:
        Variable: The output, of x's shape and dtype.

    .. admonition:: Example

        >>> x = np.array([[1., 3.], [0., 10.]], dtype=np.float32)
        >>> one, zero = np.ones(2, np.float32), np.zeros(2, np.float32)
        >>> F.layer_normalization(x, one, zero, eps=0).array
        array([[-1.,  1.],
               [-1.,  1.]], dtype=float32)

    See: `Layer Normalization <https://arxiv.org/abs/1607.06450>`_
    """
    return LayerNormalization(eps).apply((x, gamma, beta))[0]
