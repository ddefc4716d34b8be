"""Random bounded tree-width Markov networks with a known structure (data with a known answer)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from .._memory import DEFAULT_MAX_CELLS, check_cells, describe_variables
from ..structures.hyperforests import random_hypertree
from ..structures.multidimensional import multidimensional_classifier
from .bayesnet import DiscreteBayesianNetwork

if TYPE_CHECKING:
    import networkx as nx

    from ..structures.hyperforests import Hyperforest

__all__ = ["random_hypertree_network", "random_multidimensional_network"]


def random_hypertree_network(
    n_variables: int,
    k: int,
    *,
    cardinality: int = 2,
    noise: tuple[float, float] = (0.05, 0.3),
    random_state: int | np.random.Generator | None = None,
    names: Sequence[str] | None = None,
    max_cells: int = DEFAULT_MAX_CELLS,
) -> tuple[DiscreteBayesianNetwork, Hyperforest]:
    """A random Markov network of tree-width k over discrete variables, ready to sample.

    The structure is a random k-tree (:func:`~graphmodels.structures.random_hypertree`);
    the distribution is built along a rooted junction tree: each variable
    depends on the earlier variables of the clique that introduces it, with
    conditional distributions drawn from a symmetric Dirichlet. Its Markov
    network (the moral graph) is the hypertree's primal graph. So that every
    maximal hyperedge carries a genuine (k+1)-way interaction, a variable
    with parents is a noisy random threshold function of all of them: for
    each parent configuration the preferred state (a rounded random
    weighted sum of the parents, drawn until it depends on every parent)
    takes probability ``1 - e`` and the rest is spread at random, with the
    noise e uniform in `noise`. This is the
    experiment of section 6.1 of Liang & Srebro (binary variables; the
    paper does not say how its potentials were drawn).

    Parameters
    ----------
    n_variables : int
        At least k + 1.
    k : int
        Tree-width, >= 0.
    cardinality : int, default=2
        States per variable.
    noise : (float, float), default=(0.05, 0.3)
        Range of the probability mass off the preferred state.
    random_state : None, int or numpy Generator
    names : sequence of str, optional
        Variable names (default ``x0, x1, ...``).
    max_cells : int, default=10_000_000
        Largest conditional table (``cardinality ** (k + 1)`` cells) to draw;
        a larger one raises :class:`~graphmodels.stats.TableTooLargeError` first.

    Returns
    -------
    network : DiscreteBayesianNetwork
        Sample it with ``network.sample(n, random_state=...)``.
    hypertree : Hyperforest
        The hidden structure.

    References
    ----------
    .. [1] Liang, P., & Srebro, N. (2004). Methods and experiments with
           bounded tree-width Markov networks. Section 6.1.

    Examples
    --------
    >>> network, hypertree = random_hypertree_network(6, 2, random_state=0)
    >>> hypertree.width, network.sample(3, random_state=1).shape
    (2, (3, 6))
    """
    if not isinstance(cardinality, (int, np.integer)) or cardinality < 2:
        raise ValueError(f"`cardinality` must be an integer >= 2, got {cardinality!r}.")
    low, high = noise
    if not 0 <= low <= high < 1:
        raise ValueError(f"`noise` must be a range (low, high) with 0 <= low <= high < 1, got {noise!r}.")
    check_cells(
        int(cardinality) ** (int(k) + 1),
        max_cells,
        what=f"conditional table of a variable with k={k} parents of cardinality={cardinality} states",
        fix="lower k or cardinality",
    )
    names = [f"x{i}" for i in range(n_variables)] if names is None else [str(v) for v in names]
    rng = np.random.default_rng(random_state)
    hypertree = random_hypertree(n_variables, k, random_state=rng, nodes=names)
    parents = {}
    for clique, separator in hypertree.clique_order():
        earlier = list(clique[: len(separator)])
        for v in clique[len(separator) :]:
            parents[v] = tuple(earlier)
            earlier.append(v)
    states = {v: [str(s) for s in range(cardinality)] for v in names}
    cpts = {v: _conditional_table(rng, cardinality, len(parents[v]), noise) for v in names}
    network = DiscreteBayesianNetwork({v: parents[v] for v in names}, states, cpts, name=f"random-{k}-tree")
    return network, hypertree


def _conditional_table(rng, cardinality, n_parents, noise):
    """Noisy random function of all parents: table of shape (r,) * n_parents + (r,).

    No array is larger than the table (``r ** (n_parents + 1)`` cells), which the caller checks.
    """
    shape = (cardinality,) * n_parents
    if n_parents == 0:
        return rng.dirichlet(np.ones(cardinality))
    centred = np.arange(cardinality) - (cardinality - 1) / 2.0
    while True:
        # A threshold function of a random weighted sum of the parents: every
        # parent matters, and pairs see part of it (unlike a parity).
        slopes = rng.choice([-1.0, 1.0], size=n_parents) * rng.uniform(0.5, 1.5, size=n_parents)
        # The weighted sum over the grid of parent states, one parent's axis at a time (no grid
        # of n_parents numbers per configuration).
        level = np.zeros(shape)
        for axis, slope in enumerate(slopes):
            level += (centred * slope).reshape((cardinality,) + (1,) * (n_parents - 1 - axis))
        level += rng.uniform(-0.5, 0.5)
        preferred = np.clip(np.round(level + (cardinality - 1) / 2.0), 0, cardinality - 1).astype(np.int64)
        # The function must change with every parent (else that edge is fake).
        if all((np.diff(preferred, axis=a) != 0).any() for a in range(n_parents)):
            break
    off = rng.uniform(*noise, size=shape)
    spread = rng.dirichlet(np.ones(cardinality), size=shape)
    table = spread * off[..., None]
    np.put_along_axis(table, preferred[..., None], 0.0, axis=-1)
    table *= (off / np.where(table.sum(-1) > 0, table.sum(-1), 1.0))[..., None]
    np.put_along_axis(table, preferred[..., None], (1.0 - off)[..., None], axis=-1)
    return table / table.sum(axis=-1, keepdims=True)


def random_multidimensional_network(
    n_classes: int,
    n_features: int,
    *,
    max_parents: int = 2,
    feature_arcs: bool = False,
    class_cardinality: int = 2,
    feature_cardinality: int = 3,
    noise: tuple[float, float] = (0.05, 0.3),
    random_state: int | np.random.Generator | None = None,
    max_cells: int = DEFAULT_MAX_CELLS,
) -> tuple[DiscreteBayesianNetwork, nx.DiGraph]:
    """A random multi-dimensional Bayesian network classifier (MDBNC), ready to sample.

    The class subgraph is a random tree (each class after the first has one
    earlier class as parent); each attribute has 1 to `max_parents` class
    parents drawn at random (the bridge) and, with ``feature_arcs=True``, an
    earlier attribute as parent with probability 1/2 (a feature forest).
    Every conditional distribution is a noisy function of all its parents:
    for each parent configuration one preferred state takes probability
    ``1 - e`` (e uniform in `noise`), redrawn until every parent changes some
    row, so each arc of the structure is a real dependence.

    Parameters
    ----------
    n_classes, n_features : int
    max_parents : int, default=2
        Most class parents of an attribute.
    feature_arcs : bool, default=False
    class_cardinality, feature_cardinality : int, default=2 and 3
    noise : (float, float), default=(0.05, 0.3)
    random_state : None, int or numpy Generator, default=None
    max_cells : int, default=10_000_000
        Largest conditional table to draw; a larger one raises
        :class:`~graphmodels.stats.TableTooLargeError` before any table is drawn.

    Returns
    -------
    network : DiscreteBayesianNetwork
        Variables ``C0..`` (classes) and ``A0..`` (attributes), states ``"0", "1", ...``.
    structure : nx.DiGraph
        The MDBNC (see :func:`~graphmodels.structures.multidimensional_classifier`).

    Examples
    --------
    >>> network, structure = random_multidimensional_network(3, 5, random_state=0)
    >>> network.sample(4, random_state=1).shape
    (4, 8)
    """
    for name, value, low in (
        ("n_classes", n_classes, 1),
        ("n_features", n_features, 0),
        ("max_parents", max_parents, 1),
    ):
        if not isinstance(value, (int, np.integer)) or value < low:
            raise ValueError(f"`{name}` must be an integer >= {low}, got {value!r}.")
    rng = np.random.default_rng(random_state)
    classes = [f"C{j}" for j in range(n_classes)]
    features = [f"A{i}" for i in range(n_features)]
    parents: dict[str, tuple[str, ...]] = {classes[0]: ()}
    for j in range(1, n_classes):
        parents[classes[j]] = (classes[int(rng.integers(j))],)
    for i, f in enumerate(features):
        k = int(rng.integers(1, min(max_parents, n_classes) + 1))
        chosen = sorted(rng.choice(n_classes, size=k, replace=False).tolist())
        family = tuple(classes[c] for c in chosen)
        if feature_arcs and i > 0 and rng.random() < 0.5:
            family = family + (features[int(rng.integers(i))],)
        parents[f] = family
    cards = {c: class_cardinality for c in classes} | {f: feature_cardinality for f in features}
    widest = max(parents, key=lambda v: math.prod(cards[p] for p in parents[v]) * cards[v])
    check_cells(
        math.prod(cards[p] for p in parents[widest]) * cards[widest],
        max_cells,
        what=f"conditional table of {widest!r} given {describe_variables(parents[widest], [cards[p] for p in parents[widest]]) or 'nothing'}",
        fix="lower max_parents, class_cardinality or feature_cardinality",
    )
    cpts = {v: _noisy_function_table(rng, [cards[p] for p in parents[v]], cards[v], noise) for v in parents}
    states = {v: [str(s) for s in range(cards[v])] for v in parents}
    network = DiscreteBayesianNetwork(parents, states, cpts, name="random-mdbnc")
    arcs = [(p, v) for v in parents for p in parents[v]]
    return network, multidimensional_classifier(classes, features, arcs, cardinalities=cards)


def _noisy_function_table(rng, parent_cards, cardinality, noise):
    """Table of shape (*parent_cards, cardinality): a noisy function that depends on every parent."""
    low, high = noise
    if not parent_cards:
        return rng.dirichlet(np.ones(cardinality))
    while True:
        preferred = rng.integers(cardinality, size=tuple(parent_cards))
        depends = all(np.any(np.diff(preferred, axis=axis) != 0) for axis in range(len(parent_cards)))
        if depends:
            break
    errors = rng.uniform(low, high, size=preferred.shape)
    rest = rng.dirichlet(np.ones(max(cardinality - 1, 1)), size=preferred.shape)
    table = np.empty(preferred.shape + (cardinality,))
    for index in np.ndindex(preferred.shape):
        others = [s for s in range(cardinality) if s != preferred[index]]
        table[index + (preferred[index],)] = 1 - errors[index]
        table[index + (others,)] = errors[index] * rest[index][: len(others)]
    return table
