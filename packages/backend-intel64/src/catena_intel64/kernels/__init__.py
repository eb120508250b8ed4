"""catena-intel64's oneDNN kernels, one module per op under the core's category path.

:func:`all_kernels` lists them for the ``catena_register_kernels`` hook. Each
kernel runs on plain NumPy arrays (the ``'@numpy'`` and ``'@intel64'``
devices hold the same arrays) while ``catena.config.use_ideep`` is not
``'never'``, and returns :data:`catena.Fallback` for what oneDNN does not
cover, so that the generic code runs instead. Every module named in
:data:`MODULES` has ``registrations()``: ``(FunctionNode class, kernel)``
pairs, or ``(FunctionNode class, kernel, auto_min_size)`` triples for kernels
that decline every array smaller than that under ``use_ideep='auto'`` (the core
then skips calling them). Under ``'auto'`` what a kernel accepts is then
calibrated per call signature (:mod:`catena_intel64._calibration`).
"""

from __future__ import annotations

import importlib

from catena.backends import Kernel

MODULES = (
    'activation.elu',
    'activation.leaky_relu',
    'activation.relu',
    'activation.sigmoid',
    'activation.tanh',
    'array.concat',
    'connection.convolution_2d',
    'connection.deconvolution_2d',
    'connection.linear',
    'math.basic_math',
    'normalization.batch_normalization',
    'normalization.local_response_normalization',
    'pooling.average_pooling_2d',
    'pooling.max_pooling_2d',
)


def all_kernels() -> list[Kernel]:
    """Returns every oneDNN kernel as a :class:`catena.backends.Kernel` record."""
    from catena.backends._numpy import CpuDevice
    from catena_intel64._calibration import calibrated

    kernels = []
    for name in MODULES:
        module = importlib.import_module(f'{__name__}.{name}')
        for node_class, forward, *auto_min_size in module.registrations():
            kernels.append(Kernel(node_class, CpuDevice, calibrated(forward, node_class),
                                  'use_ideep', *auto_min_size))
    return kernels
