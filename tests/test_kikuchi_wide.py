"""Issue 18: the wide-data speed-ups of kikuchi_bayes_path (fixed changes of
candidates outside the model's attributes; the bound without cached deltas)
take the same path as the code before them (commit 689f5b9, loaded from git)."""

import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import graphmodels as gm
from graphmodels.data.datasets import load
from graphmodels.learners import kikuchi

REFERENCE_COMMIT = "689f5b9"
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def reference():
    try:
        source = subprocess.run(
            ["git", "show", f"{REFERENCE_COMMIT}:graphmodels/learners/kikuchi.py"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("the reference commit is not available")
    name = "graphmodels.learners._kikuchi_reference"
    spec = importlib.util.spec_from_loader(name, loader=None)
    module = importlib.util.module_from_spec(spec)
    module.__package__ = "graphmodels.learners"
    sys.modules[name] = module
    exec(compile(source, "kikuchi_reference.py", "exec"), module.__dict__)
    return module


@pytest.fixture(scope="module")
def reference_path(reference):
    """``reference_path(key, engine, target, **options)``: the reference commit's traced path, once per key.

    The tests that vary how the current search computes its bound slopes (module constants of
    graphmodels.learners.kikuchi, which the reference does not read) compare with one path.
    """
    paths = {}

    def path(key, engine, target, **options):
        if key not in paths:
            paths[key] = reference.kikuchi_bayes_path(engine, target, trace=True, **options)
        return paths[key]

    return path


def _wide(n_cols, n_rows=600, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(n_rows, n_cols))
    logit = 1.2 * (X[:, 0] == 2) - 1.0 * (X[:, 1] == 0) + 0.8 * ((X[:, 2] + X[:, 3]) % 3 == 0)
    y = (rng.random(n_rows) < 1 / (1 + np.exp(-(logit - 0.3)))).astype(int)
    return pd.DataFrame(X, columns=[f"x{j:03d}" for j in range(n_cols)]).assign(y=y)


def _frame(name):
    if name == "wide30":
        return _wide(30), "y"
    data = load(name)
    return data, "class"


def _compare(a, b):
    pa, ta = a
    pb, tb = b
    assert [s["region"] for s in pa] == [s["region"] for s in pb]
    assert [s["counting_numbers"] for s in pa] == [s["counting_numbers"] for s in pb]
    assert [s["df"] for s in pa] == [s["df"] for s in pb]
    np.testing.assert_allclose([s["log_posterior"] for s in pa], [s["log_posterior"] for s in pb], rtol=1e-12)
    assert list(ta["action"]) == list(tb["action"])
    assert list(ta["item"]) == list(tb["item"])
    np.testing.assert_allclose(ta["score"].astype(float), tb["score"].astype(float), rtol=1e-12)


@pytest.mark.parametrize("name", ["tic-tac-toe", "car", "monk1", "monk2", "monk3", "wide30"])
def test_same_path_and_trace_as_before(name, reference):
    frame, target = _frame(name)
    engine = gm.stats.information.as_engine(frame[[c for c in frame.columns if c != target] + [target]])
    new = kikuchi.kikuchi_bayes_path(engine, target, trace=True)
    old = reference.kikuchi_bayes_path(engine, target, trace=True)
    _compare(new, old)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_bound_without_cached_deltas_takes_the_same_path(n_classes, reference, monkeypatch):
    # Pools too big to cache their deltas: the bound is now computed block by block.
    frame = _wide(12, n_rows=400, seed=n_classes)
    if n_classes == 3:
        frame["y"] = (frame["y"] + (frame["x004"] == 1)).astype(int)
    engine = gm.stats.information.as_engine(frame)
    old = reference.kikuchi_bayes_path(engine, "y", trace=True)
    monkeypatch.setattr(kikuchi, "_POOL_BYTES", 0)
    monkeypatch.setattr(kikuchi, "_BLOCK_ELEMENTS", 4000)
    new = kikuchi.kikuchi_bayes_path(engine, "y", trace=True)
    _compare(new, old)


def test_untouched_changes_are_the_general_rule():
    frame = _wide(10, n_rows=300)
    engine = gm.stats.information.as_engine(frame)
    path = kikuchi.kikuchi_bayes_path(engine, "y", max_region_size=3)
    search = kikuchi._RegionSearch(engine, engine.position("y"), list(range(10)), 4.0)
    model = kikuchi._Model(search)
    # add the first accepted regions with their exact changes, then check every candidate
    names = [engine.names[p] for p in range(10)]
    for step in path[1:4]:
        mask = sum(1 << names.index(v) for v in step["region"] if v != "y")
        model.add(mask, model.changes(mask), search.log_rows(mask))
        touched = 0
        for r in model.maximal:
            touched |= r
        for combo in [(a, b) for a in range(10) for b in range(a + 1, 10)]:
            m = (1 << combo[0]) | (1 << combo[1])
            if not m & touched:
                assert model.changes(m) == {m: 1, 0: -1}


# --- Pools too large to cache score deltas (_WidePool): arrays of attribute indices, slopes
# --- from cell tables. Same paths as the reference, which kept per-candidate Python objects.


@pytest.mark.parametrize("n, k", [(0, 0), (3, 0), (1, 1), (5, 1), (5, 2), (6, 3), (7, 4), (3, 4)])
def test_combinations_are_itertools_order(n, k):
    import itertools

    combos = list(itertools.combinations(range(n), k))
    expected = np.array(combos, dtype=np.int64).reshape(len(combos), k)
    np.testing.assert_array_equal(kikuchi._combinations(n, k), expected)


def _mixed(n_cols, n_rows, seed, n_classes=2):
    # Columns of 2, 3 and 4 states; the class depends on x000..x003.
    rng = np.random.default_rng(seed)
    cards = [2 + j % 3 for j in range(n_cols)]
    X = np.column_stack([rng.integers(0, c, n_rows) for c in cards])
    logit = 1.0 * (X[:, 0] == 1) - 0.8 * (X[:, 1] == 0) + 0.9 * ((X[:, 2] + X[:, 3]) % 2 == 0)
    y = (rng.random(n_rows) < 1 / (1 + np.exp(-(logit - 0.3)))).astype(int)
    if n_classes == 3:
        y = y + (X[:, 4] == 1) * (rng.random(n_rows) < 0.6)
    return pd.DataFrame(X, columns=[f"x{j:03d}" for j in range(n_cols)]).assign(y=y)


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("k", [1, 2, 3])
def test_vectorized_changes_are_the_models(seed, k):
    # After random regions join the model, every candidate's changes from _WidePool are
    # _Model.changes' (the closure walk), and their df is the sum over the changed regions.
    rng = np.random.default_rng(seed)
    frame = _mixed(9, 200, seed)
    engine = gm.stats.information.as_engine(frame)
    search = kikuchi._RegionSearch(engine, engine.position("y"), list(range(9)), 4.0)
    model = kikuchi._Model(search)
    pool = kikuchi._WidePool(search, model, k, 10**9)
    for _ in range(6):
        size = int(rng.integers(1, 5))
        region = sum(1 << int(a) for a in rng.choice(9, size=size, replace=False))
        if model.closure(region) is not None:  # already covered
            continue
        model.add(region, model.changes(region), search.log_rows(region))
        pool.update(region)
        pool._refresh()
        for b in np.flatnonzero(pool.active):
            mask = pool._mask(b)
            assert pool._changes_dict(b) == model.changes(mask)
            expected_df = sum(dc * search.class_df(t) for t, dc in model.changes(mask).items())
            assert pool.delta_dfs[b] == expected_df
        # inactive candidates are exactly those inside a region of the model
        for b in range(len(pool.combos)):
            assert pool.active[b] == (model.closure(pool._mask(b)) is None)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_slopes_from_cell_tables_are_the_row_products(n_classes, monkeypatch):
    # g . d summed over cells equals the product with the per-row score changes, and stays
    # above it (single-precision tables come with their rounding allowance). Cell tables
    # counted group by group (no subset tallies, no Gram products).
    monkeypatch.setattr(kikuchi, "_SUBSET_ENTRIES", 0)
    monkeypatch.setattr(kikuchi, "_USE_GRAM_SLOPES", False)
    frame = _mixed(10, 300, 5, n_classes)
    engine = gm.stats.information.as_engine(frame)
    search = kikuchi._RegionSearch(engine, engine.position("y"), list(range(10)), 4.0)
    model = kikuchi._Model(search)
    for region in (0b1, 0b110, 0b1000_0001):
        model.add(region, model.changes(region), search.log_rows(region))
    pool = kikuchi._WidePool(search, model, 3, 10**9)
    pool._refresh()
    usable = np.flatnonzero(pool.active)
    gradient = search.gradient(model.scores)
    slopes = pool._slopes(usable, gradient)
    exact = np.array([np.vdot(gradient, pool._deltas([b])[0]) for b in usable])
    columns = gradient if n_classes == 2 else gradient[:, :-1]
    allowance = 2.0**-24 * pool._largest_log_p * np.abs(columns).sum()
    allowance += pool._largest_reference * np.abs(gradient.sum(axis=1)).sum() if n_classes > 2 else 0
    assert 0 < allowance < 1e-3
    assert (slopes >= exact - 1e-9 * np.maximum(1, np.abs(exact))).all()
    np.testing.assert_allclose(slopes - allowance, exact, rtol=1e-9, atol=1e-9 + allowance / 2)


def _weighted_pool(frame, k):
    """A wide pool of `k`-attribute candidates on `frame` (10 columns of 2-4 states and "y") with
    sample weights of 1-3, after three regions joined the model."""
    weights = np.random.default_rng(k).integers(1, 4, len(frame)).astype(float)
    n_classes = int(frame["y"].max()) + 1
    engine = gm.stats.CountingEngine(
        frame.to_numpy(), [2 + j % 3 for j in range(10)] + [n_classes], names=list(frame.columns), sample_weight=weights
    )
    search = kikuchi._RegionSearch(engine, engine.position("y"), list(range(10)), 4.0)
    model = kikuchi._Model(search)
    for region in (0b1, 0b110, 0b1000_0001):
        model.add(region, model.changes(region), search.log_rows(region))
    pool = kikuchi._WidePool(search, model, k, 10**9)
    pool._refresh()
    return search, model, pool


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("k", [1, 2, 3])
def test_slopes_from_subset_tallies_are_the_row_products(n_classes, k):
    # The same products from the anchored tables and the tallies of rows outside the common
    # states, above them by at most the allowance; a column of 4 states whose common state is
    # not the first, and sample weights.
    frame = _mixed(10, 300, 6, n_classes)
    frame["x005"] = (frame["x005"] + 2) % 4
    search, model, pool = _weighted_pool(frame, k)
    assert pool._plan is not None
    usable = np.flatnonzero(pool.active)
    gradient = search.gradient(model.scores)
    slopes = pool._slopes(usable, gradient)
    exact = np.array([np.vdot(gradient, pool._deltas([b])[0]) for b in usable])
    assert (slopes >= exact).all()
    np.testing.assert_allclose(slopes, exact, rtol=1e-9, atol=1e-6)


@pytest.mark.parametrize("slopes", ["subsets", "gram", "groups"])
@pytest.mark.parametrize("name", ["tic-tac-toe", "car", "monk2"])
def test_wide_pools_take_the_same_path_on_bundled_data(name, slopes, reference_path, monkeypatch):
    _slopes_from(slopes, monkeypatch)
    frame, target = _frame(name)
    engine = gm.stats.information.as_engine(frame[[c for c in frame.columns if c != target] + [target]])
    old = reference_path(name, engine, target)
    monkeypatch.setattr(kikuchi, "_POOL_BYTES", 0)
    _compare(kikuchi.kikuchi_bayes_path(engine, target, trace=True), old)


def _slopes_from(slopes, monkeypatch):
    """Wide pools' bound slopes from the subset tallies, the Gram products or group-by-group tallies."""
    if slopes != "subsets":
        monkeypatch.setattr(kikuchi, "_SUBSET_ENTRIES", 0)
    if slopes == "groups":
        monkeypatch.setattr(kikuchi, "_USE_GRAM_SLOPES", False)


@pytest.mark.parametrize("slopes", ["subsets", "gram", "groups"])
@pytest.mark.parametrize("n_cols, n_classes, max_cells", [(24, 2, None), (16, 3, None), (16, 2, 40), (14, 3, 60)])
def test_wide_pools_take_the_same_path_on_mixed_columns(
    n_cols, n_classes, max_cells, slopes, reference_path, monkeypatch
):
    # Columns of 2-4 states; max_cells drops some candidates, so groups of candidates sharing a
    # prefix skip attributes (and the Gram products do not apply); pools with only a small budget
    # become wide ones. Slopes from the subset tallies, the Gram products, or cell tables counted
    # group by group.
    _slopes_from(slopes, monkeypatch)
    frame = _mixed(n_cols, 500, n_cols + n_classes, n_classes)
    engine = gm.stats.information.as_engine(frame)
    old = reference_path(("mixed", n_cols, n_classes, max_cells), engine, "y", max_cells=max_cells)
    monkeypatch.setattr(kikuchi, "_POOL_BYTES", 2**20)
    new = kikuchi.kikuchi_bayes_path(engine, "y", trace=True, max_cells=max_cells)
    _compare(new, old)
    assert len(new[0]) > 3


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("k", [2, 3])
def test_slopes_from_gram_products_are_the_row_products(n_classes, k, monkeypatch):
    # The same products from the anchored tables and one-hot Gram products (issue 26), above them
    # by at most the allowance; a column of 4 states whose common state is not the first, a
    # constant column, and sample weights.
    monkeypatch.setattr(kikuchi, "_SUBSET_ENTRIES", 0)
    frame = _mixed(10, 300, 6, n_classes)
    frame["x005"] = (frame["x005"] + 2) % 4
    frame["x007"] = 0
    search, model, pool = _weighted_pool(frame, k)
    usable = np.flatnonzero(pool.active)
    gradient = search.gradient(model.scores)
    slopes = pool._slopes(usable, gradient)
    assert isinstance(pool._gram, kikuchi._GramSlopes)
    if k == 3:  # products in their own order of the attributes (2-4 states: not the search's)
        assert (pool._gram.order != np.arange(10)).any()
    exact = np.array([np.vdot(gradient, pool._deltas([b])[0]) for b in usable])
    columns = gradient if n_classes == 2 else gradient[:, :-1]
    relative = 2.0**-24 + (len(search.x) + pool._gram._terms + 64) * 2.0**-52
    allowance = relative * 2**k * pool._gram._scale * np.abs(columns).sum()
    allowance += pool._gram._largest_reference * np.abs(gradient.sum(axis=1)).sum() if n_classes > 2 else 0
    assert 0 < allowance < 1e-2
    if k > 1:  # and that of the single-precision products (sample weights of 1-3)
        assert pool._gram.single_states
        state = pool._gram._state_allowance(pool._columns_of(gradient))
        allowance = allowance + (state if pool._gram._place is None else state[pool._gram._place])[usable]
        assert 0 < allowance.max() < 1e-1
    assert (slopes >= exact).all()
    assert (np.abs(slopes - allowance - exact) <= 1e-9 * np.abs(exact) + 1e-6 + allowance / 2).all()


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("k", [1, 2, 3])
def test_cell_table_log_likelihoods_are_the_row_scores(n_classes, k):
    # Each candidate's CLL from its cell table and the stage's exp(scores) is the CLL of the
    # per-row score changes (the old path), to rounding; with sample weights, and with scores
    # 800 nats apart.
    frame = _mixed(10, 300, 7 + k, n_classes)
    search, model, pool = _weighted_pool(frame, k)
    usable = np.flatnonzero(pool.active)
    for shift in (0.0, 800.0):
        model.scores[:5] += shift * (np.arange(n_classes) if n_classes > 2 else 1.0)
        pool._stage = None
        new = pool._log_likelihoods(usable)
        old = [search.conditional_log_likelihood(pool._deltas([b])[0] + model.scores) for b in usable]
        np.testing.assert_allclose(new, old, rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_stage_scores_flag_underflowing_candidates(n_classes):
    # Scores and score changes more than ~700 nats apart in opposite directions: those candidates
    # are NaN (rescored by their rows), the others the CLL of the per-row sums.
    frame = _mixed(6, 200, 3, n_classes)
    engine = gm.stats.information.as_engine(frame)
    search = kikuchi._RegionSearch(engine, engine.position("y"), list(range(6)), 4.0)
    rng = np.random.default_rng(n_classes)
    shape = (len(search.x),) if n_classes == 2 else (len(search.x), n_classes)
    scores = rng.normal(size=shape) * 5
    scores[0] = 750.0 if n_classes == 2 else [750.0, 0.0, 0.0]
    code, cells = search.region_codes(np.array([[0, 1], [2, 3], [4, 5]]))
    counts, tables = search.log_tables(code, cells)
    tables = tables + rng.normal(size=tables.shape)
    tables[code[1, 0]] = -750.0 if n_classes == 2 else [-750.0, 0.0, 0.0]  # row 0's cell, candidate 1
    got = kikuchi._StageScores(search, scores).log_likelihoods(code, counts, tables, cells)
    expected = [search.conditional_log_likelihood(scores + tables[c]) for c in code]
    assert np.isnan(got[1])
    np.testing.assert_allclose(got[[0, 2]], np.array(expected)[[0, 2]], rtol=1e-12)


@pytest.mark.parametrize("k", [2, 3])
def test_candidate_pool_slopes_from_gram_products_bound_the_cached_deltas(k, monkeypatch):
    # A pool that caches its deltas takes its bound slopes from Gram products and the sub-region
    # terms (issue 26): the products with the cached deltas, and never below them.
    monkeypatch.setattr(kikuchi, "_GRAM_POOL_ELEMENTS", 0)
    frame = _mixed(10, 300, 6)
    frame["x005"] = (frame["x005"] + 2) % 4
    engine = gm.stats.information.as_engine(frame)
    search = kikuchi._RegionSearch(engine, engine.position("y"), list(range(10)), 4.0)
    model = kikuchi._Model(search)
    for region in (0b1, 0b110, 0b1000_0001):
        model.add(region, model.changes(region), search.log_rows(region))
    pool = kikuchi._CandidatePool(search, model, k, 10**9)
    pool.update(0b1000_0001)
    usable = np.flatnonzero(pool.active)
    gradient = search.gradient(model.scores)
    slopes = pool._slopes(usable, gradient)
    assert isinstance(pool._gram, kikuchi._GramSlopes)
    exact = pool.deltas[usable] @ gradient
    assert (slopes >= exact).all()
    extra = 0.0
    if k > 1:  # the single-precision products' allowance, in the pool's order
        assert pool._gram.single_states
        extra = pool._gram._state_allowance(pool._columns_of(gradient))
        extra = (extra if pool._gram._place is None else extra[pool._gram._place])[usable]
    assert (np.abs(slopes - exact) <= 1e-9 * np.abs(exact) + 1e-3 + extra).all()
    for b in usable:  # the pattern changes are the change dicts
        mask = pool.masks[b]
        assert {t: dc for t, dc in pool.changes[b].items()} == {
            sum(1 << int(a) for i, a in enumerate(pool.combos[b]) if q >> i & 1): int(dc)
            for q, dc in enumerate(pool.pattern_changes[b])
            if dc
        }
        assert sum(1 << int(a) for a in pool.combos[b]) == mask


@pytest.mark.parametrize("n_classes", [2, 3])
def test_candidate_pool_deltas_made_in_place_are_the_copied_ones(n_classes, monkeypatch):
    # A pool's deltas of consecutive candidates are made in its cache, not copied into it (issue
    # 26): bit for bit those of the copy (chunks of 7: consecutive ones, then scattered ones).
    monkeypatch.setattr(kikuchi, "_BLOCK_ELEMENTS", 7 * 300 * (n_classes if n_classes > 2 else 1))
    frame = _mixed(10, 300, 3, n_classes)
    engine = gm.stats.information.as_engine(frame)
    search = kikuchi._RegionSearch(engine, engine.position("y"), list(range(10)), 4.0)
    model = kikuchi._Model(search)
    for region in (0b11, 0b1_0000_0100):
        model.add(region, model.changes(region), search.log_rows(region))
    pool = kikuchi._CandidatePool(search, model, 2, 10**9)
    assert pool.block == 7
    consecutive, scattered = np.arange(3, 24), np.arange(24, len(pool.masks), 2)
    pool._ensure_deltas(np.concatenate([consecutive, scattered]))
    assert pool.has_delta[consecutive].all() and pool.has_delta[scattered].all()
    for start in range(0, len(consecutive), 7):  # made in place: in the order of the copies
        chunk = consecutive[start : start + 7]
        np.testing.assert_array_equal(pool.deltas[chunk], pool._deltas(chunk))
    np.testing.assert_array_equal(pool.deltas[scattered[:7]], pool._deltas(scattered[:7]))
    # the in-place gather is the indexing one
    masks = [pool.masks[b] for b in consecutive[:7]]
    out = np.full((7,) + pool.shape, np.nan)
    assert search.batch_log_rows(masks, out) is out
    np.testing.assert_array_equal(out, search.batch_log_rows(masks))


@pytest.mark.parametrize("n_cols, seed", [(12, 0), (14, 1)])
def test_candidate_pools_with_gram_slopes_take_the_same_path(n_cols, seed, reference, monkeypatch):
    # Every pool that caches deltas bounds its candidates by Gram products: the same path as with
    # the cached deltas' products, bit for bit, and as the reference.
    frame = _mixed(n_cols, 400, seed)
    engine = gm.stats.information.as_engine(frame)
    monkeypatch.setattr(kikuchi, "_DIRECT_ELEMENTS", 0)
    monkeypatch.setattr(kikuchi, "_GRAM_POOL_ELEMENTS", 2**62)
    deltas = kikuchi.kikuchi_bayes_path(engine, "y", trace=True)
    monkeypatch.setattr(kikuchi, "_GRAM_POOL_ELEMENTS", 0)
    new = kikuchi.kikuchi_bayes_path(engine, "y", trace=True)
    assert [s["region"] for s in new[0]] == [s["region"] for s in deltas[0]]
    assert [s["log_posterior"] for s in new[0]] == [s["log_posterior"] for s in deltas[0]]
    _compare(new, reference.kikuchi_bayes_path(engine, "y", trace=True))


@pytest.mark.parametrize("runs", [kikuchi._SUM_RUNS, 0])
@pytest.mark.parametrize("cards", [[3] * 6, [2, 3, 1, 4, 5, 1, 2], [1, 1, 3]])
def test_gram_kernels_are_direct_sums(cards, runs, monkeypatch):
    # The one-hot Gram product of a row subset with signed weights (from rows of any dtype), and the
    # sums over each attribute's reduced columns (equal widths, mixed widths, attributes of one
    # state; by runs of equal widths and by gathered rows), against their direct loops.
    monkeypatch.setattr(kikuchi, "_SUM_RUNS", runs)
    rng = np.random.default_rng(len(cards))
    x = np.column_stack([rng.integers(0, c, 40) for c in cards] + [rng.integers(0, 2, 40)])
    engine = gm.stats.CountingEngine(x, cards + [2], names=[f"x{j}" for j in range(len(cards))] + ["y"])
    search = kikuchi._RegionSearch(engine, len(cards), list(range(len(cards))), 4.0)
    pool = kikuchi._WidePool(search, kikuchi._Model(search), 2, 10**9)
    gram = kikuchi._GramSlopes(pool, keep_phi=True)
    weights = rng.normal(size=len(search.x))
    rows = np.flatnonzero(rng.random(len(search.x)) < 0.6)
    first = int(gram.reduced_offsets[1])
    got = kikuchi._weighted_gram(gram.rows_major, first, rows, weights[rows])
    columns = gram.rows_major[rows, first:]
    np.testing.assert_allclose(got, np.triu(columns.T @ (weights[rows, None] * columns)), atol=1e-12)
    # counts (weights 0 and 1) in single precision: the same integers as in double precision
    counts = (rng.random(len(search.x)) < 0.5).astype(np.float64)
    single = kikuchi._weighted_gram(gram.rows_major.astype(np.float32), first, rows, counts[rows])
    assert single.dtype == np.float64
    np.testing.assert_array_equal(single, kikuchi._weighted_gram(gram.rows_major, first, rows, counts[rows]))
    # the same products from the rows as bytes (gathered, then scaled in double precision)
    np.testing.assert_array_equal(kikuchi._weighted_gram(gram.rows_major_bytes, first, rows, weights[rows]), got)
    from_bytes = kikuchi._weighted_gram(gram.rows_major_bytes, first, rows, counts[rows], single=True)
    np.testing.assert_array_equal(from_bytes, single)
    kept = kikuchi._weighted_gram(gram.rows_major_bytes, first, rows, counts[rows], single=True, double=False)
    assert kept.dtype == np.float32  # (kept single: the same integers)
    np.testing.assert_array_equal(kept, single)
    for start in range(len(cards)):
        bounds = gram.reduced_offsets[start:] - gram.reduced_offsets[start]
        width = int(bounds[-1])
        for axis in (0, 1):
            values = rng.normal(size=(width, 3) if axis == 0 else (3, width))
            moved = np.moveaxis(values, axis, 0)
            expected = np.stack([moved[bounds[j] : bounds[j + 1]].sum(axis=0) for j in range(len(bounds) - 1)])
            got = gram._block_sums(values, start, axis) if width else np.zeros_like(expected)
            np.testing.assert_allclose(np.moveaxis(got, axis, 0), expected, atol=1e-12)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_untraced_search_skips_regions_below_acceptance_and_takes_the_same_path(n_classes, monkeypatch):
    # Without a trace no region below what acceptance needs is scored exactly (issue 26): the same
    # path as the traced search, which scores each size's best region even when it is rejected,
    # and fewer exact scores.
    monkeypatch.setattr(kikuchi, "_DIRECT_ELEMENTS", 0)
    monkeypatch.setattr(kikuchi, "_POOL_BYTES", 2**20)
    frame = _mixed(14, 400, 11, n_classes)
    engine = gm.stats.information.as_engine(frame)
    scored = []
    original = kikuchi._best_in_pool

    def counting(pool, n, log_likelihoods_of, slopes_of, floor=None, screen_of=None, anchored=None):
        def counted(which):
            scored.append(len(which))
            return log_likelihoods_of(which)

        def screened(which):
            scored.append(len(which))
            return screen_of(which)

        return original(pool, n, counted, slopes_of, floor, screened if screen_of else None, anchored)

    monkeypatch.setattr(kikuchi, "_best_in_pool", counting)
    traced, trace = kikuchi.kikuchi_bayes_path(engine, "y", trace=True)
    traced_scores = sum(scored)
    scored.clear()
    untraced = kikuchi.kikuchi_bayes_path(engine, "y")
    assert [s["region"] for s in untraced] == [s["region"] for s in traced]
    assert [s["log_posterior"] for s in untraced] == [s["log_posterior"] for s in traced]
    assert [s["counting_numbers"] for s in untraced] == [s["counting_numbers"] for s in traced]
    assert (trace["action"] == "reject").sum() >= 2
    assert sum(scored) < traced_scores


def test_screened_candidates_are_chosen_as_by_exact_scores(monkeypatch):
    # Two classes: candidates are screened by a faster softplus within a bound of the exact
    # conditional log-likelihood, and only those that can tie with the best are scored exactly
    # (issue 26): the bound holds, and the path is the one of exact scores, bit for bit.
    frame = _mixed(14, 400, 5)
    engine = gm.stats.information.as_engine(frame)
    search = kikuchi._RegionSearch(engine, engine.position("y"), list(range(14)), 4.0)
    model = kikuchi._Model(search)
    for region in (0b1, 0b110):
        model.add(region, model.changes(region), search.log_rows(region))
    model.scores[:7] += 40.0  # rows far on either side of the decision
    model.scores[7:14] -= 40.0
    pool = kikuchi._CandidatePool(search, model, 2, 10**9)
    which = np.flatnonzero(pool.active)
    fast, errors = pool._screened_log_likelihoods(which)
    exact = pool._log_likelihoods(which)
    assert (np.abs(fast - exact) <= errors).all() and (errors < 1e-8).all()
    monkeypatch.setattr(kikuchi, "_DIRECT_ELEMENTS", 0)
    screened = kikuchi.kikuchi_bayes_path(engine, "y")
    monkeypatch.setattr(kikuchi._CandidatePool, "_screened_log_likelihoods", property(lambda self: None))
    plain = kikuchi.kikuchi_bayes_path(engine, "y")
    assert [s["region"] for s in screened] == [s["region"] for s in plain]
    assert [s["log_posterior"] for s in screened] == [s["log_posterior"] for s in plain]


@pytest.mark.parametrize("n_classes", [2, 3])
def test_gram_slopes_of_chosen_candidates_are_those_of_a_whole_pass(n_classes, monkeypatch):
    # The slopes of a few candidates from the Gram rows of a cover of their pairs, and of all of them
    # from whole blocks (issue 26), are those of a whole pass with the same allowance, so never below
    # the row products; a whole block's other candidates come back too.
    monkeypatch.setattr(kikuchi, "_SUBSET_ENTRIES", 0)
    monkeypatch.setattr(kikuchi, "_COVER_SHARE", 4)  # (the few candidates' cover within a quarter)
    frame = _mixed(10, 300, 6, n_classes)
    frame["x005"] = (frame["x005"] + 2) % 4
    search, model, pool = _weighted_pool(frame, 3)
    assert pool._anchored()
    gradient = search.gradient(model.scores)
    columns = pool._columns_of(gradient)
    whole = pool._gram.slopes(columns, gradient)
    used = []
    for name in ("_covered_slopes", "_block_totals"):
        method = getattr(kikuchi._GramSlopes, name)
        monkeypatch.setattr(kikuchi._GramSlopes, name, lambda *args, _m=method, _n=name: used.append(_n) or _m(*args))
    few = np.array([0, 5, 40, 41, 77, 100])
    # (the other states' products in single precision in whole blocks, in double in the covers: the
    # same within the allowance of their rounding)
    state = pool._gram._state_allowance(columns)
    state = state if pool._gram._place is None else state[pool._gram._place]
    for chosen, way in ((few, "_covered_slopes"), (np.arange(len(pool.combos)), "_block_totals")):
        used.clear()
        own, others, their_own = pool._gram.candidate_slopes(columns, gradient, pool.combos[chosen])
        assert way in used
        assert (np.abs(own - whole[chosen]) <= 1e-9 + state[chosen]).all()
        assert (np.abs(their_own - whole[others]) <= 1e-9 + state[others]).all()
        bounds = kikuchi._add_subregion_slopes(own, search, pool.combos[chosen], pool.changes[chosen], gradient)
        exact = np.array([np.vdot(gradient, pool._deltas([b])[0]) for b in chosen])
        assert (bounds >= exact).all()
    assert len(others) == len(pool.combos)


@pytest.mark.parametrize("k", [2, 3])
def test_candidate_pools_sub_region_masks_are_those_of_each_pattern(k):
    # A candidate pool's sub-region masks of each pattern, made from the pattern's lower bits (issue
    # 26), are the masks of the candidate's attributes in that pattern; and its change dicts use them.
    frame = _mixed(9, 200, 3)
    engine = gm.stats.information.as_engine(frame)
    search = kikuchi._RegionSearch(engine, engine.position("y"), list(range(9)), 4.0)
    model = kikuchi._Model(search)
    pool = kikuchi._CandidatePool(search, model, k, 10**9)
    for region in (0b11, 0b1_0000_0100):
        model.add(region, model.changes(region), search.log_rows(region))
        pool.update(region)
    assert len(pool._pattern_masks) == len(pool.masks)
    for b, masks in pool._pattern_masks.items():
        assert masks == [pool._mask(b, q) for q in range(1 << k)]
        if pool.active[b]:
            assert pool.changes[b] == model.changes(pool.masks[b])


def test_columns_of_attributes_are_their_ranges_in_order():
    # The covered Gram slopes' rows and columns (issue 26): each attribute's range of columns, in the
    # order of the attributes, attributes without a column (one state) contributing none.
    offsets = np.array([0, 2, 2, 5, 6, 10])
    for attributes in ([], [1], [0, 1, 3], [0, 2, 4], [1, 2, 3, 4], [0, 1, 2, 3, 4]):
        attributes = np.array(attributes, dtype=np.int64)
        expected = [c for u in attributes for c in range(offsets[u], offsets[u + 1])]
        assert kikuchi._columns_of_attributes(offsets, attributes).tolist() == expected


@pytest.mark.parametrize("gap", [np.inf, 0.0])
@pytest.mark.parametrize("trace", [True, False])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_anchored_bounds_take_the_same_path_with_fewer_products(n_classes, trace, gap, monkeypatch):
    # Three-attribute candidates bounded at the scores of an earlier stage (their anchor) and given
    # fresh slopes only when that bound reaches the best of the leading candidates (issue 26): the
    # same path, bit for bit, as fresh slopes for every candidate at every stage, with fewer of them;
    # and with whole passes whenever the latest anchor's bound lies `gap` or more above the model's.
    monkeypatch.setattr(kikuchi, "_WHOLE_PASS_GAP", gap)
    monkeypatch.setattr(kikuchi, "_SUBSET_ENTRIES", 0)
    monkeypatch.setattr(kikuchi, "_POOL_BYTES", 2**20)
    monkeypatch.setattr(kikuchi, "_DIRECT_ELEMENTS", 0)
    frame = _mixed(16, 500, 3, n_classes)
    engine = gm.stats.information.as_engine(frame)
    fresh = []
    original = kikuchi._WidePool._fresh_slopes

    def counted(self, which, gradient, current):
        fresh.append((len(which), int(self.active.sum())))
        return original(self, which, gradient, current)

    monkeypatch.setattr(kikuchi._WidePool, "_fresh_slopes", counted)
    new = kikuchi.kikuchi_bayes_path(engine, "y", trace=trace)
    monkeypatch.setattr(kikuchi._WidePool, "_anchored", lambda self: False)
    old = kikuchi.kikuchi_bayes_path(engine, "y", trace=trace)
    new_path, old_path = (new[0], old[0]) if trace else (new, old)
    assert [s["region"] for s in new_path] == [s["region"] for s in old_path]
    assert [s["log_posterior"] for s in new_path] == [s["log_posterior"] for s in old_path]
    assert [s["counting_numbers"] for s in new_path] == [s["counting_numbers"] for s in old_path]
    if trace:
        assert list(new[1]["item"]) == list(old[1]["item"])
    if gap:
        assert fresh and sum(n for n, _ in fresh) < sum(active for _, active in fresh)
    else:
        assert not fresh


@pytest.mark.parametrize("n_classes", [2, 3])
def test_anchored_pair_bounds_take_the_same_path(n_classes, monkeypatch):
    # A pool of pairs whose Gram products cost more than bounds at anchors (issue 26): fresh slopes
    # from the cached deltas of the few candidates whose anchored bound reaches the leading ones'
    # best, else from the Gram products; the same path, bit for bit.
    monkeypatch.setattr(kikuchi, "_DIRECT_ELEMENTS", 0)
    monkeypatch.setattr(kikuchi, "_GRAM_POOL_ELEMENTS", 0)
    frame = _mixed(16, 400, 2, n_classes)
    engine = gm.stats.information.as_engine(frame)
    monkeypatch.setattr(kikuchi, "_ANCHORED_PAIRS", 10**9)
    plain = kikuchi.kikuchi_bayes_path(engine, "y", trace=True)
    fresh = []
    original = kikuchi._CandidatePool._fresh_slopes

    def counted(self, which, gradient, current):
        fresh.append(len(which) > len(self.masks) // kikuchi._FEW_DELTAS)
        return original(self, which, gradient, current)

    monkeypatch.setattr(kikuchi._CandidatePool, "_fresh_slopes", counted)
    monkeypatch.setattr(kikuchi, "_ANCHORED_PAIRS", 0)
    anchored = kikuchi.kikuchi_bayes_path(engine, "y", trace=True)
    assert [s["region"] for s in anchored[0]] == [s["region"] for s in plain[0]]
    assert [s["log_posterior"] for s in anchored[0]] == [s["log_posterior"] for s in plain[0]]
    assert list(anchored[1]["item"]) == list(plain[1]["item"])
    assert False in fresh  # some stages from the cached deltas


def test_count_products_in_single_precision_only_for_weights_of_zero_and_one(monkeypatch):
    # The Gram slopes' count products are single precision only when every class weight is 0 or 1
    # (their integers exact); with sample weights of 1-3, double precision throughout.
    monkeypatch.setattr(kikuchi, "_SUBSET_ENTRIES", 0)
    dtypes = []
    original = kikuchi._weighted_gram

    def recorded(rows_major, first, rows, weights, single=None, **options):
        single = rows_major.dtype == np.float32 if single is None else single
        dtypes.append(np.dtype(np.float32 if single else np.float64))
        return original(rows_major, first, rows, weights, single, **options)

    monkeypatch.setattr(kikuchi, "_weighted_gram", recorded)
    frame = _mixed(10, 300, 6)
    _, _, pool = _weighted_pool(frame, 3)
    assert pool._anchored()
    pool._gram._tables()
    assert dtypes and set(dtypes) == {np.dtype(np.float64)}
    dtypes.clear()
    engine = gm.stats.information.as_engine(frame)
    search = kikuchi._RegionSearch(engine, engine.position("y"), list(range(10)), 4.0)
    assert set(np.unique(search.class_weights)) <= {0.0, 1.0}
    kikuchi._GramSlopes(kikuchi._WidePool(search, kikuchi._Model(search), 3, 10**9), keep_phi=True)._tables()
    assert dtypes and set(dtypes) == {np.dtype(np.float32)}


def test_single_precision_state_products_are_within_their_allowance():
    # The other states' products with the gradient in single precision (issue 26, sixth round): every
    # entry within gamma_{N+5} sum|g| (and N 2**-125 for underflow) of the exactly rounded sum, N the
    # rows of both columns, for weights of every sign and magnitude (1e-45 to 1e3, some zero); a
    # bound of sum|g| times 2**-24 alone would not hold.
    import math

    rng = np.random.default_rng(3)
    rows_major = (rng.random((1500, 14)) < 0.5).astype(np.uint8)
    weights = rng.standard_normal(1500) * 10.0 ** rng.integers(-45, 4, 1500).astype(float)
    weights[:20] = 0.0
    gram = kikuchi._weighted_gram(rows_major, 2, None, weights, single=True, double=False, end=-1)
    assert gram.dtype == np.float32 and gram.shape == (11, 11)
    unit = 2.0**-24
    worst = 0.0
    for i in range(11):
        for j in range(i, 11):
            both = (rows_major[:, 2 + i] & rows_major[:, 2 + j]) == 1
            exact = math.fsum(weights[both])
            n = int((both & (weights != 0)).sum())
            scale = float(np.abs(weights[both]).sum())
            error = abs(float(gram[i, j]) - exact)
            assert error <= (n + 5) * unit / (1 - (1500 + 5) * unit) * scale + n * 2.0**-125
            worst = max(worst, error / (unit * scale))
    assert worst > 1.0  # (rounding beyond one unit of the largest sum: the N factor is needed)


def test_single_precision_state_products_only_for_weights_of_at_least_one(monkeypatch):
    # The states' products are single precision only where a cell's distinct rows are at most its
    # class weights' sum (every nonzero weight at least 1, as counts and the sample weights 1-3);
    # sample weights below 1 keep them double precision, without the allowance.
    monkeypatch.setattr(kikuchi, "_SUBSET_ENTRIES", 0)
    frame = _mixed(10, 300, 6)
    search, model, pool = _weighted_pool(frame, 3)
    assert pool._anchored() and pool._gram.single_states
    pool._gram._tables()
    assert pool._gram._kappa is not None and (pool._gram._kappa > 0).any()
    engine = gm.stats.CountingEngine(
        frame.to_numpy(),
        [2 + j % 3 for j in range(10)] + [2],
        names=list(frame.columns),
        sample_weight=np.full(300, 0.5),
    )
    search = kikuchi._RegionSearch(engine, engine.position("y"), list(range(10)), 4.0)
    gram = kikuchi._GramSlopes(kikuchi._WidePool(search, kikuchi._Model(search), 3, 10**9), keep_phi=True)
    assert not gram.single_states
    gram._tables()
    assert gram._kappa is None


def test_two_classes_counts_packed_in_one_product_are_the_same_tables(monkeypatch):
    # Two classes' counts from one product of the weights 1 and 4096 (issue 26, sixth round): the
    # same anchored tables and allowances, bit for bit, from half the products.
    monkeypatch.setattr(kikuchi, "_SUBSET_ENTRIES", 0)
    frame = _mixed(14, 300, 6)  # (distinct rows: one class each)
    engine = gm.stats.information.as_engine(frame)
    search = kikuchi._RegionSearch(engine, engine.position("y"), list(range(14)), 4.0)
    assert search._entry_per_row and search.binary
    calls = []
    original = kikuchi._weighted_gram

    def counted(*args, **options):
        calls.append(1)
        return original(*args, **options)

    monkeypatch.setattr(kikuchi, "_weighted_gram", counted)
    made = []
    for base in (kikuchi._PACKED_BASE, 1):  # (1: no packing, fewer rows than the base)
        monkeypatch.setattr(kikuchi, "_PACKED_BASE", base)
        calls.clear()
        gram = kikuchi._GramSlopes(kikuchi._WidePool(search, kikuchi._Model(search), 3, 10**9), keep_phi=True)
        made.append((gram._tables(), gram._kappa, gram._scale, len(calls)))
    (packed, packed_kappa, packed_scale, packed_calls), (plain, plain_kappa, plain_scale, plain_calls) = made
    assert 2 * packed_calls == plain_calls
    assert packed_scale == plain_scale and np.array_equal(packed_kappa, plain_kappa)
    for ours, theirs in zip(packed, plain):
        for column_ours, column_theirs in zip(ours, theirs):
            assert all(np.array_equal(x, y) for x, y in zip(column_ours, column_theirs))
