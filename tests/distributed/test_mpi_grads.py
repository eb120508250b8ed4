"""multi_node_mean_grad and bcast_data of every MPI communicator variant."""

import warnings

import numpy
import pytest
from tests.distributed import _helpers
from tests.distributed._helpers import data_of

import catena

SHAPES = {'big': (20, 30), 'mid': (7, 5), 'scalar': (), 'small': (3,)}


def make_model(values_of_rank, dtypes):
    """A Chain of raw parameters whose values depend on ``values_of_rank``."""
    model = catena.Chain()
    with model.init_scope():
        for i, (name, shape) in enumerate(SHAPES.items()):
            setattr(model, name, catena.Parameter(
                data_of(values_of_rank, shape, dtypes[i % len(dtypes)], salt=100 + i)))
    return model


def grad_of(rank, name, dtype):
    i = list(SHAPES).index(name)
    return data_of(rank, SHAPES[name], dtype, salt=200 + i)


def set_grads(model, rank, skip=()):
    for name in SHAPES:
        param = getattr(model, name)
        param.grad = None if name in skip else grad_of(rank, name, param.dtype)


def mean_over_ranks(size, name, dtype, present=lambda rank: True):
    parts = [grad_of(r, name, dtype).astype(numpy.float64) if present(r)
             else numpy.zeros(SHAPES[name]) for r in range(size)]
    return numpy.mean(numpy.stack(parts), axis=0)


@pytest.fixture(params=list(_helpers.VARIANTS))
def variant(request, mpi_world):
    return request.param


@pytest.mark.parametrize('dtype', [numpy.float64, numpy.float32])
def test_mean_grad_matches_numpy(variant, mpi_world, dtype):
    comm = _helpers.make_communicator(variant, mpi_world)
    model = make_model(comm.rank, [dtype])
    set_grads(model, comm.rank)
    comm.multi_node_mean_grad(model)
    comm.finalize()
    for name in SHAPES:
        grad = getattr(model, name).grad
        assert grad.dtype == dtype and grad.shape == SHAPES[name]
        numpy.testing.assert_allclose(grad, mean_over_ranks(comm.size, name, dtype),
                                      rtol=1e-5 if dtype == numpy.float32 else 1e-13,
                                      atol=1e-7 if dtype == numpy.float32 else 1e-15)


def test_mean_grad_with_mixed_dtypes(variant, mpi_world):
    comm = _helpers.make_communicator(variant, mpi_world)
    model = make_model(comm.rank, [numpy.float32, numpy.float64])
    set_grads(model, comm.rank)
    comm.multi_node_mean_grad(model)
    comm.finalize()
    for name in SHAPES:
        param = getattr(model, name)
        assert param.grad.dtype == param.dtype
        numpy.testing.assert_allclose(param.grad, mean_over_ranks(comm.size, name, param.dtype),
                                      rtol=1e-5, atol=1e-7)


def test_mean_grad_travels_in_allreduce_grad_dtype(variant, mpi_world):
    comm = _helpers.make_communicator(variant, mpi_world, allreduce_grad_dtype=numpy.float16)
    model = make_model(comm.rank, [numpy.float32])
    set_grads(model, comm.rank)
    comm.multi_node_mean_grad(model)
    comm.finalize()
    for name in SHAPES:
        grad = getattr(model, name).grad
        assert grad.dtype == numpy.float32
        # The values went through float16: they are exactly representable there.
        numpy.testing.assert_array_equal(grad, grad.astype(numpy.float16).astype(numpy.float32))
        numpy.testing.assert_allclose(grad, mean_over_ranks(comm.size, name, numpy.float32),
                                      rtol=1e-2, atol=5e-3)


def test_zero_fill(variant, mpi_world):
    comm = _helpers.make_communicator(variant, mpi_world)
    filled = make_model(comm.rank, [numpy.float64])
    # 'scalar' has no gradient anywhere, 'small' only on even ranks.
    set_grads(filled, comm.rank, skip={'scalar'} | ({'small'} if comm.rank % 2 else set()))
    comm.multi_node_mean_grad(filled, zero_fill=True)
    left_out = make_model(comm.rank, [numpy.float64])
    set_grads(left_out, comm.rank, skip={'scalar'})
    comm.multi_node_mean_grad(left_out, zero_fill=False)
    comm.finalize()

    numpy.testing.assert_array_equal(filled.scalar.grad, numpy.zeros(()))
    numpy.testing.assert_allclose(
        filled.small.grad,
        mean_over_ranks(comm.size, 'small', numpy.float64, present=lambda r: r % 2 == 0),
        rtol=1e-13)
    numpy.testing.assert_allclose(filled.big.grad,
                                  mean_over_ranks(comm.size, 'big', numpy.float64), rtol=1e-13)
    assert left_out.scalar.grad is None
    numpy.testing.assert_allclose(left_out.small.grad,
                                  mean_over_ranks(comm.size, 'small', numpy.float64),
                                  rtol=1e-13)


def test_bcast_data_copies_rank_zero_parameters(variant, mpi_world):
    comm = _helpers.make_communicator(variant, mpi_world)
    model = make_model(comm.rank, [numpy.float32, numpy.float64])
    comm.bcast_data(model)
    comm.finalize()
    reference = make_model(0, [numpy.float32, numpy.float64])
    for name in SHAPES:
        got, expected = getattr(model, name).array, getattr(reference, name).array
        assert got.dtype == expected.dtype
        numpy.testing.assert_array_equal(got, expected)


def test_allreduce_grad_is_a_deprecated_alias(mpi_world):
    comm = _helpers.make_communicator('flat', mpi_world)
    model = make_model(comm.rank, [numpy.float64])
    set_grads(model, comm.rank)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        comm.allreduce_grad(model)
    comm.finalize()
    assert any(issubclass(w.category, DeprecationWarning) for w in caught)
    numpy.testing.assert_allclose(model.big.grad,
                                  mean_over_ranks(comm.size, 'big', numpy.float64), rtol=1e-13)


def test_bucket_size_changes_the_packing_not_the_result(mpi_world):
    results = {}
    buckets = {}
    for bucket_size_mb in (None, 1024 / 2 ** 20, 0):
        comm = _helpers.make_communicator('flat', mpi_world, bucket_size_mb=bucket_size_mb)
        model = make_model(comm.rank, [numpy.float64])
        set_grads(model, comm.rank)
        comm.multi_node_mean_grad(model)
        buckets[bucket_size_mb] = len(comm._grad_packer.buckets)
        results[bucket_size_mb] = {name: getattr(model, name).grad for name in SHAPES}
        comm.finalize()
    # 'big' (4800 B) exceeds 1 KiB alone; 'mid', 'scalar' and 'small' (360 B) share one.
    assert buckets == {None: 1, 1024 / 2 ** 20: 2, 0: len(SHAPES)}
    for name in SHAPES:
        numpy.testing.assert_allclose(results[0][name], results[None][name], rtol=1e-13)
        numpy.testing.assert_allclose(results[1024 / 2 ** 20][name], results[None][name],
                                      rtol=1e-13)


def test_pack_max_kb_sends_large_gradients_in_place_with_the_same_result(mpi_world):
    results = {}
    packed_counts = {}
    for pack_max_kb in (None, 1, 0):
        comm = _helpers.make_communicator('flat', mpi_world, pack_max_kb=pack_max_kb)
        model = make_model(comm.rank, [numpy.float64])
        set_grads(model, comm.rank)
        comm.multi_node_mean_grad(model)
        packed_counts[pack_max_kb] = sum(len(b.members) for b in comm._grad_packer.buckets)
        results[pack_max_kb] = {name: getattr(model, name).grad for name in SHAPES}
        comm.finalize()
    # 'big' (4800 B) is over 1 KiB; every gradient, the 8-byte 'scalar' too, is over 0.
    assert packed_counts == {None: len(SHAPES), 1: len(SHAPES) - 1, 0: 0}
    for name in SHAPES:
        for pack_max_kb in (1, 0):
            numpy.testing.assert_allclose(results[pack_max_kb][name], results[None][name],
                                          rtol=1e-13)
        numpy.testing.assert_allclose(results[None][name],
                                      mean_over_ranks(comm.size, name, numpy.float64),
                                      rtol=1e-13)


def test_settings(mpi_world):
    comm = _helpers.make_communicator('flat', mpi_world)
    comm.set_config('allreduce_grad_dtype', numpy.float16)
    comm.set_config('bucket_size_mb', 4)
    comm.set_config('pack_max_kb', 16)
    config = comm.get_config()
    with pytest.raises(ValueError, match='unknown setting'):
        comm.set_config('no_such_setting', 1)
    with pytest.raises(ValueError, match='floating'):
        comm.set_config('allreduce_grad_dtype', numpy.int32)
    with pytest.raises(ValueError, match='bucket_size_mb'):
        comm.bucket_size_mb = -1
    with pytest.raises(ValueError, match='pack_max_kb'):
        comm.pack_max_kb = 'big'
    comm.finalize()
    assert config == {'allreduce_grad_dtype': numpy.dtype(numpy.float16), 'batched_copy': True,
                      'bucket_size_mb': 4, 'pack_max_kb': 16}
    assert comm.get_config('bucket_size_mb') == 4
