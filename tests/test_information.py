"""Tests of graphmodels.stats.information: entropy, MI, CMI, pairwise MI."""

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from graphmodels.stats import (
    CountingEngine,
    conditional_mutual_information,
    entropy,
    entropy_of_counts,
    mutual_information,
    pairwise_mutual_information,
)


def engine_from_table(table, names=None):
    """An engine whose rows realize a table of integer counts exactly."""
    table = np.asarray(table)
    cells = np.array(list(np.ndindex(table.shape)), dtype=np.int64).reshape(-1, table.ndim)
    codes = np.repeat(cells, table.ravel().astype(np.int64), axis=0)
    return CountingEngine(codes, table.shape, names=names)


# ---------------------------------------------------------------- hand-computed
def test_entropy_hand_values():
    # H(1/4, 1/4, 1/2) = 1.5 bits; a point mass has no entropy.
    assert entropy_of_counts([1, 1, 2], base=2) == pytest.approx(1.5)
    assert entropy_of_counts([0, 5, 0]) == 0.0
    assert entropy_of_counts([0, 0]) == 0.0
    # Uniform on 3 states: log 3 nats.
    engine = engine_from_table([2, 2, 2])
    assert entropy(engine, 0) == pytest.approx(math.log(3))
    assert entropy(engine, [0], base=3) == pytest.approx(1.0)


def test_mutual_information_symmetric_2x2_hand_value():
    # Counts [[3, 1], [1, 3]], N = 8: p(x) = p(y) = 1/2 and
    # I = 2 * 3/8 * log((3/8) / (1/4)) + 2 * 1/8 * log((1/8) / (1/4))
    #   = 3/4 log(3/2) - 1/4 log 2 = 3/4 log 3 - log 2        (about 0.1308 nats)
    #   = log 2 - H(1/4), with H(1/4) = 2 log 2 - 3/4 log 3.
    engine = engine_from_table([[3, 1], [1, 3]])
    expected = 0.75 * math.log(3) - math.log(2)
    assert mutual_information(engine, 0, 1) == pytest.approx(expected, rel=1e-12)
    assert mutual_information(engine, 0, 1, base=2) == pytest.approx(expected / math.log(2), rel=1e-12)


def test_mutual_information_asymmetric_2x2_hand_value():
    # Counts [[2, 1], [0, 1]], N = 4: H(X) = H(3/4) = 2 log 2 - 3/4 log 3,
    # H(Y) = log 2, H(X, Y) = H(1/2, 1/4, 1/4) = 3/2 log 2, so
    # I = H(X) + H(Y) - H(X, Y) = 3/2 log 2 - 3/4 log 3   (about 0.2158 nats).
    engine = engine_from_table([[2, 1], [0, 1]])
    assert mutual_information(engine, 0, 1) == pytest.approx(1.5 * math.log(2) - 0.75 * math.log(3), rel=1e-12)


def test_mutual_information_of_a_copy_is_its_entropy():
    # Y = X uniform on 3 states: I(X; Y) = H(X) = log 3.
    engine = engine_from_table(np.diag([4, 4, 4]))
    assert mutual_information(engine, 0, 1) == pytest.approx(math.log(3), rel=1e-12)


def test_conditional_mutual_information_hand_value():
    # Given Z = 0 (4 rows) X = Y: I(X; Y | Z=0) = log 2; given Z = 1 (4 rows)
    # the table is uniform: I(X; Y | Z=1) = 0. So I(X; Y | Z) = 1/2 log 2.
    table = np.zeros((2, 2, 2))  # axes z, x, y
    table[0] = [[2, 0], [0, 2]]
    table[1] = [[1, 1], [1, 1]]
    engine = engine_from_table(table, names=["z", "x", "y"])
    assert conditional_mutual_information(engine, "x", "y", "z") == pytest.approx(0.5 * math.log(2), rel=1e-12)
    assert conditional_mutual_information(engine, "x", "y", "z", base=2) == pytest.approx(0.5, rel=1e-12)
    # Marginally X and Y are (3, 1; 1, 3)-dependent, as in the 2x2 test above.
    assert mutual_information(engine, "x", "y") == pytest.approx(0.75 * math.log(3) - math.log(2), rel=1e-12)


def test_xor():
    # X = Y xor Z with Y, Z independent fair bits (each combination twice).
    frame = pd.DataFrame({"y": [0, 0, 1, 1] * 2, "z": [0, 1, 0, 1] * 2})
    frame["x"] = frame["y"] ^ frame["z"]
    assert mutual_information(frame, "x", "y") == pytest.approx(0.0, abs=1e-15)
    assert mutual_information(frame, "x", "z") == pytest.approx(0.0, abs=1e-15)
    assert conditional_mutual_information(frame, "x", "y", "z") == pytest.approx(math.log(2), rel=1e-12)
    assert conditional_mutual_information(frame, "x", "y", "z", base=2) == pytest.approx(1.0, rel=1e-12)
    # X is a function of (Y, Z): I(X; Y, Z) = H(X) = 1 bit.
    assert mutual_information(frame, "x", ["y", "z"], base=2) == pytest.approx(1.0, rel=1e-12)
    pairwise = pairwise_mutual_information(frame, ["x", "y"], given="z", base=2)
    np.testing.assert_allclose(pairwise, [[1.0, 1.0], [1.0, 1.0]], rtol=1e-12)


def test_independent_product_table_has_zero_information():
    # n_xy = a_x * b_y is an exact product: I = 0 up to rounding.
    engine = engine_from_table(np.outer([1, 2, 3], [2, 5]))
    assert mutual_information(engine, 0, 1) == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("base", [0, 1, -2])
def test_invalid_base(base):
    engine = engine_from_table([[1, 1], [1, 1]])
    with pytest.raises(ValueError, match="base"):
        mutual_information(engine, 0, 1, base=base)


def test_overlapping_groups_are_refused():
    engine = engine_from_table(np.ones((2, 2, 2), dtype=int))
    with pytest.raises(ValueError, match="disjoint"):
        conditional_mutual_information(engine, 0, [1, 0], 2)


# ---------------------------------------------------------------- invariants
def _random_engine(seed, cards=(2, 3, 4, 2, 5), n=300, unknown=0.0, weighted=False):
    rng = np.random.default_rng(seed)
    codes = np.column_stack([rng.integers(0, r, n) for r in cards])
    # Make some columns depend on others so the MI values are not all ~0.
    codes[:, 1] = np.where(rng.random(n) < 0.6, codes[:, 0], codes[:, 1])
    codes[:, 3] = np.where(rng.random(n) < 0.5, codes[:, 4] % 2, codes[:, 3])
    if unknown:
        codes[rng.random(codes.shape) < unknown] = -1
    weights = rng.exponential(size=n) if weighted else None
    return CountingEngine(codes, cards, sample_weight=weights, chunk_size=64)


@pytest.mark.parametrize("seed", range(4))
def test_mutual_information_bounds_and_symmetry(seed):
    engine = _random_engine(seed)
    for x, y in itertools.permutations(range(engine.n_variables), 2):
        value = mutual_information(engine, x, y)
        assert value >= 0
        assert value == pytest.approx(mutual_information(engine, y, x), abs=1e-12)
        assert value <= min(entropy(engine, x), entropy(engine, y)) + 1e-12
        assert mutual_information(engine, x, y, base=2) == pytest.approx(value / math.log(2), abs=1e-12)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("unknown", [0.0, 0.05])
@pytest.mark.parametrize("seed", [0, 1])
def test_pairwise_equals_scalar_functions(seed, unknown, weighted):
    engine = _random_engine(seed, unknown=unknown, weighted=weighted)
    p = engine.n_variables
    matrix = pairwise_mutual_information(engine)
    assert matrix.shape == (p, p)
    for i, j in itertools.product(range(p), repeat=2):
        expected = entropy(engine, i) if i == j else mutual_information(engine, i, j)
        assert matrix[i, j] == pytest.approx(expected, abs=1e-12), (i, j)
    for conditioning in (0, 4):
        rest = [v for v in range(p) if v != conditioning]
        matrix = pairwise_mutual_information(engine, given=conditioning, base=2)
        assert matrix.shape == (p - 1, p - 1)
        for (a, i), (b, j) in itertools.product(enumerate(rest), repeat=2):
            if i == j:
                expected = entropy(engine, [i, conditioning], base=2) - entropy(engine, conditioning, base=2)
                if unknown:
                    continue  # H(X, C) and H(C) then count different rows
            else:
                expected = conditional_mutual_information(engine, i, j, conditioning, base=2)
            assert matrix[a, b] == pytest.approx(expected, abs=1e-12), (i, j, conditioning)


def test_pairwise_of_a_subset_follows_the_given_order():
    engine = _random_engine(3)
    matrix = pairwise_mutual_information(engine, [4, 1, 3], given=0)
    for (a, i), (b, j) in itertools.product(enumerate([4, 1, 3]), repeat=2):
        if i != j:
            assert matrix[a, b] == pytest.approx(conditional_mutual_information(engine, i, j, 0), abs=1e-12)


def test_pairwise_on_a_dataframe_matches_the_engine():
    rng = np.random.default_rng(12)
    frame = pd.DataFrame({"a": rng.choice(list("xyz"), 80), "b": rng.choice(list("pq"), 80)})
    frame["c"] = np.where(rng.random(80) < 0.7, frame["a"], "w")
    engine = CountingEngine.from_frame(frame)
    np.testing.assert_allclose(pairwise_mutual_information(frame), pairwise_mutual_information(engine))
    assert pairwise_mutual_information(frame)[0, 2] == pytest.approx(mutual_information(frame, "a", "c"))


@pytest.mark.parametrize("seed", [0, 1])
def test_permuting_rows_changes_nothing(seed):
    rng = np.random.default_rng(seed)
    engine = _random_engine(seed)
    codes = np.vstack([c for c, _ in engine.iter_chunks()])
    shuffled = CountingEngine(codes[rng.permutation(len(codes))], engine.cardinalities)
    np.testing.assert_allclose(
        pairwise_mutual_information(engine, given=2), pairwise_mutual_information(shuffled, given=2), atol=1e-12
    )


small_tables = st.tuples(st.integers(1, 3), st.integers(1, 3), st.integers(1, 3), st.integers(1, 3)).flatmap(
    lambda shape: arrays(np.int64, shape, elements=st.integers(0, 6))
)


@settings(max_examples=60, deadline=None)
@given(small_tables)
def test_chain_rule(table):
    # Axes: x, y, z, w. I(X; Y, Z) = I(X; Z) + I(X; Y | Z), and conditionally
    # on W as well: I(X; Y, Z | W) = I(X; Z | W) + I(X; Y | Z, W).
    if table.sum() == 0:
        table = table.copy()
        table.flat[0] = 1
    engine = engine_from_table(table, names=["x", "y", "z", "w"])
    left = mutual_information(engine, "x", ["y", "z"])
    right = mutual_information(engine, "x", "z") + conditional_mutual_information(engine, "x", "y", "z")
    assert left == pytest.approx(right, abs=1e-9)
    left = conditional_mutual_information(engine, "x", ["y", "z"], "w")
    right = conditional_mutual_information(engine, "x", "z", "w") + conditional_mutual_information(
        engine, "x", "y", ["z", "w"]
    )
    assert left == pytest.approx(right, abs=1e-9)
    # I(X; Y) = H(X) + H(Y) - H(X, Y) and 0 <= I <= min(H(X), H(Y)).
    mi = mutual_information(engine, "x", "y")
    hx, hy = entropy(engine, "x"), entropy(engine, "y")
    assert mi == pytest.approx(hx + hy - entropy(engine, ["x", "y"]), abs=1e-9)
    assert -1e-12 <= mi <= min(hx, hy) + 1e-9
