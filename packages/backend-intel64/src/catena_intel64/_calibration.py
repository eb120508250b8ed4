"""Choosing oneDNN or the generic code per call signature, by timing both on this machine.

Under ``use_ideep='auto'`` each kernel first applies its fixed rules (the
sizes from which oneDNN beat NumPy on the machine they were measured on);
what they hand to oneDNN is then *calibrated*: every distinct call
signature (the function, its input shapes and dtype, the node's parameters
that change the computation, ``ideep_fpmath_mode`` for the BLAS-backed
functions) is timed on both
implementations during its first calls, and the faster one computes every
later call. Calibration can only take oneDNN away where it is slower here;
it never runs oneDNN where the fixed rules would not.

During calibration each call runs exactly one implementation (a generic
forward may have side effects, such as batch normalization's running
averages), and every signature under calibration runs the same side at the
same time. Time is counted in *epochs*: the first signature of a
calibration window is its anchor, and each of its calls starts an epoch (in
a training loop, an iteration, or a time step of a recurrent network). An
untimed epoch on oneDNN (the first call builds its primitive) and
:data:`BLOCK` timed ones, then the same on the generic code, then both again:
after :data:`EPOCHS` epochs the window closes and every signature timed on
both sides is decided by its fastest calls; the others start over in a new
window. A kernel that declines a signature (returns Fallback) decides it for
the generic code at once. After that a call costs a dictionary lookup.

Timing in blocks rather than alternating calls matters on machines whose
cores NumPy's BLAS threads and oneDNN's OpenMP threads share: BLAS threads
keep spinning for a while after each matrix product, and a oneDNN call right
after generic ones then ran up to twice as slow as among other oneDNN calls
(2 cores, AVX2). Moving every signature in step, a block times each side
among calls of the same side, as in a program that runs that side
throughout; the untimed epoch at the start of a block absorbs the switch.
For the same reason the choice is not made per signature for the functions
whose generic code is BLAS matrix products (:data:`BLAS_BACKED`:
convolutions, deconvolutions, linear layers and their gradients): the
spinning threads also slow whatever runs next, the program's own NumPy code
included, which no single call's timing shows. Each window gives them a
verdict from its epochs (which time the whole program): oneDNN if the
fastest epoch on oneDNN took at least :data:`MARGIN` less than the fastest
epoch on the generic code, the generic code if the reverse, else a tie. They
run together on the generic code, and so does every other function, if any
window found it faster or all were ties; otherwise together on oneDNN. The
other functions (pooling, normalizations, activations) are chosen one by
one by their fastest calls, with the same margin in favour of the generic code.
Fastest, not median: on a shared machine other programs only ever add time,
and a few slowed epochs on one side flipped the median (LeNet and the PTB
model went to the generic code in one run of two, 25-30 % slower).

Decisions are kept in memory and in a per-machine file
(:mod:`catena_intel64._calibration_store`), so a program calibrates once per
machine. ``catena.config.ideep_calibration = False`` (or
``CATENA_IDEEP_CALIBRATION=0``) turns calibration off: the fixed rules alone
decide, as before calibration existed. ``'always'`` and ``'never'`` are not
affected.
"""

from __future__ import annotations

import atexit
import functools
import math
import operator
import threading
import time
from collections.abc import Callable
from typing import Any

from catena.backends import Fallback
from catena.configuration import config
from catena_intel64 import _calibration_store

ONEDNN = 'onednn'
GENERIC = 'generic'
TIE = 'tie'
"""A window of BLAS-backed functions whose epochs differed by less than the margin."""

BLOCK = 2
"""Timed epochs in a row on one side (after an untimed first epoch on that side)."""

EPOCHS = 4 * (BLOCK + 1)
"""Epochs of a calibration window: two blocks on each side."""

ANCHOR_PATIENCE = 10000
"""Calls under calibration after which an anchor that has not come back is replaced."""

MARGIN = 0.05
"""oneDNN must be this much faster (relative to the generic time) to be chosen."""

SAVE_INTERVAL = 2.0
"""Seconds between two writes of the decisions file (the rest is written at exit)."""

MAX_TRIALS = 4096
MAX_DECISIONS = 65536
"""Beyond these many signatures under trial or decided (programs whose shapes never
repeat), new signatures follow the fixed rules without calibration."""

BLAS_BACKED = frozenset({
    'Convolution2DFunction', 'Convolution2DGradW', 'Deconvolution2DFunction',
    'LinearFunction', 'LinearGradData', 'LinearGradWeight'})
"""The functions whose generic code is matrix products on NumPy's BLAS threads."""

PARAMETERS: dict[str, tuple[str, ...]] = {
    'Convolution2DFunction': ('sy', 'sx', 'ph', 'pw', 'dy', 'dx', 'groups', 'cover_all'),
    'Convolution2DGradW': ('sy', 'sx', 'ph', 'pw', 'dy', 'dx', 'groups', 'cover_all',
                           'kh', 'kw'),
    'Deconvolution2DFunction': ('sy', 'sx', 'ph', 'pw', 'dy', 'dx', 'groups', 'outh',
                                'outw'),
    'MaxPooling2D': ('kh', 'kw', 'sy', 'sx', 'ph', 'pw', 'cover_all', 'return_indices'),
    'MaxPooling2DGrad': ('kh', 'kw', 'sy', 'sx', 'ph', 'pw', 'cover_all', '_in_shape'),
    'AveragePooling2D': ('kh', 'kw', 'sy', 'sx', 'ph', 'pw', 'cover_all'),
    'AveragePooling2DGrad': ('kh', 'kw', 'sy', 'sx', 'ph', 'pw', 'cover_all', '_in_shape'),
    'LocalResponseNormalization': ('n', 'k', 'alpha', 'beta'),
    'LocalResponseNormalizationGrad': ('n', 'k', 'alpha', 'beta'),
    'BatchNormalization': ('axis',),
    'FixedBatchNormalization': ('axis',),
    'ELU': ('alpha',),
    'ELUGrad': ('alpha',),
    'LeakyReLU': ('slope',),
    'Concat': ('axis',),
}
"""The node attributes, per FunctionNode class name, that a call signature includes
(besides the inputs' shapes and dtypes): those that change either implementation's work."""


class Trial:
    """The timings of one signature under calibration."""

    __slots__ = ('calls', 'onednn', 'generic')

    def __init__(self) -> None:
        self.calls = 0
        self.onednn: list[float] = []
        self.generic: list[float] = []


class Calibrator:
    """Decisions and trials of one process (see the module docstring).

    Args:
        clock: The timer of the calls (seconds): :func:`time.perf_counter`
            unless a test gives a fake one.
        open_store: Returns the store decisions persist in, or None to keep
            them in memory; called, and the store read, at the first call
            that has no decision yet.
    """

    def __init__(self, clock: Callable[[], float] = time.perf_counter,
                 open_store: Callable[[], _calibration_store.Store | None] =
                 _calibration_store.open_store) -> None:
        self.clock = clock
        # choices: each signature's own verdict; decisions: what runs (see _refresh)
        self.choices: dict[tuple[Any, ...], str] = {}
        self.decisions: dict[tuple[Any, ...], str] = {}
        self.group: str | None = None
        self.anchor: tuple[Any, ...] | None = None
        self.epoch = 0
        self.epoch_start = 0.0
        self.epoch_times: dict[bool, list[float]] = {True: [], False: []}
        self.since_anchor = 0
        self.timings: dict[tuple[Any, ...], tuple[float, float]] = {}
        self.trials: dict[tuple[Any, ...], Trial] = {}
        self.declined: set[tuple[Any, ...]] = set()
        self.stored: dict[tuple[Any, ...], _calibration_store.Entry] = {}
        self.loaded = 0
        self._open_store = open_store
        self._store: _calibration_store.Store | None = None
        self._opened = False
        self._dirty = False
        self._saved_at = -math.inf
        self._lock = threading.RLock()

    @property
    def store(self) -> _calibration_store.Store | None:
        """The file decisions persist in (opened, and read, on first use), or None."""
        if not self._opened:
            with self._lock:
                if not self._opened:
                    self._store = self._open_store()
                    if self._store is not None:
                        self._load(self._store)
                        atexit.register(self.flush)
                    self._opened = True
        return self._store

    def _load(self, store: _calibration_store.Store) -> None:
        # Adopted by each signature's first call: the group is decided over what runs here.
        self.stored = store.load()
        self.loaded = len(self.stored)

    def _adopt(self, signature: tuple[Any, ...]) -> bool:
        """Takes ``signature``'s decision from the file, if it has one."""
        entry = self.stored.get(signature)
        if entry is None:
            return False
        with self._lock:
            if signature not in self.choices:
                self.choices[signature] = entry[0]
                self.timings[signature] = entry[1:]
                self._refresh()
        return True

    def _refresh(self) -> None:
        """Recomputes the group's choice and what every decided signature runs.

        The BLAS-backed functions (:data:`BLAS_BACKED`) measured in this
        process hold their window's verdict (see :meth:`_close_window`): if
        any window found the generic code faster, all of them and every
        other function run it; otherwise, if any found oneDNN faster, they
        all run oneDNN (a window of ties follows the others); with ties only,
        the generic code.
        """
        verdicts = {self.choices[signature] for signature in self.timings
                    if signature[0] in BLAS_BACKED}
        group = None
        if GENERIC in verdicts:
            group = GENERIC
        elif ONEDNN in verdicts:
            group = ONEDNN
        elif verdicts:  # ties only: the generic code
            group = GENERIC
        self.group = group
        decisions = {}
        for signature, choice in self.choices.items():
            if group is not None and (group == GENERIC or choice == TIE):
                choice = group
            decisions[signature] = choice
        self.decisions = decisions

    def run(self, kernel: Callable[[Any, tuple[Any, ...]], Any], node: Any,
            inputs: tuple[Any, ...], signature: tuple[Any, ...]) -> Any:
        """One call of an undecided ``signature``: runs one side, times it, maybe decides."""
        _ = self.store  # the first call reads the file, which may hold the decision
        if signature not in self.trials:
            self._adopt(signature)
        choice = self.decisions.get(signature)
        if choice is not None:
            return kernel(node, inputs) if choice == ONEDNN else Fallback
        with self._lock:
            trial = self.trials.get(signature)
            if trial is None:
                if len(self.trials) >= MAX_TRIALS or len(self.choices) >= MAX_DECISIONS:
                    return kernel(node, inputs)  # the fixed rules, as without calibration
                trial = self.trials[signature] = Trial()
            if self.anchor is None or self.anchor not in self.trials:
                self.anchor, self.epoch, self.since_anchor = signature, 0, 0
                self.epoch_times = {True: [], False: []}
                self.epoch_start = self.clock()
            elif signature == self.anchor and trial.calls:
                now = self.clock()
                on_onednn, counted = self.schedule(self.epoch)
                if counted:
                    self.epoch_times[on_onednn].append(now - self.epoch_start)
                self.epoch, self.epoch_start, self.since_anchor = self.epoch + 1, now, 0
            else:
                self.since_anchor += 1
                if self.since_anchor > ANCHOR_PATIENCE:  # the anchor stopped coming back
                    self.anchor, self.since_anchor = signature, 0
            if self.epoch >= EPOCHS:
                closed = self._close_window()
            else:
                closed = False
            trial.calls += 1
            epoch = self.epoch
        if closed:
            self._saved()
            if signature in self.decisions:
                return kernel(node, inputs) if self.decisions[signature] == ONEDNN else Fallback
            return self.run(kernel, node, inputs, signature)
        on_onednn, counted = self.schedule(epoch)
        start = self.clock()
        outputs = kernel(node, inputs) if on_onednn else node.forward(inputs)
        elapsed = self.clock() - start
        if outputs is Fallback:
            self._decline(signature)
            return outputs
        if counted:
            with self._lock:
                (trial.onednn if on_onednn else trial.generic).append(elapsed)
        return outputs

    def _close_window(self) -> bool:
        """Decides every signature timed on both sides; the others start over.

        The BLAS-backed ones get the window's verdict, by the epochs: oneDNN
        if the fastest epoch on oneDNN took :data:`MARGIN` less than the
        fastest epoch on the generic code, the generic code if the reverse,
        else a tie (an epoch holds everything the program did between two
        calls of the anchor, so this counts what each side costs the rest
        of the program too). The others are decided one by one by their own
        fastest calls.
        """
        epochs = self.epoch_times
        group = TIE
        if epochs[True] and epochs[False]:
            onednn, generic = min(epochs[True]), min(epochs[False])
            if onednn <= (1 - MARGIN) * generic:
                group = ONEDNN
            elif generic <= (1 - MARGIN) * onednn:
                group = GENERIC
        for signature, trial in list(self.trials.items()):
            if trial.onednn and trial.generic:
                del self.trials[signature]
                self.choices[signature] = (group if signature[0] in BLAS_BACKED
                                           else _verdict(trial))
                self.timings[signature] = (min(trial.onednn), min(trial.generic))
                self._dirty = True
            else:
                self.trials[signature] = Trial()
        self.anchor = None
        self._refresh()
        return True

    @staticmethod
    def schedule(epoch: int) -> tuple[bool, bool]:
        """Whether the calls of ``epoch`` run oneDNN, and whether they are timed.

        Blocks of an untimed epoch and :data:`BLOCK` timed ones, on oneDNN,
        then on the generic code, then again.
        """
        position = epoch % (2 * BLOCK + 2)
        return position <= BLOCK, position not in (0, BLOCK + 1)

    def _decline(self, signature: tuple[Any, ...]) -> None:
        """The kernel declined ``signature``: the generic code runs it, untimed."""
        with self._lock:
            self.trials.pop(signature, None)
            if signature not in self.choices:
                self.choices[signature] = GENERIC
                self.declined.add(signature)
                self._refresh()

    def _saved(self) -> None:
        """Writes new decisions unless the last write was less than SAVE_INTERVAL ago."""
        if self._store is not None and time.monotonic() - self._saved_at >= SAVE_INTERVAL:
            self.flush()

    def flush(self) -> None:
        """Writes the measured decisions to the store, if any are new since the last write."""
        with self._lock:
            store = self._store
            if store is None or not self._dirty:
                return
            self._dirty = False
            self._saved_at = time.monotonic()
            decisions = self.persistent()
        store.save(decisions)

    def close(self) -> None:
        """Drops what is not yet written: nothing of this calibrator reaches the store."""
        with self._lock:
            self._dirty = False
        atexit.unregister(self.flush)

    def persistent(self) -> dict[tuple[Any, ...], _calibration_store.Entry]:
        """The measured decisions (not the declined ones), as the store keeps them."""
        with self._lock:
            measured = {signature: (choice, *self.timings[signature])
                         for signature, choice in self.choices.items()
                         if signature in self.timings}
            return {**self.stored, **measured}


def _verdict(trial: Trial) -> str:
    """The faster side of one signature by its fastest calls, with the margin for NumPy."""
    if min(trial.onednn) <= (1 - MARGIN) * min(trial.generic):
        return ONEDNN
    return GENERIC


_calibrator: Calibrator | None = None
_calibrator_lock = threading.Lock()


def calibrator() -> Calibrator:
    """The process's calibrator (created on first use)."""
    global _calibrator
    if _calibrator is None:
        with _calibrator_lock:
            if _calibrator is None:
                _calibrator = Calibrator()
    return _calibrator


def reset(new: Calibrator | None = None) -> Calibrator:
    """Replaces the process's calibrator, forgetting its decisions and trials.

    Args:
        new: The replacement; by default an empty one with the current
            one's clock and store.
    """
    global _calibrator
    with _calibrator_lock:
        old = _calibrator
        if old is not None:
            old.close()
        if new is None:
            new = Calibrator() if old is None else Calibrator(old.clock, old._open_store)
        _calibrator = new
    return new


def _parameters(node: Any, names: tuple[str, ...]) -> Any:
    """What ``operator.attrgetter(*names)(node)`` gives, with None for a missing attribute."""
    if len(names) == 1:
        return getattr(node, names[0], None)
    return tuple([getattr(node, name, None) for name in names])


def calibrated(kernel: Callable[[Any, tuple[Any, ...]], Any],
               node_class: type) -> Callable[[Any, tuple[Any, ...]], Any]:
    """``kernel`` deciding per call signature under ``use_ideep='auto'``.

    Args:
        kernel: A kernel's ``forward(node, inputs)``.
        node_class: The FunctionNode class it implements.

    Returns:
        A function of the same signature: under ``'auto'`` with calibration
        on, it runs ``kernel`` or returns Fallback (or, while calibrating,
        runs the node's generic ``forward`` itself) by the signature's
        decision; otherwise it is ``kernel``.
    """
    name = node_class.__name__
    names = PARAMETERS.get(name, ())
    parameters = operator.attrgetter(*names) if names else None
    bf16_capable = name in BLAS_BACKED  # fpmath_mode matters to convolutions only
    shape_of = operator.attrgetter('shape')

    @functools.wraps(kernel)
    def forward(node: Any, inputs: tuple[Any, ...]) -> Any:
        if config.use_ideep != 'auto' or not getattr(config, 'ideep_calibration', True):
            return kernel(node, inputs)
        try:
            # The first input's dtype stands for all: kernels take one dtype only.
            try:
                values = None if parameters is None else parameters(node)
            except AttributeError:  # a parameter the node does not always set
                values = _parameters(node, names)
            signature = (name, tuple(map(shape_of, inputs)), inputs[0].dtype.char, values,
                         getattr(config, 'ideep_fpmath_mode', 'strict') if bf16_capable
                         else 'strict')
            calibration = _calibrator or calibrator()
            choice = calibration.decisions.get(signature)
        except (AttributeError, TypeError):  # not arrays, or an unhashable parameter
            return kernel(node, inputs)
        if choice is None:
            return calibration.run(kernel, node, inputs, signature)
        return kernel(node, inputs) if choice == ONEDNN else Fallback

    return forward
