"""``catena.links.model.vision``: Chainer's pretrained vision models, provided by a plugin.

Its submodules ``resnet``, ``vgg`` and ``googlenet`` hold the model classes
and each family's ``prepare``. Importing it makes the module that a plugin
registers under ``'model.vision'`` through ``catena_register_link_modules``
take this name (with its submodules); see
:mod:`catena.links._plugin_modules`. Without such a plugin the import raises
ImportError saying so.
"""

from catena.links import _plugin_modules

_plugin_modules.become(__name__)
