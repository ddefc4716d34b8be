"""Fixtures shared by the test files.

* matplotlib draws with the Agg backend (no display is needed), and the figures a test opens
  through pyplot are closed after it;
* ``random_table``: small random categorical tables with dependencies, for classifiers;
* ``@pytest.mark.unseen_values``: the test predicts on values the fit never saw, on purpose, so
  the "never seen in fit" warning (an error elsewhere, pyproject.toml; its text is asserted in
  tests/test_encoding.py) is expected there.

Data built for one file only stays in that file. A bundled data set needs no fixture:
``gm.datasets.load(name, return_X_y=True)`` gives ``(X, y)``, a fresh copy on every call.
"""

import os
import sys

import numpy as np
import pandas as pd
import pytest

# Set before any test imports matplotlib, so no test depends on a display or on file order.
os.environ["MPLBACKEND"] = "Agg"


def pytest_collection_modifyitems(items):
    for item in items:
        if item.get_closest_marker("unseen_values"):
            item.add_marker(pytest.mark.filterwarnings("ignore:.* were never seen in fit:UserWarning"))


@pytest.fixture(autouse=True)
def _close_figures():
    """Close every pyplot figure a test left open (matplotlib warns past 20 open figures)."""
    yield
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None:
        pyplot.close("all")


def _random_table(rng, n_rows=300, cards=(2, 3, 4, 2, 3), n_classes=3):
    """Discrete data with dependencies: each column copies its left neighbour or the class sometimes.

    Returns ``X``, a DataFrame of string states ``"s0", "s1", ...`` in columns ``x0, x1, ...``
    (cardinalities `cards`), and ``y``, a Series named ``"label"`` of `n_classes` string
    classes ``"c0", "c1", ...``.
    """
    y = rng.integers(n_classes, size=n_rows)
    columns = {}
    previous = y
    for j, r in enumerate(cards):
        noise = rng.integers(r, size=n_rows)
        copy = rng.random(n_rows) < 0.6
        columns[f"x{j}"] = np.where(copy, previous % r, noise)
        previous = columns[f"x{j}"]
    X = pd.DataFrame({k: [f"s{v}" for v in col] for k, col in columns.items()})
    return X, pd.Series([f"c{v}" for v in y], name="label")


@pytest.fixture
def random_table():
    """``random_table(rng, n_rows=300, cards=(2, 3, 4, 2, 3), n_classes=3)`` -> ``(X, y)``.

    Pass a local ``np.random.default_rng(seed)``: the fixture holds no seed of its own.
    """
    return _random_table
