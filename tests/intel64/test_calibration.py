"""oneDNN calibration under use_ideep='auto': decisions from (fake) timings, the cache file.

Every timing here comes from a fake clock that the implementations advance
by set amounts, so no test depends on the CPU it runs on.
"""

# ruff: noqa: NPY002

from __future__ import annotations

import functools
import json
import os
import pathlib
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy
import pytest

import catena
import catena.functions as F
from catena.backends import Fallback

pytest.importorskip('catena_intel64')

from catena_intel64 import _calibration, _calibration_store, calibration  # noqa: E402
from catena_intel64._calibration import GENERIC, ONEDNN, Calibrator  # noqa: E402

pytestmark = pytest.mark.ideep

CONTEXT = {'cpu': 'test CPU', 'onednn': '3.2.0', 'isa': 'avx2', 'threads': 2}


class Clock:
    """A fake ``perf_counter``: time moves only when an implementation says so."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


class Fake:
    """A kernel and a node whose forward (the generic code) take set (fake) durations.

    ``onednn`` and ``generic`` are the durations of successive calls of each
    side (the last one repeats).
    """

    def __init__(self, clock: Clock, onednn: list[float], generic: list[float],
                 declines: bool = False) -> None:
        self.clock = clock
        self.onednn, self.generic = list(onednn), list(generic)
        self.declines = declines
        self.ran: list[str] = []

    def _spend(self, durations: list[float]) -> None:
        self.clock.now += durations.pop(0) if len(durations) > 1 else durations[0]

    def kernel(self, node: Any, inputs: tuple[Any, ...]) -> Any:
        if self.declines:
            self.ran.append('declined')
            return Fallback
        self.ran.append(ONEDNN)
        self._spend(self.onednn)
        return ('onednn output',)

    def forward(self, inputs: tuple[Any, ...]) -> Any:
        self.ran.append(GENERIC)
        self._spend(self.generic)
        return ('generic output',)


class FakeNode:
    def __init__(self, fake: Fake, sy: int = 1) -> None:
        self.forward = fake.forward
        self.sy = sy


class Convolution2DFunction:
    """Named like the core's class, so that its parameters (``sy``...) enter signatures.

    Its generic code is BLAS-backed: such functions are decided as a group.
    """


class MaxPooling2D:
    """Named like the core's class: a function decided on its own."""


def _call(forward: Callable[..., Any], fake: Fake, x: numpy.ndarray, sy: int = 1) -> Any:
    """One call as the core makes it: the kernel, then the generic forward on Fallback."""
    node = FakeNode(fake, sy)
    outputs = forward(node, (x,))
    return node.forward((x,)) if outputs is Fallback else outputs


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def calibrator(clock: Clock) -> Iterator[Calibrator]:
    previous = _calibration._calibrator
    yield _calibration.reset(Calibrator(clock, open_store=lambda: None))
    _calibration._calibrator = previous


def _pattern(calls: int, decided: str = '') -> list[str]:
    """The side each call of a lone signature runs: by the schedule, then ``decided``."""
    return [(ONEDNN if Calibrator.schedule(epoch)[0] else GENERIC)
            if epoch < _calibration.EPOCHS else decided for epoch in range(calls)]


def _full(calibrator: Calibrator) -> int:
    """Calls of a lone signature up to the one that closes its window (and runs the winner)."""
    return _calibration.EPOCHS + 1


def test_each_side_runs_blocks_of_an_untimed_epoch_and_timed_ones() -> None:
    block = _calibration.BLOCK
    one_round = ([(True, False)] + [(True, True)] * block + [(False, False)]
                 + [(False, True)] * block)
    assert [Calibrator.schedule(t) for t in range(2 * len(one_round))] == one_round * 2
    assert _calibration.EPOCHS == 2 * len(one_round)


@pytest.fixture
def auto() -> Iterator[None]:
    with catena.using_config('use_ideep', 'auto'):
        yield


X = numpy.zeros((2, 3), numpy.float32)


def _run(fake: Fake, calls: int, x: numpy.ndarray = X, node_class: type = Convolution2DFunction
         ) -> list[Any]:
    forward = _calibration.calibrated(fake.kernel, node_class)
    return [_call(forward, fake, x) for _ in range(calls)]


def _sig(x: numpy.ndarray = X, sy: int = 1, node_class: type = Convolution2DFunction
         ) -> tuple[Any, ...]:
    if node_class is MaxPooling2D:
        return ('MaxPooling2D', (x.shape,), 'f', (None, None, sy) + (None,) * 5, 'strict')
    return ('Convolution2DFunction', (x.shape,), 'f', (sy,) + (None,) * 7, 'strict')


def test_faster_onednn_is_chosen_by_the_fastest_calls(calibrator: Calibrator, clock: Clock,
                                                      auto: None) -> None:
    fake = Fake(clock, [1.0], [1.5])
    calls = _full(calibrator)
    outputs = _run(fake, calls)
    # exactly one implementation per call; the last call runs the winner
    assert fake.ran == _pattern(calls, ONEDNN)
    assert outputs == [(f'{side} output',) for side in _pattern(calls, ONEDNN)]
    assert calibrator.decisions == {_sig(): ONEDNN}
    assert calibrator.timings[_sig()] == (1.0, 1.5)
    assert calibrator.trials == {}
    fake.ran.clear()
    assert _run(fake, 3) == [('onednn output',)] * 3
    assert fake.ran == [ONEDNN] * 3


def test_slower_onednn_leaves_the_signature_generic(calibrator: Calibrator, clock: Clock,
                                                    auto: None) -> None:
    fake = Fake(clock, [1.5], [1.0])
    _run(fake, _full(calibrator))
    assert calibrator.decisions == {_sig(): GENERIC}
    fake.ran.clear()
    assert _run(fake, 3) == [('generic output',)] * 3
    assert fake.ran == [GENERIC] * 3


def test_onednn_must_win_by_the_margin(calibrator: Calibrator, clock: Clock, auto: None) -> None:
    fake = Fake(clock, [0.97], [1.0])  # 3 % faster: not enough
    _run(fake, _full(calibrator))
    assert calibrator.decisions == {_sig(): GENERIC}


def test_no_decision_before_every_sample_is_in(calibrator: Calibrator, clock: Clock,
                                               auto: None) -> None:
    fake = Fake(clock, [1.0], [1.5])
    _run(fake, _full(calibrator) - 1)
    assert calibrator.decisions == {}
    assert list(calibrator.trials) == [_sig()]


def test_warm_up_calls_do_not_count(calibrator: Calibrator, clock: Clock, auto: None) -> None:
    # the first oneDNN call builds its primitive: 100 times slower, ignored
    fake = Fake(clock, [100.0, 1.0], [1.5])
    _run(fake, _full(calibrator))
    assert calibrator.decisions == {_sig(): ONEDNN}


def test_one_slow_timing_does_not_decide(calibrator: Calibrator, clock: Clock,
                                         auto: None) -> None:
    # another process took the core during one oneDNN call: the fastest call ignores it
    fake = Fake(clock, [1.0, 50.0, 1.0], [1.5])
    _run(fake, _full(calibrator))
    assert calibrator.decisions == {_sig(): ONEDNN}


def test_a_slowed_stretch_on_one_side_does_not_decide(calibrator: Calibrator, clock: Clock,
                                                      auto: None) -> None:
    # three of the four timed oneDNN calls slowed: their median (2.0) would pick the
    # generic code (1.4), which on a shared machine sent whole networks to NumPy
    fake = Fake(clock, [1.0, 1.0, 2.0, 2.0, 2.0, 2.0], [1.4])
    _run(fake, _full(calibrator))
    assert calibrator.decisions == {_sig(): ONEDNN}


def test_signatures_run_the_same_side_at_the_same_time(calibrator: Calibrator, clock: Clock,
                                                       auto: None) -> None:
    # the second signature comes twice per epoch and joins late: it follows the anchor
    anchor = Fake(clock, [1.0], [1.5])
    other = Fake(clock, [1.0], [1.5])
    pool = _calibration.calibrated(other.kernel, MaxPooling2D)
    conv = _calibration.calibrated(anchor.kernel, Convolution2DFunction)
    sides = []
    for epoch in range(_calibration.EPOCHS):
        _call(conv, anchor, X)
        if epoch >= 2:
            _call(pool, other, X)
            _call(pool, other, X)
            sides.append(anchor.ran[-1])
    assert other.ran == [side for side in sides for _ in range(2)]
    assert calibrator.decisions == {}
    _call(conv, anchor, X)  # the window closes: both are decided
    assert calibrator.decisions == {_sig(): ONEDNN, _sig(node_class=MaxPooling2D): ONEDNN}


def test_a_signature_seen_on_one_side_only_starts_over(calibrator: Calibrator, clock: Clock,
                                                       auto: None) -> None:
    anchor = Fake(clock, [1.0], [1.5])
    late = Fake(clock, [1.0], [1.5])
    conv = _calibration.calibrated(anchor.kernel, Convolution2DFunction)
    pool = _calibration.calibrated(late.kernel, MaxPooling2D)
    for _ in range(_calibration.EPOCHS):
        _call(conv, anchor, X)
    _call(pool, late, X)  # joins in the last (generic) epoch
    _call(conv, anchor, X)
    assert calibrator.decisions == {_sig(): ONEDNN}
    assert list(calibrator.trials) == [_sig(node_class=MaxPooling2D)]
    for _ in range(_full(calibrator)):
        _call(pool, late, X)
    assert calibrator.decisions[_sig(node_class=MaxPooling2D)] == ONEDNN


def test_each_signature_is_decided_on_its_own(calibrator: Calibrator, clock: Clock,
                                              auto: None) -> None:
    fast = Fake(clock, [1.0], [2.5])
    slow = Fake(clock, [2.5], [1.0])
    big = numpy.zeros((4, 3), numpy.float32)
    pool = MaxPooling2D
    for _ in range(_full(calibrator)):
        _call(_calibration.calibrated(fast.kernel, pool), fast, X)
        _call(_calibration.calibrated(slow.kernel, pool), slow, X, sy=2)
        _call(_calibration.calibrated(slow.kernel, pool), slow, big)
    assert calibrator.decisions == {_sig(node_class=pool): ONEDNN,
                                    _sig(sy=2, node_class=pool): GENERIC,
                                    _sig(big, node_class=pool): GENERIC}


def _window(calibrator: Calibrator, *members: tuple[Fake, numpy.ndarray, type],
            program: tuple[float, float] = (0.0, 0.0)) -> None:
    """One calibration window over ``members`` called in turn, the first as anchor.

    ``program`` is the time the program's own code takes per epoch, on oneDNN
    epochs and on generic ones.
    """
    anchor = members[0][0]
    for _ in range(_full(calibrator)):
        for fake, x, node_class in members:
            _call(_calibration.calibrated(fake.kernel, node_class), fake, x)
        anchor.clock.now += program[0] if anchor.ran[-1] == ONEDNN else program[1]


def test_blas_backed_functions_are_decided_together(calibrator: Calibrator, clock: Clock,
                                                    auto: None) -> None:
    big = numpy.zeros((4, 3), numpy.float32)
    pooled = numpy.zeros((5, 3), numpy.float32)
    conv = Convolution2DFunction
    # one convolution 2.5 times faster on oneDNN, another slightly slower: epochs of
    # 4 + 5 + 1 on oneDNN against 10 + 4 + 2 on the generic code
    _window(calibrator, (Fake(clock, [4.0], [10.0]), X, conv),
            (Fake(clock, [5.0], [4.0]), big, conv),
            (Fake(clock, [1.0], [2.0]), pooled, MaxPooling2D))
    assert calibrator.choices == {_sig(): ONEDNN, _sig(big): ONEDNN,
                                  _sig(pooled, node_class=MaxPooling2D): ONEDNN}
    assert calibrator.timings[_sig(big)] == (5.0, 4.0)
    assert calibrator.group == ONEDNN
    assert set(calibrator.decisions.values()) == {ONEDNN}


def test_epochs_count_what_each_side_costs_the_rest_of_the_program(
        calibrator: Calibrator, clock: Clock, auto: None) -> None:
    # as fast call for call, but the program's own code runs slower among generic calls
    _window(calibrator, (Fake(clock, [1.0], [1.0]), X, Convolution2DFunction),
            program=(1.0, 2.0))
    assert calibrator.decisions == {_sig(): ONEDNN}


def test_a_generic_group_takes_every_function_to_the_generic_code(
        calibrator: Calibrator, clock: Clock, auto: None) -> None:
    pooled = numpy.zeros((5, 3), numpy.float32)
    _window(calibrator, (Fake(clock, [1.0], [2.0]), pooled, MaxPooling2D))
    assert calibrator.decisions == {_sig(pooled, node_class=MaxPooling2D): ONEDNN}
    _window(calibrator, (Fake(clock, [3.0], [2.0]), X, Convolution2DFunction))
    assert calibrator.group == GENERIC
    assert calibrator.decisions == {_sig(pooled, node_class=MaxPooling2D): GENERIC,
                                    _sig(): GENERIC}
    fake = Fake(clock, [1.0], [2.0])
    _run(fake, 2, pooled, MaxPooling2D)
    assert fake.ran == [GENERIC, GENERIC]


def test_a_declined_signature_is_generic_without_timing(calibrator: Calibrator,
                                                        clock: Clock, auto: None) -> None:
    fake = Fake(clock, [1.0], [1.0], declines=True)
    assert _run(fake, 3) == [('generic output',)] * 3
    # the kernel is asked once; then the signature goes straight to the generic code
    assert fake.ran == ['declined', GENERIC, GENERIC, GENERIC]
    assert calibrator.decisions == {_sig(): GENERIC}
    assert calibrator.persistent() == {}  # nothing measured, nothing to store


@pytest.mark.parametrize('level', ['always', 'never'])
def test_always_and_never_are_not_calibrated(calibrator: Calibrator, clock: Clock,
                                             level: str) -> None:
    fake = Fake(clock, [10.0], [1.0])
    forward = _calibration.calibrated(fake.kernel, Convolution2DFunction)
    with catena.using_config('use_ideep', level):
        for _ in range(5):
            assert forward(FakeNode(fake), (X,)) == ('onednn output',)
    assert fake.ran == [ONEDNN] * 5
    assert calibrator.decisions == {} and calibrator.trials == {}


def test_calibration_can_be_turned_off(calibrator: Calibrator, clock: Clock,
                                       auto: None) -> None:
    fake = Fake(clock, [10.0], [1.0])
    with catena.using_config('ideep_calibration', False):
        _run(fake, 5)
    assert fake.ran == [ONEDNN] * 5  # the fixed rules alone
    assert calibrator.decisions == {} and calibrator.trials == {}


@pytest.mark.parametrize('value, expected', [
    (None, True), ('1', True), ('0', False), ('off', False), ('False', False), ('no', False)])
def test_calibration_config_default_comes_from_the_environment(
        monkeypatch: pytest.MonkeyPatch, value: str | None, expected: bool) -> None:
    from catena_intel64 import plugin

    if value is None:
        monkeypatch.delenv('CATENA_IDEEP_CALIBRATION', raising=False)
    else:
        monkeypatch.setenv('CATENA_IDEEP_CALIBRATION', value)
    assert plugin.catena_config_defaults()['ideep_calibration'] is expected


# ------------------------------------------------------------------ real kernels


def _report_calls(run: Callable[[], Any]) -> list[str]:
    from catena_intel64.report import KernelReport

    report = KernelReport()
    with report:
        run()
    return [implementation for _, implementation in report.calls]


def test_batch_normalization_updates_running_statistics_once_per_call(
        calibrator: Calibrator, clock: Clock, auto: None) -> None:
    # 64 channels of 4x4: within the fixed rules' sizes for oneDNN's kernel
    rng = numpy.random.default_rng(0)
    x = rng.standard_normal((64, 64, 4, 4)).astype(numpy.float32)
    gamma = rng.uniform(0.5, 1.5, 64).astype(numpy.float32)
    beta = rng.uniform(-0.5, 0.5, 64).astype(numpy.float32)
    calls = _full(calibrator)
    stats = {}
    ran: list[str] = []
    for level in ('auto', 'never'):
        mean = numpy.zeros(64, numpy.float32)
        var = numpy.ones(64, numpy.float32)
        with catena.using_config('use_ideep', level):
            for _ in range(calls):
                ran += _report_calls(functools.partial(
                    F.batch_normalization, x, gamma, beta, running_mean=mean,
                    running_var=var, decay=0.5))
        stats[level] = mean, var
    on_auto = ran[:calls]
    decided = ONEDNN if on_auto[-1].startswith('oneDNN') else GENERIC
    assert [name.startswith('oneDNN batch_normalization') for name in on_auto] == [
        side == ONEDNN for side in _pattern(calls, decided)]
    # one update per call: ten updates with decay 0.5 on both paths
    for got, want in zip(stats['auto'], stats['never']):
        numpy.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
    (signature,) = calibrator.decisions
    assert signature[0] == 'BatchNormalization'


def test_convolution_gradients_are_right_on_both_sides(calibrator: Calibrator, clock: Clock,
                                                      auto: None) -> None:
    # retain_inputs is what the implementation that ran set: backward works after each
    rng = numpy.random.default_rng(1)
    x = rng.standard_normal((2, 3, 8, 8)).astype(numpy.float32)
    W = rng.standard_normal((4, 3, 3, 3)).astype(numpy.float32)

    def step() -> list[numpy.ndarray]:
        xv, Wv = catena.Variable(x), catena.Variable(W)
        y = F.convolution_2d(xv, Wv, stride=2, pad=1)
        F.sum(y * y).backward()
        return [y.array, xv.grad, Wv.grad]

    with catena.using_config('use_ideep', 'never'):
        want = step()
    implementations = []
    for _ in range(_full(calibrator) - 1):
        implementations += _report_calls(lambda: [
            numpy.testing.assert_allclose(g, w, rtol=1e-4, atol=1e-4)
            for g, w in zip(step(), want)])
    convs = [i for i in implementations if 'convolution_2d (' in i or i == 'generic']
    assert any(i.startswith('oneDNN convolution_2d (') for i in convs)
    assert 'generic' in convs
    assert 'Convolution2DFunction' in {s[0] for s in calibrator.trials}


# ------------------------------------------------------------------ the cache file


def _store(folder: pathlib.Path, ctx: dict[str, Any] = CONTEXT) -> _calibration_store.Store:
    return _calibration_store.Store(folder, dict(ctx))


def _decide_on_disk(folder: pathlib.Path, clock: Clock) -> Calibrator:
    calibrator = _calibration.reset(Calibrator(clock, open_store=lambda: _store(folder)))
    with catena.using_config('use_ideep', 'auto'):
        _run(Fake(clock, [1.0], [1.5]), _full(calibrator))
        _run(Fake(clock, [2.0], [1.0]), _full(calibrator), X[:1], MaxPooling2D)
    calibrator.flush()
    return calibrator


def test_decisions_round_trip_through_the_cache(calibrator: Calibrator, clock: Clock,
                                                tmp_path: pathlib.Path) -> None:
    _decide_on_disk(tmp_path, clock)
    (path,) = tmp_path.iterdir()
    assert path.name == _calibration_store.file_name(CONTEXT)
    data = json.loads(path.read_text())
    assert data['context'] == CONTEXT and len(data['decisions']) == 2

    fresh = _calibration.reset(Calibrator(clock, open_store=lambda: _store(tmp_path)))
    fake = Fake(clock, [1.0], [1.5])
    with catena.using_config('use_ideep', 'auto'):
        _run(fake, 2)
    assert fake.ran == [ONEDNN, ONEDNN]  # decided by the file: no generic trial call
    assert fresh.loaded == 2
    # only what this process calls is adopted from the file
    assert fresh.decisions == {_sig(): ONEDNN}
    _run(Fake(clock, [1.0], [1.5]), 1, X[:1], MaxPooling2D)
    assert fresh.decisions == {_sig(): ONEDNN, _sig(X[:1], node_class=MaxPooling2D): GENERIC}
    assert fresh.timings[_sig()] == (1.0, 1.5)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith('.')]  # no temporaries


def test_saving_merges_with_what_the_file_holds(calibrator: Calibrator, clock: Clock,
                                                tmp_path: pathlib.Path) -> None:
    store = _store(tmp_path)
    store.save({('Other', ((1,),), 'f', (), 'strict'): (ONEDNN, 1.0, 2.0)})
    _decide_on_disk(tmp_path, clock)
    assert len(store.load()) == 3


def _write(folder: pathlib.Path, content: str | bytes) -> pathlib.Path:
    path = folder / _calibration_store.file_name(CONTEXT)
    if isinstance(content, str):
        content = content.encode()
    path.write_bytes(content)
    return path


def _valid_text() -> str:
    entry = {'signature': ['ReLU', [[2, 3]], 'f', [], 'strict'], 'choice': 'onednn',
             'onednn_s': 1.0, 'generic_s': 2.0}
    return json.dumps({'format': _calibration_store.FORMAT, 'version': 1,
                       'context': CONTEXT, 'decisions': [entry]})


def _mutated(change: Callable[[dict[str, Any]], None]) -> str:
    data = json.loads(_valid_text())
    change(data)
    return json.dumps(data)


BAD_FILES: dict[str, str | bytes] = {
    'not JSON': b'\x80\x81 not json at all',
    'not UTF-8': b'{"format": "\xff"}',
    'a list': '[1, 2, 3]',
    'another format': _mutated(lambda d: d.update(format='something else')),
    'a newer version': _mutated(lambda d: d.update(version=2)),
    'another machine': _mutated(lambda d: d['context'].update(cpu='another CPU')),
    'decisions not a list': _mutated(lambda d: d.update(decisions={'a': 1})),
    'unknown choice': _mutated(lambda d: d['decisions'][0].update(choice='cuda')),
    'negative time': _mutated(lambda d: d['decisions'][0].update(onednn_s=-1.0)),
    'boolean time': _mutated(lambda d: d['decisions'][0].update(generic_s=True)),
    'extra key': _mutated(lambda d: d['decisions'][0].update(code='import os')),
    'dict in signature': _mutated(lambda d: d['decisions'][0].update(
        signature=['ReLU', {'a': 1}])),
    'deep signature': _mutated(lambda d: d['decisions'][0].update(
        signature=['ReLU', [[[[[[1]]]]]]])),
    'no function name': _mutated(lambda d: d['decisions'][0].update(signature=[1, 2])),
    'too many entries': _mutated(lambda d: d.update(
        decisions=d['decisions'] * (_calibration_store.MAX_ENTRIES + 1))),
    'deeply nested JSON': '[' * 100000 + ']' * 100000,
}


@pytest.mark.parametrize('name', sorted(BAD_FILES))
def test_a_bad_cache_file_is_ignored_with_a_warning(calibrator: Calibrator, clock: Clock,
                                                    tmp_path: pathlib.Path, name: str) -> None:
    path = _write(tmp_path, BAD_FILES[name])
    with pytest.warns(RuntimeWarning, match='ignores its calibration file'):
        assert _store(tmp_path).load() == {}
    # calibration goes on from nothing, and the next save replaces the file
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        _decide_on_disk(tmp_path, clock)
    assert len(_calibration_store.parse(path.read_text(), CONTEXT)) == 2


def test_the_valid_file_of_the_bad_file_tests_loads(tmp_path: pathlib.Path) -> None:
    _write(tmp_path, _valid_text())
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        assert _store(tmp_path).load() == {
            ('ReLU', ((2, 3),), 'f', (), 'strict'): (ONEDNN, 1.0, 2.0)}


def test_an_oversized_cache_file_is_not_read(tmp_path: pathlib.Path) -> None:
    _write(tmp_path, _valid_text() + ' ' * _calibration_store.MAX_BYTES)
    with pytest.warns(RuntimeWarning, match='larger than'):
        assert _store(tmp_path).load() == {}


def test_an_unwritable_cache_warns_once_and_keeps_decisions_in_memory(
        calibrator: Calibrator, clock: Clock, tmp_path: pathlib.Path) -> None:
    blocker = tmp_path / 'file'
    blocker.write_text('not a folder')
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter('always')
        calibrator = _decide_on_disk(blocker / 'sub', clock)
        calibrator._dirty = True
        calibrator.flush()
    messages = [str(w.message) for w in record]
    assert len([m for m in messages if 'could not save' in m]) == 1, messages
    assert len([m for m in messages if 'could not read it' in m]) == 1, messages
    assert len(calibrator.decisions) == 2


def test_the_cache_folder_follows_the_environment(monkeypatch: pytest.MonkeyPatch,
                                                  tmp_path: pathlib.Path) -> None:
    monkeypatch.delenv('CATENA_IDEEP_CALIBRATION_CACHE')
    monkeypatch.setenv('XDG_CACHE_HOME', str(tmp_path))
    assert _calibration_store.cache_folder() == tmp_path / 'catena' / 'intel64-calibration'
    monkeypatch.setenv('XDG_CACHE_HOME', 'relative/path')  # ignored, as the spec says
    monkeypatch.setenv('HOME', str(tmp_path / 'home'))
    assert _calibration_store.cache_folder() == (
        tmp_path / 'home' / '.cache' / 'catena' / 'intel64-calibration')
    monkeypatch.setenv('CATENA_IDEEP_CALIBRATION_CACHE', str(tmp_path / 'mine'))
    assert _calibration_store.cache_folder() == tmp_path / 'mine'
    assert calibration.cache_folder() == str(tmp_path / 'mine')
    for off in ('0', 'off', 'OFF', 'false', 'no'):
        monkeypatch.setenv('CATENA_IDEEP_CALIBRATION_CACHE', off)
        assert _calibration_store.cache_folder() is None


def test_the_context_names_this_machine() -> None:
    ctx = _calibration_store.context()
    assert set(ctx) == {'cpu', 'onednn', 'isa', 'threads', 'blas_threads', 'cores', 'numpy',
                        'catena', 'catena_intel64'}
    assert ctx['threads'] >= 1 and ctx['cores'] >= 1
    assert json.loads(json.dumps(ctx)) == ctx  # the file can hold it as it is


# ------------------------------------------------------------------ reports


def test_status_counts_decisions_and_names_the_cache(
        clock: Clock, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> None:
    previous = _calibration._calibrator
    try:
        calibrator = _decide_on_disk(tmp_path, clock)
        with catena.using_config('use_ideep', 'auto'):
            _run(Fake(clock, [1.0], [1.0]), 1, numpy.zeros((7, 3), numpy.float32))
        status = calibration.status()
        assert status == calibration.CalibrationStatus(
            enabled=True, decisions=2, onednn=1, generic=1, pending=1, loaded=0,
            cache=str(tmp_path / _calibration_store.file_name(CONTEXT)))
        line = status.describe()
        assert line.startswith('oneDNN calibration: on; 2 decisions (1 oneDNN, 1 generic), '
                               '1 being timed; cache: ')
        assert line.endswith(' (0 decisions read)')
        with catena.using_config('ideep_calibration', False):
            assert calibration.status().describe().startswith(
                'oneDNN calibration: off (fixed size rules only)')
        (entry, _) = sorted(calibration.decisions(), key=lambda e: e['choice'] != ONEDNN)
        assert entry == {'function': 'Convolution2DFunction', 'shapes': ((2, 3),),
                         'dtypes': 'f', 'parameters': (1,) + (None,) * 7,
                         'fpmath_mode': 'strict', 'choice': ONEDNN, 'onednn_s': 1.0,
                         'generic_s': 1.5}
        assert calibrator is not None

        calibration.clear()
        assert calibration.status().loaded == 2  # read back from the file
        calibration.clear(cache=True)
        assert calibration.status().loaded == 0
        assert list(tmp_path.iterdir()) == []
    finally:
        _calibration._calibrator = previous


def test_catena_info_reports_calibration(tmp_path: pathlib.Path) -> None:
    import subprocess
    import sys

    env = dict(os.environ, CATENA_IDEEP_CALIBRATION_CACHE=str(tmp_path))
    result = subprocess.run([sys.executable, '-m', 'catena', 'info'], env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    lines = [line.strip() for line in result.stdout.splitlines()]
    line = next(line for line in lines if line.startswith('oneDNN calibration:'))
    assert line.startswith('oneDNN calibration: on; 0 decisions')
    assert line.endswith(f'cache: {tmp_path}{os.sep}'
                         f'{_calibration_store.file_name(_calibration_store.context())} '
                         '(0 decisions read)')


def test_no_cache_file_without_onednn(monkeypatch: pytest.MonkeyPatch) -> None:
    from catena_intel64 import _dnnl

    assert _calibration_store.open_store() is not None
    monkeypatch.setattr(_dnnl, 'load_error', lambda: 'no library here')
    assert _calibration_store.open_store() is None


def test_a_window_of_ties_follows_the_others(calibrator: Calibrator, clock: Clock,
                                             auto: None) -> None:
    # say a recurrent network's forward products (a tie), then its gradients (oneDNN wins)
    big = numpy.zeros((4, 3), numpy.float32)
    _window(calibrator, (Fake(clock, [1.0], [1.02]), X, Convolution2DFunction))
    assert calibrator.choices == {_sig(): _calibration.TIE}
    assert calibrator.decisions == {_sig(): GENERIC}  # ties only: the generic code
    _window(calibrator, (Fake(clock, [1.0], [2.0]), big, Convolution2DFunction))
    assert calibrator.group == ONEDNN
    assert calibrator.decisions == {_sig(): ONEDNN, _sig(big): ONEDNN}
