"""Which oneDNN convolution kernels this CPU offers, for the bfloat16 tests."""

from __future__ import annotations

from typing import Any

from catena_intel64 import _capi
from catena_intel64.kernels.connection import (
    convolution_2d as conv_kernels,
    deconvolution_2d as deconv_kernels,
)


def offered(g: Any) -> dict[str, bool]:
    """Whether oneDNN has each kernel of the convolution geometry ``g`` on this CPU.

    In bfloat16 mode that depends on the CPU: without bfloat16 instructions
    (or AVX-512 to emulate them) oneDNN has no such convolution, and the
    kernels fall back to the generic float32 code.
    """
    builders = {'convolution_2d': lambda: conv_kernels._build_forward(g, False),
                'convolution_2d_grad_w': lambda: conv_kernels._build_grad_w(g),
                'deconvolution_2d': lambda: deconv_kernels._build(g)}
    result = {}
    for name, build in builders.items():
        try:
            build()
        except _capi.DnnlError as error:
            if error.status != _capi.UNIMPLEMENTED:
                raise
            result[name] = False
        else:
            result[name] = True
    return result
