"""Bayesian networks to and from pgmpy and pyAgrum.

:func:`to_pgmpy` and :func:`to_pyagrum` take a
:class:`~graphmodels.networks.DiscreteBayesianNetwork` or a fitted model that is
one Bayesian network (one with ``to_bayesian_network()``: NaiveBayes, TAN,
FAN, KDB, SelectiveKDB, HierarchicalNaiveBayes, MultiDimensionalNaiveBayes,
MultiDimensionalTAN, and a ChowLiu that kept one tree for every class, which is
TAN) and build the same network in the other library, so that
its inference engines (pgmpy's ``VariableElimination``, pyAgrum's
``LazyPropagation``) answer queries on it. :func:`from_pgmpy` and
:func:`from_pyagrum` turn a network of those libraries back into a
:class:`~graphmodels.networks.DiscreteBayesianNetwork`. The libraries are
optional: install them with ``pip install 'graphmodels[interop]'``; they are
imported when a function of this module is called, never by ``import
graphmodels``.

Names are kept as they are: both libraries accept any string as a variable
name or a state label (spaces, ``#``, unicode, labels such as ``"1"``,
``"10"``, ``"2"``), so no name is rewritten on the way out. On the way back,
names and labels that are not strings (pgmpy's default states ``0, 1, ...``)
are written with ``str``.

Every table is copied exactly (the same float64 numbers, only reordered):

* graphmodels: a CPT of shape ``(r_parent1, ..., r_parentK, r_child)``,
  parents in ``parents[child]`` order, the child on the last axis;
* pgmpy: a ``TabularCPD`` whose ``values`` have shape ``(r_child,
  r_parent1, ..., r_parentK)`` (``get_values()``: ``(r_child, r_parent1 *
  ... * r_parentK)``, the last parent varying fastest), the parents given
  as ``evidence`` in the same order;
* pyAgrum: a CPT whose variables (``cpt.names``) are the child, then the
  parents in the order their arcs were added; ``cpt.toarray()`` has one axis
  per variable in the *reverse* of that order, and ``fillWith`` reads a flat
  list in that array's C order.

Models that are not one Bayesian network have no ``to_bayesian_network()``
and raise ``TypeError`` here: the Chow-Liu multinet (a ``ChowLiu`` that kept
one tree per class, ``representation_ == "free"``), the ensembles (``AODE``, ``AnDE``, ``MultiDimensionalAODE``:
averages of networks), ``HyperforestClassifier`` and ``KikuchiBayes``
(decomposable or region-based models over hyperedges). The message says what
they export instead: each class's network (``ChowLiu.to_bayesian_networks()``)
and each member's (``member_networks()`` of ``AODE``, ``AnDE``), which these
functions take one at a time, and a Markov network
(``to_markov_network()``), which :func:`graphmodels.io.write_uai` writes.

Examples
--------
>>> import graphmodels as gm
>>> from graphmodels.io import from_pgmpy, to_pgmpy
>>> X, y = gm.datasets.load("car", return_X_y=True)
>>> model = gm.TAN().fit(X, y)
>>> network = to_pgmpy(model)  # a pgmpy DiscreteBayesianNetwork
>>> network.get_cpds("class").state_names["class"]
['acc', 'good', 'unacc', 'vgood']
>>> from_pgmpy(network).variables == model.to_bayesian_network().variables
True
"""

from __future__ import annotations

import importlib
import warnings
from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from ..models.base import BaseModel
from ..models.export import state_names
from ..models.registry import registered_models
from ..networks.bayesnet import SUM_TOLERANCE, DiscreteBayesianNetwork

if TYPE_CHECKING:
    import pgmpy.models
    import pyagrum

__all__ = ["to_pgmpy", "from_pgmpy", "to_pyagrum", "from_pyagrum"]

#: What to run when pgmpy or pyAgrum is missing.
INSTALL_HINT = "pip install 'graphmodels[interop]'"


def _require(module: str, label: str, caller: str) -> Any:
    """Import `module`, silencing the warnings the import itself raises.

    They are about the library's own modules, not about the caller's request: pgmpy 1.1 warns
    that some of its modules are deprecated, and its progress bars (tqdm) that ipywidgets is
    missing in a notebook.
    """
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return importlib.import_module(module)
    except ImportError as error:
        raise ImportError(f"{caller} needs {label}, which is not installed: {INSTALL_HINT}") from error


#: Why the models without ``to_bayesian_network()`` have none (see graphmodels.models.export).
_WHY_NOT = {
    "ChowLiu": "it kept one tree per class, representation_='free': a Bayesian multinet",
    "AODE": "an average of one-dependence networks",
    "AnDE": "an average of n-dependence networks",
    "MultiDimensionalAODE": "an average of networks",
    "HyperforestClassifier": "a decomposable model over hyperedges, not directed families",
    "KikuchiBayes": "a region-based (Kikuchi) approximation, not one normalized network",
}

#: What those models export instead.
_INSTEAD = {
    "ChowLiu": "export each class's network of model.to_bayesian_networks() instead, or fit "
    "ChowLiu(representation='shared') (TAN's tree), which is one network",
    "AODE": "export each member's network of model.member_networks() instead",
    "AnDE": "export each member's network of model.member_networks() instead",
    "HyperforestClassifier": "its exact Markov network, model.to_markov_network(), can be written by write_uai",
    "KikuchiBayes": "its Markov network, model.to_markov_network(), can be written by write_uai",
}


#: Models whose fitted state decides whether they are one network (their ``to_bayesian_network``
#: is missing from an instance that is not), and when they are.
_WHEN = {"ChowLiu": "with one tree for every class"}


def _exportable() -> list[str]:
    names = [cls.__name__ for cls in registered_models().values() if hasattr(cls, "to_bayesian_network")]
    return [f"{name} ({_WHEN[name]})" if name in _WHEN else name for name in names]


def _as_network(source: Any, caller: str) -> DiscreteBayesianNetwork:
    """The network of `source`: itself, or a fitted model's ``to_bayesian_network()``."""
    if isinstance(source, DiscreteBayesianNetwork):
        return source
    method = getattr(source, "to_bayesian_network", None)
    if isinstance(source, BaseModel) and callable(method):
        return method()
    exportable = ", ".join(_exportable())
    if isinstance(source, BaseModel):
        name = type(source).__name__
        why = f" ({_WHY_NOT[name]})" if name in _WHY_NOT else ""
        instead = f"; {_INSTEAD[name]}" if name in _INSTEAD else ""
        raise TypeError(
            f"{caller}: {name} has no to_bayesian_network(){why}, so it cannot be exported{instead}; "
            f"a DiscreteBayesianNetwork can, and so can the fitted models {exportable}."
        )
    raise TypeError(
        f"{caller} takes a DiscreteBayesianNetwork or a fitted model with to_bayesian_network() "
        f"({exportable}), got {type(source).__module__}.{type(source).__name__}."
    )


def _string_names(names: Iterable[Any], caller: str) -> list[str]:
    """``str`` of each variable name, refusing two that print alike (0 and "0")."""
    names = list(names)
    out = [name if isinstance(name, str) else str(name) for name in names]
    counts = Counter(out)
    if len(counts) < len(out):
        twice = next(name for name in out if counts[name] > 1)
        clash = [name for name, text in zip(names, out) if text == twice]
        raise ValueError(f"{caller}: the variables {clash!r} would all be named {twice!r}; rename them first.")
    return out


# ---------------------------------------------------------------------------- pgmpy
def to_pgmpy(model: Any) -> pgmpy.models.DiscreteBayesianNetwork:
    """The same Bayesian network as a pgmpy ``DiscreteBayesianNetwork``.

    Parameters
    ----------
    model : DiscreteBayesianNetwork or fitted model
        A network, or a fitted model with ``to_bayesian_network()``.

    Returns
    -------
    pgmpy.models.DiscreteBayesianNetwork
        Nodes in the order of ``variables``; one ``TabularCPD`` per variable
        with the parents as ``evidence`` (in ``parents[variable]`` order) and
        ``state_names`` set to the network's states. The graph's ``name`` is
        the network's name (``""`` for none).

    Raises
    ------
    TypeError
        If `model` is neither a network nor a model with ``to_bayesian_network()``.
    ImportError
        If pgmpy is not installed.

    See Also
    --------
    from_pgmpy, to_pyagrum

    Examples
    --------
    >>> from pgmpy.inference import VariableElimination
    >>> from graphmodels.networks import DiscreteBayesianNetwork
    >>> bn = DiscreteBayesianNetwork(
    ...     parents={"rain": (), "wet": ("rain",)},
    ...     states={"rain": ["no", "yes"], "wet": ["dry", "wet"]},
    ...     cpts={"rain": [0.8, 0.2], "wet": [[0.9, 0.1], [0.2, 0.8]]},
    ... )
    >>> network = to_pgmpy(bn)
    >>> network.get_cpds("wet").get_values().tolist()  # (r_wet, r_rain)
    [[0.9, 0.2], [0.1, 0.8]]
    >>> query = VariableElimination(network).query(["rain"], evidence={"wet": "wet"}, show_progress=False)
    >>> query.values.round(4).tolist()  # 0.16 / (0.08 + 0.16)
    [0.3333, 0.6667]
    """
    network = _as_network(model, "to_pgmpy")
    _require("pgmpy", "pgmpy", "to_pgmpy")
    models = _require("pgmpy.models", "pgmpy", "to_pgmpy")
    discrete = _require("pgmpy.factors.discrete", "pgmpy", "to_pgmpy")
    out = models.DiscreteBayesianNetwork()
    out.add_nodes_from(network.variables)
    out.add_edges_from((p, v) for v in network.variables for p in network.parents[v])
    cards = network.cardinalities
    cpds = []
    for v in network.variables:
        parents = list(network.parents[v])
        values = network.cpts[v].reshape(-1, cards[v]).T  # (r_child, configurations), last parent fastest
        cpds.append(
            discrete.TabularCPD(
                v,
                cards[v],
                np.array(values, dtype=np.float64),
                evidence=parents or None,
                evidence_card=[cards[p] for p in parents] or None,
                state_names={u: list(network.states[u]) for u in (v, *parents)},
            )
        )
    out.add_cpds(*cpds)
    out.name = network.name or ""
    return out


def from_pgmpy(
    network: pgmpy.models.DiscreteBayesianNetwork, *, atol: float = SUM_TOLERANCE
) -> DiscreteBayesianNetwork:
    """A pgmpy ``DiscreteBayesianNetwork`` as a graphmodels network.

    Parameters
    ----------
    network : pgmpy.models.DiscreteBayesianNetwork
        With a ``TabularCPD`` for every node.
    atol : float, default=1e-6
        Tolerance of the check that each conditional distribution sums to 1
        (see :class:`~graphmodels.networks.DiscreteBayesianNetwork`).

    Returns
    -------
    DiscreteBayesianNetwork
        Variables in the order of ``network.nodes()``; each variable's parents
        in the order of its CPD's ``evidence``; states from the CPD's
        ``state_names`` (written with ``str`` when they are not strings).

    Raises
    ------
    TypeError
        If `network` is not a pgmpy ``DiscreteBayesianNetwork``.
    ValueError
        If a node has no CPD, a CPD's evidence differs from the node's
        parents in the graph, two names print alike, or a table is not a
        conditional distribution.
    ImportError
        If pgmpy is not installed.

    See Also
    --------
    to_pgmpy, from_pyagrum

    Examples
    --------
    >>> from pgmpy.factors.discrete import TabularCPD
    >>> from pgmpy.models import DiscreteBayesianNetwork as PgmpyNetwork
    >>> network = PgmpyNetwork([("rain", "wet")])
    >>> network.add_cpds(
    ...     TabularCPD("rain", 2, [[0.8], [0.2]]),
    ...     TabularCPD("wet", 2, [[0.9, 0.2], [0.1, 0.8]], evidence=["rain"], evidence_card=[2]),
    ... )
    >>> bn = from_pgmpy(network)
    >>> bn.parents["wet"], bn.states["rain"]  # pgmpy's default states 0, 1 as strings
    (('rain',), ['0', '1'])
    >>> bn.cpts["wet"].tolist()  # (r_rain, r_wet)
    [[0.9, 0.1], [0.2, 0.8]]
    """
    _require("pgmpy", "pgmpy", "from_pgmpy")
    models = _require("pgmpy.models", "pgmpy", "from_pgmpy")
    if not isinstance(network, models.DiscreteBayesianNetwork):
        raise TypeError(
            "from_pgmpy takes a pgmpy.models.DiscreteBayesianNetwork, "
            f"got {type(network).__module__}.{type(network).__name__}."
        )
    nodes = list(network.nodes())
    names = dict(zip(nodes, _string_names(nodes, "from_pgmpy")))
    parents: dict[str, tuple[str, ...]] = {}
    states: dict[str, list[str]] = {}
    cpts: dict[str, np.ndarray] = {}
    for node in nodes:
        cpd = network.get_cpds(node)
        if cpd is None:
            raise ValueError(f"from_pgmpy: node {node!r} has no CPD.")
        evidence = list(cpd.variables[1:])
        if set(evidence) != set(network.get_parents(node)) or len(evidence) != len(set(evidence)):
            raise ValueError(
                f"from_pgmpy: the CPD of {node!r} is conditioned on {evidence}, "
                f"but its parents in the graph are {sorted(network.get_parents(node), key=str)}."
            )
        name = names[node]
        parents[name] = tuple(names[p] for p in evidence)
        states[name] = state_names(cpd.state_names[node])
        values = np.asarray(cpd.values, dtype=np.float64).reshape(cpd.cardinality)  # (r_child, *r_parents)
        cpts[name] = np.moveaxis(values, 0, -1)
    name = network.name if isinstance(network.name, str) and network.name else None
    return DiscreteBayesianNetwork(parents, states, cpts, name=name, atol=atol)


# ---------------------------------------------------------------------------- pyAgrum
def to_pyagrum(model: Any) -> pyagrum.BayesNet:
    """The same Bayesian network as a ``pyagrum.BayesNet``.

    Parameters
    ----------
    model : DiscreteBayesianNetwork or fitted model
        A network, or a fitted model with ``to_bayesian_network()``.

    Returns
    -------
    pyagrum.BayesNet
        One ``LabelizedVariable`` per variable, added in the order of
        ``variables`` (node ids ``0, 1, ...``), with the network's states as
        labels; arcs added in ``parents[variable]`` order, so each CPT's
        variables are the child, then its parents in that order. The
        ``name`` property is the network's name (unset for none).

    Raises
    ------
    TypeError
        If `model` is neither a network nor a model with ``to_bayesian_network()``.
    ImportError
        If pyAgrum is not installed.

    See Also
    --------
    from_pyagrum, to_pgmpy

    Examples
    --------
    >>> import pyagrum
    >>> from graphmodels.networks import DiscreteBayesianNetwork
    >>> bn = DiscreteBayesianNetwork(
    ...     parents={"rain": (), "wet": ("rain",)},
    ...     states={"rain": ["no", "yes"], "wet": ["dry", "wet"]},
    ...     cpts={"rain": [0.8, 0.2], "wet": [[0.9, 0.1], [0.2, 0.8]]},
    ... )
    >>> network = to_pyagrum(bn)
    >>> network.cpt("wet").names  # the child first
    ('wet', 'rain')
    >>> engine = pyagrum.LazyPropagation(network)
    >>> engine.setEvidence({"wet": "wet"})
    >>> engine.makeInference()
    >>> engine.posterior("rain").toarray().round(4).tolist()
    [0.3333, 0.6667]
    """
    network = _as_network(model, "to_pyagrum")
    gum = _require("pyagrum", "pyAgrum", "to_pyagrum")
    out = gum.BayesNet(network.name) if network.name else gum.BayesNet()
    for v in network.variables:
        out.add(gum.LabelizedVariable(v, v, list(network.states[v])))
    for v in network.variables:
        for p in network.parents[v]:
            out.addArc(p, v)
    for v in network.variables:
        cpt = out.cpt(v)
        axes = [*network.parents[v], v]
        order = [axes.index(name) for name in reversed(cpt.names)]
        cpt.fillWith(np.transpose(network.cpts[v], order).ravel().tolist())
    return out


def from_pyagrum(network: pyagrum.BayesNet, *, atol: float = SUM_TOLERANCE) -> DiscreteBayesianNetwork:
    """A ``pyagrum.BayesNet`` as a graphmodels network.

    Parameters
    ----------
    network : pyagrum.BayesNet
    atol : float, default=1e-6
        Tolerance of the check that each conditional distribution sums to 1
        (see :class:`~graphmodels.networks.DiscreteBayesianNetwork`).

    Returns
    -------
    DiscreteBayesianNetwork
        Variables in the order of their node ids; each variable's parents in
        the order of its CPT's variables (the order their arcs were added);
        states from the variables' labels (any discrete variable: labelized,
        range, integer, discretized). The name is the ``name`` property, if set.

    Raises
    ------
    TypeError
        If `network` is not a ``pyagrum.BayesNet``.
    ValueError
        If a table is not a conditional distribution (pyAgrum's default CPT
        of a new variable is all zeros).
    ImportError
        If pyAgrum is not installed.

    See Also
    --------
    to_pyagrum, from_pgmpy

    Examples
    --------
    >>> import pyagrum
    >>> network = pyagrum.fastBN("rain->wet")  # two binary variables with random CPTs
    >>> _ = network.cpt("rain").fillWith([0.8, 0.2])
    >>> _ = network.cpt("wet").fillWith([0.9, 0.1, 0.2, 0.8])  # wet varies fastest
    >>> bn = from_pyagrum(network)
    >>> bn.parents["wet"], bn.states["wet"]
    (('rain',), ['0', '1'])
    >>> bn.cpts["wet"].tolist()  # (r_rain, r_wet)
    [[0.9, 0.1], [0.2, 0.8]]
    """
    gum = _require("pyagrum", "pyAgrum", "from_pyagrum")
    if not isinstance(network, gum.BayesNet):
        raise TypeError(
            f"from_pyagrum takes a pyagrum.BayesNet, got {type(network).__module__}.{type(network).__name__}."
        )
    parents: dict[str, tuple[str, ...]] = {}
    states: dict[str, list[str]] = {}
    cpts: dict[str, np.ndarray] = {}
    for node in sorted(network.nodes()):
        variable = network.variable(node)
        name = variable.name()
        cpt = network.cpt(node)
        names = list(cpt.names)  # the child first, then the parents
        if names[0] != name or sorted(names[1:]) != sorted(network.variable(p).name() for p in network.parents(node)):
            raise ValueError(f"from_pyagrum: the CPT of {name!r} is over {names}, not the variable and its parents.")
        axes = [*names[1:], name]
        order = [names[::-1].index(axis) for axis in axes]
        parents[name] = tuple(names[1:])
        states[name] = [variable.label(k) for k in range(variable.domainSize())]
        cpts[name] = np.transpose(np.asarray(cpt.toarray(), dtype=np.float64), order)
    name = network.propertyWithDefault("name", "")
    return DiscreteBayesianNetwork(parents, states, cpts, name=name or None, atol=atol)
