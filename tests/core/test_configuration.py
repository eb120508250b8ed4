import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import catena
from catena import configuration


def run_python(code, **env):
    environ = {k: v for k, v in os.environ.items()
               if not k.startswith(('CATENA_', 'CHAINER_'))}
    environ.update(env)
    result = subprocess.run([sys.executable, '-c', code], env=environ, capture_output=True,
                            text=True, check=False)
    return result


CHAINER_KEYS = {
    'autotune': False, 'cudnn_deterministic': False, 'cudnn_fast_batch_normalization': False,
    'debug': False, 'dtype': np.dtype(np.float32), 'enable_backprop': True,
    'in_recomputing': False, 'keep_graph_on_report': False, 'lazy_grad_sum': False,
    'train': True, 'type_check': True, 'use_cudnn': 'auto', 'use_cudnn_tensor_core': 'auto',
    'use_ideep': 'auto', 'use_static_graph': True, 'warn_nondeterministic': False,
    'schedule_func': None, 'compute_mode': None,
}


def test_every_chainer_key_has_its_default():
    for key, default in CHAINER_KEYS.items():
        assert getattr(catena.global_config, key) == default, key


def test_using_config_is_thread_local_and_restores():
    seen = {}
    with catena.using_config('train', False):
        thread = threading.Thread(target=lambda: seen.update(train=catena.config.train))
        thread.start()
        thread.join()
        assert catena.config.train is False
    assert seen == {'train': True}
    assert catena.config.train is True


def test_using_config_restores_on_error():
    with pytest.raises(RuntimeError):
        with catena.using_config('debug', True):
            raise RuntimeError
    assert catena.config.debug is False


def test_nested_using_config():
    with catena.using_config('train', False):
        with catena.using_config('train', True):
            assert catena.config.train
        assert not catena.config.train


def test_global_change_is_seen_unless_overridden_locally():
    catena.global_config.user_flag = 1
    try:
        assert catena.config.user_flag == 1
        with catena.using_config('user_flag', 2):
            assert catena.config.user_flag == 2
            catena.global_config.user_flag = 3
            assert catena.config.user_flag == 2
        assert catena.config.user_flag == 3
    finally:
        del catena.global_config.user_flag
    with pytest.raises(AttributeError, match='user_flag'):
        catena.config.user_flag


def test_user_config_objects():
    mine = configuration.GlobalConfig('mine')
    mine.x = 1
    local = configuration.LocalConfig(mine)
    assert local.x == 1
    with catena.using_config('x', 2, local):
        assert local.x == 2
    assert local.x == 1
    assert not hasattr(catena.config, 'x')


def test_show_lists_keys(capsys):
    catena.config.show()
    out = capsys.readouterr().out
    assert 'enable_backprop' in out and 'use_ideep' in out


def test_get_dtype_and_mixed16():
    assert catena.get_dtype() == np.float32
    with catena.using_config('dtype', catena.mixed16):
        assert catena.get_dtype() == np.float16
        assert catena.get_dtype(map_mixed16=np.float32) == np.float32
    assert catena.get_dtype(np.float64) == np.float64


@pytest.mark.parametrize('prefix', ['CATENA_', 'CHAINER_'])
def test_environment_variables(prefix):
    code = ('import catena; c = catena.config; '
            'print(c.debug, c.dtype, c.type_check, c.use_cudnn, c.use_ideep, '
            'c.keep_graph_on_report, c.lazy_grad_sum, c.cudnn_fast_batch_normalization)')
    result = run_python(code, **{prefix + 'DEBUG': '1', prefix + 'DTYPE': 'float64',
                                 prefix + 'TYPE_CHECK': '0', prefix + 'USE_CUDNN': 'never',
                                 prefix + 'USE_IDEEP': 'always',
                                 prefix + 'KEEP_GRAPH_ON_REPORT': '1',
                                 prefix + 'LAZY_GRAD_SUM': '1',
                                 prefix + 'CUDNN_FAST_BATCH_NORMALIZATION': '1'})
    assert result.returncode == 0, result.stderr
    assert result.stdout.split() == ['True', 'float64', 'False', 'never', 'always', 'True',
                                     'True', 'True']


def test_catena_spelling_wins_and_mixed16():
    result = run_python('import catena; print(catena.config.dtype)',
                        CATENA_DTYPE='mixed16', CHAINER_DTYPE='float64')
    assert result.stdout.strip() == 'mixed16', result.stderr


def test_bad_environment_value_names_the_variable():
    result = run_python('import catena', CATENA_USE_CUDNN='sometimes')
    assert result.returncode != 0
    assert 'CATENA_USE_CUDNN' in result.stderr and 'sometimes' in result.stderr


def test_debug_helpers():
    assert not catena.is_debug()
    catena.set_debug(True)
    try:
        assert catena.is_debug() and catena.config.debug
    finally:
        catena.set_debug(False)


def test_show_prints_values_with_str_in_aligned_columns():
    import io

    global_config = configuration.GlobalConfig()
    global_config.x = 'global x'
    global_config.abc = 1
    local = configuration.LocalConfig(global_config)
    local.y = 'local y'
    out = io.StringIO()
    local.show(out)
    assert out.getvalue() == 'abc 1\nx   global x\ny   local y\n'


def test_deleting_a_key_without_a_thread_local_value_raises():
    global_config = configuration.GlobalConfig()
    global_config.x = 'global x'
    local = configuration.LocalConfig(global_config)
    local.x = 'local x'
    del local.x
    assert local.x == 'global x'
    with pytest.raises(AttributeError, match='thread-local'):
        del local.x
