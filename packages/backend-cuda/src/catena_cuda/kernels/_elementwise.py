"""catena-cuda's fused CuPy elementwise kernels, described as plain data.

A kernel is a :class:`Spec`: the parameter lists and the C body of a
:class:`cupy.ElementwiseKernel`, kept as strings so that tests can read and
interpret them on the CPU. A kernel module turns a FunctionNode or an
UpdateRule into a :class:`Launch` (a spec and its arguments) with plain
Python, which needs no GPU; :func:`run` then makes the kernel (memoized per
GPU by :func:`catena_cuda.elementwise`) and calls it once.

Bodies follow rules that keep them equal to the generic CuPy path, operation
for operation:

- ``T`` is the type of the arrays, inferred by CuPy from them. ``W`` is the
  work type of the optimizers (float32 for float16 parameters, see
  ``catena.optimizers.adam.work_dtype``): CuPy infers a one-letter type
  only from arrays, so ``W`` parameters are given their dtype here and the
  body sees ``W`` through a ``typedef`` in the preamble.
- Each statement does one operation and stores it in a typed variable, so
  that float16 rounds after every operation as in the generic path (one
  CuPy ufunc per operation): CuPy's ``float16`` computes in ``float``.
- Products are written ``mul_rn(a, b)`` (``__fmul_rn``/``__dmul_rn``, from
  the preamble), never ``a * b``: NVRTC contracts a product and a sum into
  one FMA (one rounding instead of two), which the generic path, one
  kernel per operation, never does. The compile options stay CuPy's
  defaults, so that ``exp``, ``expm1`` and ``tanh`` compile exactly as in
  CuPy's own ufuncs (``--fmad=false`` would change their inlined code).
- ``maximum``/``minimum``/``clip`` are written with comparisons that pass
  NaN through, as NumPy's and CuPy's do (CUDA's ``max``/``min`` drop NaN).
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

import numpy

from catena_cuda.kernels import _common

MUL_RN = ('__device__ __forceinline__ float mul_rn(float a, float b) '
          '{ return __fmul_rn(a, b); }\n'
          '__device__ __forceinline__ double mul_rn(double a, double b) '
          '{ return __dmul_rn(a, b); }\n')
"""The preamble of every kernel: a product rounded on its own, never fused into an FMA.

A float16 pair takes the float overload (CuPy's ``float16`` converts to
``float``), as ``a * b`` would.
"""

WORK = 'W'
"""The name of the work type in bodies and parameter lists."""

FLOAT_DTYPES = frozenset(numpy.dtype(t) for t in (numpy.float16, numpy.float32, numpy.float64))
"""The array dtypes the kernels take."""

_C_TYPES = {numpy.dtype(numpy.float32): 'float', numpy.dtype(numpy.float64): 'double'}


@dataclasses.dataclass(frozen=True)
class Spec:
    """One elementwise kernel: what :class:`cupy.ElementwiseKernel` is made from.

    Args:
        name: The CUDA function name, unique among catena-cuda's kernels.
        in_params: The input parameters (``'T x, W eps'``).
        out_params: The output parameters (``'T y'``).
        body: The C statements run for each element.
    """

    name: str
    in_params: str
    out_params: str
    body: str

    @property
    def uses_work_type(self) -> bool:
        """Whether the parameters name the work type ``W``."""
        return any(type_name == WORK for type_name, _ in self.parameters())

    def parameters(self) -> list[tuple[str, str]]:
        """Returns ``(type, name)`` for each input, then each output parameter."""
        pairs = []
        for text in (self.in_params, self.out_params):
            for param in text.split(','):
                words = param.split()
                if len(words) != 2:
                    raise ValueError(f'kernel {self.name}: parameter {param!r} is not '
                                     '"TYPE NAME"')
                pairs.append((words[0], words[1]))
        return pairs


@dataclasses.dataclass(frozen=True)
class Launch:
    """One call of a kernel.

    Args:
        spec: The kernel.
        inputs: The input arguments, in the order of ``spec.in_params``:
            arrays, and scalars already of their parameter's dtype.
        outputs: The output arrays (updated in place), or empty to let CuPy
            allocate them.
        work: The dtype of ``W``, for a spec that uses it.
    """

    spec: Spec
    inputs: tuple[Any, ...]
    outputs: tuple[Any, ...] = ()
    work: numpy.dtype | None = None


def work_params(text: str, work: numpy.dtype | None) -> str:
    """Returns a parameter list with the work type ``W`` spelled as its dtype.

    Args:
        text: A parameter list such as ``'T grad, W eps'``.
        work: The dtype of ``W`` (float32 or float64), or None when the
            list does not use it.

    Returns:
        str: The list with ``W`` replaced by the dtype's name (``float32``).
    """
    params = []
    for param in text.split(','):
        type_name, name = param.split()
        if type_name == WORK:
            if work is None:
                raise ValueError(f'parameter {param.strip()!r} needs a work dtype')
            type_name = numpy.dtype(work).name
        params.append(f'{type_name} {name}')
    return ', '.join(params)


def preamble(work: numpy.dtype | None) -> str:
    """Returns a kernel's preamble: :data:`MUL_RN`, and the ``typedef`` of ``W`` if any.

    Args:
        work: The dtype of ``W`` (float32 or float64), or None.
    """
    if work is None:
        return MUL_RN
    c_type = _C_TYPES.get(numpy.dtype(work))
    if c_type is None:
        raise ValueError(f'the work dtype must be float32 or float64, got {work}')
    return f'{MUL_RN}typedef {c_type} {WORK};\n'


def kernel(spec: Spec, work: numpy.dtype | None = None) -> Any:
    """Returns the :class:`cupy.ElementwiseKernel` of ``spec`` for the current GPU.

    Args:
        spec: The kernel.
        work: The dtype of ``W`` when the spec uses it.

    Returns:
        cupy.ElementwiseKernel: Made once per GPU, spec and work dtype.
    """
    import catena_cuda

    in_params, out_params, text = _arguments(spec, work if spec.uses_work_type else None)
    return catena_cuda.elementwise(in_params, out_params, spec.body, spec.name, preamble=text)


@functools.cache
def _arguments(spec: Spec, work: numpy.dtype | None) -> tuple[str, str, str]:
    return work_params(spec.in_params, work), work_params(spec.out_params, work), preamble(work)


def run(launch: Launch) -> Any:
    """Calls the kernel of ``launch`` once and counts it in ``kernels._common.calls``.

    Args:
        launch: The kernel and its arguments.

    Returns:
        The output array (or tuple of them) that CuPy returns.
    """
    result = kernel(launch.spec, launch.work)(*launch.inputs, *launch.outputs)
    _common.count(launch.spec.name)
    return result


def same_arrays(first: Any, *others: Any) -> bool:
    """Whether arrays share the array type, dtype and shape of ``first``.

    Args:
        first: The reference array.
        others: Arrays (None fails).

    Returns:
        bool: True when every one matches ``first``.
    """
    for array in others:
        if (array is None or array.__class__ is not first.__class__
                or array.dtype != first.dtype or array.shape != first.shape):
            return False
    return True
