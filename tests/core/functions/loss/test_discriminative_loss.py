"""discriminative_margin_based_clustering_loss: forward against loops, gradients, errors."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing
from catena.utils.type_check import InvalidType

K, N, H, W = 3, 2, 3, 3


def _norm(v, norm):
    return np.abs(v).sum() if norm == 1 else np.sqrt((v * v).sum())


def _expected(emb, labels, delta_v, delta_d, norm, alpha, beta, gamma):
    n_images, dim = emb.shape[:2]
    means = np.zeros((K, n_images, dim))
    counts = np.zeros((K, n_images))
    for c in range(K):
        for n in range(n_images):
            pixels = labels[n] == c + 1
            counts[c, n] = pixels.sum()
            if counts[c, n]:
                means[c, n] = emb[n][:, pixels].mean(axis=1)
    reg = sum(_norm(means[c], norm) for c in range(K)) / (K * n_images)
    var = 0.0
    for c in range(K):
        total = 0.0
        for n, h, w in zip(*np.nonzero(labels == c + 1)):
            total += max(_norm(means[c, n] - emb[n, :, h, w], norm) - delta_v, 0.0) ** 2
        var += total / max(counts[c].sum(), 1)
    var /= K
    dist = 0.0
    n_pairs = 0
    for a in range(K):
        for b in range(a + 1, K):
            n_pairs += 1
            for n in range(n_images):
                dist += max(2 * delta_d - _norm(means[a, n] - means[b, n], norm), 0.0) ** 2
    dist /= max(n_pairs * n_images, 1)
    return alpha * var, beta * dist, gamma * reg


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'norm': [1, 2],
    'weights': [(1.0, 1.0, 0.001), (0.5, 2.0, 0.1)],
}))
class TestDiscriminativeLoss(testing.FunctionTestCase):

    dodge_nondifferentiable = True
    delta_v = 0.3
    delta_d = 0.8

    def setUp(self):
        if self.dtype == np.float16:
            self.check_forward_options = {'atol': 2e-2, 'rtol': 2e-2}
            self.check_backward_options = {'atol': 1e-1, 'rtol': 1e-1, 'eps': 2e-2}
            self.check_double_backward_options = {'atol': 1e-1, 'rtol': 1e-1, 'eps': 2e-2}

    def generate_inputs(self):
        emb = np.random.uniform(-1, 1, (N, K, H, W)).astype(self.dtype)
        labels = np.random.randint(0, K + 1, (N, H, W)).astype(np.int32)
        labels[1][labels[1] == K] = 0  # instance K is absent from image 1
        labels[0, 0, :] = K  # and present in image 0
        return emb, labels

    def forward(self, inputs, device):
        emb, labels = inputs
        alpha, beta, gamma = self.weights
        return F.discriminative_margin_based_clustering_loss(
            emb, labels, self.delta_v, self.delta_d, K, self.norm, alpha, beta, gamma)

    def forward_expected(self, inputs):
        emb, labels = inputs
        terms = _expected(emb.astype(np.float64), labels, self.delta_v, self.delta_d,
                          self.norm, *self.weights)
        return tuple(np.asarray(term, dtype=self.dtype) for term in terms)


def test_well_separated_tight_clusters_cost_only_the_regularization():
    emb = np.zeros((1, 2, 1, 4))
    emb[0, :, 0, :2] = 3.0  # instance 1 at (3, 3), instance 2 at the origin
    labels = np.array([[[1, 1, 2, 2]]], np.int32)
    l_var, l_dist, l_reg = F.discriminative_margin_based_clustering_loss(
        emb, labels, 0.5, 1.5, 2, norm=2)
    assert float(l_var.array) == 0.0 and float(l_dist.array) == 0.0
    assert float(l_reg.array) == pytest.approx(0.001 * np.sqrt(18) / 2)


@pytest.mark.parametrize('norm', [1, 2])
def test_gradients_are_finite_at_zero_distances(norm):
    # Single-pixel instances (offset 0) and absent instances (equal means).
    emb = catena.Variable(np.random.uniform(-1, 1, (1, 3, 2, 2)))
    labels = np.array([[[1, 0], [0, 0]]], np.int32)
    terms = F.discriminative_margin_based_clustering_loss(emb, labels, 0.5, 1.5, 3, norm=norm)
    F.sum(F.stack(list(terms))).backward()
    assert np.isfinite(emb.grad).all()


def test_one_instance_has_no_distance_term():
    emb = np.random.uniform(-1, 1, (2, 1, 2, 2)).astype(np.float32)
    labels = np.ones((2, 2, 2), np.int32)
    l_var, l_dist, l_reg = F.discriminative_margin_based_clustering_loss(
        emb, labels, 0.1, 1.0, 1)
    assert isinstance(l_dist, catena.Variable) and float(l_dist.array) == 0.0
    assert l_dist.dtype == np.float32


def test_bad_arguments():
    emb = np.zeros((2, 3, 4, 4), np.float32)
    labels = np.zeros((2, 4, 4), np.int32)
    f = F.discriminative_margin_based_clustering_loss
    shapes = r'embeddings.shape=\(2, 3, 4, 4\).*labels.shape=\(2, 4, 3\)'
    with pytest.raises(InvalidType, match=shapes):
        f(emb, labels[:, :, :3], 0.5, 1.5, 3)
    with pytest.raises(InvalidType, match='embeddings.dtype=float32.*labels.dtype=float32'):
        f(emb, labels.astype(np.float32), 0.5, 1.5, 3)
    with pytest.raises(ValueError, match=r'max_embedding_dim=4.*\(2, 3, 4, 4\)'):
        f(emb, labels, 0.5, 1.5, 4)
    with pytest.raises(ValueError, match='norm must be 1 or 2'):
        f(emb, labels, 0.5, 1.5, 3, norm=3)
    with pytest.raises(ValueError, match='positive'):
        f(emb, labels, 0.5, 1.5, 0)
