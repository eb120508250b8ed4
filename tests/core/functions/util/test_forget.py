"""forget: same values and gradients as a plain call, recomputation, double backprop, errors."""

# Chainer-style tests draw from NumPy's global generator, which the test case seeds.
# ruff: noqa: NPY002

import numpy as np
import pytest

import catena
import catena.functions as F
from catena import testing


def _one(x, y):
    return F.tanh(x * y) + x


def _two(x, y):
    return F.tanh(x * y) + x, x * x * y


@testing.parameterize(*testing.product({
    'dtype': [np.float16, np.float32, np.float64],
    'out_len': [1, 2],
}))
class TestForget(testing.FunctionTestCase):

    def generate_inputs(self):
        x = np.random.uniform(-1, 1, (3, 4)).astype(self.dtype)
        y = np.random.uniform(-1, 1, (3, 4)).astype(self.dtype)
        return x, y

    def forward(self, inputs, device):
        x, y = inputs
        outputs = F.forget(_one if self.out_len == 1 else _two, x, y)
        return outputs if isinstance(outputs, tuple) else (outputs,)

    def forward_expected(self, inputs):
        x, y = (a.astype(np.float64) for a in inputs)
        first = (np.tanh(x * y) + x).astype(self.dtype)
        if self.out_len == 1:
            return first,
        return first, (x * x * y).astype(self.dtype)


def _pair():
    x = catena.Variable(np.random.uniform(-1, 1, (3, 4)))
    y = catena.Variable(np.random.uniform(-1, 1, (3, 4)))
    return x, y


def test_no_intermediate_is_kept():
    x, y = _pair()
    z = F.forget(_one, x, y)
    assert type(z.creator).__name__ == 'Forget'
    assert z.creator.inputs == (x.node, y.node)


def test_gradients_match_the_plain_call():
    x, y = _pair()
    gz = np.random.uniform(-1, 1, (3, 4))
    expected = catena.grad(list(_two(x, y)), [x, y], [gz, 2 * gz])
    z1, z2 = F.forget(_two, x, y)
    got = catena.grad([z1, z2], [x, y], [gz, 2 * gz])
    for g, e in zip(got, expected):
        np.testing.assert_allclose(g.array, e.array, rtol=1e-12)
    z1.grad, z2.grad = gz, 2 * gz
    catena.backward([z1, z2])
    np.testing.assert_allclose(x.grad, expected[0].array, rtol=1e-12)
    np.testing.assert_allclose(y.grad, expected[1].array, rtol=1e-12)


def test_double_backprop_matches_the_plain_call():
    x, y = _pair()

    def second_order(function):
        gx, = catena.grad([F.sum(function(x, y))], [x], enable_double_backprop=True)
        return gx, catena.grad([F.sum(gx * gx)], [x, y])

    gx, (ggx, ggy) = second_order(lambda a, b: F.forget(_one, a, b))
    gx_plain, (ggx_plain, ggy_plain) = second_order(_one)
    np.testing.assert_allclose(gx.array, gx_plain.array, rtol=1e-12)
    np.testing.assert_allclose(ggx.array, ggx_plain.array, rtol=1e-12)
    np.testing.assert_allclose(ggy.array, ggy_plain.array, rtol=1e-12)


def test_third_order_recomputes_again():
    x = catena.Variable(np.array([0.3, -0.7]))
    g1, = catena.grad([F.sum(F.forget(F.tanh, x))], [x], enable_double_backprop=True)
    g2, = catena.grad([F.sum(g1)], [x], enable_double_backprop=True)
    g3, = catena.grad([F.sum(g2)], [x])
    t = np.tanh(x.array)
    np.testing.assert_allclose(g3.array, -2 * (1 - t * t) * (1 - 3 * t * t), rtol=1e-12)


def test_variables_the_function_closes_over_get_their_gradients():
    w = catena.Parameter(np.random.uniform(-1, 1, (3, 4)))
    x = catena.Variable(np.random.uniform(-1, 1, (3, 4)))

    def layer(a):
        return F.tanh(a * w)

    F.sum(layer(x)).backward()
    expected_w, expected_x = w.grad.copy(), x.grad.copy()
    w.cleargrad()
    x.cleargrad()
    F.sum(F.forget(layer, x)).backward()
    np.testing.assert_allclose(w.grad, expected_w, rtol=1e-12)
    np.testing.assert_allclose(x.grad, expected_x, rtol=1e-12)
    # With double backprop the parameter's gradient is differentiable too.
    w.cleargrad()
    gx, = catena.grad([F.sum(F.forget(layer, x))], [x], enable_double_backprop=True)
    gx_plain, = catena.grad([F.sum(layer(x))], [x], enable_double_backprop=True)
    gw, = catena.grad([F.sum(gx * gx)], [w])
    gw_plain, = catena.grad([F.sum(gx_plain * gx_plain)], [w])
    np.testing.assert_allclose(gw.array, gw_plain.array, rtol=1e-12)


def test_recomputation_is_flagged():
    seen = []

    def f(a):
        seen.append((catena.config.in_recomputing, catena.config._will_recompute))
        return a * a

    x = catena.Variable(np.array([1.0, 2.0]))
    z = F.forget(f, x)
    assert seen == [(False, True)]
    F.sum(z).backward()
    assert seen[1] == (True, False)
    assert catena.config.in_recomputing is False
    np.testing.assert_array_equal(x.grad, [2.0, 4.0])


def test_arrays_become_variables_that_require_grad():
    z = F.forget(lambda a: a * 2.0, np.array([1.0, 2.0]))
    assert isinstance(z, catena.Variable) and z.creator is not None
    z1 = F.forget(lambda a: (a * 2.0,), catena.Variable(np.array([1.0])))
    assert isinstance(z1, catena.Variable)


def test_identity_and_unused_inputs():
    x, y = _pair()
    z = F.forget(lambda a, b: a, x, y)
    z.grad = np.ones((3, 4))
    z.backward()
    np.testing.assert_array_equal(x.grad, np.ones((3, 4)))
    assert y.grad is None


def test_func_must_be_callable():
    with pytest.raises(TypeError, match='callable'):
        F.forget(1)


@pytest.mark.parametrize(('outputs', 'message'), [
    (lambda v: 1, "but it returned <class 'int'>"),
    (lambda v: (1,), '1st element .*int'),
    (lambda v: (v, 1), '2nd element .*int'),
    (lambda v: (v, v, 1), '3rd element .*int'),
    (lambda v: (v,) * 3 + (1,), '4th element .*int'),
    (lambda v: (v,) * 10 + (1,), '11th element .*int'),
    (lambda v: (v,) * 11 + (1,), '12th element .*int'),
    (lambda v: (v,) * 12 + (1,), '13th element .*int'),
    (lambda v: (v,) * 20 + (1,), '21st element .*int'),
    (lambda v: (v,) * 21 + (1,), '22nd element .*int'),
])
def test_func_must_return_variables(outputs, message):
    v = catena.Variable(np.zeros(1))
    with pytest.raises(RuntimeError, match=message):
        F.forget(outputs, v)


@pytest.mark.parametrize('finetune', [False, True])
def test_batch_renormalization_is_recomputed_with_the_statistics_it_first_saw(finetune):
    # r and d depend on the running statistics, which the first call updates.
    import catena.links as L

    x = np.random.uniform(-1, 1, (4, 3)).astype(np.float32)
    gy = np.random.uniform(-1, 1, (4, 3)).astype(np.float32)
    grads, stats = [], []
    for use_forget in (False, True):
        link = L.BatchRenormalization(3, rmax=2.0, dmax=1.0)
        v = catena.Variable(x)
        if use_forget:
            y = F.forget(lambda a, link=link: link(a, finetune=finetune), v)
        else:
            y = link(v, finetune=finetune)
        y.grad = gy
        y.backward()
        grads.append(v.grad)
        stats.append((link.avg_mean.copy(), link.avg_var.copy(), link.N))
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(stats[1][0], stats[0][0], rtol=1e-6)
    np.testing.assert_allclose(stats[1][1], stats[0][1], rtol=1e-6)
    assert stats[1][2] == stats[0][2]
