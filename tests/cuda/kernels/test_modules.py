"""Every kernel module of catena-cuda is listed, importable and registers real classes."""

import importlib
import pathlib

import pytest

from catena import FunctionNode
from catena.optimizer import UpdateRule

kernels = pytest.importorskip('catena_cuda.kernels')

KERNEL_ROOT = pathlib.Path(kernels.__file__).parent


def _modules_on_disk():
    found = set()
    for path in KERNEL_ROOT.rglob('*.py'):
        relative = path.relative_to(KERNEL_ROOT).with_suffix('')
        if any(part.startswith('_') for part in relative.parts):
            continue
        found.add('.'.join(relative.parts))
    return found


def test_every_module_on_disk_is_listed():
    assert set(kernels.MODULES) == _modules_on_disk()


@pytest.mark.parametrize('name', kernels.MODULES)
def test_module_registers_exact_core_classes(name):
    module = importlib.import_module(f'catena_cuda.kernels.{name}')
    registrations = module.registrations()
    assert registrations, f'{name} registers nothing'
    for node_class, forward in registrations:
        assert issubclass(node_class, (FunctionNode, UpdateRule))
        assert callable(forward)
    assert getattr(module, 'CONFIG_KEY', 'use_cudnn') in ('use_cudnn', 'use_cupy_kernels')


def test_all_kernels_have_unique_classes():
    records = kernels.all_kernels()
    classes = [record.function_node for record in records]
    assert len(classes) == len(set(classes))
    assert {record.config_key for record in records} == {'use_cudnn', 'use_cupy_kernels'}
