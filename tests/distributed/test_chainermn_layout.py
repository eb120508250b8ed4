"""ChainerMN's module layout and its small helpers under catena.distributed."""

import importlib

import numpy
import pytest

import catena
from catena.distributed.communicators import _communication_utility, _memory_utility


@pytest.mark.parametrize('module,name', [
    ('communicators.mpi_communicator_base', 'MpiCommunicatorBase'),
    ('communicators.flat_communicator', 'FlatCommunicator'),
    ('communicators.naive_communicator', 'NaiveCommunicator'),
    ('communicators.dummy_communicator', 'DummyCommunicator'),
    ('communicators.communicator_base', 'CommunicatorBase'),
    ('iterators.multi_node_iterator', 'create_multi_node_iterator'),
    ('iterators.synchronized_iterator', 'create_synchronized_iterator'),
    ('extensions._multi_node_snapshot', 'multi_node_snapshot'),
    ('testing.device', 'get_device'),
])
def test_chainermn_module_names_hold_catenas_objects(module, name):
    found = getattr(importlib.import_module(f'catena.distributed.{module}'), name)
    assert found is getattr(catena.distributed, name, found)
    assert found is getattr(importlib.import_module(f'catena.distributed.{module.split(".")[0]}'),
                            name, found)


def test_unavailable_communicators_import_but_refuse_to_be_created():
    from catena.distributed.communicators.non_cuda_aware_communicator import (
        NonCudaAwareCommunicator,
    )
    from catena.distributed.communicators.pure_nccl_communicator import PureNcclCommunicator

    with pytest.raises(RuntimeError, match='non_cuda_aware') as info:
        NonCudaAwareCommunicator()
    assert isinstance(info.value, NotImplementedError)  # catena has none (compat.md)
    if PureNcclCommunicator.__module__.endswith('_unavailable'):  # no GPU plugin here
        with pytest.raises(RuntimeError, match='pure_nccl'):
            PureNcclCommunicator()
        assert not isinstance(catena.distributed.DummyCommunicator(), PureNcclCommunicator)


def test_nccl_module_without_cupy_says_why():
    from catena.distributed import nccl

    if nccl.is_available():
        assert nccl.get_build_version() > 0
        return
    with pytest.raises(RuntimeError, match='cupy.cuda.nccl'):
        nccl.get_build_version()
    with pytest.raises(AttributeError, match='NCCL is not available'):
        nccl.NcclCommunicator
    assert not hasattr(nccl, 'pytestmark')  # tools probing attributes get AttributeError


def test_testing_get_device():
    from catena.distributed import testing

    assert testing.get_device().name == '@numpy'
    assert testing.get_device(None, False) == catena.get_device('@numpy')


def test_max_buf_len_is_checked_before_any_communication():
    assert _communication_utility.check_max_buf_len(_communication_utility.INT_MAX - 1) \
        == _communication_utility.INT_MAX - 1
    for bad in (0, -1, _communication_utility.INT_MAX, 2.0, True):
        with pytest.raises(ValueError, match='max_buf_len'):
            _communication_utility.check_max_buf_len(bad)
        with pytest.raises(AssertionError):  # what ChainerMN raised
            _communication_utility.chunked_bcast_obj(1, None, bad)


def test_memory_utility_buffers_and_parameter_sets():
    array = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)[:, ::2]
    buffer = _memory_utility.array_to_buffer_object(array)
    assert isinstance(buffer, numpy.ndarray) and buffer.flags.c_contiguous
    numpy.testing.assert_array_equal(buffer, array)
    link = catena.links.Linear(3, 2)
    link.cleargrads()
    assert [p.name for p in _memory_utility.extract_params_set_data(link)] == ['W', 'b']
    assert _memory_utility.extract_params_set_grad(link, zero_fill=False) == []
    params = _memory_utility.extract_params_set_grad(link, zero_fill=True)
    assert _memory_utility.count_grad_elements(params, zero_fill=True) == 8


def test_control_messages_round_trip():
    from catena.distributed.iterators.multi_node_iterator import _build_ctrl_msg, _parse_ctrl_msg

    message = _build_ctrl_msg(True, False, True, False, 17)
    assert _parse_ctrl_msg(message) == (True, False, True, False, 17)
    numpy.testing.assert_array_equal(_build_ctrl_msg(*_parse_ctrl_msg(message)), message)
    with pytest.raises(ValueError, match='5 fields'):
        _parse_ctrl_msg(numpy.zeros(3))


def test_checkpoint_stats_and_file_names(tmp_path):
    from catena.distributed.extensions.checkpoint import (
        _CheckpointStats,
        create_multi_node_checkpointer,
    )

    stats = _CheckpointStats()
    assert 'No checkpoint' in stats.report()
    for _ in range(3):
        stats.start()
        stats.end()
    assert stats.report().startswith('3 checkpoint(s) saved')
    with pytest.raises(RuntimeError, match='without start'):
        stats.end()
    comm = catena.distributed.create_communicator('dummy')
    checkpointer = create_multi_node_checkpointer('run', comm, path=str(tmp_path))
    names = checkpointer._filenames([5, 12])
    assert names == ['run.0.5', 'run.0.12']
    assert checkpointer._parse_filenames(names + ['other.0.3', 'run.x.1']) == [
        ('run', 0, 5), ('run', 0, 12)]
    checkpointer.save(catena.links.Linear(2, 2), 4)
    assert checkpointer.get_stats().startswith('1 checkpoint(s) saved')


def test_backend_module_reaches_the_backends_as_chainer_does():
    from catena.backend import cuda, intel64

    assert cuda is importlib.import_module('catena.backends.cuda')
    assert intel64 is importlib.import_module('catena.backends.intel64')


def test_debug_mode_refuses_diverged_gradients_and_config_scope_records():
    comm = catena.distributed.create_communicator('dummy')
    from catena.distributed.communicators.base import check_not_diverged

    grads = [numpy.ones(2), numpy.array([1.0, numpy.nan])]
    check_not_diverged(grads)  # not in debug mode: no check
    with catena.using_config('debug', True):
        check_not_diverged(grads[:1])
        with pytest.raises(ValueError, match=' diverged '):
            check_not_diverged(grads)
    with comm.config_scope():
        comm.foobar = 3
    comm.other = 4
    assert comm._configs == {'foobar': 3} and comm.foobar == 3
