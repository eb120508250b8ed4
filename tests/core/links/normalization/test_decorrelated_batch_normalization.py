"""The DecorrelatedBatchNormalization link."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.links as L


def _whiten(x, groups, eps):
    b, c = x.shape
    g = x.reshape(b, groups, c // groups).transpose(1, 2, 0)  # (groups, C, b)
    mean = g.mean(axis=2, keepdims=True)
    centred = g - mean
    out = np.empty_like(centred)
    for i in range(groups):
        cov = centred[i] @ centred[i].T / b + eps * np.eye(c // groups)
        vals, vecs = np.linalg.eigh(cov)
        out[i] = vecs @ np.diag(vals ** -0.5) @ vecs.T @ centred[i]
    return out.transpose(2, 0, 1).reshape(b, c), mean[..., 0]


@pytest.mark.parametrize('groups', [1, 2])
def test_train_whitens_and_updates_statistics(groups):
    x = np.random.uniform(-1, 1, (20, 4)) @ np.random.uniform(-1, 1, (4, 4))
    link = L.DecorrelatedBatchNormalization(4, groups=groups, dtype=np.float64)
    assert link.avg_mean.shape == (groups, 4 // groups)
    np.testing.assert_array_equal(link.avg_projection[0], np.eye(4 // groups))
    y = link(x)
    expected, mean = _whiten(x, groups, 2e-5)
    np.testing.assert_allclose(y.array, expected, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(link.avg_mean, 0.1 * mean, rtol=1e-6)
    assert not np.allclose(link.avg_projection[0], np.eye(4 // groups))


def test_test_mode_uses_running_statistics():
    link = L.DecorrelatedBatchNormalization(4, groups=2, dtype=np.float64)
    link.avg_mean[...] = np.random.uniform(-1, 1, (2, 2))
    link.avg_projection[...] = np.random.uniform(-1, 1, (2, 2, 2))
    x = np.random.uniform(-1, 1, (3, 4))
    with catena.using_config('train', False):
        y = link(x)
    g = x.reshape(3, 2, 2)
    expected = np.einsum('gij,bgj->bgi', link.avg_projection,
                         g - link.avg_mean).reshape(3, 4)
    np.testing.assert_allclose(y.array, expected, rtol=1e-6, atol=1e-9)


def test_gradient_flows_and_persistents():
    link = L.DecorrelatedBatchNormalization(4, groups=2)
    assert list(link.params()) == []
    assert {'avg_mean', 'avg_projection', 'N'} <= set(link._persistent)
    x = catena.Variable(np.random.uniform(-1, 1, (6, 4)).astype(np.float32))
    y = link(x)
    catena.functions.sum(y * np.arange(4, dtype=np.float32)).backward()
    assert x.grad.shape == (6, 4) and np.isfinite(x.grad).all()


def test_finetune_and_errors():
    link = L.DecorrelatedBatchNormalization(4, groups=1, dtype=np.float64)
    x = np.random.uniform(-1, 1, (8, 4))
    link(x, finetune=True)
    assert link.N == 1
    np.testing.assert_allclose(link.avg_mean[0], x.mean(0))
    link.start_finetuning()
    assert link.N == 0
    with pytest.raises(ValueError, match='groups'):
        L.DecorrelatedBatchNormalization(6, groups=4)


def test_save_and_load_round_trip(tmp_path):
    link = L.DecorrelatedBatchNormalization(4, groups=2)
    link(np.random.uniform(-1, 1, (6, 4)).astype(np.float32))
    path = str(tmp_path / 'dbn.npz')
    catena.serializers.save_npz(path, link)
    assert set(np.load(path).files) == {'N', 'avg_mean', 'avg_projection'}
    fresh = L.DecorrelatedBatchNormalization(4, groups=2)
    catena.serializers.load_npz(path, fresh)
    np.testing.assert_array_equal(fresh.avg_mean, link.avg_mean)
    np.testing.assert_array_equal(fresh.avg_projection, link.avg_projection)


@pytest.mark.parametrize('groups', [1, 2])
def test_loads_statistics_without_a_group_axis(tmp_path, groups):
    mean = np.arange(2, dtype=np.float32)
    projection = np.array([[1, 2], [3, 4]], np.float32)
    path = str(tmp_path / 'old.npz')
    np.savez(path, avg_mean=mean, avg_projection=projection, N=np.array(0))
    link = L.DecorrelatedBatchNormalization(2 * groups, groups=groups)
    if groups == 1:
        catena.serializers.load_npz(path, link)
    else:
        with pytest.warns(UserWarning, match='group axis'):
            catena.serializers.load_npz(path, link)
    np.testing.assert_array_equal(link.avg_mean, np.broadcast_to(mean, (groups, 2)))
    np.testing.assert_array_equal(link.avg_projection,
                                  np.broadcast_to(projection, (groups, 2, 2)))


def test_statistics_of_another_shape_are_refused_before_anything_changes(tmp_path):
    path = str(tmp_path / 'bad.npz')
    np.savez(path, avg_mean=np.zeros(3, np.float32),
             avg_projection=np.eye(2, dtype=np.float32)[None].repeat(2, 0), N=np.array(5))
    link = L.DecorrelatedBatchNormalization(4, groups=2)
    with pytest.raises(ValueError, match='avg_mean'):
        catena.serializers.load_npz(path, link)
    assert link.N == 0 and not link.avg_mean.any()
