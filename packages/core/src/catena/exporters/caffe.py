"""``catena.exporters.caffe``: Chainer's Caffe exporter, provided by catena-zoo.

Importing this module without catena-zoo installed raises ImportError naming
the package. With it, ``export(model, args, directory=None,
export_params=True, graph_name='Graph')`` writes ``chainer_model.prototxt``
and ``chainer_model.caffemodel``; see ``catena_zoo.exporters.caffe.export``.
"""

from __future__ import annotations

from catena.exporters import plugin_exporter

_implementation = plugin_exporter('caffe')
export = _implementation.export

__all__ = ['export']
