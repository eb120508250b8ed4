import io
import re
import warnings

import numpy as np
import pytest

import catena.functions as F
from catena import FunctionNode, Variable
from catena.function_hooks import PrintHook


class Plus(FunctionNode):

    def forward(self, inputs):
        self.retain_inputs((0,))
        return inputs[0] + inputs[1],

    def backward(self, indexes, grad_outputs):
        return grad_outputs[0], grad_outputs[0]


def blocks(text):
    """Splits the output into one block of lines per function call."""
    result = []
    for line in text.splitlines():
        if line.startswith('function\t'):
            result.append([line])
        else:
            result[-1].append(line)
    return result


def test_forward_prints_label_and_inputs():
    out = io.StringIO()
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    with PrintHook(file=out):
        F.tanh(Variable(a, name='x'))
    block, = blocks(out.getvalue())
    assert block[0] == 'function\tTanh'
    assert block[1] == 'input data'
    assert re.fullmatch(r'<variable at 0x[0-9a-f]+>', block[2])
    assert block[3:] == [
        '- device: CPU',
        "- backend: <class 'numpy.ndarray'>",
        '- shape: (2, 3)',
        '- dtype: float32',
        f'- statistics: mean=2.50000000, std={np.std(a):.8f}',
        '- grad: None',
    ]


def test_backward_prints_retained_inputs_and_output_gradients():
    out = io.StringIO()
    x = Variable(np.ones(3, np.float32))
    w = Variable(np.full(3, 2, np.float32))
    y, = Plus().apply((x, w))
    y.grad = np.full(3, 7, np.float32)
    with PrintHook(file=out):
        y.backward()
    block, = blocks(out.getvalue())
    assert block[0] == 'function\tPlus'
    text = '\n'.join(block)
    before, after = text.split('output gradient\n')
    assert 'input data' in before
    assert before.count('- shape: (3,)') == 1  # input 0 was retained
    assert before.endswith('(removed)\n')  # input 1 was not
    # The gradient is shown as the grad of a variable of zeros, as in Chainer.
    assert after.splitlines()[1:] == [
        '- device: CPU',
        "- backend: <class 'numpy.ndarray'>",
        '- shape: (3,)',
        '- dtype: float32',
        '- statistics: mean=0.00000000, std=0.00000000',
        '- grad: mean=7.00000000, std=0.00000000',
    ]


def test_zero_and_missing_output_gradients():
    out = io.StringIO()
    hook = PrintHook(file=out)
    node = Plus()
    hook.backward_preprocess(node, (np.ones(2, np.float32), None),
                             (np.zeros(2, np.float32), None))
    text = out.getvalue()
    assert '- grad: 0\n' in text
    empty = text.split('output gradient\n')[1].split('- grad: 0\n')[1]
    assert empty.splitlines()[1:] == [
        '- device: None', '- backend: None', '- shape: None', '- dtype: None',
        '- statistics: None', '- grad: None']


def test_half_precision_and_empty_inputs():
    out = io.StringIO()
    PrintHook(file=out).forward_preprocess(
        Plus(), (np.full(4, 0.1, np.float16), np.zeros((0, 2), np.float32)))
    text = out.getvalue()
    assert f'mean={float(np.float16(0.1)):.8f}, std=0.00000000' in text
    assert '- shape: (0, 2)\n- dtype: float32\n- statistics: None' in text


def test_every_node_forward_and_backward():
    out = io.StringIO()
    x = Variable(np.ones(2, np.float32))
    with PrintHook(file=out):
        y = F.sum(F.tanh(x))
        y.backward()
    labels = [block[0].split('\t')[1] for block in blocks(out.getvalue())]
    assert labels[:2] == ['Tanh', 'Sum']
    assert labels.count('Tanh') == 2 and labels.count('Sum') == 2  # forward + backward


def test_end_and_default_file(capsys):
    with PrintHook(end='|\n'):
        F.tanh(Variable(np.ones(1, np.float32)))
    out = capsys.readouterr().out
    assert out.startswith('function\tTanh|\ninput data|\n')


def test_flush():
    class Stream(io.StringIO):
        flushes = 0

        def flush(self):
            self.flushes += 1
            super().flush()

    stream = Stream()
    with PrintHook(file=stream):
        F.tanh(Variable(np.ones(1, np.float32)))
    assert stream.flushes == 1
    stream = Stream()
    with PrintHook(file=stream, flush=False):
        F.tanh(Variable(np.ones(1, np.float32)))
    assert stream.flushes == 0


def test_sep_is_deprecated():
    with pytest.warns(DeprecationWarning, match='sep'):
        hook = PrintHook(sep=' ')
    assert hook.sep == ' '
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        PrintHook()


def test_local_hook():
    out = io.StringIO()
    node = Plus()
    node.add_hook(PrintHook(file=out))
    node.apply((np.ones(1, np.float32), np.ones(1, np.float32)))
    F.tanh(Variable(np.ones(1, np.float32)))
    assert [b[0] for b in blocks(out.getvalue())] == ['function\tPlus']
    assert out.getvalue().count('- device: CPU') == 2
