"""``einsum``: Einstein summation over the operands' labelled axes."""

from __future__ import annotations

import string
from collections import Counter
from typing import Any

import numpy

from catena import backend
from catena.function_node import FunctionNode
from catena.functions.math.sum_to import sum_to
from catena.utils import type_check
from catena.variable import Variable

_LETTERS = frozenset(string.ascii_letters)
_SUBLIST_LETTERS = string.ascii_uppercase + string.ascii_lowercase


def _sublist_term(sublist: Any) -> str:
    """One term of NumPy's sublist form (ints 0-51 and Ellipsis) as letters.

    0-25 become ``A``-``Z`` and 26-51 ``a``-``z``, so that the implicit output
    (letters in code point order) keeps the order of the ints.
    """
    try:
        labels = list(sublist)
    except TypeError:
        raise TypeError(f'a sublist must be a sequence of ints and Ellipsis; '
                        f'got {type(sublist).__name__}') from None
    term = []
    for label in labels:
        if label is Ellipsis:
            term.append('...')
            continue
        if not isinstance(label, (int, numpy.integer)) or isinstance(label, bool):
            raise TypeError(f'a sublist holds ints and Ellipsis; got {label!r}')
        if not 0 <= label < len(_SUBLIST_LETTERS):
            raise ValueError(f'a sublist label must be in [0, 52); got {label}')
        term.append(_SUBLIST_LETTERS[label])
    return ''.join(term)


def _from_sublists(args: tuple[Any, ...]) -> tuple[str, tuple[Any, ...]]:
    """Splits ``(op0, sub0, op1, sub1, ..., [out])`` into subscripts and operands."""
    operands = args[0::2][:len(args) // 2]
    terms = [_sublist_term(sub) for sub in args[1::2]]
    subscripts = ','.join(terms)
    if len(args) % 2:
        subscripts += '->' + _sublist_term(args[-1])
    return subscripts, operands


def _parse(subscripts: str, shapes: list[tuple[int, ...]]) -> tuple[list[str], str]:
    """Returns explicit input and output subscripts, ellipses replaced by fresh letters."""
    if not isinstance(subscripts, str):
        raise TypeError(f'subscripts must be a str; got {type(subscripts).__name__}')
    spec = subscripts.replace(' ', '')
    inputs, arrow, output = spec.partition('->')
    terms = inputs.split(',')
    if len(terms) != len(shapes):
        raise ValueError(f'subscripts {subscripts!r} name {len(terms)} operand(s), but '
                         f'{len(shapes)} were given')
    for term in terms + ([output] if arrow else []):
        if term.count('...') > 1 or set(term.replace('...', '')) - _LETTERS:
            raise ValueError(f'subscripts {subscripts!r}: each term holds letters and at most '
                             f'one ellipsis; got {term!r}')
    used = set(spec) & _LETTERS
    free = [c for c in string.ascii_letters if c not in used]
    n_ellipsis = 0
    for term, shape in zip(terms, shapes):
        n_letters = len(term.replace('...', ''))
        if '...' in term:
            if len(shape) < n_letters:
                raise ValueError(f'subscripts {subscripts!r}: term {term!r} has more letters '
                                 f'than its operand has dimensions ({len(shape)})')
            n_ellipsis = max(n_ellipsis, len(shape) - n_letters)
        elif len(shape) != n_letters:
            raise ValueError(f'subscripts {subscripts!r}: term {term!r} has {n_letters} '
                             f'letter(s), but its operand has {len(shape)} dimension(s)')
    if n_ellipsis > len(free):
        raise ValueError(f'subscripts {subscripts!r}: too many dimensions under the ellipsis')
    ellipsis_letters = ''.join(free[:n_ellipsis])
    explicit = []
    for term, shape in zip(terms, shapes):
        if '...' in term:
            count = len(shape) - len(term.replace('...', ''))
            term = term.replace('...', ellipsis_letters[n_ellipsis - count:])
        explicit.append(term)
    counts = Counter(''.join(explicit))
    if arrow:
        if n_ellipsis and '...' not in output:
            raise ValueError(f'subscripts {subscripts!r}: the output must hold "..." when '
                             'the operands do')
        output = output.replace('...', ellipsis_letters)
        if len(set(output)) != len(output) or set(output) - set(counts):
            raise ValueError(f'subscripts {subscripts!r}: each output letter must appear in '
                             'the inputs, and only once in the output')
    else:
        once = sorted(c for c, n in counts.items() if n == 1 and c not in ellipsis_letters)
        output = ellipsis_letters + ''.join(once)
    return explicit, output


def _einsum(xp: Any, in_subs: list[str], out_sub: str, arrays: tuple[Any, ...]) -> Any:
    spec = ','.join(in_subs) + '->' + out_sub
    return xp.asarray(xp.einsum(spec, *arrays, optimize=len(arrays) > 1))


class EinSum(FunctionNode):
    """Einstein summation with explicit subscripts (no ellipsis).

    Args:
        in_subs: The subscripts of each operand, e.g. ``['ij', 'jk']`` or
            ``'ij,jk'``.
        out_sub: The subscripts of the result, e.g. ``'ik'``.
    """

    def __init__(self, in_subs: list[str] | str, out_sub: str) -> None:
        self.in_subs = in_subs.split(',') if isinstance(in_subs, str) else list(in_subs)
        self.out_sub = out_sub

    def check_type_forward(self, in_types: Any) -> None:
        n = len(in_types)
        type_check._argname(in_types, tuple(f'operand{i}' for i in range(n)))
        type_check.expect(in_types[0].dtype.kind == 'f')
        sizes: dict[str, Any] = {}
        for i, (in_type, sub) in enumerate(zip(in_types, self.in_subs)):
            if i:
                type_check.expect(in_type.dtype == in_types[0].dtype)
            type_check.expect(in_type.ndim == len(sub))
            for axis, letter in enumerate(sub):
                size = in_type.shape[axis]
                if letter in sizes:
                    other = sizes[letter]
                    type_check.expect((size == other) | (size == 1) | (other == 1))
                if letter not in sizes or type_check.eval(sizes[letter]) == 1:
                    sizes[letter] = size

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs(tuple(range(len(inputs))))
        self._shapes = [x.shape for x in inputs]
        xp = backend.get_array_module(inputs[0])
        return _einsum(xp, self.in_subs, self.out_sub, inputs),

    def backward(self, indexes: Any, grad_outputs: Any) -> Any:
        inputs = self.get_retained_inputs()
        gy, = grad_outputs
        return tuple([self._grad(i, inputs, gy) for i in indexes])

    def _grad(self, i: int, inputs: tuple[Variable, ...], gy: Variable) -> Variable:
        sub = self.in_subs[i]
        shape = self._shapes[i]
        others = [x for j, x in enumerate(inputs) if j != i]
        other_subs = [s for j, s in enumerate(self.in_subs) if j != i]
        available = set(self.out_sub).union(*other_subs)
        unique = ''.join(dict.fromkeys(sub))
        reduced = ''.join(c for c in unique if c in available)
        size = {c: n for c, n in zip(sub, shape)}
        if not others and reduced == self.out_sub:
            g = gy
        else:
            g = EinSum([self.out_sub] + other_subs, reduced).apply((gy, *others))[0]
        # Sum over the axes along which this operand was broadcast.
        g = sum_to(g, tuple(size[c] for c in reduced))
        if reduced == sub:
            return g
        return _expand(g, reduced, sub, size, set(self.out_sub).union(*self.in_subs))


class DiagEinSum(EinSum):
    """Einstein summation whose output may also repeat and add letters.

    A letter repeated in ``out_sub`` puts the values on that diagonal
    (zeros elsewhere); a letter absent from the inputs broadcasts the
    values along it, with its size taken from ``out_shape``. It is the
    adjoint of :class:`EinSum`, whose gradients it gives.

    Args:
        in_subs: The subscripts of each operand, e.g. ``['i']`` or ``',i'``.
        out_sub: The subscripts of the result, e.g. ``'ij'`` or ``'ii'``.
        out_shape: The shape of the result; needed only when ``out_sub`` has
            letters that no operand has.
    """

    def __init__(self, in_subs: list[str] | str, out_sub: str,
                 out_shape: tuple[int, ...] | None = None) -> None:
        super().__init__(in_subs, out_sub)
        if out_shape is not None and len(out_shape) != len(out_sub):
            raise ValueError(f'out_shape {tuple(out_shape)} must have one size per letter of '
                             f'out_sub {out_sub!r}')
        if out_shape is None and set(out_sub) - set().union(*self.in_subs):
            raise ValueError(f'out_shape is needed for the letters of out_sub {out_sub!r} '
                             'that no operand has')
        self.out_shape = None if out_shape is None else tuple(int(n) for n in out_shape)

    def check_type_forward(self, in_types: Any) -> None:
        super().check_type_forward(in_types)
        for in_type, sub in zip(in_types, self.in_subs):
            for axis, letter in enumerate(sub):
                if self.out_shape is not None and letter in self.out_sub:
                    type_check.expect(
                        in_type.shape[axis] == self.out_shape[self.out_sub.index(letter)])

    def forward(self, inputs: tuple[Any, ...]) -> tuple[Any, ...]:
        self.retain_inputs(tuple(range(len(inputs))))
        self._shapes = [x.shape for x in inputs]
        xp = backend.get_array_module(inputs[0])
        size = {c: n for sub, x in zip(self.in_subs, inputs) for c, n in zip(sub, x.shape)}
        if self.out_shape is not None:
            size.update(zip(self.out_sub, self.out_shape))
        in_letters = set().union(*self.in_subs)
        reduced = ''.join(c for c in dict.fromkeys(self.out_sub) if c in in_letters)
        y = _einsum(xp, self.in_subs, reduced, inputs)
        subs, constants, out = _spread_operands(xp, reduced, self.out_sub, size, y.dtype,
                                                set(self.out_sub).union(*self.in_subs))
        return _einsum(xp, subs, out, (y, *constants)),


def _spread_operands(xp: Any, reduced: str, sub: str, size: dict[str, int], dtype: Any,
                     used: set[str]) -> tuple[list[str], list[Any], str]:
    """The einsum that spreads an array labelled ``reduced`` over ``sub``.

    Letters missing from ``reduced`` are broadcast (a constant of ones), and
    each repeat of a letter gets a fresh output letter tied to it by an
    identity matrix, so that only the diagonal is filled. Returns the
    subscripts of the array and the constants, the constants and the output
    subscripts.
    """
    free = iter(c for c in string.ascii_letters if c not in used)
    constants: list[Any] = []
    subs = [reduced]
    out = []
    seen: set[str] = set()
    for c in sub:
        if c in seen:
            fresh = next(free)
            constants.append(xp.eye(size[c], dtype=dtype))
            subs.append(c + fresh)
            out.append(fresh)
            continue
        seen.add(c)
        if c not in reduced:
            constants.append(xp.ones(size[c], dtype=dtype))
            subs.append(c)
        out.append(c)
    return subs, constants, ''.join(out)


def _expand(g: Variable, reduced: str, sub: str, size: dict[str, int],
            used: set[str]) -> Variable:
    """Spreads ``g`` (labelled ``reduced``) over ``sub``: letters missing from ``reduced``
    are broadcast, and repeated letters take ``g`` on their diagonal only."""
    xp = backend.get_array_module(g.array)
    subs, constants, out = _spread_operands(xp, reduced, sub, size, g.dtype, used)
    return EinSum(subs, out).apply([g] + constants)[0]


def einsum(*operands: Any) -> Variable:
    """Einstein summation, as :func:`numpy.einsum`.

    Subscripts label the axes of each operand with letters; ``...`` stands
    for the remaining (broadcast) axes. Without ``->`` the output holds the
    ellipsis axes and then, in alphabetical order, the letters that appear
    once. Repeated letters within one operand take its diagonal.

    As in NumPy, the call is either ``einsum(subscripts, *operands)`` or the
    sublist form ``einsum(op0, sublist0, op1, sublist1, ..., [sublistout])``,
    whose sublists label axes with ints in ``[0, 52)`` and ``Ellipsis``.

    Args:
        operands: The subscripts, e.g. ``'ij,jk->ik'`` or ``'...ij,...jk'``,
            then Variables or arrays of one floating point dtype; or the
            operands interleaved with their sublists.

    Returns:
        Variable: The result.

    .. admonition:: Example

        >>> a = np.arange(6, dtype=np.float32).reshape(2, 3)
        >>> F.einsum('ij->j', a).array
        array([3., 5., 7.], dtype=float32)
        >>> F.einsum('ij,ij', a, a).array
        array(55., dtype=float32)
        >>> F.einsum(a, [0, 1], [1]).array
        array([3., 5., 7.], dtype=float32)
    """
    if not operands:
        raise TypeError('einsum needs subscripts and at least one operand')
    if isinstance(operands[0], str):
        subscripts, operands = operands[0], operands[1:]
    else:
        subscripts, operands = _from_sublists(operands)
    if not operands:
        raise ValueError('einsum needs at least one operand')
    in_subs, out_sub = _parse(subscripts, [tuple(x.shape) for x in operands])
    return EinSum(in_subs, out_sub).apply(operands)[0]
