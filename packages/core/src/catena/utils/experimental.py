"""Warnings for experimental APIs (``catena.utils.experimental``)."""

from __future__ import annotations

import warnings

from catena import _config_keys

__all__ = ['disabled_by_environment', 'experimental']


def disabled_by_environment() -> bool:
    """Whether ``CATENA_DISABLE_EXPERIMENTAL_FEATURE_WARNING`` (or ``CHAINER_...``) is set.

    It gives the initial value of ``catena.disable_experimental_feature_warning``.

    Raises:
        ValueError: If the variable is set to something other than a flag
            (``0``/``1``, ``true``/``false``, ...).
    """
    text = _config_keys.env_value('DISABLE_EXPERIMENTAL_FEATURE_WARNING')
    if text is None:
        return False
    try:
        return _config_keys._parse_flag(text)
    except ValueError as error:
        raise ValueError('invalid environment variable CATENA_DISABLE_EXPERIMENTAL_FEATURE_'
                         f'WARNING (or CHAINER_...): {error}') from None


def experimental(api_name: str) -> None:
    """Warns that an API is experimental, unless such warnings are disabled.

    Call it at the top of an experimental function, method or class
    constructor. Setting ``catena.disable_experimental_feature_warning`` to
    True (or the environment variable
    ``CATENA_DISABLE_EXPERIMENTAL_FEATURE_WARNING=1``) silences it.

    Args:
        api_name: The API's name as users write it, e.g. ``'MyLink.forward'``.

    Warns:
        FutureWarning: ``{api_name} is experimental. Its interface can change in the future.``

    .. admonition:: Example

        >>> import warnings
        >>> from catena import utils
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter('always')
        ...     utils.experimental('my_function')
        >>> str(caught[0].message).split('.')[0]
        'my_function is experimental'
    """
    import catena

    if getattr(catena, 'disable_experimental_feature_warning', False):
        return
    warnings.warn(
        f'{api_name} is experimental. Its interface can change in the future. You can turn '
        'this warning off with catena.disable_experimental_feature_warning = True.',
        FutureWarning, stacklevel=2)
