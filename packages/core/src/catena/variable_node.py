"""The graph-side half of a variable (:class:`VariableNode`)."""

from __future__ import annotations

import weakref
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from catena.function_node import FunctionNode
    from catena.variable import Variable


class VariableNode:
    """A node of the computational graph that stands for a :class:`~catena.Variable`.

    The graph holds variable nodes, not variables, so that a variable's array
    can be freed while the graph lives. A node keeps its array only when the
    function that created or consumed it retains it (``data``).

    Args:
        variable: The variable this node stands for.
        name: The variable's name.
    """

    __slots__ = ('_variable', 'creator_node', 'data', 'name', '_rank', '_requires_grad',
                 'shape', 'dtype', '_old_style_grad_generator', '__weakref__')

    def __init__(self, variable: Variable, name: str | None = None, **kwargs: Any) -> None:
        if kwargs:
            _reject_removed_arguments(kwargs)
        self._variable = weakref.ref(variable)
        self.creator_node: FunctionNode | None = None
        self.data: Any = None
        self.name = name
        self._rank = 0
        self._requires_grad = variable._requires_grad
        # The label of the old-style Function whose backward computed this
        # gradient (it cannot be differentiated again), or None.
        self._old_style_grad_generator: str | None = None
        array = variable._data
        self.shape = None if array is None else array.shape
        self.dtype = None if array is None else array.dtype

    @property
    def rank(self) -> int:
        """The topological order of the node: one more than its creator's rank."""
        return self._rank

    @property
    def requires_grad(self) -> bool:
        """Whether backprop computes a gradient for this node's variable."""
        return self._requires_grad

    @property
    def creator(self) -> Any:
        """The function that created this node: a legacy ``Function`` if one did."""
        node = self.creator_node
        if node is None:
            return None
        adapted = getattr(node, '_function', None)
        return adapted if adapted is not None else node

    @creator.setter
    def creator(self, func: Any) -> None:
        self.set_creator(func)

    @property
    def label(self) -> str:
        """A short description: shape and dtype, as in computational-graph dumps."""
        if self.shape == ():
            return str(self.dtype)
        return f'({", ".join(map(str, self.shape or ()))}), {self.dtype}'

    @property
    def grad(self) -> Any:
        """The gradient array of the variable, or None when the variable is gone."""
        variable = self._variable()
        return None if variable is None else variable.grad

    @property
    def grad_var(self) -> Any:
        """The gradient Variable of the variable, or None when the variable is gone."""
        variable = self._variable()
        return None if variable is None else variable.grad_var

    def get_variable(self) -> Variable:
        """Returns the variable, rebuilding one on this node if it was collected."""
        variable = self._variable()
        if variable is not None:
            return variable
        return _variable_class._from_node(self)  # type: ignore[no-any-return]

    def get_variable_or_none(self) -> Variable | None:
        """Returns the variable if it is still alive, else None."""
        return self._variable()

    def set_creator(self, creator: Any) -> None:
        """Sets the creating function (a FunctionNode or a legacy Function)."""
        node = getattr(creator, 'node', creator)
        self.set_creator_node(node)

    def set_creator_node(self, creator_node: FunctionNode | None) -> None:
        """Sets the creating FunctionNode and updates the rank."""
        self.creator_node = creator_node
        if creator_node is not None:
            self._rank = creator_node.rank + 1

    def unchain(self) -> None:
        """Removes the reference to the creator."""
        self.creator_node = None
        self.data = None

    def retain_data(self) -> None:
        """Keeps a reference to the variable's array in the node."""
        variable = self._variable()
        if variable is None:
            raise RuntimeError('cannot retain the data of a variable that was collected')
        self.data = variable._data

    def _check_old_style_gradient(self) -> None:
        """Raises if an old-style Function's backward computed this variable."""
        if self._old_style_grad_generator is not None:
            raise RuntimeError(
                f'cannot twice-differentiate an old style Function '
                f'"{self._old_style_grad_generator}": its backward works on arrays; '
                'rewrite it as a FunctionNode to differentiate its gradients')

    def _set_data_type(self, array: Any) -> None:
        self.shape = None if array is None else array.shape
        self.dtype = None if array is None else array.dtype

    def __repr__(self) -> str:
        return f'<VariableNode {self.name or ""} {self.label}>'


def _bare_node(variable_ref: Any, creator: FunctionNode | None, rank: int,
               requires_grad: bool, array: Any) -> VariableNode:
    """A node built without ``__init__``'s argument handling, for ``FunctionNode.apply``.

    For an output: a weak reference to its variable, its creator and rank.
    For an array input (a constant): :data:`_dead_reference`, no creator,
    rank 0. ``apply`` would have wrapped the array in a Variable that dies
    when it returns; ``get_variable`` rebuilds one, as it would then.
    """
    node = _new_node(VariableNode)
    node._variable = variable_ref
    node.creator_node = creator
    node.data = None
    node.name = None
    node._rank = rank
    node._requires_grad = requires_grad
    node._old_style_grad_generator = None
    node.shape = None if array is None else array.shape
    node.dtype = None if array is None else array.dtype
    return node


class _Collected:
    pass


_new_node = object.__new__
_dead_reference: weakref.ref[Any] = weakref.ref(_Collected())
_variable_class: Any = None  # catena.variable.Variable, set when that module is imported


def _reject_removed_arguments(kwargs: dict[str, Any]) -> None:
    if 'grad' in kwargs:
        raise ValueError('VariableNode no longer takes grad: the gradient belongs to the '
                         'Variable; set Variable.grad or Variable.grad_var instead')
    raise TypeError(f'VariableNode got unexpected keyword arguments: {", ".join(kwargs)}')
