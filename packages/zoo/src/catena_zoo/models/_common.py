"""What the pretrained ImageNet models share: the layer-by-layer forward pass,
``extract``, ``predict``, and where their weights come from.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, ClassVar

import numpy

import catena
import catena.functions as F
from catena import link, serializers
from catena_zoo.models import _weights, imagenet

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


class _FilledLater:
    """``pretrained_model`` value for a model whose arrays a converter fills in."""

    def __repr__(self) -> str:
        return 'FILLED_LATER'


#: Builds a model with zero-initialised parameters and loads nothing, for
#: converters that copy weights in themselves (no random draw to pay for).
FILLED_LATER: Any = _FilledLater()


def wants_weights(pretrained_model: Any) -> bool:
    """Checks ``pretrained_model`` and says whether it asks for weights to be loaded.

    None and the empty string mean random initialisation, as in Chainer;
    any other value must be ``'auto'`` or a path.
    """
    if pretrained_model is None or pretrained_model is FILLED_LATER:
        return pretrained_model is FILLED_LATER
    if not isinstance(pretrained_model, (str, os.PathLike)):
        raise TypeError("pretrained_model must be 'auto', a path to an npz file or None; "
                        f'got {type(pretrained_model).__name__}')
    return bool(os.fspath(pretrained_model))


def load_weights(model: PretrainedModel, pretrained_model: Any) -> None:
    """Loads ``pretrained_model`` (``'auto'`` or the path of an npz file) into ``model``."""
    if pretrained_model is FILLED_LATER:
        return
    if pretrained_model == 'auto':
        _weights.load_published_weights(model, model.published_weights(),
                                        type(model).convert_caffemodel_to_npz)
        return
    serializers.load_npz(os.fspath(pretrained_model), model)


def build_for_conversion(cls: type[PretrainedModel], n_layers: int | None) -> Any:
    """Builds ``cls`` with zero parameters for a converter to fill in.

    Args:
        cls: The model class.
        n_layers: The depth, for a family's base class; a subclass with a
            fixed depth accepts None or its own depth.
    """
    fixed = getattr(cls, 'n_layers_default', None)
    if fixed is None:
        if n_layers is None:
            raise TypeError(f'{cls.__name__}.convert_caffemodel_to_npz needs n_layers')
        return cls(FILLED_LATER, n_layers)  # type: ignore[call-arg]
    if n_layers is not None and n_layers != fixed:
        raise ValueError(f'{cls.__name__} has {fixed} layers; got n_layers={n_layers}')
    return cls(FILLED_LATER)  # type: ignore[call-arg]


def copy_blob(target: Any, source: Any, layer: str, what: str) -> None:
    """Copies a Caffe layer's array into a model's array, checking the shape.

    Args:
        target: The model's Parameter or ndarray.
        source: The CaffeFunction's Parameter or ndarray.
        layer: The Caffe layer's name, for messages.
        what: What is copied (the model's parameter path), for messages.
    """
    dst = getattr(target, 'array', target)
    src = getattr(source, 'array', source)
    if src.size != dst.size:
        raise ValueError(f'the caffemodel\'s layer {layer!r} has {src.size} values '
                         f'{tuple(src.shape)} for {what}, which expects {tuple(dst.shape)}')
    dst[...] = src.reshape(dst.shape)


def caffe_layer(caffe: link.Chain, name: str) -> Any:
    """Returns the link CaffeFunction made for layer ``name``, or raises naming it."""
    child = getattr(caffe, name, None)
    if not isinstance(child, link.Link):
        raise ValueError(f'the caffemodel has no layer {name!r} with parameters')
    return child


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

    def published_weights(self) -> _weights.PublishedWeights:
        """The published caffemodel that ``pretrained_model='auto'`` loads."""
        raise NotImplementedError

    @classmethod
    def convert_caffemodel_to_npz(cls, path_caffemodel: str, path_npz: str) -> None:
        """Converts the published caffemodel into an npz this model loads (offline)."""
        raise NotImplementedError

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
