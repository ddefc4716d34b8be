"""``--seed`` (and ``report``'s ``random_state``) reach every model that draws random numbers (issue 26).

``graphmodels compare tic-tac-toe --seed 0`` seeded the folds only: hierarchical naive Bayes
shuffles its inner folds with its own ``random_state`` (default None), so its numbers changed on
every run.
"""

from __future__ import annotations

import numpy as np
import pytest

import graphmodels as gm
from graphmodels import cli
from graphmodels.cli import main
from graphmodels.reporting._report import _resolve_models


@pytest.fixture
def csv_path(tmp_path, random_table):
    """60 rows on which an unseeded HNB's inner folds change its fit from run to run (4 of 4 runs differ)."""
    X, y = random_table(np.random.default_rng(3), n_rows=60)
    path = tmp_path / "data.csv"
    X.assign(label=y).to_csv(path, index=False)
    return str(path)


def _table(capsys, argv):
    """The printed table of a ``compare`` run without its time columns: ``{model: (log-loss, sd, error)}``."""
    assert main(argv) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines() if line.startswith("hnb ")]
    return {row[0]: tuple(row[1:4]) for row in rows}


def test_two_compare_runs_with_the_same_seed_print_the_same_table(csv_path, capsys):
    argv = ["compare", csv_path, "--target", "label", "--models", "hnb", "--folds", "2", "--repeats", "1", "--quiet"]
    first = _table(capsys, [*argv, "--seed", "3"])
    assert list(first) == ["hnb"]
    assert _table(capsys, [*argv, "--seed", "3"]) == first


def test_two_fits_with_the_same_seed_print_the_same_structure(csv_path, capsys):
    argv = ["fit", csv_path, "--target", "label", "--model", "hnb", "--seed", "1"]
    assert main(argv) == 0
    first = capsys.readouterr().out
    assert main(argv) == 0
    assert capsys.readouterr().out == first


@pytest.mark.parametrize("seed", [0, 7])
def test_every_model_with_a_random_state_gets_the_seed(seed):
    # The command line (fit, compare, animate) and the report build named models the same way.
    for name, cls in gm.models.CLASSIFIERS.items():
        if "random_state" in cls().get_params():
            assert cli._model(name, "mdl", seed).random_state == seed
            assert _resolve_models([name], "mdl", seed)[name].random_state == seed
    assert "random_state" in gm.HierarchicalNaiveBayes().get_params()  # at least one model is checked
