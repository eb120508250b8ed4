"""What oneDNN calibration has decided on this machine, and how to start it afresh.

Under ``catena.config.use_ideep = 'auto'`` each oneDNN kernel times itself
against catena's generic code on the first calls of every call signature
and keeps the faster (see the README's "Calibration"). This module reports
on that and resets it:

    >>> from catena_intel64 import calibration
    >>> calibration.status()  # doctest: +SKIP
    CalibrationStatus(enabled=True, decisions=41, onednn=29, generic=12, pending=0,
                      loaded=41, cache='/home/me/.cache/catena/intel64-calibration/...')
"""

from __future__ import annotations

import contextlib
from typing import Any, NamedTuple

from catena_intel64 import _calibration, _calibration_store


class CalibrationStatus(NamedTuple):
    """The state of oneDNN calibration in this process.

    Attributes:
        enabled: ``catena.config.ideep_calibration`` (calibration applies
            under ``use_ideep='auto'`` only).
        decisions: Call signatures this process has run and decided
            (measured here, or taken from the cache file at their first call).
        onednn: Of those, the signatures that run on oneDNN.
        generic: The signatures that run catena's generic code (the kernel
            declined them, it was slower here, or the BLAS-backed functions
            run the generic code).
        pending: Signatures still being timed.
        loaded: Decisions read from the cache file (of every program run on
            this machine).
        cache: The cache file of this machine, or None when decisions are
            kept in memory only.
    """

    enabled: bool
    decisions: int
    onednn: int
    generic: int
    pending: int
    loaded: int
    cache: str | None

    def describe(self) -> str:
        """One line for reports: on or off, the decisions and the cache file."""
        state = 'on' if self.enabled else 'off (fixed size rules only)'
        cache = self.cache if self.cache is not None else 'none (in memory only)'
        return (f'oneDNN calibration: {state}; {self.decisions} decisions '
                f'({self.onednn} oneDNN, {self.generic} generic), {self.pending} being timed; '
                f'cache: {cache} ({self.loaded} decisions read)')


def status() -> CalibrationStatus:
    """Returns the state of calibration (opens the cache file if not yet open)."""
    from catena.configuration import config

    calibrator = _calibration.calibrator()
    store = calibrator.store
    choices = list(calibrator.decisions.values())
    onednn = choices.count(_calibration.ONEDNN)
    return CalibrationStatus(
        enabled=bool(getattr(config, 'ideep_calibration', True)), decisions=len(choices),
        onednn=onednn, generic=len(choices) - onednn, pending=len(calibrator.trials),
        loaded=calibrator.loaded, cache=None if store is None else str(store.path))


def decisions() -> list[dict[str, Any]]:
    """Returns every decision: the signature, the choice and, if measured, the median times.

    Each entry has ``function`` (the FunctionNode class name), ``shapes``,
    ``dtypes`` (the first input's dtype character), ``parameters``,
    ``fpmath_mode``, ``choice`` (``'onednn'`` or ``'generic'``) and
    ``onednn_s``/``generic_s`` (None for signatures the kernel declined).
    """
    calibrator = _calibration.calibrator()
    out = []
    for signature, choice in list(calibrator.decisions.items()):
        function, shapes, dtypes, parameters, fpmath = signature
        onednn_s, generic_s = calibrator.timings.get(signature, (None, None))
        out.append({'function': function, 'shapes': shapes, 'dtypes': dtypes,
                    'parameters': parameters, 'fpmath_mode': fpmath, 'choice': choice,
                    'onednn_s': onednn_s, 'generic_s': generic_s})
    return out


def clear(cache: bool = False) -> None:
    """Forgets every decision, so that the next calls calibrate again.

    Args:
        cache: Also delete this machine's cache file (otherwise the next
            call reads the decisions back from it).
    """
    store = _calibration.calibrator().store
    if cache and store is not None:
        with contextlib.suppress(FileNotFoundError):
            store.path.unlink()
    _calibration.reset()


def cache_folder() -> str | None:
    """Returns the folder of the calibration files, or None when the disk cache is off."""
    folder = _calibration_store.cache_folder()
    return None if folder is None else str(folder)


__all__ = ['CalibrationStatus', 'cache_folder', 'clear', 'decisions', 'status']
