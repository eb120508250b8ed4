"""GoogLeNet: layers and shapes, the auxiliary heads, forward's early stop, extract,
predict, the paper's initialisation and loading weights."""

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import serializers
from catena_zoo.models import googlenet, imagenet
from catena_zoo.models.googlenet import GoogLeNet

SHAPES = {
    'conv1': (64, 112, 112), 'pool1': (64, 56, 56), 'conv2_reduce': (64, 56, 56),
    'conv2': (192, 56, 56), 'pool2': (192, 28, 28),
    'inception_3a': (256, 28, 28), 'inception_3b': (480, 28, 28), 'pool3': (480, 14, 14),
    'inception_4a': (512, 14, 14), 'inception_4b': (512, 14, 14),
    'inception_4c': (512, 14, 14), 'inception_4d': (528, 14, 14),
    'inception_4e': (832, 14, 14), 'pool4': (832, 7, 7),
    'inception_5a': (832, 7, 7), 'inception_5b': (1024, 7, 7), 'pool5': (1024, 1, 1),
    'loss3_fc': (1000,), 'prob': (1000,), 'loss1_fc2': (1000,), 'loss2_fc2': (1000,),
}


@pytest.fixture(scope='module')
def model():
    return GoogLeNet(pretrained_model=None)


@pytest.fixture(scope='module')
def x():
    return np.random.default_rng(0).uniform(-100, 100, (1, 3, 224, 224)).astype(np.float32)


def _run(model, x, layers):
    with catena.using_config('train', False), catena.no_backprop_mode():
        return model(x, layers=layers)


def test_shapes_of_every_layer(model, x):
    assert model.available_layers == list(SHAPES)
    out = _run(model, x, model.available_layers)
    assert {name: v.shape[1:] for name, v in out.items()} == SHAPES
    np.testing.assert_allclose(out['prob'].array.sum(axis=1), 1, rtol=1e-5)


def _head(model, index, h):
    conv, fc1, fc2 = (getattr(model, f'loss{index}_{n}') for n in ('conv', 'fc1', 'fc2'))
    h = F.average_pooling_2d(h, ksize=5, stride=3)
    return fc2(F.relu(fc1(F.relu(conv(h)))))


def test_auxiliary_heads_branch_from_inception_4a_and_4d(model, x):
    out = _run(model, x, ['inception_4a', 'inception_4d', 'loss1_fc2', 'loss2_fc2'])
    with catena.using_config('train', False), catena.no_backprop_mode():
        loss1 = _head(model, 1, out['inception_4a'])
        loss2 = _head(model, 2, out['inception_4d'])
    np.testing.assert_allclose(out['loss1_fc2'].array, loss1.array, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out['loss2_fc2'].array, loss2.array, rtol=1e-5, atol=1e-6)


def test_prob_does_not_compute_the_auxiliary_heads(model, x, monkeypatch):
    def must_not_run(h):
        raise AssertionError('an auxiliary head was computed')

    monkeypatch.setattr(model.loss1_conv, 'forward', must_not_run)
    monkeypatch.setattr(model.loss2_conv, 'forward', must_not_run)
    assert list(_run(model, x, None)) == ['prob']
    with pytest.raises(AssertionError, match='auxiliary head'):
        _run(model, x, ['loss1_fc2'])


def test_forward_stops_after_the_last_requested_layer(model, x, monkeypatch):
    def must_not_run(h):
        raise AssertionError('inception_3b was computed')

    monkeypatch.setattr(model.inc3b, 'forward', must_not_run)
    out = _run(model, x, ['inception_3a'])
    assert list(out) == ['inception_3a']


def test_paper_initialisation(model):
    W = model.inc4a.conv3.W.array  # 96 -> 208, 3x3: fan_in 864
    bound = np.sqrt(3 / (96 * 9))
    assert W.max() <= bound and W.min() >= -bound and W.max() > 0.9 * bound
    assert abs(model.conv1.W.array.std() - np.sqrt(1 / (3 * 49))) < 0.005
    assert not model.loss3_fc.b.array.any()


def test_extract_defaults_to_pool5(model):
    image = np.random.default_rng(1).integers(0, 256, (224, 224, 3), dtype=np.uint8)
    with catena.using_config('train', False), catena.no_backprop_mode():
        out = model.extract([image])
    assert list(out) == ['pool5'] and out['pool5'].shape == (1, 1024, 1, 1)
    expected = _run(model, googlenet.prepare(image)[None], ['pool5'])['pool5']
    np.testing.assert_allclose(out['pool5'].array, expected.array, rtol=1e-5)


@pytest.mark.slow
def test_predict_oversample_averages_ten_crops(model):
    image = np.random.default_rng(2).integers(0, 256, (256, 256, 3), dtype=np.uint8)
    with catena.using_config('train', True):  # predict switches to test mode itself
        y = model.predict([image])
    assert y.shape == (1, 1000) and y.creator is None
    x = googlenet.prepare(image, size=None)
    tops_lefts = [(0, 0), (0, 32), (32, 0), (32, 32), (16, 16)]
    crops = [x[:, top:top + 224, left:left + 224] for top, left in tops_lefts]
    crops += [crop[:, :, ::-1] for crop in crops]
    probs = _run(model, np.stack(crops), ['prob'])['prob'].array
    np.testing.assert_allclose(y.array[0], probs.mean(axis=0), rtol=1e-4, atol=1e-7)


def test_predict_without_oversample_uses_the_centre_crop(model):
    image = np.random.default_rng(3).integers(0, 256, (256, 256, 3), dtype=np.uint8)
    y = model.predict([image], oversample=False)
    x = googlenet.prepare(image, size=None)[None, :, 16:240, 16:240]
    np.testing.assert_allclose(y.array, _run(model, x, ['prob'])['prob'].array, rtol=1e-5)


def test_npz_round_trip(model, tmp_path, x):
    path = tmp_path / 'googlenet.npz'
    serializers.save_npz(str(path), model, compression=False)
    loaded = GoogLeNet(pretrained_model=path)
    params = dict(model.namedparams())
    assert sorted(params) == sorted(name for name, _ in loaded.namedparams())
    assert '/inc3a/conv1/W' in params and '/loss2_fc2/b' in params
    for name, param in loaded.namedparams():
        np.testing.assert_array_equal(param.array, params[name].array)
    layers = ['prob', 'loss1_fc2']
    got, expected = _run(loaded, x, layers), _run(model, x, layers)
    for name in layers:
        np.testing.assert_array_equal(got[name].array, expected[name].array)



def test_prepare_uses_bvlc_mean():
    y = googlenet.prepare(np.zeros((4, 4, 3), np.uint8), size=None)
    assert imagenet.GOOGLENET_MEAN_BGR == (104.0, 117.0, 123.0)
    np.testing.assert_array_equal(y[:, 0, 0], [-104.0, -117.0, -123.0])
