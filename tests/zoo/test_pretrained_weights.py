"""pretrained_model='auto': download from a loopback mirror, verify, convert, cache, load.

The models here are the zoo's own classes with narrower layers (the layer
names, the conversion code and the download path are the real ones), so a
test caffemodel is a few kilobytes instead of hundreds of megabytes.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import pathlib
import threading
from typing import Any

import numpy as np
import pytest

import catena
from catena import serializers
from catena.dataset import download

models = pytest.importorskip('catena_zoo.models')
from catena_zoo.caffe import CaffeFunction  # noqa: E402
from catena_zoo.models import _weights  # noqa: E402
from catena_zoo.models.googlenet import GoogLeNet  # noqa: E402
from catena_zoo.models.resnet import ResNet50Layers, ResNet101Layers, caffe_block_names  # noqa: E402
from catena_zoo.models.vgg import VGG16Layers  # noqa: E402

_here = pathlib.Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location('_zoo_caffemodels', _here / '_caffemodels.py')
assert _spec is not None and _spec.loader is not None
caffemodels = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(caffemodels)

ORIGIN = 'https://weights.example.invalid/models'


class TinyVGG16(VGG16Layers):
    stage_channels = (2, 3, 3, 4, 4)
    fc_units = 6
    n_classes = 5


class TinyResNet50(ResNet50Layers):
    stem_channels = 2
    stage_channels = ((2, 3), (2, 4), (3, 5), (3, 6))
    n_classes = 5


class TinyResNet101(ResNet101Layers):
    stem_channels = 2
    stage_channels = ((1, 2), (1, 2), (1, 2), (1, 2))
    n_classes = 3


def _sha1(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()


@pytest.fixture
def vgg_weights(monkeypatch):
    """A tiny VGG-16 caffemodel published at ORIGIN (the test mirrors it on loopback)."""
    data, blobs = caffemodels.vgg(TinyVGG16(None), np.random.RandomState(0))
    published = _weights.PublishedWeights(
        'tiny_vgg16.caffemodel', 'tiny_vgg16.npz', sha1=_sha1(data),
        homepage='https://example.invalid/vgg', url=f'{ORIGIN}/tiny_vgg16.caffemodel')
    monkeypatch.setattr(TinyVGG16, 'published', {16: published})
    return data, blobs, published


@pytest.fixture
def resnet_weights(monkeypatch):
    """A tiny ResNet-50 caffemodel with no direct link (placed by hand or mirrored)."""
    data, blobs = caffemodels.resnet(TinyResNet50(None), np.random.RandomState(1),
                                     caffe_block_names)
    published = _weights.PublishedWeights(
        'Tiny-ResNet-50-model.caffemodel', 'Tiny-ResNet-50-model.npz', sha1=_sha1(data),
        homepage='https://example.invalid/resnet')
    monkeypatch.setattr(TinyResNet50, 'published', {50: published})
    return data, blobs, published


def _mirror(server: Any, monkeypatch: Any, name: str, data: bytes) -> str:
    path = f'/{_weights.MIRROR_KEY}/{name}'
    server.files[path] = data
    monkeypatch.setenv('CATENA_DATASET_MIRROR', server.base + '/')
    return path


def _assert_vgg_weights(model: Any, blobs: Any) -> None:
    for name, (w, b) in blobs.items():
        link = getattr(model, name)
        np.testing.assert_array_equal(link.W.array, w.astype(np.float32))
        np.testing.assert_array_equal(link.b.array, b.astype(np.float32))


def test_auto_downloads_verifies_converts_caches_and_loads(server, dataset_root, monkeypatch,
                                                           vgg_weights):
    data, blobs, published = vgg_weights
    path = _mirror(server, monkeypatch, published.caffemodel, data)
    model = TinyVGG16('auto')
    _assert_vgg_weights(model, blobs)
    assert server.hits[path] == 1
    models_dir = dataset_root / 'pfnet' / 'chainer' / 'models'
    assert (models_dir / published.npz).exists()
    # The converted model computes what Caffe's own net (emulated) computes.
    x = np.random.RandomState(2).uniform(-1, 1, (2, 3, 224, 224)).astype(np.float32)
    with catena.using_config('train', False):
        expected, = CaffeFunction(download.cached_download(published.url))(
            inputs={'data': x}, outputs=['fc8'])
        np.testing.assert_allclose(model(x, layers=['fc8'])['fc8'].array, expected.array,
                                   rtol=1e-5, atol=1e-6)
    # A second model loads the npz: no request at all.
    again = TinyVGG16('auto')
    _assert_vgg_weights(again, blobs)
    assert sum(server.hits.values()) == 1
    # Without the npz, the cached caffemodel is converted again, still without a request.
    (models_dir / published.npz).unlink()
    _assert_vgg_weights(TinyVGG16('auto'), blobs)
    assert sum(server.hits.values()) == 1


def test_concurrent_first_use_downloads_and_converts_once(server, dataset_root, monkeypatch,
                                                          vgg_weights):
    data, blobs, published = vgg_weights
    server.httpd.delay = 0.2
    path = _mirror(server, monkeypatch, published.caffemodel, data)
    results: list[Any] = []

    def build() -> None:
        results.append(TinyVGG16('auto'))

    threads = [threading.Thread(target=build) for _ in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert len(results) == 3
    for model in results:
        _assert_vgg_weights(model, blobs)
    assert server.hits[path] == 1


def test_checksum_mismatch_deletes_the_download_and_names_url_and_hash(
        server, dataset_root, monkeypatch, vgg_weights):
    data, _, published = vgg_weights
    tampered = data[:-1] + bytes([data[-1] ^ 1])
    _mirror(server, monkeypatch, published.caffemodel, tampered)
    with pytest.raises(download.DownloadError) as e:
        TinyVGG16('auto')
    message = str(e.value)
    assert published.sha1 in message and _sha1(tampered) in message
    assert f'{server.base}/{_weights.MIRROR_KEY}/{published.caffemodel}' in message
    assert published.url in message  # the mirror names the origin it stands for
    cache = dataset_root / '_dl_cache'
    assert [p.name for p in cache.iterdir() if not p.name.endswith('.lock')] == []
    models_dir = dataset_root / 'pfnet' / 'chainer' / 'models'
    assert [p.name for p in models_dir.iterdir() if not p.name.endswith('.lock')] == []


def test_resnet_auto_from_a_mirror(server, dataset_root, monkeypatch, resnet_weights):
    data, blobs, published = resnet_weights
    path = _mirror(server, monkeypatch, published.caffemodel, data)
    model = TinyResNet50('auto')
    assert server.hits[path] == 1
    x = np.random.RandomState(3).uniform(-1, 1, (2, 3, 224, 224)).astype(np.float32)
    caffe = CaffeFunction(download.cached_download(f'{server.base}/{_weights.MIRROR_KEY}/'
                                                   f'{published.caffemodel}'))
    with catena.using_config('train', False):
        expected, = caffe(inputs={'data': x}, outputs=['fc1000'])
        got = model(x, layers=['fc6'])['fc6']
    np.testing.assert_allclose(got.array, expected.array, rtol=1e-4, atol=1e-5)
    # Spot checks against the values the test wrote.
    # Caffe stores running sums and their scale factor: the statistics are sum / factor.
    mean_sum, var_sum, factor = blobs['bn3a_branch1']
    np.testing.assert_allclose(model.res3.a.bn4.avg_mean, mean_sum / factor[0], rtol=1e-6)
    np.testing.assert_allclose(model.res3.a.bn4.avg_var, var_sum / factor[0], rtol=1e-6)
    np.testing.assert_array_equal(model.res5.b2.conv2.W.array,
                                  blobs['res5c_branch2b'][0].astype(np.float32))
    np.testing.assert_array_equal(model.bn1.gamma.array,
                                  blobs['scale_conv1'][0].astype(np.float32))
    TinyResNet50('auto')
    assert sum(server.hits.values()) == 1


def test_resnet_without_link_or_mirror_says_where_to_put_the_file(dataset_root, resnet_weights):
    data, blobs, published = resnet_weights
    with pytest.raises(_weights.WeightsUnavailableError) as e:
        TinyResNet50('auto')
    place = dataset_root / 'pfnet' / 'chainer' / 'models' / published.caffemodel
    message = str(e.value)
    assert str(place) in message and published.homepage in message
    assert published.sha1 in message and 'CATENA_DATASET_MIRROR' in message
    # Placed by hand, it converts without any network.
    place.write_bytes(data)
    model = TinyResNet50('auto')
    np.testing.assert_array_equal(model.fc6.W.array, blobs['fc1000'][0].astype(np.float32))


def test_hand_placed_file_with_the_wrong_checksum(dataset_root, resnet_weights):
    data, _, published = resnet_weights
    place = dataset_root / 'pfnet' / 'chainer' / 'models' / published.caffemodel
    place.parent.mkdir(parents=True, exist_ok=True)
    place.write_bytes(data + b'\0')
    with pytest.raises(download.DownloadError, match=published.sha1):
        TinyResNet50('auto')
    assert place.exists()  # the user's file is left alone


def test_offline_mode(dataset_root, monkeypatch, vgg_weights):
    data, blobs, published = vgg_weights
    monkeypatch.setenv('CATENA_OFFLINE', '1')
    with pytest.raises(_weights.WeightsUnavailableError, match='offline mode'):
        TinyVGG16('auto')
    place = dataset_root / 'pfnet' / 'chainer' / 'models' / published.caffemodel
    place.write_bytes(data)
    _assert_vgg_weights(TinyVGG16('auto'), blobs)


def test_resnet_caffemodel_name_is_a_file_in_the_models_directory(dataset_root, resnet_weights):
    data, blobs, _ = resnet_weights
    models_dir = dataset_root / 'pfnet' / 'chainer' / 'models'
    models_dir.mkdir(parents=True)
    (models_dir / 'finetuned.caffemodel').write_bytes(data)
    model = TinyResNet50('finetuned.caffemodel')
    np.testing.assert_array_equal(model.conv1.W.array, blobs['conv1'][0].astype(np.float32))
    assert (models_dir / 'finetuned.npz').exists()
    with pytest.raises(ValueError, match='file name in the models directory'):
        TinyResNet50('sub/finetuned.caffemodel')


def test_convert_caffemodel_to_npz_works_offline(tmp_path, monkeypatch, resnet_weights):
    data, blobs, _ = resnet_weights
    monkeypatch.setenv('CATENA_OFFLINE', '1')
    source = tmp_path / 'model.caffemodel'
    source.write_bytes(data)
    TinyResNet50.convert_caffemodel_to_npz(str(source), str(tmp_path / 'model.npz'))
    model = TinyResNet50(str(tmp_path / 'model.npz'))
    np.testing.assert_array_equal(model.res4.b5.conv3.W.array,
                                  blobs['res4f_branch2c'][0].astype(np.float32))
    with np.load(tmp_path / 'model.npz') as npz:
        assert 'res2/a/bn4/avg_var' in npz.files


def test_deeper_resnets_use_msra_numbered_block_names(tmp_path):
    data, blobs = caffemodels.resnet(TinyResNet101(None), np.random.RandomState(4),
                                     caffe_block_names)
    assert 'res4b22_branch2a' in blobs and 'res3b3_branch2c' in blobs and 'res5c_branch2b' in blobs
    source = tmp_path / 'resnet101.caffemodel'
    source.write_bytes(data)
    TinyResNet101.convert_caffemodel_to_npz(str(source), str(tmp_path / 'resnet101.npz'))
    model = TinyResNet101(str(tmp_path / 'resnet101.npz'))
    np.testing.assert_array_equal(model.res4.b22.conv1.W.array,
                                  blobs['res4b22_branch2a'][0].astype(np.float32))
    np.testing.assert_array_equal(model.res3.b3.bn3.beta.array,
                                  blobs['scale3b3_branch2c'][1].astype(np.float32))
    with pytest.raises(ValueError, match='has 101 layers'):
        TinyResNet101.convert_caffemodel_to_npz(str(source), str(tmp_path / 'x.npz'),
                                                n_layers=50)


# BVLC's layer name for each GoogLeNet link, written out independently of the zoo's table.
GOOGLENET_NAMES = {
    'conv1': 'conv1/7x7_s2', 'conv2_reduce': 'conv2/3x3_reduce', 'conv2': 'conv2/3x3',
    'loss3_fc': 'loss3/classifier',
    **{f'loss{i}_{link}': f'loss{i}/{caffe}' for i in (1, 2)
       for link, caffe in (('conv', 'conv'), ('fc1', 'fc'), ('fc2', 'classifier'))},
    **{f'inc{b}/{link}': f'inception_{b}/{caffe}'
       for b in ('3a', '3b', '4a', '4b', '4c', '4d', '4e', '5a', '5b')
       for link, caffe in (('conv1', '1x1'), ('proj3', '3x3_reduce'), ('conv3', '3x3'),
                           ('proj5', '5x5_reduce'), ('conv5', '5x5'), ('projp', 'pool_proj'))},
}


def test_googlenet_conversion_with_bvlc_names_and_accuracy_layers(tmp_path):
    """The full-size layout (7M parameters), with the Data, loss and Accuracy layers of
    BVLC's file, converts with strict=True."""
    data, blobs = caffemodels.googlenet(GoogLeNet(None), np.random.RandomState(5),
                                        GOOGLENET_NAMES)
    assert len(blobs) == len(GOOGLENET_NAMES) == 64
    source = tmp_path / 'bvlc_googlenet.caffemodel'
    source.write_bytes(data)
    GoogLeNet.convert_caffemodel_to_npz(str(source), str(tmp_path / 'googlenet.npz'))
    model = GoogLeNet(str(tmp_path / 'googlenet.npz'))
    for name, caffe_name in GOOGLENET_NAMES.items():
        link = model
        for part in name.split('/'):
            link = getattr(link, part)
        np.testing.assert_array_equal(link.W.array, blobs[caffe_name][0].astype(np.float32))
        np.testing.assert_array_equal(link.b.array, blobs[caffe_name][1].astype(np.float32))


def test_caffemodel_passed_to_load_npz_says_to_convert_it(tmp_path, vgg_weights):
    data, _, _ = vgg_weights
    path = tmp_path / 'VGG_ILSVRC_16_layers.caffemodel'
    path.write_bytes(data)
    with pytest.raises(ValueError, match='convert_caffemodel_to_npz') as e:
        serializers.load_npz(str(path), TinyVGG16(None))
    assert str(path) in str(e.value)
    with pytest.raises(ValueError, match='convert_caffemodel_to_npz'):
        TinyVGG16(str(path))


def test_published_files_are_pinned():
    for spec in [*VGG16Layers.published.values(), *ResNet50Layers.published.values(),
                 GoogLeNet.published]:
        assert spec.sha1 is not None and len(spec.sha1) == 40
    vgg16 = VGG16Layers.published[16]
    assert vgg16.url is not None and vgg16.url.startswith('https://')
    entry = download.get_known_file(vgg16.url)
    assert entry is not None and entry.sha1 == vgg16.sha1 and entry.key == _weights.MIRROR_KEY
    assert all(spec.url is None for spec in ResNet50Layers.published.values())
    assert os.path.basename(GoogLeNet.published.url or '') == 'bvlc_googlenet.caffemodel'
