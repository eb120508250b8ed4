"""The Highway link."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from catena import link, variable
from catena.functions.activation.relu import relu
from catena.functions.activation.sigmoid import sigmoid
from catena.links.connection import _util
from catena.links.connection.linear import Linear
from catena.utils import _validate


class Highway(link.Chain):
    """Highway module (`Srivastava et al., 2015 <https://arxiv.org/abs/1505.00387>`_):
    a gate ``t = sigmoid(W_t x + b_t)`` mixes a transform of the input with
    the input itself, ``y = activate(W_h x + b_h) * t + x * (1 - t)``.

    Args:
        in_out_size: The size of the input and of the output.
        nobias: If True, the ``plain`` link has no bias.
        activate: The activation of the plain path.
        init_Wh: The initializer of ``plain.W``; None means the Linear default.
        init_Wt: The initializer of ``transform.W``; None means the Linear
            default.
        init_bh: The initializer of ``plain.b``; None means zero.
        init_bt: The initializer of ``transform.b``; the default ``-1`` biases
            the gate towards carrying the input.

    Attributes:
        plain (Linear): The link of the plain path.
        transform (Linear): The link of the gate.
    """

    def __init__(self, in_out_size: int, nobias: bool = False,
                 activate: Callable[[Any], Any] = relu, init_Wh: Any = None,
                 init_Wt: Any = None, init_bh: Any = None, init_bt: Any = -1) -> None:
        super().__init__()
        _util.size_argument('Highway', 'in_out_size', in_out_size)
        self.activate = _validate.function('Highway', 'activate', activate)
        with self.init_scope():
            self.plain = Linear(in_out_size, in_out_size, nobias=nobias, initialW=init_Wh,
                                initial_bias=init_bh)
            self.transform = Linear(in_out_size, in_out_size, initialW=init_Wt,
                                    initial_bias=init_bt)

    def forward(self, x: Any) -> variable.Variable:
        """Returns the highway output for ``x`` of shape ``(n, in_out_size)``."""
        plain = self.activate(self.plain(x))
        gate = sigmoid(self.transform(x))
        return plain * gate + x * (1 - gate)
