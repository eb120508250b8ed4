"""ResNet50/101/152Layers: layers and shapes, downsample_fb, the building blocks, forward's
early stop, extract, predict, the paper's initialisation and loading weights."""

import numpy as np
import pytest

import catena
from catena import serializers
from catena_zoo.models import imagenet, resnet
from catena_zoo.models.resnet import (
    BottleneckA,
    BottleneckB,
    BuildingBlock,
    ResNet50Layers,
    ResNet101Layers,
    ResNet152Layers,
    ResNetLayers,
)

LAYERS = ['conv1', 'pool1', 'res2', 'res3', 'res4', 'res5', 'pool5', 'fc6', 'prob']
SHAPES_64 = {
    'conv1': (64, 32, 32), 'pool1': (64, 16, 16), 'res2': (256, 16, 16),
    'res3': (512, 8, 8), 'res4': (1024, 4, 4), 'res5': (2048, 2, 2),
    'pool5': (2048,), 'fc6': (1000,), 'prob': (1000,),
}


@pytest.fixture(scope='module')
def resnet50():
    return ResNet50Layers(pretrained_model=None)


def _run(model, x, layers):
    with catena.using_config('train', False), catena.no_backprop_mode():
        return model(x, layers=layers)


def _shapes(out):
    return {name: v.shape[1:] for name, v in out.items()}


def test_resnet50_shapes_at_224(resnet50):
    assert resnet50.available_layers == LAYERS
    x = np.random.default_rng(0).standard_normal((1, 3, 224, 224)).astype(np.float32)
    out = _run(resnet50, x, LAYERS)
    assert _shapes(out) == {
        'conv1': (64, 112, 112), 'pool1': (64, 56, 56), 'res2': (256, 56, 56),
        'res3': (512, 28, 28), 'res4': (1024, 14, 14), 'res5': (2048, 7, 7),
        'pool5': (2048,), 'fc6': (1000,), 'prob': (1000,),
    }
    np.testing.assert_allclose(out['prob'].array.sum(axis=1), 1, rtol=1e-5)
    # pool5 is the global average of res5.
    np.testing.assert_allclose(out['pool5'].array, out['res5'].array.mean(axis=(2, 3)),
                               rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize('cls, n_blocks', [
    (ResNet50Layers, (3, 4, 6, 3)),
    (ResNet101Layers, (3, 4, 23, 3)),
    (ResNet152Layers, (3, 8, 36, 3)),
])
def test_depths_and_shapes_of_every_layer(cls, n_blocks):
    model = cls(pretrained_model=None)
    stages = [model.res2, model.res3, model.res4, model.res5]
    assert tuple(len(stage._forward) for stage in stages) == n_blocks
    assert [name for name, _ in model.res3.namedlinks(skipself=True)
            if name.count('/') == 1] == ['/a'] + [f'/b{i}' for i in range(1, n_blocks[1])]
    out = _run(model, np.zeros((1, 3, 64, 64), np.float32), LAYERS)
    assert _shapes(out) == SHAPES_64


@pytest.mark.parametrize('downsample_fb, strides', [
    (False, ((2, 2), (1, 1))),
    (True, ((1, 1), (2, 2))),
])
def test_downsample_fb_chooses_the_strided_convolution(downsample_fb, strides):
    model = ResNet50Layers(pretrained_model=None, downsample_fb=downsample_fb)
    assert model.downsample_fb is downsample_fb
    for stage in (model.res3, model.res4, model.res5):
        assert (stage.a.conv1.stride, stage.a.conv2.stride) == strides
        assert stage.a.conv4.stride == (2, 2)
    assert model.res2.a.conv1.stride == model.res2.a.conv2.stride == (1, 1)
    out = _run(model, np.zeros((1, 3, 64, 64), np.float32), LAYERS)
    assert _shapes(out) == SHAPES_64


def test_bottleneck_a_computes_residual_plus_projection():
    block = BottleneckA(4, 2, 6, stride=2, initialW=catena.initializers.Normal(1.0))
    x = np.random.default_rng(1).standard_normal((2, 4, 6, 6)).astype(np.float32)
    with catena.using_config('train', False):
        y = block(x)
        h = catena.functions.relu(block.bn1(block.conv1(x)))
        h = catena.functions.relu(block.bn2(block.conv2(h)))
        expected = catena.functions.relu(block.bn3(block.conv3(h)) + block.bn4(block.conv4(x)))
    assert y.shape == (2, 6, 3, 3)
    np.testing.assert_allclose(y.array, expected.array, rtol=1e-6)
    assert block.conv1.b is None  # the convolutions of the blocks have no bias


def test_bottleneck_b_adds_the_identity():
    block = BottleneckB(4, 2, initialW=catena.initializers.Zero())
    x = np.random.default_rng(2).standard_normal((1, 4, 3, 3)).astype(np.float32)
    with catena.using_config('train', False):
        y = block(x)
    # Zero weights make the residual zero (BN of 0 with fresh statistics is 0).
    np.testing.assert_allclose(y.array, np.maximum(x, 0), atol=1e-6)


def test_building_block_runs_its_bottlenecks_in_order():
    stage = BuildingBlock(3, 8, 2, 16, stride=2)
    assert stage._forward == ['a', 'b1', 'b2']
    assert isinstance(stage.a, BottleneckA) and isinstance(stage.b2, BottleneckB)
    with catena.using_config('train', False):
        x = np.ones((1, 8, 4, 4), np.float32)
        expected = stage.b2(stage.b1(stage.a(x)))
        np.testing.assert_allclose(stage(x).array, expected.array)


def test_forward_stops_after_the_last_requested_layer(resnet50, monkeypatch):
    def must_not_run(x):
        raise AssertionError('res4 was computed')

    monkeypatch.setattr(resnet50.res4, 'forward', must_not_run)
    out = _run(resnet50, np.zeros((1, 3, 64, 64), np.float32), ['res3', 'pool1'])
    assert sorted(out) == ['pool1', 'res3']


def test_paper_initialisation(resnet50):
    W = resnet50.res3.b1.conv2.W.array  # 128 -> 128, 3x3: fan_in 1152
    assert abs(W.std() - np.sqrt(2 / (128 * 9))) < 0.002
    W = resnet50.conv1.W.array
    assert abs(W.std() - np.sqrt(2 / (3 * 49))) < 0.005
    assert not resnet50.conv1.b.array.any()
    assert resnet50.fc6.W.shape == (1000, 2048)


def test_extract_defaults_to_pool5(resnet50):
    rng = np.random.default_rng(3)
    images = [rng.integers(0, 256, (3, 80, 64), dtype=np.uint8)]
    with catena.using_config('train', False), catena.no_backprop_mode():
        out = resnet50.extract(images, size=(64, 64))
        expected = resnet50(resnet.prepare(images[0], size=(64, 64))[None], layers=['pool5'])
    assert list(out) == ['pool5'] and out['pool5'].shape == (1, 2048)
    np.testing.assert_allclose(out['pool5'].array, expected['pool5'].array, rtol=1e-5)


def _crops_by_hand(x):
    tops_lefts = [(0, 0), (0, 32), (32, 0), (32, 32), (16, 16)]
    crops = [x[:, top:top + 224, left:left + 224] for top, left in tops_lefts]
    return np.stack(crops + [crop[:, :, ::-1] for crop in crops])


def test_predict_groups_the_ten_crops_of_each_image(resnet50, monkeypatch):
    """predict's cropping and averaging, with a cheap stand-in for the network."""
    pytest.importorskip('PIL')  # the second image is resized

    def cheap_forward(x, layers):
        assert layers == ['prob'] and not catena.config.train
        assert not catena.config.enable_backprop
        return {'prob': catena.Variable(x.array[:, :, ::50, ::50].reshape(len(x), -1) ** 2)}

    monkeypatch.setattr(resnet50, 'forward', cheap_forward)
    rng = np.random.default_rng(5)
    images = [rng.integers(0, 256, (256, 256, 3), dtype=np.uint8),
              rng.integers(0, 256, (300, 280, 3), dtype=np.uint8)]
    y = resnet50.predict(images)
    assert y.shape == (2, 75)
    for i, image in enumerate(images):
        crops = _crops_by_hand(resnet.prepare(image, size=(256, 256)))
        expected = (crops[:, :, ::50, ::50].reshape(10, -1) ** 2).mean(axis=0)
        np.testing.assert_allclose(y.array[i], expected, rtol=1e-6)
    y = resnet50.predict(images, oversample=False)
    centre = resnet.prepare(images[1], size=(256, 256))[:, 16:240:50, 16:240:50]
    np.testing.assert_allclose(y.array[1], centre.reshape(-1) ** 2, rtol=1e-6)


@pytest.mark.slow
def test_predict_oversample_averages_ten_crops(resnet50):
    image = np.random.default_rng(4).integers(0, 256, (256, 256, 3), dtype=np.uint8)
    with catena.using_config('train', True):  # predict switches to test mode itself
        y = resnet50.predict([image], oversample=True)
    assert y.shape == (1, 1000) and y.creator is None
    crops = _crops_by_hand(resnet.prepare(image, size=None))
    probs = _run(resnet50, crops, ['prob'])['prob'].array
    np.testing.assert_allclose(y.array[0], probs.mean(axis=0), rtol=1e-4, atol=1e-7)


def test_npz_round_trip(resnet50, tmp_path):
    path = tmp_path / 'resnet50.npz'
    resnet50.bn1.avg_mean[...] = np.arange(64)
    serializers.save_npz(str(path), resnet50, compression=False)
    loaded = ResNet50Layers(pretrained_model=str(path))
    for (name, a), (name_b, b) in zip(sorted(resnet50.namedparams()),
                                      sorted(loaded.namedparams())):
        assert name == name_b
        np.testing.assert_array_equal(a.array, b.array)
    np.testing.assert_array_equal(loaded.bn1.avg_mean, np.arange(64))
    x = np.ones((1, 3, 64, 64), np.float32)
    np.testing.assert_array_equal(_run(loaded, x, ['prob'])['prob'].array,
                                  _run(resnet50, x, ['prob'])['prob'].array)



def test_bad_arguments():
    with pytest.raises(ValueError, match='50, 101 or 152'):
        ResNetLayers(None, 34)
    with pytest.raises(TypeError, match='pretrained_model'):
        ResNet50Layers(pretrained_model=50)


def test_prepare_uses_msra_mean():
    y = resnet.prepare(np.zeros((4, 4, 3), np.uint8), size=None)
    np.testing.assert_allclose(y[:, 0, 0], -np.asarray(imagenet.RESNET_MEAN_BGR, np.float32))
