"""einsum: explicit and implicit outputs, ellipses, diagonals and broadcasting."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType

_CASES = [
    ('ij,jk->ik', [(2, 3), (3, 4)]),
    ('ij,jk', [(2, 3), (3, 4)]),
    ('ij,ij->', [(2, 3), (2, 3)]),
    ('ii->i', [(3, 3)]),
    ('ii', [(3, 3)]),
    ('iij,jk->ik', [(3, 3, 2), (2, 4)]),
    ('ijk,i->k', [(2, 3, 4), (2,)]),
    ('i,j->ij', [(2,), (3,)]),
    ('i,i,i->', [(3,), (3,), (3,)]),
    ('ba', [(2, 3)]),
    ('...ij,...jk', [(2, 2, 3), (2, 3, 4)]),
    ('...ij,...jk->...ik', [(2, 3), (5, 3, 4)]),
    ('i...->...', [(2, 3, 4)]),
    ('ij,ij->ij', [(1, 3), (2, 3)]),
    ('...i,...i->...', [(1, 3), (4, 3)]),
]


@testing.parameterize(*testing.product({
    'case': _CASES,
    'dtype': [np.float32, np.float64],
}), *testing.product({'case': _CASES[:6], 'dtype': [np.float16]}))
class TestEinSum(testing.FunctionTestCase):

    def setUp(self):
        self.subscripts, self.shapes = self.case
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 2e-2, 'rtol': 2e-2}
            self.check_backward_options = {'atol': 5e-2, 'rtol': 5e-2}
            self.check_double_backward_options = {'atol': 5e-2, 'rtol': 5e-2}

    def generate_inputs(self):
        return tuple(np.random.uniform(-1, 1, s).astype(self.dtype) for s in self.shapes)

    def forward(self, inputs, device):
        return F.einsum(self.subscripts, *inputs),

    def forward_expected(self, inputs):
        y = np.einsum(self.subscripts, *(x.astype(np.float64) for x in inputs))
        return np.asarray(y, dtype=self.dtype),


def test_identity_subscripts():
    x = np.random.uniform(-1, 1, (2, 3)).astype(np.float32)
    np.testing.assert_array_equal(F.einsum('...', x).array, x)
    np.testing.assert_array_equal(F.einsum('ij->ij', x).array, x)


@pytest.mark.parametrize('subscripts, shapes, match', [
    ('ij,jk', [(2, 3)], '2 operand'),
    ('ij', [(2, 3, 4)], 'dimension'),
    ('i.j', [(2, 3)], 'ellipsis'),
    ('ij->k', [(2, 3)], 'output'),
    ('ij->ii', [(2, 3)], 'output'),
    ('i...,i->i', [(2, 3), (2,)], '"..."'),
    ('ijk...', [(2, 3)], 'more letters'),
])
def test_bad_subscripts(subscripts, shapes, match):
    with pytest.raises(ValueError, match=match):
        F.einsum(subscripts, *(np.zeros(s, np.float32) for s in shapes))


def test_bad_operands():
    with pytest.raises(InvalidType, match='operand1.shape'):
        F.einsum('ij,jk', np.zeros((2, 3), np.float32), np.zeros((4, 2), np.float32))
    with pytest.raises(InvalidType, match='operand1.dtype'):
        F.einsum('i,i', np.zeros(2, np.float32), np.zeros(2, np.float64))
    with pytest.raises(ValueError, match='at least one'):
        F.einsum('')
    with pytest.raises(TypeError, match='subscripts'):
        F.einsum(np.zeros(2, np.float32), np.zeros(2, np.float32))
