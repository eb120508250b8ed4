"""catena-zoo's hook implementations (nothing heavy is imported here)."""

from __future__ import annotations

from typing import Any

from catena.plugins import hookimpl


@hookimpl
def catena_addhooks(pluginmanager: Any) -> None:
    from catena_zoo import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


@hookimpl
def catena_runtime_info() -> list[str]:
    from catena_zoo import __version__

    return [f'catena-zoo {__version__}: models arrive with the zoo issue']
