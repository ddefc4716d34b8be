"""BLAS on one thread for the small dense products of the hot paths, where threadpoolctl allows.

The counting engine's one-hot Gram products and scipy's L-BFGS-B make many
small BLAS calls. Extra BLAS threads gain little on them, and on a machine
with more runnable processes than cores each hand-off between OpenBLAS
threads waits for a time slice: TAN's fits on one fold of each of the 30
shared data sets took 6.7 s with BLAS's own threads and 1.8 s with one at
load 5 on 2 cores (measured while this module was written); on the idle
machine the wall clock is the same and the CPU time half
(``benchmarks/bench_blas_threads.py``, RESULTS.md).
threadpoolctl (installed with scikit-learn) is optional: without it nothing
changes. numpy and scipy load separate BLAS libraries (scipy's when ``scipy.linalg`` is first
imported), so the libraries are looked up again once scipy's BLAS has been loaded.
"""

from __future__ import annotations

import contextlib
import sys
from typing import Any

__all__ = ["one_blas_thread"]

_controller: Any = None
_scipy_blas_seen = False  # whether scipy's BLAS was loaded when the controller looked


def one_blas_thread() -> contextlib.AbstractContextManager[Any]:
    """A context in which BLAS runs on one thread (a no-op without threadpoolctl).

    Returns
    -------
    context manager

    Examples
    --------
    >>> import numpy as np
    >>> with one_blas_thread():
    ...     float((np.ones((3, 2)).T @ np.ones((3, 2)))[0, 0])
    3.0
    """
    global _controller, _scipy_blas_seen
    scipy_blas = "scipy.linalg" in sys.modules
    if _controller is None or (scipy_blas and not _scipy_blas_seen and _controller is not False):
        _scipy_blas_seen = scipy_blas
        try:
            from threadpoolctl import ThreadpoolController
        except ImportError:  # an optional speed-up
            _controller = False
        else:
            _controller = ThreadpoolController()  # inspects the loaded libraries once (~1 ms)
    if _controller is False:
        return contextlib.nullcontext()
    return _controller.limit(limits=1, user_api="blas")
