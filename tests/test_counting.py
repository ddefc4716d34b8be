"""Tests of graphmodels.stats.counting.CountingEngine."""

import itertools

import numpy as np
import pandas as pd
import pytest

from graphmodels.stats import CountingEngine, TableTooLargeError

CARDS = [2, 3, 4, 2, 5]


def _random_codes(rng, n=200, cards=CARDS, unknown=0.0):
    codes = np.column_stack([rng.integers(0, r, n) for r in cards])
    if unknown:
        codes[rng.random(codes.shape) < unknown] = -1
    return codes


def _brute_counts(codes, cards, positions, weights=None):
    """Count with a pandas groupby, rows with an unknown code in `positions` dropped."""
    frame = pd.DataFrame(codes[:, list(positions)], columns=[f"v{p}" for p in positions])
    frame["w"] = 1.0 if weights is None else weights
    frame = frame[(frame.drop(columns="w") >= 0).all(axis=1)]
    table = np.zeros([cards[p] for p in positions])
    for key, weight in frame.groupby(list(frame.columns[:-1]))["w"].sum().items():
        table[key if isinstance(key, tuple) else (key,)] = weight
    return table


SUBSETS = [(0,), (4,), (1, 0), (0, 1), (2, 4, 1), (4, 3, 2, 0), (3, 0, 1, 2, 4)]


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("subset", SUBSETS)
def test_counts_equal_groupby(seed, weighted, subset):
    rng = np.random.default_rng(seed)
    codes = _random_codes(rng)
    weights = rng.exponential(size=len(codes)) if weighted else None
    engine = CountingEngine(codes, CARDS, sample_weight=weights)
    table = engine.counts(list(subset))
    assert table.shape == tuple(CARDS[p] for p in subset)
    np.testing.assert_allclose(table, _brute_counts(codes, CARDS, subset, weights), rtol=1e-12)
    np.testing.assert_allclose(table.sum(), engine.total, rtol=1e-12)


@pytest.mark.parametrize("seed", [0, 1])
def test_two_way_counts_equal_crosstab(seed):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"a": rng.choice(["x", "y", "z"], 100), "b": rng.choice(["p", "q"], 100)})
    engine = CountingEngine.from_frame(frame)
    expected = pd.crosstab(frame["a"], frame["b"]).reindex(index=engine.levels[0], columns=engine.levels[1])
    np.testing.assert_array_equal(engine.counts(["a", "b"]), expected.to_numpy())
    np.testing.assert_array_equal(engine.counts(["b", "a"]), expected.to_numpy().T)


def test_names_and_positions_agree():
    rng = np.random.default_rng(5)
    codes = _random_codes(rng)
    engine = CountingEngine(codes, CARDS, names=list("abcde"))
    np.testing.assert_array_equal(engine.counts(["c", "a"]), engine.counts([2, 0]))
    np.testing.assert_array_equal(engine.counts("d"), engine.counts([3]))
    assert engine.counts([]).item() == len(codes)


def test_tuple_and_integer_names_are_names():
    # A tuple name is one variable, not a sequence of two; an integer name wins over the
    # position it spells (name 0 is the column at position 1 here).
    codes = np.array([[0, 1, 0], [1, 1, 0], [1, 0, 1]])
    engine = CountingEngine(codes, [2, 2, 2], names=[("a", 1), 0, 1])
    np.testing.assert_array_equal(engine.counts(("a", 1)), [1, 2])
    np.testing.assert_array_equal(engine.counts([("a", 1), 0]), [[0, 1], [1, 1]])
    np.testing.assert_array_equal(engine.counts([0]), [1, 2])
    np.testing.assert_array_equal(engine.counts(1), [2, 1])
    one_way = engine.one_way_counts([0, 1], given=("a", 1))
    np.testing.assert_array_equal(one_way.block(0), [[0, 1], [1, 1]])
    pairs = engine.pairwise_counts([("a", 1), 0], given=1)
    np.testing.assert_array_equal(pairs.block(0, 1), [[[0, 1], [0, 1]], [[0, 0], [1, 0]]])
    frame = engine.to_frame([0, ("a", 1)])
    assert list(frame.columns) == [0, ("a", 1), "count"]
    assert frame["count"].tolist() == [0.0, 1.0, 1.0, 1.0]
    with pytest.raises(ValueError, match=r"repeat in the query \[0, 0\]"):
        engine.counts([0, 0])


def test_states_never_seen_get_zero_cells():
    engine = CountingEngine(np.array([[0], [0], [2]]), [4])
    np.testing.assert_array_equal(engine.counts([0]), [2, 0, 1, 0])


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("chunk_size", [1, 7, 64])
def test_chunked_counts_equal_unchunked(weighted, chunk_size):
    rng = np.random.default_rng(11)
    codes = _random_codes(rng, n=101, unknown=0.05)
    weights = rng.exponential(size=len(codes)) if weighted else None
    whole = CountingEngine(codes, CARDS, sample_weight=weights, chunk_size=10_000)
    chunked = CountingEngine(codes, CARDS, sample_weight=weights, chunk_size=chunk_size)
    for subset in SUBSETS:
        np.testing.assert_allclose(chunked.counts(subset), whole.counts(subset), rtol=1e-12)
    for given in (None, 4):
        np.testing.assert_allclose(
            chunked.pairwise_counts(given=given).table, whole.pairwise_counts(given=given).table, rtol=1e-12
        )


def test_iter_chunks_yields_bounded_chunks_covering_the_rows():
    rng = np.random.default_rng(2)
    codes = _random_codes(rng, n=30)
    engine = CountingEngine(codes, CARDS, chunk_size=7)
    chunks = [c for c, _ in engine.iter_chunks([3, 1])]
    assert [len(c) for c in chunks] == [7, 7, 7, 7, 2]
    np.testing.assert_array_equal(np.vstack(chunks), codes[:, [3, 1]])


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("given", [None, 0, 4])
@pytest.mark.parametrize("unknown", [0.0, 0.1])
def test_pairwise_blocks_equal_direct_counts(weighted, given, unknown):
    rng = np.random.default_rng(7)
    codes = _random_codes(rng, n=150, unknown=unknown)
    weights = rng.exponential(size=len(codes)) if weighted else None
    engine = CountingEngine(codes, CARDS, sample_weight=weights, chunk_size=40)
    pairs = engine.pairwise_counts(given=given)
    variables = [p for p in range(len(CARDS)) if p != given]
    assert pairs.variables == tuple(variables)
    for (i, p), (j, q) in itertools.product(enumerate(variables), repeat=2):
        block = pairs.block(i, j)
        if i == j:
            # Diagonal blocks hold the one-way counts on their diagonals.
            expected = _brute_counts(codes, CARDS, (p,) if given is None else (given, p), weights)
            expected = np.array([np.diag(row) for row in np.atleast_2d(expected)])
        elif given is None:
            expected = _brute_counts(codes, CARDS, (p, q), weights)[None]
        else:
            expected = _brute_counts(codes, CARDS, (given, p, q), weights)
        np.testing.assert_allclose(block, expected, rtol=1e-12, atol=1e-12)
        direct = engine.counts([p, q] if given is None else [given, p, q]) if i != j else None
        if direct is not None:
            np.testing.assert_allclose(block, direct if given is not None else direct[None], rtol=1e-12)


def test_pairwise_counts_of_a_subset_in_given_order():
    rng = np.random.default_rng(8)
    codes = _random_codes(rng)
    engine = CountingEngine(codes, CARDS)
    pairs = engine.pairwise_counts([4, 1], given=2)
    assert pairs.variables == (4, 1)
    np.testing.assert_array_equal(pairs.block(0, 1), engine.counts([2, 4, 1]))
    with pytest.raises(ValueError, match="conditioning variable"):
        engine.pairwise_counts([2, 1], given=2)


def test_unknown_codes_drop_rows_only_from_tables_with_that_variable():
    codes = np.array([[0, 1, 0], [1, -1, 1], [-1, 0, 1], [1, 1, 0]])
    engine = CountingEngine(codes, [2, 2, 2])
    # Variable 0 is unknown in row 2 only; variable 1 in row 1 only.
    np.testing.assert_array_equal(engine.counts([0]), [1, 2])
    np.testing.assert_array_equal(engine.counts([1]), [1, 2])
    np.testing.assert_array_equal(engine.counts([2]), [2, 2])
    np.testing.assert_array_equal(engine.counts([0, 2]), [[1, 0], [1, 1]])  # rows 0, 1, 3
    np.testing.assert_array_equal(engine.counts([0, 1]), [[0, 1], [0, 1]])  # rows 0, 3
    np.testing.assert_array_equal(engine.counts([1, 2]), [[0, 1], [2, 0]])  # rows 0, 2, 3
    pairs = engine.pairwise_counts()
    np.testing.assert_array_equal(pairs.block(0, 2)[0], engine.counts([0, 2]))
    np.testing.assert_array_equal(pairs.block(1, 2)[0], engine.counts([1, 2]))
    np.testing.assert_array_equal(np.diag(pairs.block(2, 2)[0]), engine.counts([2]))
    # An unknown conditioning state drops the row from every stratum.
    given = engine.pairwise_counts([1, 2], given=0)
    np.testing.assert_array_equal(given.block(0, 1), engine.counts([0, 1, 2]))


def test_max_cells_guard_names_variables_before_allocating():
    rng = np.random.default_rng(0)
    names = [f"x{k}" for k in range(10)]
    codes = rng.integers(0, 20, size=(5, 10))
    engine = CountingEngine(codes, [20] * 10, names=names)
    # 20**10 cells of float64 would be 80 TB: a MemoryError, not our message,
    # would be raised if the engine allocated first.
    with pytest.raises(TableTooLargeError) as info:
        engine.counts(names)
    message = str(info.value)
    for name in names:
        assert f"'{name}' (20 states)" in message
    assert "10,240,000,000,000 cells" in message
    assert "max_cells=10,000,000" in message
    assert isinstance(info.value, ValueError)


def test_max_cells_is_configurable():
    codes = np.zeros((3, 3), dtype=int)
    engine = CountingEngine(codes, [4, 5, 6], names=["a", "b", "c"], max_cells=20)
    assert engine.counts(["a", "b"]).shape == (4, 5)  # exactly 20 cells is allowed
    with pytest.raises(TableTooLargeError, match=r"'a' \(4 states\), 'c' \(6 states\)"):
        engine.counts(["a", "c"])
    with pytest.raises(TableTooLargeError, match="pairwise"):
        engine.pairwise_counts()


def test_cached_tables_are_read_only_and_reused():
    rng = np.random.default_rng(4)
    engine = CountingEngine(_random_codes(rng), CARDS)
    first = engine.counts([1, 3])
    assert not first.flags.writeable
    with pytest.raises(ValueError):
        first[0, 0] = 99
    assert engine.counts([1, 3]) is first
    transposed = engine.counts([3, 1])
    assert not transposed.flags.writeable
    np.testing.assert_array_equal(transposed, first.T)
    pairs = engine.pairwise_counts(given=0)
    assert not pairs.table.flags.writeable
    assert engine.pairwise_counts(given=0) is pairs


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("variable", [0, 2])
def test_stratum_counts_equal_counts_on_filtered_rows(weighted, variable):
    rng = np.random.default_rng(9)
    codes = _random_codes(rng, unknown=0.05)
    weights = rng.exponential(size=len(codes)) if weighted else None
    engine = CountingEngine(codes, CARDS, sample_weight=weights, chunk_size=17)
    for state in range(CARDS[variable]):
        rows = codes[:, variable] == state
        stratum = engine.stratum(variable, state)
        filtered = CountingEngine(codes[rows], CARDS, sample_weight=None if weights is None else weights[rows])
        np.testing.assert_allclose(stratum.total, filtered.total, rtol=1e-12)
        for subset in SUBSETS:
            np.testing.assert_allclose(stratum.counts(subset), filtered.counts(subset), rtol=1e-12, atol=1e-12)
    with pytest.raises(ValueError, match="out of range"):
        engine.stratum(variable, CARDS[variable])


@pytest.mark.parametrize("seed", [0, 1])
def test_permuting_rows_changes_no_count(seed):
    rng = np.random.default_rng(seed)
    codes = _random_codes(rng, unknown=0.05)
    order = rng.permutation(len(codes))
    a = CountingEngine(codes, CARDS, chunk_size=13)
    b = CountingEngine(codes[order], CARDS, chunk_size=13)
    for subset in SUBSETS:
        np.testing.assert_array_equal(a.counts(subset), b.counts(subset))
    np.testing.assert_array_equal(a.pairwise_counts(given=1).table, b.pairwise_counts(given=1).table)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"codes": np.array([[0, 2]]), "cardinalities": [2, 2]}, "code 2 but cardinality 2"),
        ({"codes": np.array([[0, -2]]), "cardinalities": [2, 2]}, ">= -1"),
        ({"codes": np.array([[0, 1]]), "cardinalities": [2]}, "one entry per column"),
        ({"codes": np.array([[0, 1]]), "cardinalities": [2, 0]}, ">= 1"),
        ({"codes": np.array([[0, 1]]), "cardinalities": [2, 2], "sample_weight": [-1.0]}, "non-negative"),
        ({"codes": np.array([[0, 1]]), "cardinalities": [2, 2], "names": ["a", "a"]}, "unique"),
        ({"codes": np.array([[0, 1]]), "cardinalities": [2, 2], "max_cells": 0}, "max_cells"),
        ({"codes": np.array([[0, 1]]), "cardinalities": [2, 2], "chunk_size": 0}, "chunk_size"),
    ],
)
def test_invalid_engine_arguments(kwargs, match):
    codes = kwargs.pop("codes")
    cards = kwargs.pop("cardinalities")
    with pytest.raises(ValueError, match=match):
        CountingEngine(codes, cards, **kwargs)


def test_unknown_variable_and_repeated_query():
    engine = CountingEngine(np.zeros((2, 2), dtype=int), [1, 1], names=["a", "b"])
    with pytest.raises(KeyError, match="'zz'"):
        engine.counts(["zz"])
    with pytest.raises(ValueError, match="repeat"):
        engine.counts(["a", "a"])


def test_rows_returns_every_row_and_weight_across_chunks():
    import numpy as np

    from graphmodels.stats import CountingEngine

    codes = np.array([[0, 1], [1, 0], [1, 1]])
    engine = CountingEngine(codes, [2, 2], names=["a", "b"], chunk_size=2)
    rows, weights = engine.rows()
    np.testing.assert_array_equal(rows, codes)
    np.testing.assert_array_equal(weights, [1.0, 1.0, 1.0])
    weighted = CountingEngine(codes, [2, 2], sample_weight=[0.5, 2.0, 1.0], chunk_size=2)
    rows, weights = weighted.rows([1])
    np.testing.assert_array_equal(rows, codes[:, [1]])
    np.testing.assert_array_equal(weights, [0.5, 2.0, 1.0])
    empty_rows, empty_weights = CountingEngine(np.zeros((0, 2), dtype=int), [2, 2]).rows()
    assert empty_rows.shape == (0, 2) and empty_weights.shape == (0,)


@pytest.mark.parametrize("order", ["C", "F"])
@pytest.mark.parametrize("weighted", [False, True])
def test_batched_one_way_tables_match_loops_in_any_layout_and_chunking(order, weighted):
    # The in-memory kernel (column-major codes, tiled weights kept between queries, chunks of
    # rows) against a loop over the rows, for queries of several sizes asked twice each.
    rng = np.random.default_rng(5)
    cards = [2, 3, 2, 4, 3, 2]
    codes = np.asarray(np.column_stack([rng.integers(0, r, 257) for r in cards]), order=order)
    weights = rng.random(257) if weighted else np.ones(257)
    engine = CountingEngine(codes, cards, sample_weight=weights if weighted else None, chunk_size=50)
    for given in ([1], [5, 0, 3], [], [1], [5, 0, 3]):
        table = engine.one_way_counts(given=given, cache=False)
        strata = np.zeros(len(codes), dtype=int)
        for g in given:
            strata = strata * cards[g] + codes[:, g]
        for i, p in enumerate(table.variables):
            expected = np.zeros((int(np.prod([cards[g] for g in given])), cards[p]))
            for row in range(len(codes)):
                expected[strata[row], codes[row, p]] += weights[row]
            np.testing.assert_allclose(table.block(i), expected)


@pytest.mark.parametrize("unknown", [False, True])
@pytest.mark.parametrize("weighted", [False, True])
def test_joint_strata_of_several_variables_match_direct_tables(unknown, weighted):
    rng = np.random.default_rng(11)
    cards = [2, 3, 2, 4, 3]
    codes = np.column_stack([rng.integers(0, r, 300) for r in cards])
    if unknown:
        codes[rng.random(codes.shape) < 0.05] = -1
    weights = rng.random(300) if weighted else None
    engine = CountingEngine(codes, cards, names=list("abcde"), sample_weight=weights)
    one_way = engine.one_way_counts(["a", "d"], given=["e", "c"])
    pairs = engine.pairwise_counts(["a", "b", "d"], given=["e", "c"])
    for i, x in enumerate(["a", "d"]):
        direct = CountingEngine(codes, cards, names=list("abcde"), sample_weight=weights)
        # Rows with an unknown stratum variable or an unknown x drop out, as in counts().
        expected = direct.counts(["e", "c", x]).reshape(6, -1)
        assert np.allclose(one_way.block(i), expected)
    fresh = CountingEngine(codes, cards, names=list("abcde"), sample_weight=weights)
    expected = fresh.counts(["e", "c", "b", "d"]).reshape(6, 3, 4)
    assert np.allclose(pairs.block(1, 2), expected)
    # A joint stratum is cached apart from the single-variable ones and never answers plain queries.
    assert np.allclose(engine.counts(["a", "b"]), fresh.counts(["a", "b"]))
    # Family queries over the strata variables are read from the batched tables, in any order.
    for query in (["c", "a", "e"], ["d", "e", "c", "b"], ["e", "c", "d"], ["b", "c", "e", "a"]):
        assert np.allclose(engine.counts(query), fresh.counts(query)), query


def test_family_queries_are_answered_from_the_joint_strata_cache():
    rng = np.random.default_rng(4)
    cards = [2, 3, 2, 4]
    codes = np.column_stack([rng.integers(0, r, 200) for r in cards])
    engine = CountingEngine(codes, cards, names=list("abcd"))
    engine.pairwise_counts(["c", "d"], given=["a", "b"])

    def no_recount(positions):
        raise AssertionError(f"recounted {positions} from the rows")

    engine._count = no_recount
    table = engine.counts(["d", "a", "c", "b"])
    expected = np.zeros((4, 2, 2, 3))
    np.add.at(expected, (codes[:, 3], codes[:, 0], codes[:, 2], codes[:, 1]), 1)
    assert np.array_equal(table, expected)


def test_joint_strata_reject_repeated_or_overlapping_variables():
    engine = CountingEngine(np.zeros((3, 3), dtype=int), [2, 2, 2], names=list("abc"))
    with pytest.raises(ValueError, match="repeat"):
        engine.one_way_counts(["a"], given=["b", "b"])
    with pytest.raises(ValueError, match="also among"):
        engine.pairwise_counts(["a", "b"], given=["b", "c"])


def test_one_way_size_error_names_the_widest_variables():
    engine = CountingEngine(np.zeros((3, 3), dtype=int), [30, 20, 4], names=["a", "b", "c"], max_cells=50)
    with pytest.raises(TableTooLargeError, match=r"given \['c'\].*'a' \(30 states\), 'b' \(20 states\)"):
        engine.one_way_counts(["a", "b"], given="c")


@pytest.mark.parametrize("given", [[0], [3, 0], [0, 1, 3]])
def test_stratum_grams_equal_one_product_per_stratum(given):
    """Unweighted rows grouped by stratum (one one-hot matrix, one product per stratum of contiguous
    rows) give the tables of one product per stratum's own rows, bit for bit (issue 26)."""
    from graphmodels.stats import counting

    rng = np.random.default_rng(3)
    codes = _random_codes(rng, n=300)
    engine = CountingEngine(codes, CARDS, chunk_size=70)
    pairs = engine.pairwise_counts(given=given)
    assert pairs.integer
    variables = [p for p in range(len(CARDS)) if p not in given]
    expected = np.zeros_like(pairs.table)
    for chunk, _ in engine.iter_chunks(variables + given, chunk_size=70):
        strata = engine._strata(chunk, given)
        for s in np.unique(strata):
            expected[s] += counting._one_hot_gram(
                chunk[strata == s, : len(variables)], pairs.offsets, expected.shape[1], None
            )
    np.testing.assert_array_equal(pairs.table, expected)
    weighted = CountingEngine(codes, CARDS, sample_weight=np.ones(len(codes)), chunk_size=70)
    assert not weighted.pairwise_counts(given=given).integer


@pytest.mark.parametrize("chunk_size", [65536, 70])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_refined_pairwise_counts_equal_direct_counts(chunk_size, dtype):
    """Each stratum's tables at its most frequent state of the added variable are the stratum's
    tables minus the other states': the tables of pairwise_counts given the longer list, exactly
    (issue 26), in the dtype of the counts refined, over one or several chunks."""
    from graphmodels.stats import PairwiseCounts

    rng = np.random.default_rng(4)
    codes = _random_codes(rng, n=300)
    codes[:, 3] = np.where(rng.random(300) < 0.8, codes[:, 0] % 2, codes[:, 3])  # a common state per stratum
    engine = CountingEngine(codes, CARDS, chunk_size=chunk_size)
    root = engine.pairwise_counts([1, 2])
    pairs = PairwiseCounts(root.variables, root.cardinalities, root.offsets, root.table.astype(dtype), True)
    given = []
    for variable in (0, 3, 4):
        pairs = engine.refine_pairwise_counts(pairs, given, variable)
        given.append(variable)
        assert pairs.table.dtype == dtype and pairs.integer
        expected = CountingEngine(codes, CARDS).pairwise_counts([1, 2], given=given)
        np.testing.assert_array_equal(pairs.table, expected.table)
        for i, j in itertools.product(range(2), repeat=2):  # and the groupby's counts
            brute = _brute_counts(codes, CARDS, [*given, [1, 2][i], [1, 2][j]]) if i != j else None
            if brute is not None:
                shape = (-1, CARDS[[1, 2][i]], CARDS[[1, 2][j]])
                np.testing.assert_array_equal(pairs.block(i, j), brute.reshape(shape))


@pytest.mark.parametrize("weighted, unknown", [(True, 0.0), (False, 0.1)])
def test_refined_pairwise_counts_of_weighted_or_unknown_rows_are_counted(weighted, unknown):
    """With sample weights or unknown codes the refined tables are counted over the rows: the same
    as pairwise_counts'."""
    rng = np.random.default_rng(5)
    codes = _random_codes(rng, n=250, unknown=unknown)
    weights = rng.random(250) if weighted else None
    engine = CountingEngine(codes, CARDS, sample_weight=weights)
    pairs = engine.refine_pairwise_counts(engine.pairwise_counts([0, 4], given=[1]), [1], 2)
    expected = engine.pairwise_counts([0, 4], given=[1, 2])
    np.testing.assert_array_equal(pairs.table, expected.table)
    assert pairs.integer == (not weighted)


def test_refined_pairwise_counts_reject_other_tables():
    engine = CountingEngine(_random_codes(np.random.default_rng(6)), CARDS)
    pairs = engine.pairwise_counts([0, 1], given=[2])
    with pytest.raises(ValueError, match="among the variables"):
        engine.refine_pairwise_counts(pairs, [2], 1)
    with pytest.raises(ValueError, match="repeat"):
        engine.refine_pairwise_counts(pairs, [2], 2)
    with pytest.raises(ValueError, match=r"not those of its variables given \[3\]"):
        engine.refine_pairwise_counts(pairs, [3], 4)


@pytest.mark.parametrize("weighted", [False, True])
def test_occupied_counts_are_the_tables_cells_of_the_held_configurations(weighted):
    # Weighted rows, unknown codes and several chunks: each cell summed as counts() sums it.
    rng = np.random.default_rng(0)
    codes = rng.integers(0, 4, size=(300, 5))
    codes[rng.random(codes.shape) < 0.05] = -1
    weights = rng.uniform(0.1, 3.0, size=300) if weighted else None
    engine = CountingEngine(codes, [4] * 5, sample_weight=weights, chunk_size=64)
    for given, variables in [([], [4, 2]), ([0], [4, 1]), ([3, 0, 2], [4, 1])]:
        configurations, table = engine.occupied_counts(given, variables)
        whole = engine.counts([*given, *variables]).reshape(-1, *table.shape[1:])
        held = np.flatnonzero(whole.reshape(len(whole), -1).sum(axis=1) > 0)
        assert set(held.tolist()) <= set(configurations.tolist())
        assert np.all(np.diff(configurations) > 0)
        np.testing.assert_array_equal(table, whole[configurations])
