"""The NegativeSampling link."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.links as L
from catena import testing
from catena.utils.walker_alias import WalkerAlias


def _log_sigmoid(z):
    return -np.logaddexp(0, -z)


_T = np.array([0, 3, -1, 2], dtype=np.int32)


@testing.parameterize(*testing.product({
    'dtype': [np.float32, np.float64],
    'reduce': ['sum', 'no'],
}))
class TestNegativeSampling(testing.LinkTestCase):

    def setUp(self):
        # The function asks for sample_size + 1 columns and puts t in the first.
        self.samples = np.random.randint(0, 5, (4, 3)).astype(np.int32)

    def generate_params(self):
        return np.random.uniform(-1, 1, (5, 3)).astype(self.dtype),

    def create_link(self, initializers):
        link = L.NegativeSampling(3, [1, 2, 3, 4, 5], 2, dtype=self.dtype)
        link.W.array[...] = initializers[0]
        # Fixed negatives: the gradient check calls forward many times.
        link.sampler.sample = lambda shape: link.device.send_array(self.samples)
        return link

    def generate_inputs(self):
        return np.random.uniform(-1, 1, (4, 3)).astype(self.dtype),

    def forward(self, link, inputs, device):
        return link(inputs[0], device.send(_T), reduce=self.reduce),

    def forward_expected(self, link, inputs):
        x, = inputs
        w = link.W.array.astype(np.float64)
        loss = np.zeros(4)
        for i, t in enumerate(_T):
            if t == -1:
                continue
            loss[i] = -_log_sigmoid(x[i] @ w[t]) - sum(
                _log_sigmoid(-(x[i] @ w[s])) for s in self.samples[i, 1:])
        loss = loss.sum() if self.reduce == 'sum' else loss
        return np.asarray(loss, dtype=self.dtype),


def test_defaults_sampler_and_return_samples():
    counts = [4, 0, 1, 9]
    link = L.NegativeSampling(2, counts, 3)
    assert link.W.shape == (4, 2) and link.W.dtype == np.float32
    np.testing.assert_array_equal(link.W.array, np.zeros((4, 2)))
    assert isinstance(link.sampler, WalkerAlias) and link.sample_size == 3
    np.random.seed(0)
    drawn = link.sampler.sample((20000,))
    freq = np.bincount(drawn, minlength=4) / drawn.size
    weights = np.power(np.asarray(counts, np.float64), 0.75)
    np.testing.assert_allclose(freq, weights / weights.sum(), atol=0.02)
    t = np.array([0, 3], np.int32)
    loss, samples = link(np.ones((2, 2), np.float32), t, return_samples=True)
    assert samples.shape == (2, 4)
    np.testing.assert_array_equal(samples[:, 0], t)
    assert not (samples[:, 1:] == 1).any()
    # W is zero: every sigmoid is 1/2, so each example costs 4 log 2.
    np.testing.assert_allclose(loss.array, 2 * 4 * np.log(2), rtol=1e-6)


def test_sampler_moves_with_the_link():
    link = L.NegativeSampling(2, [1, 2, 3], 1)
    link.to_device('@fake')
    assert link.sampler.device == link.device
    with pytest.raises(TypeError):
        link(np.ones((2, 2), np.float32), np.zeros(2, np.int32), bogus=True)


def test_link_calls_the_function_through_its_module():
    # A wrapper installed on catena.functions.loss.negative_sampling (as a
    # mock does) sees the link's call.
    link = L.NegativeSampling(3, [1, 2, 3], 2)
    x = np.zeros((2, 3), np.float32)
    t = np.array([0, 1], np.int32)
    samples = np.array([[0, 2, 2], [1, 0, 0]], np.int32)
    original = catena.functions.negative_sampling

    def with_fixed_samples(*args, **kwargs):
        args = args[:3] + (lambda shape: samples.copy(),) + args[4:]
        return original(*args, **kwargs)

    with testing.patch('catena.functions.loss.negative_sampling.negative_sampling',
                       wraps=with_fixed_samples) as mock:
        loss, used = link(x, t, return_samples=True)
    assert mock.call_count == 1
    np.testing.assert_array_equal(used, samples)
    assert loss.array == pytest.approx(6 * np.log(2), rel=1e-6)
