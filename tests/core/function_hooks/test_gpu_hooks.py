"""The GPU hooks of catena.function_hooks are served by catena-cuda, if installed."""

import subprocess
import sys

import pytest

import catena.function_hooks


@pytest.mark.parametrize('name', ['CupyMemoryProfileHook', 'CUDAProfileHook'])
def test_gpu_hooks_without_catena_cuda_name_the_package(name):
    code = (f'import catena.function_hooks as h\n'
            f'try:\n    h.{name}\n'
            f'except AttributeError as error:\n    print(error)\n'
            f'else:\n    print("served")\n')
    result = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                            env={'CATENA_DISABLE_PLUGIN_AUTOLOAD': '1', 'PATH': ''},
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert 'catena-cuda' in result.stdout and name in result.stdout


def test_unknown_names_are_attribute_errors():
    with pytest.raises(AttributeError, match='NoSuchHook'):
        catena.function_hooks.NoSuchHook  # noqa: B018
    assert not hasattr(catena.function_hooks, 'NoSuchHook')
