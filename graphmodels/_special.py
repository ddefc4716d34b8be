"""The few ``scipy.special`` functions the library uses, imported on first call.

``import scipy.special`` costs 0.3-1 s (it pulls in scipy's array-API layer), which
``import graphmodels`` should not pay before anything is fitted. Each wrapper here
imports :mod:`scipy.special` on its first call and forwards its arguments unchanged,
so every result is scipy's own, bit for bit.

This module imports nothing from the package: every layer may use it.
"""

from __future__ import annotations

__all__ = ["chdtrc", "expit", "gammaln", "logsumexp", "xlogy", "log_sum_exp_rows"]

_scipy_special = None


def _module():
    global _scipy_special
    if _scipy_special is None:
        import scipy.special

        _scipy_special = scipy.special
    return _scipy_special


def chdtrc(*args, **kwargs):
    """:func:`scipy.special.chdtrc` (the chi-squared survival function), imported on first call."""
    return _module().chdtrc(*args, **kwargs)


def expit(*args, **kwargs):
    """:func:`scipy.special.expit`, imported on first call."""
    return _module().expit(*args, **kwargs)


def gammaln(*args, **kwargs):
    """:func:`scipy.special.gammaln`, imported on first call."""
    return _module().gammaln(*args, **kwargs)


def logsumexp(*args, **kwargs):
    """:func:`scipy.special.logsumexp`, imported on first call."""
    return _module().logsumexp(*args, **kwargs)


def xlogy(*args, **kwargs):
    """:func:`scipy.special.xlogy`, imported on first call."""
    return _module().xlogy(*args, **kwargs)


def log_sum_exp_rows(a):
    """``log(sum(exp(a), axis=1))`` of a 2-D float array, in numpy alone.

    For hot loops over small arrays, where :func:`scipy.special.logsumexp`'s
    array-API dispatch costs more than the sum (0.3 ms a call). A row of
    ``-inf`` gives ``-inf``, a ``+inf`` gives ``+inf``, a NaN propagates, as
    scipy's; the values agree with scipy's to rounding, not bit for bit.
    """
    import numpy as np

    top = a.max(axis=1)
    shift = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return np.log(np.exp(a - shift[:, None]).sum(axis=1)) + shift


def log_sum_exp_last(a):
    """``log(sum(exp(a), axis=-1))`` of a float array, in numpy alone.

    :func:`log_sum_exp_rows` along the last axis of an array of any shape: for the messages of
    many rows at once, where :func:`scipy.special.logsumexp`'s array-API dispatch and checks cost
    about three times the sum itself. Same conventions as :func:`log_sum_exp_rows`.
    """
    import numpy as np

    top = a.max(axis=-1)
    shift = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log(np.exp(a - shift[..., None]).sum(axis=-1)) + shift
