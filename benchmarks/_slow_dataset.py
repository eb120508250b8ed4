"""A dataset whose examples cost about a millisecond of CPU each (for bench_iterators).

It lives in a module of its own so that iterator workers started with spawn or
forkserver can import it by name.
"""

from __future__ import annotations

import time

import numpy as np

EXAMPLE_SECONDS = 1e-3
SHAPE = (3, 32, 32)


class SlowImageDataset:
    """``length`` image-like float32 examples, each computed in ~1 ms of busy CPU."""

    def __init__(self, length: int) -> None:
        self.length = length

    def __len__(self) -> int:
        return self.length

    def __getitem__(self, index: int) -> tuple[np.ndarray, np.int32]:
        end = time.perf_counter() + EXAMPLE_SECONDS
        while time.perf_counter() < end:
            pass
        image = np.full(SHAPE, index % 255, dtype=np.float32)
        return image, np.int32(index % 10)
