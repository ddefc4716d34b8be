"""Attribute interactions: interaction information, its significance, the interaction graph.

Jakulin & Bratko's analysis of attribute dependencies [1]_ [2]_, computed in batches from the
counting engine's tables.

**Sign convention.** The interaction information of a set of variables ``V`` (McGill's, as
Jakulin & Bratko use it) is

.. math:: I(V) = -\\sum_{T \\subseteq V} (-1)^{|V| - |T|} H(T),

so that ``I(A; B) = H(A) + H(B) - H(A, B)`` is the mutual information and

.. math:: I(A; B; C) = I(A; B \\mid C) - I(A; B) = I(A, B; C) - I(A; C) - I(B; C),

Jakulin & Bratko's *interaction gain*: **positive is synergy** (``A`` and ``B`` together tell
more about ``C`` than each alone: XOR, where the pair is everything and each attribute nothing),
**negative is redundancy** (they tell the same thing twice: two copies of one attribute). Values
are in nats (``base=2`` for bits). With the class as ``C``, :func:`interaction_graph` reports each
value as a share of the class entropy ``H(C)`` too, as the papers' figures do (percentages).

**Significance** (the 2004 paper [2]_): an interaction of ``A``, ``B`` and ``C`` is real when the
joint table is not reconstructed by its parts. The part-to-whole model here is the one of
maximum likelihood built from the three 2-way tables (the log-linear model without a 3-way
term, fitted by iterative proportional fitting, IPF); the statistic ``G2 = 2 N D(P || P_parts)``
is, under that null, asymptotically chi-squared with ``(|A| - 1)(|B| - 1)(|C| - 1)`` degrees of
freedom (Wilks' theorem; ``|A|`` counts the states seen). The paper builds the parts' model by
the Kirkwood superposition approximation, a closed form that is not the parts' maximum
likelihood model (its divergence is never smaller than IPF's, so its P-values are smaller),
and checks its asymptotic P-values against the bootstrap; ``test="bootstrap"`` here draws
tables from the fitted parts' model instead of trusting the chi-squared limit (use it for
small or sparse tables). The information of an attribute about the class is tested the same
way: ``G2 = 2 N I(A; C)``, chi-squared with ``(|A| - 1)(|C| - 1)`` degrees of freedom, the
bootstrap drawing from the product of the margins. A permutation of the class would test the
2-way null only, so it is not used. Each family of tests (attributes, pairs, triples) is
corrected for multiple testing (Benjamini-Hochberg by default, see :func:`adjust_p_values`).

References
----------
.. [1] Jakulin, A., & Bratko, I. (2003). Analyzing attribute dependencies. *Knowledge
       Discovery in Databases: PKDD 2003*, LNAI 2838, 229-240.
.. [2] Jakulin, A., & Bratko, I. (2004). Testing the significance of attribute interactions.
       *Proceedings of the 21st International Conference on Machine Learning (ICML)*, 409-416.
.. [3] McGill, W. J. (1954). Multivariate information transmission. *Psychometrika*, 19(2),
       97-116.
.. [4] Benjamini, Y., & Hochberg, Y. (1995). Controlling the false discovery rate: a practical
       and powerful approach to multiple testing. *Journal of the Royal Statistical Society B*,
       57(1), 289-300.
"""

from __future__ import annotations

import itertools
import math
import numbers
from collections.abc import Hashable, Sequence
from typing import Any

import networkx as nx
import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from .._special import chdtrc, xlogy
from .counting import CountingEngine
from .information import _group, _log_base, as_engine, entropy_of_counts

__all__ = [
    "TESTS",
    "CORRECTIONS",
    "DEFAULT_MAX_TRIPLES",
    "adjust_p_values",
    "interaction_information",
    "pairwise_interaction_information",
    "triple_interaction_information",
    "interaction_graph",
    "information_graph",
    "interaction_distances",
]

#: Significance tests: the asymptotic chi-squared of the likelihood ratio, the parametric bootstrap, or none.
TESTS = ("asymptotic", "bootstrap", None)
#: Multiple-testing corrections of :func:`adjust_p_values`.
CORRECTIONS = ("fdr_bh", "holm", "bonferroni", None)
#: The most triples :func:`triple_interaction_information` computes unless told otherwise.
DEFAULT_MAX_TRIPLES = 200_000
#: IPF stops when every fitted 2-way margin is within this share of N of the data's (or after _IPF_MAX_ITER).
_IPF_TOL = 1e-7
_IPF_MAX_ITER = 100
#: Cells of the padded 3-way tables fitted at once.
_BATCH_CELLS = 4_000_000


def _xl(x):
    return xlogy(x, x)


# ----------------------------------------------------------------------------- one set of variables
def interaction_information(
    data: CountingEngine | pd.DataFrame, variables: Sequence[Hashable], *, base: float | None = None
) -> float:
    """The interaction information ``I(V)`` of a set of variables, from their joint table.

    ``I(V) = -sum_{T subset of V} (-1)^(|V| - |T|) H(T)`` (McGill; see the module's sign
    convention): the mutual information for two variables, ``I(A; B | C) - I(A; B)`` for three
    (positive: synergy, negative: redundancy). Every entropy comes from the marginals of one
    table over all the variables, so the rows counted are the same for every term.

    Parameters
    ----------
    data : CountingEngine or DataFrame
        A DataFrame is encoded as it is (every distinct value a state, missing cells a state).
    variables : sequence of names
        At least one; one variable gives its entropy ``H(A)`` (the information it holds).
    base : float, optional
        Logarithm base; nats by default.

    Returns
    -------
    float

    Raises
    ------
    ValueError
        For no variable, or a variable named twice.

    See Also
    --------
    interaction_graph : every pair of attributes with the class at once, with significance.

    References
    ----------
    .. [1] McGill, W. J. (1954). Multivariate information transmission. *Psychometrika*, 19(2).

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 1, 0, 1]})
    >>> frame["xor"], frame["copy"], frame["y"] = frame["a"] ^ frame["b"], frame["a"], frame["a"]
    >>> round(interaction_information(frame, ["a", "b", "xor"], base=2), 6)  # synergy: one bit
    1.0
    >>> round(interaction_information(frame, ["a", "b", "y"], base=2), 6)  # no interaction
    0.0
    >>> round(interaction_information(frame, ["a", "copy", "y"], base=2), 6)  # redundancy: twice the same bit
    -1.0
    """
    names = _group(variables)
    if not names:
        raise ValueError("`variables` must name at least one variable.")
    if len(set(map(_key, names))) != len(names):
        raise ValueError(f"`variables` names a variable twice: {names!r}.")
    engine = as_engine(data)
    table = np.asarray(engine.counts(names), dtype=np.float64)
    k = len(names)
    if k == 1:
        return entropy_of_counts(table, base=base)
    total = 0.0
    for size in range(1, k + 1):
        sign = -((-1) ** (k - size))
        for subset in itertools.combinations(range(k), size):
            rest = tuple(a for a in range(k) if a not in subset)
            total += sign * entropy_of_counts(table.sum(axis=rest) if rest else table)
    return float(total / _log_base(base))


def _key(name):
    try:
        hash(name)
        return name
    except TypeError:
        return repr(name)


# ----------------------------------------------------------------------------- batches of triples
def _block_interactions(table, offsets):
    """``I(A_i; A_j; S)`` of every pair of blocks of a stratified pairwise table, and the 2-way parts.

    `table` has shape (n_strata, K, K): the counts of every pair of variables within each state
    of a third variable ``S`` (:meth:`CountingEngine.pairwise_counts` with ``given``). Each
    block's own table gives all of its marginals, so rows dropped from one block (an unknown
    code) change that block only.

    Returns
    -------
    interaction : ndarray of shape (p, p)
        Nats; the diagonal holds ``I(A_i; S)``.
    entropy : ndarray of shape (p,)
        ``H(A_i)`` (from the diagonal blocks).
    stratum_entropy : float
        ``H(S)`` (from the first diagonal block).
    totals : ndarray of shape (p, p)
        The (weighted) rows counted in each block.
    """
    starts = offsets[:-1]
    p = len(starts)
    if p == 0:
        return np.zeros((0, 0)), np.zeros(0), 0.0, np.zeros((0, 0))
    reduce2 = lambda x: np.add.reduceat(np.add.reduceat(x, starts, axis=0), starts, axis=1)  # noqa: E731
    s_abc = reduce2(_xl(table).sum(axis=0))
    s_ab = reduce2(_xl(table.sum(axis=0)))
    rows = np.add.reduceat(table, starts, axis=2)  # (S, K, p): [s, a, j]
    columns = np.add.reduceat(table, starts, axis=1)  # (S, p, K): [s, i, b]
    s_ac = np.add.reduceat(_xl(rows).sum(axis=0), starts, axis=0)
    s_bc = np.add.reduceat(_xl(columns).sum(axis=0), starts, axis=1)
    s_a = np.add.reduceat(_xl(rows.sum(axis=0)), starts, axis=0)
    s_b = np.add.reduceat(_xl(columns.sum(axis=0)), starts, axis=1)
    strata = np.add.reduceat(rows, starts, axis=1)  # (S, p, p)
    s_c = _xl(strata).sum(axis=0)
    totals = strata.sum(axis=0)
    safe = np.where(totals > 0, totals, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        interaction = -np.log(safe) + (s_abc - s_ab - s_ac - s_bc + s_a + s_b + s_c) / safe
    interaction = np.where(totals > 0, interaction, 0.0)
    # The diagonal blocks (A_i with itself) hold I(A_i; S): H(A) + H(S) - H(A, S).
    diagonal = np.diagonal(table, axis1=1, axis2=2)  # (S, K)
    n_i = np.diagonal(totals)
    safe_i = np.where(n_i > 0, n_i, 1.0)
    h_as = np.log(safe_i) - np.add.reduceat(_xl(diagonal).sum(axis=0), starts) / safe_i
    h_a = np.log(safe_i) - np.add.reduceat(_xl(diagonal.sum(axis=0)), starts) / safe_i
    per_stratum = np.add.reduceat(diagonal, starts, axis=1)  # (S, p)
    h_s = np.log(safe_i) - _xl(per_stratum).sum(axis=0) / safe_i
    mutual = np.maximum(np.where(n_i > 0, h_a + h_s - h_as, 0.0), 0.0)
    interaction[np.arange(p), np.arange(p)] = mutual
    interaction = (interaction + interaction.T) / 2  # exact up to rounding; symmetric by construction
    entropy = np.maximum(np.where(n_i > 0, h_a, 0.0), 0.0)
    return interaction, entropy, float(max(h_s[0], 0.0)), totals


def pairwise_interaction_information(
    data: CountingEngine | pd.DataFrame,
    target: Hashable,
    variables: Sequence[Hashable] | None = None,
    *,
    base: float | None = None,
) -> np.ndarray:
    """``I(A; B; target)`` for every pair of variables at once, and ``I(A; target)`` on the diagonal.

    One batch of the counting engine (:meth:`CountingEngine.pairwise_counts` given `target`:
    every 3-way table with the target in one product per state of the target) and sums over
    whole block matrices: no loop over pairs.

    Parameters
    ----------
    data : CountingEngine or DataFrame
    target : name
        The third variable of every triple, typically the class.
    variables : sequence of names, optional
        Defaults to every variable but `target`.
    base : float, optional
        Logarithm base; nats by default.

    Returns
    -------
    ndarray of shape (n_variables, n_variables)
        Symmetric: ``[i, j]`` is the interaction information of variables ``i`` and ``j`` with
        the target (positive: synergy), ``[i, i]`` the mutual information ``I(A_i; target)``.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 1, 0, 1]})
    >>> frame["y"] = frame["a"] ^ frame["b"]
    >>> pairwise_interaction_information(frame, "y", base=2).round(6).tolist()
    [[0.0, 1.0], [1.0, 0.0]]
    """
    engine = as_engine(data)
    pairs = engine.pairwise_counts(variables, given=target)
    interaction, _, _, _ = _block_interactions(pairs.table, pairs.offsets)
    return interaction / _log_base(base)


def triple_interaction_information(
    data: CountingEngine | pd.DataFrame,
    variables: Sequence[Hashable] | None = None,
    *,
    test: str | None = None,
    n_resamples: int = 200,
    correction: str | None = "fdr_bh",
    max_triples: int = DEFAULT_MAX_TRIPLES,
    base: float | None = None,
    random_state: int | np.random.Generator | None = None,
) -> pd.DataFrame:
    """``I(A; B; C)`` of every triple of variables, in batches (one per first variable).

    For each variable ``A`` in turn, one stratified pairwise table of the variables after it
    (the engine's one-hot products within each state of ``A``) gives the 3-way tables of every
    triple that starts with ``A``, and sums over its blocks their interaction information.

    Parameters
    ----------
    data : CountingEngine or DataFrame
    variables : sequence of names, optional
        Defaults to every variable of `data`.
    test : {"asymptotic", "bootstrap"} or None, default=None
        Also test each 3-way interaction (see the module: the parts' model by IPF, the
        chi-squared limit or the parametric bootstrap).
    n_resamples : int, default=200
        Tables drawn per triple for ``test="bootstrap"``.
    correction : {"fdr_bh", "holm", "bonferroni"} or None, default="fdr_bh"
        Multiple-testing correction over all the triples tested.
    max_triples : int, default=200_000
        The budget: more triples raise a ``ValueError`` before anything is counted.
    base : float, optional
        Logarithm base of the information; nats by default.
    random_state : None, int or numpy Generator
        Seeds the bootstrap.

    Returns
    -------
    DataFrame
        One row per triple (in the order of `variables`): ``a``, ``b``, ``c``, ``interaction``,
        and with a test ``statistic`` (G2), ``df``, ``p_value`` and ``adjusted_p_value``.

    Raises
    ------
    ValueError
        For more than `max_triples` triples (the message gives the count), or an unknown
        `test` or `correction`.
    TableTooLargeError
        When one batch's table would pass the engine's ``max_cells``.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 1, 0, 1]})
    >>> frame["y"] = frame["a"] ^ frame["b"]
    >>> triple_interaction_information(frame, base=2)[["a", "b", "c", "interaction"]].round(6).to_dict("records")
    [{'a': 'a', 'b': 'b', 'c': 'y', 'interaction': 1.0}]
    """
    _check_choice(test, TESTS, "test")
    _check_choice(correction, CORRECTIONS, "correction")
    _check_integer(max_triples, "max_triples", 1)
    engine = as_engine(data)
    names = list(engine.names) if variables is None else _group(variables)
    positions = engine.positions(names)
    if len(set(positions)) != len(positions):
        raise ValueError("`variables` names a variable twice.")
    p = len(positions)
    n_triples = math.comb(p, 3)
    if n_triples > max_triples:
        raise ValueError(
            f"{p} variables have {n_triples:,} triples, more than max_triples={max_triples:,}; pass a larger "
            "max_triples or fewer variables."
        )
    rows: dict[str, list[Any]] = {"a": [], "b": [], "c": [], "interaction": []}
    tables: list[tuple[np.ndarray, np.ndarray, list[tuple[int, int]]]] = []
    for t in range(p - 2):
        rest = positions[t + 1 :]
        cards = engine.cardinalities[list(rest)].astype(np.int64)
        offsets = np.concatenate([[0], np.cumsum(cards)]).astype(np.int64)
        width = int(offsets[-1])
        r_t = int(engine.cardinalities[positions[t]])
        engine.check_cells(
            r_t * width * width,
            what=f"the 3-way tables of {names[t]!r} ({r_t} states) with the {len(rest)} variables after it "
            f"({width} states in all)",
            fix="pass fewer variables",
        )
        table = engine._pairwise_table(tuple(rest), (positions[t],), offsets, r_t)
        interaction, _, _, _ = _block_interactions(table, offsets)
        upper_i, upper_j = np.triu_indices(len(rest), k=1)
        rows["a"].extend([names[t]] * len(upper_i))
        rows["b"].extend(names[t + 1 + i] for i in upper_i.tolist())
        rows["c"].extend(names[t + 1 + j] for j in upper_j.tolist())
        rows["interaction"].extend((interaction[upper_i, upper_j] / _log_base(base)).tolist())
        if test is not None:
            tables.append((table, offsets, list(zip(upper_i.tolist(), upper_j.tolist()))))
    frame = pd.DataFrame(rows, columns=["a", "b", "c", "interaction"])
    if test is not None:
        statistic, df, p_value = [], [], []
        rng = np.random.default_rng(random_state)
        for table, offsets, pairs in tables:
            g2, dof, pv = _three_way_tests(_pair_tables(table, offsets, pairs), test, n_resamples, rng)
            statistic.append(g2)
            df.append(dof)
            p_value.append(pv)
        frame["statistic"] = np.concatenate(statistic) if statistic else np.zeros(0)
        frame["df"] = np.concatenate(df).astype(np.int64) if df else np.zeros(0, dtype=np.int64)
        frame["p_value"] = np.concatenate(p_value) if p_value else np.zeros(0)
        frame["adjusted_p_value"] = adjust_p_values(frame["p_value"].to_numpy(), correction)
    return frame


# ----------------------------------------------------------------------------- significance
def adjust_p_values(p_values: ArrayLike, method: str | None = "fdr_bh") -> np.ndarray:
    """P-values adjusted for multiple testing.

    Parameters
    ----------
    p_values : array-like of shape (n_tests,)
    method : {"fdr_bh", "holm", "bonferroni"} or None, default="fdr_bh"
        Benjamini-Hochberg's step-up adjustment (controls the false discovery rate [1]_),
        Holm's step-down or Bonferroni's (control the family-wise error rate), or none.
        A test is significant at level ``alpha`` when its adjusted P-value is at most ``alpha``.

    Returns
    -------
    ndarray of shape (n_tests,)
        In [0, 1]; NaN stays NaN and is not counted.

    References
    ----------
    .. [1] Benjamini, Y., & Hochberg, Y. (1995). Controlling the false discovery rate.
           *Journal of the Royal Statistical Society B*, 57(1), 289-300.

    Examples
    --------
    >>> adjust_p_values([0.01, 0.04, 0.03, 0.2]).round(4).tolist()
    [0.04, 0.0533, 0.0533, 0.2]
    >>> adjust_p_values([0.01, 0.04, 0.03, 0.2], "holm").round(4).tolist()
    [0.04, 0.09, 0.09, 0.2]
    """
    _check_choice(method, CORRECTIONS, "method")
    values = np.asarray(p_values, dtype=np.float64).ravel()
    out = values.copy()
    known = np.flatnonzero(~np.isnan(values))
    m = len(known)
    if method is None or m == 0:
        return out
    p = values[known]
    order = np.argsort(p, kind="stable")
    ranked = p[order]
    if method == "bonferroni":
        adjusted = np.minimum(ranked * m, 1.0)
    elif method == "holm":
        adjusted = np.minimum(np.maximum.accumulate(ranked * (m - np.arange(m))), 1.0)
    else:
        adjusted = np.minimum(np.minimum.accumulate((ranked * m / np.arange(1, m + 1))[::-1])[::-1], 1.0)
    result = np.empty(m)
    result[order] = adjusted
    out[known] = result
    return out


def _pair_tables(table, offsets, pairs):
    """The 3-way tables ``(a, b, s)`` of the given block pairs of a stratified table, grouped by shape.

    Returns a list of ``(positions, batch)``: the pairs' positions in `pairs` and their tables,
    of shape (n_pairs, r_a, r_b, n_strata), one entry per distinct ``(r_a, r_b)`` (no padding,
    which would only add cells for IPF to scale).
    """
    cards = np.diff(offsets)
    groups: dict[tuple[int, int], list[int]] = {}
    for k, (i, j) in enumerate(pairs):
        groups.setdefault((int(cards[i]), int(cards[j])), []).append(k)
    result = []
    for positions in groups.values():
        index = np.asarray(positions, dtype=np.int64)
        i = np.asarray([pairs[k][0] for k in positions])
        j = np.asarray([pairs[k][1] for k in positions])
        r_a, r_b = int(cards[i[0]]), int(cards[j[0]])
        rows = offsets[i][:, None, None] + np.arange(r_a)[None, :, None]  # (n, r_a, 1)
        columns = offsets[j][:, None, None] + np.arange(r_b)[None, None, :]  # (n, 1, r_b)
        batch = table[:, rows, columns]  # (S, n, r_a, r_b)
        result.append((index, np.ascontiguousarray(np.moveaxis(batch, 0, -1))))
    return result


def _no_three_way_fit(tables):
    """The maximum-likelihood tables without a 3-way term: IPF to the three 2-way margins, batched.

    `tables` has shape (batch, I, J, K). Iterative proportional fitting from a table of ones
    converges to the unique table of the log-linear model [AB][AC][BC] with the data's three
    2-way margins (Bishop, Fienberg & Holland, 1975, chapter 3); zero margins stay zero.
    """
    n = np.asarray(tables, dtype=np.float64)
    fitted = np.where(n.sum(axis=3, keepdims=True) > 0, 1.0, 0.0) * np.ones_like(n)
    # The tables still fitted (`m`, rows `active` of the batch): converged ones are put back
    # and dropped when they are half of those left, not copied out at every step. Margins by
    # einsum: several times faster than ndarray.sum over these short axes.
    active = np.arange(len(n))
    m = fitted
    n_ab, n_ac, n_bc = (np.einsum(f"bijk->{out}", n) for out in ("bij", "bik", "bjk"))
    tol = _IPF_TOL * np.maximum(n.sum(axis=(1, 2, 3)), 1.0)
    for iteration in range(1, _IPF_MAX_ITER + 1):
        m *= _ratio(n_ab, np.einsum("bijk->bij", m))[:, :, :, None]
        m *= _ratio(n_ac, np.einsum("bijk->bik", m))[:, :, None, :]
        m *= _ratio(n_bc, np.einsum("bijk->bjk", m))[:, None, :, :]
        if iteration % 4 and iteration != _IPF_MAX_ITER:
            continue
        # The last step matched [BC] exactly; the others are what is left to converge.
        error = np.maximum(
            np.abs(np.einsum("bijk->bij", m) - n_ab).max(axis=(1, 2)),
            np.abs(np.einsum("bijk->bik", m) - n_ac).max(axis=(1, 2)),
        )
        going = error > tol
        if not going.any():
            break
        if going.sum() <= len(going) // 2:
            fitted[active] = m
            keep = np.flatnonzero(going)
            active, m, tol = active[keep], m[keep], tol[keep]
            n_ab, n_ac, n_bc = n_ab[keep], n_ac[keep], n_bc[keep]
    fitted[active] = m
    return fitted


def _ratio(numerator, denominator):
    """``numerator / denominator``, 0 where the denominator is 0 (a margin IPF keeps at zero)."""
    out = np.zeros_like(numerator)
    np.divide(numerator, denominator, out=out, where=denominator > 0)
    return out


def _deviance(observed, fitted, axes):
    """``G2 = 2 sum n log(n / m)`` over `axes` (cells with n = 0 add nothing)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(observed > 0, xlogy(observed, observed) - xlogy(observed, fitted), 0.0)
    return np.maximum(2.0 * terms.sum(axis=axes), 0.0)


def _seen_states(tables, axis):
    """The number of states with a positive count along `axis` of each table of a batch."""
    other = tuple(a for a in range(1, tables.ndim) if a != axis)
    return (tables.sum(axis=other) > 0).sum(axis=1)


def _chi2_sf(statistic, df):
    """``P(chi2(df) >= statistic)``; 1 for no degree of freedom (nothing can be tested)."""
    df = np.asarray(df)
    return np.where(df > 0, chdtrc(np.maximum(df, 1), statistic), 1.0)


def _three_way_tests(groups, test, n_resamples, rng):
    """G2, degrees of freedom and P-value of the 3-way interaction of every table of :func:`_pair_tables`' groups."""
    n_tables = sum(len(index) for index, _ in groups)
    statistic, df, p_value = np.empty(n_tables), np.empty(n_tables, dtype=np.int64), np.empty(n_tables)
    for index, tables in groups:
        statistic[index], df[index], p_value[index] = _three_way_batch(tables, test, n_resamples, rng)
    return statistic, df, p_value


def _three_way_batch(tables, test, n_resamples, rng):
    """G2, degrees of freedom and P-value of the 3-way interaction of each table of a batch (n, I, J, K)."""
    cells = int(np.prod(tables.shape[1:]))
    step = max(1, _BATCH_CELLS // max(cells, 1))
    statistic = np.empty(len(tables))
    for start in range(0, len(tables), step):
        chunk = tables[start : start + step]
        statistic[start : start + step] = _deviance(chunk, _no_three_way_fit(chunk), (1, 2, 3))
    seen = np.stack([_seen_states(tables, a) for a in (1, 2, 3)])
    df = np.where((seen > 1).all(axis=0), np.prod(seen - 1, axis=0), 0)
    if test == "asymptotic":
        return statistic, df, _chi2_sf(statistic, df)
    p_value = np.empty(len(tables))
    per_draw = max(1, _BATCH_CELLS // max(cells * n_resamples, 1))
    for start in range(0, len(tables), per_draw):
        chunk = tables[start : start + per_draw]
        drawn = _draw_tables(_no_three_way_fit(chunk), n_resamples, rng)  # (chunk, R, I, J, K)
        flat = drawn.reshape((-1,) + drawn.shape[2:])
        replicate = _deviance(flat, _no_three_way_fit(flat), (1, 2, 3)).reshape(drawn.shape[:2])
        observed = statistic[start : start + per_draw]
        exceed = (replicate >= observed[:, None] * (1 - 1e-9) - 1e-12).sum(axis=1)
        p_value[start : start + per_draw] = (1 + exceed) / (1 + n_resamples)
    return statistic, df, np.where(df > 0, p_value, 1.0)


def _draw_tables(expected, n_resamples, rng):
    """`n_resamples` multinomial tables per table of `expected` (fitted counts), each of its (rounded) total."""
    shape = expected.shape
    flat = expected.reshape(shape[0], -1)
    totals = np.rint(flat.sum(axis=1)).astype(np.int64)
    probabilities = flat / np.where(flat.sum(axis=1, keepdims=True) > 0, flat.sum(axis=1, keepdims=True), 1.0)
    draws = np.empty((shape[0], n_resamples, flat.shape[1]))
    for k in range(shape[0]):
        draws[k] = rng.multinomial(totals[k], probabilities[k], size=n_resamples)
    return draws.reshape((shape[0], n_resamples) + shape[1:])


def _two_way_tests(tables, test, n_resamples, rng):
    """G2 = 2 N I(A; C), degrees of freedom and P-value for a batch of 2-way tables (batch, I, K)."""
    tables = np.asarray(tables, dtype=np.float64)
    if not len(tables):
        return np.zeros(0), np.zeros(0, dtype=np.int64), np.zeros(0)
    totals = tables.sum(axis=(1, 2), keepdims=True)
    expected = tables.sum(axis=2, keepdims=True) * tables.sum(axis=1, keepdims=True)
    expected = expected / np.where(totals > 0, totals, 1.0)
    statistic = _deviance(tables, expected, (1, 2))
    seen_a, seen_c = _seen_states(tables, 1), _seen_states(tables, 2)
    df = np.where((seen_a > 1) & (seen_c > 1), (seen_a - 1) * (seen_c - 1), 0)
    if test == "asymptotic":
        return statistic, df, _chi2_sf(statistic, df)
    drawn = _draw_tables(expected, n_resamples, rng)  # (batch, R, I, K)
    flat = drawn.reshape((-1,) + tables.shape[1:])
    n_flat = flat.sum(axis=(1, 2), keepdims=True)
    flat_expected = flat.sum(axis=2, keepdims=True) * flat.sum(axis=1, keepdims=True) / np.where(n_flat > 0, n_flat, 1)
    replicate = _deviance(flat, flat_expected, (1, 2)).reshape(drawn.shape[:2])
    exceed = (replicate >= statistic[:, None] * (1 - 1e-9) - 1e-12).sum(axis=1)
    return statistic, df, np.where(df > 0, (1 + exceed) / (1 + n_resamples), 1.0)


# ----------------------------------------------------------------------------- the whole analysis
def _check_choice(value, choices, name):
    if value not in choices:
        raise ValueError(f"`{name}` must be one of {list(choices)}, got {value!r}.")


def _check_integer(value, name, minimum):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < minimum:
        raise ValueError(f"`{name}` must be an integer >= {minimum}, got {value!r}.")


def _class_frame(X, y, discretizer, max_cells):
    """``(engine, features, target)``: the attributes (cut as a classifier cuts them) and the class, counted."""
    from ..data.discretize import EqualFrequencyDiscretizer, MDLDiscretizer, _for_model, make_discretizer
    from ..data.encoding import LabelEncoder, TableEncoder, as_frame

    frame = as_frame(X)
    if not isinstance(y, (pd.Series, pd.Index, np.ndarray, list, tuple)) and np.ndim(y) == 0:
        if y not in frame.columns:
            raise ValueError(f"`y` names no column of X: {y!r}; columns: {list(frame.columns)[:10]}.")
        target, labels = y, frame[y]
        frame = frame.drop(columns=[y])
    else:
        labels = y
        name = getattr(y, "name", None)
        target = name if name is not None and name not in frame.columns else "class"
        if target in frame.columns:
            raise ValueError("`y` has no name and X has a column named 'class'; give y a name of its own.")
    if frame.shape[1] == 0:
        raise ValueError("`X` has no attribute column besides the class.")
    label_encoder = LabelEncoder().fit(labels)
    y_codes = label_encoder.transform(labels)
    if len(y_codes) != len(frame):
        raise ValueError(f"`X` has {len(frame)} rows but `y` has {len(y_codes)} labels.")
    if isinstance(discretizer, str) and discretizer.lower() == "auto":
        discretizer = "mdl"
    binner = make_discretizer(discretizer)
    if binner is not None:
        if not isinstance(binner, (MDLDiscretizer, EqualFrequencyDiscretizer)):
            raise TypeError(
                "`discretizer` must be 'auto', a name of graphmodels.data.DISCRETIZERS, an MDLDiscretizer, an "
                f"EqualFrequencyDiscretizer or None, got {type(binner).__name__}."
            )
        binner = _for_model(binner, max_cells)
        if isinstance(binner, MDLDiscretizer):
            binner.fit(frame, y_codes)
        else:
            binner.fit(frame)
        frame = binner.transform(frame)
    encoder = TableEncoder(missing="value")
    codes = encoder.fit_transform(frame)
    table = np.column_stack([codes, y_codes]).astype(np.int64)
    features = list(frame.columns)
    engine = CountingEngine(
        table,
        list(encoder.cardinalities_) + [len(label_encoder.classes_)],
        names=features + [target],
        max_cells=max_cells,
    )
    engine.levels = [list(levels) for levels in encoder.levels_] + [list(label_encoder.classes_)]
    return engine, features, target


def interaction_graph(
    X: pd.DataFrame | ArrayLike,
    y: ArrayLike | Hashable,
    *,
    test: str | None = "asymptotic",
    n_resamples: int = 200,
    correction: str | None = "fdr_bh",
    alpha: float = 0.05,
    triples: bool = False,
    max_triples: int = DEFAULT_MAX_TRIPLES,
    discretizer: Any = "auto",
    base: float | None = None,
    max_cells: int = 10_000_000,
    random_state: int | np.random.Generator | None = None,
) -> nx.Graph:
    """Jakulin & Bratko's interaction analysis of the attributes of a classification data set.

    From one batch of the counting engine: the information ``I(A; C)`` of each attribute
    about the class ``C``, and the interaction information ``I(A; B; C)`` of every pair of
    attributes with the class (positive: synergy, negative: redundancy; see
    :mod:`graphmodels.stats.interactions`), in nats and as a share of the class entropy
    ``H(C)``; each tested for significance with multiple-testing control [2]_. Optionally, the
    interaction information of every triple of attributes (no class).

    Parameters
    ----------
    X : DataFrame or 2-D array-like of shape (n_rows, n_features)
        The attributes. Numeric columns with many values are cut as a classifier cuts them
        (`discretizer`).
    y : array-like of shape (n_rows,), or the name of a column of `X`
        The class.
    test : {"asymptotic", "bootstrap"} or None, default="asymptotic"
        How the P-values are found (module docstring): the chi-squared limit of the
        likelihood ratio against the parts' model (IPF), or the parametric bootstrap from it
        (`n_resamples` tables per test; slower, for small samples); None: no test.
    n_resamples : int, default=200
    correction : {"fdr_bh", "holm", "bonferroni"} or None, default="fdr_bh"
        Multiple-testing correction, within each family of tests (the attributes' information
        about the class; the pairs; the triples): :func:`adjust_p_values`.
    alpha : float, default=0.05
        The level at which an adjusted P-value is ``significant``.
    triples : bool, default=False
        Also compute ``I(A; B; D)`` for every triple of attributes (without the class), tested
        as the pairs are; at most `max_triples` of them.
    max_triples : int, default=200_000
    discretizer : {"auto", "mdl", "equal-frequency"}, None or a discretizer, default="auto"
        ``"auto"``: Fayyad & Irani's MDL cut points for numeric columns with more than 10
        distinct values, fitted on these rows (the classifiers' default); None keeps every
        value a state. Missing cells are a state of their own.
    base : float, optional
        Logarithm base of the reported information; nats by default.
    max_cells : int, default=10_000_000
        Largest table counted (all pairwise tables within each class together).
    random_state : None, int or numpy Generator
        Seeds the bootstrap.

    Returns
    -------
    networkx.Graph
        Nodes: the attributes, with ``mutual_information`` (``I(A; C)``), ``share`` (of
        ``H(C)``), ``entropy`` (``H(A)``), ``role="feature"`` and, with a test, ``statistic``,
        ``df``, ``p_value``, ``adjusted_p_value`` and ``significant``. Edges: every pair, with
        ``interaction`` (``I(A; B; C)``), ``share``, ``kind`` (``"synergy"`` when positive,
        else ``"redundancy"``), ``weight`` (its absolute value) and the test's columns.
        ``graph.graph`` holds ``target``, ``class_entropy``, ``unit`` (``"nats"`` or
        ``"bits"``), ``n_rows``, ``test``, ``correction``, ``alpha``, and as DataFrames
        ``attributes`` (one row per attribute, by decreasing information), ``pairs`` (one row
        per pair, by decreasing absolute interaction) and ``triples`` (None without
        `triples`).

    Raises
    ------
    ValueError
        For an unknown `test` or `correction`, `alpha` outside (0, 1), X and y of different
        lengths, or more triples than `max_triples`.

    See Also
    --------
    interaction_information : one set of variables.
    graphmodels.plotting.draw_interaction_graph, graphmodels.plotting.draw_interaction_dendrogram

    References
    ----------
    .. [1] Jakulin, A., & Bratko, I. (2003). Analyzing attribute dependencies. *PKDD 2003*,
           LNAI 2838, 229-240.
    .. [2] Jakulin, A., & Bratko, I. (2004). Testing the significance of attribute
           interactions. *ICML 2004*, 409-416.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> X = pd.DataFrame(rng.integers(0, 2, size=(400, 3)), columns=["a", "b", "noise"])
    >>> graph = interaction_graph(X, X["a"] ^ X["b"])
    >>> edge = graph.edges["a", "b"]
    >>> edge["kind"], round(edge["share"], 1), bool(edge["significant"])  # all of H(class): XOR
    ('synergy', 1.0, True)
    >>> bool(graph.edges["a", "noise"]["significant"])
    False
    """
    _check_choice(test, TESTS, "test")
    _check_choice(correction, CORRECTIONS, "correction")
    _check_integer(n_resamples, "n_resamples", 1)
    if isinstance(alpha, bool) or not isinstance(alpha, numbers.Real) or not 0 < alpha < 1:
        raise ValueError(f"`alpha` must be a number in (0, 1), got {alpha!r}.")
    engine, features, target = _class_frame(X, y, discretizer, max_cells)
    rng = np.random.default_rng(random_state)
    unit = "nats" if base is None else ("bits" if base == 2 else f"log base {base}")
    scale = _log_base(base)
    pairs = engine.pairwise_counts(features, given=target)
    interaction, entropy, class_entropy, _ = _block_interactions(pairs.table, pairs.offsets)
    p = len(features)
    mutual = np.diagonal(interaction).copy()
    share = lambda value: value / class_entropy if class_entropy > 0 else np.zeros_like(value)  # noqa: E731
    attributes = pd.DataFrame(
        {
            "attribute": features,
            "mutual_information": mutual / scale,
            "share": share(mutual),
            "entropy": entropy / scale,
        }
    )
    upper_i, upper_j = np.triu_indices(p, k=1)
    values = interaction[upper_i, upper_j]
    pair_frame = pd.DataFrame(
        {
            "a": [features[i] for i in upper_i.tolist()],
            "b": [features[j] for j in upper_j.tolist()],
            "interaction": values / scale,
            "share": share(values),
            "kind": np.where(values > 0, "synergy", "redundancy"),
        }
    )
    if test is not None:
        diagonal = [
            np.transpose(pairs.block(i, i).diagonal(axis1=1, axis2=2))  # (r_i, C)
            for i in range(p)
        ]
        r_max = max((d.shape[0] for d in diagonal), default=1)
        two_way = np.zeros((p, r_max, pairs.table.shape[0]))
        for i, d in enumerate(diagonal):
            two_way[i, : d.shape[0]] = d
        statistic, df, p_value = _two_way_tests(two_way, test, n_resamples, rng)
        attributes["statistic"], attributes["df"], attributes["p_value"] = statistic, df, p_value
        attributes["adjusted_p_value"] = adjust_p_values(p_value, correction)
        attributes["significant"] = attributes["adjusted_p_value"] <= alpha
        statistic, df, p_value = _three_way_tests(
            _pair_tables(pairs.table, pairs.offsets, list(zip(upper_i.tolist(), upper_j.tolist()))),
            test,
            n_resamples,
            rng,
        )
        pair_frame["statistic"], pair_frame["df"], pair_frame["p_value"] = statistic, df, p_value
        pair_frame["adjusted_p_value"] = adjust_p_values(p_value, correction)
        pair_frame["significant"] = pair_frame["adjusted_p_value"] <= alpha
    triple_frame = None
    if triples:
        triple_frame = triple_interaction_information(
            engine,
            features,
            test=test,
            n_resamples=n_resamples,
            correction=correction,
            max_triples=max_triples,
            base=base,
            random_state=rng,
        )
        if test is not None:
            triple_frame["significant"] = triple_frame["adjusted_p_value"] <= alpha
    graph = nx.Graph(
        target=target,
        class_entropy=class_entropy / scale,
        unit=unit,
        n_rows=float(engine.total),
        test=test,
        correction=correction,
        alpha=float(alpha),
    )
    for record in attributes.to_dict("records"):
        name = record.pop("attribute")
        graph.add_node(name, role="feature", **{k: _plain(v) for k, v in record.items()})
    for record in pair_frame.to_dict("records"):
        a, b = record.pop("a"), record.pop("b")
        graph.add_edge(a, b, weight=abs(float(record["interaction"])), **{k: _plain(v) for k, v in record.items()})
    order = np.argsort(-attributes["mutual_information"].to_numpy(), kind="stable")
    graph.graph["attributes"] = attributes.iloc[order].reset_index(drop=True)
    order = np.argsort(-np.abs(pair_frame["interaction"].to_numpy()), kind="stable")
    graph.graph["pairs"] = pair_frame.iloc[order].reset_index(drop=True)
    graph.graph["triples"] = triple_frame
    return graph


def _plain(value):
    """A numpy scalar as the Python scalar (graph attributes that print and save simply)."""
    return value.item() if isinstance(value, np.generic) else value


def interaction_distances(graph: nx.Graph, *, truncation: float = 1000.0) -> tuple[list[Hashable], np.ndarray]:
    """Jakulin & Bratko's dissimilarity of every pair of attributes of an interaction graph.

    ``d(A, B) = 1 / |I(A; B; C)|``, and `truncation` where ``|I| < 1 / truncation``, with
    ``I`` as a share of the class entropy (so that the dendrogram does not depend on the
    unit): strongly interacting attributes, synergistic or redundant, are close [1]_.

    Parameters
    ----------
    graph : networkx.Graph
        From :func:`interaction_graph`.
    truncation : float, default=1000.0
        The largest distance (Jakulin's Orange code truncates at 1000).

    Returns
    -------
    names : list
        The attributes, in node order.
    distances : ndarray of shape (n * (n - 1) / 2,)
        Condensed (as :func:`scipy.spatial.distance.squareform` gives), for
        :func:`scipy.cluster.hierarchy.linkage`.

    References
    ----------
    .. [1] Jakulin, A., & Bratko, I. (2003). Analyzing attribute dependencies. *PKDD 2003*.
    """
    if not isinstance(graph, nx.Graph) or "class_entropy" not in graph.graph:
        raise TypeError("Expected the graph of interaction_graph (a networkx Graph with its 'class_entropy').")
    names = list(graph.nodes)
    distances = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            data = graph.get_edge_data(a, b) or {}
            strength = abs(float(data.get("share", 0.0)))
            distances.append(1.0 / strength if strength * truncation > 1 else float(truncation))
    return names, np.asarray(distances, dtype=np.float64)


# ----------------------------------------------------------------------------- information graphs
def information_graph(
    structure: nx.Graph, data: CountingEngine | pd.DataFrame, *, base: float | None = None
) -> nx.Graph:
    """A copy of `structure` with the entropy of each node and the mutual information of each edge.

    pyAgrum's ``showInformation`` for any structure: ``entropy`` ``H(X)`` on every node that
    is a variable of `data`, ``mutual_information`` ``I(X; Y)`` on every edge between two of
    them, from the counting engine (one batch of pairwise tables).

    Parameters
    ----------
    structure : networkx.Graph or DiGraph
        Nodes named as columns of `data` (others are kept, without the attributes).
    data : CountingEngine or DataFrame
        Discrete data (a DataFrame is encoded as it is).
    base : float, optional
        Logarithm base; nats by default.

    Returns
    -------
    networkx.Graph or DiGraph
        A new graph of the same type; ``graph["unit"]`` says nats or bits.

    Examples
    --------
    >>> import networkx as nx, pandas as pd
    >>> frame = pd.DataFrame({"a": [0, 0, 1, 1], "b": [0, 0, 1, 1], "c": [0, 1, 0, 1]})
    >>> graph = information_graph(nx.Graph([("a", "b"), ("b", "c")]), frame, base=2)
    >>> graph.nodes["a"]["entropy"], graph.edges["a", "b"]["mutual_information"], graph.edges["b", "c"]["mutual_information"]
    (1.0, 1.0, 0.0)
    """
    if not isinstance(structure, nx.Graph):
        raise TypeError(f"`structure` must be a networkx graph, got {type(structure).__name__}.")
    engine = as_engine(data)
    names = set(map(_key, engine.names))
    known = [n for n in structure.nodes if _key(n) in names]
    graph = structure.copy()
    graph.graph["unit"] = "nats" if base is None else ("bits" if base == 2 else f"log base {base}")
    if not known:
        return graph
    from .information import pairwise_mutual_information

    matrix = pairwise_mutual_information(engine, known, base=base)
    index = {n: i for i, n in enumerate(known)}
    for n in known:
        graph.nodes[n]["entropy"] = float(matrix[index[n], index[n]])
    for u, v in graph.edges():
        if u in index and v in index:
            graph.edges[u, v]["mutual_information"] = float(matrix[index[u], index[v]])
    return graph
