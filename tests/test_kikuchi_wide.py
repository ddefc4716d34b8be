"""Issue 18: the wide-data speed-ups of kikuchi_bayes_path (fixed changes of
candidates outside the model's attributes; the bound without cached deltas)
take the same path as the code before them (commit 689f5b9, loaded from git)."""

import importlib.util
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import graphmodels as gm
from graphmodels.data.datasets import load
from graphmodels.learners import kikuchi

REFERENCE_COMMIT = "689f5b9"
ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def reference():
    try:
        source = subprocess.run(
            ["git", "show", f"{REFERENCE_COMMIT}:graphmodels/learners/kikuchi.py"],
            cwd=ROOT,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("the reference commit is not available")
    name = "graphmodels.learners._kikuchi_reference"
    spec = importlib.util.spec_from_loader(name, loader=None)
    module = importlib.util.module_from_spec(spec)
    module.__package__ = "graphmodels.learners"
    sys.modules[name] = module
    exec(compile(source, "kikuchi_reference.py", "exec"), module.__dict__)
    return module


def _wide(n_cols, n_rows=600, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 3, size=(n_rows, n_cols))
    logit = 1.2 * (X[:, 0] == 2) - 1.0 * (X[:, 1] == 0) + 0.8 * ((X[:, 2] + X[:, 3]) % 3 == 0)
    y = (rng.random(n_rows) < 1 / (1 + np.exp(-(logit - 0.3)))).astype(int)
    return pd.DataFrame(X, columns=[f"x{j:03d}" for j in range(n_cols)]).assign(y=y)


def _frame(name):
    if name == "wide30":
        return _wide(30), "y"
    data = load(name)
    return data, "class"


def _compare(a, b):
    pa, ta = a
    pb, tb = b
    assert [s["region"] for s in pa] == [s["region"] for s in pb]
    assert [s["counting_numbers"] for s in pa] == [s["counting_numbers"] for s in pb]
    assert [s["df"] for s in pa] == [s["df"] for s in pb]
    np.testing.assert_allclose([s["log_posterior"] for s in pa], [s["log_posterior"] for s in pb], rtol=1e-12)
    assert list(ta["action"]) == list(tb["action"])
    assert list(ta["item"]) == list(tb["item"])
    np.testing.assert_allclose(ta["score"].astype(float), tb["score"].astype(float), rtol=1e-12)


@pytest.mark.parametrize("name", ["tic-tac-toe", "car", "monk1", "monk2", "monk3", "wide30"])
def test_same_path_and_trace_as_before(name, reference):
    frame, target = _frame(name)
    engine = gm.stats.information.as_engine(frame[[c for c in frame.columns if c != target] + [target]])
    new = kikuchi.kikuchi_bayes_path(engine, target, trace=True)
    old = reference.kikuchi_bayes_path(engine, target, trace=True)
    _compare(new, old)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_bound_without_cached_deltas_takes_the_same_path(n_classes, reference, monkeypatch):
    # Pools too big to cache their deltas: the bound is now computed block by block.
    frame = _wide(12, n_rows=400, seed=n_classes)
    if n_classes == 3:
        frame["y"] = (frame["y"] + (frame["x004"] == 1)).astype(int)
    engine = gm.stats.information.as_engine(frame)
    old = reference.kikuchi_bayes_path(engine, "y", trace=True)
    monkeypatch.setattr(kikuchi, "_POOL_BYTES", 0)
    monkeypatch.setattr(kikuchi, "_BLOCK_ELEMENTS", 4000)
    new = kikuchi.kikuchi_bayes_path(engine, "y", trace=True)
    _compare(new, old)


def test_untouched_changes_are_the_general_rule():
    frame = _wide(10, n_rows=300)
    engine = gm.stats.information.as_engine(frame)
    path = kikuchi.kikuchi_bayes_path(engine, "y", max_region_size=3)
    search = kikuchi._RegionSearch(engine, engine.position("y"), list(range(10)), 4.0)
    model = kikuchi._Model(search)
    # add the first accepted regions with their exact changes, then check every candidate
    names = [engine.names[p] for p in range(10)]
    for step in path[1:4]:
        mask = sum(1 << names.index(v) for v in step["region"] if v != "y")
        model.add(mask, model.changes(mask), search.log_rows(mask))
        touched = 0
        for r in model.maximal:
            touched |= r
        for combo in [(a, b) for a in range(10) for b in range(a + 1, 10)]:
            m = (1 << combo[0]) | (1 << combo[1])
            if not m & touched:
                assert model.changes(m) == {m: 1, 0: -1}
