"""AnDE (averaged n-dependence estimators): special cases, brute force, invariants, guard, persistence, drawing."""

import itertools
import math

import numpy as np
import pandas as pd
import pytest
from matplotlib.figure import Figure

import graphmodels as gm
from graphmodels._validation import InvalidParameterError
from graphmodels.estimators import BDeu, Dirichlet, MaximumLikelihood


def _skewed_table(rng, n_rows=200, cards=(2, 3, 4), n_classes=2):
    """Dependent attributes with skewed states, so that some super-parent values are rare."""
    y = rng.integers(n_classes, size=n_rows)
    columns, previous = {}, y
    for j, r in enumerate(cards):
        weights = 0.5 ** np.arange(r)
        noise = rng.choice(r, size=n_rows, p=weights / weights.sum())
        columns[f"x{j}"] = np.where(rng.random(n_rows) < 0.5, previous % r, noise)
        previous = columns[f"x{j}"]
    X = pd.DataFrame({k: [f"s{v}" for v in col] for k, col in columns.items()})
    return X, pd.Series([f"c{v}" for v in y], name="label")


def _brute_force_joint(X, y, query, *, n, estimator, threshold, frequency="attribute"):
    """``log P(x, y)`` of AnDE for each row of `query`, from counts taken row by row in plain Python.

    A ``None`` cell is a state unseen in training. The pseudo-counts are the
    estimator's for the table the model hands it (``(C, r_S..., r_k)`` and
    ``(C, r_S...)``).
    """
    rows = [tuple(r) for r in X.itertuples(index=False)]
    labels = list(y)
    classes = sorted(set(labels))
    p = len(rows[0])
    levels = [sorted({r[k] for r in rows}) for k in range(p)]

    def count(values, label=None):
        return sum(
            1
            for r, c in zip(rows, labels)
            if (label is None or c == label) and all(r[i] == v for i, v in values.items())
        )

    out = np.zeros((len(query), len(classes)))
    for q, x in enumerate(query):
        for k_class, c in enumerate(classes):
            for m in range(min(n, p), -1, -1):
                members = []
                for subset in itertools.combinations(range(p), m):
                    if any(x[i] is None for i in subset):
                        continue
                    parents = {i: x[i] for i in subset}
                    tally = count(parents) if frequency == "attribute" else count(parents, c)
                    if m and tally < threshold:
                        continue
                    shape = (len(classes), *(len(levels[i]) for i in subset))
                    a = estimator.pseudo_count(shape)
                    value = (count(parents, c) + a) / (len(rows) + a * math.prod(shape))
                    for k in range(p):
                        if k in subset or x[k] is None:
                            continue  # a super-parent, or an unseen child summed out
                        family = (*shape, len(levels[k])) if m else (len(classes), 1, len(levels[k]))
                        a = estimator.pseudo_count(family)
                        value *= (count({**parents, k: x[k]}, c) + a) / (count(parents, c) + a * len(levels[k]))
                    members.append(value)
                if members:  # else fall back to A(m-1)DE
                    out[q, k_class] = np.log(np.mean(members))
                    break
    return out


# ----------------------------------------------------------------------------------------------
# hand-computed and brute force
# ----------------------------------------------------------------------------------------------
def test_saturated_model_is_the_empirical_joint_hand_computed():
    # Two attributes and n=2: the one member is P(y, x1, x2) itself. With MLE, P(y | x) = N[y, x] / N[x].
    # Rows (x1, x2, y): (a,u,+) (a,u,+) (a,u,-) (a,v,-) (b,u,+) (b,v,-) (b,v,-) (b,v,+).
    X = pd.DataFrame({"x1": list("aaaabbbb"), "x2": list("uuuvuvvv")})
    y = list("++--+--+")
    model = gm.AnDE(n=2, estimator=MaximumLikelihood(), frequency_threshold=0).fit(X, y)
    query = pd.DataFrame({"x1": ["a", "a", "b", "b"], "x2": ["u", "v", "u", "v"]})
    # classes_ = ["+", "-"]: (a,u) 2 of 3 '+'; (a,v) 0 of 1; (b,u) 1 of 1; (b,v) 1 of 3.
    expected = np.array([[2 / 3, 1 / 3], [0.0, 1.0], [1.0, 0.0], [1 / 3, 2 / 3]])
    np.testing.assert_allclose(model.predict_proba(query), expected, atol=1e-12)
    # The joint itself: N[+, a, u] / N = 2/8.
    np.testing.assert_allclose(model.joint_log_likelihood(query.iloc[:1])[0, 0], np.log(2 / 8))


@pytest.mark.parametrize("estimator", [Dirichlet(1.0), Dirichlet(0.5), BDeu(2.0)], ids=repr)
@pytest.mark.parametrize("threshold", [0, 12, 40, 60])
@pytest.mark.parametrize("frequency", ["attribute", "attribute-class"])
def test_a2de_matches_brute_force_enumeration_of_subsets(estimator, threshold, frequency):
    # From 12 on some rows have no frequent pair (A1DE); at 60 some have no frequent value either (NB).
    rng = np.random.default_rng(0)
    X, y = _skewed_table(rng, n_rows=120, cards=(2, 3, 4))
    model = gm.AnDE(n=2, estimator=estimator, frequency_threshold=threshold, frequency=frequency).fit(X, y)
    query = [tuple(r) for r in X.iloc[:25].itertuples(index=False)]
    expected = _brute_force_joint(X, y, query, n=2, estimator=estimator, threshold=threshold, frequency=frequency)
    np.testing.assert_allclose(model.joint_log_likelihood(X.iloc[:25]), expected, rtol=1e-10)


def test_brute_force_cases_reach_every_fallback_level():
    # The thresholds of the test above reach both fallbacks: A1DE from 12 on, naive Bayes at 60.
    rng = np.random.default_rng(0)
    X, y = _skewed_table(rng, n_rows=120, cards=(2, 3, 4))
    pair_counts = [X.groupby([X.columns[i], X.columns[j]]).size() for i, j in itertools.combinations(range(3), 2)]
    single_counts = [X[c].value_counts() for c in X.columns]
    codes = X.iloc[:25]
    no_pair = [
        all(counts[tuple(row[list(counts.index.names)])] < 12 for counts in pair_counts) for _, row in codes.iterrows()
    ]
    no_single = [all(counts[row[c]] < 60 for c, counts in zip(X.columns, single_counts)) for _, row in codes.iterrows()]
    assert any(no_pair) and not all(no_pair)
    assert any(no_single) and not all(no_single)


@pytest.mark.parametrize("n", [0, 1, 2, 3])
def test_unseen_values_at_prediction_match_brute_force(n):
    # An unseen super-parent value disqualifies its subsets; an unseen child drops out.
    rng = np.random.default_rng(1)
    X, y = _skewed_table(rng, n_rows=100, cards=(2, 3, 3))
    estimator = Dirichlet(1.0)
    model = gm.AnDE(n=n, estimator=estimator, frequency_threshold=5).fit(X, y)
    test = X.iloc[:6].copy()
    test.loc[test.index[:3], "x1"] = "never seen"
    test.loc[test.index[2:5], "x2"] = "nor this"
    query = [tuple(None if str(v).startswith(("never", "nor")) else v for v in r) for r in test.itertuples(index=False)]
    expected = _brute_force_joint(X, y, query, n=n, estimator=estimator, threshold=5)
    np.testing.assert_allclose(model.joint_log_likelihood(test), expected, rtol=1e-10)


def test_unseen_child_is_summed_out_exactly():
    # With threshold 0 and x0 unseen, the super-parents are x1 and x2 and x0 drops out of both members:
    # exactly AODE fitted without x0 (the same tables P(y, x_i) and P(x_j | y, x_i)).
    rng = np.random.default_rng(2)
    X, y = _skewed_table(rng, n_rows=150, cards=(3, 2, 3))
    model = gm.AnDE(n=1, estimator=Dirichlet(1.0), frequency_threshold=0).fit(X, y)
    row = X.iloc[[0]]
    with pytest.warns(UserWarning, match="never seen"):
        unseen = model.joint_log_likelihood(row.assign(x0="??"))[0]
    sub = gm.AnDE(n=1, estimator=Dirichlet(1.0), frequency_threshold=0).fit(X[["x1", "x2"]], y)
    np.testing.assert_allclose(unseen, sub.joint_log_likelihood(row[["x1", "x2"]])[0], rtol=1e-10)


# ----------------------------------------------------------------------------------------------
# special cases: n=1 is AODE, n=0 is naive Bayes, n > p is n = p
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("estimator", ["bdeu-auto", "bdeu", "laplace", Dirichlet(0.5), MaximumLikelihood()], ids=repr)
@pytest.mark.parametrize("threshold", [0, 30, 60])
@pytest.mark.parametrize("frequency", ["attribute", "attribute-class"])
def test_n1_is_aode(estimator, threshold, frequency, random_table):
    rng = np.random.default_rng(3)
    X, y = random_table(rng, n_rows=200, cards=(2, 3, 4, 2, 3))
    X.loc[::11, "x2"] = None  # a missing state of its own
    settings = {"estimator": estimator, "frequency_threshold": threshold, "frequency": frequency}
    aode = gm.AODE(**settings).fit(X, y)
    a1de = gm.AnDE(n=1, **settings).fit(X, y)
    test = pd.concat([X, X.iloc[:20].assign(x1="unseen")], ignore_index=True)
    np.testing.assert_allclose(a1de.predict_proba(test), aode.predict_proba(test), rtol=1e-10, atol=1e-14)


def test_n1_is_aode_on_car_with_defaults():
    X, y = gm.datasets.load("car", return_X_y=True)
    np.testing.assert_allclose(
        gm.AnDE(n=1).fit(X, y).predict_proba(X), gm.AODE().fit(X, y).predict_proba(X), rtol=1e-10
    )


@pytest.mark.parametrize("estimator", ["bdeu-auto", "bdeu", "laplace", Dirichlet(0.5)], ids=repr)
def test_n0_is_naive_bayes(estimator, random_table):
    rng = np.random.default_rng(4)
    X, y = random_table(rng)
    a0de = gm.AnDE(n=0, estimator=estimator).fit(X, y)
    nb = gm.NaiveBayes(estimator=estimator).fit(X, y)
    test = pd.concat([X, X.iloc[:5].assign(x0="unseen")], ignore_index=True)
    np.testing.assert_allclose(a0de.joint_log_likelihood(test), nb.joint_log_likelihood(test), rtol=1e-10)


def test_no_frequent_subset_anywhere_is_naive_bayes(random_table):
    rng = np.random.default_rng(5)
    X, y = random_table(rng, n_rows=80)
    ande = gm.AnDE(n=2, frequency_threshold=10_000).fit(X, y)
    nb = gm.NaiveBayes(estimator=ande.estimator_).fit(X, y)
    np.testing.assert_allclose(ande.predict_proba(X), nb.predict_proba(X), rtol=1e-10)


def test_n_above_the_number_of_attributes_is_the_saturated_model():
    rng = np.random.default_rng(6)
    X, y = _skewed_table(rng, n_rows=60, cards=(2, 3, 2))
    a3de = gm.AnDE(n=3, estimator="laplace").fit(X, y)
    a9de = gm.AnDE(n=9, estimator="laplace").fit(X, y)
    np.testing.assert_array_equal(a9de.predict_proba(X), a3de.predict_proba(X))
    assert len(a9de.log_tables_) == 4


# ----------------------------------------------------------------------------------------------
# invariants
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("n", [0, 1, 2, 3])
def test_probabilities_sum_to_one_and_logs_agree(n, random_table):
    rng = np.random.default_rng(7)
    X, y = random_table(rng, n_rows=250)
    model = gm.AnDE(n=n).fit(X, y)
    proba = model.predict_proba(X)
    assert proba.shape == (len(X), 3)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(np.log(proba), model.predict_log_proba(X), atol=1e-10)
    np.testing.assert_array_equal(model.predict(X), model.classes_[proba.argmax(axis=1)])


@pytest.mark.parametrize("n", [1, 2, 3])
def test_joint_sums_to_one_over_all_configurations_without_a_frequency_limit(n):
    # With threshold 0 every subset qualifies for every configuration: an average of normalized joints.
    rng = np.random.default_rng(8)
    X, y = _skewed_table(rng, n_rows=80, cards=(2, 3, 2))
    model = gm.AnDE(n=n, estimator="bdeu", frequency_threshold=0).fit(X, y)
    levels = [[v for v in model.encoder_.levels_[j]] for j in range(3)]
    grid = pd.DataFrame(list(itertools.product(*levels)), columns=X.columns)
    total = np.logaddexp.reduce(model.joint_log_likelihood(grid), axis=None)
    np.testing.assert_allclose(total, 0.0, atol=1e-12)


def test_permuting_rows_or_columns_changes_nothing(random_table):
    rng = np.random.default_rng(9)
    X, y = random_table(rng, n_rows=200)
    base = gm.AnDE(n=2, frequency_threshold=10).fit(X, y).predict_proba(X)
    order = rng.permutation(len(X))
    rows = gm.AnDE(n=2, frequency_threshold=10).fit(X.iloc[order], y.iloc[order]).predict_proba(X)
    columns = list(reversed(X.columns))
    cols = gm.AnDE(n=2, frequency_threshold=10).fit(X[columns], y).predict_proba(X[columns])
    np.testing.assert_allclose(rows, base, rtol=1e-10)
    np.testing.assert_allclose(cols, base, rtol=1e-10)


def test_integer_weights_equal_repeated_rows(random_table):
    rng = np.random.default_rng(10)
    X, y = random_table(rng, n_rows=120)
    weights = rng.integers(0, 3, len(X))
    repeated = np.repeat(np.arange(len(X)), weights)
    weighted = gm.AnDE(n=2, estimator="bdeu", frequency_threshold=4).fit(X, y, sample_weight=weights)
    copied = gm.AnDE(n=2, estimator="bdeu", frequency_threshold=4).fit(X.iloc[repeated], y.iloc[repeated])
    np.testing.assert_allclose(weighted.predict_proba(X), copied.predict_proba(X), rtol=1e-10)


def test_prediction_in_row_blocks_equals_one_block(random_table, monkeypatch):
    rng = np.random.default_rng(11)
    X, y = random_table(rng, n_rows=150)
    model = gm.AnDE(n=2, frequency_threshold=8).fit(X, y)
    whole = model.predict_proba(X)
    monkeypatch.setattr("graphmodels.models.ande._BLOCK_CELLS", 1)  # one row per block
    np.testing.assert_array_equal(model.predict_proba(X), whole)


# ----------------------------------------------------------------------------------------------
# parameters and the size guard
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("bad", [-1, 1.5, "2", True])
def test_n_must_be_a_non_negative_integer(bad, random_table):
    X, y = random_table(np.random.default_rng(12), n_rows=30)
    with pytest.raises(InvalidParameterError, match="`n`"):
        gm.AnDE(n=bad).fit(X, y)


def test_max_cells_guard_is_exactly_what_the_model_keeps(random_table):
    X, y = random_table(np.random.default_rng(13), n_rows=100)
    model = gm.AnDE(n=2).fit(X, y)
    kept = sum(
        t.size
        for name in ("log_tables_", "superparent_log_joint_", "superparent_counts_")
        for t in getattr(model, name)
    )
    # C * (K + 2) * (e_0 + e_1 + e_2) for cardinalities (2, 3, 4, 2, 3), K = 14, 3 classes.
    cards = [2, 3, 4, 2, 3]
    e2 = sum(a * b for a, b in itertools.combinations(cards, 2))
    assert kept == 3 * (14 + 2) * (1 + 14 + e2)
    gm.AnDE(n=2, max_cells=kept).fit(X, y)
    with pytest.raises(ValueError, match=rf"n=2 \(.* would have {kept:,} cells"):
        gm.AnDE(n=2, max_cells=kept - 1).fit(X, y)


def test_max_cells_guard_raises_before_counting():
    # 40 attributes of 30 states: A3DE would need ~10^11 cells; the error comes at once, naming n.
    rng = np.random.default_rng(14)
    X = pd.DataFrame({f"a{j}": rng.integers(30, size=300).astype(str) for j in range(40)})
    y = rng.integers(2, size=300)
    counts = gm.models.training_counts(X, y)
    model = gm.AnDE(n=3)
    with pytest.raises(ValueError, match=r"n=3 .* 9,880 super-parent subsets of 3 of the 40 attributes") as caught:
        model.fit_counts(counts)
    assert "max_cells=10,000,000" in str(caught.value)
    assert not [name for name in vars(model) if name.endswith("_")]
    # Nothing was counted: the shared engine holds no table yet.
    assert counts.engine._cache == {}


# ----------------------------------------------------------------------------------------------
# persistence, registry, drawing
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("extension", [".json", ".npz"])
@pytest.mark.parametrize("n", [0, 2, 3])
def test_save_load_round_trip(tmp_path, extension, n, random_table):
    rng = np.random.default_rng(15)
    X, y = random_table(rng)
    X.iloc[::9, 2] = None
    model = gm.AnDE(n=n, frequency_threshold=5, frequency="attribute-class", estimator=Dirichlet(0.5)).fit(X, y)
    path = tmp_path / f"a{n}de{extension}"
    model.save(path)
    loaded = gm.load_model(path)
    assert type(loaded) is gm.AnDE and loaded.get_params() == model.get_params()
    test = X.assign(x4="unseen state")
    with pytest.warns(UserWarning, match="never seen"):
        np.testing.assert_array_equal(loaded.predict_proba(test), model.predict_proba(test))
    assert [s.tolist() for s in loaded.superparents_] == [s.tolist() for s in model.superparents_]
    assert set(loaded.structure_.edges) == set(model.structure_.edges)


def test_registered_for_the_command_line_and_compare():
    assert gm.models.CLASSIFIERS["ande"] is gm.AnDE
    assert gm.models.model_class("AnDE") is gm.AnDE
    assert gm.models.make_model("ande", n=3).n == 3


def test_drawing_on_an_axes_draws_the_naive_bayes_skeleton():
    from graphmodels.plotting import draw_network

    X, y = gm.datasets.load("car", return_X_y=True)
    model = gm.AnDE(n=2).fit(X, y)
    assert sorted(kind for *_, kind in model.structure_.edges(data="kind")) == ["class"] * X.shape[1]
    # Without an axes draw_network draws the members (tests/test_plotting_ensembles.py).
    ax = draw_network(model, Figure().subplots(), title="A2DE")
    assert isinstance(ax.figure, Figure)
    assert ax.get_title() == "A2DE"
    assert len([p for p in ax.patches if p.get_gid() == "edge:class"]) == X.shape[1]
