"""Every hook specification of catena.

A plugin is a module (or object) whose functions, decorated with
``@catena.hookimpl``, implement some of the hooks below. Plugins are found
through the ``catena`` entry-point group::

    [project.entry-points.catena]
    cuda = "catena_cuda.plugin"

All hooks are called once, when plugins are first loaded; their results are
built into frozen tables, so no hook is ever called per operation. A plugin's
module must import nothing heavy at import time: import CuPy, oneDNN or ONNX
inside the hooks, or later.

An implementation may accept a subset of the arguments its specification
names. A plugin whose import or hook raises is recorded with the reason
(``python -m catena info``) and skipped; it never breaks ``import catena``.
"""

from __future__ import annotations

import types
from typing import TYPE_CHECKING, Any

from catena.plugins import hookspec

if TYPE_CHECKING:
    import pluggy

    from catena.backends._device import Device
    from catena.backends._kernel import Kernel


# ---------------------------------------------------------------------------
# Initialisation: called once for every plugin, before any other hook
# ---------------------------------------------------------------------------

@hookspec(historic=True)
def catena_addhooks(pluginmanager: pluggy.PluginManager) -> None:
    """Adds a plugin's own hook specifications.

    A plugin that is itself extensible (the zoo's model and Caffe-layer
    registries, the ONNX exporter's converters) calls
    ``pluginmanager.add_hookspecs(its_hookspecs_module)`` here.

    :param pluginmanager: The catena plugin manager.
    :return: Nothing.

    This hook is historic: plugins registered later receive the call too.
    """


# ---------------------------------------------------------------------------
# Devices and kernels
# ---------------------------------------------------------------------------

@hookspec
def catena_register_device_types() -> list[type[Device]]:
    """Returns the Device classes that a plugin provides.

    Each class defines ``prefix`` (``'@cupy'``), ``parse``, ``from_array``,
    ``supported_array_types``, ``legacy_forward`` and, when its hardware or
    library may be missing, ``unavailable_reason``. A prefix may be registered
    by one plugin only.

    :return: A list of :class:`catena.backend.Device` subclasses.
    """


@hookspec
def catena_register_kernels() -> list[Kernel]:
    """Returns fast implementations keyed by (FunctionNode class, device type).

    :meth:`catena.FunctionNode.apply` calls a kernel when the inputs live on
    its device type and its configuration key is not ``'never'``; the kernel
    returns the outputs or :data:`catena.Fallback` to run the generic path.

    :return: A list of :class:`catena.backends.Kernel` records.
    """


@hookspec
def catena_backend_modules() -> dict[str, types.ModuleType]:
    """Returns the modules behind ``catena.backends.<name>``.

    catena-cuda returns ``{'cuda': catena_cuda}`` so that
    ``catena.backends.cuda`` exposes Chainer's whole ``backends.cuda`` surface
    once it is installed.

    :return: A mapping from the attribute name under ``catena.backends`` to
        the module that implements it.
    """


# ---------------------------------------------------------------------------
# Configuration
# ---------------------------------------------------------------------------

@hookspec
def catena_config_defaults() -> dict[str, Any]:
    """Returns a plugin's configuration keys with their default values.

    The values become attributes of ``catena.global_config`` unless the core
    or an earlier plugin already defines the key (the core defines every key
    of Chainer's configuration). A plugin reads its environment variables
    itself when computing the defaults.

    :return: A mapping from key to default value.
    """


# ---------------------------------------------------------------------------
# Models and training
# ---------------------------------------------------------------------------

@hookspec
def catena_register_links() -> dict[str, Any]:
    """Returns names that appear on ``catena.links`` while the plugin is installed.

    catena-zoo returns ``{'VGG16Layers': VGG16Layers, ...}``. A name may be a
    class or a submodule (``'caffe'``).

    :return: A mapping from attribute name to object.
    """


@hookspec
def catena_register_link_modules() -> dict[str, types.ModuleType]:
    """Returns modules that appear at Chainer's module paths under ``catena.links``.

    Keys are paths below ``catena.links``: catena-zoo returns ``'caffe'``,
    ``'caffe.caffe_function'``, ``'model.vision'`` and
    ``'model.vision.resnet'`` (``vgg``, ``googlenet``), so that
    ``import catena.links.caffe`` and
    ``from catena.links.model.vision import resnet`` give its modules. The
    core has a module at each top path (``catena/links/caffe.py``,
    ``catena/links/model/vision.py``) that puts the plugin's module in its
    place on import, with the modules registered below it. When two plugins
    register a path, the first wins.

    :return: A mapping from path below ``catena.links`` to module.
    """


@hookspec
def catena_register_exporters() -> dict[str, types.ModuleType]:
    """Returns exporter modules that appear as ``catena.exporters.<name>``.

    catena-zoo returns ``{'caffe': catena_zoo.exporters.caffe}``; each module
    has an ``export`` function.

    :return: A mapping from exporter name to module.
    """


@hookspec
def catena_register_communicators() -> dict[str, Any]:
    """Returns named communicator factories for ``catena.distributed``.

    catena-cuda returns ``{'pure_nccl': PureNcclCommunicator}``.
    ``create_communicator(name, ...)`` calls the factory with its arguments.

    :return: A mapping from communicator name to a factory callable.
    """


# ---------------------------------------------------------------------------
# Testing and reporting
# ---------------------------------------------------------------------------

@hookspec
def catena_test_backend_params() -> list[dict[str, Any]]:
    """Returns the device configurations that catena.testing runs tests on.

    Each entry is a dict with the key ``'device'`` (a spec such as
    ``'@cupy:0'``), optionally ``'config'`` (configuration keys to set during
    the test, for example ``{'use_cudnn': 'always'}``) and ``'marks'`` (names
    of pytest markers such as ``'gpu'``). Entries whose device is unavailable
    are skipped with the device's reason.

    :return: A list of backend parameter dicts.
    """


@hookspec
def catena_runtime_info() -> list[str]:
    """Returns lines for the runtime report (``python -m catena info``).

    Report versions and the hardware or library features in use; do not raise
    when the hardware is absent, say so.

    :return: A list of lines, without trailing newlines.
    """
