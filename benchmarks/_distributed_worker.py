"""One rank of the distributed training benchmark (started by ``bench_distributed.py``).

Run under MPI, for example::

    mpiexec --oversubscribe -n 2 python benchmarks/_distributed_worker.py \\
        --model resnet18 --communicator flat --steps 10

Every rank builds the same model (fixed seed), takes its own fixed batch
(seeded by rank: weak scaling, the per-rank batch stays the same whatever the
number of ranks) and trains with MomentumSGD wrapped in
``create_multi_node_optimizer``. The first update goes through the wrapper,
which broadcasts rank 0's parameters and takes no step. Each later step does
what the wrapper's ``update`` does, in three timed phases:

1. forward and backward (``cleargrads``, loss, ``backward``);
2. ``comm.multi_node_mean_grad(model, zero_fill=False)``, the all-reduce,
   packing included for the flat communicator. A barrier comes first, so
   this time is the communication itself and not a wait for a slower rank;
3. the wrapped optimizer's own ``update()``, which does no all-reduce.

The step time runs from a barrier at the start of the step to the end of
the update (the barrier wait before the all-reduce included, as a real
all-reduce would wait there). Per step, each phase takes the slowest rank's
time; rank 0 prints the medians and every step's times as one JSON line that
starts with ``RESULT_PREFIX``. After the timed steps the ranks check that
their parameters agree.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

RESULT_PREFIX = "CATENA_DISTRIBUTED_BENCH "
MODELS = ("mlp", "resnet18", "resnet34", "many-small")
COMMUNICATORS = ("naive", "flat", "flat-4mb")
PHASES = ("fwd_bwd", "wait", "allreduce", "update", "step")
LR = 0.01
MOMENTUM = 0.9


# ------------------------------------------------------------------ models


def _mlp() -> tuple[Any, Callable[[np.random.Generator], tuple[np.ndarray, np.ndarray]], int]:
    import catena
    import catena.functions as F
    import catena.links as L

    model = catena.Sequential(L.Linear(784, 1000), F.relu, L.Linear(1000, 1000), F.relu,
                              L.Linear(1000, 10))

    def batch(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        return (rng.uniform(0, 1, (100, 784)).astype(np.float32),
                rng.integers(0, 10, 100).astype(np.int32))

    return model, batch, 100


def _many_small() -> tuple[Any, Callable[[np.random.Generator], tuple[np.ndarray, np.ndarray]],
                           int]:
    """200 Linear(32, 32) layers with tanh: 400 small parameter arrays."""
    import catena
    import catena.functions as F
    import catena.links as L

    parts: list[Any] = []
    for _ in range(200):
        parts += [L.Linear(32, 32), F.tanh]
    model = catena.Sequential(*parts[:-1])

    def batch(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        return (rng.uniform(-1, 1, (100, 32)).astype(np.float32),
                rng.integers(0, 32, 100).astype(np.int32))

    return model, batch, 100


def _resnet(blocks_per_stage: tuple[int, ...]) -> tuple[
        Any, Callable[[np.random.Generator], tuple[np.ndarray, np.ndarray]], int]:
    """ResNet with basic blocks (18: 2-2-2-2, 34: 3-4-6-3) on 3x64x64, 10 classes.

    The ImageNet layout (7x7/2 convolution, 3x3/2 max pooling, stages of 64,
    128, 256 and 512 channels, global average pooling, linear), with
    convolutions without bias, each followed by batch normalization.
    """
    import catena
    import catena.functions as F
    import catena.links as L

    class BasicBlock(catena.Chain):
        def __init__(self, in_channels: int, out_channels: int, stride: int) -> None:
            super().__init__()
            with self.init_scope():
                self.conv1 = L.Convolution2D(in_channels, out_channels, 3, stride, 1,
                                             nobias=True)
                self.bn1 = L.BatchNormalization(out_channels)
                self.conv2 = L.Convolution2D(out_channels, out_channels, 3, 1, 1, nobias=True)
                self.bn2 = L.BatchNormalization(out_channels)
                if stride != 1 or in_channels != out_channels:
                    self.shortcut = L.Convolution2D(in_channels, out_channels, 1, stride,
                                                    nobias=True)
                    self.bn_shortcut = L.BatchNormalization(out_channels)

        def forward(self, x: Any) -> Any:
            h = F.relu(self.bn1(self.conv1(x)))
            h = self.bn2(self.conv2(h))
            if hasattr(self, "shortcut"):
                x = self.bn_shortcut(self.shortcut(x))
            return F.relu(h + x)

    class ResNet(catena.Chain):
        def __init__(self) -> None:
            super().__init__()
            with self.init_scope():
                self.conv1 = L.Convolution2D(3, 64, 7, 2, 3, nobias=True)
                self.bn1 = L.BatchNormalization(64)
                self.blocks = catena.ChainList()
                in_channels = 64
                for stage, (count, channels) in enumerate(
                        zip(blocks_per_stage, (64, 128, 256, 512))):
                    for index in range(count):
                        stride = 2 if index == 0 and stage > 0 else 1
                        self.blocks.append(BasicBlock(in_channels, channels, stride))
                        in_channels = channels
                self.fc = L.Linear(512, 10)

        def forward(self, x: Any) -> Any:
            h: Any = F.max_pooling_2d(F.relu(self.bn1(self.conv1(x))), 3, 2, 1)
            for block in self.blocks:
                h = block(h)
            return self.fc(F.average_pooling_2d(h, h.shape[2:]))

    def batch(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        return (rng.uniform(0, 1, (16, 3, 64, 64)).astype(np.float32),
                rng.integers(0, 10, 16).astype(np.int32))

    return ResNet(), batch, 16


def build_model(name: str) -> tuple[Any, Callable[[np.random.Generator],
                                                  tuple[np.ndarray, np.ndarray]], int]:
    """Returns (model, batch maker, per-rank batch size) for a name of ``MODELS``."""
    if name == "mlp":
        return _mlp()
    if name == "many-small":
        return _many_small()
    if name == "resnet18":
        return _resnet((2, 2, 2, 2))
    if name == "resnet34":
        return _resnet((3, 4, 6, 3))
    raise ValueError(f"model must be one of {MODELS}, got {name!r}")


# ----------------------------------------------------------------- running


def _communicator(name: str) -> Any:
    import catena.distributed as dist

    if name == "naive":
        return dist.create_communicator("naive")
    if name == "flat":
        return dist.create_communicator("flat", bucket_size_mb=None)
    if name == "flat-4mb":
        return dist.create_communicator("flat", bucket_size_mb=4)
    raise ValueError(f"communicator must be one of {COMMUNICATORS}, got {name!r}")


def run(model_name: str, communicator_name: str, warmup: int, steps: int,
        seed: int) -> dict[str, Any] | None:
    """Trains and times; returns the result on rank 0, None on the others."""
    import catena
    import catena.distributed as dist
    import catena.functions as F
    import catena.optimizers as O

    comm = _communicator(communicator_name)
    barrier = comm.mpi_comm.Barrier
    # The initializers draw from NumPy's global generator.
    np.random.seed(seed)  # noqa: NPY002
    model, make_batch, batch_size = build_model(model_name)
    x, t = make_batch(np.random.default_rng([seed, comm.rank]))
    optimizer = dist.create_multi_node_optimizer(
        O.MomentumSGD(lr=LR, momentum=MOMENTUM), comm, zero_fill=False)
    optimizer.setup(model)
    actual = optimizer.actual_optimizer

    def lossfun() -> Any:
        return F.softmax_cross_entropy(model(x), t)

    optimizer.update(lossfun)  # initializes the parameters' layout: broadcast, no step

    def step() -> dict[str, float]:
        barrier()
        start = time.perf_counter()
        model.cleargrads()
        loss = lossfun()
        loss.backward()
        del loss
        computed = time.perf_counter()
        barrier()
        synced = time.perf_counter()
        comm.multi_node_mean_grad(model, zero_fill=False)
        reduced = time.perf_counter()
        actual.update()
        end = time.perf_counter()
        return {"fwd_bwd": computed - start, "wait": synced - computed,
                "allreduce": reduced - synced, "update": end - reduced, "step": end - start}

    with catena.using_config("train", True):
        for _ in range(warmup):
            step()
        timings = [step() for _ in range(steps)]
    barrier()

    params = sorted(model.namedparams(), key=lambda item: item[0])
    checksum = np.array([float(np.sum(p.array, dtype=np.float64)) for _, p in params])
    all_checksums = comm.gather_obj(checksum)
    every_rank = comm.gather_obj(timings)
    mpi_version = _mpi_library_version()
    if comm.rank != 0:
        return None
    assert all_checksums is not None and every_rank is not None
    disagreement = max(float(np.max(np.abs(c - all_checksums[0]))) for c in all_checksums)
    # Per step, each phase is as slow as its slowest rank.
    slowest = [{phase: max(rank_steps[i][phase] for rank_steps in every_rank)
                for phase in PHASES} for i in range(steps)]
    arrays = [p.array for _, p in params]
    return {
        "model": model_name,
        "communicator": communicator_name,
        "ranks": comm.size,
        "batch_per_rank": batch_size,
        "param_arrays": len(params),
        "params": int(sum(a.size for a in arrays)),
        "grad_bytes": int(sum(a.nbytes for a in arrays)),
        "warmup": warmup,
        "steps": steps,
        "median_ms": {phase: 1e3 * statistics.median(s[phase] for s in slowest)
                      for phase in PHASES},
        "steps_ms": [{phase: round(1e3 * s[phase], 4) for phase in PHASES} for s in slowest],
        "param_checksum_max_diff": disagreement,
        "versions": {"python": platform.python_version(), "numpy": np.__version__,
                     "catena": str(getattr(catena, "__version__", "?")),
                     "mpi": mpi_version},
        "threads_env": {name: os.environ.get(name) for name in
                        ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")},
    }


def _mpi_library_version() -> str:
    from mpi4py import MPI

    return MPI.Get_library_version().replace("\x00", "").splitlines()[0].strip()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", choices=MODELS, required=True)
    parser.add_argument("--communicator", choices=COMMUNICATORS, required=True)
    parser.add_argument("--warmup", type=int, default=3, help="untimed steps (default 3)")
    parser.add_argument("--steps", type=int, default=10, help="timed steps (default 10)")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.warmup < 0 or args.steps < 1:
        parser.error(f"--warmup must be >= 0 and --steps >= 1, got {args.warmup} and "
                     f"{args.steps}")
    result = run(args.model, args.communicator, args.warmup, args.steps, args.seed)
    if result is not None:
        sys.stdout.write(RESULT_PREFIX + json.dumps(result) + "\n")
        sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
