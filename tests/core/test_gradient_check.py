"""catena.gradient_check: numerical gradients and the backward / double-backward checks."""

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import FunctionNode, Variable, backend, gradient_check, testing
from catena.testing._fake_device import FakeArray


def rand(*shape, dtype=np.float64, seed=0):
    return np.random.RandomState(seed).uniform(-1, 1, shape).astype(dtype)


def fake(array):
    return backend.get_device('@fake').send_array(array)


# ----------------------------------------------------------------- function nodes to check

class Square(FunctionNode):
    """y = x ** 2 with a correct backward that double-backprops (2 * x * gy)."""

    def forward(self, inputs):
        self.retain_inputs((0,))
        x, = inputs
        return x * x,

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return 2 * x * grad_outputs[0],


class SquareMissingFactor(FunctionNode):
    """y = x ** 2 whose backward is deliberately wrong: gy * x instead of 2 * gy * x."""

    def forward(self, inputs):
        self.retain_inputs((0,))
        x, = inputs
        return x * x,

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return x * grad_outputs[0],


class SquareFlatSecondOrder(FunctionNode):
    """y = x ** 2 whose first-order gradient is right but treats x as a constant.

    So its gradient with respect to x (the second order) is zero instead of 2 * gy.
    """

    def forward(self, inputs):
        self.retain_inputs((0,))
        x, = inputs
        return x * x,

    def backward(self, indexes, grad_outputs):
        x, = self.get_retained_inputs()
        return grad_outputs[0] * (2 * x.array),


class MulWrongSecondInput(FunctionNode):
    """z = x * y whose gradient for y is wrong (gy * y instead of gy * x)."""

    def forward(self, inputs):
        self.retain_inputs((0, 1))
        x, y = inputs
        return x * y,

    def backward(self, indexes, grad_outputs):
        x, y = self.get_retained_inputs()
        gz, = grad_outputs
        return gz * y, gz * y


def square(node_class):
    return lambda x: node_class().apply((x,))


# ------------------------------------------------------------------------- numerical_grad

def test_numerical_grad_matches_the_analytic_derivative():
    x = rand(4, 3)
    gy = rand(4, 3, seed=1)
    gx, = gradient_check.numerical_grad(lambda: (np.sin(x) * x,), (x,), (gy,))
    testing.assert_allclose(gx, (np.cos(x) * x + np.sin(x)) * gy, atol=1e-6, rtol=1e-6)


def test_numerical_grad_of_several_inputs_and_outputs():
    x = rand(3, seed=2)
    y = rand(3, seed=3)
    g1 = rand(3, seed=4)
    g2 = rand(3, seed=5)
    gx, gy = gradient_check.numerical_grad(lambda: (x * y, np.exp(x)), (x, y), (g1, g2))
    testing.assert_allclose(gx, y * g1 + np.exp(x) * g2, atol=1e-6, rtol=1e-6)
    testing.assert_allclose(gy, x * g1, atol=1e-6, rtol=1e-6)


def test_numerical_grad_ignores_outputs_without_gradient_and_restores_inputs():
    x = rand(2, 2)
    before = x.copy()
    gx, = gradient_check.numerical_grad(lambda: (x * 3, x * 100), (x,), (np.ones((2, 2)), None))
    testing.assert_allclose(gx, np.full((2, 2), 3.0), atol=1e-8, rtol=1e-8)
    assert np.array_equal(x, before)


def test_numerical_grad_keeps_the_input_dtype_and_device():
    x = fake(rand(2, 3, dtype=np.float32))
    gx, = gradient_check.numerical_grad(lambda: (x * x,), (x,), (fake(np.ones((2, 3),
                                                                               np.float32)),))
    assert isinstance(gx, FakeArray) and gx.dtype == np.float32
    testing.assert_allclose(gx, 2 * x, atol=1e-3, rtol=1e-3)


def test_numerical_grad_rejects_integer_inputs():
    x = np.arange(3)
    with pytest.raises(TypeError, match=r'inputs\[0\] has dtype int'):
        gradient_check.numerical_grad(lambda: (x,), (x,), (np.ones(3),))


def test_numerical_grad_detects_a_kink():
    x = np.array([0.5, 0.0, -0.25])
    with pytest.raises(gradient_check.NondifferentiableError, match=r'inputs\[0\]\[1\]'):
        gradient_check.numerical_grad(lambda: (np.abs(x),), (x,), (np.ones(3),),
                                      detect_nondifferentiable=True)


def test_numerical_grad_detects_a_jump_and_a_domain_edge():
    x = np.array([1e-4])
    with pytest.raises(gradient_check.NondifferentiableError):
        gradient_check.numerical_grad(lambda: ((x > 0).astype(np.float64),), (x,), (np.ones(1),),
                                      detect_nondifferentiable=True)
    with np.errstate(invalid='ignore', divide='ignore'):
        with pytest.raises(gradient_check.NondifferentiableError, match='nan'):
            gradient_check.numerical_grad(lambda: (np.log(x),), (x,), (np.ones(1),),
                                          detect_nondifferentiable=True)


def test_numerical_grad_accepts_smooth_functions_in_detect_mode():
    x = rand(5, 4, seed=7)
    gx, = gradient_check.numerical_grad(lambda: (np.tanh(x) * np.exp(x),), (x,),
                                        (np.ones((5, 4)),), detect_nondifferentiable=True)
    expected = (1 - np.tanh(x) ** 2) * np.exp(x) + np.tanh(x) * np.exp(x)
    testing.assert_allclose(gx, expected, atol=1e-5, rtol=1e-5)
    # A flat output of large magnitude in float32 is smooth too (rounding is not a kink).
    y = np.array([0.3, -0.7], dtype=np.float32)
    gradient_check.numerical_grad(lambda: (np.float32(1000) + y * y,), (y,),
                                  (np.ones(2, np.float32),), eps=1e-2,
                                  detect_nondifferentiable=True)


# -------------------------------------------------------------------------- check_backward

@pytest.mark.parametrize('to_device', [lambda a: a, fake], ids=['numpy', 'fake'])
def test_check_backward_passes_on_the_correct_backward(to_device):
    gradient_check.check_backward(square(Square), to_device(rand(3, 2)),
                                  to_device(rand(3, 2, seed=1)))


@pytest.mark.parametrize('to_device', [lambda a: a, fake], ids=['numpy', 'fake'])
def test_check_backward_fails_on_a_wrong_backward(to_device):
    with pytest.raises(AssertionError) as info:
        gradient_check.check_backward(square(SquareMissingFactor), to_device(rand(3, 2)),
                                      to_device(rand(3, 2, seed=1)))
    message = str(info.value)
    assert 'culprit: input 0' in message
    assert 'backward:' in message and 'numerical:' in message
    assert 'gradient from backward' in message and 'numerical gradient' in message


def test_check_backward_names_the_wrong_input_only():
    x, y, gz = rand(2, 3), rand(2, 3, seed=1), rand(2, 3, seed=2)
    with pytest.raises(AssertionError) as info:
        gradient_check.check_backward(lambda a, b: MulWrongSecondInput().apply((a, b)),
                                      (x, y), gz)
    lines = str(info.value).splitlines()
    assert lines[0] == 'culprit: input 1 (x_data[1])'
    per_input = [line for line in lines if line.strip().startswith('input ')]
    assert 'mismatch' not in per_input[0] and 'mismatch' in per_input[1]
    # The same multiplication from catena passes.
    gradient_check.check_backward(lambda a, b: a * b, (x, y), gz)


def test_check_backward_with_float16_inputs_and_float64_numerics():
    x = rand(4, dtype=np.float16)
    gy = rand(4, dtype=np.float16, seed=1)
    seen = []

    def f(v):
        seen.append(v.dtype)
        return F.tanh(v)

    gradient_check.check_backward(f, x, gy, dtype=np.float64, atol=5e-2, rtol=5e-2)
    assert seen[0] == np.float16 and np.float64 in seen
    with pytest.raises(ValueError, match='floating point'):
        gradient_check.check_backward(f, x, gy, dtype=np.int32)


def test_check_backward_with_params_restores_their_grads():
    w = catena.Parameter(rand(3, seed=3))
    w.name = 'w'
    w.grad = np.full(3, 7.0)
    x = rand(2, 3)
    gradient_check.check_backward(lambda v: v * F.broadcast_to(w, (2, 3)), x, rand(2, 3, seed=1),
                                  params=w)
    assert np.array_equal(w.grad, np.full(3, 7.0))


def test_check_backward_blames_a_wrong_param():
    w = catena.Parameter(rand(2, 3, seed=3))
    w.name = 'W'
    with pytest.raises(AssertionError, match=r"culprit: param 0 'W'"):
        gradient_check.check_backward(lambda v: MulWrongSecondInput().apply((v, w)),
                                      rand(2, 3), rand(2, 3, seed=1), params=(w,))


def test_check_backward_skips_integer_inputs_and_no_grads():
    x = rand(4)
    index = np.array([2, 0])
    gradient_check.check_backward(lambda v, i: F.get_item(v, i.array), (x, index), rand(2))
    # no_grads=True for the float input too: the function computes its
    # gradient anyway, which check_backward reports (as Chainer does).
    with pytest.raises(RuntimeError, match='no_grads marks as having none'):
        gradient_check.check_backward(square(SquareMissingFactor), x, rand(4),
                                      no_grads=[True])
    gradient_check.check_backward(lambda v, w: v * w.array, (x, rand(4, seed=2)), rand(4),
                                  no_grads=[False, True])
    with pytest.raises(ValueError, match='no_grads has 2 entries'):
        gradient_check.check_backward(square(Square), x, rand(4), no_grads=[False, True])


def test_check_backward_with_scalar_output_and_no_y_grad():
    gradient_check.check_backward(lambda v: F.sum(v * v), rand(3, 2), None)
    with pytest.raises(ValueError, match='one element'):
        gradient_check.check_backward(square(Square), rand(3, 2), None)


def test_check_backward_validates_y_grad():
    with pytest.raises(ValueError, match='y_grad has 2 entries'):
        gradient_check.check_backward(square(Square), rand(3), (rand(3), rand(3)))
    with pytest.raises(ValueError, match=r'y_grad\[0\] has shape \(2,\)'):
        gradient_check.check_backward(square(Square), rand(3), rand(2))
    with pytest.raises(TypeError, match='must return a Variable'):
        gradient_check.check_backward(lambda v: v.array, rand(3), rand(3))


def test_check_backward_detects_nondifferentiable_inputs():
    x = np.array([0.0, 0.5])
    with pytest.raises(gradient_check.NondifferentiableError, match='check_backward'):
        gradient_check.check_backward(F.absolute, x, np.ones(2), detect_nondifferentiable=True)
    gradient_check.check_backward(F.absolute, np.array([-0.5, 0.5]), np.ones(2),
                                  detect_nondifferentiable=True)


def test_check_backward_is_reproducible_under_fix_random():
    messages = []
    for _ in range(2):
        with pytest.raises(AssertionError) as info:
            testing.fix_random(seed=3)(gradient_check.check_backward)(
                square(SquareMissingFactor), rand(3), rand(3, seed=1))
        messages.append(str(info.value))
    assert messages[0] == messages[1]


# ------------------------------------------------------------------- check_double_backward

@pytest.mark.parametrize('to_device', [lambda a: a, fake], ids=['numpy', 'fake'])
def test_check_double_backward_passes_on_correct_functions(to_device):
    x, gy, ggx = (to_device(rand(3, 2, seed=s)) for s in range(3))
    gradient_check.check_double_backward(square(Square), x, gy, ggx)
    gradient_check.check_double_backward(F.tanh, x, gy, ggx)
    y = to_device(rand(3, 2, seed=4))
    ggy = to_device(rand(3, 2, seed=5))
    gradient_check.check_double_backward(lambda a, b: a * b, (x, y), gy, (ggx, ggy))


@pytest.mark.parametrize('to_device', [lambda a: a, fake], ids=['numpy', 'fake'])
def test_check_double_backward_fails_on_a_wrong_second_order(to_device):
    x, gy, ggx = (to_device(rand(3, 2, seed=s)) for s in range(3))
    # The first order is right ...
    gradient_check.check_backward(square(SquareFlatSecondOrder), x, gy)
    # ... the second is not.
    with pytest.raises(AssertionError, match=r'culprit: input 0 \(x_data\[0\]\)'):
        gradient_check.check_double_backward(square(SquareFlatSecondOrder), x, gy, ggx)


def test_check_double_backward_differentiates_the_first_order_as_built():
    # As in Chainer, check_double_backward checks that the first-order graph is
    # differentiated correctly, not that the first order itself is right:
    # gx = x * gy is a wrong gradient of x ** 2 but a consistent function of x and gy.
    x, gy, ggx = (rand(3, seed=s) for s in range(3))
    gradient_check.check_double_backward(square(SquareMissingFactor), x, gy, ggx)
    with pytest.raises(AssertionError):
        gradient_check.check_backward(square(SquareMissingFactor), x, gy)


def test_check_double_backward_with_params():
    w = catena.Parameter(rand(3, seed=3))
    x, gy, ggx = rand(3), rand(3, seed=1), rand(3, seed=2)
    ggw = rand(3, seed=4)
    gradient_check.check_double_backward(lambda v: F.tanh(v * w), x, gy, ggx, params=w,
                                         params_grad_grad=ggw)
    with pytest.raises(ValueError, match='params_grad_grad has 0 entries'):
        gradient_check.check_double_backward(lambda v: F.tanh(v * w), x, gy, ggx, params=w)


def test_check_double_backward_with_an_integer_input():
    x = rand(4)
    index = np.array([3, 1])
    gradient_check.check_double_backward(lambda v, i: F.get_item(v, i.array) ** 2, (x, index),
                                         rand(2, seed=1), (rand(4, seed=2), None))


def test_assert_allclose_is_reexported():
    assert gradient_check.assert_allclose is testing.assert_allclose
    assert isinstance(Variable(rand(2)), Variable)


def test_numerical_grad_detection_looks_within_eps():
    # A kink 1.2 eps away lies outside [x - eps, x + eps]: differentiable there.
    x = np.array([1.2e-3], np.float32)
    gradient_check.numerical_grad(lambda: (abs(x),), (x,), (np.ones(1, np.float32),),
                                  eps=1e-3, detect_nondifferentiable=True)
    x = np.array([0.8e-3], np.float32)
    with pytest.raises(gradient_check.NondifferentiableError):
        gradient_check.numerical_grad(lambda: (abs(x),), (x,), (np.ones(1, np.float32),),
                                      eps=1e-3, detect_nondifferentiable=True)


def test_numerical_grad_reports_a_pole_but_not_an_invalid_domain():
    ones = (np.ones(1, np.float32),)
    at_pole = np.array([0.0], np.float32)
    with np.errstate(divide='ignore', invalid='ignore'):
        with pytest.raises(gradient_check.NondifferentiableError):
            gradient_check.numerical_grad(lambda: (np.log(at_pole),), (at_pole,), ones,
                                          detect_nondifferentiable=True)
        outside = np.array([-10.0], np.float32)
        gradient_check.numerical_grad(lambda: (np.log(outside),), (outside,), ones,
                                      detect_nondifferentiable=True)


def test_numerical_grad_rejects_a_non_positive_eps():
    x = rand(2)
    for eps in (0, -1.0):
        with pytest.raises(ValueError, match='eps must be positive'):
            gradient_check.numerical_grad(lambda: (x * 2,), (x,), (rand(2),), eps=eps)
        with pytest.raises(AssertionError):  # Chainer asserts it
            gradient_check.numerical_grad(lambda: (x * 2,), (x,), (rand(2),), eps=eps)


def test_sample_unit_vector_has_no_tiny_elements():
    y = gradient_check._CheckBackward._sample_unit_vector(100, np)
    assert y.shape == (100,)
    np.testing.assert_allclose(np.square(y).sum(), 1.0)
    assert np.abs(y).min() >= 0.1 / np.sqrt(100)
    assert y.min() < 0 < y.max()


def test_check_backward_with_an_output_returned_twice():
    def twice(v):
        y = v * 3
        return y, y

    gradient_check.check_backward(twice, rand(3), (rand(3, seed=1), rand(3, seed=2)))


def test_check_backward_with_a_parameter_initialized_by_the_forward_pass():
    # The first forward pass gives the parameter its array (and a NaN
    # gradient); the check must clear it before backward.
    link = catena.links.Linear(None, 2)
    x = np.random.default_rng(0).uniform(-1, 1, (3, 4)).astype(np.float32)
    gradient_check.check_backward(link, x, np.ones((3, 2), np.float32),
                                  params=(link.W, link.b), dtype=np.float64,
                                  atol=1e-3, rtol=1e-3)
    assert link.W.shape == (2, 4)


def test_numerical_evaluations_skip_type_checks():
    # As in Chainer, dtype=float64 casts the inputs but not parameters that
    # func closes over; the numerical evaluations run without type checks.
    link = catena.links.Linear(4, 2)
    x = np.random.default_rng(1).uniform(-1, 1, (3, 4)).astype(np.float32)
    gradient_check.check_backward(link, x, np.ones((3, 2), np.float32), dtype=np.float64,
                                  atol=1e-3, rtol=1e-3)
    with pytest.raises(catena.utils.type_check.InvalidType):
        link(x.astype(np.float64))
