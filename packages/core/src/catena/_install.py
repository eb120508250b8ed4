"""The pip commands that install catena's distributions.

catena is installed from a checkout of its repository (no package index
carries it), so every hint names the distribution's folder, relative to the
checkout's root.
"""

from __future__ import annotations

FOLDERS = {
    'catena': 'core',
    'catena-cuda': 'backend-cuda',
    'catena-intel64': 'backend-intel64',
    'catena-zoo': 'zoo',
    'catena-onnx': 'onnx-export',
}


def install_command(distribution: str, extra: str | None = None) -> str:
    """Returns the pip command that installs ``distribution`` from a checkout.

    Args:
        distribution: One of catena's distributions (``'catena-zoo'``).
        extra: An optional extra (``'cuda12'``, ``'hdf5'``).

    Returns:
        str: e.g. ``pip install './packages/backend-cuda[cuda12]'``, to run in
        the checkout's root folder.
    """
    target = f'./packages/{FOLDERS[distribution]}'
    if extra:
        target += f'[{extra}]'
    return f"pip install '{target}'"


def install_hint(distribution: str, extra: str | None = None) -> str:
    """:func:`install_command` with where to run it, for error messages."""
    return f'{install_command(distribution, extra)}, in a catena checkout'
