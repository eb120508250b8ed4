import io
import re
import time

import numpy as np
import pytest

import catena
from catena import FunctionNode, Variable
from catena.function_hooks import TimerHook
from catena.testing import _fake_device


class Sleep(FunctionNode):
    """Identity that sleeps in forward and in backward."""

    def __init__(self, forward_s=0.0, backward_s=0.0):
        self.forward_s = forward_s
        self.backward_s = backward_s

    def forward(self, inputs):
        time.sleep(self.forward_s)
        return inputs[0].copy(),

    def backward(self, indexes, grad_outputs):
        time.sleep(self.backward_s)
        return grad_outputs[0],


class Outer(FunctionNode):
    """A function whose backward applies another function (as most do)."""

    def forward(self, inputs):
        return inputs[0].copy(),

    def backward(self, indexes, grad_outputs):
        return Sleep(forward_s=0.02).apply((grad_outputs[0],))


def f32(*shape):
    return np.ones(shape, np.float32)


def test_records_forward_and_backward():
    x = Variable(f32(2))
    with TimerHook() as hook:
        y, = Sleep(forward_s=0.01, backward_s=0.02).apply((x,))
        y.grad = f32(2)
        y.backward()
    assert [name for name, _ in hook.call_history] == ['Sleep', 'Sleep']
    forward, backward = (t for _, t in hook.call_history)
    assert 0.01 <= forward < 1.0
    assert 0.02 <= backward < 1.0
    assert hook.total_time() == pytest.approx(forward + backward)
    assert hook.summary() == {'Sleep': {'elapsed_time': pytest.approx(forward + backward),
                                        'occurrence': 2}}


def test_history_keeps_names_only():
    with TimerHook() as hook:
        Sleep().apply((f32(1),))
    assert hook.call_history[0][0] == 'Sleep'
    assert all(isinstance(name, str) for name, _ in hook.call_history)


def test_nested_calls_count_once_in_total():
    x = Variable(f32(2))
    with TimerHook() as hook:
        y, = Outer().apply((x,))
        y.grad = f32(2)
        y.backward()
    names = [name for name, _ in hook.call_history]
    # Outer forward; in Outer's backward, Sleep's forward runs and finishes first.
    assert names == ['Outer', 'Sleep', 'Outer']
    outer_forward, inner, outer_backward = (t for _, t in hook.call_history)
    assert inner >= 0.02 and outer_backward >= inner
    assert hook.total_time() == pytest.approx(outer_forward + outer_backward)
    assert hook.summary()['Outer']['occurrence'] == 2
    assert hook.summary()['Sleep']['occurrence'] == 1


def test_summary_order_and_counts():
    with TimerHook() as hook:
        Sleep().apply((f32(1),))
        Outer().apply((f32(1),))
        Sleep().apply((f32(1),))
    summary = hook.summary()
    assert list(summary) == ['Sleep', 'Outer']
    assert summary['Sleep']['occurrence'] == 2
    assert summary['Outer']['occurrence'] == 1


def test_local_hook_via_add_hook():
    hook = TimerHook()
    node = Sleep()
    node.add_hook(hook)
    x = Variable(f32(2))
    y, = node.apply((x,))
    Sleep().apply((x,))  # not hooked
    y.grad = f32(2)
    y.backward()
    assert [name for name, _ in hook.call_history] == ['Sleep', 'Sleep']
    node.delete_hook('TimerHook')


def test_legacy_function_name():
    class Square(catena.Function):
        def forward(self, inputs):
            return inputs[0] ** 2,

        def backward(self, inputs, grad_outputs):
            return 2 * inputs[0] * grad_outputs[0],

    with TimerHook() as hook:
        Square()(Variable(f32(2)))
    assert [name for name, _ in hook.call_history] == ['Square']


def test_names_come_from_impl_name():
    class Square(catena.Function):
        def forward(self, inputs):
            return inputs[0] ** 2,

    adapter = catena.FunctionAdapter(Square())
    assert adapter._impl_name == 'Square'
    assert Sleep()._impl_name == 'Sleep'
    hook = TimerHook()
    hook.forward_preprocess(adapter, (f32(1),))
    hook.forward_postprocess(adapter, (f32(1),))
    assert [name for name, _ in hook.call_history] == ['Square']


def parse_report(text):
    lines = text.splitlines()
    return lines[0].split(), [line.split() for line in lines[1:]]


def test_print_report_auto_foreach_units():
    hook = TimerHook()
    hook.call_history = [('Slow', 2.5), ('Mid', 0.0125), ('Fast', 3e-5), ('Tiny', 4e-9),
                         ('Slow', 0.5)]
    out = io.StringIO()
    hook.print_report(unit='auto_foreach', file=out)
    header, rows = parse_report(out.getvalue())
    assert header == ['FunctionName', 'ElapsedTime', 'Occurrence']
    assert rows == [['Slow', '3.00sec', '2'], ['Mid', '12.50ms', '1'], ['Fast', '30.00us', '1'],
                    ['Tiny', '4.00ns', '1']]
    # Columns are right-aligned to a common width.
    widths = {len(line) for line in out.getvalue().splitlines()}
    assert len(widths) == 1


def test_print_report_auto_aligns_units_to_the_largest_time():
    hook = TimerHook()
    hook.call_history = [('Mid', 0.0125), ('Fast', 3e-5)]
    out = io.StringIO()
    hook.print_report(file=out)
    assert parse_report(out.getvalue())[1] == [['Mid', '12.50ms', '1'], ['Fast', '0.03ms', '1']]
    empty = io.StringIO()
    TimerHook().print_report(unit='auto', file=empty)
    assert parse_report(empty.getvalue()) == (['FunctionName', 'ElapsedTime', 'Occurrence'], [])


@pytest.mark.parametrize('unit,expected', [
    ('sec', '0.01sec'), ('ms', '12.50ms'), ('us', '12500.00us'), ('ns', '12500000.00ns')])
def test_print_report_fixed_unit(unit, expected):
    hook = TimerHook()
    hook.call_history = [('Mid', 0.0125)]
    out = io.StringIO()
    hook.print_report(unit=unit, file=out)
    assert parse_report(out.getvalue())[1] == [['Mid', expected, '1']]


def test_print_report_rejects_unknown_unit():
    with pytest.raises(ValueError, match='unit'):
        TimerHook().print_report(unit='hours', file=io.StringIO())


def test_print_report_defaults_to_stdout(capsys):
    with TimerHook() as hook:
        Sleep().apply((f32(1),))
    hook.print_report()
    out = capsys.readouterr().out
    assert re.search(r'^\s*Sleep\s+\d+\.\d\d(sec|ms|us|ns)\s+1$', out, re.M)


def test_synchronizes_devices_that_support_it(monkeypatch):
    calls = []
    monkeypatch.setattr(_fake_device.FakeDevice, 'synchronize',
                        lambda self: calls.append('sync'), raising=False)
    x = Variable(catena.get_device('@fake').send(f32(2)))
    with TimerHook() as hook:
        Sleep().apply((x,))
    assert calls == ['sync', 'sync']
    assert len(hook.call_history) == 1
    calls.clear()
    with TimerHook():
        Sleep().apply((Variable(f32(2)),))  # NumPy: nothing to synchronize
    assert calls == []
