"""Tests of graphmodels.estimators: MLE, Dirichlet, BDeu, marginal smoothing, empirical-Bayes BDeu, get_estimator."""

import json

import numpy as np
import pytest

from graphmodels._special import gammaln
from graphmodels.estimators import (
    ESTIMATORS,
    LIANG_SREBRO_PSEUDO_COUNT,
    BDeu,
    Dirichlet,
    EmpiricalBayesBDeu,
    MarginalSmoothing,
    MaximumLikelihood,
    bdeu_log_marginal_likelihood,
    get_estimator,
)

# A family table: 2 parent configurations (rows) x 3 child states (last axis).
FAMILY = np.array([[1.0, 3.0, 0.0], [0.0, 0.0, 0.0]])


def test_mle_hand_values():
    cpt = MaximumLikelihood().conditional(FAMILY)
    # Row 0: n = 4 -> (1/4, 3/4, 0); row 1 has no counts -> uniform 1/3.
    np.testing.assert_allclose(cpt, [[0.25, 0.75, 0.0], [1 / 3, 1 / 3, 1 / 3]], rtol=1e-15)
    np.testing.assert_allclose(MaximumLikelihood().joint([[1, 3], [0, 4]]), [[0.125, 0.375], [0.0, 0.5]])


def test_dirichlet_hand_values():
    # alpha = 0.5 per cell: row 0 -> (1.5, 3.5, 0.5) / 5.5; row 1 -> uniform.
    cpt = Dirichlet(0.5).conditional(FAMILY)
    np.testing.assert_allclose(cpt[0], [1.5 / 5.5, 3.5 / 5.5, 0.5 / 5.5], rtol=1e-15)
    np.testing.assert_allclose(cpt[1], [1 / 3] * 3, rtol=1e-15)
    # Laplace on a joint table [[1, 3], [0, 4]]: (2, 4, 1, 5) / 12.
    np.testing.assert_allclose(Dirichlet(1.0).joint([[1, 3], [0, 4]]), [[2 / 12, 4 / 12], [1 / 12, 5 / 12]])


def test_bdeu_hand_values():
    # ess = 3 over q * r = 2 * 3 = 6 cells: alpha = 1/2 per cell, so BDeu(3)
    # on this family is Dirichlet(0.5).
    cpt = BDeu(3.0).conditional(FAMILY)
    np.testing.assert_allclose(cpt[0], [1.5 / 5.5, 3.5 / 5.5, 0.5 / 5.5], rtol=1e-15)
    np.testing.assert_allclose(cpt, Dirichlet(0.5).conditional(FAMILY), rtol=1e-15)


@pytest.mark.parametrize("shape", [(3,), (2, 3), (4, 2, 5), (1, 1)])
@pytest.mark.parametrize("ess", [1.0, 2.5, 10.0])
def test_bdeu_pseudo_count_is_ess_over_q_times_r(shape, ess):
    q = int(np.prod(shape[:-1]))
    r = shape[-1]
    assert BDeu(ess).pseudo_count(shape) == pytest.approx(ess / (q * r), rel=1e-15)


def test_liang_srebro_pseudo_count():
    assert LIANG_SREBRO_PSEUDO_COUNT == 0.001
    estimator = get_estimator("liang-srebro")
    assert estimator == Dirichlet(0.001)
    # 0.001 per cell: (1.001, 0.001) / 1.002.
    np.testing.assert_allclose(estimator.conditional([1, 0]), [1.001 / 1.002, 0.001 / 1.002], rtol=1e-15)


ESTIMATOR_INSTANCES = [
    MaximumLikelihood(),
    Dirichlet(0.0),
    Dirichlet(1.0),
    Dirichlet(0.001),
    BDeu(1.0),
    BDeu(7.0),
    MarginalSmoothing(5.0),
    MarginalSmoothing(0.5),
    EmpiricalBayesBDeu(),
    EmpiricalBayesBDeu(0.5, 20.0),
]


@pytest.mark.parametrize("estimator", ESTIMATOR_INSTANCES, ids=repr)
@pytest.mark.parametrize("seed", [0, 1])
def test_rows_sum_to_one(estimator, seed):
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, 4, size=(3, 2, 4)).astype(float)
    counts[0, 1] = 0  # a parent configuration never seen
    cpt = estimator.conditional(counts)
    assert cpt.shape == counts.shape
    assert (cpt >= 0).all()
    np.testing.assert_allclose(cpt.sum(axis=-1), 1.0, rtol=1e-12)
    joint = estimator.joint(counts)
    assert joint.sum() == pytest.approx(1.0, rel=1e-12)


@pytest.mark.parametrize("estimator", ESTIMATOR_INSTANCES, ids=repr)
def test_estimators_do_not_change_the_counts(estimator):
    counts = np.array([[1.0, 2.0], [0.0, 5.0]])
    before = counts.copy()
    estimator.conditional(counts)
    estimator.joint(counts)
    np.testing.assert_array_equal(counts, before)


def test_positive_pseudo_counts_give_positive_probabilities():
    counts = np.array([[5.0, 0.0], [0.0, 0.0]])
    assert (Dirichlet(0.001).conditional(counts) > 0).all()
    assert (BDeu(1.0).conditional(counts) > 0).all()
    assert MaximumLikelihood().conditional(counts)[0, 1] == 0.0


@pytest.mark.parametrize(
    "make, parameter",
    [
        (lambda: Dirichlet(-1.0), "pseudo_count"),
        (lambda: Dirichlet(float("nan")), "pseudo_count"),
        (lambda: Dirichlet(float("inf")), "pseudo_count"),
        (lambda: Dirichlet("lots"), "pseudo_count"),
        (lambda: BDeu(0.0), "equivalent_sample_size"),
        (lambda: BDeu(-2.0), "equivalent_sample_size"),
        (lambda: BDeu(float("inf")), "equivalent_sample_size"),
        (lambda: BDeu(None), "equivalent_sample_size"),
        (lambda: MarginalSmoothing(0.0), "n0"),
        (lambda: MarginalSmoothing(-1.0), "n0"),
        (lambda: MarginalSmoothing(float("nan")), "n0"),
        (lambda: MarginalSmoothing("five"), "n0"),
        (lambda: EmpiricalBayesBDeu(0.0), "min_equivalent_sample_size"),
        (lambda: EmpiricalBayesBDeu(float("inf")), "min_equivalent_sample_size"),
        (lambda: EmpiricalBayesBDeu(1.0, 0.5), "max_equivalent_sample_size"),
        (lambda: EmpiricalBayesBDeu(1.0, float("inf")), "max_equivalent_sample_size"),
    ],
)
def test_invalid_parameters_name_the_parameter(make, parameter):
    with pytest.raises(ValueError, match=f"`{parameter}`"):
        make()


@pytest.mark.parametrize("counts", [[-1.0, 2.0], [np.nan, 1.0], 3.0])
def test_invalid_counts_are_refused(counts):
    with pytest.raises(ValueError):
        MaximumLikelihood().conditional(counts)


@pytest.mark.parametrize("name", ["bdeu-auto", "hierarchical"])
@pytest.mark.parametrize("bad", [[-1.0, 2.0], [np.inf, 1.0], 3.0])
def test_one_invalid_table_among_many_is_refused(name, bad):
    # The tables of a batch are checked together: one bad table anywhere is still named as bad.
    tables = [np.ones((2, 3)), np.array(bad), np.ones(4)]
    estimator = get_estimator(name)
    for call in (estimator.pseudo_counts_of_tables, estimator.joints, estimator.conditionals):
        with pytest.raises(ValueError, match="axis|finite and non-negative"):
            call(tables)


@pytest.mark.parametrize(
    "name, expected",
    [
        ("mle", MaximumLikelihood()),
        ("dirichlet", Dirichlet(1.0)),
        ("laplace", Dirichlet(1.0)),
        ("bdeu", BDeu(1.0)),
        ("liang-srebro", Dirichlet(0.001)),
        ("BDeu", BDeu(1.0)),
        ("marginal-smoothing", MarginalSmoothing(5.0)),
        ("bdeu-auto", EmpiricalBayesBDeu(2.0, 1000.0)),
    ],
)
def test_get_estimator_by_name(name, expected):
    assert get_estimator(name) == expected
    assert type(get_estimator(name)) is type(expected)


@pytest.mark.parametrize("estimator", ESTIMATOR_INSTANCES + [get_estimator("laplace")], ids=repr)
def test_to_dict_round_trip(estimator):
    description = json.loads(json.dumps(estimator.to_dict()))
    restored = get_estimator(description)
    assert restored == estimator
    assert hash(restored) == hash(estimator)
    np.testing.assert_array_equal(restored.conditional(FAMILY), estimator.conditional(FAMILY))


def test_get_estimator_passes_instances_through():
    estimator = BDeu(2.0)
    assert get_estimator(estimator) is estimator


def test_equality_depends_on_type_and_parameters():
    assert Dirichlet(1.0) != Dirichlet(2.0)
    assert MarginalSmoothing(1.0) != MarginalSmoothing(5.0)
    assert EmpiricalBayesBDeu() != EmpiricalBayesBDeu(0.1, 100.0)
    assert EmpiricalBayesBDeu() != BDeu(1.0)
    assert BDeu(1.0) != Dirichlet(1.0)
    assert MaximumLikelihood() != Dirichlet(0.0)


@pytest.mark.parametrize("bad", ["laplase", {"name": "nope"}, {"pseudo_count": 1.0}])
def test_unknown_estimator_lists_valid_names(bad):
    with pytest.raises(ValueError) as info:
        get_estimator(bad)
    for name in ESTIMATORS:
        assert repr(name) in str(info.value)


def test_get_estimator_rejects_other_types():
    with pytest.raises(TypeError, match="estimator"):
        get_estimator(3)


# ---------------------------------------------------------------- marginal smoothing
def test_marginal_smoothing_hand_values():
    # FAMILY: child marginal N(x) = (1, 3, 0), N = 4, r = 3. With N0 = 3 the
    # marginal is smoothed toward uniform: P(x) = (N(x) + 1) / (4 + 3) = (2, 4, 1) / 7.
    # Row 0: (N(x, pa) + 3 P(x)) / (4 + 3) = (1 + 6/7, 3 + 12/7, 3/7) / 7.
    # Row 1 (no counts): (0 + 3 P(x)) / 3 = P(x).
    cpt = MarginalSmoothing(3.0).conditional(FAMILY)
    np.testing.assert_allclose(cpt[0], [(1 + 6 / 7) / 7, (3 + 12 / 7) / 7, (3 / 7) / 7], rtol=1e-14)
    np.testing.assert_allclose(cpt[1], [2 / 7, 4 / 7, 1 / 7], rtol=1e-14)


def test_marginal_smoothing_shrinks_each_parent_row_toward_the_child_marginal():
    # Friedman et al. (1997), section 4: theta = (N(x, pa) + N0 P(x)) / (N(pa) + N0),
    # a weighted average of the row's frequencies (weight N(pa)) and P(x) (weight N0).
    counts = np.array([[[8.0, 2.0], [1.0, 1.0]], [[0.0, 6.0], [3.0, 0.0]]])  # (class, parent, child)
    n0 = 5.0
    marginal = counts.sum(axis=(0, 1))
    prior = (marginal + n0 / 2) / (marginal.sum() + n0)
    n_pa = counts.sum(axis=-1, keepdims=True)
    expected = (n_pa * (counts / n_pa) + n0 * prior) / (n_pa + n0)
    np.testing.assert_allclose(MarginalSmoothing(n0).conditional(counts), expected, rtol=1e-14)


def test_marginal_smoothing_joint_hand_values():
    # [[1, 3], [0, 4]], N = 8, N0 = 2: row marginal (4, 4) -> (5, 5) / 10,
    # column marginal (1, 7) -> (2, 8) / 10; prior cell = product.
    counts = np.array([[1.0, 3.0], [0.0, 4.0]])
    prior = np.outer([0.5, 0.5], [0.2, 0.8])
    np.testing.assert_allclose(MarginalSmoothing(2.0).joint(counts), (counts + 2.0 * prior) / 10.0, rtol=1e-14)
    # One axis: (N(x) + N0 P(x)) / (N + N0), P(x) = (N(x) + N0 / r) / (N + N0).
    p = (np.array([1.0, 3.0]) + 1.0) / 6.0
    np.testing.assert_allclose(MarginalSmoothing(2.0).joint([1, 3]), (np.array([1, 3]) + 2 * p) / 6.0, rtol=1e-14)


@pytest.mark.parametrize("n0", [0.01, 1.0, 5.0, 1e6])
def test_marginal_smoothing_never_zero_and_never_nan(n0):
    # A state never seen in the whole table and parent rows never seen.
    counts = np.zeros((2, 3, 4))
    counts[0, 0] = [3.0, 1.0, 0.0, 0.0]
    counts[1, 2] = [0.0, 5.0, 2.0, 0.0]
    for table in (MarginalSmoothing(n0).conditional(counts), MarginalSmoothing(n0).joint(counts)):
        assert np.all(np.isfinite(table)) and (table > 0).all()
    np.testing.assert_allclose(MarginalSmoothing(n0).conditional(counts).sum(axis=-1), 1.0, rtol=1e-12)
    assert MarginalSmoothing(n0).joint(counts).sum() == pytest.approx(1.0, rel=1e-12)
    # No counts at all: uniform.
    np.testing.assert_allclose(MarginalSmoothing(n0).conditional(np.zeros((2, 3))), 1 / 3, rtol=1e-14)
    np.testing.assert_allclose(MarginalSmoothing(n0).joint(np.zeros((2, 3))), 1 / 6, rtol=1e-14)


def test_marginal_smoothing_limits():
    rng = np.random.default_rng(3)
    counts = rng.integers(1, 20, size=(3, 4)).astype(float)
    # N0 -> 0: relative frequencies; N0 -> infinity: every row is the child's marginal.
    np.testing.assert_allclose(
        MarginalSmoothing(1e-9).conditional(counts), MaximumLikelihood().conditional(counts), atol=1e-9
    )
    huge = MarginalSmoothing(1e12).conditional(counts)
    np.testing.assert_allclose(huge, np.broadcast_to(huge[0], huge.shape), atol=1e-9)
    np.testing.assert_allclose(huge[0], 0.25, atol=1e-9)  # the marginal itself is smoothed toward uniform


def test_marginal_smoothing_has_no_single_pseudo_count():
    with pytest.raises(NotImplementedError, match="pseudo_counts"):
        MarginalSmoothing().pseudo_count((2, 3))


# ---------------------------------------------------------------- BDeu marginal likelihood
def _bdeu_log_ml_by_sequence(counts, ess):
    """The same score, row by row: the product of the Polya urn's predictive probabilities."""
    counts = np.asarray(counts, dtype=int)
    q, r = counts.reshape(-1, counts.shape[-1]).shape
    alpha = ess / (q * r)
    total = 0.0
    for row in counts.reshape(q, r):
        seen = np.zeros(r)
        for k, n in enumerate(row):
            for _ in range(n):
                total += np.log((seen[k] + alpha) / (seen.sum() + r * alpha))
                seen[k] += 1
    return total


@pytest.mark.parametrize("ess", [0.3, 1.0, 4.0, 50.0])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_bdeu_log_marginal_likelihood_equals_sequential_predictive(ess, seed):
    rng = np.random.default_rng(seed)
    counts = rng.integers(0, 4, size=(3, 2, 3))
    counts[1, 0] = 0
    assert bdeu_log_marginal_likelihood(counts, ess) == pytest.approx(_bdeu_log_ml_by_sequence(counts, ess), rel=1e-12)
    assert bdeu_log_marginal_likelihood(counts, ess, conditional=False) == pytest.approx(
        _bdeu_log_ml_by_sequence(counts.reshape(1, -1), ess), rel=1e-12
    )


def test_bdeu_log_marginal_likelihood_hand_value_and_vectorization():
    # [[2, 0], [1, 1]], ess = 4: alpha = 1 per cell, 2 per parent row.
    # Row 0: Gamma(2) / Gamma(4) * Gamma(3) / Gamma(1) = 1/6 * 2 = 1/3.
    # Row 1: Gamma(2) / Gamma(4) * 1 * 1 = 1/6.
    counts = [[2, 0], [1, 1]]
    assert bdeu_log_marginal_likelihood(counts, 4.0) == pytest.approx(np.log(1 / 18), rel=1e-13)
    grid = np.array([[0.5, 4.0], [9.0, 100.0]])
    values = bdeu_log_marginal_likelihood(counts, grid)
    assert values.shape == (2, 2)
    for index in np.ndindex(grid.shape):
        assert values[index] == pytest.approx(float(bdeu_log_marginal_likelihood(counts, grid[index])), rel=1e-13)
    assert float(gammaln(1.0)) == 0.0  # the module's lazy scipy wrapper


@pytest.mark.parametrize("bad", [0.0, -1.0, float("inf"), [1.0, float("nan")]])
def test_bdeu_log_marginal_likelihood_refuses_bad_sample_sizes(bad):
    with pytest.raises(ValueError, match="equivalent_sample_size"):
        bdeu_log_marginal_likelihood([[1, 2]], bad)


# ---------------------------------------------------------------- empirical-Bayes BDeu
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("conditional", [True, False])
def test_empirical_bayes_ess_maximises_the_marginal_likelihood(seed, conditional):
    rng = np.random.default_rng(seed)
    shape = tuple(rng.integers(2, 5, size=rng.integers(1, 4)))
    # Rows from a Dirichlet of random concentration: some tables sharp, some flat.
    probabilities = rng.dirichlet(np.full(shape[-1], 10.0 ** rng.uniform(-1, 2)), size=shape[:-1])
    n = rng.integers(5, 200, size=shape[:-1])
    counts = np.stack([rng.multinomial(n[i], probabilities[i]) for i in np.ndindex(shape[:-1])]).reshape(shape)
    estimator = EmpiricalBayesBDeu(0.1)
    chosen = estimator.select_equivalent_sample_size(counts, conditional=conditional)
    assert 0.1 <= chosen <= 1000.0
    brute = np.geomspace(0.1, 1000.0, 4001)
    scores = bdeu_log_marginal_likelihood(counts, brute, conditional=conditional)
    # Within a thousandth of a nat of the brute-force maximum (the search's last step is a factor 1.019 here).
    assert bdeu_log_marginal_likelihood(counts, chosen, conditional=conditional) >= scores.max() - 1e-3
    # The estimate is BDeu at the chosen sample size.
    if conditional:
        np.testing.assert_allclose(estimator.conditional(counts), BDeu(chosen).conditional(counts), rtol=1e-14)
    else:
        np.testing.assert_allclose(estimator.joint(counts), BDeu(chosen).joint(counts), rtol=1e-14)


def test_empirical_bayes_follows_the_data():
    estimator = EmpiricalBayesBDeu()
    # A child independent of its parent and close to uniform: strong smoothing (the upper end).
    assert estimator.select_equivalent_sample_size([[250, 250], [250, 250]]) == pytest.approx(1000.0)
    # A child that copies its parent: weak smoothing (the lower end, 2 by default).
    assert estimator.select_equivalent_sample_size([[100, 0], [0, 100]]) == pytest.approx(2.0)
    assert EmpiricalBayesBDeu(0.1).select_equivalent_sample_size([[100, 0], [0, 100]]) == pytest.approx(0.1)
    # Bounds are respected.
    assert EmpiricalBayesBDeu(2.0, 3.0).select_equivalent_sample_size([[100, 0], [0, 100]]) == pytest.approx(2.0)
    assert EmpiricalBayesBDeu(5.0, 5.0).select_equivalent_sample_size([[1, 2], [3, 4]]) == 5.0


def test_empirical_bayes_empty_tables_are_uniform():
    estimator = EmpiricalBayesBDeu()
    np.testing.assert_allclose(estimator.conditional(np.zeros((2, 3))), 1 / 3)
    np.testing.assert_allclose(estimator.joint(np.zeros((2, 3))), 1 / 6)
    cpt = estimator.conditional(FAMILY)
    assert np.all(np.isfinite(cpt)) and (cpt > 0).all()
    np.testing.assert_allclose(cpt[1], 1 / 3)


@pytest.mark.parametrize("estimator", [MarginalSmoothing(2.0), EmpiricalBayesBDeu()], ids=repr)
def test_new_estimators_in_a_model_survive_save_and_load(estimator, tmp_path):
    import pandas as pd

    from graphmodels.models import TAN, HyperforestClassifier, load_model

    rng = np.random.default_rng(0)
    X = pd.DataFrame(rng.integers(0, 3, size=(80, 4)), columns=list("abcd"))
    y = (X["a"] + rng.integers(0, 2, size=80)) % 3
    for model in (TAN(estimator=estimator), HyperforestClassifier(treewidth=2, estimator=estimator)):
        model.fit(X, y)
        path = tmp_path / f"{type(model).__name__}.json"
        model.save(path)
        restored = load_model(path)
        assert restored.estimator_ == estimator
        np.testing.assert_allclose(restored.predict_proba(X), model.predict_proba(X), rtol=1e-12)
        np.testing.assert_allclose(model.predict_proba(X).sum(axis=1), 1.0, rtol=1e-12)


@pytest.mark.parametrize(
    "text, expected",
    [
        ("bdeu(4)", BDeu(4.0)),
        ("Dirichlet( 0.5 )", Dirichlet(0.5)),
        ("marginal-smoothing(10)", MarginalSmoothing(10.0)),
        ("bdeu", BDeu(1.0)),
    ],
)
def test_an_estimator_with_its_number_in_parentheses(text, expected):
    assert get_estimator(text) == expected


@pytest.mark.parametrize(
    "text, match",
    [("laplace(2)", "takes no value"), ("bdeu(four)", "not a number"), ("smoothing(2)", "Unknown estimator")],
)
def test_a_bad_estimator_call_is_named(text, match):
    with pytest.raises(ValueError, match=match):
        get_estimator(text)


def test_log_sum_exp_rows_is_scipys_with_infinities_and_nan():
    from scipy.special import logsumexp

    from graphmodels._special import log_sum_exp_rows

    rng = np.random.default_rng(0)
    a = rng.normal(size=(40, 5)) * 300  # far beyond exp's range without the shift
    a[3] = -np.inf
    a[4, 1] = np.inf
    a[5, 2] = np.nan
    a[6, :4] = -np.inf
    with np.errstate(all="ignore"):
        expected = logsumexp(a, axis=1)
    np.testing.assert_allclose(log_sum_exp_rows(a), expected, rtol=1e-14, atol=0)
    assert log_sum_exp_rows(a)[3] == -np.inf and log_sum_exp_rows(a)[4] == np.inf and np.isnan(log_sum_exp_rows(a)[5])


# ------------------------------------------------------------ batched empirical-Bayes searches
def _mixed_tables():
    rng = np.random.default_rng(3)
    shapes = [(3, 3, 3), (2, 5), (4,), (3, 1, 4), (2, 3, 1, 4), (20, 5, 5), (3, 2, 7)]
    tables = [rng.integers(0, 30, shape).astype(float) for shape in shapes]
    tables.append(np.zeros((2, 3, 2)))  # no counts: the smallest value
    tables.append((rng.random((4, 6, 3)) < 0.2) * rng.integers(0, 5, (4, 6, 3)).astype(float))  # sparse
    return tables


@pytest.mark.parametrize("name", ["bdeu-auto", "hierarchical"])
@pytest.mark.parametrize("conditional", [True, False])
def test_batched_search_equals_one_search_per_table(name, conditional, monkeypatch):
    import graphmodels.estimators.parameters as parameters

    estimator, tables = get_estimator(name), _mixed_tables()
    alone = [estimator.pseudo_counts(table, conditional=conditional) for table in tables]
    together = estimator.pseudo_counts_of_tables(tables, conditional=conditional)
    # Batches of a few cells each (a table larger than the limit alone) give the same answer.
    monkeypatch.setattr(parameters.batches_of_cells, "__defaults__", (7,))
    assert len(list(parameters.batches_of_cells(range(len(tables)), [t.size for t in tables]))) > 3
    small_batches = estimator.pseudo_counts_of_tables(tables, conditional=conditional)
    for a, b, c, table in zip(alone, together, small_batches, tables):
        assert a.shape == table.shape
        np.testing.assert_array_equal(a, b)
        np.testing.assert_array_equal(a, c)


def test_batched_bdeu_search_maximises_each_tables_marginal_likelihood():
    estimator = EmpiricalBayesBDeu()
    tables = [t for t in _mixed_tables() if t.sum() > 0]
    for table, pseudo in zip(tables, estimator.pseudo_counts_of_tables(tables)):
        ess = float(pseudo.reshape(-1)[0] * table.size)
        assert ess == pytest.approx(estimator.select_equivalent_sample_size(table), rel=1e-12)
        # Better than every point of a fine grid, up to the search's resolution (a last step of 1.0125).
        fine = np.geomspace(2.0, 1000.0, 2000)
        best = fine[np.argmax(bdeu_log_marginal_likelihood(table, fine))]
        assert bdeu_log_marginal_likelihood(table, ess) >= bdeu_log_marginal_likelihood(table, best) - 1e-3


def test_maximise_on_log_grids_is_one_search_per_row():
    from graphmodels.estimators import maximise_on_log_grid, maximise_on_log_grids

    targets = np.array([0.5, 3.0, 77.0, 900.0])
    many = maximise_on_log_grids(lambda x: -((np.log(x) - np.log(targets)[:, None]) ** 2), 0.1, 1000.0, len(targets))
    for target, value in zip(targets, many):
        assert value == maximise_on_log_grid(lambda x, t=target: -((np.log(x) - np.log(t)) ** 2), 0.1, 1000.0)
        # Within half the last grid's step, a factor (high / low) ** (1 / 500), of the maximiser.
        assert abs(np.log(value / target)) <= 0.5 * np.log(1000.0 / 0.1) / 500 + 1e-12
    assert maximise_on_log_grids(lambda x: x, 1.0, 1.0, 3).tolist() == [1.0, 1.0, 1.0]


@pytest.mark.parametrize(
    "name", ["mle", "laplace", "dirichlet(0.5)", "bdeu(5)", "marginal-smoothing(5)", "bdeu-auto", "hierarchical"]
)
def test_conditionals_of_many_tables_equal_one_conditional_per_table(name):
    estimator = get_estimator(name)
    tables = _mixed_tables() + [np.array([[0.0, 0.0], [2.0, 1.0]]), np.array([[5.0], [0.0]])]
    together = estimator.conditionals(tables)
    assert estimator.conditionals([]) == []
    for table, cpt in zip(tables, together):
        np.testing.assert_allclose(cpt, estimator.conditional(table), rtol=1e-14, atol=0)
        np.testing.assert_allclose(cpt.sum(axis=-1), 1.0, rtol=1e-14)


@pytest.mark.parametrize("name", ["mle", "laplace", "bdeu(5)", "marginal-smoothing(5)", "bdeu-auto", "hierarchical"])
def test_joints_of_many_tables_equal_one_joint_per_table(name):
    estimator = get_estimator(name)
    tables = _mixed_tables() + [np.zeros((2, 3)), np.array([4.0, 0.0, 1.0])]
    together = estimator.joints(tables)
    assert estimator.joints([]) == []
    assert len(together) == len(tables)
    for table, joint in zip(tables, together):
        assert joint.shape == table.shape
        np.testing.assert_array_equal(joint, estimator.joint(table))  # the same pseudo-counts, the same arithmetic
        assert joint.sum() == pytest.approx(1.0, rel=1e-12)


def test_log_sum_exp_last_is_scipys_along_the_last_axis():
    from scipy.special import logsumexp

    from graphmodels._special import log_sum_exp_last

    rng = np.random.default_rng(1)
    a = rng.normal(size=(6, 3, 4, 5)) * 300
    a[0, 0, 0] = -np.inf
    a[1, 2, 3, 1] = np.inf
    a[2, 1, 1, 4] = np.nan
    with np.errstate(all="ignore"):
        expected = logsumexp(a, axis=3)
    np.testing.assert_allclose(log_sum_exp_last(a), expected, rtol=1e-14, atol=0)
    result = log_sum_exp_last(a)
    assert result[0, 0, 0] == -np.inf and result[1, 2, 3] == np.inf and np.isnan(result[2, 1, 1])
