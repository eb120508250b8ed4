"""Bad parameters of distributions raise errors that name the class, the
parameter and what came."""

import numpy
import pytest

from catena import distributions

_Z = numpy.zeros((2, 3), numpy.float32)
_O = numpy.ones((2, 3), numpy.float32)

CASES = [
    (lambda: distributions.Normal(None, _O), TypeError,
     'Normal: loc must be a floating point Variable or array; got None$'),
    (lambda: distributions.Normal('a', _O), TypeError,
     "Normal: loc must be a floating point Variable or array; got 'a'$"),
    (lambda: distributions.Normal(_Z, 1.0), TypeError,
     r'Normal: scale must be a floating point Variable or array \(a Python number.*got 1.0$'),
    (lambda: distributions.Normal(_Z, [1.0]), TypeError,
     r'Normal: scale must be .*wrap it in numpy.array.*got \[1.0\]$'),
    (lambda: distributions.Normal(numpy.zeros(2, numpy.int32), numpy.ones(2, numpy.int32)),
     TypeError,
     'Normal: loc must be a floating point.*got an array of shape .2,. and dtype int32$'),
    (lambda: distributions.Normal(_Z, numpy.ones(4, numpy.float32)), ValueError,
     'Normal: loc and scale must have the same shape'),
    (lambda: distributions.Bernoulli('a'), TypeError,
     "Bernoulli: p must be a floating point Variable or array; got 'a'$"),
    (lambda: distributions.Beta(None, _O), TypeError,
     'Beta: a must be a floating point.*got None$'),
    (lambda: distributions.Poisson('a'), TypeError, "Poisson: lam must be .*got 'a'"),
    (lambda: distributions.Pareto(_O, None), TypeError, 'Pareto: alpha must be .*got None'),
    (lambda: distributions.Categorical(0.5), TypeError,
     r'Categorical: p must be .*\(a Python number.*got 0.5$'),
    (lambda: distributions.Normal(distributions.Normal(_Z, _O), _O), TypeError,
     'Normal: loc must be a floating point Variable or array; got a distribution'),
]


@pytest.mark.parametrize('build, error, message', CASES)
def test_bad_parameter_is_named(build, error, message):
    with pytest.raises(error, match=message) as info:
        build()
    assert type(info.value) is error


def test_float_arrays_and_numpy_scalars_pass():
    assert distributions.Normal(_Z, _O).batch_shape == (2, 3)
    assert distributions.Normal(numpy.float32(0), numpy.float32(1)).batch_shape == ()
