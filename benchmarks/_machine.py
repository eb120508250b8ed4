"""What machine a benchmark ran on: the CPU's model and its widest vector ISA."""

from __future__ import annotations

import os
import platform

# The widest first: a CPU with AVX-512 also lists AVX2 and AVX.
_ISAS = (("AVX-512", "avx512f"), ("AVX2", "avx2"), ("AVX", "avx"))


def cpu_model() -> str:
    """The CPU's model name, its widest vector ISA and the logical CPU count.

    Read from ``/proc/cpuinfo`` where there is one (Linux), else from
    :mod:`platform` with the ISA unknown.
    """
    name, flags = platform.processor() or platform.machine(), None
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                key, _, value = line.partition(":")
                if key.strip() == "model name":
                    name = value.strip()
                elif key.strip() == "flags":
                    flags = set(value.split())
    except OSError:
        pass
    if flags is None:
        isa = "ISA unknown"
    else:
        isa = next((isa for isa, flag in _ISAS if flag in flags), "no AVX")
    return f"{name} ({isa}, {os.cpu_count()} logical CPUs)"
