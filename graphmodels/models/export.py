"""Fitted models as :class:`~graphmodels.networks.DiscreteBayesianNetwork` or Markov networks.

The classifiers that are one Bayesian network over the class (or the labels)
and the attributes offer ``to_bayesian_network()``, written once here:

* :func:`class_network`: a class with an arc to every attribute and arcs
  between attributes (:class:`~graphmodels.models.NaiveBayes`,
  :class:`~graphmodels.models.TAN`, :class:`~graphmodels.models.FAN`,
  :class:`~graphmodels.models.KDB`, :class:`~graphmodels.models.SelectiveKDB`,
  and a :class:`~graphmodels.models.ChowLiu` with one tree for every class);
* :func:`latent_tree_network`: naive Bayes over latent variables
  (:class:`~graphmodels.models.HierarchicalNaiveBayes`);
* :func:`multidimensional_network`: several class variables
  (:class:`~graphmodels.models.MultiDimensionalNaiveBayes`,
  :class:`~graphmodels.models.MultiDimensionalTAN`).

The variables are named as the model's columns and its class (``str`` of a
name that is not a string), and their states are the encoder's levels
written as strings (the discretizer's interval labels for cut columns,
``"<missing>"`` for the state of missing cells), in code order: the codes of
``model.encoder_`` are the network's codes. In every case the network's
posterior of the class given the attributes is the model's
``predict_proba``, also when attributes are unobserved (summed out).

The models that are not one Bayesian network do not have that method
(``hasattr(model, "to_bayesian_network")`` is False); each exports what it
exactly is, with the same names and codes:

* the Chow-Liu multinet (a :class:`~graphmodels.models.ChowLiu` that kept
  one tree per class, ``representation_ == "free"``; one that kept TAN's
  shared tree is TAN and has ``to_bayesian_network()``, by :func:`class_network`,
  missing only from the instances with a tree per class) is one network per
  class: ``to_bayesian_networks()``
  (:func:`class_conditional_networks`) gives the class prior ``P(y)`` and,
  for each class label, the network ``P(x | y = c)`` over the attributes;
* the ensembles :class:`~graphmodels.models.AODE` and
  :class:`~graphmodels.models.AnDE` average networks:
  ``member_network(superparents)`` and ``member_networks()``
  (:func:`superparent_member_network`) give each member ``P(y, x)``, one network
  over the class and the attributes, and the model's ``P(y, x)`` is their
  average over the members that qualify for the row (see
  :meth:`~graphmodels.models.AODE.member_networks`);
* :class:`~graphmodels.models.HyperforestClassifier` is one Markov network
  over the attributes and the class, for each representation: its
  ``to_markov_network()`` (:func:`classifier_markov_network`) has partition
  function 1 and its normalized product is the model's ``P(y, x)``;
* :class:`~graphmodels.models.KikuchiBayes` multiplies region tables raised
  to counting numbers, which is not a normalized joint: its
  ``to_markov_network(stage)`` is that product as a Markov network, whose
  conditional ``P(y | x)`` is the model's posterior at that stage of its
  path (kMAP at the MAP stage; kBMA averages the stages' posteriors).

The Markov networks of classifiers have the class as their first variable,
then the attributes in column order, as the Bayesian networks do (a Markov
network holds cardinalities, not state labels: the codes are those of
``encoder_`` and ``classes_``). :class:`~graphmodels.models.MultiDimensionalAODE`
exports nothing yet.

The density :class:`~graphmodels.models.HyperforestDensity` is one Markov
network over the attributes, exactly: its ``to_markov_network()``
(:func:`clique_network`) gives it, one factor per clique of its junction
forest. Every Markov network here can be written in the UAI format as
``MARKOV`` (:func:`~graphmodels.io.write_uai`); every Bayesian network
in BIF, XMLBIF or UAI ``BAYES``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any

import networkx as nx
import numpy as np

from .._memory import DEFAULT_MAX_CELLS, check_cells, describe_variables
from .._special import logsumexp
from ..estimators.discriminative import Discriminative
from ..networks import DiscreteBayesianNetwork, DiscreteMarkovNetwork

if TYPE_CHECKING:
    from .base import BaseClassifier, BaseModel
    from .multilabel import BaseMultiLabelClassifier

__all__ = [
    "UNSEEN_STATE",
    "class_conditional_networks",
    "class_network",
    "classifier_markov_network",
    "clique_network",
    "latent_tree_network",
    "multidimensional_network",
    "state_names",
    "superparent_member_network",
]

#: Extra state of a latent variable under another latent that stands for its child
#: configurations never seen in training (the model's "unknown latent value").
UNSEEN_STATE = "<unseen>"

#: Probability mass that each state of a latent child of the class gives, in all, to the
#: child configurations never seen in training (spread evenly over all configurations).
UNSEEN_MASS = 0.01


def state_names(levels: Sequence[Any] | np.ndarray) -> list[str]:
    """Distinct strings for state labels, in code order.

    Each label is written with ``str`` (numpy scalars first become Python
    scalars); labels that would print alike (``1`` and ``"1"``) are written
    with ``repr`` instead, and any still alike get ``#k`` appended.

    Parameters
    ----------
    levels : sequence or ndarray of shape (n_states,)
        State labels, such as one column's ``encoder_.levels_[j]`` or ``classes_``.

    Returns
    -------
    names : list of str

    Examples
    --------
    >>> state_names([1, 2.5, "(-inf, 2.45]", "<missing>"])
    ['1', '2.5', '(-inf, 2.45]', '<missing>']
    >>> state_names([1, "1", True])
    ['1', "'1'", 'True']
    """
    values = [v.item() if isinstance(v, np.generic) else v for v in levels]
    names = [str(v) for v in values]
    counts = Counter(names)
    if len(counts) < len(names):
        names = [repr(v) if counts[name] > 1 else name for v, name in zip(values, names)]
        counts = Counter(names)
        if len(counts) < len(names):
            seen: Counter[str] = Counter()
            renamed = []
            for name in names:
                seen[name] += 1
                renamed.append(f"{name}#{seen[name]}" if counts[name] > 1 else name)
            names = renamed
    return names


def _variable_names(names: Sequence[Hashable], owner: str, method: str = "to_bayesian_network") -> list[str]:
    """``str`` of each variable name, refusing two that print alike (0 and "0")."""
    out = [name if isinstance(name, str) else str(name) for name in names]
    counts = Counter(out)
    if len(counts) < len(out):
        twice = next(name for name in out if counts[name] > 1)
        clash = [name for name, text in zip(names, out) if text == twice]
        raise ValueError(
            f"{owner}.{method}: the variables {clash!r} would all be named {twice!r} in the network; "
            "give the columns (and the class) distinct string names."
        )
    return out


def _exp(log_table: np.ndarray) -> np.ndarray:
    return np.exp(np.asarray(log_table, dtype=np.float64))


def class_network(
    model: BaseClassifier,
    columns: Sequence[int],
    parents: Sequence[Sequence[int]],
    log_tables: Sequence[np.ndarray],
    class_log_prior: np.ndarray,
) -> DiscreteBayesianNetwork:
    """The network of a classifier whose every attribute has the class as a parent.

    ``P(y, x) = P(y) prod_i P(x_i | y, x_parents(i))``: the class is the
    first variable, then the attributes in `columns` order.

    Parameters
    ----------
    model : BaseClassifier
        The fitted model: its ``classes_``, ``class_name_``, ``encoder_`` and
        ``estimator_`` are read.
    columns : sequence of int
        Position in ``encoder_.columns_`` of each attribute of the network.
    parents : sequence of sequence of int
        Each attribute's attribute parents, as positions in `columns`.
    log_tables : sequence of ndarray
        ``log_tables[i]`` of shape ``(n_classes, r_parent_1, ..., r_i)``:
        ``log P(x_i | y, x_parents)``, parents in `parents[i]` order.
    class_log_prior : ndarray of shape (n_classes,)

    Returns
    -------
    DiscreteBayesianNetwork
        The CPT of attribute ``i`` has the class, then its attribute parents,
        as parents.

    Raises
    ------
    ValueError
        For tables fitted with ``estimator="discriminative"`` that cannot be
        turned into CPTs exactly (see Notes), or for two variables whose
        names print alike.

    Notes
    -----
    With ``estimator="discriminative"`` the tables are log-potentials
    fitted to the conditional likelihood, and the model is the Markov
    network ``P(y, x) ∝ exp(score)``. It is turned into CPTs of the same
    structure with the same joint (so the same posterior, and the same
    marginalization of unobserved cells) by normalizing each family over
    its child, leaves first, and multiplying the normalizer (a function of
    the class and the attribute parents) into the table of the parent whose
    own family holds the other parents (the class prior for an attribute
    with no attribute parent). Every forest (NaiveBayes, TAN, FAN, KDB with
    ``k=1``) allows it; a KDB family whose attribute parents are not all in
    one parent's family does not, and raises ``ValueError``.

    Examples
    --------
    >>> import graphmodels as gm
    >>> X, y = gm.datasets.load("car", return_X_y=True)
    >>> bn = gm.NaiveBayes().fit(X, y).to_bayesian_network()  # calls class_network
    >>> bn.variables[0], bn.parents["safety"], bn.states["safety"]
    ('class', ('class',), ['low', 'med', 'high'])
    """
    owner = type(model).__name__
    encoder = model.encoder_
    families = [tuple(int(p) for p in family) for family in parents]
    tables = [np.asarray(table, dtype=np.float64) for table in log_tables]
    prior = np.asarray(class_log_prior, dtype=np.float64)
    if isinstance(model.estimator_, Discriminative):
        prior, tables = _normalized_potentials(families, tables, prior, owner)
    names = _variable_names([model.class_name_, *(encoder.columns_[j] for j in columns)], owner)
    class_name, features = names[0], names[1:]
    network_parents: dict[str, tuple[str, ...]] = {class_name: ()}
    states = {class_name: state_names(model.classes_)}
    cpts = {class_name: _exp(prior)}
    for i, (j, name) in enumerate(zip(columns, features)):
        network_parents[name] = (class_name, *(features[p] for p in families[i]))
        states[name] = state_names(encoder.levels_[j])
        cpts[name] = _exp(tables[i])
    return DiscreteBayesianNetwork(network_parents, states, cpts, name=owner)


def _normalized_potentials(
    parents: list[tuple[int, ...]],
    tables: list[np.ndarray],
    prior: np.ndarray,
    owner: str,
    *,
    normalize_prior: bool = True,
) -> tuple[np.ndarray, list[np.ndarray]]:
    """Log CPTs with the joint of log-potentials (``prior + sum of tables``), structure unchanged.

    Leaves first, each family is normalized over its child and its log-normalizer,
    a function of the class and the attribute parents, is added to the table of the
    parent whose family holds the other parents (the prior when there is none).
    With ``normalize_prior=False`` the prior is returned with the normalizers added
    but not normalized itself (for one class of a multinet, normalized with the others).
    """
    graph = nx.DiGraph()
    graph.add_nodes_from(range(len(parents)))
    graph.add_edges_from((p, i) for i, family in enumerate(parents) for p in family)
    # Check first, so that a refusal costs nothing.
    hosts: dict[int, int] = {}
    for i, family in enumerate(parents):
        if not family:
            continue
        candidates = [p for p in family if set(family) - {p} <= set(parents[p])]
        if not candidates:
            raise ValueError(
                f"{owner}.to_bayesian_network: the model was fitted with `estimator`='discriminative', so its "
                "tables are unnormalized log-potentials, not conditional probability tables; they can be turned "
                f"into CPTs of the same structure only when each attribute's attribute parents lie in one "
                f"parent's family, which attribute {i} (parents {list(family)}) breaks. Refit with a generative "
                "`estimator` (such as 'leave-one-out') to export the model."
            )
        hosts[i] = candidates[0]
    tables = list(tables)
    prior = prior.copy()
    for i in reversed(list(nx.lexicographical_topological_sort(graph))):
        table = tables[i]
        with np.errstate(divide="ignore", invalid="ignore"):
            log_norm = logsumexp(table, axis=-1)
        finite = np.isfinite(log_norm)
        # A parent configuration of potential 0 everywhere: any row will do (it has probability 0).
        tables[i] = np.where(
            finite[..., None], table - np.where(finite, log_norm, 0.0)[..., None], -np.log(table.shape[-1])
        )
        if not parents[i]:
            prior = prior + log_norm.reshape(-1)
            continue
        host = hosts[i]
        target = (*parents[host], host)  # the host table's axes after the class
        order = [0] + [1 + parents[i].index(v) for v in target if v in parents[i]]
        shape = [table.shape[0]] + [table.shape[1 + parents[i].index(v)] if v in parents[i] else 1 for v in target]
        tables[host] = tables[host] + np.transpose(log_norm, order).reshape(shape)
    if normalize_prior:
        with np.errstate(divide="ignore"):
            prior = prior - logsumexp(prior)
    return prior, tables


def latent_tree_network(
    model: BaseClassifier,
    class_log_prior: np.ndarray,
    children: Sequence[Hashable],
    child_log_tables: Sequence[np.ndarray],
    latents: Sequence[tuple[Hashable, Sequence[Hashable], np.ndarray]],
) -> DiscreteBayesianNetwork:
    """The network of a hierarchical naive Bayes model: naive Bayes over attributes and latents.

    Parameters
    ----------
    model : BaseClassifier
        The fitted model: its ``classes_``, ``class_name_`` and ``encoder_`` are read.
    class_log_prior : ndarray of shape (n_classes,)
    children : sequence
        The class's children (attribute and latent names).
    child_log_tables : sequence of ndarray
        ``log P(child | y)`` of each child, shape (n_classes, r_child).
    latents : sequence of (name, (first, second), state_of)
        Each latent variable in the order introduced: its two children
        (attributes or earlier latents) and the latent's state of each of
        their configurations, an int array of shape ``(r_first, r_second)``,
        ``-1`` for a configuration never seen in training.

    Returns
    -------
    DiscreteBayesianNetwork
        Variables: the class, the attributes (in column order), then the
        latents; a latent's states are ``"0"``, ``"1"``, ... (the states of
        the model's ``latent_states_``).

    Notes
    -----
    A latent ``L`` over children ``(A, B)`` stands for a set of their
    configurations per state; the model scores a row by the state its
    children fall in, ``P(L = l(a, b) | y)``, and drops the factor when the
    configuration was never seen in training. The network keeps every CPT
    ``P(child | y)`` of the model and adds ``P(A | L)`` and ``P(B | L, A)``
    (so one arc ``A -> B`` more than the model's ``structure_``): the
    distribution of the configurations within a state, which the model does
    not estimate and which does not change the class posterior, is taken
    uniform over the configurations of the state. Then ``sum_l P(l | y)
    P(a, b | l)`` is ``P(l(a, b) | y)`` times a term free of ``y``, and the
    network's class posterior is the model's.

    The configurations never seen in training get, under a latent child of
    the class, a share of :data:`UNSEEN_MASS` of each state's distribution,
    the same in every state, so that they too leave the posterior alone, as
    in the model; under a latent whose parent is another latent they form an
    extra state, :data:`UNSEEN_STATE`, which the parent's configurations
    read as never seen in turn.

    An attribute of a state never seen in training (code ``-1``) under a
    latent is treated differently: the model drops the latent's factor, the
    network sums the attribute out, which does not give the same posterior.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import graphmodels as gm
    >>> rng = np.random.default_rng(0)
    >>> X = pd.DataFrame(rng.integers(0, 2, size=(400, 4)), columns=list("abcd"))
    >>> y = np.where(X["a"] == X["b"], "same", "different")
    >>> bn = gm.HierarchicalNaiveBayes(random_state=0).fit(X, y).to_bayesian_network()
    >>> bn.parents["L1"], bn.parents["a"], bn.parents["b"]
    (('class',), ('L1',), ('L1', 'a'))
    """
    owner = type(model).__name__
    encoder = model.encoder_
    latent_names = [name for name, _, _ in latents]
    names = _variable_names([model.class_name_, *encoder.columns_, *latent_names], owner)
    rename = dict(zip([model.class_name_, *encoder.columns_, *latent_names], names))
    class_name = names[0]
    parents: dict[str, tuple[str, ...]] = {name: () for name in names}
    states = {class_name: state_names(model.classes_)}
    for column, levels in zip(encoder.columns_, encoder.levels_):
        states[rename[column]] = state_names(levels)
    cpts: dict[str, np.ndarray] = {class_name: _exp(class_log_prior)}
    top = {rename[child] for child in children}
    for name, (first, second), state_of in latents:
        latent, a, b = rename[name], rename[first], rename[second]
        config = np.full((len(states[a]), len(states[b])), -1, dtype=np.int64)
        state_of = np.asarray(state_of, dtype=np.int64)
        config[: state_of.shape[0], : state_of.shape[1]] = state_of
        n_states = int(state_of.max()) + 1
        unseen = config < 0
        labels = [str(s) for s in range(n_states)]
        if latent not in top and unseen.any():
            config[unseen] = n_states
            labels.append(UNSEEN_STATE)
        states[latent] = labels
        check_cells(
            len(labels) * config.size,
            getattr(model, "max_cells", DEFAULT_MAX_CELLS),
            what=f"{owner}.to_bayesian_network table of latent {name!r} ({len(labels)} states) over its children "
            f"{describe_variables([first, second], config.shape)}",
            fix="",
        )
        members = np.stack([config == s for s in range(len(labels))]).astype(np.float64)  # (states, r_a, r_b)
        sizes = members.sum(axis=(1, 2))
        if np.any(sizes == 0):
            raise ValueError(
                f"{owner}.to_bayesian_network: state {int(np.argmin(sizes))} of latent {name!r} stands for no "
                "child configuration."
            )
        within = members / sizes[:, None, None]  # uniform over each state's configurations
        if latent in top and unseen.any():
            share = UNSEEN_MASS / unseen.size
            within = within * (1.0 - share * unseen.sum()) + share * unseen[None]
        first_given = within.sum(axis=2)  # P(a | l)
        with np.errstate(invalid="ignore", divide="ignore"):
            second_given = within / first_given[:, :, None]
        second_given[first_given == 0] = 1.0 / within.shape[2]
        parents[a], cpts[a] = (latent,), first_given
        parents[b], cpts[b] = (latent, a), second_given
    for child, table in zip(children, child_log_tables):
        parents[rename[child]] = (class_name,)
        cpts[rename[child]] = _exp(table)
    return DiscreteBayesianNetwork(parents, states, cpts, name=owner)


def multidimensional_network(
    model: BaseMultiLabelClassifier,
    class_parents: Sequence[Sequence[int]],
    class_log_tables: Sequence[np.ndarray],
    feature_class_parents: Sequence[Sequence[int]],
    feature_parents: Sequence[int] | np.ndarray,
    feature_log_tables: Sequence[np.ndarray],
) -> DiscreteBayesianNetwork:
    """The network of a multi-dimensional Bayesian network classifier.

    Parameters
    ----------
    model : BaseMultiLabelClassifier
        The fitted model: its ``label_names_``, ``classes_`` and ``encoder_`` are read.
    class_parents : sequence of tuple of int
        Each label's class parents (positions in ``label_names_``).
    class_log_tables : sequence of ndarray
        ``log P(c_j | class parents)`` of shape ``(*parent cardinalities, r_j)``.
    feature_class_parents : sequence of tuple of int
        Each attribute's class parents.
    feature_parents : sequence of int
        Each attribute's attribute parent (position in the columns), -1 for none.
    feature_log_tables : sequence of ndarray
        ``log P(x_i | class parents, [x_parent])`` of shape
        ``(*class parent cardinalities, [r_parent,] r_i)``.

    Returns
    -------
    DiscreteBayesianNetwork
        Variables: the labels, then the attributes.

    Examples
    --------
    >>> import graphmodels as gm
    >>> from graphmodels.models import MultiDimensionalTAN
    >>> car = gm.datasets.load("car")
    >>> model = MultiDimensionalTAN().fit(car.drop(columns=["class", "safety"]), car[["class", "safety"]])
    >>> bn = model.to_bayesian_network()  # calls multidimensional_network
    >>> bn.parents["safety"], bn.parents["persons"]
    (('class',), ('class', 'safety'))
    """
    owner = type(model).__name__
    encoder = model.encoder_
    names = _variable_names([*model.label_names_, *encoder.columns_], owner)
    labels, features = names[: len(model.label_names_)], names[len(model.label_names_) :]
    parents: dict[str, tuple[str, ...]] = {}
    states: dict[str, list[str]] = {}
    cpts: dict[str, np.ndarray] = {}
    for j, name in enumerate(labels):
        parents[name] = tuple(labels[p] for p in class_parents[j])
        states[name] = state_names(model.classes_[j])
        cpts[name] = _exp(class_log_tables[j])
    for i, name in enumerate(features):
        attribute = [features[int(feature_parents[i])]] if feature_parents[i] >= 0 else []
        parents[name] = (*(labels[p] for p in feature_class_parents[i]), *attribute)
        states[name] = state_names(encoder.levels_[i])
        cpts[name] = _exp(feature_log_tables[i])
    return DiscreteBayesianNetwork(parents, states, cpts, name=owner)


def clique_network(
    model: BaseModel, cliques: Sequence[Sequence[int]], log_tables: Sequence[np.ndarray]
) -> DiscreteMarkovNetwork:
    """The Markov network of a density given by a rooted junction forest of clique conditionals.

    ``P(x) = prod_c P(x_{c - sep(c)} | x_{sep(c)})`` (a root clique holds its
    joint): each clique's table is one factor, so the product is the density
    itself and the partition function is 1.

    Parameters
    ----------
    model : BaseModel
        The fitted model: its ``encoder_`` (names, cardinalities) is read.
    cliques : sequence of sequence of int
        Column positions of each clique, in the axis order of its table.
    log_tables : sequence of ndarray
        ``log_tables[c]`` of shape ``(1, r_1, ..., r_|c|)`` (one stratum):
        ``log P(residual | separator)``.

    Returns
    -------
    DiscreteMarkovNetwork
        Variables: the columns, in order, named as the columns (``str`` of a
        name that is not a string); codes are those of ``encoder_``; factors:
        one per clique, in the order given, scope in the clique's order.

    Raises
    ------
    ValueError
        If two columns' names print alike (``0`` and ``"0"``).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import graphmodels as gm
    >>> rng = np.random.default_rng(0)
    >>> a, b = rng.integers(0, 2, 300), rng.integers(0, 2, 300)
    >>> model = gm.models.HyperforestDensity(treewidth=2).fit(pd.DataFrame({"a": a, "b": b, "c": a ^ b}))
    >>> mn = model.to_markov_network()  # calls clique_network
    >>> [scope for scope, _ in mn.factors], round(mn.log_partition(), 12)
    ([('a', 'b', 'c')], 0.0)
    """
    owner = type(model).__name__
    encoder = model.encoder_
    names = _variable_names(list(encoder.columns_), owner, "to_markov_network")
    cardinalities = {name: int(r) for name, r in zip(names, encoder.cardinalities_)}
    factors = []
    for clique, table in zip(cliques, log_tables):
        array = np.asarray(table, dtype=np.float64)
        factors.append((tuple(names[p] for p in clique), _exp(array[0] if array.ndim == len(clique) + 1 else array)))
    return DiscreteMarkovNetwork(cardinalities, factors, name=owner)


def _label(value: Any) -> Hashable:
    """A class label as a dict key: a numpy scalar becomes the Python scalar."""
    return value.item() if isinstance(value, np.generic) else value


def class_conditional_networks(
    model: BaseClassifier,
    feature_parents: np.ndarray | Sequence[Sequence[int]],
    log_tables: Sequence[Sequence[np.ndarray]],
    class_log_prior: np.ndarray,
) -> tuple[np.ndarray, dict[Hashable, DiscreteBayesianNetwork]]:
    """The networks of a Bayesian multinet: the class prior and one forest network per class.

    ``P(y, x) = P(y) P_y(x)``, each ``P_y`` a network over the attributes
    whose arcs are that class's forest, each attribute with at most one
    parent.

    Parameters
    ----------
    model : BaseClassifier
        The fitted model: its ``classes_``, ``encoder_`` and ``estimator_`` are read.
    feature_parents : array_like of int, shape (n_classes, n_features)
        Each class's parent of each attribute (its position in
        ``encoder_.columns_``), ``-1`` for a root.
    log_tables : sequence (one per class) of sequence of ndarray
        ``log_tables[c][j]`` of shape ``(r_parent, r_j)``, ``(1, r_j)`` for a
        root: ``log P(x_j | y = c, x_parent)``.
    class_log_prior : ndarray of shape (n_classes,)

    Returns
    -------
    class_prior : ndarray of shape (n_classes,)
        ``P(y)``, in ``classes_`` order.
    networks : dict
        Each class label (an entry of ``classes_``, a numpy scalar as the
        Python scalar) to a :class:`~graphmodels.networks.DiscreteBayesianNetwork`
        over the attributes, in column order: ``P(x | y = c)``, its arcs
        the class's forest and its CPTs the class's tables.

    Raises
    ------
    ValueError
        If two columns' names print alike (``0`` and ``"0"``).

    Notes
    -----
    With ``estimator="discriminative"`` the tables are log-potentials fitted
    to the conditional likelihood and ``P(y, x) ∝ exp(prior_y + sum of class
    y's tables)``. Each class's forest is turned into CPTs of the same
    structure as :func:`class_network` does it (each family normalized over
    its child, leaves first, its normalizer multiplied into its parent's
    table), and the constant left at the roots, ``log Z_y``, is added to
    ``prior_y`` before the prior is normalized: ``P(y) P_y(x)`` is then the
    model's joint exactly, so the posterior and the marginalization of
    unobserved cells are the model's. A forest always allows it.

    Examples
    --------
    >>> import graphmodels as gm
    >>> X, y = gm.datasets.load("car", return_X_y=True)
    >>> prior, networks = gm.ChowLiu().fit(X, y).to_bayesian_networks()  # calls this function
    >>> sorted(networks), prior.round(3).tolist()
    (['acc', 'good', 'unacc', 'vgood'], [0.222, 0.041, 0.699, 0.038])
    """
    owner = type(model).__name__
    encoder = model.encoder_
    names = _variable_names(list(encoder.columns_), owner, "to_bayesian_networks")
    states = {name: state_names(levels) for name, levels in zip(names, encoder.levels_)}
    n_classes = len(model.classes_)
    parents_per_class = np.asarray(feature_parents, dtype=np.int64).reshape(n_classes, len(names))
    prior = np.array(class_log_prior, dtype=np.float64)
    discriminative = isinstance(model.estimator_, Discriminative)
    per_class = []
    for c in range(n_classes):
        families: list[tuple[int, ...]] = [(int(p),) if p >= 0 else () for p in parents_per_class[c]]
        # A leading axis of one stratum, where _normalized_potentials takes the class axis:
        # (1, r_parent, r_j), or (1, r_j) for a root.
        tables = []
        for family, table in zip(families, log_tables[c]):
            array = np.asarray(table, dtype=np.float64)
            tables.append(array[None] if family else array[None, 0])
        if discriminative:
            log_norm, tables = _normalized_potentials(families, tables, prior[c : c + 1], owner, normalize_prior=False)
            prior[c] = log_norm[0]
        per_class.append((families, tables))
    if discriminative:
        with np.errstate(divide="ignore"):
            prior = prior - logsumexp(prior)
    networks: dict[Hashable, DiscreteBayesianNetwork] = {}
    for label, (families, tables) in zip(model.classes_, per_class):
        parents = {name: tuple(names[p] for p in family) for name, family in zip(names, families)}
        cpts = {name: _exp(table[0]) for name, table in zip(names, tables)}
        networks[_label(label)] = DiscreteBayesianNetwork(parents, dict(states), cpts, name=owner)
    return _exp(prior), networks


def superparent_member_network(
    model: BaseClassifier,
    superparents: Sequence[int],
    log_joint: np.ndarray,
    child_log_tables: Sequence[np.ndarray],
) -> DiscreteBayesianNetwork:
    """The network of one member of an averaged n-dependence ensemble (AODE, AnDE).

    The member with super-parents ``S`` is ``P(y, x) = P(y, x_S) prod_{k not
    in S} P(x_k | y, x_S)``; its DAG is
    :func:`~graphmodels.structures.superparent_network`'s.

    Parameters
    ----------
    model : BaseClassifier
        The fitted model: its ``classes_``, ``class_name_`` and ``encoder_`` are read.
    superparents : sequence of int
        Positions of the super-parents in ``encoder_.columns_``, increasing;
        empty for naive Bayes.
    log_joint : ndarray of shape (n_classes, r_S[0], ..., r_S[-1])
        ``log P(y, x_S)``, summing to 1 (in probability) over all cells;
        shape ``(n_classes,)`` without super-parents.
    child_log_tables : sequence of ndarray
        For each attribute ``k`` not in ``S``, in column order, ``log P(x_k |
        y, x_S)`` of shape ``(n_classes, r_S[0], ..., r_S[-1], r_k)``.

    Returns
    -------
    DiscreteBayesianNetwork
        Variables: the class, then every attribute in column order. The
        joint ``P(y, x_S)`` is written as a chain of CPTs: ``P(y)`` (the
        class is a root), then each super-parent given the class and the
        super-parents before it in column order; every other attribute has
        the class and then the super-parents, in column order, as parents.

    Raises
    ------
    ValueError
        If two variables' names print alike (``0`` and ``"0"``).

    Notes
    -----
    The chain's CPTs are the joint's own conditionals, so their product is
    ``P(y, x_S)`` (up to rounding); a configuration of probability 0 gets a
    uniform conditional (any would do: it has probability 0).

    Examples
    --------
    >>> import graphmodels as gm
    >>> X, y = gm.datasets.load("car", return_X_y=True)
    >>> bn = gm.AnDE(n=2).fit(X, y).member_network(("safety", "buying"))  # calls this function
    >>> bn.parents["buying"], bn.parents["safety"], bn.parents["doors"]
    (('class',), ('class', 'buying'), ('class', 'buying', 'safety'))
    """
    owner = type(model).__name__
    encoder = model.encoder_
    names = _variable_names([model.class_name_, *encoder.columns_], owner, "member_network")
    class_name, features = names[0], names[1:]
    chosen = [int(i) for i in superparents]
    states = {class_name: state_names(model.classes_)}
    states.update({name: state_names(levels) for name, levels in zip(features, encoder.levels_)})
    joint = _exp(log_joint).reshape(len(model.classes_), *(int(encoder.cardinalities_[i]) for i in chosen))
    parents: dict[str, tuple[str, ...]] = {class_name: ()}
    cpts: dict[str, np.ndarray] = {class_name: joint.reshape(joint.shape[0], -1).sum(axis=1)}
    for t, i in enumerate(chosen):
        upto = joint.sum(axis=tuple(range(t + 2, joint.ndim)))  # P(y, x_S[0], ..., x_S[t])
        given = upto.sum(axis=-1, keepdims=True)
        with np.errstate(divide="ignore", invalid="ignore"):
            conditional = np.where(given > 0, upto / given, 1.0 / upto.shape[-1])
        parents[features[i]] = (class_name, *(features[s] for s in chosen[:t]))
        cpts[features[i]] = conditional
    children = [k for k in range(len(features)) if k not in set(chosen)]
    if len(children) != len(child_log_tables):
        raise ValueError(
            f"{owner}: {len(children)} attributes are not super-parents, got {len(child_log_tables)} child tables."
        )
    for k, table in zip(children, child_log_tables):
        parents[features[k]] = (class_name, *(features[s] for s in chosen))
        cpts[features[k]] = _exp(table)
    ordered = {name: parents[name] for name in names}
    return DiscreteBayesianNetwork(ordered, states, cpts, name=owner)


def classifier_markov_network(
    model: BaseClassifier,
    factors: Sequence[tuple[Sequence[int], np.ndarray]],
) -> DiscreteMarkovNetwork:
    """A Markov network over the class and the attributes of a classifier, from log-factors.

    Parameters
    ----------
    model : BaseClassifier
        The fitted model: its ``classes_``, ``class_name_`` and ``encoder_`` are read.
    factors : sequence of (sequence of int, ndarray)
        Each factor's scope, as positions in the model's coding of a row
        (``0 .. n_features - 1`` the columns of ``encoder_``, ``n_features``
        the class), and its log-table, one axis per scope entry in that
        order (``-inf`` for a factor value 0).

    Returns
    -------
    DiscreteMarkovNetwork
        Variables: the class (named ``class_name_``, ``str`` of a name that
        is not a string, with ``len(classes_)`` states), then the columns in
        order, with the cardinalities of ``encoder_``; codes are those of
        ``classes_`` and ``encoder_``. Factors: ``exp`` of the log-tables,
        in the order given.

    Raises
    ------
    ValueError
        If two variables' names print alike (``0`` and ``"0"``).

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> import graphmodels as gm
    >>> rng = np.random.default_rng(0)
    >>> X = pd.DataFrame(rng.integers(0, 2, size=(200, 3)), columns=["a", "b", "c"])
    >>> model = gm.models.HyperforestClassifier(representation="joint").fit(X, X["a"] ^ X["b"])
    >>> mn = model.to_markov_network()  # calls this function
    >>> mn.variables, round(mn.log_partition(), 12)
    (['class', 'a', 'b', 'c'], 0.0)
    """
    owner = type(model).__name__
    encoder = model.encoder_
    names = _variable_names([model.class_name_, *encoder.columns_], owner, "to_markov_network")
    by_position = [*names[1:], names[0]]
    cardinalities = {names[0]: len(model.classes_)}
    cardinalities.update({name: int(r) for name, r in zip(names[1:], encoder.cardinalities_)})
    network_factors = [(tuple(by_position[int(q)] for q in scope), _exp(table)) for scope, table in factors]
    return DiscreteMarkovNetwork(cardinalities, network_factors, name=owner)
