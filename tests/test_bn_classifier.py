"""BNClassifier: the candidate chosen by inner cross-validation, refitted as an ordinary model (issue 27)."""

import numpy as np
import pandas as pd
import pytest

import graphmodels as gm
from graphmodels.estimators import Discriminative, LeaveOneOutSelection
from graphmodels.estimators.discriminative import inner_folds
from graphmodels.models import load_model

CLIP = 1e-15


def _frame(n=240, seed=0):
    """Three classes, a chain a -> b given the class, a noise column; every state in every inner fold."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    a = np.where(rng.random(n) < 0.7, y, rng.integers(0, 3, n))
    b = np.where(rng.random(n) < 0.7, (a + y) % 3, rng.integers(0, 3, n))
    noise = rng.integers(0, 2, n)
    X = pd.DataFrame({"a": a, "b": b, "noise": noise}).astype(str)
    return X, pd.Series(np.array(["x", "y", "z"])[y], name="class")


@pytest.fixture(scope="module")
def generative_choice():
    X, y = _frame()
    model = gm.BNClassifier(structures=["nb", "tan", "kdb-2", "aode"], discriminative=False).fit(X, y)
    return X, y, model


def _held_out(model_of_fold, X, y):
    """Each candidate's inner cross-validated log-loss and error, recomputed through the public API."""
    labels = np.searchsorted(np.unique(y), y.to_numpy())
    rows, folds = inner_folds(labels, 3, 5)  # BNClassifier: 5 folds from 200 rows
    assert len(rows) == len(y)
    losses, errors = np.zeros(len(y)), np.zeros(len(y))
    for k in range(folds.max() + 1):
        train, test = rows[folds != k], rows[folds == k]
        model = model_of_fold().fit(X.iloc[train], y.iloc[train])
        proba = model.predict_proba(X.iloc[test])
        losses[test] = -np.log(np.clip(proba[np.arange(len(test)), labels[test]], CLIP, 1))
        errors[test] = np.argmax(proba, axis=1) != labels[test]
    return losses.mean(), errors.mean()


def test_the_choice_is_the_candidate_with_the_best_held_out_score(generative_choice):
    X, y, model = generative_choice
    table = model.selection_
    assert table["structure"].tolist() == ["nb", "tan", "kdb-2", "aode"]
    assert (table["folds"] == 5).all() and table["parameterization"].eq("generative").all()
    for row in table.itertuples():
        # The folds fit the prior that leave-one-out chose on every row; the structure is learned again.
        candidate = model.candidate(row.structure)
        prior = candidate.fit(X, y).estimator_
        if isinstance(gm.estimators.get_estimator(candidate.estimator), LeaveOneOutSelection):
            candidate.set_params(estimator=LeaveOneOutSelection([prior]))
        log_loss, error = _held_out(lambda c=candidate: gm.models.clone_model(c), X, y)
        assert row.log_loss == pytest.approx(log_loss, rel=1e-9), row.candidate
        assert row.error == pytest.approx(error, abs=1e-12), row.candidate
    assert table["chosen"].sum() == 1
    assert table.loc[table["chosen"], "log_loss"].item() == table["log_loss"].min()


def test_the_fitted_model_is_a_direct_fit_of_the_chosen_candidate(generative_choice):
    X, y, model = generative_choice
    chosen = model.selection_[model.selection_["chosen"]].iloc[0]
    direct = model.candidate(chosen["structure"]).fit(X, y)
    assert type(model.model_) is type(direct) and repr(model.model_) == repr(direct)
    np.testing.assert_array_equal(model.predict_proba(X), direct.predict_proba(X))
    np.testing.assert_array_equal(model.predict(X), direct.predict(X))
    assert model.structure_ is model.model_.structure_
    assert sorted(model.structure_.edges) == sorted(direct.structure_.edges)


@pytest.mark.parametrize("n_repeats", ["auto", 1])
def test_below_200_rows_each_loss_is_the_mean_over_three_repetitions_of_ten_folds(n_repeats):
    from graphmodels.models.bn_classifier import scored_folds

    X, y = _frame(n=120, seed=2)
    model = gm.BNClassifier(structures=["nb", "tan"], discriminative=False, n_repeats=n_repeats).fit(X, y)
    repeats = 3 if n_repeats == "auto" else 1
    labels = np.searchsorted(np.unique(y), y.to_numpy())
    table = model.selection_
    assert (table["folds"] == 10 * repeats).all()
    for row in table.itertuples():
        candidate = model.candidate(row.structure)
        candidate.set_params(estimator=LeaveOneOutSelection([candidate.fit(X, y).estimator_]))
        losses = np.zeros((repeats, len(y)))
        for r in range(repeats):
            for train, test in scored_folds(labels, 3, 10, seed=r):
                proba = gm.models.clone_model(candidate).fit(X.iloc[train], y.iloc[train]).predict_proba(X.iloc[test])
                losses[r, test] = -np.log(np.clip(proba[np.arange(len(test)), labels[test]], CLIP, 1))
        assert row.log_loss == pytest.approx(losses.mean(), rel=1e-9), row.candidate
    assert table.loc[table["chosen"], "log_loss"].item() == table["log_loss"].min()


def test_a_discriminative_choice_is_refitted_at_its_penalty():
    # Five copies of one noisy attribute: naive Bayes counts its evidence five times and is
    # overconfident; its refit (logistic regression) wins by far, at a penalty of the grid.
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 400)
    a = np.where(rng.random(400) < 0.8, y, 1 - y)
    X = pd.DataFrame({f"a{i}": a for i in range(5)}).astype(str)
    model = gm.BNClassifier(structures=["nb"], penalty_grid=(1.0, 0.1)).fit(X, y)
    chosen = model.selection_[model.selection_["chosen"]].iloc[0]
    assert chosen["parameterization"] == "discriminative" and chosen["penalty"] in (1.0, 0.1)
    generative = model.selection_.query("parameterization == 'generative'")["log_loss"].item()
    assert chosen["log_loss"] < generative - 0.05
    assert model.model_.estimator_ == Discriminative(penalty=chosen["penalty"])
    direct = gm.NaiveBayes(estimator=Discriminative(penalty=chosen["penalty"])).fit(X, y)
    np.testing.assert_array_equal(model.predict_proba(X), direct.predict_proba(X))
    # The refit's held-out loss at a penalty is that of the refit on the fold's rows, up to
    # the inner fits' tolerance (each fold walks the path from the stronger penalty).
    for row in model.selection_.query("parameterization == 'discriminative' and folds == 5").itertuples():
        prior = gm.NaiveBayes().fit(X, y).estimator_
        estimator = Discriminative(penalty=row.penalty, generative=LeaveOneOutSelection([prior]))
        log_loss, _ = _held_out(lambda e=estimator: gm.NaiveBayes(estimator=e), X, pd.Series(y))
        assert row.log_loss == pytest.approx(log_loss, abs=2e-3)


@pytest.mark.parametrize("structure", ["nb", "tan", "kdb-2", "skdb"])
def test_the_chosen_structures_generative_fit_refitted_equals_a_discriminative_fit(structure):
    # BNClassifier refits the generative fit it made on every row instead of learning the structure again.
    import copy

    from graphmodels.models.base import training_counts

    X, y = _frame()
    model = gm.BNClassifier()
    counts = training_counts(X, y)
    refitted = copy.deepcopy(model.candidate(structure).fit_counts(counts))
    refitted.set_params(estimator=model.candidate(structure, 0.1).estimator)
    refitted._refit_discriminatively(counts.engine, refitted.estimator)
    direct = model.candidate(structure, 0.1).fit_counts(counts)
    assert repr(refitted) == repr(direct) and refitted.estimator_ == direct.estimator_
    assert (
        refitted.generative_estimator_ == direct.generative_estimator_ and refitted.penalty_ == direct.penalty_ == 0.1
    )
    assert sorted(refitted.structure_.edges) == sorted(direct.structure_.edges)
    np.testing.assert_array_equal(refitted.predict_proba(X), direct.predict_proba(X))


def test_a_refit_must_beat_its_generative_tables_by_one_standard_error():
    # Pure noise: no refit is better than the generative tables by more than its standard error.
    rng = np.random.default_rng(4)
    X = pd.DataFrame({f"a{i}": rng.integers(0, 3, 300) for i in range(4)}).astype(str)
    y = rng.integers(0, 2, 300)
    model = gm.BNClassifier(structures=["nb"], penalty_grid=(10.0, 1.0)).fit(X, y)
    assert model.selection_.loc[model.selection_["chosen"], "parameterization"].item() == "generative"


def test_save_load_draw_display_and_questions(generative_choice, tmp_path):
    X, y, model = generative_choice
    for suffix in (".npz", ".json"):
        path = tmp_path / f"model{suffix}"
        model.save(path)
        again = load_model(path)
        np.testing.assert_array_equal(again.predict_proba(X), model.predict_proba(X))
        pd.testing.assert_frame_equal(again.selection_, model.selection_)
        assert type(again.model_) is type(model.model_) and repr(again.model_) == repr(model.model_)
    from graphmodels.plotting import draw_network

    ax = draw_network(model)
    chosen = model.selection_.loc[model.selection_["chosen"], "candidate"].item()
    assert ax.get_title() == f"BNClassifier: {chosen}" and ax.figure.axes[0] is ax
    html = model._repr_html_()
    assert "<svg" in html and "candidates" in html and f"{chosen}: " in html
    evidence = {"a": "1"}
    pd.testing.assert_series_equal(
        model.query("class", evidence=evidence), model.model_.query("class", evidence=evidence)
    )
    ours, theirs = model.map_query(["class"], evidence=evidence), model.model_.map_query(["class"], evidence=evidence)
    assert ours.states == theirs.states and ours.probability == theirs.probability
    pd.testing.assert_frame_equal(model.cpd("a"), model.model_.cpd("a"))


def test_a_candidate_beyond_max_cells_is_left_out_with_a_note():
    X, y = _frame(n=120, seed=5)
    model = gm.BNClassifier(structures=["nb", "a2de"], discriminative=False, max_cells=60).fit(X, y)
    table = model.selection_.set_index("structure")
    assert table.loc["a2de", "folds"] == 0 and np.isnan(table.loc["a2de", "log_loss"])
    assert "max_cells" in table.loc["a2de", "note"]
    assert table.loc["nb", "chosen"]


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"structures": ["nb", "forest"]}, "`structures`"),
        ({"structures": []}, "`structures`"),
        ({"penalty_grid": [-1.0]}, "`penalty_grid`"),
        ({"n_folds": 1}, "`n_folds`"),
        ({"n_repeats": 0}, "`n_repeats`"),
        ({"n_repeats": "twice"}, "`n_repeats`"),
        ({"estimator": "discriminative"}, "generative prior of its candidates"),
    ],
)
def test_bad_settings_are_refused_by_name(params, message):
    X, y = _frame(n=60)
    with pytest.raises(ValueError, match=message):
        gm.BNClassifier(**params).fit(X, y)


def test_cli_compare_lists_and_runs_it(capsys):
    from graphmodels.cli import main

    assert main(["compare", "--help"]) == 0
    assert "bnc" in capsys.readouterr().out.replace("\n", " ").split("among ")[1].split("(default")[0]
    assert main(["compare", "lenses", "--models", "bnc", "nb", "--folds", "2", "--repeats", "1", "--quiet"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.split()[:1] == ["bnc"]]
    assert len(rows) == 1, "compare prints one row for bnc"


def _naive_bayes_path_folds(n_folds):
    """Naive Bayes's penalty-path folds on 120 rows: (folds, class codes, weights, scored rows)."""
    from graphmodels.estimators import discriminative as module

    X, y = _frame(n=120, seed=7)
    counts = gm.models.training_counts(X, y)
    codes, weights = counts.engine.rows()
    labels = codes[:, -1].astype(np.int64)
    rows, fold_of = inner_folds(labels, 3, n_folds)
    folds = []
    for k in range(n_folds):
        train, test = rows[fold_of != k], rows[fold_of == k]
        model = gm.NaiveBayes().fit(X.iloc[train], y.iloc[train])
        tables, owners = model._family_tables()
        folds.append(
            module.path_fold(
                model.class_log_prior_, tables, model._family_index(codes[train, :-1]), labels[train],
                weights[train], model._family_index(codes[test, :-1]), test, Discriminative(), owners,
            )
        )  # fmt: skip
    return folds, labels, weights, rows


def test_penalty_path_keeps_the_warm_start_of_the_first_minimum(monkeypatch):
    # Tied held-out losses (mushroom's folds: every row at 0 nats for two penalties) made the last
    # tied penalty's solution the warm start while np.nanargmin picks the first: KeyError in the fit.
    from graphmodels.estimators import discriminative as module

    folds, labels, weights, rows = _naive_bayes_path_folds(3)
    monkeypatch.setattr(module, "_row_log_loss", lambda scores, y: np.zeros(len(y)))
    path = module.penalty_path(folds, [10.0, 1.0, 0.1], labels, weights, rows, np.ones(len(labels)), 50, 1e-4)
    assert np.all(path.held_out == 0.0)
    assert list(path.last_solution) == [int(np.nanargmin(path.held_out))] == [0]


def test_a_path_raced_out_at_every_penalty_stops_past_its_minimum(monkeypatch):
    # Every penalty is clearly worse than a perfect baseline (raced out after 3 of 5 folds); along
    # the path 1 beats 10 and 0.1 is worse than 1 on the same rows: 0.01 is never fitted.
    from graphmodels.estimators import discriminative as module

    folds, labels, weights, rows = _naive_bayes_path_folds(5)
    loss_at = {10.0: 1.0, 1.0: 0.8, 0.1: 0.9, 0.01: 0.1}
    penalty = []
    monkeypatch.setattr(
        module, "_minimize", lambda problem, start, max_iter, gtol: penalty.append(problem.penalty) or start
    )
    monkeypatch.setattr(module, "_row_log_loss", lambda scores, y: np.full(len(y), loss_at[penalty[-1]]))
    grid = [10.0, 1.0, 0.1, 0.01]
    path = module.penalty_path(folds, grid, labels, weights, rows, np.zeros(len(labels)), 50, 1e-4)
    assert path.folds.tolist() == [3, 3, 3, 0] and np.isnan(path.held_out).all()
    assert penalty == [10.0] * 3 + [1.0] * 3 + [0.1] * 3


def test_a_penalty_behind_its_paths_best_is_dropped_and_ends_the_path(monkeypatch):
    # Penalty 0.1 trails penalty 1 by exactly 0.1 on every row (no spread: out after 3 folds at one
    # standard error) while the rival, better than both, is too noisy to race either out.
    from graphmodels.estimators import discriminative as module

    folds, labels, weights, rows = _naive_bayes_path_folds(5)
    rng = np.random.default_rng(0)
    signs = np.resize([-1.0, 1.0], len(labels))  # mean 0 over the rows: the rival's mean is below 1's
    noise, rival = 0.3 * rng.permutation(signs), 0.78 + 0.6 * rng.permutation(signs)
    level = {10.0: 0.9, 1.0: 0.8, 0.1: 0.9, 0.01: 0.1}
    test_of = {id(fold.problem): fold.test for fold in folds}
    now = {}

    def minimize(problem, start, max_iter, gtol):
        now.update(penalty=problem.penalty, test=test_of[id(problem)])
        return start

    monkeypatch.setattr(module, "_minimize", minimize)
    monkeypatch.setattr(module, "_row_log_loss", lambda scores, y: level[now["penalty"]] + noise[now["test"]])
    grid = [10.0, 1.0, 0.1, 0.01]
    baseline = np.full(len(labels), 2.0)
    kept = module.penalty_path(folds, grid, labels, weights, rows, baseline, 50, 1e-4, rival=rival)
    ended = module.penalty_path(folds, grid, labels, weights, rows, baseline, 50, 1e-4, rival=rival, path_race_z=1.0)
    assert kept.folds.tolist() == [5, 5, 5, 0]  # 0.1 scored on every fold, then the path stops
    assert ended.folds.tolist() == [5, 5, 3, 0]
    np.testing.assert_array_equal(kept.held_out[:2], ended.held_out[:2])


def test_a_structure_without_refits_races_against_the_best_so_far():
    # The class is the parity of three columns: KDB(k=2) holds it exactly, AODE (one superparent) cannot.
    rng = np.random.default_rng(1)
    bits = rng.integers(0, 2, (300, 3))
    X = pd.DataFrame(bits, columns=["a", "b", "c"]).astype(str)
    y = pd.Series(np.where(bits.sum(axis=1) % 2 == 1, "odd", "even"), name="parity")
    table = gm.BNClassifier(structures=["kdb-2", "aode"], discriminative=False).fit(X, y).selection_
    kdb, aode = table.iloc[0], table.iloc[1]
    assert kdb["folds"] == 5 and kdb["chosen"]
    assert 3 <= aode["folds"] < 5 and np.isnan(aode["log_loss"]) and "race" in aode["note"]


def test_a_raced_out_structure_fits_only_the_folds_its_refits_reach(monkeypatch):
    import graphmodels.models.bn_classifier as bnc

    # Parity of three columns: KDB(k=2) holds it; naive Bayes, generative or refitted, cannot.
    rng = np.random.default_rng(1)
    bits = rng.integers(0, 2, (300, 3))
    X = pd.DataFrame(bits, columns=["a", "b", "c"]).astype(str)
    y = pd.Series(np.where(bits.sum(axis=1) % 2 == 1, "odd", "even"), name="parity")
    fitted = []
    original = bnc._FoldFits.model

    def record(self, k):
        if self.models[k] is None:
            fitted.append((type(self.candidate).__name__, k))
        return original(self, k)

    monkeypatch.setattr(bnc._FoldFits, "model", record)
    table = gm.BNClassifier(structures=["kdb-2", "nb"], penalty_grid=(1.0, 0.1)).fit(X, y).selection_
    nb = table[table["structure"] == "nb"]
    generative, refits = nb.iloc[0], nb.iloc[1:]
    assert table.loc[table["chosen"], "structure"].item() == "kdb-2"
    # Raced out after 3 or 4 of the 5 folds, and so is every penalty: no fold beyond them is fitted.
    assert 3 <= generative["folds"] < 5 and "race" in generative["note"] and np.isnan(generative["log_loss"])
    assert (refits["folds"] < 5).all() and refits["log_loss"].isna().all()
    assert generative["folds"] == max(refits["folds"].max(), 3)
    assert sorted(k for name, k in fitted if name == "NaiveBayes") == list(range(generative["folds"]))


def test_the_paths_run_best_generative_structure_first(monkeypatch):
    import graphmodels.models.bn_classifier as bnc

    order = []
    original = bnc.BNClassifier._refit_options

    def record(self, name, *args):
        order.append(name)
        return original(self, name, *args)

    monkeypatch.setattr(bnc.BNClassifier, "_refit_options", record)
    X, y = _frame()
    table = gm.BNClassifier(structures=["nb", "tan", "kdb-2"], penalty_grid=(1.0,)).fit(X, y).selection_
    generative = table[table["parameterization"] == "generative"]
    assert table["structure"].drop_duplicates().tolist() == ["nb", "tan", "kdb-2"]  # the table keeps its order
    expected = generative.sort_values("log_loss", na_position="last", kind="stable")["structure"].tolist()
    assert order == expected and order != ["nb", "tan", "kdb-2"]


def test_a_fold_refused_on_the_path_leaves_the_structure_out_with_a_note(monkeypatch):
    # Naive Bayes's generative tables are raced out after 2 folds; its path then needs the third
    # fold's fit, which is refused (as a fold whose structure needs tables beyond max_cells would be).
    import graphmodels.models.bn_classifier as bnc
    from graphmodels.stats.counting import TableTooLargeError

    monkeypatch.setattr(bnc, "out_of_the_race", lambda *args: args[5] >= 2)
    fits = {"NaiveBayes": 0}
    original = bnc.clone_model

    class Refusing:
        def __init__(self, model):
            self.model = model

        def fit_counts(self, counts):
            name = type(self.model).__name__
            fits[name] = fits.get(name, 0) + 1
            if name == "NaiveBayes" and fits[name] == 3:
                raise TableTooLargeError("a table of 10 cells exceeds max_cells")
            return self.model.fit_counts(counts)

    monkeypatch.setattr(bnc, "clone_model", lambda model: Refusing(original(model)))
    rng = np.random.default_rng(1)
    bits = rng.integers(0, 2, (300, 3))
    X = pd.DataFrame(bits, columns=["a", "b", "c"]).astype(str)
    y = pd.Series(np.where(bits.sum(axis=1) % 2 == 1, "odd", "even"), name="parity")
    table = gm.BNClassifier(structures=["kdb-2", "nb"], penalty_grid=(1.0,)).fit(X, y).selection_
    nb = table[table["structure"] == "nb"]
    assert nb["note"].str.startswith("left out: a table of 10 cells").all() and nb["log_loss"].isna().all()
    assert nb.iloc[0]["folds"] == 2 and table.loc[table["chosen"], "structure"].item() == "kdb-2"


def test_the_race_is_one_standard_error_when_the_folds_are_repeated(monkeypatch):
    import graphmodels.models.bn_classifier as bnc

    seen = set()
    original = bnc.out_of_the_race

    def record(*args):
        seen.add(args[-1])
        return original(*args)

    monkeypatch.setattr(bnc, "out_of_the_race", record)
    X, y = _frame(n=120, seed=2)
    gm.BNClassifier(structures=["nb", "tan"], discriminative=False).fit(X, y)  # below 200 rows: 3 repeats
    assert seen == {bnc.REPEATED_RACE_Z} and bnc.REPEATED_RACE_Z == 1.0
    seen.clear()
    gm.BNClassifier(structures=["nb", "tan"], discriminative=False, n_repeats=1).fit(X, y)
    assert seen == {bnc.RACE_Z} == {2.5}


def test_the_inner_fits_tolerance_grows_as_one_over_the_rows_below_a_thousand(monkeypatch):
    import graphmodels.models.bn_classifier as bnc
    from graphmodels.estimators.discriminative import INNER_GTOL

    seen = []
    original = bnc.penalty_path

    def record(folds, grid, y, weights, scored, baseline, max_iter, gtol, **kwargs):
        seen.append((len(folds[0].problem.y), gtol))
        return original(folds, grid, y, weights, scored, baseline, max_iter, gtol, **kwargs)

    monkeypatch.setattr(bnc, "penalty_path", record)
    for n in (120, 1400):
        X, y = _frame(n=n)
        gm.BNClassifier(structures=["nb"], penalty_grid=(1.0,), n_repeats=1).fit(X, y)
    (small_rows, small), (_, large) = seen
    assert large == INNER_GTOL  # 1,120 training rows in a fold
    assert small == pytest.approx(INNER_GTOL * 1000 / 108) and small_rows <= 108  # 108 (merged duplicates: fewer)


def test_the_race_rule_by_hand():
    from graphmodels.estimators.discriminative import out_of_the_race

    def rows(loss):
        return np.flatnonzero(np.isfinite(loss))

    weights = np.ones(10)
    rival = np.full(10, 0.5)
    loss = np.full(10, np.nan)
    loss[:6] = [0.9, 1.0, 1.1, 0.9, 1.0, 1.1]  # 0.5 worse, standard error 0.082/sqrt(6): out after 3 of 5 folds
    assert out_of_the_race(loss, rival, weights, rows(loss), 10, 3, 5)
    assert not out_of_the_race(loss, rival, weights, rows(loss), 10, 2, 5)  # too few folds
    assert not out_of_the_race(loss, rival, weights, rows(loss), 10, 5, 5)  # complete: nothing left to skip
    loss[:6] = [0.0, 1.0, 0.0, 1.0, 0.0, 1.1]  # mean 0.517 worse by 0.017 only, spread 0.5: stays
    assert not out_of_the_race(loss, rival, weights, rows(loss), 10, 3, 5)
    # Scored on fewer than a third of the rows: too early, however bad.
    assert not out_of_the_race(np.full(10, 9.0), rival, weights, np.arange(3), 10, 3, 5)
    # 0.1 worse with a standard error of 0.05 (2 errors): out at z = 1, in at the default 2.5.
    loss[:6] = 0.6 + 0.05 * np.sqrt(6) * np.array([1, -1, 1, -1, 1, -1])
    assert out_of_the_race(loss, rival, weights, rows(loss), 10, 3, 5, 1.0)
    assert not out_of_the_race(loss, rival, weights, rows(loss), 10, 3, 5)


def test_inner_folds_fit_on_every_other_row_and_hold_out_at_most_what_is_scored():
    from graphmodels.models.bn_classifier import scored_folds

    y = np.repeat([0, 1, 2], [50, 30, 20])
    # Up to max_scored rows: the folds of inner_folds, every one held out, fitted on all the others.
    folds = scored_folds(y, 3, 5, max_scored=100)
    rows, fold_of = inner_folds(y, 3, 5)
    assert len(folds) == 5
    for k, (train, test) in enumerate(folds):
        np.testing.assert_array_equal(test, rows[fold_of == k])
        np.testing.assert_array_equal(train, np.setdiff1d(np.arange(100), test))
    # Beyond: only the first folds that hold max_scored rows, each still fitted on every other row.
    folds = scored_folds(y, 3, 5, max_scored=30)
    assert len(folds) == 2 and sum(len(test) for _, test in folds) == 40
    for train, test in folds:
        assert len(train) == 80 and not np.intersect1d(train, test).size
        assert np.bincount(y[test], minlength=3).tolist() == [10, 6, 4]  # stratified


def test_a_large_set_scores_one_fold_fitted_on_four_fifths_of_the_rows(monkeypatch):
    import graphmodels.models.bn_classifier as bnc

    monkeypatch.setattr(bnc, "MAX_SCORED_ROWS", 40)
    X, y = _frame(n=240)
    with monkeypatch.context() as patch:
        seen = []
        original = bnc.BNClassifier._fold_counts

        def record(self, counts, codes, weights, rows):
            seen.append(len(rows))
            return original(self, counts, codes, weights, rows)

        patch.setattr(bnc.BNClassifier, "_fold_counts", record)
        model = gm.BNClassifier(structures=["nb"], discriminative=False).fit(X, y)
    assert seen == [192]  # one fold of 48 rows held out (>= 40), fitted on the other 192
    assert model.selection_["folds"].tolist() == [1] and np.isfinite(model.selection_["log_loss"]).all()


def test_a_selective_kdb_fold_with_another_sub_model_chooses_its_own_prior(monkeypatch):
    import graphmodels.models.bn_classifier as bnc
    from graphmodels.models.bn_classifier import scored_folds

    # monk2: the sub-model chosen on every row (k = 5) differs from several folds' (k = 2 or 4),
    # and the prior chosen for it (BDeu(5)) is far from theirs.
    X, y = gm.datasets.load("monk2", return_X_y=True)
    X, y = X.iloc[:480], y.iloc[:480]
    fold_models = {}
    original = bnc._FoldFits.model

    def record(self, k):
        model = original(self, k)
        if isinstance(model, gm.SelectiveKDB):
            fold_models[k] = model
        return model

    monkeypatch.setattr(bnc._FoldFits, "model", record)
    model = gm.BNClassifier(structures=["skdb", "nb"], discriminative=False).fit(X, y)
    on_every_row = gm.SelectiveKDB().fit(X, y)
    fixed = gm.SelectiveKDB(estimator=on_every_row.estimator_, grid_estimator="laplace")
    labels = np.searchsorted(np.unique(y), y.to_numpy())
    losses, own = np.zeros(len(y)), 0
    for k, (train, test) in enumerate(scored_folds(labels, 2, 5)):
        fold = gm.models.clone_model(fixed).fit(X.iloc[train], y.iloc[train])
        same = fold.k_ == on_every_row.k_ and np.array_equal(fold.support_, on_every_row.support_)
        inner = fold_models[k]
        if same:  # the prior chosen on every row, not chosen again
            assert inner.estimator_ == on_every_row.estimator_ and not hasattr(inner, "estimator_selection_")
        else:  # its own choice, as SelectiveKDB() makes it on these rows
            fold, own = gm.SelectiveKDB().fit(X.iloc[train], y.iloc[train]), own + 1
            assert inner.estimator_ == fold.estimator_ and hasattr(inner, "estimator_selection_")
        proba = fold.predict_proba(X.iloc[test])
        losses[test] = -np.log(np.clip(proba[np.arange(len(test)), labels[test]], CLIP, 1))
    assert 1 <= own < 5
    skdb = model.selection_.iloc[0]
    assert skdb["structure"] == "skdb" and skdb["log_loss"] == pytest.approx(losses.mean(), rel=1e-9)


def test_from_1000_rows_the_folds_keep_the_structure_learned_on_every_row(monkeypatch):
    import graphmodels.models.bn_classifier as bnc
    from graphmodels.models.bn_classifier import STRUCTURE_KEPT_ROWS, scored_folds

    # car: 1,728 rows; KDB(k=2)'s parents learned on every row differ from those of two of its three scored folds.
    X, y = gm.datasets.load("car", return_X_y=True)
    assert len(y) >= STRUCTURE_KEPT_ROWS
    settings = dict(structures=["kdb-2"], discriminative=False, estimator="laplace")
    model = gm.BNClassifier(**settings).fit(X, y)
    kdb = gm.KDB(k=2, estimator="laplace").fit(X, y)
    parents = {name: [p for p in kdb.structure_.predecessors(name) if p != y.name] for name in X.columns}
    # Each fold's held-out loss by hand: the parents of every row, Laplace tables counted on the fold's rows.
    classes = np.unique(y)
    labels = np.searchsorted(classes, y.to_numpy())
    codes = {name: np.searchsorted(np.unique(X[name]), X[name].to_numpy()) for name in X.columns}
    losses, relearned = np.full(len(y), np.nan), 0
    for train, test in scored_folds(labels, len(classes), 5):
        class_counts = np.bincount(labels[train], minlength=len(classes))
        scores = np.tile(np.log((class_counts + 1) / (len(train) + len(classes))), (len(test), 1))
        for name in X.columns:
            family = [*parents[name], name]
            table = np.zeros((len(classes), *(codes[v].max() + 1 for v in family)))
            np.add.at(table, (labels[train], *(codes[v][train] for v in family)), 1)
            log_p = np.log((table + 1) / (table.sum(axis=-1, keepdims=True) + table.shape[-1]))
            scores += log_p[(slice(None), *(codes[v][test] for v in family))].T
        log_proba = scores - np.log(np.exp(scores).sum(axis=1, keepdims=True))
        losses[test] = -log_proba[np.arange(len(test)), labels[test]]
        own = gm.KDB(k=2, estimator="laplace").fit(X.iloc[train], y.iloc[train])
        relearned += set(own.structure_.edges()) != set(kdb.structure_.edges())
    assert relearned >= 1  # a fold that learned its own parents would have scored another structure
    row = model.selection_.iloc[0]
    # The rows of the folds held out (MAX_SCORED_ROWS: not every fold).
    assert row["structure"] == "kdb-2" and row["log_loss"] == pytest.approx(np.nanmean(losses), rel=1e-9)
    # The folds' refits leave the fit on every row, which becomes model_, as a direct fit.
    np.testing.assert_array_equal(model.predict_proba(X), kdb.predict_proba(X))
    # Below STRUCTURE_KEPT_ROWS the folds learn their own parents: another loss.
    monkeypatch.setattr(bnc, "STRUCTURE_KEPT_ROWS", len(y) + 1)
    again = gm.BNClassifier(**settings).fit(X, y)
    assert again.selection_.iloc[0]["log_loss"] != pytest.approx(np.nanmean(losses), rel=1e-6)


def test_the_structure_is_learned_again_where_the_attributes_have_many_states_for_the_rows(monkeypatch):
    import graphmodels.models.bn_classifier as bnc
    from graphmodels.models.bn_classifier import MAX_KEPT_STRUCTURE_BIAS, _structure_kept

    # The bias bound by hand: (r_i - 1)(r_j - 1) r_class / (2 n) for the two attributes of the most states.
    assert _structure_kept(1382, [4, 4, 3, 3, 3, 4, 4])  # car: 3 * 3 * 4 / 2764 = 0.013
    assert not _structure_kept(999, [2, 2, 2])  # below STRUCTURE_KEPT_ROWS
    assert not _structure_kept(1200, [30, 30, 5, 2])  # 29 * 29 * 2 / 2400 = 0.70
    n = int(np.ceil(29 * 29 * 2 / (2 * MAX_KEPT_STRUCTURE_BIAS)))
    assert _structure_kept(n, [30, 30, 2]) and not _structure_kept(n - 1, [30, 30, 2])
    # 1,200 rows of four 30-state noise columns: the folds learn their own trees.
    rng = np.random.default_rng(0)
    X = pd.DataFrame({f"x{j}": rng.integers(0, 30, 1200).astype(str) for j in range(4)})
    y = pd.Series(rng.integers(0, 2, 1200).astype(str), name="class")
    kept = []
    original = bnc._FoldFits.model

    def record(self, k):
        kept.append(self.kept is not None)
        return original(self, k)

    monkeypatch.setattr(bnc._FoldFits, "model", record)
    gm.BNClassifier(structures=["tan"], discriminative=False, estimator="laplace").fit(X, y)
    assert kept and not any(kept)
    kept.clear()
    monkeypatch.setattr(bnc, "MAX_KEPT_STRUCTURE_BIAS", 1.0)
    gm.BNClassifier(structures=["tan"], discriminative=False, estimator="laplace").fit(X, y)
    assert kept and all(kept)
