"""Tidy tables of fitted parameters: a node's conditional table, a clique's or region's potential.

Written once here, used by every model that keeps such tables:

* :meth:`ConditionalTables.cpd` (``model.cpd(node)``) on the models made of
  directed families -- :class:`~graphmodels.models.NaiveBayes`,
  :class:`~graphmodels.models.TAN`, :class:`~graphmodels.models.FAN`,
  :class:`~graphmodels.models.KDB`, :class:`~graphmodels.models.SelectiveKDB`,
  the Chow-Liu multinet :class:`~graphmodels.models.ChowLiu`,
  :class:`~graphmodels.models.ChowLiuTree`,
  :class:`~graphmodels.models.HierarchicalNaiveBayes` and the
  multi-dimensional classifiers -- and
  :meth:`~graphmodels.networks.DiscreteBayesianNetwork.cpd`: a DataFrame with
  one row per configuration of the node's parents and one column per state
  of the node (:func:`conditional_frame`);
* ``potential(clique)`` on the hyperforest models and ``potential(region)``
  on :class:`~graphmodels.models.KikuchiBayes`: a tidy DataFrame, one column
  per variable and a ``probability`` column (:func:`potential_frame`); the
  clique marginals of a rooted junction forest come from
  :func:`clique_marginals`.

State names are the model's own labels, in code order: ``encoder_.levels_``
for the columns (the discretizer's interval labels, such as
``"(2.45, 4.75]"``, for a cut column; ``"<missing>"`` for the state of
missing cells), ``classes_`` for the class, ``0 .. k-1`` for a latent
variable; they are kept as they are (the label ``"10"`` stays a string and
sorts after ``"1"``, as in ``classes_``).
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._special import logsumexp
from ..estimators.discriminative import Discriminative
from ..networks.tables import conditional_frame, find_node, state_index

__all__ = [
    "ConditionalTables",
    "conditional_frame",
    "potential_frame",
    "clique_marginals",
    "clique_potentials",
    "column_states",
    "find_node",
    "find_variables",
]


def potential_frame(
    variables: Sequence[tuple[Hashable, Sequence[Any] | np.ndarray]], probabilities: np.ndarray
) -> pd.DataFrame:
    """A table over several variables in tidy form: one column per variable, and ``probability``.

    Parameters
    ----------
    variables : sequence of (name, states)
        In the order of the table's axes.
    probabilities : ndarray of shape (r_1, ..., r_k)

    Returns
    -------
    DataFrame of shape (prod r, k + 1)
        One row per configuration, the first variable varying slowest.

    Examples
    --------
    >>> potential_frame([("a", ["x", "y"]), ("b", [0, 1])], np.array([[0.1, 0.2], [0.3, 0.4]]))
       a  b  probability
    0  x  0          0.1
    1  x  1          0.2
    2  y  0          0.3
    3  y  1          0.4
    """
    table = np.asarray(probabilities, dtype=np.float64)
    shape = tuple(len(levels) for _, levels in variables)
    if table.shape != shape:
        raise ValueError(f"The table has shape {table.shape}, but its variables' states need {shape}.")
    columns: dict[Hashable, Any] = {}
    grids = np.indices(shape).reshape(len(shape), -1) if shape else np.zeros((0, 1), dtype=np.int64)
    for (name, levels), codes in zip(variables, grids):
        columns[name] = state_index(levels)[codes].to_numpy()
    frame = pd.DataFrame(columns, index=pd.RangeIndex(table.size))
    frame["probability"] = table.reshape(-1)
    return frame


def _probabilities(log_table: np.ndarray, normalize: bool) -> np.ndarray:
    table = np.asarray(log_table, dtype=np.float64)
    if normalize:
        with np.errstate(invalid="ignore"):
            table = table - logsumexp(table, axis=-1, keepdims=True)
    return np.exp(table)


class ConditionalTables:
    """``cpd(node)``: a fitted node's conditional probability table as a DataFrame (a mixin).

    A model mixes it in and implements ``_conditional_tables()``, returning
    ``(families, states, notes)``: ``families`` maps every node with a
    table to its parents (names, in the order of the table's axes) and its
    log table of shape ``(*parent cardinalities, r_node)`` -- or to a
    function returning that pair, for a table built on request; ``states``
    maps every variable to its labels; ``notes`` maps nodes without a table
    of their own to the reason, which the error message gives.
    """

    if TYPE_CHECKING:

        def _check_fitted(self) -> None: ...

        def _conditional_tables(self) -> tuple[dict[Hashable, Any], dict[Hashable, Any], dict[Hashable, str]]: ...

    def cpd(self, node: Hashable) -> pd.DataFrame:
        """The conditional probability table of `node` given its parents, as a DataFrame.

        Parameters
        ----------
        node : hashable
            A column name, or the class's name (``class_name_``) for the
            class prior ``P(y)`` (a label's name for a multi-dimensional
            classifier).

        Returns
        -------
        DataFrame of shape (n_parent_configurations, n_states)
            ``P(node | parents)``: one row per configuration of the parents,
            one column per state of `node` (named `node`); every row sums to
            1. The index is a MultiIndex named by the parents for two or more
            (the first varies slowest), a flat Index named by the parent for
            one, the single label ``"probability"`` for none. The parents come
            in the order of the model's table axes: the class (or the class
            variables) first, then the attribute parents in the order of
            ``feature_parents_`` (for the Chow-Liu multinet: the class, then
            the parents the node has in any class's tree, in column order;
            a class whose tree does not link the node to one of them gives
            rows that repeat over that parent's states). State names are the
            model's own labels (``encoder_.levels_``, interval labels for a
            cut column, ``classes_``), in code order.

        Raises
        ------
        NotFittedError
            If the model is not fitted.
        ValueError
            For a name without a table, listing the valid names (and saying
            why a known variable has none: an attribute under a latent
            variable, an attribute a selective model left out).

        Notes
        -----
        With ``estimator="discriminative"`` the tables are log-potentials
        fitted to the conditional likelihood of the class, not conditional
        probabilities (the model is then a Markov network, ``P(y | x)``
        proportional to the product of the tables). ``cpd`` normalizes each
        row of the potential, ``exp(w) / sum exp(w)`` over the node's
        states: a readable view of what the weights favour, whose rows sum
        to 1, but not the conditional distribution of the node under the
        model. The raw log-potentials stay in ``log_tables_``.

        Examples
        --------
        >>> import graphmodels as gm
        >>> X, y = gm.datasets.load("car", return_X_y=True)
        >>> model = gm.TAN().fit(X, y)
        >>> table = model.cpd("persons")  # P(persons | class, safety)
        >>> list(table.index.names), list(table.columns)
        (['class', 'safety'], ['2', '4', 'more'])
        >>> bool(np.allclose(table.sum(axis=1), 1.0))
        True
        >>> list(model.cpd("class").columns)  # the class prior
        ['acc', 'good', 'unacc', 'vgood']
        """
        self._check_fitted()
        families, states, notes = self._conditional_tables()
        name = find_node(node, families)
        if name is None:
            noted = find_node(node, notes)
            reason = f" ({notes[noted]})" if noted is not None else ""
            raise ValueError(
                f"{type(self).__name__}.cpd: {node!r} has no conditional table{reason}; valid nodes: {list(families)}."
            )
        family = families[name]
        parents, log_table = family() if callable(family) else family
        normalize = isinstance(getattr(self, "estimator_", None), Discriminative)
        return conditional_frame(
            name, states[name], [(p, states[p]) for p in parents], _probabilities(log_table, normalize)
        )


def column_states(model: Any) -> dict[Hashable, Any]:
    """Every column's state labels (``encoder_``) and, for a classifier, the class's (``classes_``)."""
    states: dict[Hashable, Any] = dict(zip(model.encoder_.columns_, model.encoder_.levels_))
    class_name = getattr(model, "class_name_", None)
    if class_name is not None and not hasattr(model, "label_names_"):
        states[class_name] = model.classes_
    return states


def clique_marginals(
    cliques: Sequence[tuple[int, ...]], parents: Sequence[int] | np.ndarray, log_tables: Sequence[np.ndarray]
) -> list[np.ndarray]:
    """Each clique's marginal from a rooted junction forest of conditionals.

    Parameters
    ----------
    cliques : sequence of tuple of int
        Variables of each clique, its separator with the parent first.
    parents : sequence of int
        Parent clique of each (-1 for a root); parents come first.
    log_tables : sequence of ndarray
        ``log P(residual | stratum, separator)`` of shape ``(n_strata, r_1,
        ..., r_|c|)`` (the joint of the clique within a stratum for a root),
        as :func:`~graphmodels.models.hyperforest.clique_log_tables` makes them.

    Returns
    -------
    list of ndarray
        ``P(x_c | stratum)`` of each clique, in the axes of its table; each
        sums to 1 within a stratum. The separator marginal multiplied in is
        the model's own (the parent's marginal summed down), so these are the
        model's marginals.
    """
    marginals: list[np.ndarray] = []
    for clique, parent, log_table in zip(cliques, parents, log_tables):
        table = np.exp(np.asarray(log_table, dtype=np.float64))
        if parent >= 0:
            above = cliques[parent]
            n_separator = len(set(clique) & set(above))
            separator = clique[:n_separator]  # the separator comes first in a clique
            # The parent's marginal summed down to the separator, then its axes put in the child's order.
            kept = sorted(above.index(v) for v in separator)
            dropped = tuple(1 + a for a in range(len(above)) if a not in kept)
            summed = marginals[parent].sum(axis=dropped)
            summed = np.transpose(summed, [0] + [1 + kept.index(above.index(v)) for v in separator])
            table = table * summed.reshape(summed.shape + (1,) * (len(clique) - n_separator))
        marginals.append(table)
    return marginals


def clique_potentials(
    network: dict[str, Any], names: Sequence[Hashable]
) -> dict[frozenset[Hashable], tuple[tuple[int, ...], np.ndarray]]:
    """The marginal of every clique of a rooted junction forest, by the set of its variables' names.

    Parameters
    ----------
    network : dict
        ``cliques``, ``parents`` and ``log_tables``, as
        :func:`~graphmodels.models.hyperforest.clique_log_tables` makes them.
    names : sequence
        The name of each variable position.

    Returns
    -------
    dict
        ``frozenset(names) -> (positions, table)``: the clique's variable
        positions in increasing order and ``P(x_c | stratum)`` of shape
        ``(n_strata, r_1, ..., r_|c|)``, its axes in that order.
    """
    out = {}
    marginals = clique_marginals(network["cliques"], network["parents"], network["log_tables"])
    for clique, marginal in zip(network["cliques"], marginals):
        order = sorted(range(len(clique)), key=lambda a: clique[a])
        positions = tuple(clique[a] for a in order)
        out[frozenset(names[p] for p in positions)] = (positions, np.transpose(marginal, [0] + [1 + a for a in order]))
    return out


def find_variables(variables: Any, names: Sequence[Hashable]) -> frozenset[Hashable] | None:
    """The set of names meant by `variables`: one name, or an iterable of names; None if it is neither."""
    single = find_node(variables, names)
    if single is not None:
        return frozenset([single])
    if isinstance(variables, (str, bytes)) or not isinstance(variables, Iterable):
        return None
    found = [find_node(v, names) for v in variables]
    if any(v is None for v in found):
        return None
    return frozenset(found)
