"""Hyperedge weights (Liang & Srebro, sections 2.2-2.3), computed in bulk from the counting engine."""

import itertools
import math

import numpy as np
import pandas as pd
import pytest

from graphmodels.stats import (
    CountingEngine,
    HyperedgeWeights,
    TableTooLargeError,
    entropy,
    hyperedge_weights,
    mutual_information,
    subset_entropies,
)


def _engine(seed=0, n_rows=400, cards=(2, 3, 2, 4, 3), n_classes=3, weighted=False, unknown=False):
    rng = np.random.default_rng(seed)
    codes = np.column_stack([rng.integers(0, r, n_rows) for r in cards] + [rng.integers(0, n_classes, n_rows)])
    codes[:, 1] = (codes[:, 0] + codes[:, 2] + (rng.random(n_rows) < 0.2)) % cards[1]  # a 3-way dependence
    if unknown:
        codes[rng.random(codes.shape) < 0.05] = -1
        codes[:, -1] = np.abs(codes[:, -1])
    weights = rng.random(n_rows) * 2 if weighted else None
    names = [f"x{i}" for i in range(len(cards))] + ["y"]
    return CountingEngine(codes, list(cards) + [n_classes], names=names, sample_weight=weights)


def _moebius_weight(engine, h, stratum=None):
    """w_h = -sum_{g <= h} (-1)^{|h|-|g|} H(g), by the definition (eq. 2 in expectation)."""
    source = engine if stratum is None else engine.stratum("y", stratum)
    total = 0.0
    for size in range(1, len(h) + 1):
        for g in itertools.combinations(h, size):
            total -= (-1) ** (len(h) - size) * entropy(source, list(g))
    return total


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("unknown", [False, True])
def test_bulk_entropies_match_the_engine(weighted, unknown):
    engine = _engine(weighted=weighted, unknown=unknown)
    features = [f"x{i}" for i in range(5)]
    result = subset_entropies(engine, features, 4, given="y")
    for size in range(1, 5):
        for h in itertools.combinations(features, size):
            assert result.entropy(h) == pytest.approx(entropy(engine, list(h)), abs=1e-10)
            assert result.entropy(h, stratum=2) == pytest.approx(entropy(engine.stratum("y", 2), list(h)), abs=1e-10)


def test_weights_by_definition():
    engine = _engine()
    features = [f"x{i}" for i in range(5)]
    w = hyperedge_weights(engine, features, k=2)
    # singletons: -H; pairs: mutual information; triples: the Moebius recursion
    assert w[frozenset({"x3"})] == pytest.approx(-entropy(engine, ["x3"]))
    assert w[frozenset({"x0", "x3"})] == pytest.approx(mutual_information(engine, "x0", "x3"))
    for h in itertools.combinations(features, 3):
        assert w[frozenset(h)] == pytest.approx(_moebius_weight(engine, h), abs=1e-10)
    # the 3-way dependence x1 = x0 + x2 gives a large triple weight
    assert w[frozenset({"x0", "x1", "x2"})] > 0.3
    # closure weight: the weight of h with all its subsets is -H(h)
    assert w.closure_weight({"x0", "x1", "x2"}) == pytest.approx(-entropy(engine, ["x0", "x1", "x2"]))


def test_mdl_penalty_is_the_recursive_parameter_count():
    engine = _engine()
    features = [f"x{i}" for i in range(5)]
    cards = dict(zip(features, [2, 3, 2, 4, 3]))
    m = engine.total
    ml = hyperedge_weights(engine, features, k=2, score="ml")
    mdl = hyperedge_weights(engine, features, k=2, score="mdl")

    def n_params(h):  # N_h = NumParams(P_h) - sum over proper non-empty subsets of N_h'
        proper = [g for s in range(1, len(h)) for g in itertools.combinations(h, s)]
        return math.prod(cards[v] for v in h) - 1 - sum(n_params(g) for g in proper)

    for h in [("x0",), ("x1", "x3"), ("x0", "x1", "x2"), ("x2", "x3", "x4")]:
        expected = ml[frozenset(h)] - n_params(h) * math.log(m) / (2 * m)
        assert mdl[frozenset(h)] == pytest.approx(expected, abs=1e-12)
    # hand value: N for r = (3, 4) is (3-1)(4-1) = 6
    assert n_params(("x1", "x3")) == 6


def test_class_conditional_weights():
    engine = _engine()
    features = [f"x{i}" for i in range(5)]
    free = hyperedge_weights(engine, features, k=2, given="y", per_stratum=True)
    shared = hyperedge_weights(engine, features, k=2, given="y")
    prior = np.asarray(engine.counts(["y"])) / engine.total
    for h in [("x0",), ("x0", "x3"), ("x0", "x1", "x2")]:
        for y in range(3):
            assert free[y][frozenset(h)] == pytest.approx(_moebius_weight(engine, h, stratum=y), abs=1e-10)
        assert shared[frozenset(h)] == pytest.approx(sum(prior[y] * free[y][frozenset(h)] for y in range(3)))
    # ML shared pair weight is the conditional mutual information I(u; v | y)
    from graphmodels.stats import conditional_mutual_information

    assert shared[frozenset({"x0", "x3"})] == pytest.approx(conditional_mutual_information(engine, "x0", "x3", "y"))
    # MDL per class uses the class's own sample size
    mdl = hyperedge_weights(engine, features, k=1, score="mdl", given="y", per_stratum=True)
    m_y = float(engine.counts(["y"])[1])
    assert mdl[1][frozenset({"x0", "x3"})] == pytest.approx(
        free[1][frozenset({"x0", "x3"})] - 1 * 3 * math.log(m_y) / (2 * m_y)
    )


def test_gains_are_mutual_information_for_ml():
    engine = _engine()
    features = [f"x{i}" for i in range(5)]
    w = hyperedge_weights(engine, features, k=2)
    gains = w.gains(2)
    for base in [("x0", "x2"), ("x3", "x4")]:
        rank = int(w.rank(np.array(sorted(features.index(v) for v in base))))
        for v in features:
            if v in base:
                assert gains[rank, features.index(v)] == -np.inf
            else:
                expected = entropy(engine, [v]) + entropy(engine, list(base)) - entropy(engine, [v, *base])
                assert gains[rank, features.index(v)] == pytest.approx(expected, abs=1e-10)


def test_gains_of_every_base_and_node_follow_the_definition():
    """``G[rank(b), v] = Z(b + v) - Z(b) - Z({v})`` exactly, -inf for v in b, for every size of base
    (the empty one too) and on a problem where bases hold every node (n = size)."""
    rng = np.random.default_rng(0)
    for n, k in [(7, 3), (3, 3)]:
        closure = [rng.normal(size=math.comb(n, s)) for s in range(k + 2)]
        w = HyperedgeWeights([f"v{i}" for i in range(n)], closure)
        for size in range(min(k, n) + 1):
            gains = w.gains(size)
            assert gains.shape == (math.comb(n, size), n)
            for base in itertools.combinations(range(n), size):
                row = gains[int(w.rank(np.array(base, dtype=np.int64).reshape(1, -1))[0])]
                for v in range(n):
                    if v in base:
                        assert row[v] == -np.inf
                        continue
                    grown = np.array(sorted((*base, v))).reshape(1, -1)
                    expected = closure[size + 1][w.rank(grown)[0]] - closure[size][w.rank(np.array([base]))[0]]
                    assert row[v] == expected - closure[1][v]


def test_weights_of_every_size_invert_the_closure():
    """Integer weights (exact sums) through the closure and back: ``weights_of_size`` gives each
    hyperedge's own weight, in colex order, for every size up to 4."""
    rng = np.random.default_rng(1)
    nodes = [f"v{i}" for i in range(7)]
    mapping = {h: float(rng.integers(-5, 6)) for s in range(1, 5) for h in itertools.combinations(nodes, s)}
    w = HyperedgeWeights.from_mapping(mapping, nodes, max_size=4)
    for size in range(1, 5):
        combos, values = w.weights_of_size(size)
        assert [mapping[tuple(nodes[i] for i in c)] for c in combos] == values.tolist()
        assert (w.rank(combos) == np.arange(len(combos))).all()


def test_mapping_round_trip_and_lookups():
    engine = _engine()
    w = hyperedge_weights(engine, k=2)  # every variable but none given: x0..x4 and y
    assert len(w) == 6 + 15 + 20 and set(w.nodes) == {"x0", "x1", "x2", "x3", "x4", "y"}
    again = HyperedgeWeights.from_mapping(dict(w.items()), w.nodes, max_size=3)
    for s in range(4):
        np.testing.assert_allclose(again.closure[s], w.closure[s], atol=1e-12)
    with pytest.raises(KeyError, match="max_size"):
        w[frozenset({"x0", "x1", "x2", "x3"})]
    with pytest.raises(KeyError, match="Unknown node"):
        w[frozenset({"zz"})]


def test_dataframe_input_and_guards():
    frame = pd.DataFrame({"a": list("xxyy"), "b": list("xxyy"), "c": list("xyxy")})
    w = hyperedge_weights(frame, k=1)
    assert w[frozenset({"a", "b"})] == pytest.approx(math.log(2))
    assert w[frozenset({"a", "c"})] == pytest.approx(0.0, abs=1e-12)
    with pytest.raises(ValueError, match="Unknown score"):
        hyperedge_weights(frame, k=1, score="bic")
    with pytest.raises(ValueError, match="`k` must be"):
        hyperedge_weights(frame, k=-1)
    with pytest.raises(ValueError, match="per_stratum"):
        hyperedge_weights(frame, k=1, per_stratum=True)
    with pytest.raises(ValueError, match="max_candidates"):
        subset_entropies(frame, max_size=3, max_candidates=5)
    wide = CountingEngine(np.zeros((3, 4), dtype=int), [100, 100, 100, 100], names=list("pqrs"), max_cells=10**6)
    with pytest.raises(TableTooLargeError, match="'p' \\(100 states\\)"):
        hyperedge_weights(wide, k=3)


def test_joint_entropies_derived_from_the_class_conditional_pass(monkeypatch):
    """The J representation reuses the pass over the attributes given the class."""
    import graphmodels.stats.hyperedges as module

    engine = _engine()
    features = [f"x{i}" for i in range(5)]
    subset_entropies(engine, features, 4, given="y")
    fresh = subset_entropies(_engine(), features + ["y"], 3)

    def no_counting(*args, **kwargs):
        raise AssertionError("the rows were counted again")

    monkeypatch.setattr(module, "_xlogx_sums", no_counting)
    derived = subset_entropies(engine, features + ["y"], 3)
    for s in range(4):
        np.testing.assert_allclose(derived.joint[s], fresh.joint[s], atol=1e-12)
    # the class need not be last
    reordered = ["x2", "y", "x0", "x1", "x3", "x4"]
    derived = subset_entropies(engine, reordered, 3)
    for h in [("y",), ("x0", "y"), ("x1", "x3", "y"), ("x2", "x4")]:
        assert derived.entropy(h) == pytest.approx(entropy(engine, list(h)), abs=1e-10)


@pytest.mark.parametrize("given", [None, "c"])
@pytest.mark.parametrize("k", [1, 2, 3])
def test_gram_counts_equal_bincount_counts(given, k, monkeypatch):
    """The one-hot Gram path gives the weights of the per-base bincount path (issue 18)."""
    import graphmodels.stats.hyperedges as module
    from graphmodels.stats.information import as_engine

    rng = np.random.default_rng(k)
    cards = [2, 3, 4, 3, 2, 5, 3]
    frame = pd.DataFrame({f"v{i}": rng.integers(0, cards[i % 7], 400) for i in range(8)})
    frame["c"] = rng.integers(0, 3, 400)
    if given is None:
        frame = frame.drop(columns="c")
    results = []
    for gram in (False, True):
        monkeypatch.setattr(module, "_USE_GRAM", gram)
        results.append(module.hyperedge_weights(as_engine(frame), k=k, given=given))
    for s in range(1, k + 2):
        a, b = results[0].weights_of_size(s)[1], results[1].weights_of_size(s)[1]
        np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-12)
    assert module._gram_fits(np.array(cards), k + 1, 3, 400) == (k >= 1)


@pytest.mark.parametrize("given", [None, "c"])
@pytest.mark.parametrize("kept_bytes", [None, 0])
def test_anchored_gram_counts_equal_every_cell_counts(given, kept_bytes, monkeypatch):
    """Counting only the rows and columns outside the common states gives the weights of the Gram
    products of every cell bit for bit (issue 26): skewed, uniform, binary and constant columns, up
    to bases of three variables; with nothing kept for the larger bases, every cell is multiplied."""
    import graphmodels.stats.hyperedges as module
    from graphmodels.stats.information import as_engine

    rng = np.random.default_rng(7)
    n_rows = 300
    columns = {}
    for i, r in enumerate([3, 2, 4, 3, 1, 3, 5]):
        skewed = np.where(rng.random(n_rows) < 0.7, i % r, rng.integers(0, r, n_rows))
        columns[f"v{i}"] = skewed if i % 2 else rng.integers(0, r, n_rows)
    columns["v2"] = (columns["v0"] + columns["v1"] + (rng.random(n_rows) < 0.3)) % 4  # a 3-way dependence
    frame = pd.DataFrame(columns)
    if given is not None:
        frame["c"] = (frame["v0"] + rng.integers(0, 2, n_rows)) % 3
    if kept_bytes is not None:
        monkeypatch.setattr(module, "_GRAM_KEPT_BYTES", kept_bytes)
    cards = as_engine(frame).cardinalities
    assert module._gram_fits(cards[: frame.shape[1] - (given is not None)], 5, 3, n_rows)
    results = []
    for anchored in (False, True):
        monkeypatch.setattr(module, "_USE_ANCHORED", anchored)
        results.append(module.hyperedge_weights(as_engine(frame), k=4, given=given))
    for s in range(5 + 1):
        np.testing.assert_array_equal(results[1].closure[s], results[0].closure[s])
