"""Checking converters: export a small model, run onnxruntime, compare with catena."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from typing import Any

import numpy

import catena


@dataclasses.dataclass
class ConverterCase:
    """A small model that exercises one or more converters.

    Attributes:
        name: A short id for test reports.
        model: A Link or function called on the inputs (as Variables).
        inputs: The input arrays.
        converts: The FunctionNode classes the traced model must contain
            (their converters are what the case checks).
        rtol: Relative tolerance of the comparison.
        atol: Absolute tolerance of the comparison.
        opsets: Further opsets a test checks besides the oldest and the newest
            that every converter of ``converts`` writes and onnxruntime runs
            (those that reach an opset-dependent branch of a converter).
        export_kwargs: Further arguments of :func:`catena_onnx.export`.
    """

    name: str
    model: Callable[..., Any]
    inputs: Sequence[Any]
    converts: tuple[type, ...]
    rtol: float = 1e-5
    atol: float = 1e-6
    opsets: tuple[int, ...] | None = None
    export_kwargs: dict[str, Any] = dataclasses.field(default_factory=dict)

    def __str__(self) -> str:
        return self.name


def case_opsets(case: ConverterCase) -> tuple[int, int]:
    """The oldest and newest opset every converter of ``case.converts`` writes
    and the installed onnxruntime runs."""
    from catena_onnx._opsets import maximum_opset_version, newest_runtime_opset
    from catena_onnx.registry import default_table

    table = default_table()
    low, high = 0, maximum_opset_version()
    runtime = newest_runtime_opset()
    if runtime is not None:
        high = min(high, runtime)
    for func_class in case.converts:
        span = table.opset_range(func_class)
        if span is None:
            raise LookupError(f'no converter is registered for {func_class.__qualname__}')
        low = max(low, span[0])
        if span[1] is not None:
            high = min(high, span[1])
    if low > high:
        raise LookupError(f'the converters of {case.name} share no opset that onnxruntime runs')
    return low, high


def case_runs(cases: Sequence[ConverterCase]) -> list[tuple[ConverterCase, int]]:
    """The opsets at which converter tests check each case.

    Args:
        cases: The cases to check.

    Returns:
        For each case in order, one ``(case, opset)`` pair per opset: the
        oldest and newest of :func:`case_opsets` and every opset pinned in
        ``case.opsets``, without repeats, in increasing order.
    """
    runs = []
    for case in cases:
        for opset in sorted({*case_opsets(case), *(case.opsets or ())}):
            runs.append((case, opset))
    return runs


def check_case(case: ConverterCase, opset: int) -> Any:
    """Exports ``case.model`` at ``opset`` and checks onnxruntime against catena.

    Checks that every class of ``case.converts`` was traced, that the model
    passes ``onnx.checker`` (export does), and that every output matches.

    Returns:
        The exported ModelProto.
    """
    from catena_onnx import _trace
    from catena_onnx.export import export
    from catena_onnx.verification import run_onnxruntime

    traced = _trace.trace(case.model, list(case.inputs))
    present = {type(call.func) for call in traced.calls}
    missing = [cls.__qualname__ for cls in case.converts
               if not any(issubclass(p, cls) for p in present)]
    assert not missing, (f'{case.name}: the traced model does not apply {missing}; it applies '
                         f'{sorted(p.__qualname__ for p in present)}')

    onnx_model, inputs, outputs = export(case.model, list(case.inputs), opset_version=opset,
                                         return_named_inout=True, **case.export_kwargs)
    feeds = {name: numpy.asarray(variable.array) for name, variable in inputs.items()}
    actual = run_onnxruntime(onnx_model, feeds)
    with catena.using_config('train', False):
        for name, variable in outputs.items():
            expected = numpy.asarray(variable.array)
            got = actual[name]
            assert got.shape == expected.shape, (
                f'{case.name} (opset {opset}): output {name} has shape {got.shape} in '
                f'onnxruntime, {expected.shape} in catena')
            assert got.dtype == expected.dtype, (
                f'{case.name} (opset {opset}): output {name} is {got.dtype} in onnxruntime, '
                f'{expected.dtype} in catena')
            numpy.testing.assert_allclose(
                got.astype(numpy.float64) if got.dtype.kind == 'f' else got,
                expected.astype(numpy.float64) if expected.dtype.kind == 'f' else expected,
                rtol=case.rtol, atol=case.atol,
                err_msg=f'{case.name} (opset {opset}): output {name}')
    return onnx_model


def builtin_classes(module: str) -> set[type]:
    """The FunctionNode classes that the built-in converters of ``module`` convert.

    Args:
        module: A converter module, e.g. ``'catena_onnx.converters.activation'``.
    """
    from catena_onnx import registry

    registry.default_table()
    return {item.func_class for item in registry._builtin if item.convert.__module__ == module}


def uncovered(cases: Sequence[ConverterCase], module: str) -> list[str]:
    """The classes converted in ``module`` that no case of ``cases`` exercises."""
    covered = {cls for case in cases for cls in case.converts}
    return sorted(cls.__qualname__ for cls in builtin_classes(module) - covered)
