"""``bilinear``: a bilinear form of two inputs plus optional linear terms."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.functions import _arguments
from catena.functions.array.reshape import reshape
from catena.functions.array.transpose import transpose
from catena.functions.connection.linear import linear
from catena.functions.math.basic_math import matmul
from catena.functions.math.sum import sum as _sum
from catena.utils import type_check
from catena.variable import Variable


class BilinearFunction(FunctionNode):
    """``y = e1 W e2 (+ e1 V1 + e2 V2 + b)``: inputs ``(e1, e2, W[, V1, V2, b])``."""

    def check_type_forward(self, in_types: Any) -> None:
        n_in = in_types.size()
        type_check.expect((n_in == 3) | (n_in == 6))
        type_check._argname(in_types, ('e1', 'e2', 'W', 'V1', 'V2', 'b')[:len(in_types)])
        e1_type, e2_type, w_type = in_types[0], in_types[1], in_types[2]
        type_check.expect(
            e1_type.dtype.kind == 'f',
            e2_type.dtype == e1_type.dtype,
            w_type.dtype == e1_type.dtype,
            e1_type.ndim == 2,
            e2_type.ndim == 2,
            w_type.ndim == 3,
            e1_type.shape[0] == e2_type.shape[0],
            e1_type.shape[1] == w_type.shape[0],
            e2_type.shape[1] == w_type.shape[1],
        )
        if type_check.eval(n_in) == 6:
            v1_type, v2_type, b_type = in_types[3], in_types[4], in_types[5]
            type_check.expect(
                v1_type.dtype == e1_type.dtype,
                v2_type.dtype == e1_type.dtype,
                b_type.dtype == e1_type.dtype,
                v1_type.ndim == 2,
                v2_type.ndim == 2,
                b_type.ndim == 1,
                v1_type.shape[0] == w_type.shape[0],
                v1_type.shape[1] == w_type.shape[2],
                v2_type.shape[0] == w_type.shape[1],
                v2_type.shape[1] == w_type.shape[2],
                b_type.shape[0] == w_type.shape[2],
            )

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs(tuple(range(len(inputs))))
        e1, e2, W = inputs[:3]
        xp = backend.get_array_module(e1)
        n, j = e1.shape
        k, out = W.shape[1:]
        # The outer products e1_n e2_n^T flattened, times W flattened: one GEMM.
        outer = (e1[:, :, None] * e2[:, None, :]).reshape(n, j * k)
        y = xp.dot(outer, W.reshape(j * k, out))
        if len(inputs) == 6:
            V1, V2, b = inputs[3:]
            y += xp.dot(e1, V1)
            y += xp.dot(e2, V2)
            y += b
        return y,

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        inputs = self.get_retained_inputs()
        e1, e2, W = inputs[:3]
        gy, = grad_outputs
        n, j = e1.shape
        k, out = W.shape[1:]
        e1_col = reshape(e1, (n, j, 1))
        e2_row = reshape(e2, (n, 1, k))
        grads: dict[int, Any] = {}
        if 0 in indexes or 1 in indexes:
            # t[n, j, k] = sum_l W[j, k, l] gy[n, l]
            t = reshape(linear(gy, reshape(W, (j * k, out))), (n, j, k))
            if 0 in indexes:
                grads[0] = _sum(t * e2_row, axis=2)
            if 1 in indexes:
                grads[1] = _sum(t * e1_col, axis=1)
        if 2 in indexes:
            outer = reshape(e1_col * e2_row, (n, j * k))
            grads[2] = reshape(matmul(transpose(outer), gy), (j, k, out))
        if len(inputs) == 6:
            V1, V2 = inputs[3], inputs[4]
            if 0 in indexes:
                grads[0] = grads[0] + linear(gy, V1)
            if 1 in indexes:
                grads[1] = grads[1] + linear(gy, V2)
            if 3 in indexes:
                grads[3] = matmul(transpose(e1), gy)
            if 4 in indexes:
                grads[4] = matmul(transpose(e2), gy)
            if 5 in indexes:
                grads[5] = _sum(gy, axis=0)
        return tuple(grads[i] for i in indexes)


def bilinear(e1: Any, e2: Any, W: Any, V1: Any = None, V2: Any = None,
             b: Any = None) -> Variable:
    """Bilinear function, an extension of the linear function.

    For each sample ``n``:

    .. math::

        y_{n, l} = \\sum_{j, k} e^1_{n, j} e^2_{n, k} W_{j, k, l}
        + \\sum_j e^1_{n, j} V^1_{j, l} + \\sum_k e^2_{n, k} V^2_{k, l} + b_l

    The linear terms are present only when ``V1``, ``V2`` and ``b`` are all
    given. Inputs with more than two axes are flattened after the first
    (batch) axis.

    Args:
        e1: The left input, of shape ``(n, J...)``.
        e2: The right input, of shape ``(n, K...)``.
        W: The bilinear weight, of shape ``(J, K, L)``.
        V1: The left linear weight ``(J, L)``, or None.
        V2: The right linear weight ``(K, L)``, or None.
        b: The bias ``(L,)``, or None.

    Returns:
        Variable: Output of shape ``(n, L)``.

    Raises:
        ValueError: If some but not all of ``V1``, ``V2`` and ``b`` are given.
        InvalidType: If the shapes or dtypes do not match.

    .. admonition:: Example

        >>> e1 = np.array([[1.0, 2.0]], dtype=np.float32)
        >>> e2 = np.array([[3.0]], dtype=np.float32)
        >>> W = np.ones((2, 1, 2), dtype=np.float32)
        >>> F.bilinear(e1, e2, W).array
        array([[9., 9.]], dtype=float32)
    """
    linear_terms = (V1 is not None, V2 is not None, b is not None)
    if any(linear_terms) and not all(linear_terms):
        raise ValueError('bilinear takes V1, V2 and b all together or none of them; got '
                         f'V1 {"given" if linear_terms[0] else "None"}, '
                         f'V2 {"given" if linear_terms[1] else "None"}, '
                         f'b {"given" if linear_terms[2] else "None"}')
    try:
        e1_ndim, e2_ndim = len(e1.shape), len(e2.shape)
    except AttributeError:
        _arguments.blame('bilinear', e1=e1, e2=e2)
        raise
    if e1_ndim > 2:
        e1 = reshape(e1, (e1.shape[0], -1))
    if e2_ndim > 2:
        e2 = reshape(e2, (e2.shape[0], -1))
    args = (e1, e2, W) if V1 is None else (e1, e2, W, V1, V2, b)
    return BilinearFunction().apply(args)[0]
