"""Builds catena's compiled engine; pyproject.toml holds everything else.

The extension is optional: where it does not compile (no C compiler, no
NumPy headers), catena installs with its pure-Python engine, and
``python -m catena info`` says which engine runs and why.
"""

from setuptools import Extension, setup


def _extensions() -> list[Extension]:
    try:
        import numpy
    except ImportError:  # a build without isolation and without NumPy
        return []
    return [Extension('catena._cengine', ['src/catena/_cengine.c'],
                      include_dirs=[numpy.get_include()], optional=True)]


setup(ext_modules=_extensions())
