"""The models that are not one Bayesian network, exported as what they exactly are.

As in ``test_interchange.py``, the class posterior of every export is computed by brute force:
for each test row, every configuration of the class and of the attributes whose cell is
unobserved or holds a value never seen in fit is enumerated, the network's joint evaluated on
all of them, and the hidden attributes summed out. It must equal the model's ``predict_proba``.
"""

import itertools

import numpy as np
import pandas as pd
import pytest

import graphmodels as gm
from graphmodels._special import logsumexp
from graphmodels.estimators import Discriminative
from graphmodels.models import (
    ChowLiu,
    DiscreteBayesianNetwork,
    read_bif,
    read_xmlbif,
    write_bif,
    write_xmlbif,
)
from graphmodels.models.export import state_names

# ---------------------------------------------------------------- brute force


def log_marginals(log_joint, cards, codes):
    """``log sum_hidden joint`` of each row: `codes` (n_rows, n_vars) with -1 for a hidden cell.

    `log_joint` maps an int array (n_configurations, n_vars) of full codes to their log joint.
    Returns shape (n_rows,).
    """
    out = np.empty(len(codes))
    for r, row in enumerate(codes):
        hidden = np.flatnonzero(row < 0)
        grid = np.array(list(itertools.product(*(range(cards[j]) for j in hidden))), dtype=np.int64)
        full = np.repeat(row[None, :], len(grid), axis=0)
        full[:, hidden] = grid.reshape(len(grid), len(hidden))
        out[r] = logsumexp(log_joint(full))
    return out


def with_class(codes, c):
    """Rows of attribute codes with the class code `c` in front (the networks' variable order)."""
    return np.hstack([np.full((len(codes), 1), c, dtype=np.int64), codes])


def class_posterior(log_joint, cards, codes, n_classes):
    """P(y | observed x) by enumeration, for a joint over (class, attributes)."""
    scores = np.column_stack([log_marginals(log_joint, cards, with_class(codes, c)) for c in range(n_classes)])
    return np.exp(scores - logsumexp(scores, axis=1, keepdims=True))


def factor_product(mn):
    """The unnormalized log product of a Markov network's factors (no partition function)."""
    position = {v: j for j, v in enumerate(mn.variables)}
    with np.errstate(divide="ignore"):
        logs = [([position[v] for v in scope], np.log(table)) for scope, table in mn.factors]

    def log_joint(full):
        total = np.zeros(len(full))
        for scope, table in logs:
            total += table[tuple(full[:, p] for p in scope)]
        return total

    return log_joint


def encoded(model, X):
    """The model's codes of `X` through its public fitted attributes (``-1``: unobserved or unseen)."""
    frame = X[list(model.encoder_.columns_)]
    if getattr(model, "discretizer_", None) is not None:
        frame = model.discretizer_.transform(frame)
    return model.encoder_.transform(frame)


# ---------------------------------------------------------------- data


def _mixed_frame(seed, n=240):
    """Strings with dependencies, one numeric column (cut by the default discretizer), missing cells."""
    rng = np.random.default_rng(seed)
    y = rng.integers(3, size=n)
    a = np.where(rng.random(n) < 0.7, y % 2, rng.integers(2, size=n))
    b = np.where(rng.random(n) < 0.6, (a + y) % 3, rng.integers(3, size=n))
    c = np.where(rng.random(n) < 0.5, b, rng.integers(4, size=n))
    X = pd.DataFrame(
        {
            "a": [f"a{v}" for v in a],
            "b": [f"b{v}" for v in b],
            "c": [f"c{v}" for v in c],
            "num": np.round(rng.normal(size=n) + 1.5 * y, 3),
        }
    )
    X.loc[rng.random(n) < 0.05, "c"] = np.nan  # "<missing>" is a state of c
    return X, pd.Series([f"k{v}" for v in y], name="label")


def _data(name):
    if name == "mixed":
        return _mixed_frame(0)
    return gm.datasets.load(name, return_X_y=True)


def _test_rows(X, seed, unseen=True):
    """12 rows of `X`; with `unseen`, one value never seen in fit and one unobserved cell (where the data allow)."""
    rng = np.random.default_rng(seed)
    rows = X.iloc[rng.choice(len(X), size=12, replace=False)].reset_index(drop=True).copy()
    if not unseen:
        return rows
    text = [j for j in range(X.shape[1]) if not pd.api.types.is_numeric_dtype(X.dtypes.iloc[j])]
    numeric = [j for j in range(X.shape[1]) if j not in text]
    if text:
        rows.iloc[0, text[0]] = "never seen in fit"
    if numeric:
        rows.iloc[1, numeric[0]] = np.nan  # no NaN in fit: unobserved
        rows.iloc[2, numeric[-1]] = 1e6  # far right: the last interval
    if len(text) > 1:
        rows.iloc[3, text[-1]] = "never seen either"
        rows.iloc[4, text[0]] = "never seen in fit"
        rows.iloc[4, text[1]] = "never seen either"
    return rows


def _discriminative():
    return Discriminative(penalty=1.0, generative="bdeu-auto")


# ---------------------------------------------------------------- ChowLiu: one network per class

CHOW_LIU = {
    "default": lambda: ChowLiu(),
    "ml": lambda: ChowLiu(criterion="ml", estimator="bdeu"),
    "discriminative": lambda: ChowLiu(estimator=_discriminative()),
}


@pytest.mark.parametrize("dataset", ["iris", "car", "tic-tac-toe", "mixed"])
@pytest.mark.parametrize("key", list(CHOW_LIU))
def test_chow_liu_networks_posterior_is_predict_proba(key, dataset):
    X, y = _data(dataset)
    model = CHOW_LIU[key]().fit(X, y)
    prior, networks = model.to_bayesian_networks()
    assert list(networks) == [c.item() if isinstance(c, np.generic) else c for c in model.classes_]
    assert prior.shape == (len(model.classes_),) and prior.sum() == pytest.approx(1.0, abs=1e-12)
    rows = _test_rows(X, seed=1)
    codes = encoded(model, rows)
    assert (codes < 0).any()  # the rows do test summing out
    scores = np.column_stack(
        [
            np.log(prior[c]) + log_marginals(bn.log_likelihood_codes, list(bn.cardinalities.values()), codes)
            for c, bn in enumerate(networks.values())
        ]
    )
    posterior = np.exp(scores - logsumexp(scores, axis=1, keepdims=True))
    np.testing.assert_allclose(posterior, model.predict_proba(rows), rtol=0, atol=1e-9)


@pytest.mark.parametrize("key", ["default", "discriminative"])
def test_chow_liu_networks_structure_states_and_tables(key):
    X, y = _mixed_frame(1)
    model = CHOW_LIU[key]().fit(X, y)
    prior, networks = model.to_bayesian_networks()
    for c, bn in enumerate(networks.values()):
        assert isinstance(bn, DiscreteBayesianNetwork) and bn.name == "ChowLiu"
        assert bn.variables == list(X.columns)
        assert sorted(bn.graph.edges) == sorted(model.structures_[c].edges)
        for j, column in enumerate(model.encoder_.columns_):
            assert bn.states[column] == state_names(model.encoder_.levels_[j])
        assert "<missing>" in bn.states["c"] and bn.states["num"][0].startswith("(-inf, ")
        if key == "default":  # the fitted tables are the CPTs
            for name, table in zip(X.columns, model.log_tables_[c]):
                np.testing.assert_allclose(np.log(bn.cpts[name]).reshape(-1), table.reshape(-1), atol=1e-12)
    if key == "default":
        np.testing.assert_allclose(np.log(prior), model.class_log_prior_, atol=1e-12)
    else:  # the potentials' normalizers moved into the prior
        assert not np.allclose(np.log(prior), model.class_log_prior_ - logsumexp(model.class_log_prior_))


def test_chow_liu_networks_exact_tiny_case():
    # Two classes of 4 rows each, MLE tables: class "p" has a = b (one tree a -> b or b -> a),
    # class "q" has a and b independent and uniform. P(y) = 1/2 each.
    X = pd.DataFrame({"a": list("xxyy") + list("xyxy"), "b": list("xxyy") + list("xxyy")})
    y = ["p"] * 4 + ["q"] * 4
    model = ChowLiu(criterion="ml", estimator="mle").fit(X, y)
    prior, networks = model.to_bayesian_networks()
    np.testing.assert_allclose(prior, [0.5, 0.5])
    grid = np.array(list(itertools.product(range(2), range(2))))
    np.testing.assert_allclose(np.exp(networks["p"].log_likelihood_codes(grid)), [0.5, 0, 0, 0.5], atol=1e-15)
    np.testing.assert_allclose(np.exp(networks["q"].log_likelihood_codes(grid)), [0.25] * 4, atol=1e-15)


def test_chow_liu_networks_written_in_bif_and_xmlbif(tmp_path):
    X, y = _mixed_frame(2)
    _, networks = ChowLiu().fit(X, y).to_bayesian_networks()
    for label, bn in networks.items():
        for back in (read_bif(write_bif(bn)), read_xmlbif(write_xmlbif(bn))):
            assert back.variables == bn.variables and back.parents == bn.parents and back.states == bn.states
            for v in bn.variables:
                np.testing.assert_allclose(back.cpts[v], bn.cpts[v], rtol=1e-15, atol=0)
        write_bif(bn, tmp_path / f"{label}.bif")
        assert read_bif(tmp_path / f"{label}.bif").variables == bn.variables


def test_chow_liu_networks_unfitted():
    with pytest.raises(gm.models.NotFittedError):
        ChowLiu().to_bayesian_networks()
