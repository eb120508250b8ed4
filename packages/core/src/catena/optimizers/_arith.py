"""In-place update steps that several optimizers share.

They work on arrays of any array module; the caller passes the scalars
already cast to the arrays' dtype, so that float16 and float32 stay in their
dtype.
"""

from __future__ import annotations

from typing import Any

from catena import backend


def velocity_step(velocity: Any, momentum: Any, step: Any) -> None:
    """``velocity = momentum * velocity - step``, in place.

    Args:
        velocity: The velocity (a state array), updated in place.
        momentum: Its decay rate, a scalar of its dtype.
        step: What to subtract (an array, or a scalar of its dtype).
    """
    velocity *= momentum
    velocity -= step


def mean_square_step(average: Any, x: Any, decay: Any, weight: Any, out: Any = None) -> Any:
    """``average = decay * average + weight * x ** 2``, in place.

    Args:
        average: The running average (a state array), updated in place.
        x: The array whose square is averaged in.
        decay: The weight of the old average, a scalar of its dtype.
        weight: The weight of ``x ** 2``, a scalar of its dtype (pass it
            cast from ``1 - decay`` computed in Python, not subtracted in
            the dtype, so that float16 rounds as the formula says).
        out: A work array like ``x`` to receive ``weight * x ** 2``, or None
            to allocate one.

    Returns:
        The work array, holding ``weight * x ** 2``.
    """
    out = backend.get_array_module(x).multiply(x, x, out=out)
    out *= weight
    average *= decay
    average += out
    return out
