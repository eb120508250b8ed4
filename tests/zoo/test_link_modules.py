"""Chainer's module paths under catena.links that catena-zoo provides."""

import importlib
import importlib.util
import subprocess
import sys
import textwrap

import pytest

import catena_zoo.caffe
import catena_zoo.models
from catena_zoo.caffe import _schema, caffe_function
from catena_zoo.models import googlenet, resnet, vgg


@pytest.mark.parametrize('path, module', [
    ('catena.links.caffe', catena_zoo.caffe),
    ('catena.links.caffe.caffe_function', caffe_function),
    ('catena.links.model.vision', catena_zoo.models),
    ('catena.links.model.vision.resnet', resnet),
    ('catena.links.model.vision.vgg', vgg),
    ('catena.links.model.vision.googlenet', googlenet),
])
def test_chainer_module_path_is_the_zoo_module(path, module):
    assert importlib.import_module(path) is module


def test_from_imports_give_the_zoo_objects():
    from catena.links import caffe
    from catena.links.caffe.caffe_function import caffe_pb
    from catena.links.model.vision import googlenet as g, resnet as r, vgg as v

    assert caffe.CaffeFunction is caffe_function.CaffeFunction
    assert caffe_pb is _schema
    assert caffe_pb.NetParameter().SerializeToString() == b''
    assert (g.GoogLeNet, r.ResNet50Layers, v.VGG16Layers) == (
        googlenet.GoogLeNet, resnet.ResNet50Layers, vgg.VGG16Layers)


@pytest.mark.parametrize('module', [googlenet, resnet, vgg])
def test_available_tells_whether_pillow_is_installed(module):
    assert module.available is (importlib.util.find_spec('PIL') is not None)


def test_module_paths_load_in_a_fresh_process():
    code = textwrap.dedent('''
        import sys
        from catena.links.model.vision import resnet
        import catena.links.caffe.caffe_function as cf
        assert resnet.__name__ == 'catena_zoo.models.resnet', resnet.__name__
        assert cf.__name__ == 'catena_zoo.caffe.caffe_function', cf.__name__
        assert sys.modules['catena.links.model.vision.resnet'] is resnet
    ''')
    result = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
