"""Published Caffe weights: where they come from, how they are checked, and the npz cache.

``pretrained_model='auto'`` makes a model look for its converted npz in the
models directory, ``<dataset root>/pfnet/chainer/models`` (the directory
Chainer used, so npz files that Chainer converted are found too). When the
npz is missing, the original caffemodel is taken from the same directory if
a user placed it there, and otherwise downloaded with
:func:`catena.dataset.download.cached_download` (streamed with a progress
bar, locked against concurrent downloads, resumed after an interruption,
moved into place atomically, refused in offline mode, fetched from
``CATENA_DATASET_MIRROR`` when it is set). Every caffemodel is checked
against the SHA-1 its publishers list (the Caffe model zoo publishes SHA-1,
not SHA-256), and the SHA-256 of the checked file is recorded and checked
before each later use. The caffemodel is then converted with the model's
``convert_caffemodel_to_npz`` and the npz written atomically.
"""

from __future__ import annotations

import dataclasses
import os
import sys
from collections.abc import Callable

from catena import serializers
from catena.dataset import download
from catena.link import Link

#: The models directory inside the dataset root (Chainer's layout).
MODELS_DIRECTORY = os.path.join('pfnet', 'chainer', 'models')
#: Folder of the caffemodels on a mirror: ``<mirror>/<MIRROR_KEY>/<caffemodel>``.
MIRROR_KEY = 'caffe-models'


@dataclasses.dataclass(frozen=True)
class PublishedWeights:
    """A published caffemodel and the npz it is converted to.

    Attributes:
        caffemodel: File name of the caffemodel.
        npz: File name of the converted weights in the models directory.
        sha1: The SHA-1 its publishers list for the caffemodel, or None for a
            caffemodel of the user's own (not checked).
        homepage: Where the publishers describe the model and its licence.
        url: A direct download link, or None when the publishers give none
            (the file is then placed by hand or served by a mirror).
    """

    caffemodel: str
    npz: str
    sha1: str | None
    homepage: str
    url: str | None = None

    def __post_init__(self) -> None:
        if self.url is not None:
            download.register_known_file(self.url, MIRROR_KEY, sha1=self.sha1,
                                         name=self.caffemodel)


class WeightsUnavailableError(OSError):
    """The published weights are neither cached, placed by hand, nor downloadable."""


def models_directory() -> str:
    """Returns the directory that holds the caffemodels and converted npz files."""
    return download.get_dataset_directory(MODELS_DIRECTORY)


def _mirror() -> str:
    return os.environ.get('CATENA_DATASET_MIRROR', '').strip()


def _placed_by_hand(weights: PublishedWeights) -> str | None:
    path = os.path.join(models_directory(), weights.caffemodel)
    if not os.path.exists(path):
        return None
    if weights.sha1 is None:
        return path
    got = download.file_digest(path, 'sha1')
    if got != weights.sha1:
        raise download.DownloadError(
            f'{path} does not match the published SHA-1 of {weights.caffemodel} '
            f'(expected {weights.sha1}, got {got}); replace it with the file from '
            f'{weights.homepage}')
    return path


def _unavailable(model_name: str, weights: PublishedWeights, reason: str) -> str:
    place = os.path.join(models_directory(), weights.caffemodel)
    checksum = f' (SHA-1 {weights.sha1})' if weights.sha1 else ''
    return (f"{model_name}(pretrained_model='auto') needs {weights.caffemodel}, {reason}. "
            f'Download it from {weights.homepage}{checksum} and place it at {place}, or '
            'set CATENA_DATASET_MIRROR to a server that hosts it as '
            f'<mirror>/{MIRROR_KEY}/{weights.caffemodel}.')


def fetch_caffemodel(model_name: str, weights: PublishedWeights,
                     progress: bool | None = None) -> str:
    """Returns the path of a checked copy of a published caffemodel.

    Args:
        model_name: The model asking, for messages.
        weights: The caffemodel to fetch.
        progress: Show a progress bar (None: when stderr is a terminal).

    Returns:
        str: A file placed by hand in the models directory, or the cached download.

    Raises:
        WeightsUnavailableError: When there is no direct link and no mirror,
            or in offline mode with nothing cached; the message says where to
            put which file.
        catena.dataset.download.DownloadError: When a file does not match
            the published SHA-1 (a download is deleted; the message names the
            URL and both hashes).
    """
    path = _placed_by_hand(weights)
    if path is not None:
        return path
    mirror = _mirror()
    if weights.url is not None:
        url = weights.url
    elif mirror:
        url = f'{mirror.rstrip("/")}/{MIRROR_KEY}/{weights.caffemodel}'
    else:
        raise WeightsUnavailableError(_unavailable(
            model_name, weights, 'which its publishers offer without a direct download link'))
    try:
        return download.cached_download(url, sha1=weights.sha1, progress=progress)
    except download.DatasetOfflineError as e:
        raise WeightsUnavailableError(_unavailable(
            model_name, weights, 'and offline mode (CATENA_OFFLINE) is on')) from e


def load_published_weights(model: Link, weights: PublishedWeights,
                           convert: Callable[[str, str], None]) -> None:
    """Loads the published weights into ``model``, converting them on first use.

    Args:
        model: The model to fill.
        weights: Its published caffemodel.
        convert: ``convert(path_caffemodel, path_npz)``, the model's
            ``convert_caffemodel_to_npz``.
    """
    model_name = type(model).__name__
    npz_path = os.path.join(models_directory(), weights.npz)

    def create(temp_path: str) -> None:
        caffemodel = fetch_caffemodel(model_name, weights)
        print(f'{model_name}: converting {weights.caffemodel} to {npz_path} '
              '(once; this may take a minute)', file=sys.stderr)
        convert(caffemodel, temp_path)
        serializers.load_npz(temp_path, model)

    download.cache_or_load_file(npz_path, create,
                                lambda path: serializers.load_npz(path, model))
