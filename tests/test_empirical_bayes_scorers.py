"""The empirical-Bayes searches' scorers against the formulas written cell by cell (brute force).

The scorers of :class:`EmpiricalBayesBDeu` and :class:`HierarchicalDirichlet` evaluate ``gammaln`` once
per distinct (prior, count) pair and weight it by its multiplicity; these tests hold them to the
straightforward sums over cells and configurations, and their searches to a plain one.
"""

import math

import numpy as np
import pytest

from graphmodels.estimators import EmpiricalBayesBDeu, HierarchicalDirichlet
from graphmodels.estimators.hierarchical import _occupied_cells, _polya_scores_on_grids
from graphmodels.estimators.parameters import _bdeu_scores_on_grids, _BDeuTerms, _LogRisingFactorialSums


def _close(value, reference, scale):
    """Equal to 1e-12 relative, of the value or of the terms' magnitude (a sum may cancel)."""
    return abs(value - reference) <= 1e-12 * max(abs(reference), scale)


def _bdeu_by_cells(counts, ess, conditional):
    """The BDeu log marginal likelihood, one configuration and one cell at a time, and its terms' magnitude."""
    table = np.asarray(counts, dtype=float)
    table = table.reshape(-1, table.shape[-1]) if conditional else table.reshape(1, -1)
    q, r = table.shape
    alpha = ess / (q * r)
    terms = []
    for row in table:
        terms.append(math.lgamma(r * alpha) - math.lgamma(r * alpha + row.sum()))
        terms.extend(math.lgamma(alpha + n) - math.lgamma(alpha) for n in row if n > 0)
    return math.fsum(terms), math.fsum(abs(t) for t in terms)


def _polya_by_cells(counts, base, s):
    """The Dirichlet-multinomial log likelihood of rows of counts under ``Dirichlet(s * base)``, cell by cell."""
    terms = []
    for row, row_base in zip(counts, base):
        if row.sum() > 0:
            terms.append(math.lgamma(s) - math.lgamma(s + row.sum()))
            terms.extend(math.lgamma(s * b + n) - math.lgamma(s * b) for n, b in zip(row, row_base) if n > 0)
    return math.fsum(terms), math.fsum(abs(t) for t in terms)


def _random_tables(rng, n_tables):
    """Small tables with repeated counts, empty configurations, weighted (non-integer) counts, one empty table."""
    tables = []
    for _ in range(n_tables):
        shape = tuple(int(s) for s in rng.integers(1, 5, size=rng.integers(1, 4)))
        table = rng.poisson(rng.uniform(0.3, 15.0), size=shape).astype(float)
        if rng.random() < 0.3:
            table *= rng.uniform(0.1, 3.0, size=shape)  # weighted rows
        table[rng.random(shape) < 0.3] = 0.0
        tables.append(table)
    tables.append(np.zeros((2, 3)))
    return tables


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("sparse_sum_cells", [0, 10**9], ids=["sparse-product", "reduceat"])
def test_log_rising_factorial_sums_equal_the_sum_over_values(seed, sparse_sum_cells, monkeypatch):
    import graphmodels.estimators.parameters as parameters

    monkeypatch.setattr(parameters, "SPARSE_SUM_CELLS", sparse_sum_cells)
    rng = np.random.default_rng(seed)
    n_groups = 6
    # Repeated integers, a weighted value, groups with equal offsets (shared gammaln values) and not.
    groups = [
        np.concatenate([rng.integers(1, 5, size=rng.integers(1, 9)), rng.uniform(0, 3, size=1)])
        for _ in range(n_groups)
    ]
    offsets = np.exp(rng.uniform(-5, 9, size=(n_groups, 5)))
    offsets[1] = offsets[0]
    offsets[4] = offsets[2]
    sums = _LogRisingFactorialSums.of_groups(groups)(offsets)
    values, owners = np.concatenate(groups), np.repeat(np.arange(n_groups), [g.size for g in groups])
    unshared = _LogRisingFactorialSums(values, owners, n_groups, share_offsets=False)(offsets)
    # Groups 0-2 summed into row 0, 3-5 into row 1.
    summed = _LogRisingFactorialSums(values, owners, n_groups, sum_of_group=np.array([0, 0, 0, 1, 1, 1]))(offsets)
    assert sums.shape == unshared.shape == offsets.shape and summed.shape == (2, offsets.shape[1])
    for g, values in enumerate(groups):
        for p, x in enumerate(offsets[g]):
            terms = [math.lgamma(x + v) - math.lgamma(x) for v in values]
            assert _close(sums[g, p], math.fsum(terms), math.fsum(abs(t) for t in terms))
            assert _close(unshared[g, p], math.fsum(terms), math.fsum(abs(t) for t in terms))
    np.testing.assert_allclose(summed, [sums[:3].sum(axis=0), sums[3:].sum(axis=0)], rtol=1e-13)


def test_distinct_keys_equal_numpys_unique_dense_or_sorted():
    from graphmodels.estimators.parameters import _distinct_keys

    keys = np.random.default_rng(7).integers(0, 50, size=200)
    expected, inverse = np.unique(keys, return_inverse=True)
    for bound in (50, 10**9):  # marked in a table of `bound` flags, or sorted
        distinct, found = _distinct_keys(keys, bound)
        assert distinct.tolist() == expected.tolist() and found.tolist() == inverse.tolist()


@pytest.mark.parametrize("conditional", [True, False])
def test_bdeu_terms_of_many_tables_equal_each_table_read_alone(conditional):
    # Read together (the configurations' totals of tables of one width summed as one array), each
    # table's non-empty cells and totals equal its own, bit for bit, weighted counts included.
    rng = np.random.default_rng(5)
    tables = [*_random_tables(rng, 30), np.zeros((3, 0)), np.zeros(0)]
    for table, terms in zip(tables, _BDeuTerms.of_tables(tables, conditional)):
        rows = table.reshape(-1, table.shape[-1]) if conditional and table.shape[-1] else table.reshape(1, -1)
        assert np.array_equal(terms.cells, rows[rows > 0])
        assert np.array_equal(terms.parents, rows.sum(axis=1)[rows.sum(axis=1) > 0])
        assert (terms.n_cells, terms.n_configurations) == (max(rows.size, 1), rows.shape[0])


@pytest.mark.parametrize("conditional", [True, False])
def test_bdeu_scorer_equals_the_formula_cell_by_cell(conditional):
    rng = np.random.default_rng(3)
    tables = [t for t in _random_tables(rng, 12) if t.sum() > 0]
    grids = np.exp(rng.uniform(np.log(0.01), np.log(1e4), size=(len(tables), 6)))
    grids[: len(tables) // 2] = grids[0]  # the first pass's shared grid, and grids of their own
    scores = _bdeu_scores_on_grids([_BDeuTerms.of(t, conditional) for t in tables])(grids)
    for table, grid, row in zip(tables, grids, scores):
        for ess, score in zip(grid, row):
            assert _close(score, *_bdeu_by_cells(table, ess, conditional))


def test_polya_scorer_equals_the_formula_cell_by_cell():
    rng = np.random.default_rng(4)
    levels, references = [], []
    for _ in range(8):
        q, r = (int(v) for v in rng.integers(1, 6, size=2))
        counts = rng.poisson(rng.uniform(0.3, 15.0), size=(q, r)).astype(float)
        if rng.random() < 0.3:
            counts *= rng.uniform(0.1, 3.0, size=counts.shape)
        counts[0, 0] += 1.0
        # Bases shared by configurations (the level below's estimate) or uniform.
        bases = rng.dirichlet(np.ones(r), size=2)
        base = bases[rng.integers(0, 2, size=q)] if rng.random() < 0.7 else np.full((q, r), 1.0 / r)
        levels.append(_occupied_cells(counts, base))
        references.append((counts, base))
    grids = np.exp(rng.uniform(0.0, np.log(1e5), size=(len(levels), 6)))
    grids[:4] = grids[0]
    scores = _polya_scores_on_grids(levels)(grids)
    for (counts, base), grid, row in zip(references, grids, scores):
        for s, score in zip(grid, row):
            assert _close(score, *_polya_by_cells(counts, base, s))


def _plain_search(score, low, high):
    """21 log-spaced points, then 11 between the best's neighbours, twice: one table at a time."""
    grid = np.geomspace(low, high, 21)
    for _ in range(3):
        values = [score(x) for x in grid]
        best = int(np.argmax(values))
        chosen = grid[best]
        grid = np.geomspace(grid[max(best - 1, 0)], grid[min(best + 1, len(grid) - 1)], 11)
    return chosen


@pytest.mark.parametrize("conditional", [True, False])
def test_selected_sample_sizes_equal_a_plain_search(conditional):
    rng = np.random.default_rng(5)
    tables = _random_tables(rng, 10)
    chosen = EmpiricalBayesBDeu()._select(tables, conditional)
    for table, ess in zip(tables, chosen):
        if table.sum() == 0:
            assert ess == 2.0  # no counts: the smallest value
            continue
        reference = _plain_search(lambda x, t=table: _bdeu_by_cells(t, x, conditional)[0], 2.0, 1000.0)
        assert ess == pytest.approx(reference, rel=1e-12)


def test_selected_concentrations_equal_a_plain_search():
    rng = np.random.default_rng(6)
    estimator = HierarchicalDirichlet()
    for _ in range(6):
        q, r = (int(v) for v in rng.integers(2, 6, size=2))
        counts = rng.poisson(rng.uniform(0.5, 20.0), size=(q, r)).astype(float)
        base = rng.dirichlet(np.ones(r), size=2)[rng.integers(0, 2, size=q)]
        reference = _plain_search(lambda s, c=counts, b=base: _polya_by_cells(c, b, s)[0], 1.0, 1e5)
        assert estimator.select_concentration(counts, base) == pytest.approx(reference, rel=1e-12)
