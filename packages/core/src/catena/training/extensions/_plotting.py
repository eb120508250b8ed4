"""matplotlib for the plotting extensions: imported lazily once, drawn without pyplot.

Figures are made from ``matplotlib.figure.Figure`` with an Agg canvas
attached directly, so pyplot is never imported and the user's choice of
backend (``matplotlib.use``) is never touched.
"""

from __future__ import annotations

import functools
import os
import types
import warnings
from typing import Any

from catena import _atomic

_INSTALL_HINT = 'install it with: pip install matplotlib'


@functools.cache
def _modules() -> types.SimpleNamespace | None:
    try:
        from matplotlib import figure
        from matplotlib.backends import backend_agg
    except ImportError:
        return None
    return types.SimpleNamespace(Figure=figure.Figure, FigureCanvasAgg=backend_agg.FigureCanvasAgg)


def is_installed() -> bool:
    """Whether matplotlib can be imported (no warning)."""
    return _modules() is not None


def available(owner: str) -> bool:
    """Whether matplotlib can be imported; warns (naming ``owner``) when it cannot."""
    if _modules() is None:
        warnings.warn(f'{owner}: matplotlib is not installed, so nothing will be plotted; '
                      f'{_INSTALL_HINT}', stacklevel=3)
        return False
    return True


def new_figure(**kwargs: Any) -> Any:
    """A new ``matplotlib.figure.Figure`` (``kwargs`` such as figsize) on an Agg canvas.

    Raises:
        ImportError: matplotlib is not installed.
    """
    modules = _modules()
    if modules is None:
        raise ImportError(f'plotting needs matplotlib; {_INSTALL_HINT}')
    figure = modules.Figure(**kwargs)
    modules.FigureCanvasAgg(figure)
    return figure


def save_figure(figure: Any, path: str, **kwargs: Any) -> None:
    """Writes ``figure`` to ``path`` atomically, in the format named by its extension.

    A name without an extension is written as PNG. ``kwargs`` go to
    ``Figure.savefig``.
    """
    extension = os.path.splitext(path)[1][1:].lower() or 'png'
    with _atomic.atomic_path(path) as temporary:
        figure.savefig(temporary, format=extension, **kwargs)
