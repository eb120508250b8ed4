"""The configuration keys of the core, their defaults and environment variables.

Each key may be set from the environment as ``CATENA_<KEY>`` or, for programs
moving from Chainer, ``CHAINER_<KEY>``; the ``CATENA_`` spelling wins.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any, NamedTuple

import numpy

from catena import _dtype
from catena.configuration import GlobalConfig


class ConfigKey(NamedTuple):
    name: str
    default: Any
    env: str | None = None
    parse: Callable[[str], Any] | None = None


def _parse_flag(text: str) -> bool:
    lowered = text.strip().lower()
    if lowered in ('1', 'true', 'yes', 'on'):
        return True
    if lowered in ('0', 'false', 'no', 'off', ''):
        return False
    raise ValueError(f"expected 0 or 1, got {text!r}")


def _parse_level(text: str) -> str:
    value = text.strip().lower()
    if value not in ('always', 'auto', 'never'):
        raise ValueError(f"expected 'always', 'auto' or 'never', got {text!r}")
    return value


def _parse_dtype(text: str) -> Any:
    value = text.strip().lower()
    if value == 'mixed16':
        return _dtype.mixed16
    if value in ('float16', 'float32', 'float64'):
        return numpy.dtype(value)
    raise ValueError(f"expected float16, float32, float64 or mixed16, got {text!r}")


def _parse_positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"expected a positive number, got {text!r}") from None
    if not value > 0 or value == float('inf'):
        raise ValueError(f"expected a positive number, got {text!r}")
    return value


CORE_KEYS: tuple[ConfigKey, ...] = (
    ConfigKey('autotune', False),
    ConfigKey('compute_mode', None),
    ConfigKey('cudnn_deterministic', False),
    ConfigKey('cudnn_fast_batch_normalization', False,
              'CUDNN_FAST_BATCH_NORMALIZATION', _parse_flag),
    ConfigKey('debug', False, 'DEBUG', _parse_flag),
    ConfigKey('download_deadline', 600.0, 'DOWNLOAD_DEADLINE', _parse_positive),
    ConfigKey('download_timeout', 30.0, 'DOWNLOAD_TIMEOUT', _parse_positive),
    ConfigKey('dtype', numpy.dtype(numpy.float32), 'DTYPE', _parse_dtype),
    ConfigKey('enable_backprop', True),
    ConfigKey('in_recomputing', False),
    ConfigKey('keep_graph_on_report', False, 'KEEP_GRAPH_ON_REPORT', _parse_flag),
    ConfigKey('lazy_grad_sum', False, 'LAZY_GRAD_SUM', _parse_flag),
    ConfigKey('load_max_expansion', 100.0, 'LOAD_MAX_EXPANSION', _parse_positive),
    ConfigKey('schedule_func', None),
    ConfigKey('train', True),
    ConfigKey('type_check', True, 'TYPE_CHECK', _parse_flag),
    ConfigKey('use_cudnn', 'auto', 'USE_CUDNN', _parse_level),
    ConfigKey('use_cudnn_tensor_core', 'auto'),
    # catena's default is 'auto' where Chainer's was 'never' (docs/compat.md):
    # installing catena-intel64 speeds up CPU programs without code changes.
    ConfigKey('use_ideep', 'auto', 'USE_IDEEP', _parse_level),
    ConfigKey('use_static_graph', True),
    ConfigKey('warn_nondeterministic', False),
    ConfigKey('_will_recompute', False),
)


def env_value(suffix: str) -> str | None:
    """Returns ``$CATENA_<suffix>``, else ``$CHAINER_<suffix>``, else None."""
    value = os.environ.get('CATENA_' + suffix)
    if value is None:
        value = os.environ.get('CHAINER_' + suffix)
    return value


def apply(keys: tuple[ConfigKey, ...], config: GlobalConfig) -> None:
    """Sets each key not yet present on ``config`` from its environment or default."""
    for key in keys:
        if key.name in config.__dict__:
            continue
        value = key.default
        if key.env is not None:
            text = env_value(key.env)
            if text is not None:
                try:
                    value = key.parse(text) if key.parse else text
                except ValueError as error:
                    raise ValueError(
                        f'invalid environment variable CATENA_{key.env} (or CHAINER_{key.env}) '
                        f'for configuration key {key.name!r}: {error}') from None
        setattr(config, key.name, value)
