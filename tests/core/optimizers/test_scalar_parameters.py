"""Every built-in optimizer updates a 0-dimensional parameter as a 1-element one."""

import numpy
import pytest

import catena
from catena import optimizers

_NAMES = ['AdaDelta', 'AdaGrad', 'Adam', 'AdamW', 'AMSGrad', 'AdaBound', 'AMSBound',
          'CorrectedMomentumSGD', 'MomentumSGD', 'MSVAG', 'NesterovAG', 'RMSprop',
          'RMSpropGraves', 'SGD', 'SMORMS3']


class _Holder(catena.Link):
    def __init__(self, shape):
        super().__init__()
        with self.init_scope():
            self.w = catena.Parameter(numpy.full(shape, 0.5, numpy.float32))


@pytest.mark.parametrize('name', _NAMES)
def test_scalar_parameter_matches_a_one_element_parameter(name):
    scalar, vector = _Holder(()), _Holder((1,))
    opt_scalar = getattr(optimizers, name)().setup(scalar)
    opt_vector = getattr(optimizers, name)().setup(vector)
    for step in range(3):
        grad = numpy.float32(0.25 * (step + 1) - 0.4)
        scalar.w.grad = numpy.array(grad)
        vector.w.grad = numpy.array([grad])
        opt_scalar.update()
        opt_vector.update()
        assert scalar.w.array.shape == ()
        numpy.testing.assert_allclose(scalar.w.array, vector.w.array[0], rtol=1e-6)
    rule_state = scalar.w.update_rule.state
    for key, value in vector.w.update_rule.state.items():
        assert rule_state[key].shape == ()
        numpy.testing.assert_allclose(rule_state[key], value[0], rtol=1e-6)
    assert scalar.w.array != numpy.float32(0.5)
