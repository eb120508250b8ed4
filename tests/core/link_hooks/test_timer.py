import io

import numpy as np
import pytest

import catena
from catena import Chain, links as L
from catena.link_hooks import TimerHook
from catena.testing import _fake_device


class MLP(Chain):
    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.l1 = L.Linear(3, 4)
            self.l2 = L.Linear(4, 2)

    def forward(self, x):
        return self.l2(self.l1(x))


class Guarded(Chain):
    """Calls a child that raises, and carries on."""

    def __init__(self):
        super().__init__()
        with self.init_scope():
            self.child = L.Linear(3, 2)

    def forward(self, x):
        try:
            self.child(np.ones((1, 5), np.float32))
        except Exception:
            pass
        return self.child(x)


def x32(*shape):
    return np.ones(shape, np.float32)


def test_times_nested_links_and_counts_outermost_only():
    model = MLP()
    with TimerHook() as hook:
        model(x32(2, 3))
        model(x32(2, 3))
    assert [name for name, _ in hook.call_history] == ['Linear', 'Linear', 'MLP'] * 2
    assert all(seconds > 0 for _, seconds in hook.call_history)
    outer_times = [seconds for name, seconds in hook.call_history if name == 'MLP']
    assert hook.total_time() > 0
    assert hook.total_time() == pytest.approx(sum(outer_times))
    summary = hook.summary()
    assert list(summary) == ['Linear', 'MLP']
    assert summary['Linear']['occurrence'] == 4 and summary['MLP']['occurrence'] == 2
    assert set(summary['MLP']) == {'elapsed_time', 'occurrence'}
    assert summary['Linear']['elapsed_time'] == pytest.approx(
        sum(seconds for name, seconds in hook.call_history if name == 'Linear'))
    model(x32(2, 3))  # outside the block: not recorded
    assert len(hook.call_history) == 6


def test_local_hook_times_that_link_only():
    model = MLP()
    hook = TimerHook(name='timer')
    model.l2.add_hook(hook)
    assert list(model.l2.local_link_hooks) == ['timer']
    model(x32(1, 3))
    assert [name for name, _ in hook.call_history] == ['Linear']
    assert hook.total_time() == hook.call_history[0][1]


def test_inner_call_that_raised_does_not_break_the_totals():
    model = Guarded()
    with TimerHook() as hook:
        model(x32(1, 3))
    assert [name for name, _ in hook.call_history] == ['Linear', 'Guarded']
    assert hook.total_time() == hook.call_history[-1][1]


def test_print_report_format():
    hook = TimerHook()
    hook.call_history = [('Linear', 0.0015), ('MLP', 2.5), ('Linear', 0.0005),
                         ('Convolution2D', 3e-7)]
    out = io.StringIO()
    hook.print_report(unit='auto_foreach', file=out)
    assert out.getvalue().splitlines() == [
        '     LinkName  ElapsedTime  Occurrence',
        '       Linear       2.00ms           2',
        '          MLP      2.50sec           1',
        'Convolution2D     300.00ns           1',
    ]
    out = io.StringIO()
    hook.print_report(file=out)  # 'auto': every row in the unit of the longest time
    assert out.getvalue().splitlines()[1:] == [
        '       Linear      0.00sec           2',
        '          MLP      2.50sec           1',
        'Convolution2D      0.00sec           1',
    ]
    out = io.StringIO()
    hook.print_report(unit='us', file=out)
    assert out.getvalue().splitlines()[1:] == [
        '       Linear     2000.00us           2',
        '          MLP  2500000.00us           1',
        'Convolution2D        0.30us           1',
    ]
    with pytest.raises(ValueError, match="'minutes'"):
        hook.print_report(unit='minutes', file=out)
    assert TimerHook.table == {'sec': 1, 'ms': 1e3, 'us': 1e6, 'ns': 1e9}


def test_print_report_defaults_to_current_stdout(capsys):
    hook = TimerHook()
    hook.call_history = [('Linear', 1.0)]
    hook.print_report()
    assert capsys.readouterr().out == ('LinkName  ElapsedTime  Occurrence\n'
                                       '  Linear      1.00sec           1\n')


def test_synchronizes_the_link_device(monkeypatch):
    calls = []
    monkeypatch.setattr(_fake_device.FakeDevice, 'synchronize',
                        lambda self: calls.append('sync'), raising=False)
    link = L.Linear(3, 2)
    link.to_device('@fake')
    with TimerHook() as hook:
        link(catena.get_device('@fake').send(x32(1, 3)))
    assert calls == ['sync', 'sync']
    assert len(hook.call_history) == 1


def test_bad_name():
    with pytest.raises(TypeError, match='name'):
        TimerHook(name=3)
