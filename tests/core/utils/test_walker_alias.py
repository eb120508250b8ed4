"""catena.utils.walker_alias.WalkerAlias: sampling frequencies, devices, errors."""

# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
from catena.utils.walker_alias import WalkerAlias


@pytest.mark.parametrize('probs', [[1, 2, 3, 4], [0.5, 0.0, 0.25, 0.25], [5], [1e-3, 1, 1, 7]])
def test_frequencies_follow_the_weights(probs):
    np.random.seed(0)
    sampler = WalkerAlias(probs)
    samples = sampler.sample((200000,))
    assert samples.dtype == np.int32 and samples.shape == (200000,)
    frequencies = np.bincount(samples, minlength=len(probs)) / samples.size
    np.testing.assert_allclose(frequencies, np.asarray(probs) / np.sum(probs), atol=5e-3)


def test_zero_weight_is_never_drawn_and_shapes():
    np.random.seed(1)
    sampler = WalkerAlias(np.array([0.0, 1.0, 0.0, 3.0]))
    samples = sampler.sample((50, 7))
    assert samples.shape == (50, 7)
    assert set(np.unique(samples)) <= {1, 3}
    assert sampler.threshold.dtype == np.float32 and sampler.values.shape == (8,)


def test_reproducible_under_seed():
    sampler = WalkerAlias([3, 1, 2])
    np.random.seed(3)
    a = sampler.sample((20,))
    np.random.seed(3)
    np.testing.assert_array_equal(a, sampler.sample((20,)))


def test_to_device():
    sampler = WalkerAlias([1, 2, 3])
    assert not sampler.use_gpu
    fake = catena.get_device('@fake')
    sampler.to_device(fake)
    assert sampler.device == fake
    assert catena.backend.get_device_from_array(sampler.threshold) == fake
    samples = sampler.sample((10,))
    assert catena.backend.get_device_from_array(samples) == fake
    sampler.to_cpu()
    assert type(sampler.sample((3,))) is np.ndarray


@pytest.mark.parametrize('probs', [[], [[1, 2]], [1, -1], [0, 0], [1, np.nan]])
def test_bad_weights(probs):
    with pytest.raises(ValueError, match='probs'):
        WalkerAlias(probs)
