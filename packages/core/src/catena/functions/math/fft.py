"""``fft`` and ``ifft``: the discrete Fourier transform of complex data held as (real, imag)."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.function_node import FunctionNode
from catena.utils import type_check
from catena.variable import Variable


class FFT(FunctionNode):
    """One-dimensional (inverse) DFT along the last axis of ``real + 1j * imag``.

    Args:
        method: ``'fft'`` or ``'ifft'``.
    """

    def __init__(self, method: str) -> None:
        if method not in ('fft', 'ifft'):
            raise ValueError(f"method must be 'fft' or 'ifft'; got {method!r}")
        self._method = method

    @property
    def label(self) -> str:
        return self._method

    def check_type_forward(self, in_types: Any) -> None:
        type_check._argname(in_types, ('real', 'imag'))
        real_type, imag_type = in_types
        type_check.expect(real_type.dtype.kind == 'f', real_type.ndim > 0,
                          imag_type.dtype == real_type.dtype,
                          imag_type.shape == real_type.shape)

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        real, imag = inputs
        xp = backend.get_array_module(real)
        z = real + 1j * imag
        y = getattr(xp.fft, self._method)(z)
        return y.real.astype(real.dtype), y.imag.astype(real.dtype)

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        g_real, g_imag = grad_outputs
        if g_real is None:
            g_real = backend.get_array_module(g_imag.array).zeros_like(g_imag.array)
        if g_imag is None:
            g_imag = backend.get_array_module(g_real.array).zeros_like(g_real.array)
        # The adjoint of the transform T is conj(T(conj(g))); with the real and
        # imaginary parts swapped, T(imag + 1j real) gives it swapped back.
        gx_imag, gx_real = FFT(self._method).apply((g_imag, g_real))
        return gx_real, gx_imag


def _transform(x: Any, method: str) -> tuple[Variable, Variable]:
    if not isinstance(x, (tuple, list)) or len(x) != 2:
        raise TypeError(f'{method}: x must be a tuple (real, imag) of two arrays or '
                        f'Variables; got {type(x).__name__}')
    real, imag = x
    return FFT(method).apply((real, imag))  # type: ignore[return-value]


def fft(x: Any) -> tuple[Variable, Variable]:
    """The one-dimensional discrete Fourier transform along the last axis.

    Args:
        x: A tuple ``(real, imag)`` of Variables or arrays of one floating
            point dtype and shape: the real and imaginary parts.

    Returns:
        tuple: ``(real, imag)`` of the transform, in the input dtype.

    .. admonition:: Example

        >>> real = np.array([1.0, 0.0, 0.0, 0.0], dtype=np.float32)
        >>> y_real, y_imag = F.fft((real, np.zeros_like(real)))
        >>> y_real.array
        array([1., 1., 1., 1.], dtype=float32)
    """
    return _transform(x, 'fft')


def ifft(x: Any) -> tuple[Variable, Variable]:
    """The one-dimensional inverse discrete Fourier transform along the last axis.

    Args:
        x: A tuple ``(real, imag)`` of Variables or arrays of one floating
            point dtype and shape: the real and imaginary parts.

    Returns:
        tuple: ``(real, imag)`` of the inverse transform, in the input dtype.
    """
    return _transform(x, 'ifft')
