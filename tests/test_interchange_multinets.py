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
from test_interchange import _data, _mixed_frame  # the same test data as the one-network exports

import graphmodels as gm
from graphmodels._special import logsumexp
from graphmodels.estimators import Discriminative
from graphmodels.io import read_bif, read_uai, read_xmlbif, write_bif, write_uai, write_xmlbif
from graphmodels.models import AODE, AnDE, ChowLiu, HyperforestClassifier, KikuchiBayes
from graphmodels.models.export import state_names
from graphmodels.networks import DiscreteBayesianNetwork, DiscreteMarkovNetwork

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


# ---------------------------------------------------------------- AODE / AnDE: the members


def _train_codes(model, X, y):
    codes = encoded(model, X)
    labels = {label: c for c, label in enumerate(model.classes_)}
    return codes, np.array([labels[v] for v in y])


def _ensemble_posterior(model, networks, X_train, y_train, codes):
    """The model's rule, written out: the average of the qualifying members' joints, level by level.

    A set S qualifies for (row, class y) when every super-parent is observed and its value x_S
    was counted at least `frequency_threshold` times in training (N[x_S], or N[y, x_S] with
    frequency="attribute-class"); where none does, the level below decides. Counts are taken
    from the training rows directly.
    """
    train, train_y = _train_codes(model, X_train, y_train)
    n_classes = len(model.classes_)
    top = max(len(key) for key in networks)
    columns = list(model.encoder_.columns_)
    joints = {}  # each member's log P_S(y, x_observed), (n_rows, n_classes), hidden attributes summed out
    for key, bn in networks.items():
        cards = list(bn.cardinalities.values())
        joints[key] = np.column_stack(
            [log_marginals(bn.log_likelihood_codes, cards, with_class(codes, c)) for c in range(n_classes)]
        )
    scores = np.empty((len(codes), n_classes))
    for r, row in enumerate(codes):
        for c in range(n_classes):
            for m in range(top, -1, -1):
                qualifying = []
                for key in (k for k in networks if len(k) == m):
                    positions = [columns.index(name) for name in key]
                    if (row[positions] < 0).any():
                        continue
                    match = (train[:, positions] == row[positions]).all(axis=1)
                    if model.frequency == "attribute-class":
                        match &= train_y == c
                    if m and match.sum() < model.frequency_threshold:
                        continue
                    qualifying.append(joints[key][r, c])
                if qualifying:
                    scores[r, c] = logsumexp(qualifying) - np.log(len(qualifying))
                    break
    return np.exp(scores - logsumexp(scores, axis=1, keepdims=True))


ENSEMBLES = {
    "aode": lambda: AODE(),
    "aode-rare": lambda: AODE(frequency_threshold=85),  # row 5 of "mixed" falls back to naive Bayes
    "aode-attribute-class": lambda: AODE(frequency="attribute-class", frequency_threshold=25),
    "a2de": lambda: AnDE(n=2),
    "a2de-attribute-class": lambda: AnDE(n=2, frequency="attribute-class", frequency_threshold=10),
    "a3de": lambda: AnDE(n=3, frequency_threshold=5),
}


@pytest.mark.parametrize("dataset", ["car", "mixed"])
@pytest.mark.parametrize("key", list(ENSEMBLES))
def test_member_networks_average_is_predict_proba(key, dataset):
    X, y = _data(dataset)
    model = ENSEMBLES[key]().fit(X, y)
    networks = model.member_networks(fallback=True)
    n = model.n if isinstance(model, AnDE) else 1
    assert [len(k) for k in networks] == sorted((len(k) for k in networks), reverse=True)
    assert sum(len(k) == n for k in networks) == len(model.ranked_superparents())
    assert () in networks
    rows = _test_rows(X, seed=3)
    codes = encoded(model, rows)
    assert (codes < 0).any()  # unobserved super-parents are left out, other attributes summed out
    expected = _ensemble_posterior(model, networks, X, y, codes)
    np.testing.assert_allclose(expected, model.predict_proba(rows), rtol=0, atol=1e-9)


@pytest.mark.parametrize("make", [lambda: AODE(frequency_threshold=0), lambda: AnDE(n=2, frequency_threshold=0)])
def test_member_networks_plain_average_on_observed_rows(make):
    # Every member qualifies on rows without unseen values: the plain average of their joints.
    X, y = gm.datasets.load("car", return_X_y=True)
    model = make().fit(X, y)
    members = model.member_networks()
    assert all(len(key) == len(next(iter(members))) for key in members)
    codes = encoded(model, X.iloc[::97])
    joint = np.stack(
        [
            np.column_stack([bn.log_likelihood_codes(with_class(codes, c)) for c in range(len(model.classes_))])
            for bn in members.values()
        ]
    )
    average = logsumexp(joint, axis=0)
    posterior = np.exp(average - logsumexp(average, axis=1, keepdims=True))
    np.testing.assert_allclose(posterior, model.predict_proba(X.iloc[::97]), rtol=0, atol=1e-9)


def test_member_network_structure_and_tables():
    X, y = _mixed_frame(4)
    aode = AODE().fit(X, y)
    bn = aode.member_network("b")
    assert bn.variables == ["label", "a", "b", "c", "num"]
    assert sorted(bn.graph.edges) == sorted(aode.member_structure("b").edges)
    assert bn.parents == {"label": (), "a": ("label", "b"), "b": ("label",), "c": ("label", "b"), "num": ("label", "b")}
    # P(y) P(b | y) is the fitted joint P(y, b); P(a | y, b) the fitted pair table.
    joint = bn.cpts["label"][:, None] * bn.cpts["b"]
    np.testing.assert_allclose(np.log(joint), aode.superparent_log_joint_[1], atol=1e-12)
    offsets = aode.offsets_
    pair = aode.pair_log_tables_[:, offsets[1] : offsets[2], offsets[0] : offsets[1]]
    np.testing.assert_allclose(np.log(bn.cpts["a"]), pair, atol=1e-12)
    # The fallback: naive Bayes.
    nb = aode.member_network(())
    assert all(nb.parents[v] == ("label",) for v in X.columns)
    np.testing.assert_allclose(np.log(nb.cpts["label"]), aode.class_log_prior_, atol=1e-12)

    a2de = AnDE(n=2).fit(X, y)
    bn = a2de.member_network(("num", "a"))  # any order: the chain follows the column order
    assert bn.parents["a"] == ("label",) and bn.parents["num"] == ("label", "a")
    assert bn.parents["c"] == ("label", "a", "num")
    assert sorted(bn.graph.edges) == sorted(a2de.member_structure(("a", "num")).edges)
    s = [tuple(sp) for sp in a2de.superparents_[2].tolist()].index((0, 3))
    start, end = a2de.superparent_offsets_[2][s : s + 2]
    joint = bn.cpts["label"][:, None, None] * bn.cpts["a"][:, :, None] * bn.cpts["num"]
    np.testing.assert_allclose(
        np.log(joint).reshape(len(a2de.classes_), -1), a2de.superparent_log_joint_[2][:, start:end], atol=1e-12
    )
    assert list(a2de.member_networks(fallback=True))[-5:] == [("a",), ("b",), ("c",), ("num",), ()]


def test_member_network_errors():
    X, y = _mixed_frame(5)
    with pytest.raises(gm.models.NotFittedError):
        AODE().member_networks()
    aode = AODE().fit(X, y)
    with pytest.raises(ValueError, match=r"`superparents` must have at most 1 column name: .* got \('a', 'b'\)"):
        aode.member_network(("a", "b"))
    with pytest.raises(ValueError, match=r"must name fitted columns, got 'z'"):
        aode.member_network("z")
    with pytest.raises(ValueError, match=r"names a column twice"):
        AnDE(n=2).fit(X, y).member_network(("a", "a"))


def test_member_networks_written_in_bif_xmlbif_and_uai():
    X, y = _mixed_frame(6)
    for bn in AnDE(n=2).fit(X, y).member_networks(fallback=True).values():
        for back in (read_bif(write_bif(bn)), read_xmlbif(write_xmlbif(bn))):
            assert back.variables == bn.variables and back.parents == bn.parents and back.states == bn.states
            for v in bn.variables:
                np.testing.assert_allclose(back.cpts[v], bn.cpts[v], rtol=1e-15, atol=0)
        back = read_uai(write_uai(bn))
        grid = np.array(list(itertools.product(*(range(r) for r in bn.cardinalities.values()))))[::7]
        np.testing.assert_allclose(back.log_likelihood_codes(grid), bn.log_likelihood_codes(grid), atol=1e-12)


# ---------------------------------------------------------------- HyperforestClassifier: one Markov network


@pytest.mark.parametrize(
    "dataset, treewidth", [("iris", 1), ("car", 2), ("tic-tac-toe", 1), ("tic-tac-toe", 2), ("mixed", 2)]
)
@pytest.mark.parametrize("representation", ["joint", "shared", "free"])
def test_hyperforest_markov_network_posterior_is_predict_proba(representation, dataset, treewidth):
    X, y = _data(dataset)
    model = HyperforestClassifier(representation=representation, treewidth=treewidth).fit(X, y)
    mn = model.to_markov_network()
    assert isinstance(mn, DiscreteMarkovNetwork) and mn.name == "HyperforestClassifier"
    assert mn.variables == [str(y.name) if y.name is not None else "class", *map(str, X.columns)]
    assert list(mn.cardinalities.values()) == [len(model.classes_), *model.encoder_.cardinalities_]
    # The factors are normalized conditionals (and P(y)): the product sums to 1.
    assert mn.log_partition() == pytest.approx(0.0, abs=1e-9)
    rows = _test_rows(X, seed=1)
    codes = encoded(model, rows)
    assert (codes < 0).any()
    posterior = class_posterior(factor_product(mn), list(mn.cardinalities.values()), codes, len(model.classes_))
    np.testing.assert_allclose(posterior, model.predict_proba(rows), rtol=0, atol=1e-9)
    # The MARKOV file holds the same network.
    back = read_uai(write_uai(mn))
    assert [scope for scope, _ in back.factors] == [
        tuple(str(mn.variables.index(v)) for v in scope) for scope, _ in mn.factors
    ]
    for (_, table), (_, mine) in zip(back.factors, mn.factors):
        np.testing.assert_array_equal(table, mine)


def test_hyperforest_markov_network_factors():
    X, y = _mixed_frame(7)
    n_classes = 3
    shared = HyperforestClassifier(representation="shared").fit(X, y)
    mn = shared.to_markov_network()
    assert mn.factors[0][0] == ("label",)
    np.testing.assert_allclose(np.log(mn.factors[0][1]), shared.class_log_prior_, atol=1e-12)
    assert all(scope[-1] == "label" for scope, _ in mn.factors)
    assert len(mn.factors) == 1 + len(shared.networks_[0]["cliques"])

    free = HyperforestClassifier(representation="free").fit(X, y)
    mn = free.to_markov_network()
    assert len(mn.factors) == 1 + sum(len(network["cliques"]) for network in free.networks_)
    k = 1
    for c, network in enumerate(free.networks_):
        for clique, table in zip(network["cliques"], network["log_tables"]):
            scope, factor = mn.factors[k]
            assert scope == (*(str(X.columns[p]) for p in clique), "label")
            other = [d for d in range(n_classes) if d != c]
            np.testing.assert_array_equal(factor[..., other], 1.0)  # acts in class c only
            np.testing.assert_allclose(np.log(factor[..., c]), table[0], atol=1e-12)
            k += 1

    joint = HyperforestClassifier(representation="joint").fit(X, y)
    mn = joint.to_markov_network()
    assert len(mn.factors) == len(joint.networks_[0]["cliques"])
    assert set(mn.graph.nodes) == {"label", *X.columns}


def test_hyperforest_markov_network_sums_to_one_by_enumeration():
    X, y = _mixed_frame(8, n=120)
    for representation in ["joint", "shared", "free"]:
        mn = HyperforestClassifier(representation=representation).fit(X, y).to_markov_network()
        grid = np.array(list(itertools.product(*(range(r) for r in mn.cardinalities.values()))))
        assert np.exp(factor_product(mn)(grid)).sum() == pytest.approx(1.0, abs=1e-12)


def test_hyperforest_markov_network_unfitted():
    with pytest.raises(gm.models.NotFittedError):
        HyperforestClassifier().to_markov_network()


# ---------------------------------------------------------------- KikuchiBayes: one stage's product


def _stage_posterior(model, stage, codes):
    mn = model.to_markov_network(stage)
    return class_posterior(factor_product(mn), list(mn.cardinalities.values()), codes, len(model.classes_))


@pytest.mark.parametrize("dataset", ["iris", "car", "tic-tac-toe", "mixed"])
def test_kikuchi_map_network_posterior_is_predict_proba(dataset):
    X, y = _data(dataset)
    model = KikuchiBayes(averaging=False).fit(X, y)
    rows = _test_rows(X, seed=1, unseen=False)
    codes = encoded(model, rows)
    assert (codes >= 0).all()
    np.testing.assert_allclose(_stage_posterior(model, None, codes), model.predict_proba(rows), rtol=0, atol=1e-9)


@pytest.mark.parametrize("dataset", ["iris", "car", "mixed"])
def test_kikuchi_averaged_stage_networks_are_predict_proba(dataset):
    X, y = _data(dataset)
    model = KikuchiBayes(averaging=True).fit(X, y)
    rows = _test_rows(X, seed=2, unseen=False)
    codes = encoded(model, rows)
    weights = model.path_["weight"].to_numpy()
    assert (weights > 0).sum() > 1  # there is an average
    average = sum(w * _stage_posterior(model, s, codes) for s, w in enumerate(weights) if w > 0)
    np.testing.assert_allclose(average / weights.sum(), model.predict_proba(rows), rtol=0, atol=1e-9)


def test_kikuchi_network_factors_are_potentials_to_counting_numbers():
    X, y = gm.datasets.load("car", return_X_y=True)
    model = KikuchiBayes(averaging=False).fit(X, y)
    mn = model.to_markov_network()
    assert mn.variables == ["class", *X.columns] and mn.name == "KikuchiBayes"
    regions = {r: c for r, c in model.stage_counting_numbers_[model.map_step_].items() if c}
    assert [scope for scope, _ in mn.factors] == [tuple(map(str, r)) for r in regions]
    assert any(c < 0 for c in regions.values())  # negative exponents occur
    for (_, table), (region, c) in zip(mn.factors, regions.items()):
        assert (table > 0).all()
        potential = model.potential(region)["probability"].to_numpy().reshape(table.shape)
        np.testing.assert_allclose(np.log(table), c * np.log(potential), atol=1e-12)
    back = read_uai(write_uai(mn))
    for (_, table), (_, mine) in zip(back.factors, mn.factors):
        np.testing.assert_array_equal(table, mine)


def test_kikuchi_network_stage_errors():
    X, y = gm.datasets.load("car", return_X_y=True)
    model = KikuchiBayes(averaging=False).fit(X, y)
    last = len(model.path_) - 1
    assert last != model.map_step_
    with pytest.raises(ValueError, match=rf"the tables of stage {last} were not kept.*averaging=True"):
        model.to_markov_network(last)
    for stage in [-1, last + 1, 1.5, True]:
        with pytest.raises(ValueError, match=r"`stage` must be a row of path_"):
            model.to_markov_network(stage)
    averaged = KikuchiBayes(averaging=True).fit(X, y)
    assert len(averaged.to_markov_network(last).factors) > 0
    with pytest.raises(gm.models.NotFittedError):
        KikuchiBayes().to_markov_network()


# ---------------------------------------------------------------- errors point to the methods


def test_write_uai_of_a_model_points_to_its_export():
    X, y = gm.datasets.load("car", return_X_y=True)
    X, y = X.iloc[:300], y.iloc[:300]
    with pytest.raises(TypeError, match=r"got ChowLiu; write each network of model.to_bayesian_networks\(\)"):
        write_uai(ChowLiu(representation="free").fit(X, y))
    with pytest.raises(TypeError, match=r"got AnDE; write each network of model.member_networks\(\)"):
        write_uai(AnDE().fit(X, y))
    with pytest.raises(TypeError, match=r"got KikuchiBayes; write model.to_markov_network\(\)"):
        write_uai(KikuchiBayes().fit(X, y))
