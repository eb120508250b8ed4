"""The BatchNormalization link: batch statistics in training, running ones in test."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.links as L
from catena import testing


def _bn(x, gamma, beta, mean, var, eps, axis):
    shape = [1 if i in axis else d for i, d in enumerate(x.shape)]
    return (gamma.reshape(shape) * (x - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + eps)
            + beta.reshape(shape))


_TOL = {np.float16: {'atol': 1e-2, 'rtol': 1e-2}}
_BACKWARD_TOL = {np.float16: {'atol': 5e-2, 'rtol': 5e-2}}


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'case': [((4, 3), None, (0,)), ((3, 2, 2, 2), None, (0, 2, 3)),
             ((3, 4, 2), (0, 1), (0, 1))],
    'train': [True, False],
}))
class TestBatchNormalization(testing.LinkTestCase):

    def setUp(self):
        self.shape, self.axis, self.reduced = self.case
        self.size = tuple(d for i, d in enumerate(self.shape) if i not in self.reduced)
        self.check_forward_options = dict(_TOL.get(self.dtype, {}))
        self.check_backward_options = dict(_BACKWARD_TOL.get(self.dtype, {}))
        if not self.train:
            # The running statistics are not parameters: casting only the
            # parameters to float64 would mismatch their dtype, so the
            # numerical gradient runs in the link's own dtype (as Chainer's
            # test of this link does).
            self.numerical_grad_dtype = None
            self.check_backward_options['eps'] = 1e-2 if self.dtype == np.float16 else 1e-3
            if self.dtype == np.float16:
                self.check_backward_options.update(atol=1e-1, rtol=1e-1)

    def generate_params(self):
        gamma = np.random.uniform(0.5, 1.5, self.size).astype(self.dtype)
        beta = np.random.uniform(-1, 1, self.size).astype(self.dtype)
        mean = np.random.uniform(-1, 1, self.size).astype(self.dtype)
        var = np.random.uniform(0.5, 1.5, self.size).astype(self.dtype)
        return gamma, beta, mean, var

    def create_link(self, initializers):
        gamma, beta, mean, var = initializers
        return L.BatchNormalization(self.size, dtype=self.dtype, axis=self.axis,
                                    initial_gamma=gamma, initial_beta=beta,
                                    initial_avg_mean=mean, initial_avg_var=var)

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.shape).astype(self.dtype),

    def forward(self, link, inputs, device):
        with catena.using_config('train', self.train):
            return link(*inputs),

    def forward_expected(self, link, inputs):
        x, = inputs
        x64 = x.astype(np.float64)
        gamma = link.gamma.array.astype(np.float64)
        beta = link.beta.array.astype(np.float64)
        if self.train:
            mean = x64.mean(axis=self.reduced)
            var = x64.var(axis=self.reduced)
        else:
            mean = link.avg_mean.astype(np.float64)
            var = link.avg_var.astype(np.float64)
        return _bn(x64, gamma, beta, mean, var, link.eps, self.reduced).astype(self.dtype),


def test_running_statistics_updated_in_train_and_used_in_test():
    x = np.random.uniform(-2, 2, (5, 3)).astype(np.float32)
    link = L.BatchNormalization(3)
    np.testing.assert_array_equal(link.avg_mean, np.zeros(3, np.float32))
    np.testing.assert_array_equal(link.avg_var, np.ones(3, np.float32))
    link(x)
    expected_mean = 0.1 * x.mean(axis=0)
    expected_var = 0.9 + 0.1 * x.var(axis=0, ddof=1)
    np.testing.assert_allclose(link.avg_mean, expected_mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(link.avg_var, expected_var, rtol=1e-5, atol=1e-6)
    with catena.using_config('train', False):
        y = link(x)
    np.testing.assert_allclose(link.avg_mean, expected_mean, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(
        y.array, (x - expected_mean) / np.sqrt(expected_var + 2e-5), rtol=1e-4, atol=1e-5)


def test_decay_and_eps():
    x = np.random.uniform(-2, 2, (4, 2)).astype(np.float64)
    link = L.BatchNormalization(2, decay=0.5, eps=0.1, dtype=np.float64)
    y = link(x)
    np.testing.assert_allclose(link.avg_mean, 0.5 * x.mean(axis=0))
    np.testing.assert_allclose(link.avg_var, 0.5 + 0.5 * x.var(axis=0, ddof=1))
    np.testing.assert_allclose(y.array, (x - x.mean(0)) / np.sqrt(x.var(0) + 0.1))


def test_finetune_averages_over_batches():
    xs = [np.random.uniform(-2, 2, (4, 3)) for _ in range(3)]
    link = L.BatchNormalization(3, dtype=np.float64)
    link(xs[0])
    link.start_finetuning()
    assert link.N == 0
    for x in xs:
        link(x, finetune=True)
    assert link.N == 3
    np.testing.assert_allclose(link.avg_mean, np.mean([x.mean(0) for x in xs], axis=0))
    np.testing.assert_allclose(link.avg_var, np.mean([x.var(0, ddof=1) for x in xs], axis=0))


def test_no_update_while_recomputing():
    link = L.BatchNormalization(3)
    with catena.using_config('in_recomputing', True):
        link(np.random.uniform(-1, 1, (4, 3)).astype(np.float32), finetune=True)
    np.testing.assert_array_equal(link.avg_mean, np.zeros(3, np.float32))
    assert link.N == 0


def test_lazy_size_from_axis():
    link = L.BatchNormalization(axis=(0, 2, 3))
    assert link.avg_mean is None
    assert link.gamma.array is None
    x = np.random.uniform(-1, 1, (2, 4, 3, 3)).astype(np.float32)
    y = link(x)
    assert y.shape == x.shape
    assert link.gamma.shape == (4,)
    assert link.avg_var.shape == (4,)
    np.testing.assert_allclose(y.array.mean(axis=(0, 2, 3)), np.zeros(4), atol=1e-5)


def test_int_axis_and_size_tuple():
    link = L.BatchNormalization((2, 3))
    assert link.gamma.shape == (2, 3)
    y = link(np.random.uniform(-1, 1, (4, 2, 3)).astype(np.float32))
    np.testing.assert_allclose(y.array.mean(axis=0), np.zeros((2, 3)), atol=1e-5)
    lazy = L.BatchNormalization(axis=0)
    lazy(np.random.uniform(-1, 1, (4, 2, 3)).astype(np.float32))
    assert lazy.avg_mean.shape == (2, 3)


def test_without_gamma_and_beta():
    link = L.BatchNormalization(3, use_gamma=False, use_beta=False)
    assert link.gamma is None and link.beta is None
    assert list(link.params()) == []
    x = np.random.uniform(-1, 1, (5, 3)).astype(np.float32)
    y = link(x)
    np.testing.assert_allclose(y.array, (x - x.mean(0)) / np.sqrt(x.var(0) + 2e-5),
                               rtol=1e-4, atol=1e-5)


def test_parameter_gradients_flow():
    link = L.BatchNormalization(3)
    link.cleargrads()
    x = np.random.uniform(-1, 1, (5, 3)).astype(np.float32)
    y = link(x)
    catena.functions.sum(y * y).backward()
    assert link.gamma.grad is not None and link.beta.grad is not None
    # d/dbeta sum(y^2) = 2 * sum(y) over the batch = 0 for normalized y.
    np.testing.assert_allclose(link.beta.grad, np.zeros(3), atol=1e-4)


def test_persistents_and_dtype():
    link = L.BatchNormalization(3, dtype=np.float64)
    assert {'avg_mean', 'avg_var', 'N'} <= set(link._persistent)
    assert link.gamma.dtype == np.float64 and link.avg_mean.dtype == np.float64
    mixed = L.BatchNormalization(3, dtype=catena.mixed16)
    assert mixed.gamma.dtype == np.float32 and mixed.avg_var.dtype == np.float32


def test_errors():
    with pytest.raises(RuntimeError, match='size or axis'):
        L.BatchNormalization()
    link = L.BatchNormalization(3)
    with pytest.raises(ValueError, match='test argument'):
        link(np.zeros((2, 3), np.float32), test=True)
    with pytest.raises(TypeError, match='unexpected'):
        link(np.zeros((2, 3), np.float32), bogus=True)
    with pytest.raises(ValueError, match='axis'):
        L.BatchNormalization(axis=3)(np.zeros((2, 3), np.float32))


def test_lazy_link_loads_statistics_it_has_not_shaped_yet():
    trained = L.BatchNormalization(axis=(0,))
    trained(np.random.uniform(size=(4, 3)).astype(np.float32))
    stored = {}
    trained.serialize(catena.serializers.DictionarySerializer(stored))
    fresh = L.BatchNormalization(axis=(0,))
    assert fresh.avg_mean is None and 'avg_mean' in fresh._persistent
    fresh.serialize(catena.serializers.NpzDeserializer(stored))
    np.testing.assert_array_equal(fresh.avg_mean, trained.avg_mean)
    np.testing.assert_array_equal(fresh.avg_var, trained.avg_var)
    np.testing.assert_array_equal(fresh.gamma.array, trained.gamma.array)


@pytest.mark.parametrize('size', [{}, 2.5, '3', (3, 1.5), True])
def test_size_must_be_ints(size):
    with pytest.raises(TypeError, match='size'):
        L.BatchNormalization(size)


def test_size_may_be_a_list():
    assert L.BatchNormalization([2, 3]).avg_mean.shape == (2, 3)
