"""catena-zoo's hook implementations (nothing heavy is imported here)."""

from __future__ import annotations

from typing import Any

from catena.plugins import hookimpl


@hookimpl
def catena_addhooks(pluginmanager: Any) -> None:
    from catena_zoo import hookspecs

    pluginmanager.add_hookspecs(hookspecs)


@hookimpl
def catena_register_links() -> dict[str, Any]:
    from catena_zoo import caffe, models

    return {**models.LINKS, 'caffe': caffe}


@hookimpl
def catena_register_link_modules() -> dict[str, Any]:
    from catena_zoo import caffe, models
    from catena_zoo.caffe import caffe_function

    return {'caffe': caffe, 'caffe.caffe_function': caffe_function, 'model.vision': models,
            'model.vision.googlenet': models.googlenet, 'model.vision.resnet': models.resnet,
            'model.vision.vgg': models.vgg}


@hookimpl
def catena_register_exporters() -> dict[str, Any]:
    from catena_zoo.exporters import caffe

    return {'caffe': caffe}


@hookimpl
def catena_runtime_info() -> list[str]:
    from catena_zoo import __version__

    return [f'catena-zoo {__version__}: VGG16/19, ResNet-50/101/152 and GoogLeNet '
            "(pretrained_model='auto' fetches and converts the published Caffe weights); "
            'Caffe import (CaffeFunction) and export (catena.exporters.caffe)']
