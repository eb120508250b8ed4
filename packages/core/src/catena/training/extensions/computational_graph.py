"""The extension that writes the graph of a reported variable in DOT (:class:`DumpGraph`)."""

from __future__ import annotations

import os
import shutil
import subprocess
import warnings
from typing import Any

from catena import computational_graph, configuration, serializer as serializer_module
from catena._atomic import atomic_path
from catena.training import extension
from catena.utils import _validate
from catena.variable import Variable

_UNSET = object()


def is_graphviz_available() -> bool:
    """Returns whether Graphviz's ``dot`` program is on the ``PATH``.

    :class:`DumpGraph` renders a PNG next to the DOT file when it is.
    """
    return shutil.which('dot') is not None


def _render_png(dot_path: str) -> None:
    png_path = os.path.splitext(dot_path)[0] + '.png'
    try:
        subprocess.run(['dot', '-Tpng', dot_path, '-o', png_path], check=True,  # noqa: S603, S607
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=300)
    except (OSError, subprocess.SubprocessError) as exc:
        warnings.warn(f'DumpGraph: Graphviz could not render {dot_path} to PNG: {exc}',
                      RuntimeWarning, stacklevel=3)


class DumpGraph(extension.Extension):
    """Writes the computational graph behind a reported variable, once, in DOT.

    Reported variables are normally cut from their graph. So that the graph
    of the first iteration survives, :meth:`initialize` turns
    ``catena.config.keep_graph_on_report`` on; the first call writes the
    graph rooted at ``trainer.observation[root_name]`` to
    ``<trainer.out>/<filename>`` (atomically) and restores the flag, so later
    iterations do not keep their graphs. The extension fires only once, at
    its first trigger check (the first iteration); keep its default
    trigger. Turn ``keep_graph_on_report`` on yourself to keep graphs for
    longer. When Graphviz's ``dot`` is on the ``PATH``
    (:func:`is_graphviz_available`), the graph is also rendered to a PNG of
    the same name (``cg.png``).

    Args:
        root_name: The observation key of the root variable, such as
            ``'main/loss'``.
        filename: The file name, relative to the trainer's output folder
            (default ``'cg.dot'``).
        variable_style: DOT attributes of variable nodes (see
            :func:`catena.computational_graph.build_computational_graph`);
            None for grey octagons.
        function_style: DOT attributes of function nodes; None for blue
            records.
        out_name: The name of ``filename`` in the older ``dump_graph``
            function (give one or the other).
    """

    default_name = 'dump_graph'

    def __init__(self, root_name: str, filename: str | None = None,
                 variable_style: Any = None, function_style: Any = None, *,
                 out_name: str | None = None) -> None:
        if not isinstance(root_name, str):
            raise TypeError(f'DumpGraph: root_name must be a str (an observation key); got '
                            f'{_validate.show(root_name)}')
        if filename is not None and out_name is not None:
            raise TypeError('DumpGraph: give the file name as filename or as out_name, not both')
        if filename is None:
            filename = 'cg.dot' if out_name is None else out_name
        if not isinstance(filename, str) or not filename:
            raise TypeError(f'DumpGraph: filename must be a non-empty str; got '
                            f'{_validate.show(filename)}')
        for name, style in (('variable_style', variable_style),
                            ('function_style', function_style)):
            if style is not None and not isinstance(style, dict):
                raise TypeError(f'DumpGraph: {name} must be a dict of Graphviz attributes or '
                                f'None; got {_validate.show(style)}')
        self._root_name = root_name
        self._filename = filename
        self._variable_style = 'default' if variable_style is None else variable_style
        self._function_style = 'default' if function_style is None else function_style
        self._original_flag: bool | None = None
        self._flag_called = False
        # Whether the flag was set for this thread only (restored by deleting it).
        self._was_local: Any = _UNSET

    def initialize(self, trainer: Any) -> None:
        """Turns ``keep_graph_on_report`` on until the graph is written."""
        if self._flag_called:
            return
        config = configuration.config
        self._was_local = 'keep_graph_on_report' in config.__dict__
        self._original_flag = bool(config.keep_graph_on_report)
        config.keep_graph_on_report = True

    def trigger(self, trainer: Any) -> bool:
        """Fires at the first check only."""
        if self._flag_called:
            return False
        self._flag_called = True
        return True

    def __call__(self, trainer: Any) -> None:
        """Writes the graph of ``trainer.observation[root_name]`` and restores the flag.

        Raises:
            KeyError: Nothing was reported under ``root_name``.
            TypeError: The reported value is not a Variable.
        """
        try:
            observation = trainer.observation
            if self._root_name not in observation:
                raise KeyError(f'DumpGraph: nothing was reported as {self._root_name!r}; the '
                               f'observation holds {sorted(observation)}')
            root = observation[self._root_name]
            if not isinstance(root, Variable):
                raise TypeError(f'DumpGraph: the root {self._root_name!r} must be a Variable, '
                                f'got {type(root).__name__}')
            graph = computational_graph.build_computational_graph(
                [root], variable_style=self._variable_style,
                function_style=self._function_style)
            text = graph.dump()
            path = os.path.join(trainer.out, self._filename)
            with atomic_path(path) as temporary:
                with open(temporary, 'w', encoding='utf-8') as file:
                    file.write(text)
            if is_graphviz_available():
                _render_png(path)
        finally:
            self._restore_flag()

    def _restore_flag(self) -> None:
        if self._was_local is _UNSET:
            return  # never changed by this extension (or restored already)
        config = configuration.config
        if self._was_local:
            config.keep_graph_on_report = self._original_flag
        else:
            del config.keep_graph_on_report
        self._was_local = _UNSET

    def finalize(self) -> None:
        """Restores the flag if training ended before the graph was written."""
        self._restore_flag()

    def serialize(self, serializer: Any) -> None:
        """Saves or loads ``_original_flag`` and ``_flag_called`` (Chainer's keys)."""
        if isinstance(serializer, serializer_module.Serializer):
            serializer('_original_flag', self._original_flag)
            serializer('_flag_called', self._flag_called)
            return
        original = serializer('_original_flag', None)
        if original is not None:
            self._original_flag = bool(original)
        called = serializer('_flag_called', self._flag_called)
        if called is not None:
            self._flag_called = bool(called)


#: The name of :class:`DumpGraph` in Chainer v2 to v6.
dump_graph = DumpGraph

__all__ = ['DumpGraph', 'dump_graph']
