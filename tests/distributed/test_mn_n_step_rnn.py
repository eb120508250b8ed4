"""create_multi_node_n_step_rnn: an n-step RNN whose states travel between ranks.

The MPI tests split an encoder-decoder (and, on three ranks, an
encoder-middle-decoder) model across ranks. Every rank builds the same
seeded links and the same one-process reference model, in which the states
flow from one RNN to the next directly, and checks its own part of the
distributed run against it. Ranks with no part skip.
"""

import copy

import numpy
import pytest
from tests.distributed import _helpers
from tests.distributed._helpers import data_of

import catena
import catena.distributed as dist
import catena.distributed.functions as DF
import catena.functions as F
import catena.links as L
from catena.distributed.links import MultiNodeNStepRNN, create_multi_node_n_step_rnn

N_LAYERS, IN_SIZE, OUT_SIZE = 2, 3, 4
KINDS = {'lstm': L.NStepLSTM, 'gru': L.NStepGRU, 'bilstm': L.NStepBiLSTM}
# One batch of three sequences per stage, of lengths in different orders.
LENGTHS = [(2, 4, 3), (3, 1, 4), (4, 4, 1)]


def float64_link(cls, n_layers):
    with catena.using_config('dtype', numpy.float64):
        return cls(n_layers, IN_SIZE, OUT_SIZE, 0.0)


def make_rnn(kind, salt):
    """A link of ``kind`` whose parameters are set from seeded data (same on every rank)."""
    link = float64_link(KINDS[kind], N_LAYERS)
    for i, (_, param) in enumerate(sorted(link.namedparams())):
        param.array[...] = 0.5 * data_of(0, param.shape, salt=100 * salt + i)
    return link


def make_xs(stage):
    return [catena.Variable(data_of(stage, (n, IN_SIZE), salt=7))
            for n in LENGTHS[stage]]


def loss_of(outputs):
    """A loss over every output of the last stage (states and sequences)."""
    *states, ys = outputs
    loss = 0
    for i, v in enumerate([*states, *ys]):
        loss = loss + F.sum(v * data_of(0, v.shape, salt=50 + i))
    return loss


def reference(kind, n_stages):
    """The stages run in one process: (links, xs per stage, last outputs, loss), after backward."""
    links = [make_rnn(kind, stage) for stage in range(n_stages)]
    xss = [make_xs(stage) for stage in range(n_stages)]
    n_cells = 2 if 'lstm' in kind else 1
    states = [None] * n_cells
    for link, xs in zip(links, xss):
        outputs = link(*states, xs)
        states = list(outputs[:n_cells])
    loss = loss_of(outputs)
    loss.backward()
    return links, xss, outputs, loss


def assert_grads_match(link, ref_link, xs, ref_xs):
    ref_params = dict(ref_link.namedparams())
    for name, param in link.namedparams():
        numpy.testing.assert_allclose(param.grad, ref_params[name].grad, rtol=1e-10,
                                      atol=1e-12, err_msg=name)
    for x, ref_x in zip(xs, ref_xs):
        numpy.testing.assert_allclose(x.grad, ref_x.grad, rtol=1e-10, atol=1e-12)


def run_stage(comm, kind, stage, n_stages, joined=False):
    """Runs this rank's stage of the distributed model and checks it against the reference.

    ``joined``: every rank backprops from a loss joined to its delegate by
    ``pseudo_connect`` (a None delegate on the last rank), as ChainerMN's
    examples do, instead of from the delegate (or the loss) itself.
    """
    ref_links, ref_xss, ref_outputs, ref_loss = reference(kind, n_stages)
    rank_in = None if stage == 0 else stage - 1
    rank_out = None if stage == n_stages - 1 else stage + 1
    link = make_rnn(kind, stage)
    model = create_multi_node_n_step_rnn(link, comm, rank_in=rank_in, rank_out=rank_out)
    xs = make_xs(stage)
    *outputs, delegate = model(xs)
    assert len(outputs) == model.n_cells + 1
    if rank_out is None:
        assert delegate is None
        loss = loss_of(outputs)
        if joined:
            loss, = DF.pseudo_connect(delegate, loss)
        numpy.testing.assert_allclose(loss.array, ref_loss.array, rtol=1e-12)
        for out, ref in zip([*outputs[:-1], *outputs[-1]], [*ref_outputs[:-1], *ref_outputs[-1]]):
            numpy.testing.assert_allclose(out.array, ref.array, rtol=1e-12, atol=1e-14)
        loss.backward()
    else:
        assert isinstance(delegate, catena.Variable) and delegate.shape == ()
        if joined:  # a local loss that adds nothing to the gradients
            local, = DF.pseudo_connect(delegate, F.sum(outputs[-1][0]) * 0.0)
            local.backward()
        else:
            delegate.backward()
    assert_grads_match(link, ref_links[stage], xs, ref_xss[stage])


@pytest.fixture(scope='module')
def comm(mpi_world):
    communicator = _helpers.make_communicator('naive', mpi_world)
    yield communicator
    communicator.finalize()


@pytest.mark.parametrize('joined', [False, True])
@pytest.mark.parametrize('kind', sorted(KINDS))
def test_encoder_decoder_on_two_ranks_match_one_process(comm, kind, joined):
    if comm.size < 2:
        pytest.skip('needs 2 ranks')
    if comm.rank >= 2:
        pytest.skip('only ranks 0 and 1 take part')
    run_stage(comm, kind, comm.rank, 2, joined)


@pytest.mark.parametrize('kind', ['gru', 'lstm'])
def test_middle_stage_receives_and_sends(comm, kind):
    if comm.size < 3:
        pytest.skip('needs 3 ranks')
    if comm.rank >= 3:
        pytest.skip('only ranks 0, 1 and 2 take part')
    run_stage(comm, kind, comm.rank, 3)


# ---------------------------------------------------------------- one process

@pytest.fixture
def dummy():
    return dist.create_communicator('dummy')


@pytest.mark.parametrize('cls, n_cells', [
    (L.NStepLSTM, 2), (L.NStepBiLSTM, 2), (L.NStepGRU, 1), (L.NStepBiGRU, 1),
    (L.NStepRNNTanh, 1), (L.NStepRNNReLU, 1), (L.NStepBiRNNTanh, 1), (L.NStepBiRNNReLU, 1)])
def test_without_peers_it_is_the_actual_link_plus_none(dummy, cls, n_cells):
    link = float64_link(cls, 1)
    model = create_multi_node_n_step_rnn(link, dummy)
    assert isinstance(model, MultiNodeNStepRNN) and model.n_cells == n_cells
    assert model.actual_rnn is link and model.communicator is dummy
    assert model.rank_in is None and model.rank_out is None
    xs = make_xs(0)
    result = model(xs)
    expected = link(*[None] * n_cells, xs)
    assert len(result) == n_cells + 2 and result[-1] is None
    for state, ref in zip(result[:n_cells], expected[:n_cells]):
        numpy.testing.assert_array_equal(state.array, ref.array)
    for y, ref in zip(result[n_cells], expected[n_cells]):
        numpy.testing.assert_array_equal(y.array, ref.array)


def test_rejects_a_link_that_is_no_n_step_rnn(dummy):
    with pytest.raises(TypeError, match='actual_link must be an n-step RNN.*got Linear'):
        create_multi_node_n_step_rnn(L.Linear(2, 3), dummy)


def test_rejects_a_non_communicator():
    with pytest.raises(TypeError, match='communicator must be .*got str'):
        create_multi_node_n_step_rnn(L.NStepGRU(1, 2, 3, 0.0), 'comm')


@pytest.mark.parametrize('name', ['rank_in', 'rank_out'])
@pytest.mark.parametrize('rank, message', [
    (0, 'is this process itself'), (1, r'rank in \[0, 1\), got 1'),
    (-1, r'got -1'), (True, 'got True'), ('1', "got '1'")])
def test_rejects_bad_ranks(dummy, name, rank, message):
    with pytest.raises(ValueError, match=f'{name}.*{message}'):
        create_multi_node_n_step_rnn(L.NStepGRU(1, 2, 3, 0.0), dummy, **{name: rank})


def test_params_are_those_of_the_actual_link(dummy):
    link = make_rnn('lstm', 0)
    model = create_multi_node_n_step_rnn(link, dummy)
    inner = dict(link.namedparams())
    outer = dict(model.namedparams())
    assert sorted(outer) == sorted('/actual_rnn' + name for name in inner)
    for name, param in inner.items():
        assert outer['/actual_rnn' + name] is param
    assert [id(p) for p in model.params()] == [id(p) for p in link.params()]


def test_serializes_like_a_chain(dummy, tmp_path):
    source = create_multi_node_n_step_rnn(make_rnn('gru', 0), dummy)
    path = tmp_path / 'model.npz'
    catena.serializers.save_npz(str(path), source)
    with numpy.load(path) as saved:
        assert sorted(saved.files) == sorted(
            name.lstrip('/') for name, _ in source.namedparams())
    target = create_multi_node_n_step_rnn(make_rnn('gru', 1), dummy)
    catena.serializers.load_npz(str(path), target)
    for (name, param), (_, ref) in zip(target.namedparams(), source.namedparams()):
        numpy.testing.assert_array_equal(param.array, ref.array, err_msg=name)


@pytest.mark.parametrize('mode', ['copy', 'share', 'deepcopy'])
def test_copies_share_the_communicator(dummy, mode):
    model = create_multi_node_n_step_rnn(make_rnn('lstm', 0), dummy)
    other = copy.deepcopy(model) if mode == 'deepcopy' else model.copy(mode)
    assert other.comm is dummy and other.n_cells == 2
    for (name, param), (_, ref) in zip(other.namedparams(), model.namedparams()):
        assert param is not ref
        assert (param.array is ref.array) == (mode == 'share')
        numpy.testing.assert_array_equal(param.array, ref.array, err_msg=name)
    xs = make_xs(0)
    for out, ref in zip(other(xs)[0:2], model(xs)[0:2]):
        numpy.testing.assert_array_equal(out.array, ref.array)
