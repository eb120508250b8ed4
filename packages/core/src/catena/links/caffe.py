"""``catena.links.caffe``: Chainer's Caffe import (``CaffeFunction``), provided by a plugin.

Importing it makes the module that a plugin registers under ``'caffe'``
through ``catena_register_link_modules`` take this name; see
:mod:`catena.links._plugin_modules`. Without such a plugin the import raises
ImportError saying so.
"""

from catena.links import _plugin_modules

_plugin_modules.become(__name__)
