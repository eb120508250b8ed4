"""The BlackOut link."""

# ruff: noqa: NPY002

import numpy as np

import catena.links as L
from catena import testing

_T = np.array([0, 3, 2], dtype=np.int32)


@testing.parameterize(*testing.product({'dtype': [np.float32, np.float64]}))
class TestBlackOut(testing.LinkTestCase):

    def setUp(self):
        self.samples = np.random.randint(0, 5, (3, 2)).astype(np.int32)

    def generate_params(self):
        return np.random.uniform(-1, 1, (5, 4)).astype(self.dtype),

    def create_link(self, initializers):
        link = L.BlackOut(4, [1, 2, 3, 4, 5], 2)
        link.W.array = initializers[0]  # the link has no dtype argument
        link.W.cleargrad()
        return link

    def generate_inputs(self):
        return np.random.uniform(-1, 1, (3, 4)).astype(self.dtype),

    def forward(self, link, inputs, device):
        link.sample_data = device.send(self.samples)
        return link(inputs[0], device.send(_T)),

    def forward_expected(self, link, inputs):
        x = inputs[0].astype(np.float64)
        w = link.W.array.astype(np.float64)
        losses = []
        for i, t in enumerate(_T):
            scores = np.array([x[i] @ w[t]] + [x[i] @ w[s] for s in self.samples[i]])
            p = np.exp(scores - scores.max())
            p /= p.sum()
            losses.append(-np.log(p[0]) - np.log(1 - p[1:]).sum())
        return np.asarray(np.mean(losses), dtype=self.dtype),


def test_draws_samples_and_initializes_w():
    np.random.seed(0)
    link = L.BlackOut(3, [0, 1, 1, 0], 5)
    assert link.W.shape == (4, 3) and np.isfinite(link.W.array).all()
    assert link.sample_size == 5 and link.sample_data is None
    loss = link(np.random.uniform(-1, 1, (2, 3)).astype(np.float32), np.array([1, 2], np.int32))
    assert loss.shape == () and np.isfinite(loss.array)
    drawn = link.sampler.sample((100,))
    assert set(np.unique(drawn)) <= {1, 2}
