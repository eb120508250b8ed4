"""catena.utils.precision._fp16_mixed_precision_helper."""

import numpy as np

from catena import FunctionNode
from catena.utils import precision


class Record(FunctionNode):
    @precision._fp16_mixed_precision_helper
    def forward(self, inputs):
        self.seen = inputs
        return tuple(x * 1 for x in inputs)


def test_float16_inputs_run_in_float32_and_outputs_come_back_in_float16():
    x = np.full((2,), 0.5, np.float16)
    i = np.arange(2, dtype=np.int8)
    node = Record()
    y, j = node.apply((x, i))
    assert node.seen[0].dtype == np.float32
    assert node.seen[1] is i
    assert y.dtype == np.float16 and j.dtype == np.int8


def test_other_inputs_pass_unchanged():
    x = np.ones(2, np.float64)
    node = Record()
    y, = node.apply((x,))
    assert node.seen[0] is x
    assert y.dtype == np.float64
