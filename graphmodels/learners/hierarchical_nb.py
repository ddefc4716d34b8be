"""Hierarchical naive Bayes (Langseth & Nielsen): greedy introduction of
latent variables over pairs of the class's children, wrapped in
cross-validated accuracy.

Each latent variable is a deterministic function of its two children: its
states are groups of child configurations, found by collapsing states while
the locally decomposable predictive-MDL gain is positive. With the latent
values inferred, the model is again naive Bayes over the class's children,
so every candidate is scored by fitting naive Bayes.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from typing import TYPE_CHECKING, Any, Literal, overload

import numpy as np
from numpy.typing import ArrayLike

from .._special import xlogy
from .._trace import new_trace, traced
from ..estimators.parameters import Estimator, get_estimator
from ..stats.counting import CountingEngine
from ..stats.information import pairwise_mutual_information

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "collapse_gain",
    "collapse_states",
    "pair_significance",
    "hierarchical_naive_bayes_search",
    "LatentVariable",
]

SCORINGS = ("accuracy", "log_loss")


def collapse_gain(counts_i: ArrayLike, counts_j: ArrayLike, n_total: float) -> np.ndarray | float:
    """Delta_L of collapsing two latent states (Langseth & Nielsen, "Locally decomposable IV").

    .. math::
        \\Delta_L = \\frac{\\log N}{2}|C|
        - \\sum_c N(c, l_i) \\log\\frac{N(c, l_i)}{N(c, l_i) + N(c, l_j)}
        - \\sum_c N(c, l_j) \\log\\frac{N(c, l_j)}{N(c, l_i) + N(c, l_j)}
        + N(l_i) \\log\\frac{N(l_i)}{N(l_i) + N(l_j)}
        + N(l_j) \\log\\frac{N(l_j)}{N(l_i) + N(l_j)}

    The first term is the parameters saved (one state fewer in ``P(L | C)``,
    ``|C|`` parameters); the rest is minus the loss of conditional
    log-likelihood of the class given the latent. Positive: collapse.

    Parameters
    ----------
    counts_i, counts_j : array-like of shape (..., n_classes)
        Class counts ``N(c, l)`` of the two states (broadcastable).
    n_total : float
        Number of training cases N.

    Returns
    -------
    float or ndarray

    Examples
    --------
    Two states with the same class distribution always collapse:

    >>> float(collapse_gain([10, 0], [5, 0], 15)) > 0
    True
    """
    a = np.asarray(counts_i, dtype=float)
    b = np.asarray(counts_j, dtype=float)
    both = a + b
    n_a, n_b = a.sum(axis=-1), b.sum(axis=-1)
    n_both = n_a + n_b
    saved = 0.5 * math.log(n_total) * a.shape[-1]
    class_part = (xlogy(a, a) - xlogy(a, both) + xlogy(b, b) - xlogy(b, both)).sum(axis=-1)
    state_part = xlogy(n_a, n_a) - xlogy(n_a, n_both) + xlogy(n_b, n_b) - xlogy(n_b, n_both)
    return saved - class_part + state_part


@overload
def collapse_states(class_counts: ArrayLike, n_total: float, *, trace: Literal[False] = ...) -> np.ndarray: ...


@overload
def collapse_states(
    class_counts: ArrayLike, n_total: float, *, trace: Literal[True]
) -> tuple[np.ndarray, pd.DataFrame]: ...


@overload
def collapse_states(
    class_counts: ArrayLike, n_total: float, *, trace: bool = ...
) -> np.ndarray | tuple[np.ndarray, pd.DataFrame]: ...


def collapse_states(
    class_counts: ArrayLike, n_total: float, *, trace: bool = False
) -> np.ndarray | tuple[np.ndarray, pd.DataFrame]:
    """Group configurations into latent states by greedy collapsing.

    Starts with one state per row of `class_counts` with a positive count
    (one per child configuration present in the data) and repeatedly merges
    the pair of states with the largest positive :func:`collapse_gain`
    (ties: the first pair in row order), until no merge has a positive gain.

    Parameters
    ----------
    class_counts : ndarray of shape (n_configurations, n_classes)
    n_total : float
        N of the gain (the number of training cases).
    trace : bool, default=False
        Also return the steps (see Returns).

    Returns
    -------
    state_of : ndarray of int, shape (n_configurations,)
        State of each configuration, ``-1`` for configurations never seen;
        states are numbered by their first configuration.
    trace : DataFrame
        Only with ``trace=True``: an ``"initial"`` step per configuration
        present (``item`` its row of `class_counts`, ``score`` its count:
        a state of its own); a ``"collapse"`` step per merge, in order
        (``item`` the two states merged, each a tuple of configurations;
        ``score`` their ``Delta_L``); a ``"stop"`` step (``score`` the best
        ``Delta_L`` left, not positive, NaN when one state is left).
        Merging as the ``"collapse"`` steps say rebuilds `state_of`.

    Examples
    --------
    XOR of two bits: configurations (0,0),(1,1) give class 0, (0,1),(1,0) class 1.

    >>> collapse_states(np.array([[20, 0], [0, 20], [0, 20], [20, 0]]), 80).tolist()
    [0, 1, 1, 0]
    >>> state_of, steps = collapse_states(np.array([[20, 0], [0, 20], [0, 20], [20, 0]]), 80, trace=True)
    >>> steps.loc[steps["action"] == "collapse", "item"].tolist()
    [((0,), (3,)), ((1,), (2,))]
    """
    record = new_trace(trace, "collapse_states")
    return traced(_collapse(class_counts, n_total, record), record)


def _collapse(class_counts, n_total, record, name=None):
    """:func:`collapse_states`, recording into `record` (configurations named by `name(index)`)."""
    counts = np.asarray(class_counts, dtype=float)
    present = np.flatnonzero(counts.sum(axis=1) > 0)
    groups = [[int(i)] for i in present]
    table = counts[present].copy()
    name = name or (lambda index: index)
    if record is not None:
        for i in present:
            record.add("initial", name(int(i)), float(counts[i].sum()), "a configuration seen: a state of its own")
    best = np.nan
    if len(groups) > 1:
        gains = np.asarray(collapse_gain(table[:, None, :], table[None, :, :], n_total))
        upper = np.triu(np.ones(gains.shape, dtype=bool), k=1)
        gains = np.where(upper, gains, -np.inf)
        while len(groups) > 1:
            flat = int(np.argmax(gains))
            i, j = divmod(flat, gains.shape[1])
            best = float(gains[i, j])
            if not gains[i, j] > 0:
                break
            if record is not None:
                record.add(
                    "collapse",
                    (tuple(name(c) for c in groups[i]), tuple(name(c) for c in groups[j])),
                    best,
                    "the largest Delta_L, positive: the two states become one",
                )
                best = np.nan
            # Merge j into i; drop j's row and column.
            groups[i] += groups[j]
            table[i] += table[j]
            keep = np.arange(len(groups)) != j
            del groups[j]
            table = table[keep]
            gains = gains[keep][:, keep]
            i = i if i < j else i - 1
            row = collapse_gain(table[i], table, n_total)
            gains[i, :] = np.where(np.arange(len(groups)) > i, row, -np.inf)
            gains[:, i] = np.where(np.arange(len(groups)) < i, row, -np.inf)
    if record is not None:
        reason = "one state left" if len(groups) < 2 else "no pair of states has a positive Delta_L"
        record.add("stop", None, best, reason)
    state_of = np.full(len(counts), -1, dtype=np.int64)
    groups.sort(key=min)
    for s, group in enumerate(groups):
        state_of[group] = s
    return state_of


def pair_significance(engine: CountingEngine, variables: Sequence[Hashable], class_variable: Hashable) -> np.ndarray:
    """``log P(Z > 2 N I(X; Y | C))`` for every pair, Z chi-square with ``|C|(|X|-1)(|Y|-1)`` df.

    The smaller, the more significant the dependence: ranking pairs by it
    (rather than by raw conditional mutual information) does not favour
    variables with many states. All pairwise tables come from one pass of
    the counting engine.

    Parameters
    ----------
    engine : CountingEngine
    variables : sequence of names or positions
        The n variables whose pairs are tested.
    class_variable : name or position
        The conditioning variable C.

    Returns
    -------
    ndarray of shape (n, n)
        ``+inf`` on the diagonal and for pairs with zero degrees of freedom.
    """
    from scipy import stats as _stats

    statistic, dof = _pair_statistics(engine, variables, class_variable)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(dof > 0, _stats.chi2.logsf(statistic, np.maximum(dof, 1)), np.inf)
    np.fill_diagonal(out, np.inf)
    return out


def _pair_statistics(engine, variables, class_variable):
    """``2 N I(X; Y | C)`` and its chi-square degrees of freedom for all pairs."""
    info = pairwise_mutual_information(engine, variables, given=class_variable)
    n_classes = engine.cardinality(class_variable)
    cards = np.array([engine.cardinality(v) for v in variables], dtype=float)
    dof = n_classes * np.outer(cards - 1, cards - 1)
    return 2.0 * engine.total * np.maximum(info, 0.0), dof


def _ranked_pairs(engine, variables, class_variable):
    """Pairs (i < j) with positive degrees of freedom, most significant first.

    The tail probability underflows (log = -inf) for very strong
    dependences; those are ranked first, by their standardized statistic.
    """
    significance = pair_significance(engine, variables, class_variable)
    statistic, dof = _pair_statistics(engine, variables, class_variable)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(dof > 0, (statistic - dof) / np.sqrt(2.0 * np.maximum(dof, 1)), -np.inf)
    i, j = np.triu_indices(len(variables), k=1)
    keep = dof[i, j] > 0
    i, j = i[keep], j[keep]
    order = np.lexsort((-z[i, j], significance[i, j]))
    return [(int(i[k]), int(j[k]), float(significance[i[k], j[k]])) for k in order]


class LatentVariable:
    """A latent variable of a hierarchical naive Bayes model: a lookup table from
    its children's states to its own.

    Attributes
    ----------
    name : hashable
    children : tuple of two names (attributes or earlier latents)
    state_of : ndarray of int, shape (r_child_1, r_child_2)
        The latent's state for each child configuration; ``-1`` for
        configurations not seen in training (the latent is then unknown and
        summed out).
    """

    def __init__(self, name: Hashable, children: Sequence[Hashable], state_of: ArrayLike) -> None:
        self.name = name
        self.children = tuple(children)
        self.state_of = np.asarray(state_of, dtype=np.int64)

    @property
    def cardinality(self) -> int:
        """Number of states (0 when no configuration was seen)."""
        return int(self.state_of.max()) + 1 if self.state_of.size else 0

    def codes(self, first: np.ndarray, second: np.ndarray) -> np.ndarray:
        """Latent codes of rows with child codes `first`, `second` (-1 where either is unknown)."""
        known = (first >= 0) & (second >= 0)
        out = np.full(len(first), -1, dtype=np.int64)
        out[known] = self.state_of[first[known], second[known]]
        return out

    def configurations(self) -> list[list[tuple[int, int]]]:
        """For each state, the list of child configurations (code pairs) it stands for."""
        states: list[list[tuple[int, int]]] = [[] for _ in range(self.cardinality)]
        for (a, b), s in np.ndenumerate(self.state_of):
            if s >= 0:
                states[s].append((int(a), int(b)))
        return states


def _stratified_folds(y, n_folds, rng):
    """Fold index of each row, stratified by class."""
    folds = np.empty(len(y), dtype=np.int64)
    for label in np.unique(y):
        rows = np.flatnonzero(y == label)
        rng.shuffle(rows)
        folds[rows] = np.arange(len(rows)) % n_folds
    # Rotate so that small classes do not always land in the first folds.
    return folds


def naive_bayes_log_posterior(
    children: Sequence[np.ndarray],
    cards: Sequence[int],
    y: np.ndarray,
    weights: np.ndarray,
    n_classes: int,
    estimator: Estimator,
    train: np.ndarray,
    test: np.ndarray,
) -> np.ndarray:
    """Class log-posteriors of the `test` rows under naive Bayes fitted on the `train` rows.

    Children are (n_rows,) code arrays; code -1 drops the child's factor.
    """
    prior_counts = np.bincount(y[train], weights=weights[train], minlength=n_classes)
    log_joint = np.tile(
        np.log(estimator.joint(prior_counts)), (int(test.sum()) if test.dtype == bool else len(test), 1)
    )
    y_train, w_train = y[train], weights[train]
    for codes, r in zip(children, cards):
        x = codes[train]
        seen = x >= 0
        counts = np.bincount(y_train[seen] * r + x[seen], weights=w_train[seen], minlength=n_classes * r).reshape(
            n_classes, r
        )
        log_cpt = np.log(estimator.conditional(counts))  # (C, r)
        x_test = codes[test]
        known = x_test >= 0
        log_joint[known] += log_cpt[:, x_test[known]].T
    top = log_joint.max(axis=1, keepdims=True)
    return log_joint - (np.log(np.exp(log_joint - top).sum(axis=1, keepdims=True)) + top)


def _cv_score(children, cards, y, weights, n_classes, estimator, folds, n_folds, scoring, latent=None):
    """Cross-validated accuracy (or minus log-loss) of naive Bayes over `children`.

    With `latent` = (i, j, r_i, r_j): children i and j are replaced by a new
    latent learned on each fold's training rows (so the score is honest
    about the latent's own fit).
    """
    total, weight = 0.0, 0.0
    for fold in range(n_folds):
        test = folds == fold
        train = ~test
        if not test.any() or not train.any():
            continue
        these, these_cards = list(children), list(cards)
        if latent is not None:
            i, j = latent
            codes, r = _latent_codes(children[i], children[j], cards[i], cards[j], y, weights, n_classes, train)
            these = [c for k, c in enumerate(children) if k not in (i, j)] + [codes]
            these_cards = [c for k, c in enumerate(cards) if k not in (i, j)] + [r]
        log_post = naive_bayes_log_posterior(these, these_cards, y, weights, n_classes, estimator, train, test)
        w = weights[test]
        if scoring == "accuracy":
            total += float(w @ (np.argmax(log_post, axis=1) == y[test]))
        else:
            total += float(w @ log_post[np.arange(len(w)), y[test]])
        weight += float(w.sum())
    return total / weight if weight > 0 else -np.inf


def _latent_state_table(first, second, r_first, r_second, y, weights, n_classes, rows, record=None):
    """``state_of`` (r_first, r_second) learned by collapsing on the given rows.

    A `record` gets the collapsing steps, configurations named by their
    pair of child codes.
    """
    known = rows & (first >= 0) & (second >= 0)
    config = first[known] * r_second + second[known]
    counts = np.bincount(
        config * n_classes + y[known], weights=weights[known], minlength=r_first * r_second * n_classes
    ).reshape(r_first * r_second, n_classes)
    n_total = float(weights[rows].sum())
    name = None if record is None else (lambda index: divmod(index, r_second))
    return _collapse(counts, max(n_total, 1.0), record, name).reshape(r_first, r_second)


def _latent_codes(first, second, r_first, r_second, y, weights, n_classes, rows):
    table = _latent_state_table(first, second, r_first, r_second, y, weights, n_classes, rows)
    latent = LatentVariable(None, (None, None), table)
    return latent.codes(first, second), max(latent.cardinality, 1)


@overload
def hierarchical_naive_bayes_search(
    engine: CountingEngine,
    class_variable: Hashable | None = ...,
    *,
    n_folds: int = ...,
    scoring: str = ...,
    n_candidate_pairs: int = ...,
    max_latents: int | None = ...,
    estimator: Estimator | str | dict[str, Any] = ...,
    random_state: int | np.random.Generator | None = ...,
    latent_names: Callable[[int], Hashable] | None = ...,
    trace: Literal[False] = ...,
) -> tuple[list[LatentVariable], list[dict[str, Any]]]: ...


@overload
def hierarchical_naive_bayes_search(
    engine: CountingEngine,
    class_variable: Hashable | None = ...,
    *,
    n_folds: int = ...,
    scoring: str = ...,
    n_candidate_pairs: int = ...,
    max_latents: int | None = ...,
    estimator: Estimator | str | dict[str, Any] = ...,
    random_state: int | np.random.Generator | None = ...,
    latent_names: Callable[[int], Hashable] | None = ...,
    trace: Literal[True],
) -> tuple[list[LatentVariable], list[dict[str, Any]], pd.DataFrame]: ...


@overload
def hierarchical_naive_bayes_search(
    engine: CountingEngine,
    class_variable: Hashable | None = ...,
    *,
    n_folds: int = ...,
    scoring: str = ...,
    n_candidate_pairs: int = ...,
    max_latents: int | None = ...,
    estimator: Estimator | str | dict[str, Any] = ...,
    random_state: int | np.random.Generator | None = ...,
    latent_names: Callable[[int], Hashable] | None = ...,
    trace: bool = ...,
) -> (
    tuple[list[LatentVariable], list[dict[str, Any]]] | tuple[list[LatentVariable], list[dict[str, Any]], pd.DataFrame]
): ...


def hierarchical_naive_bayes_search(
    engine: CountingEngine,
    class_variable: Hashable | None = None,
    *,
    n_folds: int = 5,
    scoring: str = "accuracy",
    n_candidate_pairs: int = 3,
    max_latents: int | None = None,
    estimator: Estimator | str | dict[str, Any] = "bdeu",
    random_state: int | np.random.Generator | None = None,
    latent_names: Callable[[int], Hashable] | None = None,
    trace: bool = False,
) -> (
    tuple[list[LatentVariable], list[dict[str, Any]]] | tuple[list[LatentVariable], list[dict[str, Any]], pd.DataFrame]
):
    """Greedy search for a hierarchical naive Bayes model (Langseth & Nielsen [1]_).

    Starting from naive Bayes (H_0), each step considers a new latent
    variable as a child of the class with two of the class's current
    children (attributes or earlier latents) as its children. The candidate
    pairs are the `n_candidate_pairs` pairs with the highest
    ``P(Z <= 2 N I(X; Y | C))``, Z chi-square with ``|C|(|X|-1)(|Y|-1)``
    degrees of freedom (:func:`pair_significance`). A candidate's states
    start as one per child configuration in the data and are collapsed
    while the predictive-MDL gain :func:`collapse_gain` is positive
    (:func:`collapse_states`); the latent is then a function of its
    children and the model is naive Bayes over the class's children. The
    best candidate by the wrapper score (`n_folds`-fold cross-validated
    accuracy on the training data, or log-likelihood with
    ``scoring="log_loss"``; the latent is re-learned on each fold's training
    rows) is accepted if it beats the current model's score; otherwise the
    search stops.

    Parameters
    ----------
    engine : CountingEngine
        Attributes and the class (codes, no -1 in the class).
    class_variable : name, optional
        Defaults to the engine's last variable.
    n_folds : int, default=5
    scoring : {"accuracy", "log_loss"}, default="accuracy"
    n_candidate_pairs : int, default=3
        Pairs tried per step, most significant first (the slides try one).
        More pairs find more latents (on kr-vs-kp, 10 lift the 5-fold
        accuracy from 87.6% to 91.5%) but the wrapper's optimism then lets
        some through that hurt (breast-cancer-wisconsin drops 1.3 points
        below naive Bayes); see benchmarks/RESULTS.md.
    max_latents : int, optional
        Most latent variables to introduce.
    estimator : Estimator, str or dict, default="bdeu"
        Parameters of the naive Bayes models scored (see
        :func:`~graphmodels.estimators.get_estimator`).
    random_state : None, int or Generator
        Seeds the folds.
    latent_names : callable, optional
        ``k -> name`` of the k-th latent (1-based); defaults to ``"L1"``,
        ``"L2"``, ... (with underscores added if a name is taken).
    trace : bool, default=False
        Also return the steps of the search (see Returns).

    Returns
    -------
    latents : list of LatentVariable
        In the order introduced; children name attributes or earlier latents.
    history : list of dict
        One entry per step, H_0 first: ``latent``, ``children``,
        ``cardinality``, ``score`` (of the model accepted at that step),
        ``candidates`` (list of ``(children, log_significance, score)``).
    trace : DataFrame
        Only with ``trace=True``: one row per step. ``"start"`` (``score``
        the wrapper score of naive Bayes, H_0); then per round of the
        search, a ``"test"`` step per candidate pair, most significant
        first (``item`` the pair of children, ``significance`` its
        ``log P(Z > 2 N I)``, ``score`` the wrapper score with a latent
        over it), or ``"skip"`` for a pair whose table would exceed
        ``max_cells``; then ``"accept"`` (the best candidate beats the
        current score: ``latent`` its name, ``cardinality`` its states) or
        ``"reject"`` (it does not: the search ends). An accepted latent's
        states follow, learned on all rows by :func:`collapse_states`:
        ``"initial"`` (``item`` a configuration of its children, a pair of
        child codes, ``score`` its count), ``"collapse"`` (``item`` the two
        states merged, tuples of configurations; ``score`` their
        ``Delta_L``) and ``"stop"`` (the best ``Delta_L`` left), each with
        ``latent``. A ``"stop"`` step without a latent ends a search that
        ran out of pairs or reached `max_latents`. The accepted latents,
        their children and their collapsed states rebuild `latents`.

    References
    ----------
    .. [1] Langseth, H., & Nielsen, T. D. (2006). Classification using
           hierarchical naive Bayes models. *Machine Learning*, 63(2),
           135-159 (workshop slides "Classification using Hierarchical
           Naive Bayes Models").
    .. [2] Elidan, G., & Friedman, N. (2001). Learning the dimensionality of
           hidden variables. *UAI*.
    """
    class_position = engine.n_variables - 1 if class_variable is None else engine.position(class_variable)
    if isinstance(n_folds, bool) or not isinstance(n_folds, (int, np.integer)) or n_folds < 2:
        raise ValueError(f"`n_folds` must be an integer >= 2, got {n_folds!r}.")
    if scoring not in SCORINGS:
        raise ValueError(f"`scoring` must be one of {list(SCORINGS)}, got {scoring!r}.")
    if (
        isinstance(n_candidate_pairs, bool)
        or not isinstance(n_candidate_pairs, (int, np.integer))
        or n_candidate_pairs < 1
    ):
        raise ValueError(f"`n_candidate_pairs` must be an integer >= 1, got {n_candidate_pairs!r}.")
    if max_latents is not None and (not isinstance(max_latents, (int, np.integer)) or max_latents < 0):
        raise ValueError(f"`max_latents` must be None or an integer >= 0, got {max_latents!r}.")
    record = new_trace(
        trace, "hierarchical_naive_bayes_search", "latent", "significance", "cardinality", integers=["cardinality"]
    )
    estimator = get_estimator(estimator)
    rng = np.random.default_rng(random_state)

    codes, weights = engine.rows()
    y = codes[:, class_position]
    n_classes = int(engine.cardinalities[class_position])
    names = [engine.names[p] for p in range(engine.n_variables) if p != class_position]
    children = [codes[:, p] for p in range(engine.n_variables) if p != class_position]
    cards = [int(engine.cardinalities[p]) for p in range(engine.n_variables) if p != class_position]
    n_folds = int(min(n_folds, max(2, np.bincount(y).max())))
    folds = _stratified_folds(y, n_folds, rng)
    all_rows = np.ones(len(y), dtype=bool)

    taken = set(names) | {engine.names[class_position]}

    def next_name(k):
        name = latent_names(k) if latent_names is not None else f"L{k}"
        while name in taken:
            name = f"{name}_"
        taken.add(name)
        return name

    score = _cv_score(children, cards, y, weights, n_classes, estimator, folds, n_folds, scoring)
    history = [{"latent": None, "children": None, "cardinality": None, "score": score, "candidates": []}]
    if record is not None:
        record.add("start", None, score, f"naive Bayes (H_0): {n_folds}-fold cross-validated {scoring}")
    latents: list[LatentVariable] = []
    while max_latents is None or len(latents) < max_latents:
        if len(children) < 2:
            if record is not None:
                record.add("stop", None, reason="fewer than two children of the class left")
            break
        # Named as the user's columns (and the latents), so that a table-size error names them.
        pair_engine = CountingEngine(
            np.column_stack(children + [y]),
            cards + [n_classes],
            names=names + [engine.names[class_position]],
            sample_weight=weights,
            max_cells=engine.max_cells,
        )
        pairs = _ranked_pairs(pair_engine, names, engine.names[class_position])[:n_candidate_pairs]
        if not pairs:
            if record is not None:
                record.add("stop", None, reason="no pair of children with positive degrees of freedom")
            break
        candidates = []
        for i, j, significance in pairs:
            if cards[i] * cards[j] * n_classes > engine.max_cells:
                if record is not None:
                    reason = f"its table would have {cards[i] * cards[j] * n_classes} cells > max_cells"
                    record.add("skip", (names[i], names[j]), reason=reason, significance=significance)
                continue
            value = _cv_score(children, cards, y, weights, n_classes, estimator, folds, n_folds, scoring, latent=(i, j))
            candidates.append(((names[i], names[j]), significance, value, i, j))
            if record is not None:
                reason = f"cross-validated {scoring} with a latent over the pair"
                record.add("test", (names[i], names[j]), value, reason, significance=significance)
        if not candidates:
            if record is not None:
                record.add("stop", None, reason="no candidate pair fits in max_cells")
            break
        best = max(candidates, key=lambda c: c[2])  # first of the best on ties
        history[-1]["candidates"] = [c[:3] for c in candidates]
        if not best[2] > score:
            if record is not None:
                reason = f"the best candidate does not beat the current score {score:.6g}: the search ends"
                record.add("reject", best[0], best[2], reason, significance=best[1])
            break
        previous = score
        _, _, score, i, j = best
        name = next_name(len(latents) + 1)
        accepted = None
        if record is not None:
            accepted = record.add(
                "accept",
                (names[i], names[j]),
                score,
                f"beats the current score {previous:.6g}",
                latent=name,
                significance=best[1],
            )
            first_collapse = len(record)
        table = _latent_state_table(
            children[i], children[j], cards[i], cards[j], y, weights, n_classes, all_rows, record
        )
        latent = LatentVariable(name, (names[i], names[j]), table)
        if record is not None and accepted is not None:
            accepted["cardinality"] = latent.cardinality
            for row in record.rows[first_collapse:]:
                row["latent"] = name
        latents.append(latent)
        new_codes = latent.codes(children[i], children[j])
        children = [c for k, c in enumerate(children) if k not in (i, j)] + [new_codes]
        cards = [c for k, c in enumerate(cards) if k not in (i, j)] + [max(latent.cardinality, 1)]
        names = [c for k, c in enumerate(names) if k not in (i, j)] + [latent.name]
        history.append(
            {
                "latent": latent.name,
                "children": latent.children,
                "cardinality": latent.cardinality,
                "score": score,
                "candidates": [],
            }
        )
    else:
        if record is not None and max_latents is not None:
            record.add("stop", None, reason=f"max_latents={max_latents} latents introduced")
    return traced((latents, history), record)
