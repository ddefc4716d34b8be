"""Messages and exports describe the model that was fitted (issue 26).

A ``ChowLiu()`` whose ``representation="auto"`` kept TAN's shared tree is TAN: it exports as one
Bayesian network (its export failed with a message about "one tree per class"); one that kept a
tree per class says so. ``cpd`` on the models with clique or region tables points to
``potential`` (it was a bare ``AttributeError``).
"""

from __future__ import annotations

import importlib.util
import io

import numpy as np
import pytest

import graphmodels as gm
from graphmodels.cli import _describe
from graphmodels.reporting._page import structure_caption


@pytest.fixture(scope="module")
def car():
    return gm.datasets.load("car", return_X_y=True)


@pytest.fixture(scope="module")
def shared(car):
    model = gm.ChowLiu().fit(*car)
    assert model.representation_ == "shared"  # "auto" keeps TAN's tree on car
    return model


@pytest.fixture(scope="module")
def free(car):
    return gm.ChowLiu(representation="free").fit(*car)


def test_a_chow_liu_with_one_shared_tree_is_tans_network(car, shared):
    mine, tan = shared.to_bayesian_network(), gm.TAN().fit(*car).to_bayesian_network()
    assert mine.variables == tan.variables and mine.parents == tan.parents and mine.states == tan.states
    for variable in mine.variables:
        np.testing.assert_allclose(mine.cpts[variable], tan.cpts[variable], rtol=0, atol=1e-12)
    # The network's posterior is the model's.
    X, _ = car
    codes = shared.encoder_.transform(X.head(20))
    joint = np.column_stack(
        [mine.log_likelihood_codes(np.hstack([np.full((20, 1), c), codes])) for c in range(len(shared.classes_))]
    )
    posterior = np.exp(joint - np.logaddexp.reduce(joint, axis=1, keepdims=True))
    np.testing.assert_allclose(posterior, shared.predict_proba(X.head(20)), rtol=0, atol=1e-12)


@pytest.mark.parametrize("write, read", [("write_bif", "read_bif"), ("write_xmlbif", "read_xmlbif")])
def test_the_shared_tree_writes_and_reads_back(shared, write, read):
    bn = shared.to_bayesian_network()
    buffer = io.BytesIO()
    getattr(gm.io, write)(bn, buffer)
    back = getattr(gm.io, read)(io.BytesIO(buffer.getvalue()))
    assert back.parents == bn.parents
    np.testing.assert_allclose(back.cpts["maint"], bn.cpts["maint"], atol=1e-9)


def test_write_uai_of_a_shared_chow_liu_points_to_its_one_network(shared):
    with pytest.raises(TypeError, match=r"got ChowLiu; write model.to_bayesian_network\(\)\."):
        gm.io.write_uai(shared)


def test_a_chow_liu_with_a_tree_per_class_says_so(free):
    assert free.representation_ == "free"
    assert not hasattr(free, "to_bayesian_network")
    with pytest.raises(
        AttributeError, match=r"kept one tree per class \(representation_='free'\).*to_bayesian_networks"
    ):
        free.to_bayesian_network()
    prior, networks = free.to_bayesian_networks()  # what it exports instead
    assert len(networks) == len(free.classes_)
    with pytest.raises(gm.models.NotFittedError):
        gm.ChowLiu().to_bayesian_network()


@pytest.mark.skipif(importlib.util.find_spec("pgmpy") is None, reason="pgmpy (the interop extra) is not installed")
def test_interop_exports_the_shared_tree_and_explains_the_free_one(shared, free):
    from graphmodels.io import to_pgmpy

    assert sorted(to_pgmpy(shared).edges()) == sorted(shared.to_bayesian_network().graph.edges)
    with pytest.raises(TypeError, match=r"ChowLiu has no to_bayesian_network\(\) \(it kept one tree per class"):
        to_pgmpy(free)


def test_the_command_line_and_the_report_describe_the_representation_kept(shared, free):
    text = "\n".join(_describe(shared))
    assert "one tree for every class (TAN's)" in text and "in the structures of classes" not in text
    assert "I = 0.0720 nats" in text  # buying -> maint, TAN's weight
    assert "in the structures of classes" in "\n".join(_describe(free))
    assert structure_caption(shared).startswith("ChowLiu (one tree for every class: TAN's): 11 arcs")
    assert structure_caption(free).startswith("ChowLiu: one tree per class (4 classes)")


@pytest.mark.parametrize(
    "make, first_table",
    [
        (lambda X, y: gm.HyperforestClassifier().fit(X, y), lambda m: m.structure_.maximal_hyperedges[0]),
        (lambda X, y: gm.HyperforestDensity().fit(X), lambda m: m.structure_.maximal_hyperedges[0]),
        (lambda X, y: gm.KikuchiBayes().fit(X, y), lambda m: next(iter(m.region_log_tables_))),
    ],
    ids=["HyperforestClassifier", "HyperforestDensity", "KikuchiBayes"],
)
def test_cpd_of_a_model_with_clique_or_region_tables_points_to_potential(car, make, first_table):
    model = make(*car)
    assert not hasattr(model, "cpd")
    with pytest.raises(AttributeError, match=rf"{type(model).__name__} has no cpd\(\).*model\.potential\("):
        model.cpd("safety")
    assert "probability" in model.potential(first_table(model)).columns  # what it points to works
