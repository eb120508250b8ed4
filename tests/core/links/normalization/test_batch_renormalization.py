"""The BatchRenormalization link."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.links as L
from catena import testing


def _renorm(x, gamma, beta, mean_run, var_run, eps, rmax, dmax):
    mean = x.mean(axis=0)
    std = np.sqrt(x.var(axis=0) + eps)
    sigma = np.sqrt(var_run + eps)
    r = np.clip(std / sigma, 1 / rmax, rmax)
    d = np.clip((mean - mean_run) / sigma, -dmax, dmax)
    return gamma * ((x - mean) / std * r + d) + beta


@testing.parameterize(*testing.product({
    'dtype': [np.float32, np.float64],
    'train': [True, False],
}))
class TestBatchRenormalization(testing.LinkTestCase):

    def setUp(self):
        if not self.train:
            self.numerical_grad_dtype = None  # the statistics keep the link's dtype
            self.check_backward_options = {'eps': 1e-3, 'atol': 1e-3, 'rtol': 1e-2}

    def generate_params(self):
        # Running statistics far from the batch's keep r and d clipped (at
        # 1 / rmax and +-dmax), where they are locally constant: r and d get
        # no gradient by definition, so the numerical gradient agrees there.
        return tuple(np.random.uniform(lo, hi, (3,)).astype(self.dtype)
                     for lo, hi in ((0.5, 1.5), (-1, 1), (0.8, 1.2), (4, 5)))

    def create_link(self, initializers):
        gamma, beta, mean, var = initializers
        return L.BatchRenormalization(3, rmax=1.5, dmax=0.1, dtype=self.dtype,
                                      initial_gamma=gamma, initial_beta=beta,
                                      initial_avg_mean=mean, initial_avg_var=var)

    def generate_inputs(self):
        return np.random.uniform(-1, 1, (5, 3)).astype(self.dtype),

    def forward(self, link, inputs, device):
        # Updating the running statistics would change the output between
        # the gradient check's evaluations: freeze them (as a recomputation does).
        with catena.using_config('train', self.train), \
                catena.using_config('in_recomputing', True):
            return link(*inputs),

    def forward_expected(self, link, inputs):
        x, = inputs
        gamma, beta = link.gamma.array, link.beta.array
        if self.train:
            y = _renorm(x, gamma, beta, link.avg_mean, link.avg_var, link.eps, 1.5, 0.1)
        else:
            y = gamma * (x - link.avg_mean) / np.sqrt(link.avg_var + link.eps) + beta
        return y.astype(self.dtype),


def test_updates_running_statistics():
    x = np.random.uniform(-2, 2, (6, 3))
    link = L.BatchRenormalization(3, dtype=np.float64, decay=0.8)
    assert link.rmax == 1 and link.dmax == 0
    y = link(x)
    np.testing.assert_allclose(y.array, (x - x.mean(0)) / np.sqrt(x.var(0) + 2e-5))
    np.testing.assert_allclose(link.avg_mean, 0.2 * x.mean(0))
    np.testing.assert_allclose(link.avg_var, 0.8 + 0.2 * x.var(0, ddof=1))
    with catena.using_config('in_recomputing', True):
        link(x)
    np.testing.assert_allclose(link.avg_mean, 0.2 * x.mean(0))


def test_finetune_and_errors():
    x = np.random.uniform(-2, 2, (6, 3))
    link = L.BatchRenormalization(3, dtype=np.float64)
    link(x, finetune=True)
    assert link.N == 1
    np.testing.assert_allclose(link.avg_mean, x.mean(0))
    with pytest.raises(ValueError, match='test argument'):
        link(x, test=True)
