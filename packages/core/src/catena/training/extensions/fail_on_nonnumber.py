"""The extension that stops training when a parameter diverges (:class:`FailOnNonNumber`)."""

from __future__ import annotations

from typing import Any

from catena import backend
from catena.training import _check, extension


def _all_finite(array: Any) -> bool:
    xp = backend.get_array_module(array)
    return bool(xp.isfinite(array).all())


class FailOnNonNumber(extension.Extension):
    """Raises :class:`RuntimeError` as soon as a parameter (or gradient) holds NaN or Inf.

    Once a parameter is NaN or infinite, training goes on computing
    nothing useful; this extension, run every iteration by default, ends it
    instead. It checks every parameter of every optimizer's target, and
    their gradients unless ``check_grad`` is False; the error names the
    optimizer and the parameter (``'/predictor/W'``).

    Args:
        check_grad: Whether to check the gradients too.
    """

    def __init__(self, *, check_grad: bool = True) -> None:
        self._check_grad = _check.flag('FailOnNonNumber', 'check_grad', check_grad)

    def __call__(self, trainer: Any) -> None:
        """Checks the parameters of every optimizer of the trainer's updater.

        Raises:
            RuntimeError: A parameter or gradient is not finite.
        """
        for name, optimizer in trainer.updater.get_all_optimizers().items():
            for param_name, param in optimizer.target.namedparams(include_uninit=False):
                if not _all_finite(param.array):
                    raise RuntimeError(
                        f"Kill the process since parameters in optimizer '{name}' diverge: "
                        f"{param_name!r} holds NaN or Inf. R.I.P.")
                if self._check_grad and param.grad is not None and not _all_finite(param.grad):
                    raise RuntimeError(
                        f"Kill the process since gradients in optimizer '{name}' diverge: "
                        f"the gradient of {param_name!r} holds NaN or Inf.")


__all__ = ['FailOnNonNumber']
