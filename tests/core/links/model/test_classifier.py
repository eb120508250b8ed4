"""The Classifier link: loss and accuracy of a predictor against labels."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
import catena.links as L
from catena import testing


class _Affine(catena.Chain):
    """A tiny predictor: ``x @ W.T`` with its own Parameter."""

    def __init__(self, w):
        super().__init__()
        with self.init_scope():
            self.W = catena.Parameter(w)

    def forward(self, x, scale=1.0):
        return F.linear(x, self.W) * scale


def _log_softmax(y):
    y = y - y.max(axis=1, keepdims=True)
    return y - np.log(np.exp(y).sum(axis=1, keepdims=True))


_LABELS = np.array([0, 2, 1, 2], dtype=np.int32)


@testing.parameterize(*testing.product({'dtype': [np.float32, np.float64]}))
class TestClassifierLoss(testing.LinkTestCase):

    def generate_params(self):
        return np.random.uniform(-1, 1, (3, 5)).astype(self.dtype),

    def create_link(self, initializers):
        return L.Classifier(_Affine(*initializers))

    def generate_inputs(self):
        return np.random.uniform(-1, 1, (4, 5)).astype(self.dtype),

    def forward(self, link, inputs, device):
        x, = inputs
        return link(x, device.send(_LABELS)),

    def forward_expected(self, link, inputs):
        x, = inputs
        y = x @ link.predictor.W.array.T
        loss = -_log_softmax(y)[np.arange(4), _LABELS].mean()
        return np.asarray(loss, dtype=self.dtype),


def _model():
    return L.Classifier(_Affine(np.random.uniform(-1, 1, (3, 5)).astype(np.float32)))


def test_attributes_hold_prediction_loss_and_accuracy():
    model = _model()
    assert model.y is None and model.loss is None and model.accuracy is None
    assert model.compute_accuracy
    assert model.lossfun is F.softmax_cross_entropy and model.accfun is F.accuracy
    x = np.random.uniform(-1, 1, (4, 5)).astype(np.float32)
    loss = model(x, _LABELS)
    assert loss is model.loss
    y = x @ model.predictor.W.array.T
    np.testing.assert_allclose(model.y.array, y, rtol=1e-5, atol=1e-6)
    expected_loss = -_log_softmax(y.astype(np.float64))[np.arange(4), _LABELS].mean()
    np.testing.assert_allclose(loss.array, expected_loss, rtol=1e-5)
    np.testing.assert_allclose(model.accuracy.array, (y.argmax(axis=1) == _LABELS).mean())
    assert [name for name, _ in model.namedparams()] == ['/predictor/W']


def test_backward_reaches_the_predictor():
    model = _model()
    model.cleargrads()
    x = np.random.uniform(-1, 1, (4, 5)).astype(np.float32)
    model(x, _LABELS).backward()
    y = x @ model.predictor.W.array.T
    p = np.exp(_log_softmax(y))
    p[np.arange(4), _LABELS] -= 1
    np.testing.assert_allclose(model.predictor.W.grad, p.T @ x / 4, rtol=1e-4, atol=1e-6)


def test_compute_accuracy_off():
    model = _model()
    model.compute_accuracy = False
    model(np.zeros((4, 5), np.float32), _LABELS)
    assert model.loss is not None and model.accuracy is None


def test_custom_functions():
    calls = []

    def lossfun(y, t):
        calls.append('loss')
        return F.sum(y)

    def accfun(y, t):
        calls.append('acc')
        return F.sum(y) * 0

    model = L.Classifier(_Affine(np.ones((3, 5), np.float32)), lossfun=lossfun, accfun=accfun)
    loss = model(np.ones((2, 5), np.float32), np.zeros(2, np.int32))
    assert calls == ['loss', 'acc']
    assert float(loss.array) == 30.0


def test_label_key_position_and_keyword():
    x = np.random.uniform(-1, 1, (4, 5)).astype(np.float32)
    reference = _model()
    first = L.Classifier(reference.predictor, label_key=0)
    loss0 = first(_LABELS, x)
    by_position = L.Classifier(reference.predictor, label_key=1)
    loss1 = by_position(x, _LABELS, 2.0)
    by_name = L.Classifier(reference.predictor, label_key='t')
    loss2 = by_name(x, t=_LABELS, scale=2.0)
    np.testing.assert_allclose(loss1.array, loss2.array)
    np.testing.assert_allclose(by_name.y.array, 2.0 * first.y.array, rtol=1e-6)
    assert not np.allclose(loss0.array, loss1.array)


def test_label_key_errors():
    with pytest.raises(TypeError, match='label_key'):
        L.Classifier(_model().predictor, label_key=1.5)
    model = L.Classifier(_model().predictor, label_key=3)
    with pytest.raises(ValueError, match='Label key 3'):
        model(np.zeros((4, 5), np.float32), _LABELS)
    named = L.Classifier(_model().predictor, label_key='label')
    with pytest.raises(ValueError, match="'label'"):
        named(np.zeros((4, 5), np.float32), _LABELS)
