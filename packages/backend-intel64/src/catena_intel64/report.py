"""``KernelReport``: which implementation computed each function, oneDNN or generic."""

from __future__ import annotations

import sys
from collections import Counter
from typing import Any, TextIO

from catena import function_hook
from catena_intel64 import calibration

GENERIC = 'generic'
"""The implementation name of a function that catena's generic code computed."""


class KernelReport(function_hook.FunctionHook):
    """Records, for every function applied, the implementation that computed it.

    A oneDNN kernel names itself on the node it computed (the
    ``implementation`` attribute, such as ``'oneDNN convolution_2d
    (jit:avx512_core)'``); a node without that attribute ran catena's generic
    code and is reported as ``'generic'``. The record is taken after each
    forward computation, so the gradient functions that a backward pass
    applies (a convolution's ``Deconvolution2DFunction`` and
    ``Convolution2DGradW``) are reported under their own names.

    Only labels and implementation names are kept: the hook holds no
    reference to the graph or to any array.

    Attributes:
        calls: The list of ``(function label, implementation)`` pairs, in the
            order the functions ran.

    .. admonition:: Example

        >>> from catena_intel64.report import KernelReport
        >>> x = catena.Variable(np.ones((1, 3, 8, 8), np.float32))
        >>> W = np.ones((4, 3, 3, 3), np.float32)
        >>> with catena.using_config('use_ideep', 'always'), KernelReport() as report:
        ...     y = F.softplus(F.convolution_2d(x, W))
        >>> report.summary()['Softplus']
        Counter({'generic': 1})
        >>> report.print_report()  # doctest: +SKIP
        FunctionName           Implementation                           Occurrence
        Convolution2DFunction  oneDNN convolution_2d (jit:avx512_core)           1
        Softplus               generic                                           1
        oneDNN calibration: on; 0 decisions (0 oneDNN, 0 generic), 0 being timed; ...
    """

    name = 'KernelReport'

    def __init__(self) -> None:
        self.calls: list[tuple[str, str]] = []

    def forward_postprocess(self, function: Any, in_data: tuple[Any, ...]) -> None:
        implementation = getattr(function, 'implementation', GENERIC)
        self.calls.append((function.label, str(implementation)))

    def summary(self) -> dict[str, Counter[str]]:
        """Returns ``{function label: Counter of implementation names}``.

        The labels appear in the order of their first call.
        """
        summary: dict[str, Counter[str]] = {}
        for label, implementation in self.calls:
            summary.setdefault(label, Counter())[implementation] += 1
        return summary

    def print_report(self, file: TextIO | None = None) -> None:
        """Prints a table of each function, the implementations that ran it and how often.

        A last line tells whether oneDNN calibration is on, how many call
        signatures it has decided and where its cache file is (see
        :func:`catena_intel64.calibration.status`): under
        ``use_ideep='auto'`` a function that has a oneDNN kernel may show
        both implementations while its calls are being timed, then the one
        calibration chose.

        Args:
            file: A writable text stream (default: the current standard
                output).
        """
        file = sys.stdout if file is None else file
        rows = [('FunctionName', 'Implementation', 'Occurrence')]
        for label, counts in self.summary().items():
            for implementation, count in counts.most_common():
                rows.append((label, implementation, str(count)))
        widths = [max(len(row[column]) for row in rows) for column in range(3)]
        for row in rows:
            file.write(f'{row[0]:<{widths[0]}}  {row[1]:<{widths[1]}}  '
                       f'{row[2]:>{widths[2]}}\n')
        file.write(calibration.status().describe() + '\n')
        flush = getattr(file, 'flush', None)
        if flush is not None:
            flush()


__all__ = ['GENERIC', 'KernelReport']
