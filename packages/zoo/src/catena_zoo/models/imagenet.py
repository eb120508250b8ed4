"""Turning images into the inputs of the Caffe-trained ImageNet models.

The published Caffe weights expect BGR images as float arrays in CHW layout
with the per-channel mean of the training set subtracted. Each model family
publishes its own mean; the family modules (:mod:`catena_zoo.models.vgg`,
:mod:`catena_zoo.models.resnet`, :mod:`catena_zoo.models.googlenet`) expose a
``prepare`` function bound to it, as Chainer's ``chainer.links.model.vision``
modules do.
"""

from __future__ import annotations

import functools
import importlib.util
from collections.abc import Sequence
from typing import Any

import numpy

import catena

#: Whether Pillow is installed: ``prepare`` needs it to read PIL images and to
#: resize (the ``available`` flag of Chainer's vision model modules).
available: bool = importlib.util.find_spec('PIL') is not None

#: BGR means subtracted by :func:`catena_zoo.models.vgg.prepare`.
VGG_MEAN_BGR = (103.939, 116.779, 123.68)
#: BGR means subtracted by :func:`catena_zoo.models.resnet.prepare`.
RESNET_MEAN_BGR = (103.063, 115.903, 123.152)
#: BGR means subtracted by :func:`catena_zoo.models.googlenet.prepare`.
GOOGLENET_MEAN_BGR = (104.0, 117.0, 123.0)


@functools.lru_cache(maxsize=1)
def _pil_image() -> Any:
    try:
        from PIL import Image
    except ImportError as error:
        raise ImportError(
            'prepare() needs Pillow to read PIL images and to resize images; '
            'install it with `pip install Pillow` (or pass an ndarray with size=None)'
        ) from error
    return Image


def _to_rgb_uint8(image: numpy.ndarray) -> numpy.ndarray:
    """Returns an HxWx3 uint8 RGB array from an HW, HWC or CHW ndarray.

    Values are cast to uint8 as Chainer's ``prepare`` does (it goes through
    ``PIL.Image.fromarray(image.astype(numpy.uint8))``); a leading axis of 1
    or 3 is read as the channel axis, grey images are repeated over the three
    channels, and a fourth (alpha) channel is dropped.
    """
    if image.ndim == 3 and image.shape[0] in (1, 3):
        image = image[0] if image.shape[0] == 1 else image.transpose(1, 2, 0)
    if image.ndim == 3 and image.shape[2] == 1:
        image = image[:, :, 0]
    if image.ndim == 2:
        image = numpy.stack([image] * 3, axis=2)
    elif image.ndim != 3 or image.shape[2] not in (3, 4):
        raise ValueError(
            'prepare: image must be an HW, HWC or CHW array with 1, 3 or 4 channels; '
            f'got an array of shape {image.shape}')
    return numpy.ascontiguousarray(image[:, :, :3].astype(numpy.uint8))


def prepare_image(image: Any, size: Sequence[int] | None, mean_bgr: Sequence[float]
                  ) -> numpy.ndarray:
    """Converts one RGB image into a mean-subtracted BGR CHW array.

    Args:
        image: A :class:`PIL.Image.Image`, or an ndarray of shape (H, W),
            (H, W, C) or (C, H, W) holding RGB values in [0, 255].
        size: ``(width, height)`` to resize to with Pillow's default filter,
            as :meth:`PIL.Image.Image.resize` takes it; None keeps the size.
        mean_bgr: The mean of each of the B, G and R channels.

    Returns:
        numpy.ndarray: An array of shape (3, height, width) and the default
        dtype (``catena.get_dtype()``).
    """
    if isinstance(image, numpy.ndarray):
        rgb = _to_rgb_uint8(image)
        if size is not None and tuple(size) != (rgb.shape[1], rgb.shape[0]):
            rgb = numpy.asarray(_pil_image().fromarray(rgb, 'RGB').resize(tuple(size)))
    else:
        pil = _pil_image()
        if not isinstance(image, pil.Image):
            raise TypeError('prepare: image must be a PIL image or a numpy.ndarray; '
                            f'got {type(image).__name__}')
        image = image.convert('RGB')
        if size is not None:
            image = image.resize(tuple(size))
        rgb = numpy.asarray(image)
    dtype = catena.get_dtype()
    bgr = rgb[:, :, ::-1].astype(dtype)
    bgr -= numpy.asarray(mean_bgr, dtype=dtype)
    return numpy.ascontiguousarray(bgr.transpose(2, 0, 1))


def oversample(images: numpy.ndarray, crop_size: Sequence[int]) -> numpy.ndarray:
    """Cuts ten crops out of each image: four corners and the centre, and their mirrors.

    Args:
        images: A batch of shape (N, C, H, W).
        crop_size: ``(crop_height, crop_width)``.

    Returns:
        An array of shape (10 * N, C, crop_height, crop_width): the ten crops
        of the first image (corners top-left, top-right, bottom-left,
        bottom-right, then the centre, then the same five mirrored
        left-right), then those of the second image, and so on.
    """
    height, width = images.shape[2:]
    crop_h, crop_w = crop_size
    if crop_h > height or crop_w > width:
        raise ValueError(f'oversample: crop_size {tuple(crop_size)} is larger than the '
                         f'images ({height}, {width})')
    tops = (0, 0, height - crop_h, height - crop_h, int(height / 2 - crop_h / 2))
    lefts = (0, width - crop_w, 0, width - crop_w, int(width / 2 - crop_w / 2))
    crops = [images[:, :, top:top + crop_h, left:left + crop_w]
             for top, left in zip(tops, lefts)]
    crops += [crop[:, :, :, ::-1] for crop in crops]
    # (10, N, ...) -> (N, 10, ...): the ten crops of one image stay together.
    stacked = numpy.stack(crops, axis=1)
    return stacked.reshape((-1,) + stacked.shape[2:])
