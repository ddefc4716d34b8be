"""Leave-one-out selection of a classifier's estimator, and the hierarchical Dirichlet estimator."""

from __future__ import annotations

import functools
import itertools
import json

import numpy as np
import pandas as pd
import pytest

import graphmodels as gm
from graphmodels._special import gammaln, logsumexp
from graphmodels.estimators import (
    DEFAULT_SELECTION_CANDIDATES,
    BDeu,
    Dirichlet,
    EmpiricalBayesBDeu,
    HierarchicalDirichlet,
    LeaveOneOutSelection,
    MarginalSmoothing,
    MaximumLikelihood,
    dirichlet_multinomial_log_likelihood,
    get_estimator,
    leave_one_out_scores,
)
from graphmodels.estimators.selection import MAX_SELECTION_ROWS, LeaveOneOutScorer
from graphmodels.models import training_counts

SELECTING = [
    gm.NaiveBayes,
    gm.TAN,
    gm.FAN,
    gm.ChowLiu,
    gm.KDB,
    gm.HyperforestClassifier,
    functools.partial(gm.HyperforestClassifier, representation="free", treewidth=1),
]
ESTIMATORS = [
    Dirichlet(1.0),
    Dirichlet(0.5),
    BDeu(5.0),
    MaximumLikelihood(),
    EmpiricalBayesBDeu(),
    MarginalSmoothing(5.0),
    HierarchicalDirichlet(),
]


def _data(n=40, seed=0):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 3, n)
    b = (a + rng.integers(0, 2, n)) % 3
    c = rng.integers(0, 2, n)
    y = np.where(rng.random(n) < 0.8, (a + c) % 2, rng.integers(0, 2, n))
    X = pd.DataFrame({"a": a.astype(str), "b": b.astype(str), "c": c.astype(str)})
    return X, pd.Series(np.array(["no", "yes"])[y], name="class")


def _name(model_class):
    if isinstance(model_class, functools.partial):
        return model_class.func.__name__ + "-" + "-".join(f"{k}={v}" for k, v in model_class.keywords.items())
    return model_class.__name__


# ------------------------------------------------------------------ pseudo-counts
@pytest.mark.parametrize("estimator", ESTIMATORS, ids=repr)
@pytest.mark.parametrize("shape", [(4,), (3, 4), (2, 3, 4), (2, 1, 3)])
def test_every_estimator_is_its_pseudo_counts_normalized(estimator, shape):
    counts = np.random.default_rng(1).integers(0, 6, size=shape).astype(float)
    alpha = estimator.pseudo_counts(counts)
    assert alpha.shape == counts.shape and (alpha >= 0).all()
    smoothed = counts + alpha
    with np.errstate(invalid="ignore"):
        expected = smoothed / smoothed.sum(axis=-1, keepdims=True)
    table = estimator.conditional(counts)
    finite = np.isfinite(expected)
    np.testing.assert_allclose(table[finite], expected[finite], rtol=1e-12)
    joint_alpha = estimator.pseudo_counts(counts, conditional=False)
    np.testing.assert_allclose(
        estimator.joint(counts), (counts + joint_alpha) / (counts + joint_alpha).sum(), rtol=1e-12
    )


# ------------------------------------------------------------------ hierarchical Dirichlet
def test_dirichlet_multinomial_likelihood_by_hand():
    # Rows (2, 1) under Dirichlet(3 * (0.5, 0.5)) and (0, 2) under Dirichlet(3 * (0.2, 0.8)):
    # the Polya probabilities of the sequences, written out with gamma functions.
    def polya(n, a):
        return gammaln(a.sum()) - gammaln(a.sum() + n.sum()) + (gammaln(a + n) - gammaln(a)).sum()

    expected = polya(np.array([2.0, 1.0]), 3 * np.array([0.5, 0.5])) + polya(
        np.array([0.0, 2.0]), 3 * np.array([0.2, 0.8])
    )
    got = dirichlet_multinomial_log_likelihood([[2, 1], [0, 2]], [[0.5, 0.5], [0.2, 0.8]], 3.0)
    assert np.isclose(got, expected)
    # Sequential check of one row: P(a, a, b) = 1.5/3 * 2.5/4 * 1.5/5.
    assert np.isclose(
        dirichlet_multinomial_log_likelihood([[2, 1]], [0.5, 0.5], 3.0), np.log(1.5 / 3 * 2.5 / 4 * 1.5 / 5)
    )


def test_hierarchical_levels_by_hand():
    estimator = HierarchicalDirichlet()
    counts = np.array([[[6.0, 2.0], [1.0, 3.0]], [[0.0, 0.0], [2.0, 2.0]]])  # (class, parent, child)
    # Level 0: the child's marginal toward uniform.
    marginal = counts.sum(axis=(0, 1))
    s0 = estimator.select_concentration(marginal[None], [0.5, 0.5])
    p0 = (marginal + s0 / 2) / (marginal.sum() + s0)
    # Level 1: each class toward p0.
    by_class = counts.sum(axis=1)
    s1 = estimator.select_concentration(by_class, p0)
    p1 = (by_class + s1 * p0) / (by_class.sum(axis=1, keepdims=True) + s1)
    # Level 2: each (class, parent) toward its class's p1.
    base = np.broadcast_to(p1[:, None, :], counts.shape)
    s2 = estimator.select_concentration(counts.reshape(-1, 2), base.reshape(-1, 2))
    expected = (counts + s2 * base) / (counts.sum(axis=-1, keepdims=True) + s2)
    np.testing.assert_allclose(estimator.conditional(counts), expected, rtol=1e-12)
    # A configuration never seen (class 1, parent 0) gets its class's estimate.
    np.testing.assert_allclose(expected[1, 0], p1[1], rtol=1e-12)


def test_hierarchical_concentration_maximises_the_level_likelihood():
    estimator = HierarchicalDirichlet(0.01, 1e4)
    rng = np.random.default_rng(2)
    counts = rng.integers(0, 9, size=(5, 3)).astype(float)
    base = np.array([0.2, 0.3, 0.5])
    chosen = estimator.select_concentration(counts, base)
    grid = np.geomspace(0.01, 1e4, 4001)
    scores = dirichlet_multinomial_log_likelihood(counts, base, grid)
    # Within a thousandth of a nat of the brute-force maximum (the search's last step is a factor 1.028 here).
    assert dirichlet_multinomial_log_likelihood(counts, base, chosen) >= scores.max() - 1e-3


def test_hierarchical_independent_child_keeps_the_base_and_dependent_child_does_not():
    estimator = HierarchicalDirichlet()
    independent = estimator.conditional([[300, 100], [30, 10]])
    np.testing.assert_allclose(independent[0], independent[1], atol=1e-3)
    dependent = estimator.conditional([[40, 0], [0, 40]])
    assert dependent[0, 0] > 0.95 and dependent[1, 1] > 0.95


def test_hierarchical_is_positive_and_normalized_for_sparse_tables():
    counts = np.zeros((3, 4, 5, 2))
    counts[0, 1, 2, 1] = 3
    table = HierarchicalDirichlet().conditional(counts)
    assert (table > 0).all()
    np.testing.assert_allclose(table.sum(axis=-1), 1.0)
    joint = HierarchicalDirichlet().joint(counts)
    assert (joint > 0).all() and np.isclose(joint.sum(), 1.0)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [({"min_concentration": 0}, "min_concentration"), ({"max_concentration": 0.5}, "max_concentration")],
)
def test_hierarchical_parameters_are_checked(kwargs, match):
    with pytest.raises(ValueError, match=match):
        HierarchicalDirichlet(**kwargs)


def test_hierarchical_by_name_and_round_trip():
    estimator = get_estimator("hierarchical")
    assert isinstance(estimator, HierarchicalDirichlet)
    assert get_estimator(json.loads(json.dumps(estimator.to_dict()))) == estimator


# ------------------------------------------------------------------ leave-one-out, against refitting
def _refit_without(model, X, y, i, encoded):
    """The model's tables refitted on every row but `i` (weight 0), its structure kept: row i's log posterior.

    `encoded` is ``model._encode_new(X)``, what predict_log_proba computes first (the refit keeps
    the model's encoder): encoded once, not once per row, and scored as predict_log_proba scores it.
    """
    weights = np.ones(len(X))
    weights[i] = 0.0
    counts = training_counts(X, y, sample_weight=weights, discretizer=None)
    held = gm.models.clone_model(model)
    held.__dict__.update({k: v for k, v in vars(model).items() if k.endswith("_")})
    held._fit_tables(counts.engine, model.estimator_)
    joint = held._class_log_scores(encoded[[i]])[0]
    return joint - logsumexp(joint)


# HNB's tables include a latent's (on these rows a latent over a and c), held fixed as the structure is.
@pytest.mark.parametrize(
    "model_class", [*SELECTING, functools.partial(gm.HierarchicalNaiveBayes, random_state=0)], ids=_name
)
@pytest.mark.parametrize("estimator", [Dirichlet(1.0), BDeu(5.0), Dirichlet(0.3)], ids=repr)
def test_leave_one_out_scores_equal_refitting_without_each_row(model_class, estimator):
    X, y = _data()
    model = model_class(estimator=estimator, discretizer=None).fit(X, y)
    counts = training_counts(X, y, discretizer=None)
    codes, weights = counts.engine.rows()
    joint = model._joint_log_likelihood(codes[:, :-1])
    families = model._training_families(counts.engine, codes, estimator)
    log_loss, error = leave_one_out_scores(joint, codes[:, -1], weights, families)
    encoded = model._encode_new(X)
    brute = np.array([_refit_without(model, X, y, i, encoded) for i in range(len(X))])
    truth = codes[:, -1]
    expected_loss = -np.mean(np.maximum(brute[np.arange(len(X)), truth], np.log(1e-15)))
    expected_error = np.mean(np.argmax(brute, axis=1) != truth)
    assert np.isclose(log_loss, expected_loss, rtol=1e-10)
    assert np.isclose(error, expected_error)


@pytest.mark.parametrize("model_class", [gm.NaiveBayes, gm.TAN, functools.partial(gm.KDB, k=2)], ids=_name)
@pytest.mark.parametrize("estimator", [Dirichlet(1.0), MaximumLikelihood(), HierarchicalDirichlet()], ids=repr)
def test_joint_from_the_counts_equals_the_fitted_tables(model_class, estimator):
    """The scorer's log P(x, c) at the rows' cells, tables unfitted, is the fitted model's (MLE: uniform fallbacks)."""
    X, y = _data(60, seed=3)
    X = X.assign(d=np.random.default_rng(5).integers(0, 4, len(X)).astype(str))
    model = model_class(estimator=estimator, discretizer=None).fit(X, y)
    counts = training_counts(X, y, discretizer=None)
    codes, weights = counts.engine.rows()
    families = model._training_families(counts.engine, codes, estimator)
    scorer = LeaveOneOutScorer(families, codes[:, -1], weights)
    assert scorer.class_leads(2)
    pseudo_counts = [f.pseudo_counts for f in families]
    with np.errstate(divide="ignore"):
        prior = np.log(estimator.joint(counts.engine.counts(["class"])))
    joint = scorer.joint_log_likelihood(pseudo_counts, prior)
    np.testing.assert_allclose(joint, model._joint_log_likelihood(codes[:, :-1]), rtol=1e-12, atol=1e-12)
    assert scorer.score_from_counts(pseudo_counts, prior) == pytest.approx(
        scorer.score(model._joint_log_likelihood(codes[:, :-1]), pseudo_counts), rel=1e-12
    )


def test_wide_tables_are_scored_from_the_counts_and_choose_as_fitted_tables_do(monkeypatch):
    """KDB with many-state parents: tables far larger than the rows read, so candidates are scored from the
    counts; the losses and the fitted model are those of fitting every candidate's tables."""
    rng = np.random.default_rng(8)
    n = 120
    X = pd.DataFrame({f"x{j}": rng.integers(0, 9, n).astype(str) for j in range(4)})
    y = pd.Series(np.where(rng.random(n) < 0.7, (X["x0"].astype(int) + X["x1"].astype(int)) % 2, 1), name="class")
    selection = LeaveOneOutSelection(["laplace", "bdeu(5)", "hierarchical", "mle"])
    scored = gm.KDB(k=3, estimator=selection, discretizer=None).fit(X, y)
    calls = []
    original = LeaveOneOutScorer.joint_is_cheaper_than_tables
    monkeypatch.setattr(
        LeaveOneOutScorer, "joint_is_cheaper_than_tables", lambda self, c: calls.append(original(self, c))
    )
    fitted = gm.KDB(k=3, estimator=selection, discretizer=None).fit(X, y)
    assert calls == [True]  # the first fit took the counts' path; the patched one fitted every candidate
    np.testing.assert_allclose(
        scored.estimator_selection_["log_loss"], fitted.estimator_selection_["log_loss"], rtol=1e-12
    )
    assert scored.estimator_ == fitted.estimator_
    np.testing.assert_array_equal(scored.predict_proba(X), fitted.predict_proba(X))


def test_leave_one_out_scores_by_hand_for_a_class_prior_alone():
    # Three rows of class 0, one of class 1, Laplace prior, no attributes: left out,
    # a class-0 row sees counts (2, 1) -> P = 3/5; the class-1 row sees (3, 0) -> P = 1/5.
    from graphmodels.estimators import FamilyCells

    counts = np.array([3.0, 1.0])
    family = FamilyCells(counts, np.ones(2), np.array([0, 0, 0, 1]), conditional=False)
    joint = np.log(np.tile((counts + 1) / 6, (4, 1)))
    log_loss, error = leave_one_out_scores(joint, [0, 0, 0, 1], np.ones(4), [family])
    assert np.isclose(log_loss, -(3 * np.log(3 / 5) + np.log(1 / 5)) / 4)
    assert error == 0.25


def test_maximum_likelihood_leave_one_out_is_finite_after_clipping():
    X, y = _data(20)
    model = gm.NaiveBayes(estimator=LeaveOneOutSelection(["mle", "laplace"]), discretizer=None).fit(X, y)
    table = model.estimator_selection_
    assert np.isfinite(table["log_loss"]).all()
    assert table["log_loss"].iloc[0] <= -np.log(1e-15) + 1e-9


# ------------------------------------------------------------------ the selection inside fit
@pytest.mark.parametrize("model_class", SELECTING, ids=_name)
def test_selection_keeps_the_candidate_with_the_lowest_leave_one_out_log_loss(model_class):
    frame = gm.datasets.load("car")
    X, y = frame.drop(columns="class"), frame["class"]
    candidates = ["laplace", "bdeu(50)", "marginal-smoothing(1)"]
    model = model_class(estimator=LeaveOneOutSelection(candidates)).fit(X, y)
    table = model.estimator_selection_
    assert list(table["candidate"]) == [repr(get_estimator(c)) for c in candidates]
    best = candidates[int(np.argmin(table["log_loss"]))]
    assert model.estimator_ == get_estimator(best)
    # The fitted tables are the chosen candidate's: the same as fitting with it directly.
    direct = model_class(estimator=best).fit(X, y)
    np.testing.assert_allclose(model.predict_proba(X), direct.predict_proba(X), rtol=1e-12)
    np.testing.assert_allclose(model.predict_proba(X).sum(axis=1), 1.0)


def test_selection_is_reproducible_and_bounded_on_many_rows():
    rng = np.random.default_rng(4)
    n = 5000
    X = pd.DataFrame({f"x{i}": rng.integers(0, 3, n).astype(str) for i in range(4)})
    y = (X["x0"].astype(int) + rng.integers(0, 2, n)) % 2
    first = gm.TAN(estimator="leave-one-out").fit(X, y)
    second = gm.TAN(estimator="leave-one-out").fit(X, y)
    pd.testing.assert_frame_equal(first.estimator_selection_, second.estimator_selection_)
    assert len(first.estimator_selection_) == len(DEFAULT_SELECTION_CANDIDATES)


def test_selection_with_sample_weights_equals_repeated_rows():
    X, y = _data(30, seed=5)
    weights = np.random.default_rng(5).integers(1, 4, len(X))
    repeated = np.repeat(np.arange(len(X)), weights)
    selection = LeaveOneOutSelection(["laplace", "bdeu(5)", "marginal-smoothing(1)", "hierarchical"])
    weighted = gm.TAN(estimator=selection, discretizer=None).fit(X, y, sample_weight=weights)
    expanded = gm.TAN(estimator=selection, discretizer=None).fit(X.iloc[repeated], y.iloc[repeated])
    # Each copy of a row is left out on its own: the same scores, the same choice.
    np.testing.assert_allclose(
        weighted.estimator_selection_[["log_loss", "error"]], expanded.estimator_selection_[["log_loss", "error"]]
    )
    assert weighted.estimator_ == expanded.estimator_
    np.testing.assert_allclose(weighted.predict_proba(X), expanded.predict_proba(X), rtol=1e-10)


def test_selection_round_trips_through_save_and_load(tmp_path):
    X, y = _data()
    model = gm.ChowLiu(estimator="leave-one-out", discretizer=None).fit(X, y)
    for suffix in (".json", ".npz"):
        path = tmp_path / f"model{suffix}"
        model.save(path)
        loaded = gm.load_model(path)
        np.testing.assert_allclose(loaded.predict_proba(X), model.predict_proba(X), rtol=1e-12)
        assert loaded.estimator_ == model.estimator_
        assert loaded.get_params()["estimator"] == "leave-one-out"


def test_selection_description_round_trips():
    selection = LeaveOneOutSelection(["laplace", HierarchicalDirichlet(2.0)])
    again = get_estimator(json.loads(json.dumps(selection.to_dict())))
    assert again == selection and hash(again) == hash(selection)
    assert "hierarchical" in repr(selection)


@pytest.mark.parametrize(
    "model_class",
    [gm.AODE, gm.KikuchiBayes],
    ids=_name,
)
def test_models_without_selection_say_so(model_class):
    X, y = _data()
    with pytest.raises(ValueError, match="`estimator`.*leave-one-out"):
        model_class(estimator="leave-one-out", discretizer=None).fit(X, y)


def test_joint_hyperforest_uses_the_first_candidate():
    X, y = _data()
    model = gm.HyperforestClassifier(representation="joint", discretizer=None).fit(X, y)
    assert model.estimator_ == get_estimator("bdeu-auto")
    assert not hasattr(model, "estimator_selection_")
    chosen = gm.HyperforestClassifier(
        representation="joint", estimator=LeaveOneOutSelection(["laplace", "bdeu(5)"]), discretizer=None
    ).fit(X, y)
    assert chosen.estimator_ == get_estimator("laplace")


def test_densities_do_not_select():
    X, _ = _data()
    with pytest.raises(ValueError, match="`estimator`.*leave-one-out"):
        gm.HyperforestDensity(estimator="leave-one-out", discretizer=None).fit(X)


@pytest.mark.parametrize(
    ("candidates", "error", "match"),
    [
        ("laplace", TypeError, "sequence"),
        ([], ValueError, "at least one"),
        (["nonsense"], ValueError, "Unknown estimator"),
        ([LeaveOneOutSelection(["laplace"])], ValueError, "another"),
    ],
)
def test_selection_candidates_are_checked(candidates, error, match):
    with pytest.raises(error, match=match):
        LeaveOneOutSelection(candidates)


def test_selection_estimates_no_table_itself():
    with pytest.raises(TypeError, match="inside a classifier's fit"):
        LeaveOneOutSelection().conditional([[1, 2]])


def test_default_candidates_resolve():
    resolved = LeaveOneOutSelection().candidates
    assert len(resolved) == len(set(resolved)) == len(DEFAULT_SELECTION_CANDIDATES)
    assert not any(isinstance(c, LeaveOneOutSelection) for c in resolved)
    # Every candidate is a distinct estimate on some table.
    counts = np.arange(12, dtype=float).reshape(2, 2, 3)
    tables = [c.conditional(counts) for c in resolved]
    for a, b in itertools.combinations(tables, 2):
        assert not np.allclose(a, b)


@pytest.mark.parametrize("model_class", SELECTING, ids=_name)
def test_leaving_a_row_out_never_raises_its_own_class_probability(model_class):
    # (N - 1 + a) / (N_pa - 1 + A) <= (N + a) / (N_pa + A) for every cell, so each row's
    # held-out probability of its class is at most the resubstitution one.
    X, y = _data()
    model = model_class(estimator="laplace", discretizer=None).fit(X, y)
    counts = training_counts(X, y, discretizer=None)
    codes, weights = counts.engine.rows()
    joint = model._joint_log_likelihood(codes[:, :-1])
    truth = codes[:, -1]
    resubstitution = -np.mean((joint - logsumexp(joint, axis=1, keepdims=True))[np.arange(len(truth)), truth])
    held_out, _ = leave_one_out_scores(
        joint, truth, weights, model._training_families(counts.engine, codes, get_estimator("laplace"))
    )
    assert held_out > resubstitution


class _CountingDirichlet(Dirichlet):
    calls = 0

    def pseudo_counts(self, counts, *, conditional=True):
        type(self).calls += 1
        return super().pseudo_counts(counts, conditional=conditional)


def test_selection_works_out_each_tables_pseudo_counts_once():
    X, y = _data()
    _CountingDirichlet.calls = 0
    model = gm.TAN(estimator=LeaveOneOutSelection([_CountingDirichlet(1.0)]), discretizer=None).fit(X, y)
    # One class prior and one family table per attribute, each asked for once.
    assert _CountingDirichlet.calls == 1 + X.shape[1]
    np.testing.assert_allclose(
        model.predict_proba(X), gm.TAN(estimator="laplace", discretizer=None).fit(X, y).predict_proba(X)
    )


def test_the_kept_tables_are_the_named_candidates_even_when_no_score_is_a_number():
    # Every row the selection scores weighs 0: every score is NaN. The model must still hold the
    # tables of the candidate it names (the first), not of the last one fitted.
    X, y = gm.datasets.load("kr-vs-kp", return_X_y=True)  # 3,196 rows: a sample of 2,000 is scored
    sampled = np.zeros(len(y), bool)
    sampled[np.random.default_rng(0).choice(len(y), MAX_SELECTION_ROWS, replace=False)] = True
    weights = np.where(sampled, 0.0, 1.0)
    model = gm.TAN().fit(X, y, sample_weight=weights)
    assert model.estimator_selection_["log_loss"].isna().all()
    assert model.estimator_ == get_estimator(DEFAULT_SELECTION_CANDIDATES[0])
    direct = gm.TAN(estimator=model.estimator_).fit(X, y, sample_weight=weights)
    np.testing.assert_allclose(model.predict_proba(X), direct.predict_proba(X), rtol=1e-12)


def test_a_multinets_classes_share_one_copy_of_each_family_table_when_scored():
    X, y = gm.datasets.load("car", return_X_y=True)
    model = gm.ChowLiu(representation="free", estimator="laplace").fit(X, y)
    counts = training_counts(X, y)
    codes, weights = counts.engine.sample_rows(MAX_SELECTION_ROWS, seed=0)
    families = model._training_families(counts.engine, codes, get_estimator("laplace"))
    scorer = LeaveOneOutScorer(families, codes[:, -1], weights)
    distinct = {(f.counts.shape, np.asarray(f.counts).tobytes()) for f in families if f.conditional}
    assert len(scorer._first_family) == len(distinct) < len(families) - 1
    expected = leave_one_out_scores(model._joint_log_likelihood(codes[:, :-1]), codes[:, -1], weights, families)
    assert scorer.score(model._joint_log_likelihood(codes[:, :-1]), [f.pseudo_counts for f in families]) == expected


def test_scores_within_rounding_are_a_tie_and_the_first_listed_wins(monkeypatch):
    from graphmodels.models.base import TIE_RTOL, _lowest

    assert _lowest([1.0, 1.0 - 0.5 * TIE_RTOL]) == 0  # rounding is no reason to switch
    assert _lowest([1.0, 1.0 - 2 * TIE_RTOL]) == 1
    assert _lowest([1.0, np.nan, 0.5]) == 1  # as np.argmin: the first NaN
    # A later candidate best, an earlier one within the tolerance of it but not of the first: the
    # earlier one wins, though its tables were not the ones kept while scoring; they are refitted.
    X, y = gm.datasets.load("car", return_X_y=True)
    candidates = ["laplace", "bdeu(5)", "bdeu(50)"]
    scores = iter([(1.0, 0.1), (1.0 - 0.6 * TIE_RTOL, 0.1), (1.0 - 1.2 * TIE_RTOL, 0.1)])
    monkeypatch.setattr(LeaveOneOutScorer, "score", lambda self, joint, pseudo: next(scores))
    model = gm.TAN(estimator=LeaveOneOutSelection(candidates)).fit(X, y)
    assert model.estimator_ == get_estimator("bdeu(5)")
    direct = gm.TAN(estimator="bdeu(5)").fit(X, y)
    np.testing.assert_allclose(model.predict_proba(X), direct.predict_proba(X), rtol=1e-12)


def test_candidates_of_one_selection_hash_each_table_once(monkeypatch):
    from graphmodels.estimators import selection

    hashed = []
    monkeypatch.setattr(selection, "table_key", lambda counts: hashed.append(1) or (np.shape(counts), b"k"))
    keys: dict = {}
    table = np.array([[3.0, 1.0], [0.0, 2.0]])
    first = selection.RememberedPseudoCounts(gm.estimators.Dirichlet(1.0), keys)
    second = selection.RememberedPseudoCounts(gm.estimators.BDeu(2.0), keys)
    np.testing.assert_allclose(first.pseudo_counts(table), np.ones((2, 2)))
    np.testing.assert_allclose(second.pseudo_counts(table), np.full((2, 2), 0.5))
    assert len(hashed) == 1  # the second candidate found the digest the first had made
    selection.RememberedPseudoCounts(gm.estimators.Dirichlet(1.0)).pseudo_counts(table)
    assert len(hashed) == 2  # without shared keys, its own


def test_views_of_a_cached_table_share_one_digest():
    from graphmodels.estimators.selection import _identity
    from graphmodels.stats import CountingEngine

    codes = np.random.default_rng(0).integers(0, 3, (50, 4))
    engine = CountingEngine(codes, [3, 3, 3, 3])
    first, again = engine.counts([2, 0, 1, 3]), engine.counts([2, 0, 1, 3])  # transposed views, new each call
    assert first is not again
    assert _identity(first)[1] == _identity(again)[1]
    assert _identity(first)[1] != _identity(engine.counts([0, 2, 1, 3]))[1]  # another view of the same table
    # A view of an array that can change is only itself.
    view = np.zeros((3, 3)).T
    owner, key = _identity(view)
    assert owner is view and key == (id(view),)
