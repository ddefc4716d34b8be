"""Resampling protocols, metrics and the comparison table."""

import importlib
import io
import math
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

import graphmodels as gm
from graphmodels.evaluation import (
    RepeatedRandomSplit,
    RepeatedStratifiedKFold,
    compare,
    cross_validate,
    error_rate,
    log_loss,
)
from graphmodels.stats import TableTooLargeError

# The module, which the function `compare` shadows in graphmodels.evaluation.
compare_module = importlib.import_module("graphmodels.evaluation.compare")


@pytest.mark.parametrize("n_splits,n_repeats", [(5, 1), (3, 4)])
def test_stratified_folds_partition_the_rows_and_keep_class_shares(n_splits, n_repeats):
    rng = np.random.default_rng(0)
    y = rng.choice(["a", "b", "c"], p=[0.6, 0.3, 0.1], size=203)
    splitter = RepeatedStratifiedKFold(n_splits=n_splits, n_repeats=n_repeats, random_state=1)
    splits = list(splitter.split(None, y))
    assert len(splits) == splitter.get_n_splits() == n_splits * n_repeats
    for r in range(n_repeats):
        tests = [test for _, test in splits[r * n_splits : (r + 1) * n_splits]]
        # Every row is tested exactly once per repetition.
        np.testing.assert_array_equal(np.sort(np.concatenate(tests)), np.arange(len(y)))
        for train, test in splits[r * n_splits : (r + 1) * n_splits]:
            assert not set(train) & set(test) and len(train) + len(test) == len(y)
            for label in "abc":
                expected = (y == label).sum() / n_splits
                assert abs((y[test] == label).sum() - expected) <= 1
    again = list(RepeatedStratifiedKFold(n_splits=n_splits, n_repeats=n_repeats, random_state=1).split(None, y))
    assert all(np.array_equal(a[1], b[1]) for a, b in zip(splits, again))


def test_random_split_sizes_and_seed():
    splits = list(RepeatedRandomSplit(test_size=0.1, n_repeats=10, random_state=3).split(np.arange(200)))
    assert len(splits) == 10
    assert all(len(test) == 20 and len(train) == 180 for train, test in splits)
    assert len({tuple(test) for _, test in splits}) == 10
    with pytest.raises(ValueError, match="test_size"):
        RepeatedRandomSplit(test_size=1.5)
    with pytest.raises(ValueError, match="n_splits"):
        RepeatedStratifiedKFold(n_splits=1)


def test_metrics_hand_computed():
    # -(log 0.5 + log 0.75) / 2
    assert log_loss(["a", "b"], np.log([[0.5, 0.5], [0.25, 0.75]]), ["a", "b"]) == pytest.approx(
        -(np.log(0.5) + np.log(0.75)) / 2
    )
    assert log_loss(["z"], np.log([[0.5, 0.5]]), ["a", "b"]) == np.inf
    # Clipped as scikit-learn's log_loss: each row costs at most -log(eps).
    assert log_loss(["a", "z"], np.log([[0.5, 0.5], [0.5, 0.5]]), ["a", "b"], eps=1e-15) == pytest.approx(
        (math.log(2) - math.log(1e-15)) / 2
    )
    with np.errstate(divide="ignore"):
        zero = np.log([[1.0, 0.0]])
    assert log_loss(["b"], zero, ["a", "b"], eps=1e-15) == pytest.approx(-math.log(1e-15))
    assert log_loss(["a"], zero, ["a", "b"], eps=1e-15) == 0.0
    # A probability above eps is not touched.
    assert log_loss(["b"], np.log([[0.9, 0.1]]), ["a", "b"], eps=1e-15) == pytest.approx(-math.log(0.1))
    for eps in (0, 1, -0.5):
        with pytest.raises(ValueError, match="`eps` must be in"):
            log_loss(["a"], zero, ["a", "b"], eps=eps)
    assert error_rate([1, 2, 3, 4], [1, 2, 0, 0]) == 0.5
    with pytest.raises(ValueError, match="shape"):
        error_rate([1, 2], [1])


class RecordingDiscretizer:
    """Records the rows it is fitted on, to prove test folds never leak."""

    fitted_on = []

    def get_params(self, deep=True):
        return {}

    def fit(self, X, y=None):
        RecordingDiscretizer.fitted_on.append(set(X.index))
        return self

    def transform(self, X):
        return X


def test_discretizer_is_fitted_on_training_folds_only():
    frame = gm.datasets.load("lenses")
    X, y = frame.drop(columns="class"), frame["class"]
    RecordingDiscretizer.fitted_on = []
    cv = RepeatedStratifiedKFold(n_splits=3, n_repeats=1, random_state=0)
    folds = cross_validate(gm.NaiveBayes(), X, y, cv=cv, discretizer=RecordingDiscretizer())
    assert len(RecordingDiscretizer.fitted_on) == 3
    for fitted, (_, test) in zip(RecordingDiscretizer.fitted_on, cv.split(X, y)):
        assert not fitted & set(X.index[test])
    assert set(folds.columns) >= {"log_loss", "error", "fit_time", "predict_time", "n_train", "n_test"}


def test_compare_returns_tidy_results_summary_and_ranks():
    cv = RepeatedStratifiedKFold(n_splits=3, n_repeats=2, random_state=0)
    result = compare(["nb", "tan"], ["lenses", "titanic"], cv=cv, verbose=False)
    assert len(result.results) == 2 * 2 * 6
    assert set(result.summary["model"]) == {"nb", "tan"}
    table = result.table("log_loss")
    assert table.shape == (2, 2)
    # Ranks within each data set are 1 and 2, so their averages add up to 3.
    assert result.ranks["log_loss"].sum() == pytest.approx(3.0)
    means = result.results.groupby(["dataset", "model"])["log_loss"].mean()
    assert table.loc["titanic", "nb"] == pytest.approx(means.loc[("titanic", "nb")])


def test_compare_bad_names_are_clear():
    with pytest.raises(ValueError, match="Unknown model 'xgboost'"):
        compare(["xgboost"], ["lenses"], verbose=False)
    with pytest.raises(ValueError, match="lensez"):
        compare(["nb"], ["lensez"], verbose=False)
    with pytest.raises(ValueError, match="discretizer"):
        cross_validate(gm.NaiveBayes(), pd.DataFrame({"a": [1, 2] * 5}), [0, 1] * 5, discretizer="magic")


def test_compare_progress_can_be_silenced(capsys):
    cv = RepeatedStratifiedKFold(n_splits=2, n_repeats=1, random_state=0)
    compare(["nb"], ["lenses"], cv=cv, verbose=True)
    assert "lenses" in capsys.readouterr().err
    compare(["nb"], ["lenses"], cv=cv, verbose=False)
    assert capsys.readouterr().err == ""


def test_evaluate_density_reports_test_log_likelihood():
    frame = gm.datasets.load("car")
    splitter = RepeatedRandomSplit(test_size=0.1, n_repeats=3, random_state=0)
    folds = gm.evaluation.evaluate_density(gm.ChowLiuTree(), frame, cv=splitter)
    assert len(folds) == 3 and (folds["n_test"] == 173).all()
    # Each split's figure is the mean of score_samples on its test rows.
    train, test = next(splitter.split(frame))
    model = gm.ChowLiuTree().fit(frame.iloc[train])
    assert folds["test_log_likelihood"][0] == pytest.approx(model.score_samples(frame.iloc[test]).mean())
    # Car is a full factorial design over 6 attributes: about log(1728) nats of entropy plus the class.
    assert -9.0 < folds["test_log_likelihood"].mean() < -7.0


def _rare_class_data(n_rare, seed=0):
    """60 rows, three binary-ish attributes that track the class; `n_rare` rows of class "rare" last."""
    rng = np.random.default_rng(seed)
    y = np.array(["a", "b"] * ((60 - n_rare) // 2) + ["a"] * ((60 - n_rare) % 2) + ["rare"] * n_rare, dtype=object)
    X = pd.DataFrame(
        {f"x{j}": np.where(rng.random(60) < 0.8, (y == "a").astype(int), rng.integers(0, 3, 60)) for j in range(3)}
    )
    return X, pd.Series(y, name="class")


class ContiguousFolds:
    """Unshuffled, unstratified k-fold (scikit-learn's ``KFold()``): the last rows form the last fold."""

    def __init__(self, n_splits):
        self.n_splits = n_splits

    def get_n_splits(self, X=None, y=None, groups=None):
        return self.n_splits

    def split(self, X, y=None, groups=None):
        rows = np.arange(len(X))
        for test in np.array_split(rows, self.n_splits):
            yield np.setdiff1d(rows, test), test


def test_class_absent_from_a_training_fold_gives_a_finite_clipped_log_loss_and_a_warning():
    # A class with 2 rows under 5 folds: an unstratified splitter puts both in the last test fold.
    X, y = _rare_class_data(2)
    cv = ContiguousFolds(5)
    with pytest.warns(UserWarning, match=r"Class 'rare' \(2 test rows in 1 fold\) is absent from .* of the 5 folds"):
        folds = cross_validate(gm.NaiveBayes(), X, y, cv=cv, verbose=False)
    assert np.isfinite(folds["log_loss"]).all() and folds["log_loss"].std() > 0
    train, test = list(cv.split(X))[-1]
    model = gm.NaiveBayes().fit(X.iloc[train], y.iloc[train])
    assert "rare" not in model.classes_
    log_proba = model.predict_log_proba(X.iloc[test])
    known = y.iloc[test].to_numpy() != "rare"
    # 10 rows scored by the model, 2 rows of "rare" at -log(1e-15) = 34.54 nats each.
    expected = (log_loss(y.iloc[test][known], log_proba[known], model.classes_) * 10 - 2 * math.log(1e-15)) / 12
    assert folds["log_loss"].iloc[-1] == pytest.approx(expected)
    assert folds["log_loss"].iloc[-1] > 2 * 34.5 / 12


def test_stratified_folds_keep_a_two_row_class_in_every_training_fold():
    X, y = _rare_class_data(2)
    with warnings.catch_warnings():
        warnings.filterwarnings("error", message=".*absent from the training rows")
        folds = cross_validate(gm.TAN(), X, y, cv=RepeatedStratifiedKFold(n_splits=5, random_state=0), verbose=False)
    assert np.isfinite(folds["log_loss"]).all()


def test_compare_with_a_class_absent_from_training_folds_is_finite_and_warns_once_per_data_set():
    X, y = _rare_class_data(1)
    frame = X.assign(**{"class": y})
    cv = RepeatedStratifiedKFold(n_splits=5, n_repeats=2, random_state=0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = compare(["nb", "tan", "kdb"], {"rare-set": frame}, cv=cv, verbose=False)
    messages = [str(w.message) for w in caught if "absent from the training rows" in str(w.message)]
    # The single "rare" row is in one test fold per repetition.
    assert messages == [
        "Class 'rare' (2 test rows in 2 folds) is absent from the training rows of some of the 10 folds of data "
        "set 'rare-set': the model gives such test rows probability 0, scored as 1e-15 (34.5 nats each) in the "
        "fold's log-loss. Merge or drop rare classes, or use fewer folds."
    ]
    assert np.isfinite(result.summary[["log_loss", "log_loss_std"]].to_numpy()).all()
    assert (result.summary["log_loss"] < 34.5 / 12 + 1).all()


def test_compare_gives_every_model_the_same_folds_with_a_generator_seed():
    frame = gm.datasets.load("lenses")
    cv = RepeatedStratifiedKFold(n_splits=3, n_repeats=1, random_state=np.random.default_rng(5))
    result = compare({"one": gm.NaiveBayes(), "two": gm.NaiveBayes()}, {"lenses": frame}, cv=cv, verbose=False)
    one, two = (result.results[result.results["model"] == m].reset_index(drop=True) for m in ("one", "two"))
    pd.testing.assert_series_equal(one["log_loss"], two["log_loss"])


class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


def _run_compare(verbose):
    cv = RepeatedStratifiedKFold(n_splits=3, n_repeats=1, random_state=0)
    compare(["nb", "tan"], ["lenses"], cv=cv, verbose=verbose)


@pytest.mark.parametrize("verbose", [None, False])
def test_progress_is_silent_when_stderr_is_not_a_terminal_or_verbose_is_false(verbose, monkeypatch, capsys):
    monkeypatch.setattr(compare_module, "_PROGRESS_DELAY", 0.0)
    _run_compare(verbose)
    assert capsys.readouterr().err == ""
    terminal = FakeTerminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    _run_compare(False)
    assert terminal.getvalue() == ""


def test_progress_on_a_terminal_counts_folds_in_place(monkeypatch):
    monkeypatch.setattr(compare_module, "_PROGRESS_DELAY", 0.0)
    terminal = FakeTerminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    _run_compare(None)
    text = terminal.getvalue()
    assert "\r[1/2] lenses nb: 1/6 folds done, " in text and "\r[2/2] lenses tan: 6/6 folds done, " in text
    assert "s left" in text
    lines = [line.split("\r")[-1] for line in text.split("\n") if line.split("\r")[-1].strip()]
    assert [line.split()[:3] for line in lines] == [["[1/2]", "lenses", "nb"], ["[2/2]", "lenses", "tan"]]
    assert text.endswith(" s)\n")  # the counter is wiped before each line, and nothing follows the last


def test_progress_waits_a_few_seconds_then_shows_what_it_held_back(monkeypatch):
    terminal = FakeTerminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    _run_compare(None)  # a run shorter than the delay shows nothing
    assert terminal.getvalue() == ""
    progress = compare_module._Progress(None, 4)
    progress.line("first model done")
    progress.fold("second")
    assert terminal.getvalue() == ""
    progress.delay = 0.0  # the run has now lasted long enough
    progress.fold("second")
    progress.close()
    assert terminal.getvalue().startswith("first model done\n\rsecond: 2/4 folds done, ")


def test_verbose_cross_validate_writes_a_line_per_fold_to_a_log(capsys):
    frame = gm.datasets.load("lenses")
    cv = RepeatedStratifiedKFold(n_splits=3, random_state=0)
    cross_validate(gm.NaiveBayes(), frame.drop(columns="class"), frame["class"], cv=cv, verbose=True)
    lines = capsys.readouterr().err.splitlines()
    assert [line.split(" log-loss")[0] for line in lines] == [f"NaiveBayes: fold {k}/3" for k in (1, 2, 3)]
    cross_validate(gm.NaiveBayes(), frame.drop(columns="class"), frame["class"], cv=cv)
    assert capsys.readouterr().err == ""


# ----------------------------------------------------------------------------------------------
# a model that cannot fit is reported, not fatal
# ----------------------------------------------------------------------------------------------
class FitFails(gm.NaiveBayes):
    """Naive Bayes whose fit raises on a data set named by its first column, as a model with a bug would."""

    def _fit(self, engine):
        if engine.names[0] == "x0":
            raise RuntimeError("the search did not converge\non this data")
        return super()._fit(engine)


def test_compare_reports_a_model_that_cannot_fit_and_ranks_the_others():
    lenses = gm.datasets.load("lenses")
    X, y = _rare_class_data(0)
    models = {"nb": gm.NaiveBayes(), "a2de": gm.AnDE(n=2, max_cells=200), "buggy": FitFails(), "tan": gm.TAN()}
    cv = RepeatedStratifiedKFold(n_splits=3, n_repeats=1, random_state=0)
    with pytest.warns(compare_module.ModelFailedWarning) as caught:
        result = compare(models, {"lenses": lenses, "gen": (X, y)}, cv=cv, verbose=False)
    # lenses: a2de's memory guard (1,320 cells > 200); gen (3 attributes, 2-3 states): the bug in fit.
    assert sorted(str(w.message).split(" failed")[0] for w in caught) == [
        "Model 'a2de'",
        "Model 'a2de'",
        "Model 'buggy'",
    ]
    summary = result.summary.set_index(["dataset", "model"])
    assert list(result.summary["model"]) == list(models) * 2  # every model listed, in the order given
    assert summary.loc[("gen", "buggy"), "failure"] == "RuntimeError: the search did not converge on this data"
    assert summary.loc[("lenses", "a2de"), "failure"].startswith("TableTooLargeError: AnDE: ")
    assert "max_cells=200" in summary.loc[("lenses", "a2de"), "failure"]
    failed = summary["status"] == "failed"
    assert failed.sum() == 3 and (summary.loc[~failed, "failure"] == "").all()
    assert summary.loc[failed, ["log_loss", "error", "rank_log_loss", "rank_error"]].isna().all().all()
    # No fold rows of a failed run; the ranks within a data set are those of the models that completed it.
    assert set(result.results.groupby("dataset")["model"].unique()["lenses"]) == {"nb", "buggy", "tan"}
    for _, group in result.summary.groupby("dataset"):
        completed = group.dropna(subset=["log_loss"])
        pd.testing.assert_series_equal(completed["rank_log_loss"], completed["log_loss"].rank(), check_names=False)
    assert result.ranks["failed"].to_dict() == {"nb": 0, "a2de": 2, "buggy": 1, "tan": 0}
    assert np.isnan(result.ranks.loc["a2de", "log_loss"])
    assert (
        result.ranks.loc["buggy", "log_loss"] == summary.loc[("lenses", "buggy"), "rank_log_loss"]
    )  # over lenses alone
    assert result.failures[["dataset", "model"]].values.tolist() == [
        ["lenses", "a2de"],
        ["gen", "a2de"],
        ["gen", "buggy"],
    ]
    assert np.isnan(result.table("log_loss").loc["gen", "buggy"])


def test_compare_raises_when_every_model_fails_or_when_asked_to():
    frame = gm.datasets.load("lenses")
    cv = RepeatedStratifiedKFold(n_splits=2, n_repeats=1, random_state=0)
    with pytest.warns(compare_module.ModelFailedWarning), pytest.raises(ValueError, match="Every model failed") as info:
        compare({"a2de": gm.AnDE(max_cells=200)}, {"lenses": frame}, cv=cv, verbose=False)
    assert "a2de on lenses: TableTooLargeError" in str(info.value)
    with pytest.raises(TableTooLargeError, match="max_cells=200"):
        compare(
            {"nb": gm.NaiveBayes(), "a2de": gm.AnDE(max_cells=200)},
            {"lenses": frame},
            cv=cv,
            errors="raise",
            verbose=False,
        )
    with pytest.raises(ValueError, match="`errors` must be 'report' or 'raise'"):
        compare(["nb"], {"lenses": frame}, cv=cv, errors="ignore", verbose=False)
