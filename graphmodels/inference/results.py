"""What a query answers: pandas objects that display as tables with bars, and the trace of its messages.

:meth:`Distribution.query <graphmodels.inference.Distribution.query>` answers one evidence set
with pandas objects -- a :class:`Posterior` (a ``pandas.Series``) for one variable, a
:class:`Posteriors` (a ``dict`` of them) for several, a :class:`JointPosterior` (a
``pandas.DataFrame``) for a joint -- which are the pandas objects themselves, with one thing
added: in a notebook they display as a table with a bar beside each probability (plain HTML
and CSS, no script). Anything computed from them (``answer.round(3)``, ``answer * 2``,
``answer.sort_values()``) is a plain Series or DataFrame; only a strict type check tells them
apart (``pandas.testing.assert_series_equal`` needs ``check_series_type=False`` against a
plain Series).

Asked with ``trace=True``, a query returns a :class:`QueryTrace`: the answer, every message
passed to reach it (one row each, from, to, table) and the graph they travel on -- the
junction tree, the factor graph of loopy belief propagation or the region graph of
generalized belief propagation -- which :func:`graphmodels.plotting.animate` plays.
"""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import networkx as nx
import numpy as np
import pandas as pd

from .._display import format_value, plural, probabilities_html, safe_html

__all__ = ["JointPosterior", "Posterior", "Posteriors", "QueryTrace", "given_text"]


def given_text(evidence: Any, limit: int = 6) -> str:
    """The evidence of a question as text: ``"safety=low, buying~soft"`` (soft evidence ``~soft``).

    Examples
    --------
    >>> given_text({"safety": "low", "buying": {"low": 0.7, "high": 0.3}})
    'safety=low, buying~soft'
    >>> given_text(None)
    ''
    """
    if not isinstance(evidence, Mapping) or not evidence:
        return ""
    items = []
    for name, value in evidence.items():
        soft = isinstance(value, Mapping) or (isinstance(value, (list, np.ndarray)) and np.ndim(value) == 1)
        items.append(f"{format_value(name)}~soft" if soft else f"{format_value(name)}={format_value(value)}")
    if len(items) > limit:
        items = items[:limit] + [f"… ({len(items) - limit} more)"]
    return ", ".join(items)


def _title(names: Sequence[Any], evidence: Any) -> str:
    given = given_text(evidence)
    asked = ", ".join(format_value(n) for n in names)
    return f"P({asked} | {given})" if given else f"P({asked})"


def _observed(name: Hashable, evidence: Any) -> Any:
    """The observed state of `name` under hard evidence, else None."""
    if not isinstance(evidence, Mapping):
        return None
    for key, value in evidence.items():
        if key == name or format_value(key) == format_value(name):
            soft = isinstance(value, Mapping) or (isinstance(value, (list, np.ndarray)) and np.ndim(value) == 1)
            return None if soft else value
    return None


def _table(series: pd.Series, evidence: Any) -> tuple[str, list[tuple[Any, float]], Any]:
    return (
        format_value(series.name),
        list(zip(series.index, series.to_numpy(dtype=float))),
        _observed(series.name, evidence),
    )


class Posterior(pd.Series):
    """The posterior marginal of one variable: a ``pandas.Series`` indexed by its states.

    It is a Series in every way (``isinstance(answer, pd.Series)``; what is computed from it is
    a plain Series) and displays in a notebook as a table with a bar beside each probability,
    titled by the question (``P(class | safety=low)``), the observed state of a variable given
    as evidence marked.

    Attributes
    ----------
    evidence : mapping or None
        The evidence the answer is conditioned on, as it was given.
    """

    _metadata = ["evidence"]
    evidence: Any = None

    @property
    def _constructor(self) -> type[pd.Series]:  # what pandas builds from it: a plain Series
        return pd.Series

    @property
    def _constructor_expanddim(self) -> type[pd.DataFrame]:
        return pd.DataFrame

    def _repr_html_(self) -> str:
        return safe_html(
            self, lambda: probabilities_html(_title([self.name], self.evidence), [_table(self, self.evidence)])
        )


class Posteriors(dict):
    """The posterior marginals of several variables: a ``dict`` of :class:`Posterior`, in the order asked.

    Displays in a notebook as one table with bars per variable, side by side.

    Attributes
    ----------
    evidence : mapping or None
    """

    evidence: Any = None

    def _repr_html_(self) -> str:
        return safe_html(
            self,
            lambda: probabilities_html(
                _title(list(self), self.evidence), [_table(series, self.evidence) for series in self.values()]
            ),
        )


class JointPosterior(pd.DataFrame):
    """The joint posterior of several variables: a ``pandas.DataFrame`` with a ``probability`` column.

    Indexed by the states of the variables (a MultiIndex); displays in a notebook as a table
    with a bar beside each probability.

    Attributes
    ----------
    evidence : mapping or None
    """

    _metadata = ["evidence"]
    evidence: Any = None

    @property
    def _constructor(self) -> type[pd.DataFrame]:
        return pd.DataFrame

    @property
    def _constructor_sliced(self) -> type[pd.Series]:
        return pd.Series

    def _repr_html_(self) -> str:
        def build() -> str:
            names = list(self.index.names)
            labels = [", ".join(format_value(s) for s in key) if isinstance(key, tuple) else key for key in self.index]
            entries = list(zip(labels, self["probability"].to_numpy(dtype=float)))
            return probabilities_html(_title(names, self.evidence), [(", ".join(map(str, names)), entries, None)])

        return safe_html(self, build)


#: Columns of :attr:`QueryTrace.messages`.
MESSAGE_COLUMNS = ("step", "iteration", "kind", "source", "target", "separator", "table")


class QueryTrace:
    """A query asked with ``trace=True``: its answer and every message passed to reach it.

    Unpacks as ``answer, messages = model.query(..., trace=True)``; displays in a notebook as
    the answer's tables with a line on its messages; :func:`graphmodels.plotting.animate`
    plays the messages on the drawing of :attr:`graph`.

    Attributes
    ----------
    answer : Posterior or Posteriors
        What the same query without ``trace`` answers.
    messages : pandas.DataFrame
        One row per message, in the order passed: ``step`` (from 0), ``iteration`` (the sweep
        of loopy BP or GBP, from 1; ``<NA>`` for the junction tree's single pass), ``kind``
        (``"sum"``, ``"loopy"``, ``"gbp"``), ``source`` and ``target`` (nodes of
        :attr:`graph`), ``separator`` (the tuple of variables the message is over) and
        ``table`` (the normalized message as ``{state: value}``, keyed by tuples of states over
        several variables; ``pd.Series(row.table)`` makes it a Series).
    graph : networkx.Graph
        What the messages travel on. Junction tree: its cliques (frozensets of variables,
        ``kind="clique"``) and separators (``sepset`` on the edges), as
        :attr:`JunctionTree.graph <graphmodels.inference.JunctionTree.graph>` gives it. Loopy
        belief propagation: the factor graph, variables (``kind="variable"``) joined to
        factors (``kind="factor"``, a frozenset of their variables; a pair
        ``(frozenset, k)`` when factors share a scope). Generalized belief propagation: the
        region graph (a DiGraph of frozenset regions, ``counting_number`` on each).
    method : str
        ``"junction tree"``, ``"loopy belief propagation"`` or ``"generalized belief propagation"``.
    targets : list
        The nodes of :attr:`graph` where the answer is read (the home clique, the variable, the
        smallest region holding it), one per variable asked.
    evidence : mapping or None
    run : ApproximateResult or None
        The convergence report of an iterative method.
    """

    def __init__(
        self,
        answer: Any,
        messages: pd.DataFrame,
        graph: nx.Graph,
        method: str,
        targets: Sequence[Any],
        evidence: Any = None,
        run: Any = None,
    ) -> None:
        self.answer = answer
        self.messages = messages
        self.graph = graph
        self.method = method
        self.targets = list(targets)
        self.evidence = evidence
        self.run = run

    def __iter__(self):  # ``answer, messages = model.query(..., trace=True)``
        yield self.answer
        yield self.messages

    def __len__(self) -> int:
        return len(self.messages)

    def _what(self) -> str:
        if self.method == "junction tree":
            return f"a junction tree of {plural(self.graph.number_of_nodes(), 'clique')}"
        if self.method == "loopy belief propagation":
            factors = sum(1 for _, kind in self.graph.nodes(data="kind") if kind == "factor")
            return f"a factor graph of {plural(factors, 'factor')}"
        return f"a region graph of {plural(self.graph.number_of_nodes(), 'region')}"

    def __repr__(self) -> str:
        return f"QueryTrace({self.method}: {plural(len(self.messages), 'message')} on {self._what()})"

    def _repr_html_(self) -> str:
        def build() -> str:
            answer = self.answer
            series = list(answer.values()) if isinstance(answer, dict) else [answer]
            names = [s.name for s in series]
            rows: list[tuple[str, str | list[str]]] = [
                ("messages", f"{plural(len(self.messages), 'message')} ({self.method}) on {self._what()}")
            ]
            if self.run is not None:
                state = "converged" if self.run.converged else "did not converge"
                rows.append(("run", f"{state} after {plural(self.run.iterations, 'iteration')}"))
            return probabilities_html(
                _title(names, self.evidence),
                [_table(s, self.evidence) for s in series],
                rows=rows,
                notes=["trace.messages: one row per message; graphmodels.plotting.animate(trace) plays them"],
            )

        return safe_html(self, build)


def message_table(
    values: np.ndarray, names: Sequence[Hashable], states: Mapping[Hashable, Sequence[Any]]
) -> dict[Any, float]:
    """A message's table as ``{state: value}`` (``{(state, state): value}`` over several variables).

    Examples
    --------
    >>> message_table(np.array([0.25, 0.75]), ["rain"], {"rain": ["no", "yes"]})
    {'no': 0.25, 'yes': 0.75}
    >>> message_table(np.array(1.0), [], {})
    {(): 1.0}
    """
    flat = np.asarray(values, dtype=np.float64).reshape(-1)
    if not names:
        return {(): float(flat[0]) if flat.size else 1.0}
    if len(names) == 1:
        keys: list[Any] = list(states[names[0]])
    else:
        keys = list(itertools.product(*[states[n] for n in names]))
    return dict(zip(keys, flat.tolist()))


def message_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """The :attr:`QueryTrace.messages` table of message rows (dicts with :data:`MESSAGE_COLUMNS`)."""
    frame = pd.DataFrame(rows, columns=list(MESSAGE_COLUMNS))
    frame["step"] = frame["step"].astype("int64")
    frame["iteration"] = frame["iteration"].astype("Int64")
    return frame
