"""Image preparation (prepare, oversample) and the zoo's public surface: package exports
and the models registered on catena.links."""

import numpy as np
import pytest

import catena
import catena_zoo
from catena.plugins import _manager
from catena_zoo.models import googlenet, imagenet, resnet, vgg

FAMILIES = [
    (vgg.prepare, (103.939, 116.779, 123.68)),
    (resnet.prepare, (103.063, 115.903, 123.152)),
    (googlenet.prepare, (104.0, 117.0, 123.0)),
]
MODEL_NAMES = ['VGG16Layers', 'VGG19Layers', 'ResNet50Layers', 'ResNet101Layers',
               'ResNet152Layers', 'GoogLeNet']


def _rgb_image(height=6, width=5, seed=0):
    return np.random.default_rng(seed).integers(0, 256, (height, width, 3), dtype=np.uint8)


def _expected(rgb, mean):
    bgr = rgb[:, :, ::-1].astype(np.float32) - np.asarray(mean, np.float32)
    return bgr.transpose(2, 0, 1)


@pytest.mark.parametrize('prepare, mean', FAMILIES)
def test_ndarray_hwc_to_bgr_chw_minus_the_family_mean(prepare, mean):
    rgb = _rgb_image()
    y = prepare(rgb, size=None)
    assert y.shape == (3, 6, 5) and y.dtype == np.float32
    np.testing.assert_array_equal(y, _expected(rgb, mean))


def test_ndarray_layouts_are_read_as_chainer_reads_them():
    rgb = _rgb_image()
    hwc = vgg.prepare(rgb, size=None)
    np.testing.assert_array_equal(vgg.prepare(rgb.transpose(2, 0, 1), size=None), hwc)
    grey = rgb[:, :, 0]
    expected = _expected(np.stack([grey] * 3, axis=2), imagenet.VGG_MEAN_BGR)
    np.testing.assert_array_equal(vgg.prepare(grey, size=None), expected)
    np.testing.assert_array_equal(vgg.prepare(grey[None], size=None), expected)
    np.testing.assert_array_equal(vgg.prepare(grey[:, :, None], size=None), expected)
    rgba = np.concatenate([rgb, np.full((6, 5, 1), 7, np.uint8)], axis=2)
    np.testing.assert_array_equal(vgg.prepare(rgba, size=None), hwc)
    # Float input is cast to uint8 as Chainer's prepare does (through PIL.Image.fromarray).
    np.testing.assert_array_equal(vgg.prepare(rgb + 0.75, size=None), hwc)


def test_ndarray_of_the_requested_size_needs_no_pillow(monkeypatch):
    def no_pillow():
        raise ImportError('Pillow is missing (simulated)')

    monkeypatch.setattr(imagenet, '_pil_image', no_pillow)
    rgb = _rgb_image()
    np.testing.assert_array_equal(vgg.prepare(rgb, size=(5, 6)), vgg.prepare(rgb, size=None))
    with pytest.raises(ImportError, match='Pillow'):
        vgg.prepare(rgb, size=(4, 4))


def test_dtype_follows_the_configuration():
    with catena.using_config('dtype', np.float16):
        y = resnet.prepare(_rgb_image(), size=None)
    assert y.dtype == np.float16


def test_bad_images():
    with pytest.raises(ValueError, match=r'shape \(4, 4, 2\)'):
        vgg.prepare(np.zeros((4, 4, 2), np.uint8), size=None)
    with pytest.raises(ValueError, match='HW, HWC or CHW'):
        vgg.prepare(np.zeros((2, 4, 4, 3), np.uint8), size=None)
    pytest.importorskip('PIL')
    with pytest.raises(TypeError, match='got list'):
        vgg.prepare([[1, 2], [3, 4]])


class TestWithPillow:
    @pytest.fixture(autouse=True)
    def _pil(self):
        self.Image = pytest.importorskip('PIL.Image')

    def test_pil_image_is_resized_then_converted(self):
        rgb = _rgb_image(30, 40)
        image = self.Image.fromarray(rgb)
        y = googlenet.prepare(image)
        assert y.shape == (3, 224, 224)
        resized = np.asarray(image.resize((224, 224)))
        np.testing.assert_array_equal(y, _expected(resized, imagenet.GOOGLENET_MEAN_BGR))

    def test_size_is_width_then_height_as_pil_takes_it(self):
        y = vgg.prepare(self.Image.fromarray(_rgb_image(30, 40)), size=(20, 10))
        assert y.shape == (3, 10, 20)

    def test_pil_modes_are_converted_to_rgb(self):
        grey = self.Image.fromarray(_rgb_image()[:, :, 0], 'L')
        y = vgg.prepare(grey, size=None)
        np.testing.assert_array_equal(y, vgg.prepare(np.asarray(grey), size=None))

    def test_ndarray_and_pil_inputs_agree(self):
        rgb = _rgb_image(30, 40)
        from_array = resnet.prepare(rgb, size=(16, 16))
        from_pil = resnet.prepare(self.Image.fromarray(rgb), size=(16, 16))
        np.testing.assert_array_equal(from_array, from_pil)
        np.testing.assert_array_equal(resnet.prepare(rgb.transpose(2, 0, 1), size=(16, 16)),
                                      from_pil)


def test_oversample_cuts_corners_centre_and_mirrors_per_image():
    images = np.arange(2 * 1 * 8 * 10, dtype=np.float32).reshape(2, 1, 8, 10)
    crops = imagenet.oversample(images, (4, 6))
    assert crops.shape == (20, 1, 4, 6)
    for n in range(2):
        image = images[n, 0]
        corners = [image[:4, :6], image[:4, 4:], image[4:, :6], image[4:, 4:], image[2:6, 2:8]]
        expected = corners + [c[:, ::-1] for c in corners]
        for k in range(10):
            np.testing.assert_array_equal(crops[10 * n + k, 0], expected[k])
    with pytest.raises(ValueError, match='larger than the images'):
        imagenet.oversample(images, (9, 6))


@pytest.mark.parametrize('name', MODEL_NAMES)
def test_models_are_exported_from_the_package(name):
    from catena_zoo import models

    assert getattr(catena_zoo, name) is getattr(models, name)
    assert name in catena_zoo.__all__


def test_unknown_package_attribute():
    with pytest.raises(AttributeError, match='NoSuchNet'):
        catena_zoo.NoSuchNet


def test_plugin_registers_the_models_as_links():
    from catena_zoo import caffe, models

    registered = dict(_manager.call_each('catena_register_links'))['zoo']
    assert registered == {**{name: getattr(models, name) for name in MODEL_NAMES},
                          'caffe': caffe}


@pytest.mark.parametrize('name', MODEL_NAMES)
def test_models_appear_on_catena_links(name):
    import catena.links as L

    assert getattr(L, name) is getattr(catena_zoo, name)
