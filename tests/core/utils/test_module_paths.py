"""Chainer's module paths under catena.utils: collections_abc, tempdir, conv_nd_kernel."""

import collections.abc
import os

import pytest

import catena
from catena import utils
from catena.utils import conv_nd_kernel


def test_collections_abc_re_exports_the_standard_library():
    from catena.utils import collections_abc

    assert collections_abc.Iterable is collections.abc.Iterable
    assert catena.utils.collections_abc.Sequence is collections.abc.Sequence


def test_utils_names():
    assert utils.force_type is utils.array.force_type
    assert utils.size_of_shape((2, 3)) == 6
    assert utils.get_conv_outsize(5, 3, 1, 0) == 3
    assert utils.conv_nd.get_conv_outsize is utils.conv.get_conv_outsize
    assert utils.type_check.Expr is not None


def test_tempdir_is_removed_with_its_content():
    with utils.tempdir(prefix='catena-') as path:
        assert os.path.basename(path).startswith('catena-')
        with open(os.path.join(path, 'f'), 'w') as f:
            f.write('x')
    assert not os.path.exists(path)


def test_tempdir_is_removed_when_the_block_raises():
    with pytest.raises(RuntimeError), utils.tempdir() as path:
        raise RuntimeError
    assert not os.path.exists(path)


def test_nd_kernel_generators_memoize_per_class_and_dimension():
    calls = []

    class Toy(conv_nd_kernel.Im2colNDKernel):
        @classmethod
        def _generate(cls, ndim):
            calls.append(ndim)
            return f'kernel{ndim}'

    assert Toy.generate(2) == Toy.generate(2) == 'kernel2'
    assert Toy.generate(3) == 'kernel3'
    assert calls == [2, 3]
    Toy.clear_memo()
    Toy.generate(2)
    assert calls == [2, 3, 2]


@pytest.mark.parametrize('cls', [conv_nd_kernel.Im2colNDKernel, conv_nd_kernel.Col2imNDKernel])
def test_core_has_no_kernel_source(cls):
    with pytest.raises(NotImplementedError, match=cls.__name__):
        cls.generate(2)
