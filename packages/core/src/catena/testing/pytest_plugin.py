"""catena's pytest plugin (registered through the ``pytest11`` entry point).

* Registers the markers ``gpu`` (``gpu(n)`` for n GPUs), ``cudnn``, ``ideep``,
  ``chainerx`` and ``slow``.
* ``--catena-devices=@numpy,@fake`` (or ``CATENA_TEST_DEVICES``) restricts
  the device matrix: no test is generated for other devices while pytest
  collects. A bare prefix selects every index (``@cupy`` selects ``@cupy:0``
  and ``@cupy:1``); ``available`` selects every device usable here, so that
  a machine without CuPy collects no ``@cupy`` test only to skip it.
* ``CATENA_TEST_GPU_LIMIT=n`` (or Chainer's ``CHAINER_TEST_GPU_LIMIT``)
  skips tests marked ``gpu`` that need more than ``n`` GPUs.
* A test function (or method of a plain class) that takes a
  ``backend_config`` argument is parametrized over the device matrix, with
  ids such as ``test_send[@numpy]``.
* The report header lists the devices and why unavailable ones are skipped.
* ``CATENA_TEST_PAIRWISE_PARAMETERIZATION=always`` (as Chainer's CI set
  ``CHAINER_TEST_PAIRWISE_PARAMETERIZATION``) makes :func:`catena.testing.product`
  keep only enough combinations to cover every pair of values (``never``,
  the default, keeps them all).

This module imports catena only inside the hooks that need it, so a broken
catena never breaks pytest itself.
"""

from __future__ import annotations

import os
from typing import Any

import pytest

_MARKERS = (
    'gpu: needs a CUDA GPU (catena-cuda); gpu(n) needs n GPUs. Skipped when '
    'CATENA_TEST_GPU_LIMIT is lower',
    'cudnn: needs cuDNN',
    'ideep: needs catena-intel64 (oneDNN)',
    'chainerx: needs ChainerX (never available in catena)',
    'slow: takes more than a few seconds',
)


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup('catena')
    group.addoption(
        '--catena-devices', dest='catena_devices', default=os.environ.get('CATENA_TEST_DEVICES'),
        metavar='SPECS',
        help='comma-separated device specs that device-matrix tests are generated for, for '
             'example "@numpy,@fake"; "available" stands for every device usable here '
             '(default: every device the plugins provide; env CATENA_TEST_DEVICES)')


def pytest_configure(config: Any) -> None:
    for line in _MARKERS:
        config.addinivalue_line('markers', line)
    mode = os.environ.get('CATENA_TEST_PAIRWISE_PARAMETERIZATION', 'never')
    if mode not in ('never', 'always'):
        raise pytest.UsageError("CATENA_TEST_PAIRWISE_PARAMETERIZATION must be 'never' or "
                                f"'always'; got {mode!r}")
    if mode == 'always':
        from catena.testing import parameterized

        parameterized.product_dict = parameterized._pairwise_product_dict
    selected = selected_devices(config)
    if selected is not None:
        from catena.testing import backend

        backend._selection_while_collecting = selected


def pytest_collection_finish(session: Any) -> None:
    # Classes a test builds while it runs get every device, as outside pytest.
    if selected_devices(session.config) is not None:
        from catena.testing import backend

        backend._selection_while_collecting = None


def selected_devices(config: Any) -> list[str] | None:
    """The specs given with ``--catena-devices``, or None for all."""
    value = config.getoption('catena_devices', None)
    if not value:
        return None
    return [spec.strip() for spec in value.split(',') if spec.strip()]


def device_selected(spec: str, selected: list[str] | None) -> bool:
    """Whether ``spec`` is one of ``selected``: :func:`catena.testing.backend.device_selected`."""
    from catena.testing import backend

    return backend.device_selected(spec, selected)


def _backend_config_of(item: Any) -> Any:
    function = getattr(item, 'function', None)
    config = getattr(function, '_catena_backend_config', None)
    if config is not None:
        return config
    callspec = getattr(item, 'callspec', None)
    if callspec is not None:
        return callspec.params.get('backend_config')
    return None


def pytest_generate_tests(metafunc: Any) -> None:
    if 'backend_config' not in metafunc.fixturenames:
        return
    for marker in metafunc.definition.iter_markers('parametrize'):
        names = marker.args[0] if marker.args else marker.kwargs.get('argnames', '')
        if isinstance(names, str):
            names = [name.strip() for name in names.split(',')]
        if 'backend_config' in names:
            return
    from catena.testing import backend

    selected = selected_devices(metafunc.config)
    params = []
    for backend_config in backend.get_backend_configs():
        if not backend.device_selected(backend_config.device_spec, selected):
            continue
        marks = backend_config.pytest_marks()
        reason = backend_config.unavailable_reason
        if reason is not None:
            marks.append(pytest.mark.skip(reason=f'{backend_config.name} is unavailable: '
                                                 f'{reason}'))
        params.append(pytest.param(backend_config, marks=marks, id=backend_config.name))
    metafunc.parametrize('backend_config', params)


def pytest_collection_modifyitems(config: Any, items: list[Any]) -> None:
    selected = selected_devices(config)
    if selected is None:
        return
    kept, dropped = [], []
    for item in items:
        backend_config = _backend_config_of(item)
        if backend_config is None or device_selected(backend_config.device_spec, selected):
            kept.append(item)
        else:
            dropped.append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


def gpu_limit() -> int | None:
    """The GPU limit from ``CATENA_TEST_GPU_LIMIT`` / ``CHAINER_TEST_GPU_LIMIT``, or None."""
    for name in ('CATENA_TEST_GPU_LIMIT', 'CHAINER_TEST_GPU_LIMIT'):
        value = os.environ.get(name, '').strip()
        if value:
            try:
                return int(value)
            except ValueError:
                raise pytest.UsageError(f'{name} must be an integer; got {value!r}') from None
    return None


def pytest_runtest_setup(item: Any) -> None:
    limit = gpu_limit()
    if limit is None:
        return
    needed = 0
    for marker in item.iter_markers('gpu'):
        count = marker.args[0] if marker.args else marker.kwargs.get('gpu_num', 1)
        needed = max(needed, int(count))
    if needed > limit:
        pytest.skip(f'needs {needed} GPU(s); CATENA_TEST_GPU_LIMIT={limit}')


def pytest_report_header(config: Any) -> list[str]:
    try:
        from catena.testing import backend

        configs = backend.get_backend_configs()
    except Exception as error:  # noqa: BLE001 - the header must never break a run
        return [f'catena: the device matrix could not be built: {type(error).__name__}: {error}']
    selected = selected_devices(config)
    lines = []
    for backend_config in configs:
        if not device_selected(backend_config.device_spec, selected):
            state = 'not selected (--catena-devices): no test generated'
        else:
            reason = backend_config.unavailable_reason
            state = 'available' if reason is None else f'skipped: {reason}'
        lines.append(f'  {backend_config.name}: {state}')
    return ['catena test devices:'] + lines
