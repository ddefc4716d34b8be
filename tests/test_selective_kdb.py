"""Tests of Selective KDB: kdb_ranking, kdb_substructure and SelectiveKDB."""

import itertools
import math

import networkx as nx
import numpy as np
import pandas as pd
import pytest
from scipy.special import logsumexp

import graphmodels as gm
from graphmodels._validation import InvalidParameterError
from graphmodels.estimators import LeaveOneOutSelection, get_estimator
from graphmodels.estimators.selection import MAX_SELECTION_ROWS, family_cells, leave_one_out_correction
from graphmodels.learners import kdb_ranking, kdb_structure, kdb_substructure
from graphmodels.models import KDB, SelectiveKDB, load_model, selective_kdb
from graphmodels.stats import CountingEngine
from graphmodels.structures import feature_parents


def _frame(seed, n=40, cards=(2, 3, 2, 3), n_classes=2):
    """Integer states 0..r-1 (each one seen), each attribute leaning on the class or the one before it."""
    rng = np.random.default_rng(seed)
    while True:
        y = rng.integers(0, n_classes, n)
        columns, previous = {}, y
        for j, r in enumerate(cards):
            columns[f"x{j}"] = np.where(rng.random(n) < 0.6, (previous + y) % r, rng.integers(0, r, n))
            previous = columns[f"x{j}"]
        frame = pd.DataFrame(columns)
        if all(frame[c].nunique() == r for c, r in zip(frame, cards)) and len(np.unique(y)) == n_classes:
            return frame, pd.Series(y, name="class")


def _signal_and_noise(seed, n=600, noise_states=6):
    """Three attributes that carry the class and one that is pure noise."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    a = np.where(rng.random(n) < 0.7, y, rng.integers(0, 3, n))
    b = np.where(rng.random(n) < 0.6, (y + a) % 3, rng.integers(0, 3, n))
    c = np.where(rng.random(n) < 0.5, y % 2, rng.integers(0, 2, n))
    X = pd.DataFrame({"a": a, "b": b, "c": c, "noise": rng.integers(0, noise_states, n)}).astype(str)
    return X, pd.Series(y, name="class").map({0: "u", 1: "v", 2: "w"})


# ----------------------------------------------------------------------------- the learner
@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("max_cells", [None, 30, 50])
def test_parents_are_nested_and_substructures_are_the_smaller_kdb(seed, max_cells):
    X, y = _frame(seed, n=200, cards=(3, 2, 4, 3, 2))
    frame = X.assign(**{"class": y})
    engine = CountingEngine.from_frame(frame)
    if max_cells is not None:
        engine.pairwise_counts(list(X.columns), given="class")
        engine.max_cells = max_cells  # the pairwise tables are counted: only the families are bounded
    structure, order, parents = kdb_ranking(engine, "class", k=3)
    assert sorted(structure.edges(data=True)) == sorted(kdb_structure(engine, "class", k=3).edges(data=True))
    if max_cells is not None:  # the bound leaves parents out
        assert parents != kdb_ranking(frame, "class", k=3)[2]
    weights = {v: w for u, v, w in structure.edges(data="weight") if u == "class"}
    assert [weights[name] for name in order] == sorted(weights.values(), reverse=True)
    for k in range(4):
        smaller = kdb_structure(engine, "class", k=k)
        assert sorted(kdb_substructure(structure, order, parents, k=k, n_attributes=len(order)).edges(data=True)) == (
            sorted(smaller.edges(data=True))
        )
        got = {name: set(p) for name, p in feature_parents(smaller).items()}
        assert got == {name: set(parents[name][:k]) for name in order}
    for name, ps in parents.items():
        cmi = [structure[p][name]["weight"] for p in ps]
        assert cmi == sorted(cmi, reverse=True)


def test_substructure_keeps_a_prefix_of_the_order():
    X, y = _frame(0, n=200, cards=(3, 2, 4, 3))
    structure, order, parents = kdb_ranking(X.assign(**{"class": y}), "class", k=2)
    for s in range(len(order) + 1):
        graph = kdb_substructure(structure, order, parents, k=2, n_attributes=s)
        assert set(graph) == {"class", *order[:s]}
        assert nx.is_directed_acyclic_graph(graph)
        assert all(graph.nodes[n] == structure.nodes[n] for n in graph)
    with pytest.raises(ValueError, match="`n_attributes`"):
        kdb_substructure(structure, order, parents, k=1, n_attributes=len(order) + 1)
    with pytest.raises(ValueError, match="`k`"):
        kdb_substructure(structure, order, parents, k=-1, n_attributes=1)


# ----------------------------------------------------------------------------- hand-computed
def test_grid_estimator_fits_what_a_selection_of_that_prior_fits():
    """BDeu(5) with Laplace's grid is the model a one-prior selection of BDeu(5) fits (the grid under a
    selection is Laplace's), and another grid estimator scores another grid."""
    X, y = _signal_and_noise(4, n=300)
    selected = SelectiveKDB(max_k=2, estimator=LeaveOneOutSelection(["bdeu(5)"])).fit(X, y)
    fixed = SelectiveKDB(max_k=2, estimator="bdeu(5)", grid_estimator="laplace").fit(X, y)
    assert fixed.estimator_ == selected.estimator_ == get_estimator("bdeu(5)")
    assert (fixed.k_, fixed.support_.tolist()) == (selected.k_, selected.support_.tolist())
    np.testing.assert_array_equal(fixed.selection_scores_["loss"], selected.selection_scores_["loss"])
    for a, b in zip(fixed.log_tables_, selected.log_tables_, strict=True):
        np.testing.assert_array_equal(a, b)
    own = SelectiveKDB(max_k=2, estimator="bdeu(5)").fit(X, y)
    assert not np.allclose(own.selection_scores_["loss"], fixed.selection_scores_["loss"])


def test_class_only_scores_by_hand():
    # Classes 0, 0, 0, 1: with Laplace, leaving out a row of class 0 gives P(0) = (2 + 1) / (3 + 2)
    # and a row of class 1 P(1) = (0 + 1) / (3 + 2).
    X = pd.DataFrame({"a": ["p", "q", "p", "q"], "b": ["r", "r", "s", "s"]})
    y = pd.Series([0, 0, 0, 1], name="class")
    model = SelectiveKDB(max_k=1, estimator="laplace").fit(X, y)
    scores = model.selection_scores_
    class_only = scores[scores["n_attributes"] == 0]
    assert class_only["k"].tolist() == [0, 1]
    np.testing.assert_allclose(class_only["loss"], -(3 * math.log(3 / 5) + math.log(1 / 5)) / 4)
    rmse = SelectiveKDB(max_k=1, estimator="laplace", loss="rmse").fit(X, y).selection_scores_
    np.testing.assert_allclose(
        rmse.loc[rmse["n_attributes"] == 0, "loss"], math.sqrt((3 * (2 / 5) ** 2 + (4 / 5) ** 2) / 4)
    )
    errors = SelectiveKDB(max_k=1, estimator="laplace", loss="zero-one").fit(X, y).selection_scores_
    np.testing.assert_allclose(errors.loc[errors["n_attributes"] == 0, "loss"], 1 / 4)
    assert len(scores) == 2 * 3


# ----------------------------------------------------------------------------- brute force
def _brute_force_scores(X, y, order, parents, estimator, max_k, loss):
    """Refit every sub-model's tables without each row in turn (plain numpy) and score that row.

    The sub-model of the first s attributes adds one table to the first s - 1's joint, so each
    held-out row's joints for s = 0, 1, ... are built in one pass over the order (the same sums).
    """
    estimator = get_estimator(estimator)
    codes = {name: X[name].to_numpy() for name in X}
    cards = {name: int(X[name].max()) + 1 for name in X}
    c = y.to_numpy()
    n_classes = int(c.max()) + 1
    rows = np.arange(len(c))
    joints = {}  # (k, s) -> each held-out row's joint log-likelihood under that sub-model
    for k in range(max_k + 1):
        for i in rows:
            train = rows != i
            prior = np.bincount(c[train], minlength=n_classes).astype(float)
            joint = np.log(estimator.joint(prior))
            joints.setdefault((k, 0), []).append(joint)
            for s, name in enumerate(order, start=1):
                family = [*parents[name][:k], name]
                counts = np.zeros((n_classes, *(cards[v] for v in family)))
                np.add.at(counts, (c[train], *(codes[v][train] for v in family)), 1)
                table = np.log(estimator.conditional(counts))
                joint = joint + table[(slice(None), *(codes[v][i] for v in family))]
                joints.setdefault((k, s), []).append(joint)
    result = {}
    for k, s in itertools.product(range(max_k + 1), range(len(order) + 1)):
        values = []
        for i, joint in zip(rows, joints[k, s]):
            posterior = np.exp(joint - logsumexp(joint))
            if loss == "log-loss":
                values.append(-np.log(max(posterior[c[i]], 1e-15)))
            elif loss == "rmse":
                values.append((1 - posterior[c[i]]) ** 2)
            else:
                # An error, or (None) a tie in exact arithmetic that rounding decides either way.
                others = np.delete(joint, c[i]).max()
                values.append(None if abs(others - joint[c[i]]) < 1e-9 else float(others > joint[c[i]]))
        if loss == "zero-one":
            ties = sum(v is None for v in values)
            errors = sum(v for v in values if v is not None)
            result[k, s] = (errors / len(values), (errors + ties) / len(values))
        else:
            result[k, s] = math.sqrt(np.mean(values)) if loss == "rmse" else np.mean(values)
    return result


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("estimator", ["laplace", "bdeu(2)", "dirichlet(0.5)"])
@pytest.mark.parametrize("loss", ["log-loss", "rmse", "zero-one"])
def test_every_sub_model_score_equals_brute_force(seed, estimator, loss):
    X, y = _frame(seed, n=30, n_classes=2 + seed % 2)
    max_k = 2
    model = SelectiveKDB(max_k=max_k, estimator=estimator, loss=loss).fit(X, y)
    _, order, parents = kdb_ranking(X.assign(**{"class": y}), "class", k=max_k)
    assert model.feature_order_.tolist() == order
    expected = _brute_force_scores(X, y, order, parents, estimator, max_k, loss)
    got = {(k, s): v for k, s, v in model.selection_scores_.itertuples(index=False)}
    assert got.keys() == expected.keys()
    for cell, value in expected.items():
        if loss == "zero-one":  # rows whose classes tie exactly may count either way
            assert value[0] - 1e-12 <= got[cell] <= value[1] + 1e-12, cell
        else:
            assert got[cell] == pytest.approx(value, rel=1e-10, abs=1e-12), cell
    # The chosen cell is the lowest (ties: fewer attributes, then smaller k).
    best = min(got, key=lambda cell: (got[cell], cell[1], cell[0]))
    assert (model.k_, len(model.selected_features_)) == best


@pytest.mark.parametrize("estimator", ["laplace", "bdeu(2)", "hierarchical", "bdeu-auto"])
@pytest.mark.parametrize("n", [10, 40])  # two parents' 12 configurations: more than the rows, or fewer
def test_batched_held_out_terms_equal_each_table_alone(estimator, n):
    # Every family's terms from one batch (read at the configurations the rows hold, or from whole
    # tables) equal the table's own conditional() at the rows' cells, its own class's column
    # corrected by leave_one_out_correction (the formulation they replaced), bit for bit.
    X, y = _frame(3, n=n, cards=(2, 3, 4, 3), n_classes=3)
    engine = CountingEngine.from_frame(X.assign(**{"class": y}))
    _, order, parents = kdb_ranking(engine, "class", list(X.columns), k=2)
    families, _ = selective_kdb._nested_families(order, parents, 2)
    codes, weights = engine.rows()
    estimator = get_estimator(estimator)
    family_codes = [[codes[:, engine.position(name)] for name in family] for family in families]
    at_cells, at_totals = selective_kdb._smoothed_at_rows(engine, families, estimator, family_codes)
    states = np.array([engine.cardinality(family[-1]) for family in families])
    batched = selective_kdb._held_out_terms(at_cells, at_totals, states, codes[:, -1], weights)
    rows = np.arange(len(codes))
    for family, index, terms in zip(families, family_codes, batched):
        table = engine.counts(["class", *family])
        cells = np.ravel_multi_index(tuple(index), table.shape[1:])
        expected = np.log(estimator.conditional(table)).reshape(table.shape[0], -1)[:, cells].T
        own = family_cells(table, estimator, [codes[:, -1], *index])
        expected[rows, codes[:, -1]] += leave_one_out_correction(own, weights)
        np.testing.assert_array_equal(terms, expected)


def test_grid_does_not_depend_on_its_batches():
    X, y = _frame(4, n=50, cards=(2, 3, 4, 3, 2), n_classes=3)
    engine = CountingEngine.from_frame(X.assign(**{"class": y}))
    _, order, parents = kdb_ranking(engine, "class", list(X.columns), k=3)
    estimator = get_estimator("hierarchical")
    whole = selective_kdb._leave_one_out_grid(engine, order, parents, estimator, max_k=3)
    one_by_one = selective_kdb._leave_one_out_grid(engine, order, parents, estimator, max_k=3, batch_cells=1)
    np.testing.assert_array_equal(whole, one_by_one)


@pytest.mark.parametrize("k", [0, 1, 2])
def test_full_model_score_equals_the_estimator_selection_of_kdb(k):
    # Two routes to the leave-one-out log-loss of KDB(k) with all attributes: the grid, and
    # LeaveOneOutSelection's score of its one candidate (beyond MAX_SELECTION_ROWS, the same sample).
    X, y = _signal_and_noise(1, n=MAX_SELECTION_ROWS + 300)
    model = SelectiveKDB(max_k=2, estimator="laplace").fit(X, y)
    kdb = KDB(k=k, estimator=LeaveOneOutSelection(["laplace"])).fit(X, y)
    scores = model.selection_scores_.set_index(["k", "n_attributes"])["loss"]
    assert scores[k, X.shape[1]] == pytest.approx(kdb.estimator_selection_["log_loss"][0], rel=1e-12)


# ----------------------------------------------------------------------------- special cases
@pytest.mark.parametrize("estimator", ["laplace", "bdeu-auto", "hierarchical", "leave-one-out"])
@pytest.mark.parametrize("max_k", [0, 1, 3])
def test_selecting_nothing_is_kdb_with_max_k(estimator, max_k):
    # "hierarchical" backs off one parent at a time, the last axis first: the tables must lay out
    # their parents as KDB does for the probabilities to be the same.
    X, y = _signal_and_noise(2, n=300)
    model = SelectiveKDB(max_k=max_k, select="none", estimator=estimator).fit(X, y)
    kdb = KDB(k=max_k, estimator=estimator).fit(X, y)
    assert model.k_ == max_k and model.support_.all()
    assert model.selected_features_.tolist() == list(X.columns)
    assert sorted(model.structure_.edges(data=True)) == sorted(kdb.structure_.edges(data=True))
    assert model.estimator_ == kdb.estimator_
    test = X.head(12).copy()
    test.loc[::4, "b"] = "never seen"
    np.testing.assert_allclose(model.predict_proba(test), kdb.predict_proba(test), rtol=1e-10)
    np.testing.assert_allclose(model.joint_log_likelihood(test), kdb.joint_log_likelihood(test), rtol=1e-10)


def test_each_selection_varies_only_its_own_part():
    X, y = _signal_and_noise(3, n=300)
    attributes = SelectiveKDB(max_k=2, select="attributes", estimator="laplace").fit(X, y)
    assert attributes.k_ == 2
    only_k = SelectiveKDB(max_k=2, select="k", estimator="laplace").fit(X, y)
    assert only_k.support_.all()
    both = SelectiveKDB(max_k=2, estimator="laplace").fit(X, y)
    pd.testing.assert_frame_equal(both.selection_scores_, only_k.selection_scores_)
    assert both.selection_scores_["loss"].min() <= min(
        attributes.selection_scores_["loss"].min(), only_k.selection_scores_["loss"].min()
    )


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("loss", ["log-loss", "rmse"])
def test_a_noise_attribute_is_dropped(seed, loss):
    # Leave-one-out is a noisy judge of a small effect: with 600 rows the noise is kept in about
    # one data set in six; with 2,000 rows and 8 states it was dropped in each of 30 tried.
    X, y = _signal_and_noise(seed, n=2000, noise_states=8)
    model = SelectiveKDB(loss=loss).fit(X, y)
    assert model.feature_order_[-1] == "noise"
    assert model.selected_features_.tolist() == ["a", "b", "c"]
    assert model.support_.tolist() == [True, True, True, False]
    assert "noise" not in model.structure_
    # The dropped column does not enter the likelihood: any value, seen or not, gives the same.
    other = X.assign(noise=np.roll(X["noise"].to_numpy(), 1))
    np.testing.assert_array_equal(model.predict_proba(other), model.predict_proba(X))
    with pytest.warns(UserWarning, match="never seen"):
        unseen = model.predict_proba(X.assign(noise="unseen"))
    np.testing.assert_array_equal(unseen, model.predict_proba(X))
    assert len(model.log_tables_) == len(model.feature_parents_) == 3


def test_no_attribute_at_all_is_the_class_prior():
    rng = np.random.default_rng(5)
    X = pd.DataFrame({"a": rng.integers(0, 5, 60), "b": rng.integers(0, 5, 60)}).astype(str)
    y = pd.Series(np.where(rng.random(60) < 0.8, "yes", "no"))
    model = SelectiveKDB(estimator="laplace").fit(X, y)
    assert model.selected_features_.tolist() == [] and model.k_ == 0
    assert list(model.structure_) == ["class"]
    counts = y.value_counts()
    expected = [(counts["no"] + 1) / 62, (counts["yes"] + 1) / 62]  # Laplace on the classes alone
    np.testing.assert_allclose(model.predict_proba(X), np.tile(expected, (60, 1)), rtol=1e-12)


# ----------------------------------------------------------------------------- invariants
def test_sample_weights_equal_duplicated_rows():
    X, y = _signal_and_noise(4, n=200)
    weights = np.random.default_rng(4).integers(1, 4, len(X))
    weighted = SelectiveKDB(max_k=2, estimator="laplace").fit(X, y, sample_weight=weights)
    repeated = SelectiveKDB(max_k=2, estimator="laplace").fit(
        X.loc[X.index.repeat(weights)], y.loc[y.index.repeat(weights)]
    )
    np.testing.assert_allclose(weighted.selection_scores_["loss"], repeated.selection_scores_["loss"], rtol=1e-12)
    np.testing.assert_allclose(weighted.predict_proba(X), repeated.predict_proba(X), rtol=1e-12)


def test_column_order_does_not_matter():
    X, y = _signal_and_noise(5, n=300)
    shuffled = X[["noise", "c", "a", "b"]]
    a, b = SelectiveKDB(max_k=2).fit(X, y), SelectiveKDB(max_k=2).fit(shuffled, y)
    assert a.feature_order_.tolist() == b.feature_order_.tolist()
    assert sorted(a.selected_features_) == sorted(b.selected_features_)
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(shuffled), rtol=1e-12)


def test_posterior_rows_sum_to_one_and_logs_agree():
    X, y = _signal_and_noise(6, n=300)
    model = SelectiveKDB(max_k=3).fit(X, y)
    proba = model.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_allclose(np.log(proba), model.predict_log_proba(X), atol=1e-12)
    kept = model.selected_features_.tolist()
    levels = [model.encoder_.levels_[model.encoder_.columns_.index(name)] for name in kept]
    every = pd.DataFrame(list(itertools.product(*levels)), columns=kept)
    every = every.assign(**{name: X[name].iloc[0] for name in X if name not in kept})[list(X.columns)]
    assert float(np.exp(logsumexp(model.joint_log_likelihood(every)))) == pytest.approx(1.0, abs=1e-12)


# ----------------------------------------------------------------------------- round trips, drawing, errors
@pytest.mark.parametrize("extension", [".json", ".npz"])
def test_save_load_gives_identical_probabilities(tmp_path, extension):
    X, y = _signal_and_noise(7, n=300)
    model = SelectiveKDB(max_k=2).fit(X, y)
    model.save(tmp_path / f"skdb{extension}")
    again = load_model(tmp_path / f"skdb{extension}")
    assert type(again) is SelectiveKDB and again.get_params() == model.get_params()
    test = X.head(20).assign(a=["unseen"] * 10 + list(X["a"].head(10)))
    np.testing.assert_array_equal(again.predict_proba(test), model.predict_proba(test))
    assert again.selected_features_.tolist() == model.selected_features_.tolist()
    assert again.k_ == model.k_ and again.feature_parents_ == model.feature_parents_
    pd.testing.assert_frame_equal(again.selection_scores_, model.selection_scores_)


def test_drawing_returns_a_matplotlib_figure():
    from matplotlib.figure import Figure

    X, y = _signal_and_noise(8, n=300)
    model = SelectiveKDB(max_k=2).fit(X, y)
    ax = gm.plotting.draw_network(model)
    assert isinstance(ax.figure, Figure)
    labels = {text.get_text() for text in ax.texts}
    assert {"a", "b", "c", "class"} <= labels and "noise" not in labels


@pytest.mark.parametrize(
    ("parameter", "value"),
    [
        ("max_k", -1),
        ("max_k", 1.5),
        ("max_k", True),
        ("loss", "mse"),
        ("select", "all"),
        ("min_conditional_mutual_information", -0.1),
        ("grid_estimator", "leave-one-out"),
        ("grid_estimator", "discriminative"),
        ("grid_estimator", "no-such-prior"),
    ],
)
def test_bad_parameters_raise_naming_the_parameter(parameter, value):
    X, y = _signal_and_noise(9, n=60)
    model = SelectiveKDB(**{parameter: value})
    with pytest.raises(InvalidParameterError, match=f"`{parameter}`"):
        model.fit(X, y)
    assert not hasattr(model, "k_")


def test_registered_and_exported():
    assert gm.models.model_class("skdb") is SelectiveKDB is gm.SelectiveKDB
    assert "SelectiveKDB" in gm.models.__all__ and "SelectiveKDB" in gm.__all__
