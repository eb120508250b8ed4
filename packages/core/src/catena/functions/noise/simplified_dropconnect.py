"""``simplified_dropconnect``: a linear layer whose weights are dropped at random."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.array.reshape import reshape
from catena.functions.math.matmul import MatMul
from catena.functions.math.sum import sum as _sum
from catena.functions.noise._ratio import check_ratio
from catena.utils import size_of_shape, type_check
from catena.variable import Variable, as_array


class _MaskShapeError(type_check.InvalidType, ValueError):
    """A mask of neither of the accepted shapes (Chainer: InvalidType)."""


class SimplifiedDropconnect(FunctionNode):
    """``y = x W'^T + b`` where ``W'`` is ``W`` times a scaled random 0/1 mask.

    The mask is ``(N, M)`` shaped like ``W`` and shared by the batch, or
    ``(batch, N, M)`` with one mask per example (batchwise). ``W`` may have
    another float dtype than ``x``; the output has ``x``'s.

    Args:
        ratio: The probability of dropping a weight.
        mask: A 0/1 mask to use instead of a random one, or None.
        use_batchwise_mask: Whether a random mask is drawn per example.

    Attributes:
        mask: After forward, the boolean mask that was applied (a read-only
            view of ones when nothing was dropped).
    """

    def __init__(self, ratio: float, mask: Any = None, use_batchwise_mask: bool = True) -> None:
        check_ratio(ratio, 'simplified_dropconnect')
        self.ratio = ratio
        self.mask = None if mask is None else as_array(mask)
        self.use_batchwise_mask = use_batchwise_mask

    def check_type_forward(self, in_types: Any) -> None:
        n_in = in_types.size()
        type_check.expect(2 <= n_in, n_in <= 3)
        type_check._argname(in_types, ('x', 'W', 'b')[:type_check.eval(n_in)])
        x_type, w_type = in_types[:2]
        type_check.expect(
            x_type.dtype.kind == 'f',
            w_type.dtype.kind == 'f',
            x_type.ndim >= 2,
            w_type.ndim == 2,
            type_check.prod(x_type.shape[1:]) == w_type.shape[1],
        )
        if type_check.eval(n_in) == 3:
            b_type = in_types[2]
            type_check.expect(
                b_type.dtype == x_type.dtype,
                b_type.ndim == 1,
                b_type.shape[0] == w_type.shape[0],
            )

    @staticmethod
    def _check_mask(mask: Any, x: Any, w: Any) -> None:
        if mask.shape != w.shape and mask.shape != (x.shape[0],) + w.shape:
            message = (f'simplified_dropconnect: mask must have the shape of W {w.shape} or '
                       f'(batch,) + W.shape {(x.shape[0],) + w.shape}; got {mask.shape}')
            raise _MaskShapeError('mask.shape in (W.shape, (batch,) + W.shape)',
                                  f'{mask.shape}', message)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs((0, 1))
        x, w = inputs[:2]
        xp = backend.get_array_module(x)
        shape = ((x.shape[0],) + w.shape) if self.use_batchwise_mask else w.shape
        if self.mask is not None:
            self._check_mask(self.mask, x, w)
        elif self.ratio != 0:
            self.mask = xp.random.random_sample(shape) >= self.ratio
        x_2d = x.reshape(x.shape[0], size_of_shape(x.shape[1:]))
        if self.mask is None:  # nothing is dropped (test mode): a mask of ones, as a view
            self.mask = xp.broadcast_to(xp.asarray(True), shape)
            self._scaled_mask = None
            y = x_2d @ w.T
        else:
            # The mask and the scale together, in W's dtype: what W is multiplied by.
            self._scaled_mask = self.mask.astype(w.dtype)
            self._scaled_mask *= w.dtype.type(1.0 / (1.0 - self.ratio))
            masked_w = w * self._scaled_mask
            if masked_w.ndim == 3:  # y[i] = W'[i] @ x[i]
                y = xp.matmul(masked_w, x_2d[:, :, None]).reshape(x.shape[0], w.shape[0])
            else:
                y = x_2d @ masked_w.T
        if y.dtype != x.dtype:  # W has another dtype: y has x's, as in Chainer
            y = y.astype(x.dtype)
        if len(inputs) == 3:
            y += inputs[2]
        return y,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        x, w = self.get_retained_inputs()
        gy, = grad_outputs
        x_2d = reshape(x, (x.shape[0], size_of_shape(x.shape[1:])))
        scaled_mask = self._scaled_mask
        batchwise = scaled_mask is not None and scaled_mask.ndim == 3
        ret = []
        for index in indexes:
            if index == 0:
                masked_w = w if scaled_mask is None else w * scaled_mask
                # The gradients have their operands' dtypes when x and W differ.
                to_x = MatMul(dtype=x.dtype)
                if batchwise:  # gx[i] = gy[i] @ W'[i]
                    gx = to_x.apply((reshape(gy, (gy.shape[0], 1, gy.shape[1])), masked_w))[0]
                else:
                    gx = to_x.apply((gy, masked_w))[0]
                ret.append(reshape(gx, x.shape))
            elif index == 1:
                if batchwise:  # gW = sum_i outer(gy[i], x[i]) * mask[i]
                    outer = MatMul(dtype=w.dtype).apply((
                        reshape(gy, gy.shape + (1,)),
                        reshape(x_2d, (x_2d.shape[0], 1, x_2d.shape[1]))))[0]
                    ret.append(_sum(outer * scaled_mask, axis=0))
                else:
                    gw = MatMul(transa=True, dtype=w.dtype).apply((gy, x_2d))[0]
                    ret.append(gw if scaled_mask is None else gw * scaled_mask)
            else:
                ret.append(_sum(gy, axis=0))
        return tuple(ret)


def simplified_dropconnect(x: Any, W: Any, b: Any = None, ratio: float = .5,  # noqa: N803
                           train: bool = True, mask: Any = None,
                           use_batchwise_mask: bool = True) -> Variable:
    """A linear layer with simplified DropConnect.

    Each weight is dropped with probability ``ratio`` and the kept ones are
    multiplied by :math:`1 / (1 - \\mathrm{ratio})`:
    :math:`y = x (W \\odot m)^T / (1 - \\mathrm{ratio}) + b` for a random 0/1
    mask :math:`m` (`Wan et al., 2013
    <http://proceedings.mlr.press/v28/wan13.html>`_). ``x`` is flattened to
    ``(batch, M)`` first. The draws come from the array module of ``x``
    (``numpy.random`` on the CPU). Test mode is chosen with ``train``, as in
    Chainer, not with ``catena.config.train``.

    Args:
        x: A Variable or array of floating point type, of shape ``(batch, ...)``
            with ``M`` elements per example.
        W: The weight, ``(N, M)``, of any float dtype (its gradient has its own).
        b: The bias, ``(N,)`` in ``x``'s dtype, or None.
        ratio: The probability of dropping a weight, in :math:`[0, 1)`.
        train: Drop weights when True; otherwise ``ratio`` counts as 0 and
            this is a plain linear layer (a given ``mask`` still applies).
        mask: A 0/1 mask to use instead of a random one (debugging): of shape
            ``(N, M)``, or ``(batch, N, M)`` for a mask per example.
            ``use_batchwise_mask`` is then ignored.
        use_batchwise_mask: Draw a mask per example (``(batch, N, M)``)
            rather than one for the whole batch.

    Returns:
        Variable: The output, ``(batch, N)`` in ``x``'s dtype.

    Raises:
        ValueError: If ``ratio`` is not in :math:`[0, 1)` or ``mask`` has
            another shape.

    .. admonition:: Example

        >>> x = np.ones((2, 3), dtype=np.float32)
        >>> W = np.ones((4, 3), dtype=np.float32)
        >>> F.simplified_dropconnect(x, W, train=False).array
        array([[3., 3., 3., 3.],
               [3., 3., 3., 3.]], dtype=float32)
    """
    check_ratio(ratio, 'simplified_dropconnect')
    if not train:
        ratio = 0
    func = SimplifiedDropconnect(ratio, mask, use_batchwise_mask)
    inputs = (x, W) if b is None else (x, W, b)
    return func.apply(inputs)[0]
