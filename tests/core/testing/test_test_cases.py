"""The error classes of the declarative tests, LinkInitializersTestCase, and contiguity checks."""

# Tests draw from NumPy's global generator, which fix_random seeds.
# ruff: noqa: NPY002

import unittest

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import initializers, testing
from catena.testing import function_link

ONLY_NUMPY = testing.inject_backend_tests(None, [{'device': '@numpy'}])


def _run(cls, method):
    result = unittest.TestResult()
    cls(method).run(result)
    return result


def _raised(cls, method):
    """Runs one test method directly and returns the exception it raised (or None)."""
    try:
        getattr(cls(method), method)()
    except Exception as error:  # noqa: BLE001 - the test inspects what was raised
        return error
    return None


# ---------------------------------------------------------------------- FunctionTestError

@ONLY_NUMPY
class _SquareBase(testing.FunctionTestCase):
    __test__ = False
    dtype = np.float64

    def generate_inputs(self):
        return np.random.uniform(-1, 1, (3, 2)),

    def forward(self, inputs, device):
        return inputs[0] * inputs[0],

    def forward_expected(self, inputs):
        return inputs[0] ** 2,


class _TwiceTheGradient(catena.FunctionNode):
    def forward(self, inputs):
        self.retain_inputs((0,))
        return inputs[0] ** 2,

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return 4 * x * grad_outputs[0],


def test_wrong_forward_raises_function_test_error():
    class Case(_SquareBase):
        def forward(self, inputs, device):
            return inputs[0] * inputs[0] + 1,

    error = _raised(Case, 'test_forward__numpy')
    assert isinstance(error, testing.FunctionTestError)
    assert isinstance(error, AssertionError)
    assert 'test_forward' in str(error) and 'differs from forward_expected' in str(error)
    assert _raised(_SquareBase, 'test_forward__numpy') is None


def test_wrong_backward_raises_function_test_error():
    class Case(_SquareBase):
        def forward(self, inputs, device):
            return _TwiceTheGradient().apply(inputs)

    assert _raised(Case, 'test_forward__numpy') is None
    assert isinstance(_raised(Case, 'test_backward__numpy'), testing.FunctionTestError)


def test_other_exceptions_pass_through_unchanged():
    class Broken(Exception):
        pass

    class Case(_SquareBase):
        def forward(self, inputs, device):
            raise Broken()

    assert type(_raised(Case, 'test_forward__numpy')) is Broken


def test_before_test_gets_the_test_name():
    names = []

    class Case(_SquareBase):
        def before_test(self, test_name):
            names.append(test_name)

    for method in ('test_forward__numpy', 'test_backward__numpy',
                   'test_double_backward__numpy'):
        assert _run(Case, method).wasSuccessful()
    assert names == ['test_forward', 'test_backward', 'test_double_backward']


def test_generate_inputs_sees_the_test_name():
    names = []

    class Case(_SquareBase):
        def generate_inputs(self):
            names.append(self.test_name)
            return super().generate_inputs()

    for method in ('test_forward__numpy', 'test_backward__numpy'):
        assert _run(Case, method).wasSuccessful()
    assert set(names) == {'test_forward', 'test_backward'}


def test_contiguous_inputs_keep_a_zero_dimensional_shape():
    shapes = []

    class Case(_SquareBase):
        contiguous = 'C'

        def generate_inputs(self):
            return np.asarray(np.random.uniform(-1, 1)),

        def forward(self, inputs, device):
            shapes.append(inputs[0].shape)
            return inputs[0] * inputs[0],

    for method in ('test_forward__numpy', 'test_backward__numpy'):
        assert _run(Case, method).wasSuccessful()
    assert shapes and set(shapes) == {()}


# ------------------------------------------------------------------------ contiguousness

def test_check_contiguousness():
    x = np.ones((3, 2), np.float32)
    function_link._check_contiguousness(x, 'C')
    function_link._check_contiguousness(catena.Variable(x[:, :1].T[:, :1]), None)  # 1 element
    strided = np.ones((3, 4))[:, ::2]
    function_link._check_contiguousness(strided, None)
    with pytest.raises(AssertionError, match='C-contiguous'):
        function_link._check_contiguousness(strided, 'C')
    with pytest.raises(AssertionError, match='non-contiguous'):
        function_link._check_contiguousness(x, None)
    with pytest.raises(ValueError):
        function_link._check_contiguousness(x, 'F')


# --------------------------------------------------------------------- links and initializers

class _Scale(catena.Link):
    """y = x * w, with w of shape (size,); None means ones."""

    def __init__(self, size, initial=None, ignore_initial=False):
        super().__init__()
        if initial is None or ignore_initial:
            initial = initializers.Constant(1)
        with self.init_scope():
            self.w = catena.Parameter(initial, shape=(size,))

    def forward(self, x):
        return x * F.broadcast_to(self.w, x.shape)


@ONLY_NUMPY
class _ScaleBase:
    __test__ = False
    param_names = ('w',)
    dtype = np.float32
    ignore_initial = False

    def generate_params(self):
        return np.random.uniform(0.5, 1.5, (3,)).astype(np.float32),

    def create_link(self, initializers):
        return _Scale(3, *initializers, ignore_initial=self.ignore_initial)

    def generate_inputs(self):
        return np.random.uniform(-1, 1, (2, 3)).astype(np.float32),

    def forward_expected(self, link, inputs):
        return inputs[0] * link.w.array,

    def get_initializers(self):
        return [initializers.Constant(2), 3.0, np.full(3, 4, np.float32),
                testing.InitializerArgument(None, initializers.Constant(1))],


class TestScaleLink(_ScaleBase, testing.LinkTestCase):
    __test__ = True


class TestScaleInitializers(_ScaleBase, testing.LinkInitializersTestCase):
    __test__ = True


def test_link_initializers_case_has_one_test_per_device():
    names = unittest.defaultTestLoader.getTestCaseNames(TestScaleInitializers)
    assert names == ['test_initializers__numpy']
    assert _run(TestScaleInitializers, 'test_initializers__numpy').wasSuccessful()


def test_ignored_initializer_raises_link_test_error():
    class Case(_ScaleBase, testing.LinkInitializersTestCase):
        ignore_initial = True

    error = _raised(Case, 'test_initializers__numpy')
    assert isinstance(error, testing.LinkTestError)
    assert "parameter 'w' initialized with" in str(error)
    assert 'differs from what the initializer gives' in str(error)


def test_wrong_link_forward_raises_link_test_error():
    class Case(_ScaleBase, testing.LinkTestCase):
        def forward_expected(self, link, inputs):
            return inputs[0] * link.w.array + 1,

    assert isinstance(_raised(Case, 'test_forward__numpy'), testing.LinkTestError)


@pytest.mark.parametrize('bad', [catena.Variable(np.ones(3, np.float32)),
                                 catena.Parameter(np.ones(3, np.float32))])
def test_variables_as_initializers_are_type_errors(bad):
    class Params(_ScaleBase, testing.LinkTestCase):
        def generate_params(self):
            return bad,

    class Inits(_ScaleBase, testing.LinkInitializersTestCase):
        def get_initializers(self):
            return [bad],

    for cls, method in ((Params, 'test_forward__numpy'), (Params, 'test_backward__numpy'),
                        (Inits, 'test_initializers__numpy')):
        error = _raised(cls, method)
        assert isinstance(error, TypeError), (cls, method, error)
        assert 'pass its .array instead' in str(error)


def test_create_link_must_return_a_link():
    class Case(_ScaleBase, testing.LinkTestCase):
        def create_link(self, initializers):
            return np.array([1])

    assert isinstance(_raised(Case, 'test_forward__numpy'), TypeError)


def test_initializer_argument_needs_an_expected_initializer():
    with pytest.raises(ValueError):
        testing.InitializerArgument(None, None)
    argument = testing.InitializerArgument(None, 2)
    assert argument.argument_value is None and argument.expected_initializer == 2


@pytest.mark.parametrize('params,marks', [
    ({}, ()),
    ({'use_ideep': 'always'}, ('ideep',)),
    ({'use_cuda': True, 'use_cudnn': 'always'}, ('gpu', 'cudnn')),
    ({'use_chainerx': True, 'chainerx_device': 'native:0'}, ('chainerx',)),
    ({'use_chainerx': True, 'chainerx_device': 'cuda:1'}, ('chainerx', 'gpu')),
])
def test_chainer_style_backend_params_get_chainers_marks(params, marks):
    assert tuple(testing.BackendConfig(params).marks) == marks


# ----------------------------------------------------------------- stacked injections

_PAIRS = []


@testing.inject_backend_tests(None, [{'device': '@numpy'}])  # the second argument
@testing.inject_backend_tests(None, [{'device': '@numpy'}, {'device': '@fake'}])  # the first
@testing.parameterize({'tag': 'a'}, {'tag': 'b'})
class TestTwoConfigs(unittest.TestCase):

    def test_pair(self, src_backend_config, dst_backend_config):
        _PAIRS.append((self.tag, src_backend_config.device_spec,
                       dst_backend_config.device_spec))


def test_stacked_injections_bind_one_argument_each_innermost_first():
    classes = [value for name, value in globals().items()
               if name.startswith('TestTwoConfigs_param_')]
    assert len(classes) == 2
    _PAIRS.clear()
    for cls in classes:
        names = unittest.defaultTestLoader.getTestCaseNames(cls)
        assert names == ['test_pair__fake__numpy', 'test_pair__numpy__numpy']
        for name in names:
            assert _run(cls, name).wasSuccessful()
    assert sorted(_PAIRS) == [('a', '@fake', '@numpy'), ('a', '@numpy', '@numpy'),
                              ('b', '@fake', '@numpy'), ('b', '@numpy', '@numpy')]


def test_injections_for_different_methods_on_one_class():
    @testing.inject_backend_tests(['test_a'], [{'device': '@numpy'}])
    @testing.inject_backend_tests(['test_b'], [{'device': '@fake'}])
    class Case(unittest.TestCase):
        def test_a(self, backend_config):
            assert backend_config.device_spec == '@numpy'

        def test_b(self, backend_config):
            assert backend_config.device_spec == '@fake'

    assert unittest.defaultTestLoader.getTestCaseNames(Case) == ['test_a__numpy', 'test_b__fake']
    for name in ('test_a__numpy', 'test_b__fake'):
        assert _run(Case, name).wasSuccessful()


def test_unary_plus_on_a_variable_is_the_variable():
    # Chainer-style backward formulas start lines with "+ gy * ...".
    x = catena.Variable(np.ones(2, np.float32))
    assert (+x) is x
    y = +(x * 2)
    y.grad = np.ones(2, np.float32)
    y.backward()
    np.testing.assert_array_equal(x.grad, [2, 2])


class _LazyScale(catena.Link):
    """y = x * w, with w shaped from the first input."""

    def __init__(self, initial=None):
        super().__init__()
        with self.init_scope():
            self.w = catena.Parameter(initial if initial is not None else
                                      initializers.Constant(1))

    def forward(self, x):
        if self.w.array is None:
            self.w.initialize(x.shape[1:])
        return x * F.broadcast_to(self.w, x.shape)


@ONLY_NUMPY
class _LazyScaleBase:
    __test__ = False
    param_names = ('w',)
    dtype = np.float32

    def generate_params(self):
        return [initializers.Constant(2)]  # a list is accepted too

    def create_link(self, initializers):
        return _LazyScale(*initializers)

    def generate_inputs(self):
        return np.random.uniform(-1, 1, (2, 3)).astype(np.float32),

    def forward_expected(self, link, inputs):
        assert link.w.shape == (3,)
        return inputs[0] * link.w.array,

    def get_initializers(self):
        return [initializers.Constant(3), 4.0],


class TestLazyLink(_LazyScaleBase, testing.LinkTestCase):
    __test__ = True


class TestLazyLinkInitializers(_LazyScaleBase, testing.LinkInitializersTestCase):
    __test__ = True


def test_lazy_link_is_initialized_by_a_forward_pass_with_clear_gradients():
    for cls, method in ((TestLazyLink, 'test_forward__numpy'),
                        (TestLazyLink, 'test_backward__numpy'),
                        (TestLazyLinkInitializers, 'test_initializers__numpy')):
        assert _run(cls, method).wasSuccessful(), (cls, method)

    class Case(_LazyScaleBase, testing.LinkTestCase):
        pass

    link = Case('test_forward__numpy')._link()
    assert link.w.shape == (3,) and link.w.grad is None


def test_link_that_stays_uninitialized_is_an_error():
    class Case(_LazyScaleBase, testing.LinkTestCase):
        def generate_inputs(self):
            return np.zeros((2, 3), np.float32),

        def forward(self, link, inputs, device):
            return inputs[0] * 1,

    error = _raised(Case, 'test_forward__numpy')
    assert isinstance(error, ValueError) and 'not initialized' in str(error)
