"""VGG16Layers and VGG19Layers: layers and shapes, forward's early stop, extract, predict,
the paper's initialisation and loading weights."""

import numpy as np
import pytest

import catena
from catena import serializers
from catena_zoo.models import imagenet, vgg
from catena_zoo.models.vgg import VGG16Layers, VGG19Layers, VGGLayers

VGG16_SHAPES = {
    'conv1_1': (64, 224, 224), 'conv1_2': (64, 224, 224), 'pool1': (64, 112, 112),
    'conv2_1': (128, 112, 112), 'conv2_2': (128, 112, 112), 'pool2': (128, 56, 56),
    'conv3_1': (256, 56, 56), 'conv3_2': (256, 56, 56), 'conv3_3': (256, 56, 56),
    'pool3': (256, 28, 28),
    'conv4_1': (512, 28, 28), 'conv4_2': (512, 28, 28), 'conv4_3': (512, 28, 28),
    'pool4': (512, 14, 14),
    'conv5_1': (512, 14, 14), 'conv5_2': (512, 14, 14), 'conv5_3': (512, 14, 14),
    'pool5': (512, 7, 7),
    'fc6': (4096,), 'fc7': (4096,), 'fc8': (1000,), 'prob': (1000,),
}


def _vgg19_shapes():
    shapes = {}
    for name, shape in VGG16_SHAPES.items():
        shapes[name] = shape
        if name in ('conv3_3', 'conv4_3', 'conv5_3'):
            shapes[name[:-1] + '4'] = shape
    return shapes


@pytest.fixture(scope='module')
def vgg16():
    return VGG16Layers(pretrained_model=None)


@pytest.fixture(scope='module')
def image_batch():
    rng = np.random.default_rng(0)
    return rng.uniform(-100, 100, (1, 3, 224, 224)).astype(np.float32)


def _run(model, x, layers):
    with catena.using_config('train', False), catena.no_backprop_mode():
        return model(x, layers=layers)


def test_vgg16_shapes_of_every_layer(vgg16, image_batch):
    assert vgg16.available_layers == list(VGG16_SHAPES)
    out = _run(vgg16, image_batch, vgg16.available_layers)
    assert {name: v.shape[1:] for name, v in out.items()} == VGG16_SHAPES
    assert all(v.shape[0] == 1 and v.dtype == np.float32 for v in out.values())
    np.testing.assert_allclose(out['prob'].array.sum(axis=1), 1, rtol=1e-5)


def test_vgg19_shapes_of_every_layer(image_batch, monkeypatch, tmp_path):
    # Loading weights skips the costly random draws; the shapes do not depend on values.
    monkeypatch.setattr(serializers, 'load_npz', lambda path, obj: None)
    model = VGG19Layers(pretrained_model=tmp_path / 'unused.npz')
    expected = _vgg19_shapes()
    assert model.available_layers == list(expected)
    assert len([n for n in expected if n.startswith('conv')]) == 16
    out = _run(model, image_batch, model.available_layers)
    assert {name: v.shape[1:] for name, v in out.items()} == expected


def test_default_layer_is_prob(vgg16, image_batch):
    out = _run(vgg16, image_batch, None)
    assert list(out) == ['prob']


def test_convolutions_take_small_inputs(vgg16):
    x = np.zeros((2, 3, 32, 32), np.float32)
    out = _run(vgg16, x, ['conv1_1', 'pool3', 'pool5'])
    assert out['conv1_1'].shape == (2, 64, 32, 32)
    assert out['pool3'].shape == (2, 256, 4, 4)
    assert out['pool5'].shape == (2, 512, 1, 1)


def test_forward_stops_after_the_last_requested_layer(vgg16, monkeypatch):
    def must_not_run(x):
        raise AssertionError('conv2_1 was computed')

    monkeypatch.setattr(vgg16.conv2_1, 'forward', must_not_run)
    out = _run(vgg16, np.zeros((1, 3, 32, 32), np.float32), ['pool1', 'conv1_1'])
    assert sorted(out) == ['conv1_1', 'pool1']
    with pytest.raises(AssertionError, match='conv2_1 was computed'):
        _run(vgg16, np.zeros((1, 3, 32, 32), np.float32), ['conv2_1'])


@pytest.mark.slow
def test_vgg19_paper_initialisation():
    model = VGG19Layers(pretrained_model=None)
    assert abs(model.conv5_4.W.array.std() - 0.01) < 0.001
    assert not model.conv5_4.b.array.any()


def test_forward_subset_matches_full_pass(vgg16):
    x = np.random.default_rng(4).uniform(-100, 100, (1, 3, 32, 32)).astype(np.float32)
    full = _run(vgg16, x, ['conv3_3', 'pool5'])
    part = _run(vgg16, x, ['conv3_3'])
    np.testing.assert_array_equal(part['conv3_3'].array, full['conv3_3'].array)
    assert full['pool5'].shape == (1, 512, 1, 1)


def test_forward_rejects_bad_layers_and_removed_arguments(vgg16):
    x = np.zeros((1, 3, 32, 32), np.float32)
    with pytest.raises(ValueError, match=r"no layer\(s\) \['conv6'\]"):
        vgg16(x, layers=['conv1_1', 'conv6'])
    with pytest.raises(TypeError, match='list of layer names'):
        vgg16(x, layers='prob')
    with pytest.raises(ValueError, match='test argument is not supported'):
        vgg16(x, test=True)
    with pytest.raises(TypeError, match='unexpected keyword'):
        vgg16(x, colour=True)


def test_paper_initialisation(vgg16):
    W = vgg16.conv3_1.W.array
    assert W.shape == (256, 128, 3, 3)
    assert abs(W.std() - 0.01) < 0.001 and abs(W.mean()) < 0.001
    assert abs(vgg16.fc8.W.array.std() - 0.01) < 0.001
    assert not vgg16.conv3_1.b.array.any() and not vgg16.fc6.b.array.any()
    assert vgg16.fc6.W.shape == (4096, 512 * 7 * 7)


def test_extract_prepares_images_and_keeps_the_callers_mode(vgg16):
    rng = np.random.default_rng(1)
    images = [rng.integers(0, 256, (40, 40, 3), dtype=np.uint8) for _ in range(2)]
    with catena.using_config('train', False):
        out = vgg16.extract(images, layers=['pool2', 'conv1_1'], size=(32, 32))
    assert sorted(out) == ['conv1_1', 'pool2']
    assert out['pool2'].creator is not None  # backprop stays on: the caller decides
    x = np.stack([vgg.prepare(image, size=(32, 32)) for image in images])
    expected = _run(vgg16, x, ['pool2'])['pool2']
    np.testing.assert_allclose(out['pool2'].array, expected.array, rtol=1e-6)


def test_extract_default_layer_is_fc7(vgg16):
    image = np.full((224, 224, 3), 128, np.uint8)
    with catena.using_config('train', False), catena.no_backprop_mode():
        out = vgg16.extract([image])
    assert list(out) == ['fc7'] and out['fc7'].shape == (1, 4096)


def test_extract_rejects_removed_arguments(vgg16):
    with pytest.raises(ValueError, match='volatile'):
        vgg16.extract([np.zeros((32, 32, 3), np.uint8)], volatile=True)
    with pytest.raises(ValueError, match='at least one image'):
        vgg16.extract([])


def test_predict_centre_crop(vgg16):
    rng = np.random.default_rng(2)
    image = rng.integers(0, 256, (256, 256, 3), dtype=np.uint8)
    y = vgg16.predict([image], oversample=False)
    assert y.shape == (1, 1000) and y.creator is None
    x = vgg.prepare(image, size=(256, 256))[None, :, 16:240, 16:240]
    expected = _run(vgg16, x, ['prob'])['prob']
    np.testing.assert_allclose(y.array, expected.array, rtol=1e-5)


def test_predict_oversample_averages_ten_crops(vgg16, monkeypatch):
    """The network sees the ten crops of the prepared image; predict returns their mean.

    A cheap stand-in replaces the network (the real one runs in
    test_predict_centre_crop, and on ten crops in ResNet's and GoogLeNet's tests).
    """
    seen = []

    def cheap_forward(x, layers):
        assert layers == ['prob'] and not catena.config.train
        seen.append(x.array.copy())
        return {'prob': catena.Variable(x.array[:, :, ::37, ::37].reshape(len(x), -1))}

    monkeypatch.setattr(vgg16, 'forward', cheap_forward)
    image = np.random.default_rng(3).integers(0, 256, (256, 256, 3), dtype=np.uint8)
    y = vgg16.predict([image], oversample=True)
    crops = imagenet.oversample(vgg.prepare(image, size=(256, 256))[None], (224, 224))
    assert len(seen) == 1 and seen[0].shape == (10, 3, 224, 224)
    np.testing.assert_array_equal(seen[0], crops)
    expected = crops[:, :, ::37, ::37].reshape(10, -1).mean(axis=0, keepdims=True)
    np.testing.assert_allclose(y.array, expected, rtol=1e-6)


def test_loading_a_path_uses_load_npz_and_skips_random_draws(monkeypatch, tmp_path):
    calls = []
    monkeypatch.setattr(serializers, 'load_npz', lambda path, obj: calls.append((path, obj)))
    path = tmp_path / 'weights.npz'
    model = VGG16Layers(pretrained_model=path)
    assert calls == [(str(path), model)]
    assert not model.fc6.W.array.any() and not model.conv1_1.W.array.any()



def test_bad_arguments():
    with pytest.raises(TypeError, match='pretrained_model'):
        VGG16Layers(pretrained_model=16)
    with pytest.raises(ValueError, match='16 or 19'):
        VGGLayers(None, n_layers=11)
