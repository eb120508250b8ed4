"""spatial_pyramid_pooling_2d: max pooling on 1x1, 2x2, 4x4, ... grids, against a direct loop."""

# Chainer-style tests draw from NumPy's global generator, which the test case seeds.
# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing


def _windows(size, bins):
    """The clipped [begin, end) windows of one axis at one level."""
    kernel = -(-size // bins)
    pad = (kernel * bins - size) // 2
    # cover_all: windows start every ``kernel`` pixels until the padded axis is covered.
    count = (size + 2 * pad - kernel + kernel - 1) // kernel + 1
    return [(max(i * kernel - pad, 0), min(i * kernel - pad + kernel, size))
            for i in range(count)]


def reference(x, pyramid_height):
    n, c, height, width = x.shape
    features = []
    for level in range(pyramid_height):
        rows, cols = _windows(height, 2 ** level), _windows(width, 2 ** level)
        pooled = np.empty((n, c, len(rows), len(cols)), x.dtype)
        for i, (hs, he) in enumerate(rows):
            for j, (ws, we) in enumerate(cols):
                pooled[:, :, i, j] = x[:, :, hs:he, ws:we].max(axis=(2, 3))
        features.append(pooled.reshape(n, -1))
    return np.concatenate(features, axis=1).reshape(n, -1, 1, 1)


def _distinct(shape, dtype):
    size = int(np.prod(shape))
    return (np.random.permutation(size) * (2.0 / size) - 1.0).reshape(shape).astype(dtype)


@testing.parameterize(*testing.product_dict(
    [{'dtype': np.float16}, {'dtype': np.float32}, {'dtype': np.float64}],
    [{'shape': (2, 3, 9, 8), 'pyramid_height': 3, 'features': 63},
     {'shape': (1, 2, 5, 7), 'pyramid_height': 2, 'features': 10},
     {'shape': (1, 1, 4, 4), 'pyramid_height': 3, 'features': 21}],
))
class TestSpatialPyramidPooling2D(testing.FunctionTestCase):

    dodge_nondifferentiable = True

    def generate_inputs(self):
        return _distinct(self.shape, self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        y = F.spatial_pyramid_pooling_2d(x, self.pyramid_height, 'max')
        assert y.shape == (self.shape[0], self.features, 1, 1)
        return y,

    def forward_expected(self, inputs):
        x, = inputs
        return reference(x, self.pyramid_height),


def test_first_level_is_the_global_maximum():
    x = np.random.uniform(-1, 1, (2, 3, 6, 5))
    y = F.spatial_pyramid_pooling_2d(x, 1, 'max').array
    np.testing.assert_array_equal(y[:, :, 0, 0], x.max(axis=(2, 3)))


def test_accepts_a_variable():
    x = catena.Variable(np.random.uniform(-1, 1, (1, 2, 4, 6)).astype(np.float32))
    y = F.spatial_pyramid_pooling_2d(x, 2, pooling='max')
    F.sum(y).backward()
    assert x.grad.shape == x.shape


@pytest.mark.parametrize('pooling', [None, 'average', 'MAX'])
def test_unsupported_pooling(pooling):
    with pytest.raises(ValueError, match="pooling must be 'max'"):
        F.spatial_pyramid_pooling_2d(np.zeros((1, 1, 4, 4), np.float32), 2, pooling)


@pytest.mark.parametrize('height, error', [(0, ValueError), (-1, ValueError), (1.0, TypeError)])
def test_invalid_pyramid_height(height, error):
    with pytest.raises(error, match='pyramid_height'):
        F.spatial_pyramid_pooling_2d(np.zeros((1, 1, 4, 4), np.float32), height, 'max')


def test_input_must_be_4d():
    with pytest.raises(ValueError, match=r'4-dimensional.*\(4, 4\)'):
        F.spatial_pyramid_pooling_2d(np.zeros((4, 4), np.float32), 2, 'max')
