"""gather_*/scatter_* of multiprocess_parallel_updater: one packed float32 vector."""

import numpy
import pytest

import catena
import catena.links as L
from catena.training.updaters import multiprocess_parallel_updater as mpu


def _model():
    model = catena.Sequential(L.Linear(3, 2), L.Linear(2, 1, nobias=True))
    for param in model.params():
        param.array[...] = numpy.random.default_rng(0).standard_normal(param.shape)
    return model


def test_gather_refuses_cpu_links():
    model = _model()
    with pytest.raises(RuntimeError, match='only on GPU'):
        mpu.gather_grads(model)
    with pytest.raises(RuntimeError, match='only on GPU'):
        mpu.gather_params(model)


def test_pack_round_trip_in_name_order():
    source, target = _model(), _model()
    for param in target.params():
        param.array[...] = 0
    packed = mpu._gather(source, 'array')
    names = sorted(source.namedparams())
    assert packed.dtype == numpy.float32 and packed.shape == (sum(p.size for _, p in names),)
    numpy.testing.assert_array_equal(packed[:names[0][1].size], names[0][1].array.ravel())
    mpu.scatter_params(target, packed)
    for (_, a), (_, b) in zip(sorted(source.namedparams()), sorted(target.namedparams())):
        numpy.testing.assert_array_equal(a.array, b.array)

    source.cleargrads()
    grads = mpu._gather(source, 'grad')
    assert not grads.any()
    target.cleargrads()
    mpu.scatter_grads(target, grads + 1)
    assert all(p.grad is None for p in target.params())
    with pytest.raises(ValueError, match='hold'):
        mpu.scatter_params(target, packed[:-1])
