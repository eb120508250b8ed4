"""FunctionTestCase and LinkTestCase: real ops pass on every device, broken ones fail."""

# Chainer-style tests draw from NumPy's global generator, which fix_random seeds.
# ruff: noqa: NPY002

import unittest

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import FunctionNode, testing
from catena.testing import backend as testing_backend

DEVICES = ('numpy', 'fake')


# --------------------------------------------------------------------------- passing tests

@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'shape': [(3, 2), ()],
}))
class TestTanh(testing.FunctionTestCase):

    def generate_inputs(self):
        return np.random.uniform(-1, 1, self.shape).astype(self.dtype),

    def forward(self, inputs, device):
        x, = inputs
        return F.tanh(x),

    def forward_expected(self, inputs):
        x, = inputs
        return np.tanh(x).astype(self.dtype),


@testing.parameterize(*testing.product({
    'dtype': [np.float32, np.float64],
    'shapes': [((3, 2), (3, 2)), ((3, 2), (2,)), ((), ())],
}))
class TestMul(testing.FunctionTestCase):

    def generate_inputs(self):
        x_shape, y_shape = self.shapes
        x = np.random.uniform(-1, 1, x_shape).astype(self.dtype)
        y = np.random.uniform(-1, 1, y_shape).astype(self.dtype)
        return x, y

    def forward(self, inputs, device):
        x, y = inputs
        return x * y,

    def forward_expected(self, inputs):
        x, y = inputs
        return np.asarray(x * y, dtype=self.dtype),


def _generated_classes(prefix):
    return [cls for name, cls in globals().items()
            if name.startswith(prefix + '_param_') and isinstance(cls, type)]


def test_parameterize_generated_one_class_per_combination():
    assert TestTanh.__test__ is False  # the template stays, but is not collected
    assert len(_generated_classes('TestTanh')) == 6
    assert len(_generated_classes('TestMul')) == 6


def test_one_method_per_device_and_check():
    cls = _generated_classes('TestTanh')[0]
    for check in ('test_forward', 'test_backward', 'test_double_backward'):
        assert getattr(cls, check) is None  # the backend_config-taking original is hidden
        for device in DEVICES:
            method = getattr(cls, f'{check}__{device}')
            assert method._catena_backend_config.device_spec == f'@{device}'
    names = unittest.defaultTestLoader.getTestCaseNames(cls)
    assert 'test_forward__numpy' in names and 'test_double_backward__fake' in names
    assert 'test_forward' not in names


# ------------------------------------------------------------------ running generated tests

def _run(cls, method):
    """Runs one generated test method with unittest and returns the TestResult."""
    result = unittest.TestResult()
    cls(method).run(result)
    return result


def _failure_text(result):
    return '\n'.join(text for _, text in result.failures + result.errors)


class _TanhBase(testing.FunctionTestCase):
    __test__ = False
    dtype = np.float64

    def generate_inputs(self):
        return np.random.uniform(-1, 1, (3, 2)).astype(self.dtype),

    def forward_expected(self, inputs):
        x, = inputs
        return np.tanh(x),


class _WrongGradTanh(FunctionNode):
    """tanh whose backward forgets the square: gx = gy * (1 - y)."""

    def forward(self, inputs):
        self.retain_outputs((0,))
        return catena.backend.get_array_module(inputs[0]).tanh(inputs[0]),

    def backward(self, indexes, grad_outputs):
        y, = self.get_retained_outputs()
        return grad_outputs[0] * (1 - y),


class _TanhWithWrongSecondOrder(FunctionNode):
    """tanh whose first-order gradient is right but is built from constants only.

    backward returns gy * (1 - y*y) computed on arrays, so its own gradient
    with respect to x is zero: the double-backward check must notice.
    """

    def forward(self, inputs):
        self.retain_outputs((0,))
        return catena.backend.get_array_module(inputs[0]).tanh(inputs[0]),

    def backward(self, indexes, grad_outputs):
        y, = self.get_retained_outputs()
        gy, = grad_outputs
        return gy * (1 - y.array * y.array),


class _ScaleInPlace(FunctionNode):
    """2 * x, but it doubles its input array in place first."""

    def forward(self, inputs):
        x, = inputs
        x *= 2
        return x.copy(),

    def backward(self, indexes, grad_outputs):
        return 2 * grad_outputs[0],


class _LeaksToNumpy(FunctionNode):
    """tanh that always answers with a NumPy array, whatever the input device."""

    def forward(self, inputs):
        x, = inputs
        return np.tanh(catena.backend.get_device_from_array(x).to_numpy(x)),

    def backward(self, indexes, grad_outputs):
        return grad_outputs[0],


def test_correct_function_passes_every_check():
    class Case(_TanhBase):
        def forward(self, inputs, device):
            return F.tanh(inputs[0]),

    for check in ('test_forward', 'test_backward', 'test_double_backward'):
        for device in DEVICES:
            result = _run(Case, f'{check}__{device}')
            assert result.wasSuccessful(), _failure_text(result)


@pytest.mark.parametrize('device', DEVICES)
def test_wrong_backward_fails_backward_check(device):
    class Case(_TanhBase):
        def forward(self, inputs, device):
            return _WrongGradTanh().apply(inputs)

    assert _run(Case, f'test_forward__{device}').wasSuccessful()
    result = _run(Case, f'test_backward__{device}')
    assert not result.wasSuccessful()
    text = _failure_text(result)
    assert 'check_backward' in text and 'culprit: input 0' in text


@pytest.mark.parametrize('device', DEVICES)
def test_wrong_second_order_fails_only_double_backward(device):
    class Case(_TanhBase):
        def forward(self, inputs, device):
            return _TanhWithWrongSecondOrder().apply(inputs)

    assert _run(Case, f'test_backward__{device}').wasSuccessful()
    result = _run(Case, f'test_double_backward__{device}')
    assert not result.wasSuccessful()
    assert 'culprit: input 0' in _failure_text(result)


@pytest.mark.parametrize('device', DEVICES)
def test_wrong_forward_fails_forward_check(device):
    class Case(_TanhBase):
        def forward(self, inputs, device):
            return F.tanh(inputs[0]) * 1.001,

    result = _run(Case, f'test_forward__{device}')
    assert not result.wasSuccessful()
    text = _failure_text(result)
    assert 'differs from forward_expected' in text and 'worst element at index' in text


@pytest.mark.parametrize('device', DEVICES)
def test_in_place_modification_of_input_is_caught(device):
    class Case(_TanhBase):
        def forward(self, inputs, device):
            return _ScaleInPlace().apply(inputs)

        def forward_expected(self, inputs):
            return 2 * inputs[0],

    for check in ('test_forward', 'test_backward'):
        result = _run(Case, f'{check}__{device}')
        assert not result.wasSuccessful()
        assert 'modified input 0' in _failure_text(result)


def test_output_on_the_wrong_device_is_caught_on_fake():
    class Case(_TanhBase):
        def forward(self, inputs, device):
            return _LeaksToNumpy().apply(inputs)

    assert _run(Case, 'test_forward__numpy').wasSuccessful()
    result = _run(Case, 'test_forward__fake')
    assert not result.wasSuccessful()
    assert 'is on @numpy, but the inputs are on @fake' in _failure_text(result)


def test_forward_must_return_a_tuple():
    class Case(_TanhBase):
        def forward(self, inputs, device):
            return F.tanh(inputs[0])  # missing the trailing comma

    result = _run(Case, 'test_forward__numpy')
    assert 'must return a tuple of Variables' in _failure_text(result)


def test_skip_flags_and_options():
    class Case(_TanhBase):
        skip_backward_test = True
        check_forward_options = {'atol': 1e-3, 'rtol': 1e-3}

        def forward(self, inputs, device):
            return F.tanh(inputs[0]) * 1.0001,  # within the loosened tolerance

    result = _run(Case, 'test_backward__numpy')
    assert len(result.skipped) == 1 and 'skip_backward_test' in result.skipped[0][1]
    assert _run(Case, 'test_forward__numpy').wasSuccessful()
    # Each test case instance gets its own copy of the options dict.
    first, second = Case('test_forward__numpy'), Case('test_forward__fake')
    first.check_forward_options['atol'] = 1
    assert second.check_forward_options['atol'] == 1e-3


def test_inputs_are_non_contiguous_unless_asked():
    seen = []

    class Case(_TanhBase):
        def forward(self, inputs, device):
            seen.append(inputs[0].array.flags.c_contiguous)
            return F.tanh(inputs[0]),

    assert _run(Case, 'test_forward__fake').wasSuccessful()
    Case.contiguous = 'C'
    assert _run(Case, 'test_forward__fake').wasSuccessful()
    assert seen == [False, True]


def test_dodge_nondifferentiable_resamples_inputs():
    calls = []

    class Case(testing.FunctionTestCase):
        dodge_nondifferentiable = True
        dtype = np.float64

        def generate_inputs(self):
            calls.append(None)
            if len(calls) == 1:  # a kink of |x| exactly at the first sample
                return np.array([0.0, 0.5]),
            return np.array([-0.5, 0.5]),

        def forward(self, inputs, device):
            return F.absolute(inputs[0]),

        def forward_expected(self, inputs):
            return np.abs(inputs[0]),

    result = _run(Case, 'test_backward__numpy')
    assert result.wasSuccessful(), _failure_text(result)
    assert len(calls) >= 2


def test_dodge_gives_up_with_a_message():
    class Case(testing.FunctionTestCase):
        dodge_nondifferentiable = True
        dtype = np.float64

        def generate_inputs(self):
            return np.array([0.0, 0.5]),

        def forward(self, inputs, device):
            return F.absolute(inputs[0]),

        def forward_expected(self, inputs):
            return np.abs(inputs[0]),

    result = _run(Case, 'test_backward__numpy')
    assert 'non-differentiable inputs 10 times' in _failure_text(result)


def test_inject_backend_tests_restricts_devices():
    @testing.inject_backend_tests(None, [{'device': '@fake'}])
    class Case(_TanhBase):
        def forward(self, inputs, device):
            assert catena.backend.get_device_from_array(inputs[0]) == device
            return F.tanh(inputs[0]),

    names = unittest.defaultTestLoader.getTestCaseNames(Case)
    assert sorted(names) == ['test_backward__fake', 'test_double_backward__fake',
                             'test_forward__fake']
    assert _run(Case, 'test_forward__fake').wasSuccessful()


def test_unavailable_device_is_skipped_with_reason():
    @testing.inject_backend_tests(['test_forward'], [{'device': '@nosuchdevice'}])
    class Case(_TanhBase):
        def forward(self, inputs, device):
            return F.tanh(inputs[0]),

    result = _run(Case, 'test_forward__nosuchdevice')
    assert len(result.skipped) == 1
    assert 'no plugin registers the device' in result.skipped[0][1]
    # Only test_forward was restricted; the other checks keep the default matrix.
    assert hasattr(Case, 'test_backward__numpy')


def test_default_matrix_has_numpy_and_fake_first():
    specs = [config.device_spec for config in testing_backend.get_backend_configs()]
    assert specs[:2] == ['@numpy', '@fake']


# ---------------------------------------------------------------------------- LinkTestCase

class _ScaleLink:
    """A duck-typed link: y = x * W, with W broadcast over the batch."""

    def __init__(self, w, node=None):
        self.W = catena.Parameter(np.asarray(w))
        self.W.name = 'W'
        self.node = node

    def namedparams(self):
        yield '/W', self.W

    def params(self):
        yield self.W

    def to_device(self, device):
        self.W.to_device(device)
        return self

    def __call__(self, x):
        if self.node is not None:
            return self.node().apply((x, self.W))[0]
        return x * self.W


class _WrongWeightGradMul(FunctionNode):
    """x * w whose gradient for w is x * gy summed wrongly (forgets gy)."""

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x, w = inputs
        return x * w,

    def backward(self, indexes, grad_outputs):
        x, w = self.get_retained_inputs()
        gy, = grad_outputs
        return gy * w, F.sum(x, axis=0)


@testing.parameterize(*testing.product({'dtype': [np.float32, np.float64]}))
class TestScaleLink(testing.LinkTestCase):

    def generate_params(self):
        return np.random.uniform(0.5, 1.5, (3,)).astype(self.dtype),

    def create_link(self, initializers):
        return _ScaleLink(*initializers)

    def generate_inputs(self):
        return np.random.uniform(-1, 1, (2, 3)).astype(self.dtype),

    def forward_expected(self, link, inputs):
        x, = inputs
        return x * link.W.array,


def test_link_test_case_generates_per_device_methods():
    cls = _generated_classes('TestScaleLink')[0]
    for device in DEVICES:
        assert hasattr(cls, f'test_forward__{device}')
        assert hasattr(cls, f'test_backward__{device}')
    assert not hasattr(cls, 'test_double_backward__numpy')


@pytest.mark.parametrize('device', DEVICES)
def test_link_with_wrong_parameter_gradient_fails(device):
    class Case(testing.LinkTestCase):
        dtype = np.float64

        def generate_params(self):
            return np.random.uniform(0.5, 1.5, (3,)),

        def create_link(self, initializers):
            return _ScaleLink(*initializers, node=_WrongWeightGradMul)

        def generate_inputs(self):
            return np.random.uniform(-1, 1, (2, 3)),

        def forward_expected(self, link, inputs):
            return inputs[0] * link.W.array,

    assert _run(Case, f'test_forward__{device}').wasSuccessful()
    result = _run(Case, f'test_backward__{device}')
    assert not result.wasSuccessful()
    text = _failure_text(result)
    assert "culprit: param 0 'W'" in text
    # Checking only the input (param_names=()) passes: the input gradient is right.
    Case.param_names = ()
    assert _run(Case, f'test_backward__{device}').wasSuccessful()
