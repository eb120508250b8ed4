"""The pure_nccl communicator of catena-cuda.

Most tests run the NCCL logic (packing, casts, the division by the number of
ranks, zero_fill, buckets, broadcasts, the lazy connection) on the CPU: a
fake NCCL backend sums NumPy buffers, and a simulated job runs one thread per
rank, so sizes above 1 need neither MPI nor GPUs. Tests of the communicator
class over MPI importorskip mpi4py; GPU tests need CuPy, a GPU and NCCL.
"""

from __future__ import annotations

import collections
import contextlib
import copy
import threading
import types

import numpy
import pytest

import catena
import catena.distributed as dist
import catena.links as L

catena_cuda = pytest.importorskip('catena_cuda')

from catena_cuda import plugin  # noqa: E402
from catena_cuda.distributed import (  # noqa: E402
    PureNcclCommunicator,
    _exchange,
    _nccl,
    communicators,
)

GPU = catena_cuda.available
NCCL = _nccl.nccl_available()
needs_nccl = pytest.mark.skipif(not NCCL, reason='needs CuPy, a CUDA GPU and NCCL')
needs_no_gpu = pytest.mark.skipif(GPU, reason='checks the behaviour without a GPU')
registered = pytest.mark.skipif(
    not hasattr(plugin, 'catena_register_communicators'),
    reason="catena_cuda.plugin does not implement catena_register_communicators yet")

# A collective that waits longer than this has lost a rank: the test fails instead of hanging.
BARRIER_TIMEOUT_S = 60
SIZES = (1, 3)
SHAPES = {'big': (20, 30), 'mid': (7, 5), 'scalar': (), 'small': (3,)}


# ---------------------------------------------------------------------------
# A fake NCCL on NumPy arrays, and a job of one thread per rank
# ---------------------------------------------------------------------------

class FakeWorld:
    """What the ranks of a simulated job share: a barrier, slots and a call log."""

    def __init__(self, size):
        self.size = size
        self.barrier = threading.Barrier(size, timeout=BARRIER_TIMEOUT_S)
        self.slots = [None] * size
        self.calls = [[] for _ in range(size)]
        self.ids_made = 0
        self.received_ids = [None] * size
        self._lock = threading.Lock()

    def exchange(self, rank, value):
        """Every rank's ``value``, in rank order (an allgather)."""
        self.slots[rank] = value
        self.barrier.wait()
        values = list(self.slots)
        self.barrier.wait()
        return values

    def new_id(self):
        with self._lock:
            self.ids_made += 1
            return f'fake-nccl-id-{self.ids_made}'.encode()

    def ops(self, rank, name):
        return [call for call in self.calls[rank] if call[0] == name]


class FakeObjects:
    """The object collectives of one rank (as the MPI communicator provides them)."""

    def __init__(self, world, rank):
        self.world, self.rank = world, rank

    def bcast_obj(self, obj, max_buf_len=None, root=0):
        return copy.deepcopy(self.world.exchange(self.rank, obj)[root])

    def allgather_obj(self, obj):
        return self.world.exchange(self.rank, obj)


class FakeComm:
    """One rank's NCCL communicator: sums and broadcasts host buffers as NCCL would."""

    def __init__(self, world, rank, device):
        self.world, self.rank, self.device = world, rank, device
        self.handle = ('fake-nccl', rank)
        self.destroyed = False

    def _check(self, array):
        assert isinstance(array, numpy.ndarray) and array.ndim == 1
        assert array.flags.c_contiguous

    def all_reduce_sum(self, send, recv):
        self._check(send)
        self._check(recv)
        assert (send.dtype, send.size) == (recv.dtype, recv.size)
        self.world.calls[self.rank].append(('all_reduce', send.dtype, send.size))
        parts = self.world.exchange(self.rank, send.copy())
        assert len({(part.dtype, part.size) for part in parts}) == 1, 'ranks disagree'
        total = parts[0].copy()
        for part in parts[1:]:
            total += part
        recv[...] = total

    def bcast(self, buffer, root):
        self._check(buffer)
        self.world.calls[self.rank].append(('bcast', buffer.dtype, buffer.size))
        parts = self.world.exchange(self.rank, buffer.copy() if self.rank == root else None)
        assert parts[root].dtype == buffer.dtype and parts[root].size == buffer.size
        if self.rank != root:
            buffer[...] = parts[root]

    def destroy(self):
        self.destroyed = True


class FakeBackend:
    """NcclBackend on NumPy arrays; ``accept`` and ``device_of`` simulate where arrays live."""

    def __init__(self, world, accept=None, device_of=None):
        self.world = world
        self._accept = accept or (lambda array: isinstance(array, numpy.ndarray))
        self._device_of = device_of or (lambda array: 0)

    def accepts(self, array):
        return self._accept(array)

    def device_of(self, array):
        return self._device_of(array)

    def on_device(self, device):
        return contextlib.nullcontext()

    def unique_id(self):
        return self.world.new_id()

    def connect(self, size, unique_id, rank, device):
        assert size == self.world.size
        self.world.received_ids[rank] = unique_id
        self.world.calls[rank].append(('connect', device))
        return FakeComm(self.world, rank, device)


def make_exchange(world, rank, backend=None, inter_rank=None, bucket_bytes=None):
    return _exchange.NcclExchange(
        backend or FakeBackend(world), rank=rank, size=world.size,
        inter_rank=rank if inter_rank is None else inter_rank,
        objects=FakeObjects(world, rank), bucket_bytes=bucket_bytes)


def run_ranks(world, body):
    """Runs ``body(rank)`` on one thread per rank; returns the results in rank order."""
    results = [None] * world.size
    errors = [None] * world.size

    def target(rank):
        try:
            results[rank] = body(rank)
        except BaseException as error:  # noqa: BLE001 - re-raised in the test's thread
            errors[rank] = error
            world.barrier.abort()

    threads = [threading.Thread(target=target, args=(rank,), daemon=True)
               for rank in range(world.size)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(BARRIER_TIMEOUT_S * 2)
    assert not any(thread.is_alive() for thread in threads), 'a simulated rank hangs'
    real = [e for e in errors if e is not None and not isinstance(e, threading.BrokenBarrierError)]
    if real:
        raise real[0]
    if any(errors):
        raise next(e for e in errors if e is not None)
    return results


# ---------------------------------------------------------------------------
# Models and references
# ---------------------------------------------------------------------------

def values(seed, shape, dtype):
    rng = numpy.random.default_rng(seed)
    return rng.uniform(-1, 1, size=shape).astype(dtype)


def make_model(rank, dtypes):
    """A Chain of raw parameters whose values depend on ``rank``."""
    model = catena.Chain()
    with model.init_scope():
        for i, (name, shape) in enumerate(SHAPES.items()):
            setattr(model, name, catena.Parameter(
                values(1000 * rank + i, shape, dtypes[i % len(dtypes)])))
    return model


def grad_of(rank, name, dtype):
    return values(5000 + 1000 * rank + list(SHAPES).index(name), SHAPES[name], dtype)


def set_grads(model, rank, skip=()):
    for name in SHAPES:
        param = getattr(model, name)
        param.grad = None if name in skip else grad_of(rank, name, param.dtype)


def mean_over_ranks(size, name, dtype, present=lambda rank: True):
    parts = [grad_of(r, name, dtype).astype(numpy.float64) if present(r)
             else numpy.zeros(SHAPES[name]) for r in range(size)]
    return numpy.mean(numpy.stack(parts), axis=0)


def nccl_constants():
    names = ['NCCL_INT8', 'NCCL_UINT8', 'NCCL_INT32', 'NCCL_UINT32', 'NCCL_INT64',
             'NCCL_UINT64', 'NCCL_FLOAT16', 'NCCL_FLOAT32', 'NCCL_FLOAT64']
    return types.SimpleNamespace(**{name: i for i, name in enumerate(names)})


# ---------------------------------------------------------------------------
# Plain functions
# ---------------------------------------------------------------------------

def test_datatype_and_count():
    module = nccl_constants()
    assert _nccl.datatype_and_count(numpy.float16, 7, module) == (module.NCCL_FLOAT16, 7)
    assert _nccl.datatype_and_count(numpy.float32, 7, module) == (module.NCCL_FLOAT32, 7)
    assert _nccl.datatype_and_count(numpy.float64, 0, module) == (module.NCCL_FLOAT64, 0)
    assert _nccl.datatype_and_count(numpy.int64, 3, module) == (module.NCCL_INT64, 3)
    assert _nccl.datatype_and_count(numpy.uint8, 3, module) == (module.NCCL_UINT8, 3)
    # A complex sum is the sum of its real and imaginary parts.
    assert _nccl.datatype_and_count(numpy.complex64, 5, module) == (module.NCCL_FLOAT32, 10)
    assert _nccl.datatype_and_count(numpy.complex128, 5, module) == (module.NCCL_FLOAT64, 10)
    for dtype in (numpy.bool_, numpy.int16, numpy.dtype('U3')):
        with pytest.raises(TypeError, match='NCCL cannot sum'):
            _nccl.datatype_and_count(dtype, 1, module)


def test_missing_nccl_message_names_the_package():
    assert "pip install 'nvidia-nccl-cu12" in _nccl.missing_nccl_message(12)
    assert "pip install 'nvidia-nccl-cu13'" in _nccl.missing_nccl_message(13)
    either = _nccl.missing_nccl_message(None)
    assert 'nvidia-nccl-cu12' in either and 'nvidia-nccl-cu13' in either
    assert "create_communicator('flat')" in either


def test_load_nccl_explains_a_missing_library(monkeypatch):
    monkeypatch.setattr(_nccl._runtime, 'probe', lambda: None)
    monkeypatch.setattr(_nccl, '_cuda_major', lambda: 12)
    monkeypatch.setattr(_nccl, '_import_nccl', lambda: types.SimpleNamespace(available=False))
    with pytest.raises(RuntimeError, match=r'cupy\.cuda\.nccl\.available is False.*'
                                           r'nvidia-nccl-cu12'):
        _nccl.load_nccl()

    def broken():
        raise ImportError('no module named cupy.cuda.nccl')

    monkeypatch.setattr(_nccl, '_import_nccl', broken)
    with pytest.raises(RuntimeError, match='could not import cupy.cuda.nccl'):
        _nccl.load_nccl()
    module = types.SimpleNamespace(available=True)
    monkeypatch.setattr(_nccl, '_import_nccl', lambda: module)
    assert _nccl.load_nccl() is module


@needs_no_gpu
def test_load_nccl_without_a_gpu_says_why():
    with pytest.raises(RuntimeError, match='needs CuPy and a CUDA GPU') as info:
        _nccl.load_nccl()
    assert catena_cuda._runtime.probe() in str(info.value)
    assert "create_communicator('flat')" in str(info.value)
    assert not _nccl.nccl_available()


def test_wire_dtype_follows_chainermn():
    float16 = numpy.dtype(numpy.float16)
    assert _exchange.wire_dtype(None) is None
    assert _exchange.wire_dtype(numpy.dtype(numpy.float16)) == float16
    with catena.using_config('dtype', catena.mixed16):
        assert _exchange.wire_dtype(None) == float16
        assert _exchange.wire_dtype(numpy.dtype(numpy.float32)) == numpy.float32
    with catena.using_config('dtype', numpy.float16):
        assert _exchange.wire_dtype(None) == float16
    with catena.using_config('dtype', numpy.float64):
        assert _exchange.wire_dtype(None) is None


def test_shared_gpus():
    assert _exchange.shared_gpus([('a', 0), ('a', 1), ('b', 0), ('b', 1)]) is None
    assert _exchange.shared_gpus([('a', 0), ('b', 0), ('a', 1), ('b', 0)]) == (1, 3, 0)


# ---------------------------------------------------------------------------
# The NCCL logic on a simulated job
# ---------------------------------------------------------------------------

@pytest.mark.parametrize('size', SIZES)
def test_mean_grad_matches_numpy_with_one_all_reduce_per_dtype(size):
    world = FakeWorld(size)
    dtypes = [numpy.float32, numpy.float64]

    def rank_body(rank):
        exchange = make_exchange(world, rank)
        model = make_model(rank, dtypes)
        set_grads(model, rank)
        exchange.mean_grad(model, False, None)
        return model

    models = run_ranks(world, rank_body)
    for rank, model in enumerate(models):
        for name in SHAPES:
            param = getattr(model, name)
            assert param.grad.dtype == param.dtype and param.grad.shape == SHAPES[name]
            numpy.testing.assert_allclose(param.grad,
                                          mean_over_ranks(size, name, param.dtype),
                                          rtol=1e-6, atol=1e-7)
            numpy.testing.assert_array_equal(param.grad, getattr(models[0], name).grad)
        reduces = world.ops(rank, 'all_reduce')
        # 'big' and 'scalar' are float32 (600 + 1 elements), 'mid' and 'small' float64 (35 + 3).
        assert sorted((str(d), n) for _, d, n in reduces) == [('float32', 601), ('float64', 38)]
        assert len(world.ops(rank, 'connect')) == 1


@pytest.mark.parametrize('size', SIZES)
def test_mean_grad_in_float16(size):
    world = FakeWorld(size)

    def rank_body(rank):
        exchange = make_exchange(world, rank)
        model = make_model(rank, [numpy.float32])
        set_grads(model, rank)
        exchange.mean_grad(model, False, numpy.dtype(numpy.float16))
        return model

    models = run_ranks(world, rank_body)
    for rank, model in enumerate(models):
        assert [(str(d), n) for _, d, n in world.ops(rank, 'all_reduce')] == [('float16', 639)]
        for name in SHAPES:
            grad = getattr(model, name).grad
            assert grad.dtype == numpy.float32
            # The sums went through float16: they are exactly representable there.
            numpy.testing.assert_array_equal(grad,
                                             grad.astype(numpy.float16).astype(numpy.float32))
            numpy.testing.assert_allclose(grad, mean_over_ranks(size, name, numpy.float32),
                                          rtol=1e-2, atol=2e-3)


def test_division_comes_before_the_float16_sum():
    # Three gradients of 40000: their float16 sum (120000) would overflow, their mean does not.
    world = FakeWorld(3)

    def rank_body(rank):
        exchange = make_exchange(world, rank)
        model = make_model(rank, [numpy.float32])
        for name in SHAPES:
            getattr(model, name).grad = numpy.full(SHAPES[name], 40000, dtype=numpy.float32)
        exchange.mean_grad(model, False, numpy.dtype(numpy.float16))
        return model

    for model in run_ranks(world, rank_body):
        for name in SHAPES:
            grad = getattr(model, name).grad
            assert numpy.isfinite(grad).all()
            numpy.testing.assert_allclose(grad, 40000, rtol=1e-3)


def test_default_wire_dtype_under_mixed16_is_float16():
    world = FakeWorld(1)
    exchange = make_exchange(world, 0)
    model = make_model(0, [numpy.float32, numpy.float16])
    set_grads(model, 0)
    expected = {name: getattr(model, name).grad.copy() for name in SHAPES}
    with catena.using_config('dtype', catena.mixed16):
        exchange.mean_grad(model, False, None)
    assert [(str(d), n) for _, d, n in world.ops(0, 'all_reduce')] == [('float16', 639)]
    for name in SHAPES:
        grad = getattr(model, name).grad
        assert grad.dtype == expected[name].dtype
        numpy.testing.assert_array_equal(
            grad, expected[name].astype(numpy.float16).astype(expected[name].dtype))


@pytest.mark.parametrize('size', SIZES)
def test_zero_fill(size):
    world = FakeWorld(size)

    def rank_body(rank):
        exchange = make_exchange(world, rank)
        filled = make_model(rank, [numpy.float64])
        # 'scalar' has no gradient anywhere, 'small' only on even ranks.
        set_grads(filled, rank, skip={'scalar'} | ({'small'} if rank % 2 else set()))
        exchange.mean_grad(filled, True, None)
        left_out = make_model(rank, [numpy.float64])
        set_grads(left_out, rank, skip={'scalar'})
        exchange.mean_grad(left_out, False, None)
        return filled, left_out

    for rank, (filled, left_out) in enumerate(run_ranks(world, rank_body)):
        numpy.testing.assert_array_equal(filled.scalar.grad, numpy.zeros(()))
        numpy.testing.assert_allclose(
            filled.small.grad,
            mean_over_ranks(size, 'small', numpy.float64, present=lambda r: r % 2 == 0),
            rtol=1e-13)
        numpy.testing.assert_allclose(filled.big.grad,
                                      mean_over_ranks(size, 'big', numpy.float64), rtol=1e-13)
        assert left_out.scalar.grad is None
        numpy.testing.assert_allclose(left_out.small.grad,
                                      mean_over_ranks(size, 'small', numpy.float64),
                                      rtol=1e-13)
        sizes = [n for _, _, n in world.ops(rank, 'all_reduce')]
        assert sizes == [639, 638]


@pytest.mark.parametrize('size', SIZES)
def test_buckets_change_the_calls_not_the_result(size):
    world = FakeWorld(size)
    limits = (None, 1024, 0)

    def rank_body(rank):
        grads = {}
        for limit in limits:
            exchange = make_exchange(world, rank, bucket_bytes=limit)
            model = make_model(rank, [numpy.float64])
            set_grads(model, rank)
            exchange.mean_grad(model, False, None)
            grads[limit] = {name: getattr(model, name).grad for name in SHAPES}
        return grads

    results = run_ranks(world, rank_body)
    for rank, grads in enumerate(results):
        # 'big' (4800 B) exceeds 1 KiB alone; 'mid', 'scalar' and 'small' (312 B) share one.
        sizes = [n for _, _, n in world.ops(rank, 'all_reduce')]
        assert sizes == [639] + [600, 39] + [600, 35, 1, 3]
        for limit in (1024, 0):
            for name in SHAPES:
                numpy.testing.assert_allclose(grads[limit][name], grads[None][name], rtol=1e-13)
        for name in SHAPES:
            numpy.testing.assert_allclose(grads[None][name],
                                          mean_over_ranks(size, name, numpy.float64),
                                          rtol=1e-13)


@pytest.mark.parametrize('size', SIZES)
def test_bcast_data_copies_rank_zero_parameters(size):
    world = FakeWorld(size)
    dtypes = [numpy.float32, numpy.float64, numpy.float16]

    def rank_body(rank):
        exchange = make_exchange(world, rank)
        model = make_model(rank, dtypes)
        arrays = {name: getattr(model, name).array for name in SHAPES}
        exchange.bcast_data(model)
        for name in SHAPES:
            assert getattr(model, name).array is arrays[name]  # updated in place
        return model

    reference = make_model(0, dtypes)
    for rank, model in enumerate(run_ranks(world, rank_body)):
        for name in SHAPES:
            got, expected = getattr(model, name).array, getattr(reference, name).array
            assert got.dtype == expected.dtype
            numpy.testing.assert_array_equal(got, expected)
        bcasts = sorted((str(d), n) for _, d, n in world.ops(rank, 'bcast'))
        assert bcasts == [('float16', 1), ('float32', 603), ('float64', 35)]
        assert world.ops(rank, 'all_reduce') == []


@pytest.mark.parametrize('size', SIZES)
def test_sum_in_place(size):
    world = FakeWorld(size)

    def rank_body(rank):
        exchange = make_exchange(world, rank)
        real = numpy.arange(6, dtype=numpy.float64) * (rank + 1)
        complex_ = (numpy.arange(4) + 1j * rank).astype(numpy.complex64)
        exchange.sum_in_place(real)
        exchange.sum_in_place(complex_)
        exchange.sum_in_place(numpy.empty(0, numpy.float32))
        return real, complex_

    ranks_sum = size * (size + 1) // 2
    for rank, (real, complex_) in enumerate(run_ranks(world, rank_body)):
        numpy.testing.assert_array_equal(real, numpy.arange(6) * ranks_sum)
        numpy.testing.assert_allclose(complex_, size * numpy.arange(4)
                                      + 1j * (size * (size - 1) // 2))
        assert len(world.ops(rank, 'all_reduce')) == 2  # nothing moves for the empty array


def test_the_connection_is_made_once_with_rank_zeros_id():
    world = FakeWorld(3)

    def rank_body(rank):
        exchange = make_exchange(world, rank)
        assert exchange.comm is None
        model = make_model(rank, [numpy.float32])
        exchange.bcast_data(model)
        set_grads(model, rank)
        exchange.mean_grad(model, False, None)
        exchange.mean_grad(model, False, None)
        exchange.sum_in_place(numpy.ones(2))
        comm = exchange.comm
        exchange.close()
        assert comm.destroyed and exchange.comm is None
        assert exchange.grad_packer.buckets == []
        return None

    run_ranks(world, rank_body)
    assert world.ids_made == 1
    assert world.received_ids == [b'fake-nccl-id-1'] * 3
    for rank in range(3):
        assert world.ops(rank, 'connect') == [('connect', 0)]


def test_ranks_of_one_node_on_one_gpu_fail_on_every_rank():
    world = FakeWorld(2)

    def rank_body(rank):
        exchange = make_exchange(world, rank, inter_rank=0)
        model = make_model(rank, [numpy.float32])
        set_grads(model, rank)
        with pytest.raises(ValueError, match=r'ranks 0 and 1 are on the same node and both use '
                                             r'GPU 0.*intra_rank'):
            exchange.mean_grad(model, False, None)
        assert exchange.comm is None

    run_ranks(world, rank_body)
    assert world.ids_made == 0
    assert world.calls == [[], []]


def test_ranks_of_one_node_on_distinct_gpus_connect():
    world = FakeWorld(2)

    def rank_body(rank):
        backend = FakeBackend(world, device_of=lambda array: rank)
        exchange = make_exchange(world, rank, backend=backend, inter_rank=0)
        exchange.sum_in_place(numpy.ones(3))
        return exchange.comm.device

    assert run_ranks(world, rank_body) == [0, 1]


def test_cpu_arrays_are_refused_before_any_communication():
    world = FakeWorld(1)
    exchange = make_exchange(world, 0, backend=FakeBackend(world, accept=lambda array: False))
    model = catena.Chain()
    with model.init_scope():
        model.l1 = L.Linear(3, 2)
    model.l1.W.grad = numpy.ones((2, 3), numpy.float32)
    model.l1.b.grad = numpy.ones(2, numpy.float32)
    with pytest.raises(TypeError, match=r"pure_nccl needs GPU arrays.*'/l1/W'.*numpy\.ndarray"
                                        r'.*"flat"'):
        exchange.mean_grad(model, False, None)
    with pytest.raises(TypeError, match=r"parameter '/l1/W' in bcast_data"):
        exchange.bcast_data(model)
    assert exchange.comm is None and world.calls == [[]]


def test_arrays_on_two_gpus_are_refused():
    world = FakeWorld(1)
    backend = FakeBackend(world, device_of=lambda array: 1 if array.dtype == numpy.float64 else 0)
    exchange = make_exchange(world, 0, backend=backend)
    model = make_model(0, [numpy.float32, numpy.float64])
    set_grads(model, 0)
    with pytest.raises(ValueError, match='arrays on GPU 0 and GPU 1'):
        exchange.mean_grad(model, False, None)
    assert exchange.comm is None


def test_arrays_on_another_gpu_than_the_connection_are_refused():
    world = FakeWorld(1)
    device = {'id': 0}
    exchange = make_exchange(world, 0, backend=FakeBackend(world,
                                                           device_of=lambda a: device['id']))
    exchange.sum_in_place(numpy.ones(2))
    device['id'] = 1
    with pytest.raises(ValueError, match='set up NCCL on GPU 0'):
        exchange.sum_in_place(numpy.ones(2))


def test_nothing_to_send_makes_no_call():
    world = FakeWorld(1)
    exchange = make_exchange(world, 0)
    model = make_model(0, [numpy.float32])
    exchange.mean_grad(model, False, None)  # no gradients
    exchange.bcast_data(catena.Chain())  # no parameters
    assert exchange.comm is None and world.calls == [[]] and world.ids_made == 0


# ---------------------------------------------------------------------------
# The communicator class and its registration
# ---------------------------------------------------------------------------

def test_communicators_hook_value():
    assert communicators() == {'pure_nccl': PureNcclCommunicator}
    assert issubclass(PureNcclCommunicator, dist.MpiCommunicatorBase)


def test_hierarchical_is_refused():
    with pytest.raises(ValueError, match='hierarchical'):
        PureNcclCommunicator(hierarchical=True)


@pytest.mark.skipif(NCCL, reason='checks the error without CuPy, a GPU or NCCL')
def test_creating_it_without_nccl_says_what_is_missing():
    with pytest.raises(RuntimeError, match='pure_nccl communicator needs') as info:
        PureNcclCommunicator()
    assert 'flat' in str(info.value)


@registered
def test_create_communicator_finds_pure_nccl():
    assert 'pure_nccl' in dist.communicator_names()
    if not NCCL:
        with pytest.raises(RuntimeError, match='pure_nccl communicator needs'):
            dist.create_communicator('pure_nccl')


def _fake_communicator_class():
    class FakePureNccl(PureNcclCommunicator):
        backend_factory = staticmethod(lambda: FakeBackend(FakeWorld(1)))

    return FakePureNccl


def test_communicator_over_mpi_with_a_fake_nccl():
    mpi = pytest.importorskip('mpi4py.MPI')
    comm = _fake_communicator_class()(mpi.COMM_SELF, allreduce_grad_dtype=numpy.float16,
                                      bucket_size_mb=1024 / 2 ** 20)
    world = comm._exchange.backend.world
    assert comm.size == 1 and comm.nccl_comm is None
    assert comm.get_config() == {'allreduce_grad_dtype': numpy.dtype(numpy.float16),
                                 'batched_copy': True, 'bucket_size_mb': 1024 / 2 ** 20}
    model = make_model(0, [numpy.float32])
    set_grads(model, 0, skip={'small'})
    expected = {name: getattr(model, name).grad for name in SHAPES if name != 'small'}
    expected = {name: grad.astype(numpy.float16).astype(numpy.float32)
                for name, grad in expected.items()}
    comm.multi_node_mean_grad(model, zero_fill=True)
    for name, grad in expected.items():
        numpy.testing.assert_array_equal(getattr(model, name).grad, grad)
    numpy.testing.assert_array_equal(model.small.grad, numpy.zeros(3, numpy.float32))
    assert comm.nccl_comm == ('fake-nccl', 0)
    # 'big' (1200 B in float16) fills a bucket alone; the 39 other elements share one.
    assert [n for _, _, n in world.ops(0, 'all_reduce')] == [600, 39]
    loose = [values(5, (7,), numpy.float32), values(6, (2, 2), numpy.float32)]
    expected_loose = [grad.astype(numpy.float16).astype(numpy.float32) for grad in loose]
    comm._mean_grad_arrays(loose)  # what double buffering calls
    for grad, expected_grad in zip(loose, expected_loose, strict=True):
        numpy.testing.assert_array_equal(grad, expected_grad)
    assert len(world.ops(0, 'all_reduce')) == 3
    comm.bcast_data(model)
    numpy.testing.assert_array_equal(comm.allreduce(numpy.arange(3.0)), numpy.arange(3.0))
    child = comm.split(0, 0)
    assert type(child) is type(comm) and child.bucket_size_mb == comm.bucket_size_mb
    child.finalize()
    nccl_comm = comm._exchange.comm
    comm.finalize()
    assert nccl_comm.destroyed


# ---------------------------------------------------------------------------
# On a GPU with NCCL (one rank: NCCL with one member sums and broadcasts for real)
# ---------------------------------------------------------------------------

class SingleRank:
    """The object collectives of a job of one rank."""

    def bcast_obj(self, obj, max_buf_len=None, root=0):
        return obj

    def allgather_obj(self, obj):
        return [obj]


def _gpu_model(dtypes):
    model = make_model(0, dtypes)
    model.to_device('@cupy:0')
    cupy = catena_cuda.cupy
    for name in SHAPES:
        param = getattr(model, name)
        param.grad = cupy.asarray(grad_of(0, name, param.dtype))
    return model


@pytest.mark.gpu
@needs_nccl
def test_real_nccl_mean_grad_bcast_and_sum_on_one_rank():
    cupy = catena_cuda.cupy
    backend = _nccl.CupyNccl()
    exchange = _exchange.NcclExchange(backend, rank=0, size=1, inter_rank=0,
                                      objects=SingleRank())
    model = _gpu_model([numpy.float32, numpy.float64])
    exchange.mean_grad(model, False, None)
    for name in SHAPES:
        param = getattr(model, name)
        assert isinstance(param.grad, cupy.ndarray) and param.grad.dtype == param.dtype
        numpy.testing.assert_array_equal(param.grad.get(), grad_of(0, name, param.dtype))
    assert backend.calls == {'connect': 1, 'all_reduce': 2}

    before = {name: getattr(model, name).array.get() for name in SHAPES}
    exchange.bcast_data(model)
    for name in SHAPES:
        numpy.testing.assert_array_equal(getattr(model, name).array.get(), before[name])
    assert backend.calls['bcast'] == 2

    x = cupy.arange(5, dtype=cupy.complex64) * (1 + 2j)
    expected = x.get()
    exchange.sum_in_place(x)
    numpy.testing.assert_array_equal(x.get(), expected)
    assert backend.calls['all_reduce'] == 3 and backend.calls['connect'] == 1
    exchange.close()


@pytest.mark.gpu
@needs_nccl
def test_real_nccl_float16_allreduce_grad_dtype():
    backend = _nccl.CupyNccl()
    exchange = _exchange.NcclExchange(backend, rank=0, size=1, inter_rank=0,
                                      objects=SingleRank())
    model = _gpu_model([numpy.float32])
    exchange.mean_grad(model, False, numpy.dtype(numpy.float16))
    for name in SHAPES:
        grad = getattr(model, name).grad
        assert grad.dtype == numpy.float32
        expected = grad_of(0, name, numpy.float32).astype(numpy.float16).astype(numpy.float32)
        numpy.testing.assert_array_equal(grad.get(), expected)
    assert backend.calls == {'connect': 1, 'all_reduce': 1}
    exchange.close()


@pytest.mark.gpu
@needs_nccl
def test_real_pure_nccl_communicator_on_one_rank():
    mpi = pytest.importorskip('mpi4py.MPI')
    cupy = catena_cuda.cupy
    comm = PureNcclCommunicator(mpi.COMM_SELF, allreduce_grad_dtype=numpy.float16)
    model = _gpu_model([numpy.float32])
    comm.multi_node_mean_grad(model)
    for name in SHAPES:
        expected = grad_of(0, name, numpy.float32).astype(numpy.float16).astype(numpy.float32)
        numpy.testing.assert_array_equal(getattr(model, name).grad.get(), expected)
    assert comm.nccl_comm is not None
    before = {name: getattr(model, name).array.get() for name in SHAPES}
    comm.bcast_data(model)
    for name in SHAPES:
        numpy.testing.assert_array_equal(getattr(model, name).array.get(), before[name])
    x = cupy.arange(4, dtype=cupy.float64)
    total = comm.allreduce(x)
    assert isinstance(total, cupy.ndarray)
    numpy.testing.assert_array_equal(total.get(), numpy.arange(4.0))
    assert collections.Counter(comm._exchange.backend.calls)['all_reduce'] == 2
    comm.finalize()
