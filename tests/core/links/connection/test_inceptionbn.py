"""InceptionBN link: every device (test mode, against NumPy), pool types, stride, errors."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
from catena import testing
from catena.links.connection.inceptionbn import InceptionBN

EPS = 2e-5


def _conv(x, W, stride):
    k = W.shape[2]
    pad = k // 2
    xp = np.pad(x, [(0, 0), (0, 0), (pad, pad), (pad, pad)])
    oh = (xp.shape[2] - k) // stride + 1
    ow = (xp.shape[3] - k) // stride + 1
    y = np.zeros((x.shape[0], W.shape[0], oh, ow))
    for i in range(oh):
        for j in range(ow):
            patch = xp[:, :, i * stride:i * stride + k, j * stride:j * stride + k]
            y[:, :, i, j] = np.einsum('nchw,ochw->no', patch, W)
    return y


def _pool(x, kind, stride):
    fill = -np.inf if kind == 'max' else 0.0
    xp = np.pad(x, [(0, 0), (0, 0), (1, 1), (1, 1)], constant_values=fill)
    oh = (xp.shape[2] - 3) // stride + 1
    ow = (xp.shape[3] - 3) // stride + 1
    windows = [xp[:, :, i:i + stride * (oh - 1) + 1:stride, j:j + stride * (ow - 1) + 1:stride]
               for i in range(3) for j in range(3)]
    return np.max(windows, axis=0) if kind == 'max' else np.mean(windows, axis=0)


@testing.parameterize(*testing.product({
    'dtype': [np.float32, np.float64],
    'config': [('max', 2, 1), ('avg', 2, 1), ('max', 0, 2), ('avg', 0, 2)],
}))
class TestInceptionBN(testing.LinkTestCase):
    """In test mode each BatchNormalization (fresh statistics) divides by sqrt(1 + eps)."""

    dodge_nondifferentiable = True
    check_backward_options = {'atol': 5e-3, 'rtol': 5e-2}
    # The running statistics are persistents, not parameters: gradient_check
    # cannot cast them to float64 with the inputs, so check in the link's dtype.
    numerical_grad_dtype = None

    def create_link(self, initializers):
        pooltype, out1, stride = self.config
        proj_pool = 2 if out1 else None
        with catena.using_config('dtype', self.dtype):
            link = InceptionBN(2, out1, 1, 2, 1, 2, pooltype, proj_pool, stride)
        for name, param in link.namedparams():
            if name.endswith('/W'):
                param.array[...] = np.random.uniform(-1, 1, param.shape)
        return link

    def generate_inputs(self):
        x = np.random.permutation(32).reshape(1, 2, 4, 4) / 32.0 - 0.5  # no ties in max pool
        return x.astype(self.dtype),

    def forward(self, link, inputs, device):
        with catena.using_config('train', False):
            return link(*inputs),

    def forward_expected(self, link, inputs):
        pooltype, out1, stride = self.config
        x = inputs[0].astype(np.float64)

        def block(name, h, s=1):
            W = getattr(link, name).W.array.astype(np.float64)
            return np.maximum(_conv(h, W, s) / np.sqrt(1 + EPS), 0)

        outs = []
        if out1:
            outs.append(block('conv1', x))
        outs.append(block('conv3', block('proj3', x), stride))
        outs.append(block('conv33b', block('conv33a', block('proj33', x)), stride))
        pool = _pool(x, pooltype, stride)
        if out1:
            pool = block('poolp', pool)
        outs.append(pool)
        return np.concatenate(outs, axis=1).astype(self.dtype),


def test_structure():
    link = InceptionBN(3, 2, 2, 3, 2, 4, 'max', 5)
    assert link(np.ones((2, 3, 4, 4), np.float32)).shape == (2, 2 + 3 + 4 + 5, 4, 4)
    assert all(param.shape != () for param in link.params())
    assert not hasattr(InceptionBN(3, 0, 2, 3, 2, 4, 'avg'), 'conv1')
    assert InceptionBN(None, 0, 2, 3, 2, 4, 'avg', stride=2)(
        np.ones((1, 3, 5, 5), np.float32)).shape == (1, 3 + 4 + 3, 3, 3)


def test_errors():
    with pytest.raises(NotImplementedError, match='pooltype'):
        InceptionBN(3, 0, 2, 3, 2, 4, 'sum')
    with pytest.raises(ValueError, match='stride=1'):
        InceptionBN(3, 2, 2, 3, 2, 4, 'max', 2, stride=2)
    with pytest.raises(ValueError, match='proj_pool'):
        InceptionBN(3, 2, 2, 3, 2, 4, 'max')
    with pytest.raises(AssertionError, match='proj_pool'):
        InceptionBN(3, 2, 2, 3, 2, 4, 'max')
