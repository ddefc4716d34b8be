"""Why a classifier gave a row its probabilities: additive explanations and exact Shapley values.

:meth:`BaseClassifier.explain <graphmodels.models.BaseClassifier.explain>` splits each row's
class score exactly into the terms the model is made of, and :func:`shapley_values` gives each
attribute its Shapley value, the value of a set of attributes being the model's prediction with
the others unobserved (summed out exactly, as every model does for a state never seen).

What a term of ``explain`` is, model by model (each model's ``_explanation_terms``):

=========================================  ==========================================================
model                                      one term per
=========================================  ==========================================================
NaiveBayes, TAN, FAN, KDB, SelectiveKDB,   attribute family: ``log P(x_j | y, parents)`` (a
ChowLiu (and their discriminative fits)    log-potential for a discriminative fit)
HyperforestClassifier                      hyperedge (clique of the junction forest): ``log P(residual
                                           | separator)``, named ``{a, b}``
KikuchiBayes                               region: ``c_R (log P(x_R, y) - log P_R(y))``, named
                                           ``{a, b}``; kBMA weighs each stage's terms by the
                                           stage's share of the posterior, ``<averaging>`` the rest
AODE, AnDE                                 attribute, averaged over the members with their share of
                                           the row's joint; ``<members>`` the averaging's own term
HierarchicalNaiveBayes                     child of the class: an attribute, or a latent variable
                                           for the attributes under it
other classifiers                          attribute, by the chain rule in column order:
                                           ``log P(y, x_1..j) - log P(y, x_1..j-1)``
=========================================  ==========================================================

Every frame holds ``<prior>``, the model's own class term (``log P(y)``, a fitted bias for a
discriminative fit), so that a row sums to the model's score exactly. A family whose cells are
not all observed (a state never seen in training) is summed out by the model together with its
neighbours: those rows get ``<unobserved>``, what the model's score holds beyond the terms of the
families it could read (a column only present when some row needs it).

References
----------
.. [1] Kononenko, I., Šikonja, M. R., Štrumbelj, E. (2010). An efficient explanation of
       individual classifications using game theory. *Journal of Machine Learning Research*,
       11, 1-18.
.. [2] Štrumbelj, E., & Kononenko, I. (2014). Explaining prediction models and individual
       predictions with feature contributions. *Knowledge and Information Systems*, 41(3),
       647-665.
.. [3] Shapley, L. S. (1953). A value for n-person games. *Contributions to the Theory of
       Games*, 2, 307-317.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from .._special import logsumexp

__all__ = [
    "PRIOR",
    "NORMALIZER",
    "UNOBSERVED",
    "ExplanationTerms",
    "explain",
    "shapley_values",
    "SHAPLEY_METHODS",
    "MAX_EXACT",
]

#: The names of the columns that are not a unit of the model.
PRIOR = "<prior>"
NORMALIZER = "<normalizer>"
UNOBSERVED = "<unobserved>"
MEMBERS = "<members>"
AVERAGING = "<averaging>"

#: How :func:`shapley_values` may compute.
SHAPLEY_METHODS = ("auto", "exact", "sampling")
#: ``method="auto"`` enumerates every coalition up to this many attributes.
MAX_EXACT = 15
#: Cells of the largest array of coalition values built at once.
_BLOCK_CELLS = 8_000_000


@dataclass
class ExplanationTerms:
    """A model's class scores of some rows, split into terms (what ``_explanation_terms`` returns).

    ``intercept[c] + terms[:, c, :].sum(axis=1)`` is the model's score of class ``c`` (its
    ``_class_log_scores``) up to a term that does not depend on the class, for every row where
    ``complete`` is True (every row when it is None).
    """

    names: list[Hashable]
    intercept: np.ndarray  # (n_classes,)
    terms: np.ndarray  # (n_rows, n_classes, n_terms)
    complete: np.ndarray | None = None  # (n_rows,) bool
    notes: dict[str, str] = field(default_factory=dict)


def region_name(attributes: Sequence[Hashable]) -> str:
    """The column name of a term over several attributes: ``{a, b}``."""
    return "{" + ", ".join(str(a) for a in attributes) + "}"


# ----------------------------------------------------------------------------- terms of families
def family_terms(
    codes: np.ndarray, families: Sequence[tuple[Sequence[int], int]], tables: Sequence[np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """Each row's term of each directed family given the class, and which rows have them all.

    Parameters
    ----------
    codes : ndarray of shape (n_rows, n_columns)
        ``-1`` for a state never seen.
    families : sequence of (parents, child)
        Column positions.
    tables : sequence of ndarray
        ``tables[f]`` of shape ``(n_strata, *parent states, child states)`` (a leading class axis):
        log ``P(child | class, parents)`` or a log-potential.

    Returns
    -------
    terms : ndarray of shape (n_rows, n_strata, n_families)
        The table's entry where the family is observed; for an unobserved child with observed
        parents and no family below it, the log of the table summed over the child (0 for a
        distribution): what the model's sum gives it; else 0.
    complete : ndarray of shape (n_rows,)
        Whether every family of the row is one of those two cases, so the terms add up to the
        model's score.
    """
    n = codes.shape[0]
    n_strata = tables[0].shape[0] if len(tables) else 1
    terms = np.zeros((n, n_strata, len(families)))
    complete = np.ones(n, dtype=bool)
    unseen = codes < 0
    parents_of_something = {p for parents, _ in families for p in parents}
    for f, ((parents, child), table) in enumerate(zip(families, tables)):
        members = [*parents, child]
        flat = table.reshape(n_strata, -1)
        seen = ~unseen[:, members].any(axis=1)
        if seen.any():
            cell = np.ravel_multi_index(tuple(codes[seen][:, members].T), table.shape[1:])
            terms[seen, :, f] = flat[:, cell].T
        hidden_leaf = unseen[:, child] & ~unseen[:, list(parents)].any(axis=1) if parents else unseen[:, child]
        if child in parents_of_something:
            hidden_leaf = np.zeros(n, dtype=bool)
        if hidden_leaf.any():
            with np.errstate(divide="ignore"):
                summed = logsumexp(table, axis=-1)  # (S, *parent states)
            rows = np.flatnonzero(hidden_leaf)
            if parents:
                cell = np.ravel_multi_index(tuple(codes[rows][:, list(parents)].T), table.shape[1:-1])
                terms[rows, :, f] = summed.reshape(n_strata, -1)[:, cell].T
            else:
                terms[rows, :, f] = summed.reshape(n_strata)[None, :]
        complete &= seen | hidden_leaf
    return terms, complete


def chain_rule_terms(model: Any, codes: np.ndarray) -> ExplanationTerms:
    """Terms of any classifier by the chain rule over its columns, in column order.

    ``term_j = s(y, x_1..j) - s(y, x_1..j-1)``, where ``s`` is the model's class score with the
    later columns unobserved: it needs only that the model sums an unseen state out
    (``_class_log_scores`` of codes ``-1``). The intercept is the score with every column
    unobserved. Exact for every row.
    """
    n, p = codes.shape
    hidden = np.full((1, p), -1, dtype=np.int64)
    intercept = np.asarray(model._class_log_scores(hidden), dtype=np.float64)[0]
    previous = np.broadcast_to(intercept, (n, len(intercept)))
    terms = np.zeros((n, len(intercept), p))
    masked = np.full_like(codes, -1)
    for j in range(p):
        masked[:, j] = codes[:, j]
        current = np.asarray(model._class_log_scores(masked), dtype=np.float64)
        terms[:, :, j] = current - previous
        previous = current
    return ExplanationTerms(list(model.encoder_.columns_), intercept, terms)


def mixture_terms(
    member_scores: np.ndarray, member_terms: np.ndarray, qualified: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """An average of members' joints, ``log mean_m exp(s_m)``, split into averaged terms.

    With each member's share of the row's average, ``w_m = exp(s_m) / sum exp(s_m)`` over the
    qualified members, ``log mean exp(s_m) = sum_m w_m s_m + H(w) - log |M|``: the terms are the
    members' terms weighed by ``w_m``, and ``H(w) - log |M|`` (at most 0: the members' disagreement)
    is the averaging's own term.

    Parameters
    ----------
    member_scores : ndarray of shape (n_rows, n_classes, n_members)
    member_terms : ndarray of shape (n_rows, n_classes, n_members, n_terms)
        ``member_scores`` minus a common intercept, split.
    qualified : ndarray of shape (n_rows, n_classes, n_members), bool

    Returns
    -------
    score : (n_rows, n_classes)
        ``log mean exp`` over the qualified members (-inf where none qualifies).
    terms : (n_rows, n_classes, n_terms)
    averaging : (n_rows, n_classes)
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        masked = np.where(qualified, member_scores, -np.inf)
        top = masked.max(axis=2, keepdims=True)
        top = np.where(np.isfinite(top), top, 0.0)
        weights = np.where(qualified, np.exp(masked - top), 0.0)
        total = weights.sum(axis=2, keepdims=True)
        weights = np.where(total > 0, weights / np.where(total > 0, total, 1.0), 0.0)
        count = qualified.sum(axis=2)
        score = np.log(total[..., 0]) + top[..., 0] - np.log(count)
        entropy = -np.where(weights > 0, weights * np.log(np.where(weights > 0, weights, 1.0)), 0.0).sum(axis=2)
    terms = np.einsum("ncm,ncmt->nct", weights, member_terms)
    averaging = np.where(count > 0, entropy - np.log(np.maximum(count, 1)), 0.0)
    return score, terms, averaging


# ----------------------------------------------------------------------------- explain
def _row_index(X, n):
    return X.index if isinstance(X, pd.DataFrame) and len(X.index) == n else pd.RangeIndex(n)


def explain(model: Any, X: pd.DataFrame | ArrayLike) -> pd.DataFrame:
    """The implementation of :meth:`BaseClassifier.explain` (see there)."""
    codes = np.asarray(model._encode_new(X), dtype=np.int64)
    parts = model._explanation_terms(codes)
    names = list(parts.names)
    terms = np.asarray(parts.terms, dtype=np.float64)
    intercept = np.asarray(parts.intercept, dtype=np.float64)
    n, n_classes = codes.shape[0], len(model.classes_)
    if parts.complete is not None and not parts.complete.all():
        rows = np.flatnonzero(~parts.complete)
        scores = np.asarray(model._class_log_scores(codes[rows]), dtype=np.float64)
        remainder = np.zeros((n, n_classes))
        with np.errstate(invalid="ignore"):
            remainder[rows] = scores - intercept - terms[rows].sum(axis=2)
        # A class the model rules out (-inf) leaves NaN: its share is all of it.
        remainder = np.nan_to_num(remainder, nan=0.0)
        terms = np.concatenate([terms, remainder[:, :, None]], axis=2)
        names.append(UNOBSERVED)
    index = _row_index(X, n)
    labels = [c.item() if isinstance(c, np.generic) else c for c in model.classes_]
    if n_classes == 2:
        values = np.column_stack([np.full(n, intercept[1] - intercept[0]), terms[:, 1, :] - terms[:, 0, :]])
        frame = pd.DataFrame(values, index=index, columns=_columns([PRIOR, *names]))
        frame.attrs["explains"] = f"log-odds of {labels[1]!r} against {labels[0]!r}"
        return frame
    # One block per class: log P(c | x) = [I_c - lse(I)] + sum_j u_j(c) + [lse(I) - lse(I + sum_j u_j)],
    # u_j the terms centred over the classes (a term the same for every class cancels).
    centred = terms - terms.mean(axis=1, keepdims=True)
    prior = intercept - logsumexp(intercept)
    with np.errstate(invalid="ignore"):
        normalizer = logsumexp(intercept) - logsumexp(intercept[None, :] + centred.sum(axis=2), axis=1)
    blocks = []
    for c in range(n_classes):
        blocks.append(np.column_stack([np.full(n, prior[c]), centred[:, c, :], normalizer]))
    columns = pd.MultiIndex.from_tuples(
        [(label, name) for label in labels for name in [PRIOR, *names, NORMALIZER]], names=["class", "term"]
    )
    frame = pd.DataFrame(np.hstack(blocks), index=index, columns=columns)
    frame.attrs["explains"] = "log-probability of each class"
    return frame


def _columns(names):
    """A flat column index (tuple names stay whole names, not a MultiIndex)."""
    return pd.Index(list(names), tupleize_cols=False, dtype=object)


# ----------------------------------------------------------------------------- Shapley values
def _check_shapley(method, max_exact, n_permutations):
    if method not in SHAPLEY_METHODS:
        raise ValueError(f"`method` must be one of {list(SHAPLEY_METHODS)}, got {method!r}.")
    for value, name, low in ((max_exact, "max_exact", 1), (n_permutations, "n_permutations", 2)):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < low:
            raise ValueError(f"`{name}` must be an integer >= {low}, got {value!r}.")


def _shapley_weights(p):
    """``M`` of shape (2**p, p): ``phi = v @ M`` for the values ``v`` of every coalition (bit j: attribute j in)."""
    masks = np.arange(2**p)
    bits = ((masks[:, None] >> np.arange(p)[None, :]) & 1).astype(bool)
    size = bits.sum(axis=1)
    # w(k) = k! (p - k - 1)! / p!: the weight of a coalition of k others.
    w = np.array([math.factorial(k) * math.factorial(p - k - 1) / math.factorial(p) for k in range(p)])
    with_j = w[np.maximum(size - 1, 0)]
    without_j = w[np.minimum(size, p - 1)]
    return np.where(bits, with_j[:, None], -without_j[:, None])


def _values(scores):
    """The game's values from class log-scores (..., n_classes): the log-odds, or each class's log-probability."""
    scores = np.asarray(scores, dtype=np.float64)
    if scores.shape[-1] == 2:
        with np.errstate(invalid="ignore"):
            return (scores[..., 1] - scores[..., 0])[..., None]
    with np.errstate(invalid="ignore"):
        return scores - logsumexp(scores, axis=-1, keepdims=True)


def _coalition_scores(model, codes):
    """Class log-scores of every row under every coalition, (n_rows, 2**p, n_classes), and the bits' attributes.

    Coalition index ``i`` holds the attributes ``bits[k]`` of the set bits ``k`` of ``i``.
    Forest-structured models get a dynamic programme over their trees; every other model scores
    the rows with the attributes outside the coalition coded as unseen (in blocks of rows).
    """
    n, p = codes.shape
    n_classes = len(model.classes_)
    forest = getattr(model, "_forest_coalition_scores", None)
    if forest is not None:
        result = forest(codes, local_order=True)
        if result is not None:
            return result
    masks = np.arange(2**p)
    bits = ((masks[:, None] >> np.arange(p)[None, :]) & 1).astype(bool)
    out = np.empty((n, 2**p, n_classes))
    step = max(1, _BLOCK_CELLS // (2**p * max(p, n_classes)))
    for start in range(0, n, step):
        block = codes[start : start + step]
        masked = np.where(bits[None, :, :], block[:, None, :], -1).reshape(-1, p)
        out[start : start + step] = np.asarray(model._class_log_scores(masked)).reshape(len(block), 2**p, n_classes)
    return out, list(range(p))


def _exact_shapley(model, codes):
    """(phi (n, n_values, p), base (n, n_values)) by every coalition of every distinct row."""
    n, p = codes.shape
    weights = _shapley_weights(p)
    unique, inverse = np.unique(codes, axis=0, return_inverse=True)
    inverse = inverse.ravel()
    phi, base = [], []
    n_values = 1 if len(model.classes_) == 2 else len(model.classes_)
    step = max(1, _BLOCK_CELLS // (2**p * len(model.classes_)))
    for start in range(0, len(unique), step):
        scores, bits = _coalition_scores(model, unique[start : start + step])
        values = _values(scores)  # (b, 2**p, V)
        b = len(values)
        # phi = v @ M, one matrix product over every row and value; column k is attribute bits[k].
        local = (np.moveaxis(values, 1, 2).reshape(b * n_values, 2**p) @ weights).reshape(b, n_values, p)
        ordered = np.empty_like(local)
        ordered[:, :, bits] = local
        phi.append(ordered)
        base.append(values[:, 0, :])
    return np.concatenate(phi)[inverse], np.concatenate(base)[inverse]


def _additive_log_odds(model):
    """Whether the model's two-class log-odds game is additive (naive Bayes, whatever its tables, says so)."""
    return bool(getattr(model, "_additive_log_odds", False)) and len(model.classes_) == 2


def _additive_shapley(model, codes):
    """An additive game's values from the empty coalition and the p singletons: phi_j = v({j}) - v({})."""
    n, p = codes.shape
    phi, base = np.empty((n, 1, p)), np.empty((n, 1))
    step = max(1, _BLOCK_CELLS // ((p + 1) * p))
    singletons = np.vstack([np.zeros((1, p), dtype=bool), np.eye(p, dtype=bool)])  # (p + 1, p)
    for start in range(0, n, step):
        block = codes[start : start + step]
        masked = np.where(singletons[None, :, :], block[:, None, :], -1).reshape(-1, p)
        values = _values(model._class_log_scores(masked)).reshape(len(block), p + 1)
        base[start : start + step, 0] = values[:, 0]
        phi[start : start + step, 0, :] = values[:, 1:] - values[:, :1]
    return phi, base


def _sampled_shapley(model, codes, n_permutations, rng):
    """Antithetic permutation sampling: (phi, standard error, base), each per row and value."""
    n, p = codes.shape
    half = n_permutations // 2
    orders = np.array([rng.permutation(p) for _ in range(half)])
    orders = np.concatenate([orders, orders[:, ::-1]])  # each permutation and its reverse
    n_orders = len(orders)
    # prefix[k, t] is the coalition of the first t attributes of permutation k, as a boolean row.
    prefix = np.zeros((n_orders, p + 1, p), dtype=bool)
    for t in range(1, p + 1):
        prefix[:, t] = prefix[:, t - 1]
        prefix[np.arange(n_orders), t, orders[:, t - 1]] = True
    flat = prefix.reshape(-1, p)
    n_values = 1 if len(model.classes_) == 2 else len(model.classes_)
    phi = np.zeros((n, n_values, p))
    error = np.zeros((n, n_values, p))
    base = np.zeros((n, n_values))
    step = max(1, _BLOCK_CELLS // (len(flat) * max(p, len(model.classes_))))
    for start in range(0, n, step):
        block = codes[start : start + step]
        b = len(block)
        masked = np.where(flat[None, :, :], block[:, None, :], -1).reshape(-1, p)
        values = _values(model._class_log_scores(masked)).reshape(b, n_orders, p + 1, n_values)
        gains = np.diff(values, axis=2)  # (b, K, p, V): the gain of the t-th attribute of each order
        contributions = np.zeros((b, n_orders, p, n_values))
        contributions[:, np.arange(n_orders)[:, None], orders, :] = gains
        paired = (contributions[:, :half] + contributions[:, half:]) / 2  # antithetic pairs
        phi[start : start + b] = np.moveaxis(paired.mean(axis=1), 2, 1)
        spread = paired.std(axis=1, ddof=1) if half > 1 else np.zeros_like(paired[:, 0])
        error[start : start + b] = np.moveaxis(spread / math.sqrt(half), 2, 1)
        base[start : start + b] = values[:, 0, 0, :]
    return phi, error, base


def shapley_values(
    model: Any,
    X: pd.DataFrame | ArrayLike,
    *,
    method: str = "auto",
    max_exact: int = MAX_EXACT,
    n_permutations: int = 200,
    random_state: int | np.random.Generator | None = None,
    return_std: bool = False,
) -> pd.DataFrame | tuple[pd.DataFrame, pd.DataFrame]:
    """Exact Shapley values of every attribute for every row, by marginalization.

    The game of a row: the value of a set ``S`` of attributes is the model's prediction with
    the others unobserved, each summed out exactly as the model sums out a state never seen
    (no background data, no independence assumed: Štrumbelj & Kononenko's explanation by
    marginalization [1]_ [2]_, the "conditional" Shapley values of pyAgrum). The value is the
    log-odds of ``classes_[1]`` against ``classes_[0]`` for two classes, else the log-probability
    of each class. The Shapley value of attribute ``j`` [3]_ is

    .. math:: \\phi_j = \\sum_{S \\subseteq N \\setminus \\{j\\}} \\frac{|S|! (p - |S| - 1)!}{p!}
              (v(S \\cup \\{j\\}) - v(S)).

    Parameters
    ----------
    model : fitted classifier
        Any graphmodels classifier.
    X : DataFrame or 2-D array-like of shape (n_rows, n_features)
        Rows to explain, as for ``predict_proba``.
    method : {"auto", "exact", "sampling"}, default="auto"
        ``"exact"`` evaluates every one of the ``2**p`` coalitions of each distinct row
        (vectorized over rows and coalitions; the tree-structured models, NaiveBayes, TAN, FAN and
        ChowLiu, by a dynamic programme over their trees that shares the sums of a subtree
        between coalitions). ``"sampling"`` averages the attributes' marginal contributions
        over `n_permutations` random orders, each with its reverse (antithetic pairs, which
        lower the variance of a sum of contributions), and gives each value its standard error.
        ``"auto"``: exact up to `max_exact` attributes.
    max_exact : int, default=15
    n_permutations : int, default=200
        Orders sampled (rounded down to an even number); the standard error falls as
        ``1 / sqrt(n_permutations)``.
    random_state : None, int or numpy Generator
        Seeds the permutations.
    return_std : bool, default=False
        Also return the standard errors (zeros when exact).

    Returns
    -------
    values : DataFrame
        One row per row of `X` (its index). Two classes: a column ``<prior>``, the value of the
        empty coalition (the prior log-odds), then one column per attribute; each row sums to
        the model's log-odds of that row exactly (efficiency; to rounding when sampled, as every
        order's contributions sum to it). More classes: one block of such columns per class
        (a MultiIndex ``(class, attribute)``), each block summing to ``log P(class | x)``.
    standard_errors : DataFrame
        With `return_std`: the same columns, the standard error of each value (0 for
        ``<prior>``).

    Raises
    ------
    NotFittedError
        If `model` is not fitted.
    ValueError
        For an unknown `method`, ``method="exact"`` with more than 25 attributes (but for
        naive Bayes with two classes), or a parameter outside its range.

    See Also
    --------
    graphmodels.models.BaseClassifier.explain : the model's own additive terms.

    Notes
    -----
    For naive Bayes with two classes the game is additive (each attribute adds its own
    log-ratio, observed or summed out), so its Shapley values are ``v({j}) - v({})``, exact for
    any number of attributes from ``p + 1`` evaluations a row (unless ``method="sampling"``);
    with generative tables they are its terms, ``shapley_values(nb, X)`` equals
    ``nb.explain(X)``. Exact enumeration costs ``2**p`` evaluations per distinct row, so
    ``"auto"`` samples beyond 15 attributes for the other models.

    References
    ----------
    .. [1] Štrumbelj, E., & Kononenko, I. (2014). Explaining prediction models and individual
           predictions with feature contributions. *Knowledge and Information Systems*,
           41(3), 647-665.
    .. [2] Kononenko, I., Šikonja, M. R., & Štrumbelj, E. (2010). An efficient explanation of
           individual classifications using game theory. *JMLR*, 11, 1-18.
    .. [3] Shapley, L. S. (1953). A value for n-person games. *Contributions to the Theory of
           Games*, 2, 307-317.

    Examples
    --------
    >>> import numpy as np
    >>> import graphmodels as gm
    >>> X, y = gm.datasets.load("voting", return_X_y=True)
    >>> tan = gm.TAN().fit(X, y)
    >>> values = gm.shapley_values(tan, X.head(3))
    >>> log_odds = np.diff(tan.predict_log_proba(X.head(3)), axis=1)[:, 0]
    >>> bool(np.allclose(values.sum(axis=1), log_odds))
    True
    """
    _check_shapley(method, max_exact, n_permutations)
    codes = np.asarray(model._encode_new(X), dtype=np.int64)
    n, p = codes.shape
    additive = method != "sampling" and _additive_log_odds(model)
    exact = additive or method == "exact" or (method == "auto" and p <= max_exact)
    if exact and not additive and p > 25:
        raise ValueError(f"method='exact' enumerates 2**{p} coalitions per row; use method='sampling' beyond 25.")
    if additive:
        phi, base = _additive_shapley(model, codes)
        error = np.zeros_like(phi)
    elif exact:
        phi, base = _exact_shapley(model, codes)
        error = np.zeros_like(phi)
    else:
        rng = np.random.default_rng(random_state)
        phi, error, base = _sampled_shapley(model, codes, max(2, n_permutations // 2 * 2), rng)
    index = _row_index(X, n)
    columns = list(model.encoder_.columns_)
    labels = [c.item() if isinstance(c, np.generic) else c for c in model.classes_]
    method_used = "exact" if exact else f"sampling ({max(2, n_permutations // 2 * 2)} orders)"
    if len(labels) == 2:
        names = _columns([PRIOR, *columns])
        values = pd.DataFrame(np.column_stack([base[:, 0], phi[:, 0, :]]), index=index, columns=names)
        errors = pd.DataFrame(np.column_stack([np.zeros(n), error[:, 0, :]]), index=index, columns=names)
        values.attrs["explains"] = f"log-odds of {labels[1]!r} against {labels[0]!r}"
    else:
        names = pd.MultiIndex.from_tuples(
            [(label, name) for label in labels for name in [PRIOR, *columns]], names=["class", "term"]
        )
        stack = lambda first, rest: np.hstack(  # noqa: E731
            [np.column_stack([first[:, c], rest[:, c, :]]) for c in range(len(labels))]
        )
        values = pd.DataFrame(stack(base, phi), index=index, columns=names)
        errors = pd.DataFrame(stack(np.zeros_like(base), error), index=index, columns=names)
        values.attrs["explains"] = "log-probability of each class"
    values.attrs["method"] = method_used
    return (values, errors) if return_std else values


# ----------------------------------------------------------------------------- forests
def forest_coalition_scores(
    codes: np.ndarray,
    parents: Sequence[int] | np.ndarray,
    tables: Sequence[np.ndarray],
    class_log_prior: np.ndarray,
    *,
    local_order: bool = False,
) -> Any:
    """``log P(y, x_S)`` of every row and every coalition ``S`` under a forest of parents given the class.

    A dynamic programme over the forest, in probability space: each attribute's message to its
    parent, for every pattern of observed attributes in its subtree, is
    ``lambda_j(a) = sum_b P(b | a, y) [b = x_j if j observed] prod_k lambda_k(b)``, so each
    subtree's sums are shared by every coalition that agrees on it.

    Parameters
    ----------
    codes : ndarray of shape (n_rows, p)
        ``-1`` for a state never seen (then observed and unobserved agree).
    parents : sequence of int, length p
        Each attribute's attribute parent, -1 for a root.
    tables : sequence of ndarray
        ``tables[j]`` of shape (n_strata, r_parent or 1, r_j): ``log P(x_j | y, x_parent)``.
    class_log_prior : ndarray of shape (n_strata,)
    local_order : bool, default=False
        Return the coalitions in the programme's own order of the attributes, and that order
        (no transposition of the result).

    Returns
    -------
    ndarray of shape (n_rows, 2**p, n_strata)
        Coalition ``S`` at index ``sum_{j in S} 2**j``; with `local_order`, at
        ``sum_{i: bits[i] in S} 2**i``, returned with ``bits``.
    """
    n, p = codes.shape
    n_strata = len(class_log_prior)
    parents = [int(q) for q in parents]
    children: list[list[int]] = [[] for _ in range(p)]
    roots: list[int] = []
    for j, q in enumerate(parents):
        (roots if q < 0 else children[q]).append(j)
    order: list[int] = []
    stack = list(reversed(roots))
    while stack:
        j = stack.pop()
        order.append(j)
        stack.extend(reversed(children[j]))
    # Each table scaled by its largest entry per class, so that products stay in range; the
    # scales add back in log space (every attribute contributes one entry or one sum of its table).
    shift = np.zeros(n_strata)
    scaled = []
    for table in tables:
        table = np.asarray(table, dtype=np.float64)
        top = np.max(np.where(np.isfinite(table), table, -np.inf), axis=(1, 2))
        top = np.where(np.isfinite(top), top, 0.0)
        shift += top
        scaled.append(np.exp(table - top[:, None, None]))
    # The largest array of a row: a subtree's patterns times the states of its root or parent.
    size = [1] * p
    for j in reversed(order):
        size[j] += sum(size[k] for k in children[j])
    widest = max((2 ** size[j] * max(scaled[j].shape[1], scaled[j].shape[2]) for j in range(p)), default=1)
    step = max(1, 2 * _BLOCK_CELLS // (n_strata * max(widest, 2**p)))
    out = np.empty((n, 2**p, n_strata))
    for start in range(0, n, step):
        block = codes[start : start + step]
        total, bits = _forest_messages(block, children, roots, order, scaled, n_strata)
        with np.errstate(divide="ignore"):
            out[start : start + step] = np.log(np.moveaxis(total, 1, 2)) + (shift + class_log_prior)
    if not local_order:
        # Local bit i is attribute bits[i]; put attribute j at bit j.
        axis_of = {a: 1 + (p - 1 - i) for i, a in enumerate(bits)}
        shaped = out.reshape((n,) + (2,) * p + (n_strata,))
        ordered = np.transpose(shaped, (0, *[axis_of[a] for a in range(p - 1, -1, -1)], p + 1))
        return np.ascontiguousarray(ordered).reshape(n, 2**p, n_strata)
    return out, bits


def _combine(messages, width):
    """The product of messages over one variable's states, every pattern of each (the first lowest)."""
    n, n_strata = messages[0][0].shape[:2] if messages else (0, 0)
    product, bits = None, []
    for lam, lam_bits in messages:
        if product is None:
            product, bits = lam, list(lam_bits)
            continue
        product = (lam[:, :, :, None, :] * product[:, :, None, :, :]).reshape(n, n_strata, -1, width)
        bits = bits + list(lam_bits)
    return product, bits


def _forest_messages(codes, children, roots, order, scaled, n_strata):
    """The product of the roots' messages (n, S, 2**p) and the attribute of each of its bits."""
    n = codes.shape[0]
    message: dict[int, tuple[np.ndarray, list[int]]] = {}
    for j in reversed(order):
        table = scaled[j]  # (S, r_parent, r_j)
        r_parent, r_j = table.shape[1], table.shape[2]
        product, child_bits = _combine([message.pop(k) for k in children[j]], r_j)
        if product is None:
            product = np.ones((n, n_strata, 1, r_j))
        hidden = np.matmul(product, np.transpose(table, (0, 2, 1)))  # (n, S, P, r_parent)
        x = codes[:, j]
        seen = x >= 0
        at = np.where(seen, x, 0)
        picked = np.take_along_axis(product, at[:, None, None, None], axis=3)  # (n, S, P, 1)
        entry = np.transpose(table[:, :, at], (2, 0, 1))  # (n, S, r_parent)
        observed = picked * entry[:, :, None, :]
        if not seen.all():
            observed = np.where(seen[:, None, None, None], observed, hidden)
        # j's own bit lowest: index = 2 * (children's pattern) + [j observed].
        message[j] = (np.stack([hidden, observed], axis=3).reshape(n, n_strata, -1, r_parent), [j, *child_bits])
    total, bits = _combine([message.pop(r) for r in roots], 1)
    if total is None:
        return np.ones((n, n_strata, 1)), []
    return total[..., 0], bits
