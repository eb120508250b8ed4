"""Datasets of images stored in zip archives (needs Pillow to read the images)."""

from __future__ import annotations

import bisect
import io
import os
import threading
import zipfile
from collections.abc import Sequence
from typing import Any

import numpy

from catena import _dtype
from catena.dataset import dataset_mixin
from catena.datasets import _image_io


class ZippedImageDataset(dataset_mixin.DatasetMixin):
    """Dataset of the images in a zip archive.

    Every file entry of the archive (directories excluded) is an example,
    returned as a ``(channels, height, width)`` array. The archive is reopened
    in each process that uses the dataset, so it can be given to
    multiprocess iterators.

    Args:
        zipfilename (str): Path of the zip archive.
        dtype: Array dtype; ``None`` uses ``catena.config.dtype``.
    """

    def __init__(self, zipfilename: str, dtype: Any = None) -> None:
        self._zipfilename = os.fspath(zipfilename)
        self._dtype = _dtype.get_dtype(dtype)
        self._zf: zipfile.ZipFile | None = None
        self._zf_pid: int | None = None
        self._lock = threading.Lock()
        with zipfile.ZipFile(self._zipfilename) as zf:
            self._paths = [name for name in zf.namelist() if not name.endswith('/')]

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state['_zf'] = None
        state['_zf_pid'] = None
        del state['_lock']
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._paths)

    @property
    def paths(self) -> list[str]:
        """Names of the image entries in the archive."""
        return self._paths

    def read(self, path: str) -> bytes:
        """Returns the bytes of the archive entry ``path``."""
        with self._lock:
            if self._zf is None or self._zf_pid != os.getpid():
                self._zf = zipfile.ZipFile(self._zipfilename)
                self._zf_pid = os.getpid()
            return self._zf.read(path)

    def get_example(self, i: int) -> numpy.ndarray:
        return _image_io.read_image(io.BytesIO(self.read(self._paths[i])), self._dtype)

    def close(self) -> None:
        """Closes the archive (it is reopened on the next access)."""
        with self._lock:
            if self._zf is not None:
                self._zf.close()
                self._zf = None


class MultiZippedImageDataset(dataset_mixin.DatasetMixin):
    """Concatenation of the images of several zip archives.

    Args:
        zipfilenames (list of str): Paths of the zip archives, in order.
        dtype: Array dtype; ``None`` uses ``catena.config.dtype``.
    """

    def __init__(self, zipfilenames: Sequence[str], dtype: Any = None) -> None:
        self._datasets = [ZippedImageDataset(name, dtype) for name in zipfilenames]
        self._ends: list[int] = []
        total = 0
        for ds in self._datasets:
            total += len(ds)
            self._ends.append(total)

    def __len__(self) -> int:
        return self._ends[-1] if self._ends else 0

    def get_example(self, i: int) -> numpy.ndarray:
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(f'index {i} out of range for a dataset of length {len(self)}')
        k = bisect.bisect_right(self._ends, i)
        start = self._ends[k - 1] if k else 0
        return self._datasets[k].get_example(i - start)


class LabeledZippedImageDataset(dataset_mixin.DatasetMixin):
    """Dataset of image and label pairs whose images are in a zip archive.

    Args:
        zipfilename (str): Path of the zip archive.
        labelfilename (str): Path of a text file whose lines are
            ``<entry name in the archive> <integer label>``.
        dtype: Image dtype; ``None`` uses ``catena.config.dtype``.
        label_dtype: Label dtype.
    """

    def __init__(self, zipfilename: str, labelfilename: str, dtype: Any = None,
                 label_dtype: Any = numpy.int32) -> None:
        self._zipped = ZippedImageDataset(zipfilename, dtype)
        self._dtype = self._zipped._dtype
        self._label_dtype = label_dtype
        self._pairs: list[tuple[str, int]] = []
        with open(labelfilename, encoding='utf-8') as f:
            for n, line in enumerate(f, 1):
                fields = line.split()
                if not fields:
                    continue
                if len(fields) != 2:
                    raise ValueError(f'{labelfilename} line {n}: expected '
                                     f'"<path> <label>", got {line.strip()!r}')
                self._pairs.append((fields[0], int(fields[1])))

    def __len__(self) -> int:
        return len(self._pairs)

    def get_example(self, i: int) -> tuple[numpy.ndarray, numpy.ndarray]:
        path, label = self._pairs[i]
        image = _image_io.read_image(io.BytesIO(self._zipped.read(path)), self._dtype)
        return image, numpy.array(label, dtype=self._label_dtype)
