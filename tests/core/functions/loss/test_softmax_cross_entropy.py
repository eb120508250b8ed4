"""softmax_cross_entropy: labels, ignore_label, class_weight, reduce, soft targets, axes."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType

IGNORE = -1


def _log_softmax(x, axis):
    """An independent log-softmax in float64."""
    x = x.astype(np.float64)
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


def _expected_labels(x, t, axis, weight, reduce, normalize):
    """The loss from the definition: one position at a time."""
    log_y = np.moveaxis(_log_softmax(x, axis), axis, -1)
    losses = np.zeros(t.shape)
    for index in np.ndindex(*t.shape):
        label = int(t[index])
        if label == IGNORE:
            continue
        w = 1.0 if weight is None else float(weight[label])
        losses[index] = -w * log_y[index][label]
    if reduce == 'no':
        return losses.astype(x.dtype)
    count = np.count_nonzero(t != IGNORE) if normalize else x.shape[0]
    return np.asarray(losses.sum() / max(count, 1), dtype=x.dtype)


def _labels(shape, n_class, ignore):
    t = np.random.randint(0, n_class, shape).astype(np.int32)
    if ignore:
        t.flat[::3] = IGNORE
    return t


_CASES = (
    # every shape and axis with and without ignored labels, in both reductions
    testing.product({
        'shape_axis': [((4, 3), 1), ((3, 4, 2), 1), ((2, 3, 5), -1), ((2, 4, 3), 0), ((5,), 0)],
        'reduce': ['mean', 'no'],
        'ignore': [False, True],
        'dtype': [np.float32],
    })
    # the other options on a 2-D batch with ignored labels
    + testing.product({
        'shape_axis': [((4, 3), 1)],
        'reduce': ['mean'],
        'ignore': [True],
        'normalize': [True, False],
        'weight': [False, True],
        'cache_score': [True, False],
        'dtype': [np.float32],
    })
    + testing.product({
        'shape_axis': [((4, 3), 1), ((3, 4, 2), 1)],
        'reduce': ['mean', 'no'],
        'ignore': [True],
        'weight': [True],
        'dtype': [np.float16, np.float64],
    })
)


@testing.parameterize(*_CASES)
class TestSoftmaxCrossEntropy(testing.FunctionTestCase):

    normalize = True
    weight = False
    cache_score = True

    def before_test(self, test_name):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 1e-2, 'rtol': 1e-2}
            self.check_backward_options = {'atol': 5e-2, 'rtol': 5e-2}
            self.check_double_backward_options = {'atol': 5e-2, 'rtol': 5e-2}

    def _class_weight(self, n_class):
        if not self.weight:
            return None
        return np.linspace(0.5, 2.0, n_class).astype(self.dtype)

    def generate_inputs(self):
        shape, axis = self.shape_axis
        x = np.random.uniform(-2, 2, shape).astype(self.dtype)
        t_shape = shape[:axis % len(shape)] + shape[axis % len(shape) + 1:]
        return x, _labels(t_shape, shape[axis], self.ignore)

    def forward(self, inputs, device):
        x, t = inputs
        shape, axis = self.shape_axis
        weight = self._class_weight(shape[axis])
        if weight is not None:
            weight = device.send(weight)
        return F.softmax_cross_entropy(
            x, t, normalize=self.normalize, cache_score=self.cache_score, class_weight=weight,
            ignore_label=IGNORE, reduce=self.reduce, enable_double_backprop=True, axis=axis),

    def forward_expected(self, inputs):
        x, t = inputs
        shape, axis = self.shape_axis
        return _expected_labels(x, t, axis, self._class_weight(shape[axis]), self.reduce,
                                self.normalize),


def _soft_target(shape, axis, dtype):
    t = np.random.uniform(0, 1, shape)
    t.flat[::4] = 0  # zeros exercise t log t = 0
    t /= t.sum(axis=axis, keepdims=True)
    return t.astype(dtype)


@testing.parameterize(*testing.product({
    'shape_axis': [((3, 4), 1), ((2, 3, 2), 1)],
    'loss': ['cross-entropy', 'kl-divergence'],
    'reduce': ['mean', 'no'],
    'dtype': [np.float32],
}) + testing.product({
    'shape_axis': [((3, 4), 1)],
    'loss': ['kl-divergence'],
    'reduce': ['mean'],
    'dtype': [np.float16, np.float64],
}))
class TestSoftmaxCrossEntropySoftTarget(testing.FunctionTestCase):

    # soft targets are data: no gradient flows to them (as in Chainer)
    check_backward_options = {'no_grads': [False, True]}
    check_double_backward_options = {'no_grads': [False, True]}

    def before_test(self, test_name):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 1e-2, 'rtol': 1e-2}
            self.check_backward_options = {'no_grads': [False, True], 'atol': 5e-2,
                                           'rtol': 5e-2}

    def generate_inputs(self):
        shape, axis = self.shape_axis
        x = np.random.uniform(-2, 2, shape).astype(self.dtype)
        return x, _soft_target(shape, axis, self.dtype)

    def forward(self, inputs, device):
        x, t = inputs
        return F.softmax_cross_entropy(x, t, reduce=self.reduce, soft_target_loss=self.loss),

    def forward_expected(self, inputs):
        x, t = inputs
        axis = self.shape_axis[1]
        t64 = t.astype(np.float64)
        loss = -(t64 * _log_softmax(x, axis)).sum(axis=axis)
        if self.loss == 'kl-divergence':
            with np.errstate(divide='ignore', invalid='ignore'):
                loss += np.where(t64 > 0, t64 * np.log(t64), 0.0).sum(axis=axis)
        if self.reduce == 'mean':
            loss = np.asarray(loss.mean())
        return loss.astype(self.dtype),


# ----------------------------------------------------------------------- semantics


def test_ignored_positions_contribute_nothing():
    x = np.random.uniform(-1, 1, (5, 4))
    t = np.array([0, IGNORE, 3, IGNORE, 1], np.int32)
    other = x.copy()
    other[[1, 3]] = np.random.uniform(-5, 5, (2, 4))
    xv = catena.Variable(other)
    loss = F.softmax_cross_entropy(xv, t)
    assert loss.array == pytest.approx(float(F.softmax_cross_entropy(x, t).array))
    loss.backward()
    np.testing.assert_array_equal(xv.grad[[1, 3]], 0)
    assert np.abs(xv.grad[[0, 2, 4]]).min() > 0
    per_position = F.softmax_cross_entropy(other, t, reduce='no').array
    assert per_position.shape == (5,)
    np.testing.assert_array_equal(per_position[[1, 3]], 0)
    assert loss.array == pytest.approx(per_position.sum() / 3)


def test_ignore_label_may_be_a_class():
    x = np.random.uniform(-1, 1, (3, 4))
    t = np.array([2, 0, 2], np.int32)
    loss = F.softmax_cross_entropy(x, t, ignore_label=2, reduce='no').array
    assert loss[0] == 0 and loss[2] == 0 and loss[1] > 0


def test_all_ignored_gives_zero():
    x = catena.Variable(np.random.uniform(-1, 1, (2, 3)))
    loss = F.softmax_cross_entropy(x, np.full(2, IGNORE, np.int32))
    assert float(loss.array) == 0.0
    loss.backward()
    np.testing.assert_array_equal(x.grad, 0)


def test_normalize_false_divides_by_batch_size():
    x = np.random.uniform(-1, 1, (4, 3))
    t = np.array([0, IGNORE, 1, 2], np.int32)
    total = F.softmax_cross_entropy(x, t, reduce='no').array.sum()
    assert float(F.softmax_cross_entropy(x, t).array) == pytest.approx(total / 3)
    assert float(F.softmax_cross_entropy(x, t, normalize=False).array) == \
        pytest.approx(total / 4)


def test_gradient_is_softmax_minus_one_hot():
    x = np.random.uniform(-1, 1, (3, 5)).astype(np.float32)
    t = np.array([4, 0, 2], np.int32)
    for cache_score in (True, False):
        xv = catena.Variable(x)
        F.softmax_cross_entropy(xv, t, cache_score=cache_score).backward()
        expected = np.exp(_log_softmax(x, 1))
        expected[np.arange(3), t] -= 1
        np.testing.assert_allclose(xv.grad, expected / 3, rtol=1e-5, atol=1e-7)
        assert xv.grad.dtype == np.float32


def test_large_scores_do_not_overflow():
    x = np.array([[1000.0, 0.0, -1000.0], [-1000.0, -1000.0, -999.0]], np.float32)
    t = np.array([0, 2], np.int32)
    for cache_score in (True, False):
        xv = catena.Variable(x)
        loss = F.softmax_cross_entropy(xv, t, reduce='no', cache_score=cache_score)
        np.testing.assert_allclose(loss.array, [0.0, np.log1p(2 * np.exp(-1.0))], rtol=1e-6,
                                   atol=1e-6)
        loss.grad = np.ones(2, np.float32)
        loss.backward()
        e = np.exp(-1.0) / (1 + 2 * np.exp(-1.0))
        np.testing.assert_allclose(xv.grad, [[0, 0, 0], [e, e, -2 * e]], rtol=1e-5, atol=1e-7)


def test_second_order_gradient_is_taken():
    x = catena.Variable(np.random.uniform(-1, 1, (3, 4)))
    t = np.array([1, 0, 3], np.int32)
    loss = F.softmax_cross_entropy(x, t, enable_double_backprop=True)
    gx, = catena.grad([loss], [x], enable_double_backprop=True)
    F.sum(gx * gx).backward()
    assert x.grad is not None and np.abs(x.grad).max() > 0


# ------------------------------------------------------------------- bad arguments


@pytest.mark.parametrize('label', [3, -2, 100])
def test_labels_out_of_range_are_rejected(label):
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(ValueError, match=rf'got {label} \(t\.shape=\(2,\), x\.shape=\(2, 3\)\)'):
        F.softmax_cross_entropy(x, np.array([0, label], np.int32))


def test_labels_of_the_wrong_shape_are_rejected():
    x = np.zeros((2, 3, 4), np.float32)
    with pytest.raises(InvalidType, match=r'x\.shape=\(2, 3, 4\).*t\.shape=\(2, 3\)'):
        F.softmax_cross_entropy(x, np.zeros((2, 3), np.int32))
    with pytest.raises(InvalidType, match=r'x\.shape=\(2, 3\).*t\.shape=\(3,\)'):
        F.softmax_cross_entropy(x[:, :, 0], np.zeros(3, np.int32))


def test_labels_of_the_wrong_dtype_are_rejected():
    x = np.zeros((2, 3), np.float32)
    with pytest.raises(InvalidType, match=r'x\.dtype=float32.*t\.dtype=uint8'):
        F.softmax_cross_entropy(x, np.zeros(2, np.uint8))
    # floating point labels are soft targets: they must have x's shape
    with pytest.raises(InvalidType, match=r'x\.shape=\(2, 3\).*t\.shape=\(2,\), t\.dtype=float'):
        F.softmax_cross_entropy(x, np.zeros(2, np.float32))


def test_integer_scores_are_rejected():
    with pytest.raises(InvalidType, match=r'x\.dtype\.kind == f'):
        F.softmax_cross_entropy(np.zeros((2, 3), np.int32), np.zeros(2, np.int32))


def test_class_weight_of_the_wrong_shape_is_rejected():
    with pytest.raises(InvalidType, match=r'class_weight\.shape=\(2,\), x\.shape=\(2, 3\)'):
        F.softmax_cross_entropy(np.zeros((2, 3), np.float32), np.zeros(2, np.int32),
                                class_weight=np.ones(2, np.float32))


@pytest.mark.parametrize('weight, match', [
    (np.ones((1, 3), np.float32), '1-dimensional'),
    (np.ones(3, np.int32), 'floating point'),
    (catena.Variable(np.ones(3, np.float32)), 'not a Variable'),
])
def test_class_weight_that_is_no_float_vector_is_a_value_error(weight, match):
    # checked before the scores: integer scores do not hide the mistake
    with pytest.raises(ValueError, match=match):
        F.softmax_cross_entropy(np.zeros((2, 3), np.int32), np.zeros(2, np.int32),
                                class_weight=weight)


@pytest.mark.parametrize('cache_score', [True, False])
def test_cached_softmax_is_exposed_as_y(cache_score):
    x = np.random.uniform(-1, 1, (4, 3)).astype(np.float32)
    loss = F.softmax_cross_entropy(catena.Variable(x), np.array([0, 1, 2, 1], np.int32),
                                   cache_score=cache_score)
    y = loss.creator.y
    if not cache_score:
        assert y is None
        return
    e = np.exp(x.astype(np.float64))
    np.testing.assert_allclose(y, e / e.sum(axis=1, keepdims=True), rtol=1e-6)


@pytest.mark.parametrize('normalize', [True, False])
def test_float16_mean_of_a_large_batch_does_not_overflow(normalize):
    x = np.random.uniform(-1, 1, (100000, 2)).astype(np.float16)
    t = np.random.randint(0, 2, 100000)
    t[::7] = IGNORE
    loss = F.softmax_cross_entropy(x, t, normalize=normalize)
    assert loss.dtype == np.float16
    expected = _expected_labels(x, t, 1, None, 'mean', normalize)
    np.testing.assert_allclose(float(loss.array), float(expected), rtol=5e-3)


def test_bad_options_are_rejected():
    x = np.zeros((2, 3), np.float32)
    t = np.zeros(2, np.int32)
    with pytest.raises(ValueError, match="reduce must be 'mean' or 'no'; got 'sum'"):
        F.softmax_cross_entropy(x, t, reduce='sum')
    with pytest.raises(ValueError, match='soft_target_loss'):
        F.softmax_cross_entropy(x, t, soft_target_loss='mse')
    with pytest.raises(InvalidType, match='axis'):
        F.softmax_cross_entropy(x, t, axis=2)
