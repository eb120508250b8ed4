"""The :class:`SimplifiedDropconnect` link."""

from __future__ import annotations

import math
from typing import Any

from catena import initializers
from catena.functions.noise.simplified_dropconnect import simplified_dropconnect
from catena.link import Link
from catena.links.connection import _util
from catena.parameter import Parameter
from catena.utils import _validate
from catena.variable import Variable


class SimplifiedDropconnect(Link):
    """Fully-connected layer with simplified DropConnect regularization.

    Each call drops weights at random with probability ``ratio`` (see
    :func:`~catena.functions.simplified_dropconnect`).

    Args:
        in_size: The input size, or None to infer it at the first call (the
            number of elements per example).
        out_size: The output size.
        ratio: The probability of dropping a weight.
        nobias: Whether the layer has no bias.
        initialW: The weight initializer (default:
            ``HeNormal(1 / sqrt(2))``).
        initial_bias: The bias initializer (default 0).

    Attributes:
        W: The weight :class:`~catena.Parameter`, ``(out_size, in_size)``.
        b: The bias :class:`~catena.Parameter`, or None.
        out_size: The output size.
        ratio: The drop ratio.
    """

    def __init__(self, in_size: int | None, out_size: int, ratio: float = .5,
                 nobias: bool = False, initialW: Any = None,  # noqa: N803
                 initial_bias: Any = None) -> None:
        super().__init__()
        who = 'SimplifiedDropconnect'
        in_size = _util.size_argument(who, 'in_size', in_size, optional=True)
        self.out_size = _util.size_argument(who, 'out_size', out_size)
        self.ratio = _validate.real(who, 'ratio', ratio, 0, 1, high_open=True)
        if initialW is None:
            initialW = initializers.HeNormal(1. / math.sqrt(2))
        with self.init_scope():
            self.W = Parameter(_util.get_initializer(initialW, who=who))
            if in_size is not None:
                self._initialize_params(in_size)
            if nobias:
                self.b = None
            else:
                if initial_bias is None:
                    initial_bias = initializers.Constant(0)
                _validate.broadcastable(who, 'initial_bias', initial_bias, (self.out_size,))
                self.b = Parameter(initial_bias, self.out_size)

    def _initialize_params(self, in_size: int) -> None:
        _util.initialize(type(self).__name__, 'initialW', self.W, (self.out_size, in_size))

    def forward(self, x: Any, train: bool = True, mask: Any = None,
                use_batchwise_mask: bool = True) -> Variable:
        """Applies the layer with randomly dropped weights.

        Args:
            x: The input, of shape ``(batch, ...)``.
            train: Drop weights (True) or use them all (False).
            mask: A fixed 0/1 mask, or None to draw one.
            use_batchwise_mask: Draw one mask per example (True) or one for
                the whole batch.

        Returns:
            Variable: The output, of shape ``(batch, out_size)``.
        """
        if self.W.array is None:
            _util.input_shape(type(self).__name__, x)
            self._initialize_params(x.size // len(x))
        return simplified_dropconnect(x, self.W, self.b, self.ratio, train, mask,
                                      use_batchwise_mask)
