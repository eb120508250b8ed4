"""Builds catena's C extensions; pyproject.toml holds everything else.

``catena._cengine`` is the compiled engine, ``catena._cpool`` the pool that
keeps freed large NumPy buffers for reuse, ``catena._cupdate`` the one-pass
optimizer steps, ``catena._cnorm`` batch normalization's per-channel loops,
``catena._cpooling`` 2-D max pooling's gradient.
All are optional: where they do not compile (no C compiler, no NumPy
headers), catena installs with its pure-Python engine, NumPy's own allocator
and NumPy code throughout, and ``python -m catena info`` says which run and
why.
"""

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class _BuildExt(build_ext):
    def build_extensions(self) -> None:
        if self.compiler.compiler_type == 'unix':
            # catena._cupdate rounds after each operation, as NumPy does, and
            # its square roots need no errno.
            for extension in self.extensions:
                extension.extra_compile_args += ['-ffp-contract=off', '-fno-math-errno']
        super().build_extensions()


def _extensions() -> list[Extension]:
    try:
        import numpy
    except ImportError:  # a build without isolation and without NumPy
        return []
    return [Extension(f'catena.{name}', [f'src/catena/{name}.c'],
                      include_dirs=[numpy.get_include()], optional=True)
            for name in ('_cengine', '_cpool', '_cupdate', '_cnorm', '_cpooling')]


setup(ext_modules=_extensions(), cmdclass={'build_ext': _BuildExt})
