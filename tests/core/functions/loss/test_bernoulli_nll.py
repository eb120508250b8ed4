"""bernoulli_nll: against the Bernoulli log-likelihood, both reductions, bad arguments."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


@testing.parameterize(*testing.product({
    'reduce': ['sum', 'mean', 'no'],
    'dtype': [np.float16, np.float32, np.float64],
}))
class TestBernoulliNLL(testing.FunctionTestCase):

    def before_test(self, test_name):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 2e-2, 'rtol': 2e-2}

    def generate_inputs(self):
        x = np.random.uniform(0, 1, (3, 4)).astype(self.dtype)
        y = np.random.uniform(-2, 2, (3, 4)).astype(self.dtype)
        return x, y

    def forward(self, inputs, device):
        x, y = inputs
        return F.bernoulli_nll(x, y, reduce=self.reduce),

    def forward_expected(self, inputs):
        x, y = (v.astype(np.float64) for v in inputs)
        p = 1 / (1 + np.exp(-y))
        loss = -(x * np.log(p) + (1 - x) * np.log(1 - p))
        if self.reduce == 'sum':
            loss = np.asarray(loss.sum())
        elif self.reduce == 'mean':
            loss = np.asarray(loss.mean())
        return loss.astype(self.dtype),


def test_bad_arguments_are_rejected():
    with pytest.raises(InvalidType, match=r'x\.shape=\(2, 3\).*y\.shape=\(3,\)'):
        F.bernoulli_nll(np.zeros((2, 3), np.float32), np.zeros(3, np.float32))
    with pytest.raises(InvalidType, match=r'x\.dtype=float32.*y\.dtype=float64'):
        F.bernoulli_nll(np.zeros(3, np.float32), np.zeros(3, np.float64))
    with pytest.raises(ValueError, match="reduce must be 'sum' or 'mean' or 'no'; got 'max'"):
        F.bernoulli_nll(np.zeros(3), np.zeros(3), reduce='max')
