"""catena-onnx's hook implementations (onnx is imported inside the hooks)."""

from __future__ import annotations

from typing import Any

from catena.plugins import hookimpl


@hookimpl
def catena_addhooks(pluginmanager: Any) -> None:
    from catena_onnx import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


@hookimpl
def catena_runtime_info() -> list[str]:
    from catena_onnx import __version__

    try:
        import onnx
    except ImportError:
        return [f'catena-onnx {__version__}: onnx: not installed (pip install onnx)']
    return [f'catena-onnx {__version__}: onnx {onnx.__version__}, '
            f'default opset {onnx.defs.onnx_opset_version()}']
