"""Sphinx configuration for catena's documentation.

``python3 -m nox -s docs`` builds the site into ``docs/_build/html`` and runs
the guides' examples. By hand, from the repository root, with the packages
and the tools of that session installed::

    python -m sphinx -W --keep-going -d docs/_build/doctrees -b html docs docs/_build/html
    python -m sphinx -W --keep-going -d docs/_build/doctrees -b doctest docs docs/_build/doctest

The build needs no network: intersphinx reads inventories from local files
only (``docs/_inventories``, then the Debian ``python3.11-doc`` copy), and a
mapping with no local inventory is left out unless
``CATENA_DOCS_INTERSPHINX=online`` is set.
"""

from __future__ import annotations

import inspect
import os
import pathlib
import re

import catena

DOCS = pathlib.Path(__file__).resolve().parent

project = "catena"
author = "the catena authors"
copyright = "the catena authors"
release = catena.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.doctest",
    "sphinx.ext.intersphinx",
    "sphinx.ext.mathjax",
    "sphinx.ext.napoleon",
    "myst_parser",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "_inventories"]

# -- autodoc / autosummary / napoleon -----------------------------------------

# The reference pages hold autodoc entries themselves: autosummary only makes
# their tables (a page per name would put ~800 entries in every page's sidebar).
autosummary_generate = False
autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
python_use_unqualified_type_names = True
autodoc_class_signature = "mixed"
# Docstrings follow Chainer's (Google) style.
napoleon_google_docstring = True
napoleon_numpy_docstring = False
# "Attributes:" sections become fields, so that an attribute also documented
# as a member is not described twice.
napoleon_use_ivar = True
napoleon_custom_sections = [("Example", "example")]

# catena-cuda is documented without CuPy: its modules import CuPy lazily, and
# these mocks cover any module-level import of the GPU stack.
autodoc_mock_imports = ["cupy", "cupyx", "cupy_backends", "cudnn", "nccl"]

# -- doctest ------------------------------------------------------------------

# The guides' examples run in the doctest builder; the docstring examples of
# the reference run in the ``tests`` nox session (pytest --doctest-modules).
doctest_test_doctest_blocks = ""
doctest_global_setup = """
import numpy as np
import catena
import catena.functions as F
import catena.links as L
np.random.seed(0)
"""

# -- intersphinx (never the network unless asked) ------------------------------

INTERSPHINX = {
    "python": ("https://docs.python.org/3",
               [DOCS / "_inventories" / "python.inv",
                pathlib.Path("/usr/share/doc/python3.11/html/objects.inv"),
                pathlib.Path("/usr/share/doc/python3/html/objects.inv")]),
    "numpy": ("https://numpy.org/doc/stable",
              [DOCS / "_inventories" / "numpy.inv"]),
}


def _intersphinx_mapping() -> dict[str, tuple[str, str | None]]:
    online = os.environ.get("CATENA_DOCS_INTERSPHINX") == "online"
    mapping: dict[str, tuple[str, str | None]] = {}
    for name, (url, candidates) in INTERSPHINX.items():
        local = next((str(path) for path in candidates if path.is_file()), None)
        if local is not None or online:
            mapping[name] = (url, local)
    return mapping


intersphinx_mapping = _intersphinx_mapping()

# -- MyST (the Markdown pages: compat.md, plugins.md, loading-safety.md) -------

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3
# The Markdown pages link to source files of the repository (../packages/...),
# which are not pages of the site; MyST reports those links as missing.
suppress_warnings = ["myst.xref_missing"]

# -- HTML ---------------------------------------------------------------------

html_theme = "furo"
html_title = f"catena {release}"
html_static_path: list[str] = []
html_show_sourcelink = False


# -- hooks --------------------------------------------------------------------


def _drop_type_docstring(app, what, name, obj, options, lines):
    """Drops the docstring a constant only inherits from its type (dict, dtype, ...)."""
    if what in ("data", "attribute") and not isinstance(obj, type):
        inherited = getattr(type(obj), "__doc__", None)
        if inherited and lines and "\n".join(lines).strip() == inspect.cleandoc(inherited):
            lines.clear()


# A type written ``Variable`` in a docstring means catena.Variable, never
# catena.utils.type_check.Variable (which would make the reference ambiguous).
_TYPE_FIELD = re.compile(r"^(\s*:(?:rtype|type [^:]+|vartype [^:]+):)(.*)$")
_BARE_VARIABLE = re.compile(r"(?<![\w.~`])Variable(?![\w.])")


def _qualify_variable(app, what, name, obj, options, lines):
    for index, line in enumerate(lines):
        match = _TYPE_FIELD.match(line)
        if match:
            head, types_ = match.groups()
            lines[index] = head + _BARE_VARIABLE.sub("~catena.Variable", types_)


def setup(app):
    # Connected after napoleon's handler, so these see the converted fields.
    app.connect("autodoc-process-docstring", _drop_type_docstring)
    app.connect("autodoc-process-docstring", _qualify_variable)
