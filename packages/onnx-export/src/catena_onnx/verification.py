"""Running an exported model in onnxruntime and comparing it with catena."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import numpy


@dataclasses.dataclass(frozen=True)
class OutputDifference:
    """How far onnxruntime's value of one output is from catena's."""

    name: str
    max_abs: float
    max_rel: float
    within_tolerance: bool


@dataclasses.dataclass(frozen=True)
class VerificationReport:
    """The per-output differences of one verification run.

    Attributes:
        outputs: One :class:`OutputDifference` per graph output.
        rtol: The relative tolerance used.
        atol: The absolute tolerance used.
    """

    outputs: tuple[OutputDifference, ...]
    rtol: float
    atol: float

    @property
    def ok(self) -> bool:
        """Whether every output is within ``atol + rtol * |expected|`` (integers: equal)."""
        return all(item.within_tolerance for item in self.outputs)

    def __str__(self) -> str:
        lines = [f'{item.name}: max abs diff {item.max_abs:.3g}, max rel diff '
                 f'{item.max_rel:.3g}{"" if item.within_tolerance else "  (beyond tolerance)"}'
                 for item in self.outputs]
        return '\n'.join(lines)


def run_onnxruntime(model: Any, inputs: Mapping[str, numpy.ndarray]) -> dict[str, numpy.ndarray]:
    """Runs ``model`` (a ModelProto, bytes or a path) on the CPU with onnxruntime.

    Args:
        model: The ONNX model.
        inputs: Array per graph input name.

    Returns:
        dict: Array per graph output name.
    """
    import onnxruntime

    if hasattr(model, 'SerializeToString'):
        source = model.SerializeToString()
    elif isinstance(model, bytes):
        source = model
    else:
        source = str(model)  # a path
    options = onnxruntime.SessionOptions()
    options.log_severity_level = 3
    session = onnxruntime.InferenceSession(source, options, providers=['CPUExecutionProvider'])
    names = [item.name for item in session.get_outputs()]
    return dict(zip(names, session.run(names, dict(inputs))))


def compare(expected: Mapping[str, numpy.ndarray], actual: Mapping[str, numpy.ndarray],
            rtol: float, atol: float) -> VerificationReport:
    """Compares outputs by name and returns the report."""
    rows = []
    for name, want in expected.items():
        got = numpy.asarray(actual[name])
        want = numpy.asarray(want)
        if got.shape != want.shape:
            rows.append(OutputDifference(name, float('inf'), float('inf'), False))
            continue
        if want.dtype.kind in 'biu':
            diff = numpy.abs(got.astype(numpy.int64) - want.astype(numpy.int64))
            scale = numpy.abs(want.astype(numpy.int64))
        else:
            got64 = got.astype(numpy.float64)
            want64 = want.astype(numpy.float64)
            diff = numpy.abs(got64 - want64)
            diff[numpy.isnan(got64) & numpy.isnan(want64)] = 0.0
            diff[(got64 == want64)] = 0.0
            scale = numpy.abs(want64)
        max_abs = float(diff.max()) if diff.size else 0.0
        with numpy.errstate(divide='ignore', invalid='ignore'):
            rel = numpy.where(scale > 0, diff / numpy.where(scale > 0, scale, 1), diff)
        max_rel = float(rel.max()) if rel.size else 0.0
        if want.dtype.kind in 'biu':  # indices and labels must be exact
            within = bool(numpy.all(diff == 0))
        else:
            within = bool(numpy.all(diff <= atol + rtol * scale))
        rows.append(OutputDifference(name, max_abs, max_rel, within))
    return VerificationReport(tuple(rows), rtol, atol)


def verify(model: Any, inputs: Mapping[str, numpy.ndarray], expected: Mapping[str, numpy.ndarray],
           rtol: float = 1e-4, atol: float = 1e-5) -> VerificationReport:
    """Runs ``model`` in onnxruntime on ``inputs`` and compares with ``expected``.

    Args:
        model: The ONNX model (ModelProto, bytes or path).
        inputs: Array per graph input name.
        expected: catena's array per graph output name.
        rtol: Relative tolerance.
        atol: Absolute tolerance.

    Returns:
        VerificationReport: The maximum absolute and relative difference of
        every output (``report.ok`` tells whether all are within tolerance).
    """
    return compare(expected, run_onnxruntime(model, inputs), rtol, atol)
