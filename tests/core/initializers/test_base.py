import numpy
import pytest

import catena
from catena import initializers


@pytest.mark.parametrize('shape, fans', [
    ((3, 4), (4, 3)),
    ((5, 2, 3, 3), (18, 45)),
    ((5, 2, 3, 3, 2), (36, 90)),
    ([6, 7], (7, 6)),
])
def test_get_fans(shape, fans):
    assert initializers.get_fans(shape) == fans


@pytest.mark.parametrize('shape', [(), (4,)])
def test_get_fans_needs_two_axes(shape):
    with pytest.raises(ValueError, match='shape'):
        initializers.get_fans(shape)


def test_exports():
    names = ['Identity', 'Constant', 'Zero', 'One', 'NaN', 'Normal', 'GlorotNormal', 'HeNormal',
             'LeCunNormal', 'Orthogonal', 'Uniform', 'GlorotUniform', 'HeUniform',
             'LeCunUniform', 'UpsamplingDeconvFilter', 'DownsamplingConvFilter']
    for name in names:
        cls = getattr(initializers, name)
        assert issubclass(cls, initializers.Initializer)
    assert initializers.__all__ == sorted(initializers.__all__)


def test_get_initializer():
    default = initializers._get_initializer(None)
    assert type(default) is initializers.LeCunNormal
    assert default.scale == 1.0
    scalar = initializers._get_initializer(2.5)
    assert isinstance(scalar, initializers.Constant) and scalar.fill_value == 2.5
    numpy_scalar = initializers._get_initializer(numpy.float32(3))
    assert isinstance(numpy_scalar, initializers.Constant)
    values = numpy.arange(6, dtype=numpy.float32).reshape(2, 3)
    from_array = initializers._get_initializer(values)
    assert isinstance(from_array, initializers.Constant)
    numpy.testing.assert_array_equal(initializers.generate_array(from_array, (2, 3), numpy),
                                     values)
    init = initializers.HeNormal()
    assert initializers._get_initializer(init) is init

    def fill(array):
        array[...] = 4

    assert initializers._get_initializer(fill) is fill
    with pytest.raises(TypeError, match='initializer'):
        initializers._get_initializer('HeNormal')


def test_generate_array():
    array = initializers.generate_array(initializers.Constant(1.5), (2, 3), numpy)
    assert array.shape == (2, 3) and array.dtype == numpy.float32
    numpy.testing.assert_array_equal(array, numpy.full((2, 3), 1.5))
    array = initializers.generate_array(initializers.One(), 4, numpy, dtype=numpy.float64)
    assert array.shape == (4,) and array.dtype == numpy.float64
    array = initializers.generate_array(initializers.Zero(), (3,), numpy, device='@numpy')
    assert isinstance(array, numpy.ndarray)
    with catena.using_config('dtype', catena.mixed16):
        assert initializers.generate_array(initializers.Zero(), (3,), numpy).dtype == \
            numpy.float16
    with pytest.raises(ValueError, match='dtype'):
        initializers.generate_array(initializers.Zero(numpy.float32), (3,), numpy,
                                    dtype=numpy.float64)
