"""Memory guards (issue 18): a fit that cannot fit in ``max_cells`` says so before it allocates.

Every guard raises :class:`~graphmodels.stats.TableTooLargeError` (a ``ValueError`` and a
``MemoryError``) naming the model, the columns by name, the size and the parameter that would make
it fit; raising that parameter to the size it names makes that table fit.
"""

import time
import tracemalloc

import numpy as np
import pandas as pd
import pytest

import graphmodels as gm
from graphmodels._memory import TableTooLargeError as _Private
from graphmodels._memory import check_cells, format_bytes
from graphmodels.data import MDLDiscretizer
from graphmodels.inference import log_marginals
from graphmodels.io import read_bif
from graphmodels.models.registry import model_class, registered_models
from graphmodels.networks import random_hypertree_network, random_multidimensional_network
from graphmodels.stats import CountingEngine, TableTooLargeError

# The wide columns look like identifiers to training_counts, which warns.
pytestmark = pytest.mark.filterwarnings("ignore:Column\\(s\\) that look like identifiers")

#: The models whose tables grow with the cardinalities of the columns (the multi-label wrappers
#: take a `base` model instead, and Kikuchi-Bayes leaves out the regions beyond max_cells).
GUARDED = [name for name in registered_models() if name not in {"binary-relevance", "label-powerset"}]
GUARDED = [name for name in GUARDED if name not in {"classifier-chain", "kikuchi-bayes", "nb"}]
#: Those whose tables are one per column (times the classes), which fit 10^5 states.
ONE_WAY = {"md-nb", "md-aode"}
#: BNClassifier leaves out the candidates whose tables exceed max_cells and keeps naive Bayes,
#: which fits wide columns; it refuses only when no candidate fits.
FALLS_BACK = {"bnc"}


def _wide_frame(rng, n_states, n_rows=40):
    """Two categorical columns with `n_states` declared states each (most never seen), two narrow ones."""
    states = [f"s{i}" for i in range(n_states)]
    X = pd.DataFrame(
        {
            "wide": pd.Categorical(rng.choice(states[:10], n_rows), categories=states),
            "wide2": pd.Categorical(rng.choice(states[:10], n_rows), categories=states),
            "a": rng.choice(["x", "y", "z"], n_rows),
            "b": rng.choice(["x", "y"], n_rows),
        }
    )
    y = rng.choice(["p", "q"], n_rows)
    Y = pd.DataFrame({"l1": rng.choice(["0", "1"], n_rows), "l2": rng.choice(["0", "1"], n_rows)})
    return X, y, Y


def _fit(model, X, y, Y):
    kind = getattr(type(model), "_model_kind", "classifier")
    if kind == "density":
        return model.fit(X)
    return model.fit(X, Y if kind == "multilabel" else y)


def _params(name):
    return {"ande": {"n": 2}, "kdb": {"k": 2}, "skdb": {"max_k": 2}}.get(name, {})


# ---------------------------------------------------------------------------- the shared check
def test_check_cells_message_and_classes():
    assert check_cells(100, 100, what="table") == 100
    with pytest.raises(TableTooLargeError) as caught:
        check_cells(1_200, 100, what="table over 'a' (30 states), 'b' (40 states)", fix="lower k")
    error = caught.value
    assert isinstance(error, ValueError) and isinstance(error, MemoryError)
    assert TableTooLargeError is _Private  # one class, re-exported by graphmodels.stats
    assert (error.cells, error.limit, error.parameter, error.model) == (1_200, 100, "max_cells", None)
    message = str(error)
    for part in ("'a' (30 states)", "1,200 cells", "(9.6 kB)", "max_cells=100", "lower k", "at least 1,200"):
        assert part in message
    named = error.for_model("TAN")
    assert str(named).startswith("TAN: The table over 'a'") and named.model == "TAN"
    assert named.for_model("BinaryRelevance") is named  # the innermost model's name only


@pytest.mark.parametrize(
    ("n_bytes", "text"),
    [(0, "0 B"), (999, "999 B"), (1_536, "1.5 kB"), (8 * 10**10, "80.0 GB"), (10**19, "10000.0 PB")],
)
def test_format_bytes(n_bytes, text):
    assert format_bytes(n_bytes) == text


def test_engine_names_the_columns():
    engine = CountingEngine(np.zeros((3, 3), dtype=np.int64), [30, 1, 40], names=["a", "b", "c"], max_cells=100)
    with pytest.raises(TableTooLargeError, match=r"'a' \(30 states\), 'c' \(40 states\) would have 1,200 cells"):
        engine.counts(["a", "c"])
    assert engine._cache == {}


# ---------------------------------------------------------------------------- every learner
@pytest.mark.parametrize("name", [name for name in GUARDED if name not in ONE_WAY | FALLS_BACK])
def test_twenty_thousand_states_fail_fast_under_the_default_budget(name):
    # Two columns of 20,000 states: a pairwise table or hyperedge of them has 4 x 10^8 cells (3.2 GB) or more.
    X, y, Y = _wide_frame(np.random.default_rng(0), 20_000)
    model = model_class(name)(**_params(name))
    tracemalloc.start()
    start = time.perf_counter()
    try:
        with pytest.raises(TableTooLargeError) as caught:
            _fit(model, X, y, Y)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert time.perf_counter() - start < 10
    assert peak < 50e6  # the encoding of the columns' 40,000 levels, nothing of the tables
    message = str(caught.value)
    assert message.startswith(f"{type(model).__name__}: ")
    assert "'wide'" in message and "max_cells=10,000,000" in message and "raise max_cells to at least" in message
    assert caught.value.cells > caught.value.limit == 10_000_000
    assert not [attribute for attribute in vars(model) if attribute.endswith("_")]  # left unfitted


@pytest.mark.parametrize("name", GUARDED)
def test_raising_max_cells_to_the_named_size_fits(name):
    X, y, Y = _wide_frame(np.random.default_rng(1), 60)
    model = model_class(name)(max_cells=200, **_params(name))
    with pytest.raises(TableTooLargeError) as caught:
        _fit(model, X, y, Y)
    suggested = [caught.value.cells]
    # Each table fits once max_cells is the size named; the next larger table, if any, says so in turn.
    for _ in range(5):
        model.set_params(max_cells=suggested[-1])
        try:
            _fit(model, X, y, Y)
            break
        except TableTooLargeError as error:
            assert error.cells > suggested[-1]
            suggested.append(error.cells)
    else:
        pytest.fail(f"{name} did not fit at max_cells={suggested}")
    assert model.n_rows_ == 40


@pytest.mark.parametrize("name", ["nb", "kikuchi-bayes", *sorted(ONE_WAY)])
def test_one_table_per_column_fits_wide_columns(name):
    # One table per column (classes x 20,000 cells) fits the default budget; Kikuchi-Bayes leaves
    # out the regions that would not fit, and never counts them.
    X, y, Y = _wide_frame(np.random.default_rng(2), 20_000)
    model = model_class(name)()
    tracemalloc.start()
    try:
        _fit(model, X, y, Y)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 50e6
    assert model.predict(X.head(3)).shape[0] == 3


def test_inner_model_is_named_once():
    X, y, Y = _wide_frame(np.random.default_rng(3), 60)
    with pytest.raises(TableTooLargeError, match=r"^TAN: The pairwise tables"):
        gm.BinaryRelevance(base=gm.TAN(max_cells=500)).fit(X, Y)


# ---------------------------------------------------------------------------- the parameters named
def test_ande_names_n():
    X, y, _ = _wide_frame(np.random.default_rng(4), 60)
    with pytest.raises(TableTooLargeError, match=r"lower n \(now 2\)") as caught:
        gm.AnDE(n=2, max_cells=100_000).fit(X, y)
    assert "'wide' (60 states), 'wide2' (60 states)" in str(caught.value)
    gm.AnDE(n=1, max_cells=100_000).fit(X, y)


class _Counting(Exception):
    """Raised in place of counting: the fit got past every guard."""


def _stop_at_counting(*args, **kwargs):
    raise _Counting


def test_hyperforest_candidates_are_bounded_by_the_models_max_cells(monkeypatch):
    # 150 binary columns at tree-width 3: 20,822,900 candidate hyperedges, beyond the old fixed
    # max_candidates=20,000,000 that no model could raise. The model's max_cells is the bound.
    from graphmodels.stats import hyperedges

    rng = np.random.default_rng(12)
    X = pd.DataFrame(rng.integers(2, size=(30, 150)), columns=[f"c{j}" for j in range(150)])
    with pytest.raises(TableTooLargeError, match=r"^HyperforestDensity: .*treewidth=") as caught:
        gm.HyperforestDensity(treewidth=3).fit(X)
    assert caught.value.parameter == "max_cells" and "max_candidates" not in str(caught.value)
    monkeypatch.setattr(hyperedges, "_xlogx_sums", _stop_at_counting)
    for max_cells in (caught.value.cells, 10**10):
        with pytest.raises(_Counting):
            gm.HyperforestDensity(treewidth=3, max_cells=max_cells).fit(X)


def test_explicit_max_candidates_counts_candidates():
    from graphmodels.stats import subset_entropies

    frame = pd.DataFrame({name: list("xyxy") for name in "abcd"})
    with pytest.raises(TableTooLargeError) as caught:
        subset_entropies(frame, max_size=3, max_candidates=13)  # 4 + 6 + 4 subsets
    error = caught.value
    assert (error.cells, error.limit, error.parameter) == (14, 13, "max_candidates")
    assert str(error).startswith("There would be 14 candidate hyperedges of up to 3 of 4 variables")
    assert "raise max_candidates to at least 14" in str(error) and "cells" not in str(error)
    assert subset_entropies(frame, max_size=3, max_candidates=14).max_size == 3


def test_hyperforest_candidates_name_the_treewidth():
    # 60 binary columns: the hyperedges of 4 (tree-width 3) are 487,635 candidates.
    rng = np.random.default_rng(5)
    X = pd.DataFrame(rng.integers(2, size=(50, 60)), columns=[f"c{j}" for j in range(60)])
    with pytest.raises(TableTooLargeError, match=r"candidate hyperedges of 4 of 60 variables.*treewidth="):
        gm.HyperforestDensity(treewidth=3, max_cells=10_000).fit(X)
    gm.HyperforestDensity(treewidth=1, max_cells=10_000).fit(X)


def test_discriminative_fit_checks_its_parameter_vector():
    rng = np.random.default_rng(6)
    X = pd.DataFrame(rng.integers(3, size=(80, 5)), columns=list("abcde"))
    y = rng.integers(2, size=80)
    # Naive Bayes: its largest count table (every one-way table given the class, 2 x 15 cells) is
    # smaller than its parameter vector (the class prior, 2, and the same 30 cells).
    model = gm.NaiveBayes(estimator="discriminative").fit(X, y)
    tables, _ = model._family_tables()
    n_parameters = 2 + sum(table.size for table in tables)
    assert n_parameters == 2 + 2 * 3 * 5
    model.set_params(max_cells=n_parameters - 1)
    with pytest.raises(
        TableTooLargeError,
        match=rf"^NaiveBayes: The parameter vector of the discriminative fit .*L-BFGS holds 25 arrays.* "
        rf"{n_parameters:,} cells",
    ):
        model.fit(X, y)
    model.set_params(max_cells=n_parameters).fit(X, y)


def test_mdl_discretizer_names_the_column():
    # 200 distinct values x 100 classes: the class counts per distinct value have 20,000 cells.
    rng = np.random.default_rng(7)
    X = pd.DataFrame({"x": rng.permutation(200) / 7.0, "b": rng.choice(["u", "v"], 200)})
    y = np.repeat(np.arange(100), 2)
    with pytest.raises(TableTooLargeError, match=r"column 'x' \(200 distinct values x 100 classes\)") as caught:
        MDLDiscretizer(max_cells=19_999).fit(X, y)
    assert "(EqualFrequencyDiscretizer)" in str(caught.value)  # on its own, no discretizer= to set
    with pytest.raises(TableTooLargeError, match=r"^NaiveBayes: The MDL discretizer's class counts of column 'x'"):
        gm.NaiveBayes(discretizer=MDLDiscretizer(max_cells=19_999)).fit(X, y)
    MDLDiscretizer(max_cells=20_000).fit(X, y)


@pytest.mark.parametrize("discretizer", ["auto", "mdl", MDLDiscretizer(min_distinct=11)])
def test_mdl_discretizer_of_a_model_takes_the_models_max_cells(discretizer):
    # 200 distinct values x 100 classes: the class counts have 20,000 cells, the model's
    # budget (not the discretizer's default 10,000,000), and its message names the model's max_cells.
    rng = np.random.default_rng(9)
    X = pd.DataFrame({"x": rng.permutation(200) / 7.0, "b": rng.choice(["u", "v"], 200)})
    y = np.repeat(np.arange(100), 2)
    model = gm.NaiveBayes(discretizer=discretizer, max_cells=19_999)
    with pytest.raises(TableTooLargeError, match=r"^NaiveBayes: The MDL discretizer's class counts") as caught:
        model.fit(X, y)
    error = caught.value
    assert (error.cells, error.limit, error.parameter) == (20_000, 19_999, "max_cells")
    assert "more than max_cells=19,999" in str(error) and "raise max_cells to at least 20,000" in str(error)
    assert "(discretizer='equal-frequency')" in str(error)
    assert "x" in model.set_params(max_cells=20_000).fit(X, y).discretizer_.cut_points_
    if isinstance(discretizer, MDLDiscretizer):
        assert discretizer.max_cells is None and not hasattr(discretizer, "cut_points_")  # the caller's, untouched


def test_mdl_discretizer_of_a_dask_fit_takes_the_models_max_cells():
    dd = pytest.importorskip("dask.dataframe")
    rng = np.random.default_rng(13)
    frame = pd.DataFrame({"x": rng.permutation(200) / 7.0, "class": np.repeat(np.arange(100), 2)})
    ddf = dd.from_pandas(frame, npartitions=3, sort=False)
    with pytest.raises(TableTooLargeError, match=r"more than max_cells=19,999") as caught:
        gm.NaiveBayes(max_cells=19_999).fit(ddf, "class")
    assert (caught.value.cells, caught.value.parameter) == (20_000, "max_cells")
    assert "x" in gm.NaiveBayes(max_cells=20_000).fit(ddf, "class").discretizer_.cut_points_


def test_mdl_discretizer_with_its_own_limit_names_it():
    rng = np.random.default_rng(10)
    X = pd.DataFrame({"x": rng.permutation(200) / 7.0})
    y = np.repeat(np.arange(100), 2)
    model = gm.NaiveBayes(discretizer=MDLDiscretizer(max_cells=19_999), max_cells=10**8)
    with pytest.raises(TableTooLargeError) as caught:
        model.fit(X, y)
    error = caught.value
    assert (error.cells, error.limit, error.parameter) == (20_000, 19_999, "discretizer.max_cells")
    assert "raise discretizer.max_cells to at least 20,000" in str(error)
    model.set_params(discretizer=MDLDiscretizer(max_cells=20_000)).fit(X, y)


def test_mdl_discretizer_beyond_the_default_budget_fits_under_a_larger_max_cells():
    # The reviewer's case: 3,400 distinct values x 3,000 classes = 10,200,000 cells, beyond the
    # default budget; a model with a larger max_cells fits (3^k of the MDL rule no longer
    # overflows a float for k > 646 classes).
    rows = 3_400
    X = pd.DataFrame({"num": np.random.default_rng(11).permutation(rows) / 3.0, "b": np.arange(rows) % 3})
    y = np.arange(rows) % 3_000
    with pytest.raises(TableTooLargeError, match=r"10,200,000 cells .* more than max_cells=10,000,000") as caught:
        gm.NaiveBayes().fit(X, y)
    assert caught.value.parameter == "max_cells"
    model = gm.NaiveBayes(max_cells=caught.value.cells).fit(X, y)
    assert list(model.discretizer_.cut_points_) == ["num"]


def test_mdl_rule_with_many_classes_does_not_overflow():
    # 700 classes in one column: 3.0 ** 700 overflows a float; log2(3^k - 2) is k log2(3) to
    # every digit a float holds there.
    X = pd.DataFrame({"x": np.arange(1_400) / 7.0})
    y = np.arange(1_400) % 700
    assert MDLDiscretizer().fit(X, y).cut_points_["x"].size == 0  # every value its own pair of classes: no cut


def test_classifier_chain_label_vectors_are_a_memory_guard():
    rng = np.random.default_rng(8)
    X = pd.DataFrame({"a": rng.choice(["x", "y"], 30)})
    Y = pd.DataFrame({f"l{j}": rng.choice(["0", "1"], 30) for j in range(4)})
    with pytest.raises(MemoryError, match=r"ClassifierChain: .*16 label vectors.*`max_label_vectors`=15"):
        gm.ClassifierChain(base=gm.NaiveBayes(), inference="exact", max_label_vectors=15).fit(X, Y)


# ---------------------------------------------------------------------------- inference, files, generators
def test_exact_inference_names_the_clique_and_the_fix():
    cards = [50, 60, 70]
    factor = ((0, 1, 2), np.zeros((1, *cards)))
    with pytest.raises(TableTooLargeError, match=r"'u' \(50 states\), 'v' \(60 states\), 'w' \(70 states\).*lower k"):
        log_marginals([factor], cards, 1, max_cells=1_000, names=["u", "v", "w"], fix="lower k")
    marginals, _ = log_marginals([factor], cards, 1, max_cells=210_000, names=["u", "v", "w"])
    assert marginals[0].shape == (1, 50)


def test_bif_default_row_cannot_describe_a_huge_table():
    # 40 binary parents and one `default` row: 2^41 cells (17.6 TB) from a few lines of text.
    parents = [f"p{j}" for j in range(40)]
    text = "network big { }\n" + "".join(f"variable {v} {{ type discrete [ 2 ] {{ a, b }}; }}\n" for v in parents)
    text += "variable c { type discrete [ 2 ] { a, b }; }\n"
    text += "".join(f"probability ( {v} ) {{ table 0.5, 0.5; }}\n" for v in parents)
    text += f"probability ( c | {', '.join(parents)} ) {{ default 0.5, 0.5; }}\n"
    start = time.perf_counter()
    with pytest.raises(
        TableTooLargeError, match=r"table of 'c' \(2 states\) given 'p0' \(2 states\).*2,199,023,255,552"
    ):
        read_bif(text)
    assert time.perf_counter() - start < 5
    small = text.replace(", ".join(parents), ", ".join(parents[:3]))
    assert read_bif(small, max_cells=16).cpts["c"].shape == (2, 2, 2, 2)


@pytest.mark.parametrize(("n_variables", "k", "cardinality"), [(8, 3, 2), (6, 2, 3), (4, 0, 5), (5, 1, 4)])
def test_random_hypertree_network_checks_its_largest_table_exactly(n_variables, k, cardinality):
    # The largest table is cardinality ** (k + 1) (a variable given its k parents): 2^4 = 16 cells
    # at k=3, not 2^3 x 3.
    size = cardinality ** (k + 1)
    network, _ = random_hypertree_network(n_variables, k, cardinality=cardinality, random_state=0, max_cells=size)
    assert max(table.size for table in network.cpts.values()) == size
    with pytest.raises(TableTooLargeError, match=rf"would have {size:,} cells") as caught:
        random_hypertree_network(n_variables, k, cardinality=cardinality, random_state=0, max_cells=size - 1)
    assert (caught.value.cells, caught.value.limit) == (size, size - 1)


def test_synthetic_networks_check_their_tables():
    with pytest.raises(TableTooLargeError, match=r"k=30 parents of cardinality=3.*lower k or cardinality"):
        random_hypertree_network(40, 30, cardinality=3, random_state=0)
    random_hypertree_network(6, 2, random_state=0, max_cells=100)
    with pytest.raises(TableTooLargeError, match=r"lower max_parents"):
        random_multidimensional_network(4, 3, max_parents=4, class_cardinality=10, random_state=0, max_cells=1_000)
