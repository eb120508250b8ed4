"""einsum: explicit and implicit outputs, ellipses, diagonals and broadcasting."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena.functions as F
from catena import testing
from catena.functions.math.einsum import DiagEinSum
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
    with pytest.raises(TypeError, match='sublist'):
        F.einsum(np.zeros(2, np.float32), np.zeros(2, np.float32))


def _sublists(subscripts):
    """NumPy's sublist spelling of string subscripts (a -> 0, ..., z -> 25)."""
    def term(text):
        labels = []
        for part in text.split('...'):
            labels.extend(ord(c) - ord('a') for c in part)
            labels.append(Ellipsis)
        return labels[:-1]
    inputs, _, output = subscripts.partition('->')
    return [term(t) for t in inputs.split(',')], (term(output) if '->' in subscripts
                                                  else None)


_SUBLIST_CASES = [
    ('ij,jk->ik', [(2, 3), (3, 4)]),
    ('ij,jk', [(2, 3), (3, 4)]),
    ('kj,ji', [(2, 3), (3, 4)]),
    ('ii->i', [(3, 3)]),
    ('ii', [(3, 3)]),
    (',ij->i', [(), (3, 4)]),
    ('i...j,jk...->k...i', [(4, 2, 3), (3, 5, 2)]),
    ('...i,i', [(2, 2, 3), (3,)]),
]


@testing.parameterize(*testing.product({
    'case': _SUBLIST_CASES,
    'dtype': [np.float16, np.float32, np.float64],
}))
class TestEinSumSublists(testing.FunctionTestCase):

    def setUp(self):
        self.subscripts, self.shapes = self.case
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 2e-2, 'rtol': 2e-2}
            self.check_backward_options = {'atol': 5e-2, 'rtol': 5e-2}
            self.check_double_backward_options = {'atol': 5e-2, 'rtol': 5e-2}

    def generate_inputs(self):
        return tuple(np.random.uniform(-1, 1, s).astype(self.dtype) for s in self.shapes)

    def _arguments(self, operands):
        in_lists, out_list = _sublists(self.subscripts)
        args = [a for pair in zip(operands, in_lists) for a in pair]
        return args + ([out_list] if out_list is not None else [])

    def forward(self, inputs, device):
        return F.einsum(*self._arguments(inputs)),

    def forward_expected(self, inputs):
        operands = [x.astype(np.float64) for x in inputs]
        return np.asarray(np.einsum(*self._arguments(operands)), dtype=self.dtype),


def test_sublist_labels_keep_their_order_in_the_implicit_output():
    # Label 30 sorts after label 2, as in NumPy (not alphabetically by letter).
    a = np.random.uniform(-1, 1, (2, 3)).astype(np.float32)
    b = np.random.uniform(-1, 1, (3, 4)).astype(np.float32)
    y = F.einsum(a, [30, 5], b, [5, 2])
    np.testing.assert_allclose(y.array, np.einsum(a, [30, 5], b, [5, 2]), rtol=1e-5, atol=1e-6)
    assert y.shape == (4, 2)


@pytest.mark.parametrize('sublist, error', [
    ([0, 52], ValueError), ([0, -1], ValueError), ([0, 1.0], TypeError), (3, TypeError),
])
def test_bad_sublists(sublist, error):
    with pytest.raises(error, match='sublist'):
        F.einsum(np.zeros((2, 2), np.float32), sublist)


_DIAG_CASES = [
    ('i', 'ij', [(3,)], (3, 4)),
    ('', 'i', [()], (3,)),
    (',i', 'ij', [(), (2,)], (2, 3)),
    (',ij', 'i', [(), (3, 4)], (3,)),
    ('i', 'ii', [(3,)], (3, 3)),
    ('ij,jk', 'iik', [(2, 3), (3, 4)], (2, 2, 4)),
]


def _diag_einsum_reference(in_subs, out_sub, operands, out_shape):
    """Loops over every output position: the sum of the products of the inputs at
    the positions whose letters agree with it (zero off the diagonals)."""
    in_terms = in_subs.split(',')
    letters = sorted(set(''.join(in_terms)) - set(out_sub))
    size = dict(zip(out_sub, out_shape))
    for term, x in zip(in_terms, operands):
        size.update(zip(term, x.shape))
    y = np.zeros(out_shape)
    for out_index in np.ndindex(*out_shape):
        value = dict()
        if any(value.setdefault(c, i) != i for c, i in zip(out_sub, out_index)):
            continue
        for rest in np.ndindex(*(size[c] for c in letters)):
            where = dict(value, **dict(zip(letters, rest)))
            y[out_index] += np.prod([x[tuple(where[c] for c in t)]
                                     for t, x in zip(in_terms, operands)])
    return y


@testing.parameterize(*testing.product({
    'case': _DIAG_CASES,
    'dtype': [np.float16, np.float32, np.float64],
}))
class TestDiagEinSum(testing.FunctionTestCase):

    def setUp(self):
        self.in_subs, self.out_sub, self.shapes, self.out_shape = self.case
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 2e-2, 'rtol': 2e-2}
            self.check_backward_options = {'atol': 5e-2, 'rtol': 5e-2}
            self.check_double_backward_options = {'atol': 5e-2, 'rtol': 5e-2}

    def generate_inputs(self):
        return tuple(np.random.uniform(-1, 1, s).astype(self.dtype) for s in self.shapes)

    def forward(self, inputs, device):
        return DiagEinSum(self.in_subs, self.out_sub, self.out_shape).apply(inputs)[0],

    def forward_expected(self, inputs):
        operands = [x.astype(np.float64) for x in inputs]
        y = _diag_einsum_reference(self.in_subs, self.out_sub, operands, self.out_shape)
        return y.astype(self.dtype),


def test_diag_einsum_needs_the_sizes_of_new_letters():
    with pytest.raises(ValueError, match='out_shape'):
        DiagEinSum('i', 'ij')
    with pytest.raises(ValueError, match='one size per letter'):
        DiagEinSum('i', 'ij', (3,))
    node = DiagEinSum(['i'], 'ij', (3, 4))
    with pytest.raises(InvalidType):
        node.apply((np.zeros(2, np.float32),))
