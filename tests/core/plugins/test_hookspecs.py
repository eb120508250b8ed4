"""Meta-tests: every hook specification is documented, listed in docs/plugins.md and tested."""

import inspect
import pathlib
import re

import pluggy
import pytest

from catena.plugins import PROJECT_NAME, hookspecs

REPO = pathlib.Path(__file__).resolve().parents[3]
DOCS = REPO / 'docs' / 'plugins.md'
TESTS = REPO / 'tests'


def _hookspecs():
    specs = []
    for name, function in inspect.getmembers(hookspecs, inspect.isfunction):
        options = getattr(function, f'{PROJECT_NAME}_spec', None)
        if options is not None:
            specs.append(pytest.param(name, function, options, id=name))
    return specs


HOOKSPECS = _hookspecs()


def signature_text(name, function):
    """``name(arg: annotation, ...) -> annotation``, as written in the source."""
    signature = inspect.signature(function)

    def annotation(value):
        return value if isinstance(value, str) else inspect.formatannotation(value)

    params = []
    for param in signature.parameters.values():
        text = param.name
        if param.annotation is not inspect.Parameter.empty:
            text += f': {annotation(param.annotation)}'
        params.append(text)
    text = f'{name}({", ".join(params)})'
    if signature.return_annotation is not inspect.Signature.empty:
        text += f' -> {annotation(signature.return_annotation)}'
    return text


def test_there_are_hookspecs():
    assert len(HOOKSPECS) >= 9


@pytest.mark.parametrize('name,function,options', HOOKSPECS)
def test_hookspec_is_prefixed_and_typed(name, function, options):
    assert name.startswith('catena_')
    signature = inspect.signature(function)
    assert signature.return_annotation is not inspect.Signature.empty, \
        f'{name} has no return annotation'
    for param in signature.parameters.values():
        assert param.annotation is not inspect.Parameter.empty, \
            f'{name}: parameter {param.name!r} has no annotation'


@pytest.mark.parametrize('name,function,options', HOOKSPECS)
def test_hookspec_docstring_documents_params_and_return(name, function, options):
    doc = inspect.getdoc(function)
    assert doc, f'hookspec {name} has no docstring'
    for param in inspect.signature(function).parameters:
        assert re.search(rf':param {param}:', doc), \
            f'the docstring of {name} does not document its parameter {param!r} ' \
            f'(:param {param}:)'
    says_nothing_returned = re.search(r'returns nothing|:returns?: *(nothing|none)\b', doc,
                                      re.I)
    assert ':return:' in doc or ':returns:' in doc or says_nothing_returned, \
        f'the docstring of {name} documents no return value (":return: ..." or "Returns nothing")'
    if options.get('firstresult'):
        assert 'first' in doc.lower(), f'{name} is firstresult but its docstring does not say so'
    if options.get('historic'):
        assert 'historic' in doc.lower(), f'{name} is historic but its docstring does not say so'


@pytest.mark.parametrize('name,function,options', HOOKSPECS)
def test_hookspec_is_in_docs_with_its_exact_signature(name, function, options):
    docs = DOCS.read_text(encoding='utf-8')
    expected = signature_text(name, function)
    assert expected in docs, (
        f'docs/plugins.md does not show the hook {name} with its exact signature\n'
        f'Expect: {expected}\n'
        f'Actual: {[line for line in docs.splitlines() if name + "(" in line] or "(absent)"}')


@pytest.mark.parametrize('name,function,options', HOOKSPECS)
def test_hookspec_has_a_test(name, function, options):
    pattern = re.compile(rf'^\s*def test_hook_{name}\b', re.M)
    for path in TESTS.rglob('test_*.py'):
        if pattern.search(path.read_text(encoding='utf-8')):
            return
    pytest.fail(f'no test function test_hook_{name} under tests/')


def test_docs_mention_no_unknown_hook():
    """A hook removed from hookspecs.py must leave the docs too."""
    documented = set(re.findall(r'^#+ `(catena_\w+)\(', DOCS.read_text(encoding='utf-8'), re.M))
    assert documented == {param.values[0] for param in HOOKSPECS}


def test_signature_text():
    def sample(pluginmanager: 'pluggy.PluginManager', n: int) -> 'list[str]':
        """"""

    assert pluggy.PluginManager  # the annotation names a real class

    assert signature_text('sample', sample) == \
        'sample(pluginmanager: pluggy.PluginManager, n: int) -> list[str]'
