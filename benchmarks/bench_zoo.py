"""catena-zoo's VGG-16 and ResNet-50: test-mode inference at 224x224, batch 1 and 8.

Each case runs ``model(x, layers=['prob'])`` under
``catena.using_config('train', False)`` and ``catena.no_backprop_mode()``
(random weights, float32) against the same network in plain ``torch.nn``
(``_zoo_torch.py``: torchvision has no CPU build here) in eval mode under
``torch.no_grad()``, holding catena's weights. Both sides run on one thread
(see ``run.py``).

``zoo/<model>/batch<n>/generic``
    catena's NumPy path: ``use_ideep='never'``.
``zoo/<model>/batch<n>/intel64``
    with catena-intel64: ``use_ideep='always'``, oneDNN held to one OpenMP
    thread. Left out, with the reason printed, when
    ``catena.backends.intel64.is_ideep_available()`` is False.

No target: the ratios are a reference for users. ``--check`` compares the
pre-softmax outputs (``fc8`` of VGG-16, ``fc6`` of ResNet-50) relative to
their largest magnitude, and the probabilities, with torch's. With random
weights VGG-16's outputs are tiny (its probabilities all near 1/1000) and
ResNet-50's huge (one-hot probabilities), so the pre-softmax comparison is
the one that tells.

The catena models are built once per process and shared by every case
(``VGG16Layers(None)`` draws 138M random weights: about 5 s). ResNet-50's
batch normalization statistics and scales are randomised too, so that the
check covers them.
"""

from __future__ import annotations

import functools
import importlib.util
from collections.abc import Callable
from typing import Any

import numpy as np

MODELS = ('vgg16', 'resnet50')
BATCHES = (1, 8)
SIZE = 224
SEED = 0
LOGITS_LAYER = {'vgg16': 'fc8', 'resnet50': 'fc6'}
# Largest |catena - torch| allowed, relative to the largest |torch| value.
LOGITS_TOLERANCE = 1e-4
PROB_RTOL, PROB_ATOL = 1e-4, 1e-6


def _input(batch: int) -> np.ndarray:
    rng = np.random.default_rng(SEED + batch)
    return rng.uniform(-1, 1, (batch, 3, SIZE, SIZE)).astype(np.float32)


@functools.cache
def _catena_model(name: str) -> Any:
    import catena
    import catena.links

    # The zoo's links are added to catena.links by a plugin, which types them as object.
    L: Any = catena.links
    np.random.seed(SEED)  # noqa: NPY002 - catena's initializers draw from it
    if name == 'vgg16':
        return L.VGG16Layers(pretrained_model=None)
    model = L.ResNet50Layers(None)
    rng = np.random.default_rng(SEED)
    for _, link in model.namedlinks():
        if isinstance(link, catena.links.BatchNormalization):
            size = link.avg_mean.shape
            link.gamma.array[...] = rng.uniform(0.5, 1.5, size)
            link.beta.array[...] = rng.uniform(-0.1, 0.1, size)
            link.avg_mean[...] = rng.uniform(-0.1, 0.1, size)
            link.avg_var[...] = rng.uniform(0.5, 1.5, size)
    return model


def _catena_arrays(model: Any) -> dict[str, np.ndarray]:
    """catena's parameters and statistics under the torch models' ``state_dict`` names."""
    import catena.links as L

    renamed = {'W': 'weight', 'b': 'bias', 'gamma': 'weight', 'beta': 'bias'}
    arrays: dict[str, np.ndarray] = {}
    for path, param in model.namedparams():
        *links, leaf = path.strip('/').split('/')
        arrays['.'.join([*links, renamed[leaf]])] = param.array
    for path, link in model.namedlinks(skipself=True):
        if isinstance(link, L.BatchNormalization):
            prefix = path.strip('/').replace('/', '.')
            arrays[f'{prefix}.running_mean'] = link.avg_mean
            arrays[f'{prefix}.running_var'] = link.avg_var
    return arrays


@functools.cache
def _torch_model(name: str) -> Any:
    import _zoo_torch

    return _zoo_torch.load_arrays(_zoo_torch.build(name), _catena_arrays(_catena_model(name)))


def _ideep_unavailable_reason() -> str | None:
    """Why the intel64 variants cannot run here, or None when they can."""
    if importlib.util.find_spec('catena_intel64') is None:
        return 'catena-intel64 is not installed (pip install ./packages/backend-intel64)'
    import catena.backends.intel64

    try:
        catena.backends.intel64.check_ideep_available()
    except RuntimeError as error:
        return str(error)
    return None


def _limit_openmp_threads() -> None:
    """Holds the OpenMP runtime that oneDNN loaded to one thread, like the other sides."""
    try:
        import threadpoolctl  # type: ignore[import-untyped]
    except ImportError:
        return  # run.py has said that thread counts are left at their defaults
    threadpoolctl.threadpool_limits(1, user_api='openmp')


def _catena_forward(name: str, batch: int, use_ideep: str,
                    layers: list[str]) -> Callable[[], dict[str, Any]]:
    import catena

    model = _catena_model(name)
    if use_ideep != 'never':
        import catena.backends.intel64

        catena.backends.intel64.check_ideep_available()  # loads oneDNN and its OpenMP
        _limit_openmp_threads()
    x = _input(batch)

    def run() -> dict[str, Any]:
        with catena.using_config('train', False), catena.no_backprop_mode(), \
                catena.using_config('use_ideep', use_ideep):
            return model(x, layers=layers)  # type: ignore[no-any-return]

    return run


def catena_factory(name: str, batch: int, use_ideep: str) -> Callable[[], Callable[[], Any]]:
    def factory() -> Callable[[], Any]:
        return _catena_forward(name, batch, use_ideep, ['prob'])

    return factory


def torch_factory(name: str, batch: int) -> Callable[[], Callable[[], Any]]:
    def factory() -> Callable[[], Any]:
        import torch

        torch.set_num_threads(1)
        model = _torch_model(name)
        x = torch.from_numpy(_input(batch))

        def run() -> Any:
            with torch.no_grad():
                return model(x)

        return run

    return factory


@functools.cache
def _torch_outputs(name: str, batch: int) -> tuple[np.ndarray, np.ndarray]:
    import torch

    torch.set_num_threads(1)
    with torch.no_grad():
        out = _torch_model(name).forward_layers(torch.from_numpy(_input(batch)))
    return out['logits'].numpy(), out['prob'].numpy()


def check_factory(name: str, batch: int, use_ideep: str) -> Callable[[], str]:
    def check() -> str:
        layer = LOGITS_LAYER[name]
        out = _catena_forward(name, batch, use_ideep, [layer, 'prob'])()
        logits, prob = np.asarray(out[layer].array), np.asarray(out['prob'].array)
        expected_logits, expected_prob = _torch_outputs(name, batch)
        if logits.shape != expected_logits.shape or prob.shape != expected_prob.shape:
            raise AssertionError(f'{name}: catena {logits.shape}/{prob.shape}, '
                                 f'torch {expected_logits.shape}/{expected_prob.shape}')
        scale = float(np.abs(expected_logits).max())
        error = float(np.abs(logits - expected_logits).max()) / scale
        if not error <= LOGITS_TOLERANCE:
            raise AssertionError(f'{name} {layer}: max |catena - torch| is {error:.3g} of '
                                 f'max |torch| = {scale:.3g} (tolerance {LOGITS_TOLERANCE:g})')
        np.testing.assert_allclose(prob, expected_prob, rtol=PROB_RTOL, atol=PROB_ATOL,
                                   err_msg=f'{name} prob')
        prob_error = float(np.abs(prob - expected_prob).max())
        return (f'{layer}: max |diff| = {error:.2g} of max |torch| ({scale:.2g}); '
                f'prob: max |diff| = {prob_error:.2g}')

    return check


def cases() -> list[dict[str, Any]]:
    variants = [('generic', 'never')]
    reason = _ideep_unavailable_reason()
    if reason is None:
        variants.append(('intel64', 'always'))
    else:
        print(f'bench_zoo: the zoo/*/intel64 cases are skipped: {reason}')
    return [
        {
            "name": f"zoo/{name}/batch{batch}/{variant}",
            "ops": 1,
            "target": None,
            "catena": catena_factory(name, batch, use_ideep),
            "torch": torch_factory(name, batch),
            "check": check_factory(name, batch, use_ideep),
        }
        for name in MODELS
        for batch in BATCHES
        for variant, use_ideep in variants
    ]
