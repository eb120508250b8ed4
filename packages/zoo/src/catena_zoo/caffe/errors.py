"""Errors and warnings of the Caffe importer."""

from __future__ import annotations

import os


class CaffeFormatError(ValueError, RuntimeError):
    """A file that is not a readable binary caffemodel (``NetParameter``).

    It is a :class:`ValueError`, and also a :class:`RuntimeError`, which
    Chainer's importer raised for a layer it could not convert.

    Args:
        path: The file that was read.
        reason: What is wrong with it, in words.
        field: Where in the message the first bad field is (for example
            ``"layer[3] ('conv2').blobs[0].data"``), or None when it cannot
            be told.
        offset: The byte offset of that field in the file, or None.

    Attributes:
        path (str): The file that was read.
        reason (str): What is wrong with it.
        field (str or None): The first bad field, when known.
        offset (int or None): Its byte offset in the file, when known.
    """

    def __init__(self, path: str | os.PathLike[str], reason: str, field: str | None = None,
                 offset: int | None = None) -> None:
        self.path = os.fspath(path)
        self.reason = reason
        self.field = field
        self.offset = offset
        where = ''
        if field is not None:
            where = f'{field} (at byte {offset}): ' if offset is not None else f'{field}: '
        super().__init__(f'{self.path!r} is not a readable caffemodel: {where}{reason}')


class UnsupportedCaffeLayerError(ValueError, RuntimeError):
    """A layer whose type or configuration the importer cannot emulate.

    Raised for a supported type in a configuration that cannot be emulated
    (stochastic pooling, 3-D convolution, ...), as Chainer raised a
    :class:`RuntimeError`, and for a layer of an unknown type with
    ``CaffeFunction(..., strict=True)``; without ``strict`` an unknown type
    is given as an :class:`UnsupportedCaffeLayerWarning` and the layer is
    skipped.
    """


class UnsupportedCaffeLayerWarning(UserWarning):
    """A layer that the importer skipped because it cannot emulate it."""
