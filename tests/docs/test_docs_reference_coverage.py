"""The API reference (docs/reference) documents every public name.

The public surface of a distribution is the ``__all__`` of each of its public
packages (no part of the dotted path starts with an underscore), plus the
``__all__`` of the public modules that Chainer documents on their own
(``MODULES``); names that start with an underscore are left out. A name is
documented when the reference names it (an ``autosummary`` entry or an
``auto*``/``py:*`` directive, under the module in force), or when the object
it names is documented under another public path (``catena.Variable``
documents ``catena.variable.Variable``). A module in an ``__all__`` is
documented by a ``py:module`` or ``automodule`` directive.

The reference is read as text, so these tests need no Sphinx and take well
under a second; ``nox -s docs`` builds the pages with ``-W`` on top.
"""

from __future__ import annotations

import importlib
import pathlib
import pkgutil
import re
import types
from typing import Any

import pytest

REFERENCE = pathlib.Path(__file__).resolve().parents[2] / "docs" / "reference"

DISTRIBUTIONS = ["catena", "catena_onnx", "catena_zoo", "catena_cuda", "catena_intel64"]

# Public modules (not packages) whose ``__all__`` is part of the surface.
MODULES = {
    "catena": ["catena.backend", "catena.computational_graph", "catena.dataset.convert",
               "catena.gradient_check", "catena.initializer", "catena.memory_layouts",
               "catena.reporter", "catena.serializer",
               "catena.training.extensions.snapshot_writers", "catena.utils.type_check",
               "catena.variable"],
    "catena_onnx": ["catena_onnx.export"],
    "catena_zoo": ["catena_zoo.exporters.caffe", "catena_zoo.models.googlenet",
                   "catena_zoo.models.resnet", "catena_zoo.models.vgg"],
    "catena_cuda": ["catena_cuda.function_hooks"],
    "catena_intel64": ["catena_intel64.report"],
}

# Values that are equal by identity by accident (False, 0, '') never stand
# for one another: such a name must be documented under its own path.
SCALARS = (bool, int, float, complex, str, bytes, type(None))

_DIRECTIVE = re.compile(r"^\s*\.\. (?:py:)?(\w+):: *(\S*)")
_OBJECT_DIRECTIVES = {"autoclass", "autofunction", "autodata", "autoexception", "class",
                      "function", "data", "exception", "decorator"}


def _reference_text() -> list[tuple[str, str]]:
    return [(path.name, path.read_text()) for path in sorted(REFERENCE.glob("*.rst"))]


def documented() -> tuple[set[str], set[str]]:
    """The full names the reference documents, and the modules it declares."""
    names: set[str] = set()
    modules: set[str] = set()
    for _, text in _reference_text():
        current = ""
        in_autosummary = False
        for line in text.splitlines():
            match = _DIRECTIVE.match(line)
            if match:
                directive, argument = match.groups()
                in_autosummary = directive == "autosummary"
                if directive in ("currentmodule", "module", "automodule"):
                    current = argument
                    if directive != "currentmodule":
                        modules.add(argument)
                elif directive in _OBJECT_DIRECTIVES:
                    names.add(argument if "." in argument else f"{current}.{argument}")
                continue
            if in_autosummary:
                entry = line.strip()
                if not entry or entry.startswith(":"):
                    continue
                if not line.startswith("   "):
                    in_autosummary = False
                    continue
                names.add(f"{current}.{entry.lstrip('~')}")
    return names, modules


def resolve(full_name: str) -> Any:
    """The object a dotted name stands for, as ``from package import name`` finds it.

    Attributes win over submodules of the same name (``catena.distributions.
    kl_divergence`` is the function, not its module); a module an attribute
    hides (``catena_onnx.export``, the module) is found through the import system.
    """
    parts = full_name.split(".")
    try:
        obj: Any = importlib.import_module(parts[0])
        for index, attr in enumerate(parts[1:], start=1):
            try:
                obj = getattr(obj, attr)
            except AttributeError:
                obj = importlib.import_module(".".join(parts[:index + 1]))
        return obj
    except ImportError:
        pass
    for split in range(len(parts) - 1, 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:split]))
        except ImportError:
            continue
        for attr in parts[split:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(full_name)


def public_modules(root: str) -> list[str]:
    package = importlib.import_module(root)
    found = [root]
    for info in pkgutil.walk_packages(package.__path__, root + "."):
        if info.ispkg and not any(part.startswith("_") for part in info.name.split(".")):
            found.append(info.name)
    return found + MODULES[root]


def surface(root: str) -> list[tuple[str, str, Any]]:
    """(module, name, object) for every public name of a distribution."""
    entries = []
    for module_name in public_modules(root):
        module = importlib.import_module(module_name)
        for name in getattr(module, "__all__", ()):
            if name.startswith("_"):
                continue
            try:
                obj = getattr(module, name)
            except ImportError:
                continue  # provided by a plugin distribution that is not installed
            entries.append((module_name, name, obj))
    return entries


@pytest.fixture(scope="module")
def reference() -> tuple[set[str], set[str], set[int]]:
    names, modules = documented()
    ids = set()
    for full_name in names:
        try:
            ids.add(id(resolve(full_name)))
        except (ImportError, AttributeError):
            pass  # reported by test_every_documented_name_exists
    return names, modules, ids


@pytest.mark.parametrize("root", DISTRIBUTIONS)
def test_every_public_name_is_documented(root: str, reference: Any) -> None:
    pytest.importorskip(root)
    names, modules, ids = reference
    missing = []
    for module_name, name, obj in surface(root):
        if isinstance(obj, types.ModuleType):
            if obj.__name__ not in modules:
                missing.append(f"{module_name}.{name} (module {obj.__name__})")
        elif f"{module_name}.{name}" not in names and (
                isinstance(obj, SCALARS) or id(obj) not in ids):
            missing.append(f"{module_name}.{name}")
    assert not missing, (f"{len(missing)} public names of {root} are not in docs/reference: "
                         + ", ".join(sorted(missing)))


def test_every_documented_name_exists() -> None:
    names, _ = documented()
    stale = []
    for full_name in sorted(names):
        if full_name.split(".")[0] not in DISTRIBUTIONS:
            continue
        try:
            importlib.import_module(full_name.split(".")[0])
        except ImportError:
            continue
        try:
            resolve(full_name)
        except (ImportError, AttributeError):
            stale.append(full_name)
    assert not stale, f"docs/reference names what does not exist: {stale}"


def test_the_reader_sees_the_reference() -> None:
    # Guards the parser above: were it to read nothing, every check would pass.
    names, modules = documented()
    assert {"catena.Variable", "catena.functions.relu", "catena.links.Linear",
            "catena.training.extensions.LogReport"} <= names
    assert {"catena", "catena.functions", "catena.distributed"} <= modules


def test_every_configuration_key_is_documented() -> None:
    from catena import _config_keys

    page = (REFERENCE / "configuration.rst").read_text()
    missing = [key.name for key in _config_keys.CORE_KEYS
               if not key.name.startswith("_") and f"``{key.name}``" not in page]
    missing += [f"CATENA_{key.env}" for key in _config_keys.CORE_KEYS
                if key.env is not None and f"``CATENA_{key.env}``" not in page]
    assert not missing, f"docs/reference/configuration.rst lacks {missing}"
