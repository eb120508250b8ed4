"""The kernel specs as data (names, parameters, bodies) and how ``_elementwise`` builds them."""

from __future__ import annotations

import re
from typing import Any

import numpy
import pytest
from tests.cuda.kernels import _c_body, _support

from catena.function_node import FunctionNode
from catena.optimizer import UpdateRule

catena_cuda = pytest.importorskip('catena_cuda')

from catena_cuda.kernels import _common, _elementwise  # noqa: E402
from catena_cuda.kernels._elementwise import Launch, Spec  # noqa: E402

SPECS = _support.all_specs()
DTYPES = [numpy.float16, numpy.float32, numpy.float64]


def _work(dtype: Any) -> numpy.dtype:
    return numpy.dtype(numpy.float32 if dtype == numpy.float16 else dtype)


def _program(spec: Spec) -> _c_body.Program:
    typedefs = ('W',) if spec.uses_work_type else ()
    return _c_body.Program(spec.in_params, spec.out_params, spec.body, typedefs)


# ---------------------------------------------------------------------------
# The specs
# ---------------------------------------------------------------------------

def test_kernel_names_are_unique_c_identifiers() -> None:
    names = [spec.name for spec in SPECS]
    assert len(names) == len(set(names))
    for name in names:
        assert re.fullmatch(r'catena_[a-z0-9_]+', name), name


@pytest.mark.parametrize('spec', SPECS, ids=lambda s: s.name)
def test_parameters_agree_with_the_body(spec: Spec) -> None:
    program = _program(spec)  # raises on undeclared names, unwritten outputs, writes to inputs
    inputs = {name for _, name in program.inputs}
    assert inputs <= program.reads, f'unused inputs: {inputs - program.reads}'
    for type_name, _ in program.inputs + program.outputs:
        assert type_name in ('T', 'W'), type_name
    assert all(type_name == 'T' for type_name, _ in program.outputs)
    assert spec.parameters() == program.inputs + program.outputs


@pytest.mark.parametrize('dtype', DTYPES, ids=lambda t: numpy.dtype(t).name)
@pytest.mark.parametrize('spec', SPECS, ids=lambda s: s.name)
def test_every_body_type_checks_in_every_dtype(spec: Spec, dtype: Any) -> None:
    # With float16, any expression doing two operations, or mixing types, is refused.
    program = _program(spec)
    rng = numpy.random.default_rng(0)
    work = _work(dtype)
    inputs = tuple(rng.uniform(0.5, 1.0, 6).astype(dtype) if t == 'T' else work.type(0.5)
                   for t, _ in program.inputs)
    outputs = tuple(rng.uniform(0.5, 1.0, 6).astype(dtype) for _ in program.outputs)
    types = {'W': work} if spec.uses_work_type else None
    results = program.run(inputs, outputs, types)
    assert all(result.dtype == dtype for result in results)


@pytest.mark.parametrize('name', _support.MODULES)
def test_modules_declare_their_config_key_and_registrations(name: str) -> None:
    module = _support.module(name)
    assert module.CONFIG_KEY == 'use_cupy_kernels'
    pairs = module.registrations()
    assert pairs
    for node_class, kernel in pairs:
        assert issubclass(node_class, (FunctionNode, UpdateRule))
        assert callable(kernel) and kernel.__doc__
    assert all(isinstance(spec, Spec) for spec in module.SPECS)


# ---------------------------------------------------------------------------
# Building and calling kernels (the GPU part, with a stand-in for CuPy)
# ---------------------------------------------------------------------------

def test_work_params_spell_the_work_type() -> None:
    text = 'T grad, W eps,W lr'
    assert _elementwise.work_params(text, numpy.dtype('float32')) == (
        'T grad, float32 eps, float32 lr')
    assert _elementwise.work_params(text, numpy.dtype('float64')) == (
        'T grad, float64 eps, float64 lr')
    assert _elementwise.work_params('T x, T y', None) == 'T x, T y'
    with pytest.raises(ValueError, match='work dtype'):
        _elementwise.work_params(text, None)


def test_preamble_names_the_work_type() -> None:
    mul = _elementwise.MUL_RN
    assert 'float mul_rn(float a, float b) { return __fmul_rn(a, b); }' in mul
    assert 'double mul_rn(double a, double b) { return __dmul_rn(a, b); }' in mul
    assert _elementwise.preamble(numpy.dtype('float32')) == mul + 'typedef float W;\n'
    assert _elementwise.preamble(numpy.dtype('float64')) == mul + 'typedef double W;\n'
    assert _elementwise.preamble(None) == mul
    with pytest.raises(ValueError, match='float32 or float64'):
        _elementwise.preamble(numpy.dtype('float16'))


class _FakeKernel:
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.args = args
        self.kwargs = kwargs
        self.calls: list[tuple[Any, ...]] = []

    def __call__(self, *args: Any) -> Any:
        self.calls.append(args)
        return 'result'


def test_kernel_and_run_pass_the_spec_to_cupy(monkeypatch: Any) -> None:
    made: list[_FakeKernel] = []

    def elementwise(*args: Any, **kwargs: Any) -> _FakeKernel:
        made.append(_FakeKernel(*args, **kwargs))
        return made[-1]

    monkeypatch.setattr(catena_cuda, 'elementwise', elementwise)
    spec = Spec('catena_test', 'T x, W w', 'T y', 'y = (T)mul_rn((W)x, w);')
    x = numpy.ones(2, numpy.float16)
    before = _common.calls['catena_test']
    launch = Launch(spec, (x, numpy.float32(2)), work=numpy.dtype('float32'))
    assert _elementwise.run(launch) == 'result'
    kernel, = made
    assert kernel.args == ('T x, float32 w', 'T y', spec.body, 'catena_test')
    assert kernel.kwargs == {'preamble': _elementwise.MUL_RN + 'typedef float W;\n'}
    assert kernel.calls == [(x, launch.inputs[1])]
    assert _common.calls['catena_test'] == before + 1
    # A spec without W gets no typedef even when a work dtype is given.
    plain = Spec('catena_test_plain', 'T x', 'T y', 'y = x;')
    _elementwise.kernel(plain, numpy.dtype('float32'))
    assert made[-1].args[0] == 'T x' and made[-1].kwargs == {'preamble': _elementwise.MUL_RN}


def test_outputs_are_passed_after_the_inputs(monkeypatch: Any) -> None:
    made: list[_FakeKernel] = []
    monkeypatch.setattr(catena_cuda, 'elementwise',
                        lambda *a, **k: made.append(_FakeKernel(*a, **k)) or made[-1])
    spec = Spec('catena_test_out', 'T g, T lr', 'T p', 'T s = mul_rn(g, lr);\np -= s;')
    g, p = numpy.ones(3), numpy.zeros(3)
    _elementwise.run(Launch(spec, (g, numpy.float64(0.1)), (p,)))
    assert made[0].calls[0][0] is g and made[0].calls[0][2] is p


class _Subclass(numpy.ndarray):
    pass


def test_same_arrays() -> None:
    a = numpy.zeros((2, 3), numpy.float32)
    assert _elementwise.same_arrays(a, a.copy(), numpy.ones((2, 3), numpy.float32))
    assert not _elementwise.same_arrays(a, None)
    assert not _elementwise.same_arrays(a, a.astype(numpy.float64))
    assert not _elementwise.same_arrays(a, a[:1])
    assert not _elementwise.same_arrays(a, a.view(_Subclass))


def test_spec_parameters() -> None:
    spec = Spec('k', 'T a, W b', 'T c, T d', 'c = a;\nd = a;')
    assert spec.parameters() == [('T', 'a'), ('W', 'b'), ('T', 'c'), ('T', 'd')]
    assert spec.uses_work_type
    assert not Spec('k', 'T a', 'T c', 'c = a;').uses_work_type
    with pytest.raises(ValueError, match='TYPE NAME'):
        Spec('k', 'T', 'T c', 'c = c;').parameters()


# ---------------------------------------------------------------------------
# GPU: every spec compiles and runs in every dtype
# ---------------------------------------------------------------------------

@pytest.mark.gpu
@pytest.mark.skipif(not catena_cuda.available, reason='needs CuPy and a CUDA GPU')
@pytest.mark.parametrize('dtype', DTYPES, ids=lambda t: numpy.dtype(t).name)
@pytest.mark.parametrize('spec', SPECS, ids=lambda s: s.name)
def test_gpu_every_spec_compiles_and_matches_the_interpreter(spec: Spec, dtype: Any) -> None:
    import cupy

    program = _program(spec)
    rng = numpy.random.default_rng(0)
    work = _work(dtype)
    inputs = tuple(rng.uniform(0.5, 1.0, 33).astype(dtype) if t == 'T' else work.type(0.5)
                   for t, _ in program.inputs)
    outputs = tuple(rng.uniform(0.5, 1.0, 33).astype(dtype) for _ in program.outputs)
    gpu_outputs = tuple(cupy.asarray(array) for array in outputs)
    gpu_inputs = tuple(cupy.asarray(a) if isinstance(a, numpy.ndarray) else a for a in inputs)
    launch = Launch(spec, gpu_inputs, gpu_outputs, work if spec.uses_work_type else None)
    _elementwise.run(launch)
    expected = program.run(inputs, outputs, {'W': work} if spec.uses_work_type else None)
    # CUDA's exp/expm1/tanh and NumPy's differ in their last bits.
    rtol = {numpy.float16: 2e-3, numpy.float32: 4e-6, numpy.float64: 1e-13}[dtype]
    for got, want in zip(gpu_outputs, expected):
        numpy.testing.assert_allclose(cupy.asnumpy(got), want, rtol=rtol)


# ---------------------------------------------------------------------------
# NVRTC (no GPU needed): every spec compiles as CuPy would compile it
# ---------------------------------------------------------------------------

def _cuda_source(spec: Spec, dtype: Any, body: str | None = None) -> tuple[str, list[str]]:
    """The CUDA source and NVRTC options CuPy would use for ``spec`` on ``dtype`` arrays.

    Built with CuPy's own (private) code generator; skips when CuPy's
    internals or the CUDA headers are not what this expects.
    """
    pytest.importorskip('cupy')
    try:
        import cupy
        from cupy._core import _carray, _kernel, _scalar, core

        dtype = numpy.dtype(dtype)
        work = _work(dtype) if spec.uses_work_type else None
        in_params = _elementwise.work_params(spec.in_params, work)
        out_params = _elementwise.work_params(spec.out_params, work)
        ins = _kernel._get_param_info(in_params, True)
        outs = _kernel._get_param_info(out_params, False)
        infos = [_kernel._ArgInfo(1, cupy.ndarray, dtype, 1, True, True)
                 if p.name in _support.ARRAY_INPUTS
                 else _kernel._ArgInfo(3, _scalar.CScalar, p.dtype or dtype, 0, True, True)
                 for p in ins]
        infos += [_kernel._ArgInfo(1, cupy.ndarray, dtype, 1, True, True) for _ in outs]
        infos.append(_kernel._ArgInfo(2, _carray.Indexer, None, 1, True, True))
        code = _kernel._get_elementwise_kernel_code.__wrapped__(
            tuple(infos), _kernel._TypeMap((('T', dtype),)),
            ins + outs + _kernel._get_param_info('CIndexer _ind', False),
            spec.body if body is None else body, spec.name, _elementwise.preamble(work))
        options = list(core.assemble_cupy_compiler_options(()))
    except (AttributeError, TypeError, AssertionError, RuntimeError, ImportError) as error:
        pytest.skip(f'cannot build CUDA sources with this CuPy: {error!r}')
    return '#include <cupy/carray.cuh>\n' + code, options


def _compile(source: str, options: list[str]) -> str:
    """PTX for compute capability 9.0 (H100/H200); fails the test with NVRTC's log."""
    nvrtc = pytest.importorskip('cupy_backends.cuda.libs.nvrtc')
    try:
        nvrtc.getVersion()
    except Exception as error:  # noqa: BLE001 - no libnvrtc here
        pytest.skip(f'NVRTC is not available: {error!r}')
    program = nvrtc.createProgram(source, 'kern.cu', [], [])
    try:
        nvrtc.compileProgram(program, options + ['-arch=compute_90',
                                                 '--device-as-default-execution-space'])
    except Exception:  # noqa: BLE001 - the log says why
        pytest.fail(f'NVRTC failed:\n{nvrtc.getProgramLog(program)}\n{source}')
    ptx = nvrtc.getPTX(program)
    return ptx.decode() if isinstance(ptx, bytes) else str(ptx)


_MATH = re.compile(r'\b(exp|expm1|tanh)\(')


@pytest.mark.parametrize('dtype', DTYPES, ids=lambda t: numpy.dtype(t).name)
@pytest.mark.parametrize('spec', SPECS, ids=lambda s: s.name)
def test_every_spec_compiles_with_nvrtc(spec: Spec, dtype: Any) -> None:
    ptx = _compile(*_cuda_source(spec, dtype))
    assert f'.entry {spec.name}(' in ptx
    if not _MATH.search(spec.body):
        # No FMA anywhere: every product is rounded on its own, as in the generic path.
        # (exp, expm1 and tanh contain FMAs of their own, the same as in CuPy's ufuncs.)
        assert 'fma.' not in ptx


def test_mul_rn_is_what_keeps_fma_out() -> None:
    spec = Spec('catena_fma_probe', 'T x, T a, T b', 'T y', '')
    fused = _compile(*_cuda_source(spec, numpy.float32, 'T p = x * a;\ny = p + b;'))
    rounded = _compile(*_cuda_source(spec, numpy.float32, 'T p = mul_rn(x, a);\ny = p + b;'))
    assert 'fma.rn.f32' in fused
    assert 'fma.' not in rounded and 'mul.rn.f32' in rounded
