"""Old import paths of the names issue 28 moved out of ``graphmodels.models`` still work, and warn.

The given networks went to :mod:`graphmodels.networks`, the readers, writers, bundled networks
and converters to :mod:`graphmodels.io`, the factor machinery to :mod:`graphmodels.inference`.
Each old path returns the very object of the new one with a ``DeprecationWarning`` naming both
(pyproject.toml turns such a warning into an error anywhere else in the suite, so nothing of
graphmodels uses an old path).
"""

import importlib
import re
import warnings

import pytest

#: (old module, name, new module): every old path kept as an alias.
MOVED = [
    *[
        ("graphmodels.models", name, "graphmodels.networks")
        for name in ("DiscreteBayesianNetwork", "DiscreteMarkovNetwork")
    ],
    *[
        ("graphmodels.models", name, "graphmodels.io")
        for name in ("read_bif", "write_bif", "read_xmlbif", "write_xmlbif", "read_uai", "write_uai", "load_network")
    ],
    ("graphmodels.models.bayesnet", "DiscreteBayesianNetwork", "graphmodels.networks"),
    ("graphmodels.models.bayesnet", "SUM_TOLERANCE", "graphmodels.networks.bayesnet"),
    ("graphmodels.models.markovnet", "DiscreteMarkovNetwork", "graphmodels.networks"),
    ("graphmodels.models.synthetic", "random_hypertree_network", "graphmodels.networks"),
    ("graphmodels.models.synthetic", "random_multidimensional_network", "graphmodels.networks"),
    ("graphmodels.models.queries", "NetworkQueries", "graphmodels.networks"),
    *[
        ("graphmodels.models.bif", name, "graphmodels.io")
        for name in ("read_bif", "write_bif", "load_network", "list_networks")
    ],
    *[("graphmodels.models.xmlbif", name, "graphmodels.io") for name in ("read_xmlbif", "write_xmlbif")],
    *[("graphmodels.models.uai", name, "graphmodels.io") for name in ("read_uai", "write_uai")],
    *[
        ("graphmodels.interop", name, "graphmodels.io")
        for name in ("to_pgmpy", "from_pgmpy", "to_pyagrum", "from_pyagrum")
    ],
    *[
        ("graphmodels.models.factors", name, "graphmodels.inference")
        for name in ("log_marginals", "junction_tree_of_scopes", "brute_force_log_marginals")
    ],
    *[
        ("graphmodels.models.inference", name, "graphmodels.inference")
        for name in ("forest_log_likelihood", "topological_order", "clique_tree_log_likelihood", "clique_tree_sample")
    ],
]


@pytest.mark.parametrize("old, name, new", MOVED, ids=[f"{old}.{name}" for old, name, _ in MOVED])
def test_old_path_warns_and_gives_the_same_object(old, name, new):
    module = importlib.import_module(old)
    expected = rf"^{re.escape(old)}\.{name} moved to {re.escape(new)}\.{name}; the old path will be removed\.$"
    with pytest.warns(DeprecationWarning, match=expected):
        value = getattr(module, name)
    assert value is getattr(importlib.import_module(new), name)


def test_the_warning_points_at_the_line_that_used_the_old_path():
    with pytest.warns(DeprecationWarning) as record:
        from graphmodels.models import read_bif  # noqa: F401
    assert {w.filename for w in record} == {__file__}


@pytest.mark.parametrize("old", sorted({old for old, _, _ in MOVED}))
def test_an_unknown_name_is_still_an_attribute_error(old):
    module = importlib.import_module(old)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # and no warning on the way
        assert not hasattr(module, "no_such_name")


def test_the_new_layers_are_on_the_facade_and_a_star_import_keeps_the_standard_io():
    import graphmodels as gm

    assert gm.io.read_bif is importlib.import_module("graphmodels.io.bif").read_bif
    assert gm.networks.DiscreteBayesianNetwork.__module__ == "graphmodels.networks.bayesnet"
    namespace = {"io": importlib.import_module("io")}
    exec("from graphmodels import *", namespace)
    assert namespace["io"].__name__ == "io" and namespace["networks"] is gm.networks
