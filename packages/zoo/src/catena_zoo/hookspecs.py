"""The hook specifications that catena-zoo adds to catena's plugin manager.

catena-zoo registers them through ``catena_addhooks``; any plugin may then
implement them with ``from catena.plugins import hookimpl``, as it implements
catena's own hooks. Like those, they are called once, when the zoo first
builds its tables, never per call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from catena.plugins import hookspec


@hookspec
def catena_zoo_models() -> list[type]:
    """Returns pretrained-model Link classes to add to the zoo.

    Each class is a :class:`catena.Link` whose constructor takes
    ``pretrained_model`` as the zoo's models do (``'auto'`` downloads the
    published weights, a path loads a local file, None leaves the
    parameters initialised randomly). The class states its weights as class
    attributes that the zoo reads: where to download each named weights file
    and its SHA-256. The zoo keys its registry by the class itself and shows
    each model on ``catena.links`` under the class's name.

    :return: A list of Link classes.
    """


@hookspec
def catena_caffe_layers() -> dict[str, Callable[..., Any]]:
    """Returns converters from Caffe layers to catena, for ``CaffeFunction``.

    A Caffe model names the type of each layer with a string (the ``type``
    field of its prototxt, for example ``'Convolution'`` or
    ``'InnerProduct'``), so this registry is keyed by that string. The
    converter is called with the :class:`CaffeFunction` being built and the
    layer's protobuf message, and adds the layer's links and forward step to
    the function. When two plugins register the same type, the zoo keeps
    one and reports the conflict in the runtime report.

    :return: A mapping from Caffe layer type to converter.
    """
