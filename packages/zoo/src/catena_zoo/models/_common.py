"""What the pretrained ImageNet models share: the layer-by-layer forward pass,
``extract``, ``predict``, and where their weights come from.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, ClassVar, NoReturn

import numpy

import catena
import catena.functions as F
from catena import link, serializers
from catena_zoo.models import imagenet

LayerFunction = Callable[[Any], Any]

_PREDICT_SIZE = (256, 256)
_CROP_SIZE = (224, 224)
_REMOVED_KWARGS = {
    'test': "the test argument is not supported anymore; use "
            "catena.using_config('train', False)",
    'volatile': 'the volatile argument is not supported anymore; use '
                "catena.no_backprop_mode() or catena.using_config('enable_backprop', False)",
}


def reject_kwargs(kwargs: Mapping[str, Any], method: str, removed: Iterable[str]) -> None:
    """Raises for keyword arguments a method does not take (Chainer's removed ones named)."""
    for name in removed:
        if name in kwargs:
            raise ValueError(f'{method}: {_REMOVED_KWARGS[name]}')
    if kwargs:
        raise TypeError(f'{method}() got unexpected keyword argument(s): '
                        f'{", ".join(sorted(kwargs))}')


def wants_weights(pretrained_model: Any) -> bool:
    """Checks ``pretrained_model`` and says whether it asks for weights to be loaded.

    None and the empty string mean random initialisation, as in Chainer;
    any other value must be ``'auto'`` or a path.
    """
    if pretrained_model is None:
        return False
    if not isinstance(pretrained_model, (str, os.PathLike)):
        raise TypeError("pretrained_model must be 'auto', a path to an npz file or None; "
                        f'got {type(pretrained_model).__name__}')
    return bool(os.fspath(pretrained_model))


def retrieve_published_weights(model: link.Link, name: str) -> NoReturn:
    """Fetches the published weights of ``model`` (not available yet).

    Args:
        model: The model being built.
        name: ``'auto'``, or for ResNet the name of a caffemodel file in the
            models directory (Chainer's convention).

    Raises:
        NotImplementedError: Always, until the Caffe import lands.
    """
    cls = type(model).__name__
    raise NotImplementedError(
        f'{cls}(pretrained_model={name!r}): fetching and converting the published Caffe '
        'weights arrives with catena-zoo\'s Caffe import and is not available yet. '
        'Load weights you have converted to an npz by passing its path, '
        f"{cls}(pretrained_model='/path/to/weights.npz') (the file is read with "
        f'catena.serializers.load_npz), or pass pretrained_model=None for the '
        'randomly initialised model.')


def load_weights(model: link.Link, pretrained_model: str | os.PathLike[str]) -> None:
    """Loads ``pretrained_model`` (``'auto'`` or the path of an npz file) into ``model``."""
    if pretrained_model == 'auto':
        retrieve_published_weights(model, 'auto')
    serializers.load_npz(os.fspath(pretrained_model), model)


class PretrainedModel(link.Chain):
    """Base of the ImageNet models: a named sequence of layers and the image helpers.

    A subclass defines :attr:`functions` (layer name to the callables that
    compute it from the previous layer's output, in order) and the class
    attributes below.
    """

    #: BGR channel means the model's images are prepared with.
    mean_bgr: ClassVar[Sequence[float]] = imagenet.VGG_MEAN_BGR
    #: Layers that :meth:`extract` returns when none are named.
    default_extract_layers: ClassVar[tuple[str, ...]] = ('pool5',)
    #: Layers computed from an earlier layer's output instead of the previous one.
    branch_inputs: ClassVar[Mapping[str, str]] = {}

    @property
    def functions(self) -> dict[str, list[LayerFunction]]:
        """The layers in forward order, each with the callables that compute it."""
        raise NotImplementedError

    @property
    def available_layers(self) -> list[str]:
        """The names that ``layers`` may hold, in forward order."""
        return list(self.functions)

    def forward(self, x: Any, layers: Sequence[str] | None = None, **kwargs: Any
                ) -> dict[str, catena.Variable]:
        """Computes the requested layers, stopping after the last of them.

        Args:
            x: A batch of prepared images, shape (N, 3, H, W).
            layers: Names from :attr:`available_layers` (default ``['prob']``).

        Returns:
            dict: Each requested layer name mapped to its output Variable.
        """
        reject_kwargs(kwargs, 'forward', ('test',))
        if layers is None:
            layers = ['prob']
        if isinstance(layers, str):
            raise TypeError(f'layers must be a list of layer names; got the string {layers!r}')
        functions = self.functions
        remaining = set(layers)
        unknown = remaining - functions.keys()
        if unknown:
            raise ValueError(f'{type(self).__name__} has no layer(s) {sorted(unknown)}; '
                             f'available layers: {list(functions)}')
        sources = set(self.branch_inputs.values())
        saved: dict[str, Any] = {}
        activations: dict[str, catena.Variable] = {}
        h = x
        for name, funcs in functions.items():
            if not remaining:
                break
            if name in self.branch_inputs:
                h = saved[self.branch_inputs[name]]
            for func in funcs:
                h = func(h)
            if name in remaining:
                activations[name] = h
                remaining.discard(name)
            if name in sources:
                saved[name] = h
        return activations

    def extract(self, images: Sequence[Any], layers: Sequence[str] | None = None,
                size: Sequence[int] | None = (224, 224), **kwargs: Any
                ) -> dict[str, catena.Variable]:
        """Prepares images and returns the requested layers' outputs.

        As in Chainer, the ``train`` and ``enable_backprop`` settings are left
        as the caller has them: wrap the call in
        ``catena.using_config('train', False)`` and
        ``catena.no_backprop_mode()`` to extract features for inference.

        Args:
            images: PIL images or RGB ndarrays (see the family's ``prepare``).
            layers: Layer names (default :attr:`default_extract_layers`).
            size: ``(width, height)`` the images are resized to, or None.

        Returns:
            dict: Each requested layer name mapped to its output Variable.
        """
        reject_kwargs(kwargs, 'extract', ('test', 'volatile'))
        if layers is None:
            layers = list(self.default_extract_layers)
        x = self._prepare_batch(images, size)
        return self(catena.Variable(self.device.send(x)), layers=layers)

    def predict(self, images: Sequence[Any], oversample: bool = True) -> catena.Variable:
        """Returns class probabilities, in test mode and without backprop.

        Each image is resized to 256x256; with ``oversample`` the
        probabilities of its ten 224x224 crops (corners, centre and their
        mirrors) are averaged, otherwise the centre crop alone is used.

        Args:
            images: PIL images or RGB ndarrays (see the family's ``prepare``).
            oversample: Whether to average over ten crops.

        Returns:
            Variable: Probabilities of shape (len(images), 1000).
        """
        x = self._prepare_batch(images, _PREDICT_SIZE)
        if oversample:
            x = imagenet.oversample(x, _CROP_SIZE)
        else:
            top = (_PREDICT_SIZE[1] - _CROP_SIZE[0]) // 2
            left = (_PREDICT_SIZE[0] - _CROP_SIZE[1]) // 2
            x = x[:, :, top:top + _CROP_SIZE[0], left:left + _CROP_SIZE[1]]
        with catena.no_backprop_mode(), catena.using_config('train', False):
            y = self(catena.Variable(self.device.send(x)), layers=['prob'])['prob']
            if oversample:
                y = F.reshape(y, (-1, 10) + y.shape[1:])
                y = F.sum(y, axis=1) / 10
        return y

    def _prepare_batch(self, images: Sequence[Any], size: Sequence[int] | None
                       ) -> numpy.ndarray:
        if isinstance(images, numpy.ndarray) and images.ndim < 3:
            raise ValueError('images must be a sequence of images; got an ndarray of shape '
                             f'{images.shape}')
        if len(images) == 0:
            raise ValueError('images must hold at least one image; got an empty sequence')
        return numpy.stack([imagenet.prepare_image(image, size, self.mean_bgr)
                            for image in images])
