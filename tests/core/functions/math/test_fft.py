"""fft and ifft on (real, imag) pairs."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


@testing.parameterize(*testing.product({
    'method': ['fft', 'ifft'],
    'shape': [(4,), (2, 5), (2, 3, 4)],
    'dtype': [np.float32, np.float64],
}))
class TestFFT(testing.FunctionTestCase):

    def setUp(self):
        if self.dtype == np.float32:
            self.check_forward_options = {'atol': 1e-4, 'rtol': 1e-4}

    def generate_inputs(self):
        return (np.random.uniform(-1, 1, self.shape).astype(self.dtype),
                np.random.uniform(-1, 1, self.shape).astype(self.dtype))

    def forward(self, inputs, device):
        return getattr(F, self.method)(inputs)

    def forward_expected(self, inputs):
        real, imag = (x.astype(np.float64) for x in inputs)
        y = getattr(np.fft, self.method)(real + 1j * imag)
        return y.real.astype(self.dtype), y.imag.astype(self.dtype)


def test_ifft_inverts_fft():
    real = np.random.uniform(-1, 1, (3, 8))
    imag = np.random.uniform(-1, 1, (3, 8))
    back_real, back_imag = F.ifft(F.fft((real, imag)))
    np.testing.assert_allclose(back_real.array, real, atol=1e-12)
    np.testing.assert_allclose(back_imag.array, imag, atol=1e-12)


def test_gradient_of_one_output_only():
    import catena

    real = catena.Variable(np.random.uniform(-1, 1, (4,)))
    imag = catena.Variable(np.random.uniform(-1, 1, (4,)))
    y_real, _ = F.fft((real, imag))
    F.sum(y_real).backward()
    # sum_k Re(y_k) = n * Re(x_0)
    np.testing.assert_allclose(real.grad, [4, 0, 0, 0], atol=1e-12)
    np.testing.assert_allclose(imag.grad, [0, 0, 0, 0], atol=1e-12)


def test_bad_inputs():
    x = np.zeros((2, 4), np.float32)
    with pytest.raises(TypeError, match='tuple'):
        F.fft(x)
    with pytest.raises(InvalidType, match='imag.shape'):
        F.fft((x, np.zeros((2, 3), np.float32)))
    with pytest.raises(InvalidType, match='imag.dtype'):
        F.ifft((x, np.zeros((2, 4), np.float64)))
    with pytest.raises(InvalidType, match='real.ndim'):
        F.fft((np.zeros((), np.float32), np.zeros((), np.float32)))
