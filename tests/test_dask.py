"""The Dask backend: fits from a Dask DataFrame equal fits on the same rows in memory.

Everything runs on a real ``dask.distributed.LocalCluster`` (two worker processes, one thread
each, 1 GiB per worker), started once for the file. Every comparison is between a model fitted
from the Dask DataFrame and one fitted from ``ddf.compute()`` (the same rows in the same order):
the saved JSON of both (structure, tables, encoder, discretizer) must agree to 1e-12.
"""

import contextlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

distributed = pytest.importorskip("dask.distributed", reason="pip install 'graphmodels[dask]'")
dd = pytest.importorskip("dask.dataframe", reason="pip install 'graphmodels[dask]'")

import graphmodels as gm  # noqa: E402
from graphmodels.models import make_model  # noqa: E402
from graphmodels.stats import DaskCountingEngine, InMemoryRowsRequired  # noqa: E402

#: Count-based models fitted from a Dask DataFrame, with their default settings.
CLASSIFIERS = ["nb", "tan", "fan", "chow-liu", "kdb", "aode", "hyperforest"]
DENSITIES = ["chow-liu-tree", "hyperforest-density"]


@pytest.fixture(scope="module")
def client():
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, memory_limit="1GiB", dashboard_address=None
    )
    client = distributed.Client(cluster)
    yield client
    client.close()
    cluster.close()


def _uneven(frame, sizes):
    """`frame` as a Dask DataFrame with partitions of the given sizes (in row order)."""
    bounds = np.concatenate([[0], np.cumsum(sizes)])
    assert bounds[-1] == len(frame)
    parts = [frame.iloc[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
    return dd.from_map(lambda part: part, parts, meta=frame.iloc[:0], enforce_metadata=False)


def _sorted_car():
    """car sorted by `buying`: each partition lacks some states of `buying` (and of the class)."""
    frame = gm.datasets.load("car").sort_values(["buying", "safety"], kind="stable").reset_index(drop=True)
    return frame, _uneven(frame, [500, 300, 428, 500])


def _saved(model, path):
    model.save(path)
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def _assert_close(a, b, where="model"):
    """Two saved models agree: the same keys, strings and structure; numbers to 1e-12."""
    if isinstance(a, dict):
        assert isinstance(b, dict) and a.keys() == b.keys(), where
        for key in a:
            _assert_close(a[key], b[key], f"{where}.{key}")
    elif isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), where
        for i, (x, y) in enumerate(zip(a, b)):
            _assert_close(x, y, f"{where}[{i}]")
    elif isinstance(a, float) and not isinstance(a, bool):
        assert isinstance(b, (int, float)) and np.isclose(a, b, rtol=1e-12, atol=1e-12, equal_nan=True), (where, a, b)
    else:
        assert a == b, (where, a, b)


def _fit_both(name, frame, ddf, tmp_path, class_column="class", **params):
    """The model fitted in memory on `frame` and from `ddf`, and their saved JSON."""
    memory, distributed_ = make_model(name, **params), make_model(name, **params)
    if memory._estimator_type == "classifier":
        memory.fit(frame.drop(columns=class_column), frame[class_column])
        distributed_.fit(ddf.drop(columns=class_column), ddf[class_column])
    else:
        memory.fit(frame.drop(columns=class_column))
        distributed_.fit(ddf.drop(columns=class_column))
    _assert_close(_saved(memory, tmp_path / "memory.json"), _saved(distributed_, tmp_path / "dask.json"))
    return memory, distributed_


@pytest.mark.parametrize("name", CLASSIFIERS + DENSITIES)
def test_fit_equals_the_in_memory_fit_on_partitions_that_lack_states(client, tmp_path, name):
    frame, ddf = _sorted_car()
    memory, fitted = _fit_both(name, frame, ddf, tmp_path)
    X = ddf.drop(columns="class")
    if memory._estimator_type == "classifier":
        proba = fitted.predict_proba(X)
        assert type(proba).__module__.startswith("dask")  # lazy: nothing computed yet
        np.testing.assert_allclose(proba.compute(), memory.predict_proba(frame.drop(columns="class")), atol=1e-12)
        assert (fitted.predict(X).compute() == memory.predict(frame.drop(columns="class"))).all()
    else:
        np.testing.assert_allclose(
            fitted.score_samples(X).compute(), memory.score_samples(frame.drop(columns="class")), atol=1e-12
        )


@pytest.mark.parametrize("name", ["nb", "tan", "kdb", "aode"])
def test_tic_tac_toe_in_seven_partitions(client, tmp_path, name):
    frame = gm.datasets.load("tic-tac-toe")
    _fit_both(name, frame, dd.from_pandas(frame, npartitions=7, sort=False), tmp_path)


@pytest.mark.parametrize("discretizer", ["auto", "equal-frequency", None])
def test_numeric_columns_are_cut_as_in_memory(client, tmp_path, discretizer):
    # iris: four numeric columns, cut by MDL ('auto') or equal-frequency bins from the exact
    # weight of each distinct (value, class) pair, or kept as they are.
    frame = gm.datasets.load("iris").sample(frac=1.0, random_state=0).reset_index(drop=True)
    memory, fitted = _fit_both("tan", frame, _uneven(frame, [40, 1, 59, 50]), tmp_path, discretizer=discretizer)
    if discretizer is not None:
        assert fitted.discretizer_.cut_points_.keys() == memory.discretizer_.cut_points_.keys()


@pytest.mark.parametrize("discretizer", ["auto", "equal-frequency"])
def test_integer_columns_and_integer_classes(client, tmp_path, discretizer):
    # Integer columns are summarised by one bincount per partition (values and their weight per class).
    frame = gm.datasets.load("iris").sample(frac=1.0, random_state=1).reset_index(drop=True)
    numbers = (frame.drop(columns="class") * 10).round().astype(np.int64)
    frame = numbers.assign(**{"class": pd.factorize(frame["class"], sort=True)[0]})
    # "auto" says it cut integer columns (in memory and from Dask alike); a named discretizer does not.
    said = pytest.warns(gm.data.IntegerColumnsCutWarning, match="NaiveBayes: .*'sepal length', 'sepal width'")
    with said if discretizer == "auto" else contextlib.nullcontext():
        memory, fitted = _fit_both("nb", frame, _uneven(frame, [70, 30, 50]), tmp_path, discretizer=discretizer)
    assert fitted.discretizer_.cut_points_.keys() == memory.discretizer_.cut_points_.keys() != set()
    # categorical= keeps a column of integers as states, from a Dask DataFrame as in memory.
    kept = ["petal width"]
    memory, fitted = _fit_both("nb", frame, _uneven(frame, [70, 30, 50]), tmp_path, discretizer="mdl", categorical=kept)
    assert "petal width" not in fitted.discretizer_.cut_points_
    assert fitted.encoder_.levels_[3] == sorted(frame["petal width"].unique())


def test_missing_cells_and_states_that_differ_across_partitions(client, tmp_path):
    rng = np.random.default_rng(3)
    n = 600
    y = rng.integers(3, size=n)
    frame = pd.DataFrame(
        {
            "colour": np.where(np.arange(n) < 300, rng.choice(["red", "blue"], n), rng.choice(["green", "blue"], n)),
            "size": np.where(rng.random(n) < 0.1, np.nan, (y + rng.integers(2, size=n)).astype(float)),
            "flag": (rng.random(n) < 0.5) & (y > 0),
            "class": np.array(["a", "b", "c"])[y],
        }
    )
    frame.loc[400:, "size"] = np.where(frame.loc[400:, "size"].isna(), 1.0, frame.loc[400:, "size"])  # no NaN late
    ddf = _uneven(frame, [300, 100, 200])
    memory, fitted = _fit_both("tan", frame, ddf, tmp_path, discretizer=None)
    assert fitted.encoder_.levels_ == memory.encoder_.levels_
    assert fitted.encoder_.levels_[0] == list(pd.unique(frame["colour"]))  # text in order of first appearance
    assert set(fitted.encoder_.levels_[0]) == {"blue", "green", "red"}


def test_categorical_columns(client, tmp_path):
    frame = gm.datasets.load("car")
    frame["buying"] = frame["buying"].astype(pd.CategoricalDtype(["vhigh", "high", "med", "low", "unused"]))
    ddf = dd.from_pandas(frame, npartitions=3, sort=False)
    memory, fitted = _fit_both("nb", ddf.compute(), ddf, tmp_path)
    assert fitted.encoder_.levels_[0] == ["vhigh", "high", "med", "low", "unused"]  # the categories' order


def test_class_as_a_column_name(client):
    frame, ddf = _sorted_car()
    by_name = gm.TAN().fit(ddf, "class")
    memory = gm.TAN().fit(frame.drop(columns="class"), frame["class"])
    np.testing.assert_allclose(
        by_name.predict_proba(ddf.drop(columns="class")).compute(), memory.predict_proba(frame.drop(columns="class"))
    )
    assert by_name.class_name_ == "class"


def test_engine_tables_equal_the_in_memory_engine(client):
    frame, ddf = _sorted_car()
    counts = gm.models.training_counts(ddf.drop(columns="class"), ddf["class"])
    memory = gm.models.training_counts(frame.drop(columns="class"), frame["class"])
    engine = counts.engine
    assert isinstance(engine, DaskCountingEngine) and engine.n_rows == len(frame)
    assert list(engine.partition_rows) == [500, 300, 428, 500]
    for variables in (["buying"], ["class", "buying"], ["maint", "doors", "class"], []):
        np.testing.assert_array_equal(engine.counts(variables), memory.engine.counts(variables))
    np.testing.assert_array_equal(
        engine.pairwise_counts(given="class").table, memory.engine.pairwise_counts(given="class").table
    )
    # counted by the states pass, from each distinct (value, class) pair's weight
    np.testing.assert_array_equal(
        engine.one_way_counts(given="class").table, memory.engine.one_way_counts(given="class").table
    )
    stratum = engine.stratum("class", 1)
    np.testing.assert_array_equal(stratum.counts(["buying"]), memory.engine.stratum("class", 1).counts(["buying"]))
    assert stratum.total == memory.engine.stratum("class", 1).total
    # the leave-one-out selection's sample: the same rows as in memory
    for mine, theirs in zip(engine.sample_rows(700), memory.engine.sample_rows(700)):
        np.testing.assert_array_equal(mine, theirs)
    with pytest.raises(InMemoryRowsRequired):
        engine.rows()


@pytest.mark.parametrize("name", ["kikuchi-bayes", "hnb", "skdb"])
def test_models_that_read_rows_say_so(client, name):
    frame, ddf = _sorted_car()
    model = make_model(name)
    with pytest.raises(InMemoryRowsRequired, match=f"{type(model).__name__} cannot be fitted from a Dask DataFrame"):
        model.fit(ddf.drop(columns="class"), ddf["class"])
    assert not hasattr(model, "classes_")  # a failed fit leaves the model unfitted


def test_other_unsupported_inputs_say_so(client):
    frame, ddf = _sorted_car()
    X, y = ddf.drop(columns="class"), ddf["class"]
    with pytest.raises(InMemoryRowsRequired, match='estimator="discriminative"'):
        gm.NaiveBayes(estimator="discriminative").fit(X, y)
    with pytest.raises(TypeError, match="sample_weight"):
        gm.NaiveBayes().fit(X, y, sample_weight=np.ones(len(frame)))
    with pytest.raises(TypeError, match="dask Series partitioned as `X` or the name of a column"):
        gm.NaiveBayes().fit(X, frame["class"])
    with pytest.raises(ValueError, match="`y` must be partitioned as `X`"):
        gm.NaiveBayes().fit(X, dd.from_pandas(frame["class"], npartitions=2))
    with pytest.raises(TypeError, match="Dask Series but `X` is not"):
        gm.NaiveBayes().fit(frame.drop(columns="class"), y)
    with pytest.raises(TypeError, match="Dask collection"):
        gm.evaluation.cross_validate(gm.NaiveBayes(), X, y)


def test_a_worker_holds_one_partition_at_a_time(client):
    """Partitions are made on the workers from a seed; no task result is larger than a table."""
    n_rows, n_columns = 20_000, 10

    def make(seed):
        rng = np.random.default_rng(seed)
        y = rng.integers(3, size=n_rows)
        columns = {f"x{j}": (y + rng.integers(3, size=n_rows)) % 5 for j in range(n_columns)}
        return pd.DataFrame({**columns, "class": y})

    def record(part):
        worker = distributed.get_worker()
        worker.partition_lengths = [*getattr(worker, "partition_lengths", []), len(part)]
        return part

    class LargestResult(distributed.WorkerPlugin):
        name = "largest-result"

        def setup(self, worker):
            self.worker, self.largest = worker, 0

        def transition(self, key, start, finish, **kwargs):
            if finish == "memory":
                state = self.worker.state.tasks.get(key)
                if state is not None:
                    self.largest = max(self.largest, state.nbytes or 0)

    client.register_plugin(LargestResult())
    meta = make(0).iloc[:0]
    ddf = dd.from_map(make, list(range(6)), meta=meta).map_partitions(record, meta=meta)
    gm.TAN().fit(ddf.drop(columns="class"), ddf["class"])
    lengths = client.run(lambda dask_worker: getattr(dask_worker, "partition_lengths", []))
    largest = client.run(lambda dask_worker: dask_worker.plugins["largest-result"].largest)
    assert max(max(v) for v in lengths.values() if v) == n_rows  # every task saw one whole partition
    partition_bytes = int(make(0).memory_usage(deep=True).sum())
    assert 0 < max(largest.values()) < partition_bytes / 4  # results are tables, never rows


def test_the_core_never_imports_dask(tmp_path):
    statement = (
        "import sys, graphmodels as gm; X, y = gm.datasets.load('car', return_X_y=True); "
        "gm.TAN().fit(X, y).predict_proba(X); print(sorted(m for m in sys.modules if m.split('.')[0] == 'dask'))"
    )
    env = dict(os.environ)
    root = str(Path(gm.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
    out = subprocess.run([sys.executable, "-c", statement], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_threaded_scheduler_counts_partitions_side_by_side():
    # Without a distributed client, Dask counts partitions in threads of one process: the
    # hyperedge counting's scratch buffer is per thread (it was one shared buffer, and
    # concurrent partitions overwrote each other's codes).
    import dask

    frame = gm.datasets.load("car")
    ddf = dd.from_pandas(frame, npartitions=4, sort=False)
    memory = gm.HyperforestClassifier(representation="free", n_starts=2)
    memory.fit(frame.drop(columns="class"), frame["class"])
    with dask.config.set(scheduler="threads", num_workers=4):
        for _ in range(3):
            fitted = gm.HyperforestClassifier(representation="free", n_starts=2)
            fitted.fit(ddf.drop(columns="class"), ddf["class"])
            np.testing.assert_allclose(
                fitted.predict_proba(frame.drop(columns="class")),
                memory.predict_proba(frame.drop(columns="class")),
                atol=1e-12,
            )
