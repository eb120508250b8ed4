"""Chainer's CUDA source generators for N-d pooling exist and say that catena has none."""

import pytest

from catena.functions.pooling import pooling_nd_kernel


@pytest.mark.parametrize('generator', [pooling_nd_kernel.PoolingNDKernelForward,
                                       pooling_nd_kernel.PoolingNDKernelBackward])
def test_generate_raises_with_the_reason(generator):
    with pytest.raises(NotImplementedError, match=r'generate\(3\).*no CUDA source'):
        generator.generate(3)
