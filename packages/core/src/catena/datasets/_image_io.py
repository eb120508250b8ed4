"""Image reading shared by the image datasets (Pillow is optional)."""

from __future__ import annotations

from typing import IO, Any

import numpy

_pil_image: Any = None


def pillow_installed() -> bool:
    """Whether Pillow can be imported (checked without importing it)."""
    import importlib.util

    return importlib.util.find_spec('PIL') is not None


def pil_image() -> Any:
    """Returns ``PIL.Image``, importing it once, with a clear error when missing."""
    global _pil_image
    if _pil_image is None:
        try:
            from PIL import Image  # noqa: PLC0415 - optional dependency, imported once
        except ImportError as e:
            raise ImportError(
                'catena image datasets read image files with Pillow: pip install pillow'
            ) from e
        _pil_image = Image
    return _pil_image


def read_image(source: str | IO[bytes], dtype: numpy.dtype) -> numpy.ndarray:
    """Reads an image file into a ``(channels, height, width)`` array of ``dtype``."""
    with pil_image().open(source) as f:
        image = numpy.asarray(f, dtype=dtype)
    if image.ndim == 2:  # greyscale
        image = image[:, :, None]
    return image.transpose(2, 0, 1)
