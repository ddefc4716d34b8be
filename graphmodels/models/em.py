"""Expectation-maximization for Bayesian networks with unobserved cells and latent variables.

EM (Dempster, Laird & Rubin 1977) alternates an E-step, the expected family counts under the
current parameters given what each row shows, and an M-step, the parameters the estimator gives
those counts. The E-step is exact inference in the inference layer: one
:class:`~graphmodels.inference.JunctionTree` compiled per EM run, whose conditional tables are
*slots* given anew with each question, asked for the clique beliefs of many rows at once
(batched evidence). Rows that show the same cells (the distinct row patterns) are asked once,
with their count as weight; fully observed rows never reach the tree, their counts come from
the counting engine. A variable no row observes (a latent variable) is handled the same way,
from a random start: the latent class model is naive Bayes with a hidden class.

Structural EM (Friedman 1997) puts a structure search inside the loop: the unobserved cells
are completed by exact samples from the current network (:meth:`JunctionTree.sample_rows`,
several completions per row, weighted), the search climbs from the current DAG on the
completed rows' counts, and EM refits the parameters of the new DAG; it stops when the DAG
no longer changes.

References
----------
.. [1] Dempster, A. P., Laird, N. M., & Rubin, D. B. (1977). Maximum likelihood from incomplete
       data via the EM algorithm. *Journal of the Royal Statistical Society B*, 39(1), 1-38.
.. [2] Lauritzen, S. L. (1995). The EM algorithm for graphical association models with missing
       data. *Computational Statistics & Data Analysis*, 19(2), 191-201.
.. [3] Friedman, N. (1997). Learning belief networks in the presence of missing values and
       hidden variables. In *Proceedings of the 14th International Conference on Machine
       Learning*, 125-133.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from ..estimators.parameters import Estimator
from ..inference.junction_tree import JunctionTree
from ..stats.counting import CountingEngine, unique_rows

__all__ = ["EMResult", "expectation_maximization", "network_log_likelihood", "complete_rows"]

#: Cells of the clique beliefs of one batch of rows (float64): about 64 MB.
BATCH_CELLS = 1 << 23


@dataclass
class EMResult:
    """What :func:`expectation_maximization` returns.

    Attributes
    ----------
    log_tables : list of ndarray
        ``log P(x_v | parents)`` of every variable, shape ``(*parent cardinalities, r_v)``.
    trace : DataFrame
        One row per iteration: ``iteration``, ``start`` (the random start, with ``n_init``),
        ``log_likelihood`` (of the observed cells, nats, under the parameters the iteration
        starts from), ``change`` (from the previous iteration) and ``seconds``.
    log_likelihood : float
        Of the observed cells under the returned parameters.
    converged : bool
    """

    log_tables: list[np.ndarray]
    trace: pd.DataFrame
    log_likelihood: float
    converged: bool


def _slots_tree(parents: Sequence[Sequence[int]], cards: Sequence[int], max_cells: int, names) -> JunctionTree:
    """A junction tree whose every conditional table is a slot, given with each question."""
    return JunctionTree(
        [((*ps, v), None) for v, ps in enumerate(parents)], list(cards), max_cells=max_cells, names=names
    )


def _evidence(codes: np.ndarray, cards: Sequence[int]) -> dict[int, np.ndarray]:
    """Batched likelihoods of the columns of `codes` (-1: unobserved, a row of ones)."""
    evidence = {}
    n = len(codes)
    for j in range(codes.shape[1]):
        column = codes[:, j]
        known = column >= 0
        if not known.any():
            continue
        table = np.ones((n, int(cards[j])))
        table[known] = 0.0
        table[np.flatnonzero(known), column[known]] = 1.0
        evidence[j] = table
    return evidence


def _batch_rows(tree: JunctionTree) -> int:
    cells = sum(math.prod(tree.cardinalities[v] for v in clique) for clique in tree.cliques)
    return int(max(16, min(8192, BATCH_CELLS // max(cells, 1))))


def _family_homes(tree: JunctionTree, parents: Sequence[Sequence[int]]) -> list[int]:
    """A clique holding each family (the smallest)."""
    homes = []
    for v, ps in enumerate(parents):
        family = {*ps, v}
        holders = [c for c, clique in enumerate(tree.cliques) if family <= set(clique)]
        homes.append(min(holders, key=lambda c: len(tree.cliques[c])))
    return homes


def _to_family(table: np.ndarray, clique: Sequence[int], family: Sequence[int]) -> np.ndarray:
    """A clique table summed onto `family` (in that order)."""
    axes = tuple(k for k, v in enumerate(clique) if v not in family)
    summed = table.sum(axis=axes) if axes else table
    kept = [v for v in clique if v in family]
    return np.transpose(summed, [kept.index(v) for v in family])


def expected_counts(
    tree: JunctionTree,
    parents: Sequence[Sequence[int]],
    tables: Sequence[np.ndarray],
    codes: np.ndarray,
    weights: np.ndarray,
) -> tuple[list[np.ndarray], float]:
    """The E-step: expected family counts of weighted rows, and their log-likelihood.

    Parameters
    ----------
    tree : JunctionTree
        Compiled by :func:`_slots_tree` over the same families.
    parents : sequence of sequence of int
    tables : sequence of ndarray
        ``P(x_v | parents)`` (probabilities, not logs), shape ``(*parent cards, r_v)``.
    codes : ndarray of shape (n_rows, n_columns)
        Distinct rows over the first ``n_columns`` variables, ``-1`` where unobserved (the later
        variables, the latent ones, are never observed).
    weights : ndarray of shape (n_rows,)

    Returns
    -------
    counts : list of ndarray, one per family, shape ``(*parent cards, r_v)``
    log_likelihood : float
        ``sum_rows weight * log P(observed cells of the row)``.
    """
    homes = _family_homes(tree, parents)
    totals = {c: np.zeros([tree.cardinalities[v] for v in tree.cliques[c]]) for c in set(homes)}
    log_likelihood = 0.0
    slots = dict(enumerate(tables))
    step = _batch_rows(tree)
    targets = sorted(totals)
    for start in range(0, len(codes), step):
        batch = codes[start : start + step]
        w = weights[start : start + step]
        evidence = _evidence(batch, tree.cardinalities)
        if not evidence:  # nothing observed in these rows: the prior, once
            beliefs = tree.beliefs({}, targets, row_factors=slots)
            for c in targets:
                totals[c] += w.sum() * beliefs[c][0]
            continue
        beliefs = tree.beliefs(evidence, targets, row_factors=slots)
        for c in targets:
            values, scale = beliefs[c]
            if values.ndim == len(tree.cliques[c]):
                totals[c] += w.sum() * values
            else:
                totals[c] += np.tensordot(w, values, axes=(0, 0))
        log_e = np.asarray(beliefs[targets[0]][1], dtype=np.float64)
        log_likelihood += float(np.sum(w * np.broadcast_to(log_e, w.shape)))
    counts = [_to_family(totals[homes[v]], tree.cliques[homes[v]], (*ps, v)) for v, ps in enumerate(parents)]
    return counts, log_likelihood


def complete_rows(codes: np.ndarray, weights: np.ndarray, n_variables: int) -> np.ndarray:
    """Which rows observe every one of `n_variables` (no latent variable, no ``-1``)."""
    if codes.shape[1] < n_variables:
        return np.zeros(len(codes), dtype=bool)
    return np.asarray((codes >= 0).all(axis=1))


def _family_counts_of(codes, weights, parents, cards, names):
    engine = CountingEngine(codes, cards, names=names, sample_weight=weights)
    return [np.array(engine.counts([names[p] for p in (*ps, v)])) for v, ps in enumerate(parents)]


def _log_likelihood_of_counts(counts, log_tables):
    total = 0.0
    for c, log_table in zip(counts, log_tables):
        positive = c > 0
        total += float(np.sum(c[positive] * log_table[positive]))
    return total


def expectation_maximization(
    parents: Sequence[Sequence[int]],
    cards: Sequence[int],
    codes: np.ndarray,
    weights: np.ndarray,
    estimator: Estimator,
    *,
    names: Sequence[Any] | None = None,
    initial: Sequence[np.ndarray] | None = None,
    random_families: Sequence[int] = (),
    max_iter: int = 100,
    tol: float = 1e-6,
    n_init: int = 1,
    random_state: int | np.random.Generator | None = None,
    max_cells: int = 10_000_000,
    on_iteration: Callable[[int, float], None] | None = None,
) -> EMResult:
    """EM for the conditional tables of a fixed DAG from rows with unobserved cells.

    Parameters
    ----------
    parents : sequence of sequence of int
        The parents of every variable; variables ``0 .. n_columns - 1`` are the columns of
        `codes`, any later ones are latent (never observed).
    cards : sequence of int
        States of every variable.
    codes : ndarray of shape (n_rows, n_columns)
        ``-1`` where a cell is unobserved.
    weights : ndarray of shape (n_rows,)
    estimator : Estimator
        The M-step: each family's table from its expected counts (a Dirichlet prior gives the
        MAP estimate).
    names : sequence, optional
        The variables' names, for messages.
    initial : sequence of ndarray, optional
        Starting tables (probabilities); by default the estimator on the available-case
        counts (each family on the rows that observe it).
    random_families : sequence of int
        Families started from random tables (a Dirichlet(1) draw per parent configuration):
        those of latent variables and of their children, whose available-case counts are
        empty and symmetric.
    max_iter : int, default=100
    tol : float, default=1e-6
        Stop when the log-likelihood improves by less than ``tol`` times its magnitude.
    n_init : int, default=1
        Random starts (only `random_families` differ between them); the run of highest
        log-likelihood wins.
    random_state : None, int or Generator
    max_cells : int
        The junction tree's largest clique.
    on_iteration : callable, optional
        Called with ``(iteration, log_likelihood)``.

    Returns
    -------
    EMResult
    """
    rng = np.random.default_rng(random_state)
    n_variables = len(parents)
    names = list(names) if names is not None else list(range(n_variables))
    codes = np.asarray(codes)
    complete = complete_rows(codes, weights, n_variables)
    if complete.any():
        fixed = _family_counts_of(codes[complete], weights[complete], parents, cards[: codes.shape[1]], names)
    else:
        fixed = [np.zeros([int(cards[p]) for p in (*ps, v)]) for v, ps in enumerate(parents)]
    patterns, pattern_weights, _ = unique_rows(codes[~complete], cards[: codes.shape[1]], weights[~complete])
    if initial is None:
        initial = _available_case_tables(codes, weights, parents, cards, names, estimator)
    tree = _slots_tree(parents, cards, max_cells, names)
    best: EMResult | None = None
    rows = []
    for run in range(max(1, int(n_init))):
        tables = [np.array(t, dtype=np.float64) for t in initial]
        for v in random_families:
            tables[v] = rng.dirichlet(np.ones(tables[v].shape[-1]), size=tables[v].shape[:-1])
        previous = -math.inf
        converged = False
        log_likelihood = -math.inf
        for iteration in range(int(max_iter) + 1):
            started = time.perf_counter()
            expected, incomplete_ll = (
                expected_counts(tree, parents, tables, patterns, pattern_weights)
                if len(patterns)
                else ([np.zeros_like(f) for f in fixed], 0.0)
            )
            with np.errstate(divide="ignore"):
                log_tables = [np.log(t) for t in tables]
            log_likelihood = incomplete_ll + _log_likelihood_of_counts(fixed, log_tables)
            change = log_likelihood - previous
            rows.append(
                {
                    "iteration": iteration,
                    "start": run,
                    "log_likelihood": log_likelihood,
                    "change": change if np.isfinite(previous) else math.nan,
                    "seconds": time.perf_counter() - started,
                }
            )
            if on_iteration is not None:
                on_iteration(iteration, log_likelihood)
            if np.isfinite(previous) and abs(change) <= tol * max(abs(log_likelihood), 1.0):
                converged = True
                break
            if iteration == max_iter:
                break
            previous = log_likelihood
            tables = estimator.conditionals([f + e for f, e in zip(fixed, expected)])
            rows[-1]["seconds"] = time.perf_counter() - started
        with np.errstate(divide="ignore"):
            result = EMResult([np.log(t) for t in tables], pd.DataFrame(), log_likelihood, converged)
        if best is None or result.log_likelihood > best.log_likelihood:
            best = result
    assert best is not None
    best.trace = pd.DataFrame(rows, columns=["iteration", "start", "log_likelihood", "change", "seconds"])
    return best


def _available_case_tables(codes, weights, parents, cards, names, estimator):
    """The estimator on each family's available-case counts (empty tables for latent families)."""
    n_columns = codes.shape[1]
    engine = CountingEngine(codes, cards[:n_columns], names=names[:n_columns], sample_weight=weights)
    tables = []
    for v, ps in enumerate(parents):
        family = (*ps, v)
        if all(p < n_columns for p in family):
            counts = np.array(engine.counts([names[p] for p in family]))
        else:
            counts = np.zeros([int(cards[p]) for p in family])
        tables.append(counts)
    return estimator.conditionals(tables)


def network_log_likelihood(
    parents: Sequence[Sequence[int]],
    log_tables: Sequence[np.ndarray],
    cards: Sequence[int],
    codes: np.ndarray,
    *,
    tree: JunctionTree | None = None,
    max_cells: int = 10_000_000,
) -> np.ndarray:
    """``log P(observed cells)`` of each row: a sum of table entries for a complete row, the
    junction tree's evidence probability (distinct row patterns, batched) for the others.

    Parameters
    ----------
    parents, log_tables, cards
        The network over all variables (the columns of `codes` first, then latent ones).
    codes : ndarray of shape (n_rows, n_columns)
        ``-1`` where unobserved (a state unseen in training, or a missing cell).
    tree : JunctionTree, optional
        Compiled by this module over the same families (reused across calls).

    Returns
    -------
    ndarray of shape (n_rows,)
    """
    codes = np.asarray(codes, dtype=np.int64)
    n_rows, n_columns = codes.shape
    out = np.zeros(n_rows)
    complete = complete_rows(codes, np.ones(n_rows), len(parents))
    if complete.any():
        rows = codes[complete]
        total = np.zeros(len(rows))
        for v, ps in enumerate(parents):
            index = tuple(rows[:, p] for p in ps) + (rows[:, v],)
            total += log_tables[v][index]
        out[complete] = total
    if (~complete).any():
        tree = tree if tree is not None else _slots_tree(parents, cards, max_cells, None)
        patterns, _, inverse = unique_rows(codes[~complete], cards[:n_columns])
        slots = {v: np.exp(t) for v, t in enumerate(log_tables)}
        values = np.empty(len(patterns))
        step = _batch_rows(tree)
        for start in range(0, len(patterns), step):
            evidence = _evidence(patterns[start : start + step], cards)
            _, log_e = tree.marginals([], evidence, row_factors=slots)
            values[start : start + step] = np.broadcast_to(log_e, (len(patterns[start : start + step]),))
        out[~complete] = values[inverse]
    return out


def completions(
    tree: JunctionTree,
    log_tables: Sequence[np.ndarray],
    codes: np.ndarray,
    weights: np.ndarray,
    n_variables: int,
    *,
    per_row: int,
    random_state: Any = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Rows with their unobserved cells filled in by exact samples from the network.

    Each incomplete row becomes `per_row` completions of weight ``weight / per_row``
    (:meth:`JunctionTree.sample_rows` on its observed cells); complete rows stay as they are.

    Returns
    -------
    codes : ndarray of shape (n_out, n_variables)
    weights : ndarray of shape (n_out,)
    """
    rng = np.random.default_rng(random_state)
    complete = complete_rows(codes, weights, n_variables)
    out_codes = [codes[complete]] if complete.any() else []
    out_weights = [weights[complete]] if complete.any() else []
    incomplete = codes[~complete]
    if len(incomplete):
        slots = {v: np.exp(t) for v, t in enumerate(log_tables)}
        repeated = np.repeat(incomplete, per_row, axis=0)
        step = _batch_rows(tree)
        for start in range(0, len(repeated), step):
            batch = repeated[start : start + step]
            evidence = _evidence(batch, tree.cardinalities)
            if not evidence:  # nothing observed: draws from the network itself, one per row
                evidence = {0: np.ones((len(batch), tree.cardinalities[0]))}
            out_codes.append(tree.sample_rows(evidence, row_factors=slots, random_state=rng))
        out_weights.append(np.repeat(weights[~complete], per_row) / per_row)
    return np.concatenate(out_codes).astype(np.int64), np.concatenate(out_weights)
