"""Discriminative parameters for a Bayesian-network classifier's structure.

A Bayesian-network classifier scores a row ``x`` for class ``y`` with one
table lookup per family: ``log P(y) + sum_i log P(x_i | y, x_pa(i))``. Read as
a function of the family cells a row falls in, this score is linear in
indicators: the classifier is a multinomial logistic regression whose
features are the structure's family cells (Roos et al. 2005). Fitting the
table entries to the *conditional* likelihood of the class, rather than to
the joint, is the discriminative learning of this module.

Two parameterizations, compared by Zaidi et al. (2017):

``form="log-linear"``
    Every table entry is a free parameter ``beta`` (ELR, extended logistic
    regression), with the L2 penalty ``lambda/2 * ||beta||^2`` on the
    attribute families (the class term is not penalized). On a naive-Bayes
    structure this is exactly a logistic regression on one-hot attributes.
``form="weights"``
    Each entry is a weight on the smoothed generative log-probability,
    ``w * log theta`` (the discriminative-generative parameterization that
    extends WANBIA-C), which preconditions the optimization with the
    generative estimates; the penalty is ``lambda/2 * ||w||^2``.

Both searches start at the generative classifier (``beta = log theta``,
``w = 1``). With ``center="generative"`` the penalty is centred there
instead (``||beta - log theta||^2``, ``||w - 1||^2``): a large ``lambda``
then gives back the generative classifier, and the conditional likelihood
of the training rows never ends below the generative one. Zaidi et al.'s
penalty is the default, ``center="zero"``: it had the lower held-out
log-loss on the shared UCI sets (``benchmarks/bench_discriminative.py``).

The conditional log-likelihood is maximised by L-BFGS (:func:`lbfgs`, the
two-loop recursion) on a sparse matrix of family indicators, built once, with
repeated rows merged into weights; ``lambda`` is chosen by an inner stratified
cross-validation over a grid, each fold's fits warm-started along the path
from the strongest penalty, a penalty clearly worse than the best so far after
a few folds dropped from the race, and the path stopped once the held-out loss
rises.

The fitted entries are unnormalized log-potentials in the model's own
``log_tables_``, so prediction, drawing and saving are unchanged. Summing
out a state never seen in training then marginalizes the Markov network
``P(y, x) \\propto exp(score)``, of which the conditional model is the class
posterior.

References
----------
.. [1] Roos, T., Wettig, H., Grunwald, P., Myllymaki, P., & Tirri, H. (2005).
       On discriminative Bayesian network classifiers and logistic
       regression. *Machine Learning*, 59(3), 267-296.
.. [2] Zaidi, N. A., Webb, G. I., Carman, M. J., Petitjean, F., Buntine, W.,
       Hynes, M., & De Sterck, H. (2017). Efficient parameter learning of
       Bayesian network classifiers. *Machine Learning*, 106(9), 1289-1329.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from .._special import logsumexp
from .._threads import one_blas_thread
from . import selection as _selection  # noqa: F401  (registers "leave-one-out", the default `generative`)
from .parameters import ESTIMATORS, Estimator, get_estimator

__all__ = [
    "Discriminative",
    "DiscriminativeFit",
    "family_indicators",
    "conditional_log_likelihood",
    "fit_discriminative_tables",
    "lbfgs",
]

#: The forms of :class:`Discriminative`, and the centres of its penalty.
FORMS = ("log-linear", "weights")
CENTERS = ("generative", "zero")

#: The penalty strengths the inner cross-validation tries by default; weights pulled toward
#: the generative start (w = 1) want larger ones.
DEFAULT_PENALTY_GRID = (0.01, 0.1, 1.0, 10.0)
WEIGHTS_TOWARD_GENERATIVE_GRID = (1.0, 10.0, 100.0, 1000.0)

#: Largest number of rows the inner cross-validation scores (a fixed-seed stratified sample beyond).
MAX_PENALTY_CV_ROWS = 3000

#: ``n_folds="auto"``: 3 inner folds, or 10 below this many scored rows (see :class:`Discriminative`).
SMALL_SAMPLE_ROWS = 200
SMALL_SAMPLE_FOLDS = 10

#: The inner fits' L-BFGS tolerance at the least (:class:`Discriminative`'s `tol` is the final fit's).
INNER_GTOL = 1e-4

#: The race of the penalties (see :func:`fit_discriminative_tables`): a penalty is dropped once, after at
#: least this many inner folds, it is worse than the best option by more than RACE_Z standard errors.
RACE_MIN_FOLDS = 3
RACE_Z = 2.5


class Discriminative(Estimator):
    """Table entries fitted to the conditional likelihood of the class (L2-penalized, L-BFGS).

    Selected on a Bayesian-network classifier as ``estimator="discriminative"``
    (or an instance with its settings): the model learns its structure and
    its generative tables as usual, with `generative`, then refits the
    tables' entries to maximise the penalized conditional log-likelihood of
    the class; the structure and its drawing are unchanged. Supported by
    :class:`~graphmodels.NaiveBayes`, :class:`~graphmodels.TAN`,
    :class:`~graphmodels.FAN`, :class:`~graphmodels.KDB`,
    :class:`~graphmodels.SelectiveKDB` and the Chow-Liu multinet
    :class:`~graphmodels.ChowLiu` (each class's tables enter its own score
    only); see :mod:`graphmodels.estimators.discriminative` for the model.

    Parameters
    ----------
    form : {"log-linear", "weights"}, default="log-linear"
        ``"log-linear"``: free entries (ELR). ``"weights"``: a weight on each
        generative log-probability. Both start at the generative classifier.
        The default had the lower held-out log-loss on most shared UCI sets
        (``benchmarks/bench_discriminative.py``).
    penalty : float or "auto", default="auto"
        ``lambda`` of the L2 penalty on the summed (weighted) conditional
        log-loss, as ``1 / C`` in scikit-learn's ``LogisticRegression``.
        ``"auto"`` picks it from `penalty_grid` by an inner stratified
        `n_folds`-fold cross-validation (fixed seed 0) of the held-out
        log-loss, on at most 3,000 rows (a fixed-seed stratified sample
        beyond; the final fit uses every row). The penalties are tried from
        the strongest down, each fold's fit starting from its fit at the
        previous penalty, and the path stops at the first penalty whose
        held-out log-loss is above the best so far (the weaker ones are
        then NaN in ``penalty_selection_``). A penalty that, after at least
        3 folds and a third of the rows, is worse than the best option so
        far by more than 2.5 standard errors of the paired per-row
        difference is not fitted on the other folds (a race; its log-loss
        is NaN, its ``folds`` the number it was scored on). The generative tables, refitted
        on each inner fold's training rows, compete too: unless the best
        penalty beats them by more than one standard error of the paired
        per-row difference (the one-standard-error rule of Breiman et al.,
        1984), the model keeps them (``penalty_`` is then None), so a small
        or noisy data set is not made worse by the refit.
    generative : estimator, name or dict, default="leave-one-out"
        The generative estimator: the start and, for ``"weights"``, the
        log-probabilities weighted. It must smooth (no zero probability).
    penalty_grid : sequence of float, optional
        Default: ``(0.01, 0.1, 1, 10)``; ``(1, 10, 100, 1000)`` for
        ``form="weights", center="generative"``, whose best penalties are
        larger.
    center : {"zero", "generative"}, default="zero"
        Where the penalty pulls: toward zero (ELR, Zaidi et al.), or toward
        the generative classifier.
    n_folds : int or "auto", default="auto"
        The inner folds. ``"auto"``: 3, and 10 when fewer than 200 rows are
        scored. Three folds train each inner fit on two thirds of the rows;
        on a small sample that makes the held-out losses noisy and
        pessimistic for the refit, which has more parameters to learn than
        the counts (on the shared UCI sets of under 200 rows, ten folds
        turned 12 held-out losses of the five discriminative models against
        their generative twins into 6, ``benchmarks/bench_discriminative.py``).
    max_iter : int, default=500
        Largest number of L-BFGS iterations of each fit.
    tol : float, default=3e-5
        The final fit stops when every component of the gradient of the
        mean penalized conditional log-loss is at most `tol` (scikit-learn's
        ``LogisticRegression`` stops at 1e-4 on the same scale). 3e-5 moved
        no shared UCI set's held-out log-loss by more than 2e-4 nats from
        1e-6's, in a third of the time. The inner fits, which only rank the
        penalties, stop at ``max(tol, 1e-4)``.

    References
    ----------
    .. [1] Zaidi, N. A., Webb, G. I., Carman, M. J., Petitjean, F., Buntine,
           W., Hynes, M., & De Sterck, H. (2017). Efficient parameter learning
           of Bayesian network classifiers. *Machine Learning*, 106(9),
           1289-1329.
    .. [2] Roos, T., Wettig, H., Grunwald, P., Myllymaki, P., & Tirri, H.
           (2005). On discriminative Bayesian network classifiers and
           logistic regression. *Machine Learning*, 59(3), 267-296.
    .. [3] Breiman, L., Friedman, J. H., Olshen, R. A., & Stone, C. J.
           (1984). *Classification and Regression Trees*. Wadsworth (the
           one-standard-error rule, section 3.4.3).

    Examples
    --------
    >>> import graphmodels as gm
    >>> frame = gm.datasets.load("car")
    >>> X, y = frame.drop(columns="class"), frame["class"]
    >>> model = gm.TAN(estimator=Discriminative(penalty=1.0)).fit(X, y)
    >>> model.penalty_, model.estimator_.form
    (1.0, 'log-linear')
    >>> model.predict_proba(X.head(2)).sum(axis=1).round(6).tolist()
    [1.0, 1.0]
    """

    name = "discriminative"

    def __init__(
        self,
        form: str = "log-linear",
        penalty: float | str = "auto",
        generative: Estimator | str | dict[str, Any] = "leave-one-out",
        penalty_grid: Sequence[float] | None = None,
        center: str = "zero",
        n_folds: int | str = "auto",
        max_iter: int = 500,
        tol: float = 3e-5,
    ) -> None:
        if form not in FORMS:
            raise ValueError(f"`form` must be one of {list(FORMS)}, got {form!r}.")
        if isinstance(penalty, str):
            if penalty != "auto":
                raise ValueError(f"`penalty` must be a number >= 0 or 'auto', got {penalty!r}.")
        elif not (isinstance(penalty, (int, float, np.integer, np.floating)) and np.isfinite(penalty) and penalty >= 0):
            raise ValueError(f"`penalty` must be a number >= 0 or 'auto', got {penalty!r}.")
        if penalty_grid is None:
            toward_start = form == "weights" and center == "generative"
            penalty_grid = WEIGHTS_TOWARD_GENERATIVE_GRID if toward_start else DEFAULT_PENALTY_GRID
        grid = tuple(float(value) for value in np.atleast_1d(np.asarray(penalty_grid, dtype=np.float64)))
        if not grid or not all(np.isfinite(value) and value >= 0 for value in grid):
            raise ValueError(f"`penalty_grid` must hold numbers >= 0, got {penalty_grid!r}.")
        if center not in CENTERS:
            raise ValueError(f"`center` must be one of {list(CENTERS)}, got {center!r}.")
        if n_folds != "auto" and (
            isinstance(n_folds, bool) or not isinstance(n_folds, (int, np.integer)) or n_folds < 2
        ):
            raise ValueError(f"`n_folds` must be an integer >= 2 or 'auto', got {n_folds!r}.")
        if not isinstance(max_iter, (int, np.integer)) or max_iter < 1:
            raise ValueError(f"`max_iter` must be an integer >= 1, got {max_iter!r}.")
        if not (isinstance(tol, (int, float, np.integer, np.floating)) and np.isfinite(tol) and tol > 0):
            raise ValueError(f"`tol` must be a number > 0, got {tol!r}.")
        resolved = get_estimator(generative)
        if isinstance(resolved, Discriminative):
            raise ValueError("`generative` cannot be another Discriminative estimator.")
        self.form = form
        self.penalty = penalty if isinstance(penalty, str) else float(penalty)
        self.generative = resolved
        self.penalty_grid = grid
        self.center = center
        self.n_folds = n_folds if n_folds == "auto" else int(n_folds)
        self.max_iter = int(max_iter)
        self.tol = float(tol)

    def pseudo_counts(self, counts: ArrayLike, *, conditional: bool = True) -> np.ndarray:
        raise TypeError(
            "Discriminative fits a classifier's tables to the conditional likelihood inside its fit; it "
            "estimates no table from counts alone. Pass it as `estimator=` to NaiveBayes, TAN, FAN, ChowLiu, KDB or SelectiveKDB."
        )

    def _params(self) -> dict[str, Any]:
        return {
            "form": self.form,
            "penalty": self.penalty,
            "generative": self.generative.to_dict(),
            "penalty_grid": list(self.penalty_grid),
            "center": self.center,
            "n_folds": self.n_folds,
            "max_iter": self.max_iter,
            "tol": self.tol,
        }

    def __hash__(self) -> int:
        return hash((type(self).__name__, self.form, self.penalty, self.generative, self.penalty_grid, self.center))

    def __repr__(self) -> str:
        return f"{type(self).__name__}(form={self.form!r}, penalty={self.penalty!r}, generative={self.generative!r})"


# --------------------------------------------------------------------------- design
def family_indicators(index: Sequence[ArrayLike], shapes: Sequence[tuple[int, ...]], n_rows: int | None = None) -> Any:
    """The sparse (n_rows, n_cells) matrix of the family cell each row falls in, per family.

    Parameters
    ----------
    index : sequence of int arrays, each of shape (n_rows, len(shape))
        Each row's state on every non-class axis of a family's table
        (parents, then the child); ``-1`` (unseen) leaves the row out of that
        family.
    shapes : sequence of tuples
        Each family table's shape without its leading class axis.
    n_rows : int, optional
        The number of rows (needed only when there is no family).

    Returns
    -------
    scipy.sparse.csr_matrix of shape (n_rows, sum of prod(shape))
        Column ``offset_f + ravel(cell)`` is 1 where the row falls in that
        cell of family ``f``; at most one 1 per row and family.

    Examples
    --------
    >>> import numpy as np
    >>> family_indicators([np.array([[0], [1], [-1]])], [(2,)]).toarray()
    array([[1., 0.],
           [0., 1.],
           [0., 0.]])
    """
    from scipy import sparse  # scipy loads on first use: `import graphmodels` stays light

    rows, columns = [], []
    offset = 0
    for cells, shape in zip(index, shapes):
        cells = np.asarray(cells, dtype=np.int64).reshape(-1, len(shape))
        seen = (cells >= 0).all(axis=1)
        flat = np.ravel_multi_index(tuple(cells[seen].T), shape) if len(shape) else np.zeros(int(seen.sum()), int)
        rows.append(np.flatnonzero(seen))
        columns.append(offset + flat)
        offset += int(np.prod(shape, dtype=np.int64))
    if n_rows is None:
        n_rows = len(np.asarray(index[0])) if len(index) else 0
    row = np.concatenate(rows) if rows else np.zeros(0, np.int64)
    column = np.concatenate(columns) if columns else np.zeros(0, np.int64)
    return sparse.csr_matrix((np.ones(len(row)), (row, column)), shape=(n_rows, offset))


def conditional_log_likelihood(scores: ArrayLike, y: ArrayLike, weights: ArrayLike | None = None) -> float:
    """Weighted ``sum_i log P(y_i | x_i)`` of unnormalized class scores.

    Parameters
    ----------
    scores : array-like of shape (n_rows, n_classes)
        ``log P(x, y)`` up to a term per row.
    y : array-like of int, shape (n_rows,)
    weights : array-like of shape (n_rows,), optional

    Returns
    -------
    float
        In nats.

    Examples
    --------
    >>> round(conditional_log_likelihood([[0.0, 0.0]], [1]), 4)
    -0.6931
    """
    scores = np.asarray(scores, dtype=np.float64)
    y = np.asarray(y, dtype=np.int64)
    w = np.ones(len(y)) if weights is None else np.asarray(weights, dtype=np.float64)
    return float((w * (scores[np.arange(len(y)), y] - logsumexp(scores, axis=1))).sum())


class _Problem:
    """The penalized conditional log-loss of one parameterization over one set of rows.

    Parameters are ``(class term (C,), family entries (D, C))`` flattened;
    the score is ``X @ entries + class`` for ``log-linear`` and
    ``X @ (W * L) + w0 * l0`` for ``weights``, with ``L``/``l0`` the generative
    log-probabilities.
    """

    def __init__(self, design, y, weights, n_classes, form, log_prior, log_entries, penalty, center, mask=None):
        self.design, self.design_t = design, design.T  # CSC: its products with a dense matrix are the fastest
        # mask[d, c] = 0 where entry d is not a parameter of class c (a multinet's other classes' tables).
        self.mask = mask
        self.y, self.weights = y, np.asarray(weights, dtype=np.float64)
        self.n_classes, self.form = n_classes, form
        self.picked = np.arange(len(y)) * n_classes + y  # each row's own class in the raveled (n, C) scores
        self.log_prior, self.log_entries = log_prior, log_entries
        self.penalty = penalty
        # The penalty's centre: the generative classifier (w = 1, or beta = log theta) or zero.
        if center == "zero":
            self.center = 0.0
        else:
            self.center = 1.0 if form == "weights" else log_entries
        self.total = max(float(weights.sum()), 1e-300)

    def split(self, v):
        return v[: self.n_classes], v[self.n_classes :].reshape(-1, self.n_classes)

    def tables(self, v):
        """The class term and the (D, C) entries as log-potentials."""
        head, entries = self.split(v)
        if self.form == "weights":
            return head * self.log_prior, entries * self.log_entries
        return head, entries if self.mask is None else entries * self.mask

    def scores(self, v):
        head, entries = self.tables(v)
        return np.asarray(self.design @ entries) + head

    def __call__(self, v):
        """Objective and gradient, both divided by the total weight (well scaled for L-BFGS)."""
        scores = self.scores(v)
        picked = scores.ravel()[self.picked]  # each row's score of its own class
        top, residual, normalizer = _softmax_parts(scores)
        loss = float(self.weights @ (top + np.log(normalizer) - picked))
        # d loss / d score = w * (softmax - onehot(y)).
        residual *= (self.weights / normalizer)[:, None]
        residual.ravel()[self.picked] -= self.weights
        grad_head = residual.sum(axis=0)
        grad_entries = np.asarray(self.design_t @ residual)
        _, entries = self.split(v)
        if self.form == "weights":
            grad_head = grad_head * self.log_prior
            grad_entries = grad_entries * self.log_entries
        elif self.mask is not None:
            grad_entries = grad_entries * self.mask
        shifted = entries - self.center
        loss += 0.5 * self.penalty * float((shifted**2).sum())
        grad_entries = grad_entries + self.penalty * shifted
        return loss / self.total, np.concatenate([grad_head, grad_entries.ravel()]) / self.total


#: The relative decrease of the objective in one iteration below which L-BFGS stops (scipy's L-BFGS-B default).
FTOL = 2.220446049250313e-09


def _minimize(problem, start, max_iter, gtol):
    # The two-loop recursion's BLAS calls are tiny: one thread (see graphmodels/_threads.py).
    with one_blas_thread():
        return lbfgs(problem, start, max_iter=max_iter, gtol=gtol)


def lbfgs(fun, x0, *, max_iter=500, gtol=1e-6, ftol=FTOL, memory=10):
    """Minimize a smooth convex function by L-BFGS (no bounds) with a backtracking line search.

    scipy's L-BFGS-B (in C since scipy 1.15) does bound-constrained subspace
    work on every iteration: on these problems, which have no bounds, it took
    most of the fit time (13 of 20 s of discriminative TAN on connect-4; on a
    10,000-parameter quadratic, 8.7 ms per iteration against 0.4 ms here).
    The two-loop recursion of Nocedal & Wright (2006, algorithm 7.4) costs
    ``4 * memory * n`` per iteration and reaches the same optimum; the
    stopping tests are L-BFGS-B's.

    Parameters
    ----------
    fun : callable
        ``fun(x) -> (value, gradient)``, convex, the gradient a new array. It must not keep
        `x`: the iterates are written into the same few buffers.
    x0 : ndarray of shape (n,)
    max_iter : int, default=500
    gtol : float, default=1e-6
        Stop when every gradient component is at most this in absolute value.
    ftol : float, default=2.2e-9
        Stop when an iteration lowers the value by at most
        ``ftol * max(|f_k|, |f_k+1|, 1)``.
    memory : int, default=10
        The number of (step, gradient change) pairs kept.

    Returns
    -------
    ndarray of shape (n,)

    References
    ----------
    .. [1] Nocedal, J., & Wright, S. J. (2006). *Numerical Optimization*
           (2nd ed.). Springer, chapter 7.

    Examples
    --------
    >>> import numpy as np
    >>> scale = np.array([1.0, 10.0])
    >>> lbfgs(lambda x: (float(scale @ (x - 1) ** 2), 2 * scale * (x - 1)), np.zeros(2)).round(6).tolist()
    [1.0, 1.0]
    """
    x = np.array(x0, dtype=np.float64)
    value, grad = fun(x)
    # Every vector of the iteration lives in a buffer allocated once: the two-loop recursion and
    # the line search touch ``4 * memory + 4`` vectors of the parameters' size an iteration, and a
    # new array for each (two per update) made the iteration cost twice the objective on
    # 50,000-parameter problems. The arithmetic is the same, operation for operation.
    direction, scratch, new_x = np.empty_like(x), np.empty_like(x), np.empty_like(x)
    pairs: list[tuple[np.ndarray, np.ndarray, float, float, float]] = []  # (s, y, 1 / s.y, s.y, y.y), oldest first
    spare: list[tuple[np.ndarray, np.ndarray]] = []  # the buffers of dropped pairs
    for _ in range(max_iter):
        if not len(grad) or np.abs(grad, out=scratch).max() <= gtol:
            break
        # The two-loop recursion: direction = -H grad, H the limited-memory inverse Hessian.
        np.negative(grad, out=direction)
        alphas = []
        for s, y, rho, _, _ in reversed(pairs):
            alpha = rho * float(s @ direction)
            np.subtract(direction, np.multiply(y, alpha, out=scratch), out=direction)
            alphas.append(alpha)
        if pairs:
            _, _, _, curvature, change_norm = pairs[-1]
            np.multiply(direction, curvature / change_norm, out=direction)
        for (s, y, rho, _, _), alpha in zip(pairs, reversed(alphas)):
            np.add(direction, np.multiply(s, alpha - rho * float(y @ direction), out=scratch), out=direction)
        slope = float(grad @ direction)
        if not pairs or not slope < 0:  # the first step, or a direction gone uphill by rounding: steepest descent
            spare.extend((s, y) for s, y, *_ in pairs)
            pairs.clear()
            np.negative(grad, out=direction)
            slope = -float(grad @ grad)
            step = min(1.0, 1.0 / np.sqrt(-slope))
        else:
            step = 1.0
        # Backtracking to the Armijo condition, each trial at the minimum of the quadratic through
        # the value and slope at 0 and the value at the rejected step (kept within [0.1, 0.5] of it).
        for _ in range(40):
            np.add(x, np.multiply(direction, step, out=new_x), out=new_x)
            new_value, new_grad = fun(new_x)
            if new_value <= value + 1e-4 * step * slope:
                break
            excess = new_value - value - slope * step
            shrink = -slope * step / (2.0 * excess) if np.isfinite(excess) and excess > 0 else 0.1
            step *= min(max(shrink, 0.1), 0.5)
        else:
            break  # no decrease along the direction: x is as good as rounding allows
        s, y = spare.pop() if spare else (np.empty_like(x), np.empty_like(x))
        np.subtract(new_x, x, out=s)
        np.subtract(new_grad, grad, out=y)
        curvature, change_norm = float(s @ y), float(y @ y)
        if curvature > 1e-10 * change_norm:
            pairs.append((s, y, 1.0 / curvature, curvature, change_norm))
            if len(pairs) > memory:
                spare.append(pairs.pop(0)[:2])
        else:
            spare.append((s, y))
        decrease = value - new_value
        scale = max(abs(value), abs(new_value), 1.0)
        x, new_x = new_x, x
        value, grad = new_value, new_grad
        if decrease <= ftol * scale:
            break
    return x


@dataclass
class HeldOutLosses:
    """Each scored training row's inner cross-validated log-loss, from a fit with ``penalty="auto"``.

    Attributes
    ----------
    rows : ndarray of int
        The scored rows' positions (every row, or a stratified sample of 3,000; see :func:`inner_folds`).
    folds : ndarray of int
        The inner fold of each scored row.
    generative : ndarray of float
        ``-log P(y_i | x_i)`` of each scored row under the generative tables refitted without its fold.
    chosen : ndarray of float
        The same under what the fit kept: the chosen penalty's refit (fitted without the row's
        fold), or the generative tables.
    """

    rows: np.ndarray
    folds: np.ndarray
    generative: np.ndarray
    chosen: np.ndarray


@dataclass
class DiscriminativeFit:
    """The result of :func:`fit_discriminative_tables`.

    Attributes
    ----------
    class_log_prior : ndarray of shape (n_classes,)
    log_tables : list of ndarray
        Each family's log-potentials, in the shape of the generative table.
    penalty : float or None
        The penalty used; None when ``penalty="auto"`` kept the generative
        tables.
    penalty_selection : DataFrame or None
        ``"auto"`` only: the inner cross-validated log-loss of each penalty
        (``candidate="discriminative"``, with the standard error of its
        paired difference from the generative tables, and the number of
        inner ``folds`` it was scored on) and of the generative tables
        (``candidate="generative"``, penalty NaN).
    held_out : HeldOutLosses or None
        ``"auto"`` only: the scored rows' held-out losses.
    """

    class_log_prior: np.ndarray
    log_tables: list[np.ndarray]
    penalty: float | None
    penalty_selection: pd.DataFrame | None = None
    held_out: HeldOutLosses | None = None


def _stratified_sample(y, size, n_classes):
    """At most `size` row positions, every class in proportion (seed 0), sorted."""
    if len(y) <= size:
        return np.arange(len(y))
    rng = np.random.default_rng(0)
    keep = []
    for c in range(n_classes):
        rows = np.flatnonzero(y == c)
        take = int(round(len(rows) * size / len(y)))
        keep.append(rng.choice(rows, min(max(take, 1 if len(rows) else 0), len(rows)), replace=False))
    return np.sort(np.concatenate(keep))


def _inner_folds(n_folds, n_rows):
    """The number of inner folds: `n_folds`, or for "auto" 3, and 10 below SMALL_SAMPLE_ROWS rows."""
    if n_folds == "auto":
        n_folds = 3 if n_rows >= SMALL_SAMPLE_ROWS else SMALL_SAMPLE_FOLDS
    return max(2, min(int(n_folds), n_rows))


def _stratified_folds(y, n_folds, n_classes, seed=0):
    """Fold of each row: every class's rows shuffled (`seed`) and dealt in turn."""
    rng = np.random.default_rng(seed)
    fold = np.empty(len(y), dtype=np.int64)
    start = 0
    for c in range(n_classes):
        rows = rng.permutation(np.flatnonzero(y == c))
        fold[rows] = (start + np.arange(len(rows))) % n_folds
        start += len(rows)
    return fold


def inner_folds(y: ArrayLike, n_classes: int, n_folds: int | str = "auto") -> tuple[np.ndarray, np.ndarray]:
    """The rows an inner cross-validation scores and the fold of each, as ``penalty="auto"`` draws them.

    At most 3,000 rows (a stratified sample, seed 0, beyond), dealt into
    stratified folds (seed 0): the same rows and folds for every structure
    fitted on the same classes, so that their held-out losses pair row by row.

    Parameters
    ----------
    y : array-like of int, shape (n_rows,)
    n_classes : int
    n_folds : int or "auto", default="auto"
        As :class:`Discriminative`'s: ``"auto"`` is 3, or 10 below 200 scored rows.

    Returns
    -------
    rows : ndarray of int
        The scored rows' positions, sorted.
    folds : ndarray of int
        The fold of each scored row, in ``0 .. n_folds - 1``.
    """
    y = np.asarray(y, dtype=np.int64)
    rows = _stratified_sample(y, MAX_PENALTY_CV_ROWS, n_classes)
    return rows, _stratified_folds(y[rows], _inner_folds(n_folds, len(rows)), n_classes)


def _mean_and_error(differences, weights):
    """The weighted mean of paired per-row differences and its standard error."""
    total = max(float(weights.sum()), 1e-300)
    mean = float((differences * weights).sum() / total)
    spread = float(((differences - mean) ** 2 * weights).sum() / total)
    return mean, float(np.sqrt(spread / total))


def out_of_the_race(
    loss: np.ndarray,
    rival: np.ndarray,
    weights: np.ndarray,
    rows: np.ndarray,
    n_scored: int,
    folds_done: int,
    n_folds: int,
    z: float = RACE_Z,
) -> bool:
    """Whether an option scored on some inner folds is clearly worse than `rival` (Maron & Moore, 1994).

    Once scored on at least :data:`RACE_MIN_FOLDS` folds (not all of them) and on
    a third of the `n_scored` rows, it is out when its mean held-out loss on the
    `rows` scored so far exceeds the rival's by more than `z` (default :data:`RACE_Z`)
    standard errors of their paired per-row difference.
    """
    if folds_done >= n_folds or folds_done < RACE_MIN_FOLDS or 3 * len(rows) < n_scored:
        return False
    mean, error = _mean_and_error(loss[rows] - rival[rows], weights[rows])
    return mean > z * error


@dataclass
class PathFold:
    """One inner fold of a penalty path: its training problem, its held-out rows and its latest solution."""

    problem: Any
    test: np.ndarray
    test_design: Any
    solution: np.ndarray


@dataclass
class PenaltyPath:
    """What :func:`penalty_path` scored: per penalty, the held-out loss of every scored row."""

    row_loss: np.ndarray  # (n_penalties, n_rows), NaN where not scored
    row_error: (
        np.ndarray
    )  # (n_penalties, n_rows), 1.0 where the most probable class is not the row's, NaN where not scored
    held_out: np.ndarray  # (n_penalties,) weighted mean over the scored rows, NaN unless scored on every fold
    folds: np.ndarray  # (n_penalties,) the number of folds each penalty was scored on
    last_solution: dict  # penalty index -> the last fold's solution (the final fit's warm start)


def path_fold(
    class_log_prior: ArrayLike,
    log_tables: Sequence[np.ndarray],
    index: Sequence[ArrayLike],
    y: ArrayLike,
    weights: ArrayLike,
    test_index: Sequence[ArrayLike],
    test: np.ndarray,
    estimator: Discriminative,
    table_classes: Sequence[int | None] | None = None,
) -> PathFold:
    """A :class:`PathFold` from generative tables fitted on a fold's training rows.

    Parameters
    ----------
    class_log_prior, log_tables, table_classes
        As :func:`fit_discriminative_tables`'s, fitted on the fold's training rows.
    index : sequence of int arrays
        The training rows' cells in each family.
    y, weights : array-like of shape (n_train,)
    test_index : sequence of int arrays
        The held-out rows' cells in each family.
    test : ndarray of int
        The held-out rows' positions in the arrays :func:`penalty_path` is given.
    estimator : Discriminative
        Its form and centre.
    """
    log_prior = np.asarray(class_log_prior, dtype=np.float64)
    n_classes = len(log_prior)
    shapes = [tuple(t.shape[1:]) for t in log_tables]
    owners = list(table_classes) if table_classes is not None else [None] * len(log_tables)
    log_entries = _entries(log_tables, owners, n_classes)
    mask = None if all(owner is None for owner in owners) else _owner_mask(shapes, owners, n_classes)
    y = np.asarray(y, dtype=np.int64)
    w = np.asarray(weights, dtype=np.float64)
    design, y_merged, w_merged = _merge_duplicates(family_indicators(index, shapes, n_rows=len(y)), y, w)
    problem = _Problem(
        design, y_merged, w_merged, n_classes, estimator.form, log_prior, log_entries, 0.0, estimator.center, mask
    )
    test_design = family_indicators(test_index, shapes, n_rows=len(test))
    return PathFold(
        problem,
        np.asarray(test, dtype=np.int64),
        test_design,
        _start(estimator.form, log_prior, log_entries, estimator.center, mask),
    )


def penalty_path(
    folds: Sequence[PathFold],
    grid: Sequence[float],
    y: np.ndarray,
    weights: np.ndarray,
    scored: np.ndarray,
    baseline: np.ndarray | None,
    max_iter: int,
    gtol: float,
    rival: np.ndarray | None = None,
    race_z: float = RACE_Z,
    path_race_z: float | None = None,
) -> PenaltyPath:
    """Score the penalties of `grid` (strongest first) on inner folds, each fold warm-started along its own path.

    At each penalty every fold's problem is solved from its solution at the previous
    penalty (never another fold's, nor one on every scored row: those saw the fold's
    held-out rows, and a weak penalty leaves what they learned of them in the held-out
    scores: the parameters of a cell no training row of the fold falls in do not move).
    A penalty is raced (Maron & Moore, 1994): once scored on at least
    :data:`RACE_MIN_FOLDS` folds and a third of the rows, and above the best option so far
    (`baseline`, `rival` or a penalty scored on every fold) by more than `race_z`
    standard errors of their paired per-row difference, its other folds are skipped. The
    path stops at the first penalty above the best one so far on the rows it was scored on
    (the best scored on every fold, or, when all were raced out, the best on those rows).

    Parameters
    ----------
    folds : sequence of PathFold
        Their ``solution`` starts the path and is updated.
    grid : sequence of float
        Penalties, strongest first.
    y, weights : ndarray of shape (n_rows,)
    scored : ndarray of int
        The rows the folds hold out, together.
    baseline : ndarray of shape (n_rows,) or None
        The held-out loss of every scored row under the option the penalties compete with
        (the generative tables); None where it was not scored on every row (raced out).
    max_iter : int
    gtol : float
    rival : ndarray of shape (n_rows,), optional
        Another option's held-out losses (every scored row), raced against as well.
    race_z : float, default=RACE_Z
        The standard errors by which a penalty must trail to be dropped.
    path_race_z : float, optional
        Also drop a penalty (and end the path) once it trails the path's best penalty scored on
        every fold by this many standard errors; None: only the end-of-penalty stop applies.

    Returns
    -------
    PenaltyPath
    """
    w = np.asarray(weights, dtype=np.float64)
    ws = w[scored]
    total = max(float(ws.sum()), 1e-300)
    row_loss = np.full((len(grid), len(y)), np.nan)
    row_error = np.full((len(grid), len(y)), np.nan)
    held_out = np.full(len(grid), np.nan)
    folds_scored = np.zeros(len(grid), dtype=np.int64)
    options = [o for o in (baseline, rival) if o is not None]
    option_means = [float((o[scored] * ws).sum() / total) for o in options]
    last_solution = {}
    for g, penalty in enumerate(grid):
        # The option this penalty is raced against: the best scored on every row so far (none
        # before the first penalty when neither a baseline nor a rival was scored everywhere).
        incumbent = options[int(np.argmin(option_means))] if options else None
        if np.isfinite(held_out).any() and np.nanmin(held_out) < min(option_means, default=np.inf):
            incumbent = row_loss[int(np.nanargmin(held_out))]
        # The path's own best penalty so far, raced against with `path_race_z` (a penalty behind it
        # is past the minimum: the path stops after it).
        path_best = (
            row_loss[int(np.nanargmin(held_out))]
            if path_race_z is not None and g and np.isfinite(held_out).any()
            else None
        )
        done = np.zeros(len(y), dtype=bool)
        for k, fold in enumerate(folds):
            fold.problem.penalty = penalty
            fold.solution = _minimize(fold.problem, fold.solution, max_iter, gtol=gtol)
            head, entries = fold.problem.tables(fold.solution)
            scores = np.asarray(fold.test_design @ entries) + head
            row_loss[g, fold.test] = _row_log_loss(scores, y[fold.test])
            row_error[g, fold.test] = np.argmax(scores, axis=1) != y[fold.test]
            done[fold.test] = True
            folds_scored[g] = k + 1
            if incumbent is not None and out_of_the_race(
                row_loss[g], incumbent, w, scored[done[scored]], len(scored), k + 1, len(folds), race_z
            ):
                break  # clearly worse than the incumbent on the folds so far
            if (
                path_best is not None
                and path_race_z is not None
                and out_of_the_race(
                    row_loss[g], path_best, w, scored[done[scored]], len(scored), k + 1, len(folds), path_race_z
                )
            ):
                break  # behind the path's best penalty: past the minimum
        rows = scored[done[scored]]
        if folds_scored[g] == len(folds):
            held_out[g] = float((row_loss[g, scored] * ws).sum() / total)
            earlier = held_out[:g]
            if not np.isfinite(earlier).any() or held_out[g] < np.nanmin(earlier):
                last_solution = {g: folds[-1].solution}  # the first minimum, as np.nanargmin picks it
        # Past the minimum along the path (on the rows this penalty was scored on): the weaker
        # penalties are not tried (NaN). The minimum so far: the best penalty scored on every fold,
        # or, when every earlier one was raced out, the best of those scored on these rows.
        previous = None
        if g and np.isfinite(held_out[:g]).any():
            previous = row_loss[int(np.nanargmin(held_out[:g])), rows]
        elif g:
            covered = [h for h in range(g) if np.isfinite(row_loss[h, rows]).all()]
            if covered:
                previous = min((row_loss[h, rows] for h in covered), key=lambda loss: float(loss @ w[rows]))
        if previous is not None and float(((row_loss[g, rows] - previous) * w[rows]).sum()) > 0:
            break
    return PenaltyPath(row_loss, row_error, held_out, folds_scored, last_solution)


def fit_discriminative_tables(
    class_log_prior: ArrayLike,
    log_tables: Sequence[np.ndarray],
    index: Sequence[ArrayLike],
    y: ArrayLike,
    weights: ArrayLike | None,
    estimator: Discriminative,
    generative: Estimator | None = None,
    table_classes: Sequence[int | None] | None = None,
) -> DiscriminativeFit:
    """Refit a classifier's tables to the penalized conditional likelihood of the class.

    Parameters
    ----------
    class_log_prior : array-like of shape (n_classes,)
        The generative ``log P(y)``.
    log_tables : sequence of ndarray
        The generative family tables, each ``(n_classes, r_parent_1, ...,
        r_child)`` of ``log P(x_i | y, parents)``, all finite.
    index : sequence of int arrays, each (n_rows, table.ndim - 1)
        Each training row's parent and child states in every family.
    y : array-like of int, shape (n_rows,)
    weights : array-like of shape (n_rows,), optional
    estimator : Discriminative
    generative : Estimator, optional
        The estimator that gave the generative tables (default:
        ``estimator.generative``); the ``"weights"`` form refits each inner
        fold's tables with it. After a leave-one-out selection, pass the
        chosen candidate.
    table_classes : sequence of int or None, optional
        For a Bayesian multinet (one structure per class): the class whose
        score each table enters, its table then of shape ``(1, r_parent_1,
        ..., r_child)`` and learned from that class's rows; None for a table
        every class reads (the default for all).

    Returns
    -------
    DiscriminativeFit

    Raises
    ------
    ValueError
        If a generative table holds a zero probability (``-inf``): the
        ``"weights"`` form needs a smoothing `generative` estimator.

    Notes
    -----
    With ``penalty="auto"`` the penalties are tried from the strongest down.
    At each one, the penalized problem on every scored row is solved first
    (from its solution at the previous penalty), and each inner fold's fit
    starts there: a fold holds most of the scored rows, so its optimum is
    near, and L-BFGS needs a few steps where a start at the fold's previous
    penalty needed tens. The same solution starts the final fit. A penalty
    whose held-out loss, after at least three folds and a third of the scored
    rows, is above the best option so far (the generative tables or a
    penalty scored on every fold) by more than 2.5 standard errors of their
    paired per-row difference is not fitted on the remaining folds (a race,
    Maron & Moore, 1994): its ``log_loss`` in ``penalty_selection_`` is NaN
    and ``folds`` says how many folds it was scored on.

    References
    ----------
    .. [1] Maron, O., & Moore, A. W. (1994). Hoeffding races: accelerating
           model selection search for classification and function
           approximation. *Advances in Neural Information Processing
           Systems*, 6, 59-66.
    """
    log_prior = np.asarray(class_log_prior, dtype=np.float64)
    n_classes = len(log_prior)
    shapes = [tuple(t.shape[1:]) for t in log_tables]
    owners = list(table_classes) if table_classes is not None else [None] * len(log_tables)
    log_entries = _entries(log_tables, owners, n_classes)
    mask = None if all(owner is None for owner in owners) else _owner_mask(shapes, owners, n_classes)
    if estimator.form == "weights" and not (np.isfinite(log_entries).all() and np.isfinite(log_prior).all()):
        raise ValueError(
            f"`estimator`: the weights form multiplies the generative log-probabilities, and "
            f"{estimator.generative!r} gives some a probability of 0; choose a smoothing `generative` "
            "estimator (such as 'laplace' or 'bdeu-auto')."
        )
    y = np.asarray(y, dtype=np.int64)
    w = np.ones(len(y)) if weights is None else np.asarray(weights, dtype=np.float64)
    generative = estimator.generative if generative is None else generative
    design = family_indicators(index, shapes, n_rows=len(y))
    start = _start(estimator.form, log_prior, log_entries, estimator.center, mask)

    def problem(rows, prior, entries, penalty):
        merged = _merge_duplicates(design, y, w) if rows is None else _merge_duplicates(design[rows], y[rows], w[rows])
        return _Problem(*merged, n_classes, estimator.form, prior, entries, penalty, estimator.center, mask)

    selection = held_out_losses = None
    if estimator.penalty == "auto":
        scored, fold_of = inner_folds(y, n_classes, estimator.n_folds)
        refit = _GenerativeRefit(design, n_classes, shapes, owners, generative)
        grid = sorted(estimator.penalty_grid, reverse=True)  # strongest first: warm starts move away from the start
        inner_gtol = max(INNER_GTOL, estimator.tol)
        # Each scored row's held-out log-loss under the generative tables refitted without its fold.
        generative_row_loss = np.full(len(y), np.nan)
        folds = []
        for k in range(int(fold_of.max()) + 1):
            train, test = scored[fold_of != k], scored[fold_of == k]
            if len(test) == 0 or len(train) == 0:
                continue
            # The inner training rows' own generative estimates: the weighted log-probabilities
            # (or the centre), and the generative classifier the penalties compete with.
            fold_prior, fold_entries = refit(train, y[train], w[train])
            test_design = design[test]
            generative_row_loss[test] = _row_log_loss(np.asarray(test_design @ fold_entries) + fold_prior, y[test])
            inner = problem(train, fold_prior, fold_entries, 0.0)
            fold_start = _start(estimator.form, fold_prior, fold_entries, estimator.center, mask)
            folds.append(PathFold(inner, test, test_design, fold_start))
        ws = w[scored]
        total = max(float(ws.sum()), 1e-300)
        generative_held_out = float((generative_row_loss[scored] * ws).sum() / total)
        path = penalty_path(folds, grid, y, w, scored, generative_row_loss, estimator.max_iter, inner_gtol)
        row_loss, held_out, folds_scored = path.row_loss, path.held_out, path.folds
        # The standard error of each penalty's mean paired difference from the generative tables.
        standard_error = np.full(len(grid), np.nan)
        for g in np.flatnonzero(np.isfinite(held_out)):
            _, standard_error[g] = _mean_and_error(row_loss[g, scored] - generative_row_loss[scored], ws)
        selection = pd.DataFrame(
            {
                "candidate": ["discriminative"] * len(grid) + ["generative"],
                "penalty": [*grid, np.nan],
                "log_loss": [*held_out, generative_held_out],
                "standard_error": [*standard_error, np.nan],
                "folds": [*folds_scored, len(folds)],
            }
        )
        best = int(np.nanargmin(held_out)) if np.isfinite(held_out).any() else -1
        if best < 0 or held_out[best] + standard_error[best] >= generative_held_out:
            # The one-standard-error rule: the refit must beat the generative tables by more than
            # its standard error on the held-out rows, or the simpler generative model is kept.
            tables = [np.array(t, dtype=np.float64) for t in log_tables]
            held_out_losses = HeldOutLosses(scored, fold_of, generative_row_loss[scored], generative_row_loss[scored])
            return DiscriminativeFit(log_prior.copy(), tables, None, selection, held_out_losses)
        penalty_used = grid[best]
        held_out_losses = HeldOutLosses(scored, fold_of, generative_row_loss[scored], row_loss[best, scored])
        if estimator.form == "log-linear" and estimator.center == "zero":
            # The last inner fit at this penalty is near the full fit's optimum: a warm start.
            # (The other settings depend on each fold's generative estimates, so start afresh.)
            start = path.last_solution[best]
    else:
        penalty_used = float(estimator.penalty)
    final = problem(None, log_prior, log_entries, penalty_used)
    head, entries = final.tables(_minimize(final, start, estimator.max_iter, gtol=estimator.tol))
    tables, offset = [], 0
    for shape, owner in zip(shapes, owners):
        size = int(np.prod(shape, dtype=np.int64))
        block = entries[offset : offset + size].T
        tables.append((block if owner is None else block[[owner]]).reshape((-1, *shape)).copy())
        offset += size
    return DiscriminativeFit(
        np.asarray(head, dtype=np.float64).copy(), tables, penalty_used, selection, held_out_losses
    )


def _merge_duplicates(design, y, weights):
    """Rows with the same family cells and class merged into one, weighted by their summed weight.

    The conditional log-likelihood is a weighted sum over rows, so the merged rows give the same
    objective and gradient; on discretized data many rows repeat (shuttle: 2,335 distinct of 16,000),
    and every L-BFGS evaluation then costs that much less. Returned unchanged when under a tenth of
    the rows would go.
    """
    if design.shape[0] < 2:
        return design, y, weights
    # A random weight per column: equal rows have equal sums (the same cells, summed in the same
    # order); distinct rows are told apart, which the check below makes sure of.
    keys = np.column_stack([design @ np.random.default_rng(0).random(design.shape[1]), y])
    _, first, inverse = np.unique(keys, axis=0, return_index=True, return_inverse=True)
    if len(first) > 0.9 * design.shape[0]:
        return design, y, weights
    merged = design[first]
    if (merged[inverse.ravel()] != design).nnz:
        return design, y, weights
    return merged, y[first], np.bincount(inverse.ravel(), weights=weights, minlength=len(first))


def _softmax_parts(scores):
    """Each row's largest score, ``exp(scores - largest)`` (a new array) and its row sums.

    A column at a time: numpy's reductions along a short last axis (a few classes) cost several
    times a whole gradient here, and scipy's logsumexp more.
    """
    top = scores[:, 0].copy()
    for c in range(1, scores.shape[1]):
        np.maximum(top, scores[:, c], out=top)
    exp = scores - top[:, None]
    np.exp(exp, out=exp)
    return top, exp, exp @ np.ones(scores.shape[1])


def _row_log_loss(scores, y):
    """``-log P(y_i | x_i)`` of each row from unnormalized class scores, shape (n_rows, n_classes)."""
    scores = np.asarray(scores, dtype=np.float64)
    top, _, normalizer = _softmax_parts(scores)
    return top + np.log(normalizer) - scores[np.arange(len(y)), y]


def _start(form, log_prior, log_entries, center="zero", mask=None):
    """The generative classifier in either parameterization.

    Free entries pulled toward zero start with each cell's entries shifted to average zero over
    the classes: every class's score of a row moves by the same amount, so the probabilities are
    the generative classifier's, and the penalty, the only term that changes along that shift, is
    at its least there; L-BFGS need not walk every cell's mean from ``log P`` to zero (on a
    training fold of adult, naive Bayes at penalty 0.1 took 499 evaluations from the generative
    entries and 213 from the shifted ones; KDB(k=2) on soybean 140 and 122). Not for a multinet's tables (`mask`),
    whose entries each score one class.
    """
    if form == "weights":
        return np.ones(len(log_prior) + log_entries.size)
    if center == "zero" and mask is None and log_entries.size:
        mean = log_entries.mean(axis=1, keepdims=True)
        log_entries = log_entries - np.where(np.isfinite(mean), mean, 0.0)
    return np.concatenate([log_prior, log_entries.ravel()])


def _entries(log_tables, owners, n_classes):
    """The (D, C) entries: a shared table's classes as columns, a class's own table in its column only."""
    blocks = []
    for table, owner in zip(log_tables, owners):
        flat = np.asarray(table, dtype=np.float64).reshape(len(table), -1).T
        if owner is not None:
            block = np.zeros((flat.shape[0], n_classes))
            block[:, owner] = flat[:, 0]
            flat = block
        blocks.append(flat)
    return np.concatenate(blocks) if blocks else np.zeros((0, n_classes))


def _owner_mask(shapes, owners, n_classes):
    """1 where an entry is a parameter of that class: every class for a shared table, its owner's otherwise."""
    blocks = []
    for shape, owner in zip(shapes, owners):
        block = np.ones((int(np.prod(shape, dtype=np.int64)), n_classes))
        if owner is not None:
            block[:] = 0.0
            block[:, owner] = 1.0
        blocks.append(block)
    return np.concatenate(blocks) if blocks else np.zeros((0, n_classes))


def _class_counts(design, y, weights, n_classes):
    """The (D, C) weighted counts of the rows' family cells, and the (C,) class counts."""
    onehot = np.zeros((len(y), n_classes))
    onehot[np.arange(len(y)), y] = weights
    return np.asarray(design.T @ onehot), onehot.sum(axis=0)


class _GenerativeRefit:
    """The generative classifier refitted from some rows' counts (an inner fold's training rows).

    Every table's estimate comes from the fold's counts alone, hyperparameters included: an
    adaptive estimator searched on every row would carry the held-out rows into the fold's
    tables (a hierarchical prior's back-off and concentrations: on lymphography, TAN's
    held-out log-loss 0.49 with them held, 0.63 refitted). The tables of one fold are
    estimated together (:meth:`Estimator.conditionals`: one search for all of them).
    """

    def __init__(self, design, n_classes, shapes, owners, generative):
        self.design, self.n_classes, self.shapes, self.owners = design, n_classes, shapes, owners
        self.generative = generative

    def __call__(self, rows, y, weights):
        """``(log P(y), (D, C) log P(x_i | y, parents))`` from the counts of `rows` (labels `y`, `weights`)."""
        counts, class_counts = _class_counts(self.design[rows], y, weights, self.n_classes)
        tables, offset = [], 0
        for shape, owner in zip(self.shapes, self.owners):
            size = int(np.prod(shape, dtype=np.int64))
            block = counts[offset : offset + size].T
            tables.append((block if owner is None else block[[owner]]).reshape((-1, *shape)))
            offset += size
        with np.errstate(divide="ignore"):
            log_prior = np.log(self.generative.joint(class_counts))
            log_tables = [np.log(table) for table in self.generative.conditionals(tables)]
        entries = _entries(log_tables, self.owners, self.n_classes)
        # A cell the fold's estimate leaves at 0 (no smoothing) would make the weight meaningless.
        return log_prior, np.where(np.isfinite(entries), entries, np.log(1e-12))


# Registered here rather than in parameters.py, which this module builds on.
ESTIMATORS["discriminative"] = Discriminative
