"""Files written by Chainer 7.8.1 load into the same models and reproduce its outputs."""

import pathlib

import numpy as np
import pytest

import catena
import catena.functions as F
import catena.links as L
from catena.serializers import KeyMismatchError, NpzDeserializer, _npz_reader, load_hdf5, load_npz

DATA = pathlib.Path(__file__).resolve().parents[2] / 'data' / 'chainer-7.8.1'
RTOL = 1e-5


class MLP(catena.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(20, 30)
            self.l2 = L.Linear(30, 10)

    def forward(self, x):
        return self.l2(F.relu(self.l1(x)))


class ConvNet(catena.Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.conv1 = L.Convolution2D(3, 8, 3, pad=1)
            self.bn1 = L.BatchNormalization(8)
            self.conv2 = L.Convolution2D(8, 16, 3, stride=2)
            self.fc = L.Linear(None, 5)

    def forward(self, x):
        h = F.max_pooling_2d(F.relu(self.bn1(self.conv1(x))), 2)
        return self.fc(F.relu(self.conv2(h)))


class RNNLM(catena.Chain):
    def __init__(self, recurrent):
        super().__init__()
        with self.init_scope():
            self.embed = L.EmbedID(50, 16)
            self.lstm = recurrent
            self.out = L.Linear(16, 50)

    def forward_sequence(self, ids):
        self.lstm.reset_state()
        steps = [self.out(self.lstm(self.embed(ids[:, t]))) for t in range(ids.shape[1])]
        return F.stack(steps, axis=1)


def fixture(name):
    return np.load(DATA / name, allow_pickle=False)


def test_mlp_classifier_npz_reproduces_chainers_output():
    model = L.Classifier(MLP())
    load_npz(DATA / 'mlp_classifier.npz', model)
    y = model.predictor(fixture('mlp_x.npy'))
    np.testing.assert_allclose(y.array, fixture('mlp_y.npy'), rtol=RTOL, atol=1e-6)


def test_mlp_classifier_hdf5_reproduces_chainers_output():
    pytest.importorskip('h5py')
    model = L.Classifier(MLP())
    load_hdf5(DATA / 'mlp_classifier.h5', model)
    y = model.predictor(fixture('mlp_x.npy'))
    np.testing.assert_allclose(y.array, fixture('mlp_y.npy'), rtol=RTOL, atol=1e-6)


def test_convnet_with_batch_normalization_statistics_reproduces_test_mode_output():
    model = ConvNet()
    load_npz(str(DATA / 'convnet.npz'), model)
    with np.load(DATA / 'convnet.npz') as npz:
        np.testing.assert_array_equal(model.bn1.avg_var, npz['bn1/avg_var'])
        assert model.bn1.N == int(npz['bn1/N'])
    assert model.fc.W.shape == (5, 64)  # initialized from the file
    with catena.using_config('train', False):
        y = model(fixture('convnet_x.npy'))
    np.testing.assert_allclose(y.array, fixture('convnet_y_test_mode.npy'), rtol=RTOL,
                               atol=1e-6)


def test_rnnlm_reproduces_chainers_outputs_step_by_step():
    model = RNNLM(L.LSTM(16, 16))
    load_npz(DATA / 'rnnlm.npz', model)
    y = model.forward_sequence(fixture('rnnlm_ids.npy'))
    np.testing.assert_allclose(y.array, fixture('rnnlm_y.npy'), rtol=RTOL, atol=1e-6)


def test_lstm_weights_into_a_gru_fail_in_strict_mode_listing_the_missing_keys():
    model = RNNLM(L.StatefulGRU(16, 16))
    embed = model.embed.W.array.copy()
    with pytest.raises(KeyMismatchError) as info:
        load_npz(DATA / 'rnnlm.npz', model)
    error = info.value
    assert error.unexpected == []  # the LSTM's keys are ignored, as in Chainer
    assert sorted(error.missing) == sorted(
        f'lstm/{gate}/{p}' for gate in ('W_r', 'U_r', 'W_z', 'U_z', 'W', 'U') for p in 'Wb')
    for key in error.missing:
        assert key in str(error)
    assert 'lstm/upward/W' not in str(error)
    np.testing.assert_array_equal(model.embed.W.array, embed)  # nothing was loaded


def test_uninitialized_linear_leaves_w_uninitialized_and_loads_b():
    link = L.Linear(None, 3)
    link.b.array[...] = 7
    load_npz(DATA / 'uninitialized_linear.npz', link)
    assert link.W.array is None
    np.testing.assert_array_equal(link.b.array, np.zeros(3, np.float32))
    link(np.ones((2, 4), np.float32))  # still initializes lazily afterwards
    assert link.W.shape == (3, 4)


def test_uninitialized_linear_payload_is_numpy_1_pickle_of_none():
    entries, keys = _npz_reader.read_npz(DATA / 'uninitialized_linear.npz')
    assert sorted(keys) == ['W', 'b'] and entries['W'] is None


@pytest.mark.parametrize('name', ['mlp_adam_optimizer.npz', 'trainer_snapshot_iter7.npz',
                                  'mlp_classifier.npz', 'convnet.npz', 'rnnlm.npz'])
def test_every_member_of_every_fixture_reads_as_numpy_reads_it(name):
    entries, keys = _npz_reader.read_npz(DATA / name)
    with np.load(DATA / name, allow_pickle=False) as npz:
        assert keys == npz.files
        for key in keys:
            expected = npz[key]
            assert entries[key].dtype == expected.dtype, key
            np.testing.assert_array_equal(entries[key], expected, err_msg=key)


def test_optimizer_state_reads_into_a_deserializer_with_chainers_key_layout():
    entries, _ = _npz_reader.read_npz(DATA / 'mlp_adam_optimizer.npz')
    d = NpzDeserializer(entries)
    assert d('t', 0) == 3 and d('epoch', 1) == 0
    m = np.zeros((30, 20), np.float32)
    d['predictor']['l1']['W']('m', m)
    np.testing.assert_array_equal(m, entries['predictor/l1/W/m'])


def test_the_model_inside_a_trainer_snapshot_loads_with_path():
    model = L.Classifier(MLP())
    load_npz(DATA / 'trainer_snapshot_iter7.npz', model, path='updater/model:main/')
    with np.load(DATA / 'trainer_snapshot_iter7.npz') as npz:
        np.testing.assert_array_equal(model.predictor.l2.b.array,
                                      npz['updater/model:main/predictor/l2/b'])


def test_the_iterator_inside_a_trainer_snapshot_loads_with_path():
    dataset = catena.datasets.TupleDataset(np.arange(40, dtype=np.float32), np.arange(40))
    iterator = catena.iterators.SerialIterator(dataset, 8, shuffle=False)
    load_npz(DATA / 'trainer_snapshot_iter7.npz', iterator, path='updater/iterator:main/')
    assert (iterator.current_position, iterator.epoch, iterator.is_new_epoch) == (16, 1, False)
    assert iterator.previous_epoch_detail == pytest.approx(1.2)
