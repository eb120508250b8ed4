"""gaussian_nll: against the Gaussian log-density, both reductions, bad arguments."""

# ruff: noqa: NPY002

import math

import numpy as np
import pytest

import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


@testing.parameterize(*testing.product({
    'reduce': ['sum', 'mean', 'no'],
    'dtype': [np.float16, np.float32, np.float64],
}))
class TestGaussianNLL(testing.FunctionTestCase):

    def before_test(self, test_name):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 2e-2, 'rtol': 2e-2}

    def generate_inputs(self):
        return tuple(np.random.uniform(-1, 1, (3, 2)).astype(self.dtype) for _ in range(3))

    def forward(self, inputs, device):
        x, mean, ln_var = inputs
        return F.gaussian_nll(x, mean, ln_var, reduce=self.reduce),

    def forward_expected(self, inputs):
        x, mean, ln_var = (v.astype(np.float64) for v in inputs)
        sigma = np.exp(ln_var / 2)
        density = np.exp(-((x - mean) / sigma) ** 2 / 2) / (sigma * math.sqrt(2 * math.pi))
        loss = -np.log(density)
        if self.reduce == 'sum':
            loss = np.asarray(loss.sum())
        elif self.reduce == 'mean':
            loss = np.asarray(loss.mean())
        return loss.astype(self.dtype),


def test_bad_arguments_are_rejected():
    with pytest.raises(InvalidType, match=r'x\.shape=\(2,\).*ln_var\.shape=\(2, 1\)'):
        F.gaussian_nll(np.zeros(2), np.zeros(2), np.zeros((2, 1)))
    with pytest.raises(InvalidType, match=r'x\.dtype=float64.*mean\.dtype=float32'):
        F.gaussian_nll(np.zeros(2), np.zeros(2, np.float32), np.zeros(2))
    with pytest.raises(InvalidType, match=r'x\.dtype\.kind == f'):
        F.gaussian_nll(np.zeros(2, np.int32), np.zeros(2, np.int32), np.zeros(2, np.int32))
    with pytest.raises(ValueError, match="reduce must be 'sum' or 'mean' or 'no'; got 'max'"):
        F.gaussian_nll(np.zeros(2), np.zeros(2), np.zeros(2), reduce='max')
