"""classification_summary, precision, recall, f1_score: per-class counts, ignore_label, errors."""

# Chainer-style tests draw from NumPy's global generator, which the test case seeds.
# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType


def _summary(y, t, label_num, beta, ignore_label):
    """Per-class precision, recall, F-beta and support, counted sample by sample."""
    pred = y.argmax(axis=1).ravel()
    true = t.ravel()
    tp = np.zeros(label_num)
    predicted = np.zeros(label_num)
    support = np.zeros(label_num, dtype=np.int64)
    for p, c in zip(pred, true):
        if c == ignore_label:
            continue
        support[c] += 1
        if p < label_num:
            predicted[p] += 1
        if p == c:
            tp[c] += 1
    with np.errstate(invalid='ignore', divide='ignore'):
        precision = tp / predicted
        recall = tp / support
        fbeta = (1 + beta ** 2) * precision * recall / (beta ** 2 * precision + recall)
    return precision, recall, fbeta, support


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'shapes': [((30, 3), (30,)), ((6, 4, 3), (6, 3)), ((8, 3, 1), (8,))],
    'label_num': [None, 3],
    'beta': [1.0, 2.0],
    'ignore_label': [-1, 0],
}))
class TestClassificationSummary(testing.FunctionTestCase):
    skip_backward_test = True
    skip_double_backward_test = True

    def generate_inputs(self):
        y_shape, t_shape = self.shapes
        n_class = y_shape[1]
        y = np.random.uniform(-1, 1, y_shape).astype(self.dtype)
        t = np.random.randint(-1 if self.ignore_label == -1 else 0, 3, t_shape)
        # Every class is present and predicted at least once for sure (class 0 is
        # then left out when it is the ignore_label: its recall is 0 / 0).
        y_flat = np.moveaxis(y, 1, -1).reshape(-1, n_class)
        t_flat = t.reshape(-1)
        for c in range(3):
            t_flat[c] = c
            y_flat[c] = -1
            y_flat[c, c] = 2
        y = np.ascontiguousarray(np.moveaxis(y_flat.reshape(
            (y_shape[0],) + y_shape[2:] + (n_class,)), -1, 1))
        t = t_flat.reshape(t_shape).astype(np.int32)
        return y, t

    def forward(self, inputs, device):
        y, t = inputs
        return F.classification_summary(y, t, label_num=self.label_num, beta=self.beta,
                                        ignore_label=self.ignore_label)

    def forward_expected(self, inputs):
        y, t = inputs
        label_num = self.label_num
        if label_num is None:
            label_num = int(t[t != self.ignore_label].max()) + 1
        precision, recall, fbeta, support = _summary(y, t, label_num, self.beta,
                                                     self.ignore_label)
        return (precision.astype(self.dtype), recall.astype(self.dtype),
                fbeta.astype(self.dtype), support.astype(np.intp))


def test_against_hand_counts():
    # Predictions: 0, 1, 1, 2, 0, (ignored), 1.
    y = np.array([[0.9, 0.0, 0.1], [0.1, 0.8, 0.1], [0.1, 0.8, 0.1], [0.1, 0.2, 0.7],
                  [0.6, 0.3, 0.1], [0.2, 0.5, 0.3], [0.3, 0.4, 0.3]], np.float32)
    t = np.array([0, 1, 0, 2, 0, -1, 2], np.int32)
    precision, recall, f1, support = F.classification_summary(y, t)
    np.testing.assert_allclose(precision.array, [1.0, 1 / 3, 1.0], rtol=1e-6)
    np.testing.assert_allclose(recall.array, [2 / 3, 1.0, 0.5], rtol=1e-6)
    np.testing.assert_allclose(f1.array, [0.8, 0.5, 2 / 3], rtol=1e-6)
    np.testing.assert_array_equal(support.array, [3, 1, 2])
    assert precision.dtype == np.float32 and support.dtype.kind == 'i'
    for value in (precision, recall, f1, support):
        assert not value.requires_grad and value.creator is None
    p, s = F.precision(y, t)
    np.testing.assert_array_equal(p.array, precision.array)
    np.testing.assert_array_equal(s.array, support.array)
    np.testing.assert_array_equal(F.recall(y, t)[0].array, recall.array)
    np.testing.assert_array_equal(F.f1_score(y, t)[0].array, f1.array)
    f2, _ = F.fbeta_score(y, t, beta=2.0)
    np.testing.assert_allclose(f2.array, 5 * precision.array * recall.array
                               / (4 * precision.array + recall.array), rtol=1e-6)


def test_zero_denominators_give_nan_and_label_num_pads():
    y = np.array([[0.9, 0.1, 0.0], [0.8, 0.2, 0.0]], np.float64)
    t = np.array([0, 1], np.int32)
    precision, recall, f1, support = F.classification_summary(y, t, label_num=4)
    np.testing.assert_array_equal(support.array, [1, 1, 0, 0])
    np.testing.assert_allclose(precision.array[0], 0.5)
    assert np.isnan(precision.array[1:]).all()  # never predicted
    np.testing.assert_allclose(recall.array[:2], [1.0, 0.0])
    assert np.isnan(recall.array[2:]).all()  # never present
    assert np.isnan(f1.array[1:]).all()


def test_predictions_beyond_label_num_are_dropped():
    y = np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], np.float32)
    t = np.array([0, 0, 1], np.int32)
    precision, recall, _, support = F.classification_summary(y, t, label_num=2)
    np.testing.assert_allclose(precision.array, [1.0, 1.0])
    np.testing.assert_allclose(recall.array, [0.5, 1.0])
    np.testing.assert_array_equal(support.array, [2, 1])


def test_errors():
    y = np.zeros((3, 4), np.float32)
    with pytest.raises(InvalidType, match=r't\.dtype\.kind'):
        F.classification_summary(y, np.zeros(3, np.float32))
    with pytest.raises(InvalidType, match=r'y\.shape\[0\] == t\.shape\[0\]'):
        F.classification_summary(y, np.zeros(4, np.int32))
    with pytest.raises(ValueError, match=r't \(shape \(3,\), dtype int32\).*\[0, 2\).*'
                                         r'label_num is 2.*2 to 3'):
        F.classification_summary(y, np.array([0, 2, 3], np.int32), label_num=2)
    with pytest.raises(ValueError, match='from -2'):
        F.classification_summary(y, np.array([0, -2, 1], np.int32))
    with pytest.raises(ValueError, match='label_num'):
        F.classification_summary(y, np.zeros(3, np.int32), label_num=-1)
    with pytest.raises(TypeError, match='beta'):
        F.classification_summary(y, np.zeros(3, np.int32), beta='2')
    assert catena.functions.precision is F.precision
