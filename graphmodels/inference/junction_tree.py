"""The junction tree: exact marginals, evidence probabilities, MPE and conditional samples.

A junction tree is compiled once from a product of factors: a greedy elimination order
(:mod:`~graphmodels.inference.orders`) triangulates the interaction graph, each elimination
step's clique becomes a node (non-maximal cliques are absorbed), and each clique is joined to
the clique of the first variable eliminated after it, which gives the running intersection
property (Koller & Friedman 2009, Theorem 10.4). Every factor is multiplied into the clique of
its first-eliminated variable, and evidence on a variable into one clique that holds it.

Messages are passed by the Shafer-Shenoy rule (Shafer & Shenoy 1990): the message from clique
``i`` to its neighbour ``j`` sums the product of ``i``'s potential, its evidence and the
messages from its other neighbours over the variables ``j`` does not hold. It depends only on
the evidence on ``i``'s side of the edge, so each message is kept with the evidence it was
computed from and reused while that evidence is unchanged: a new evidence set recomputes only
the messages whose side it touches, and a query computes only the messages that flow towards
the cliques it asks about -- the lazy propagation of Madsen & Jensen (1999), which pyAgrum's
``LazyPropagation`` implements.

Evidence may be batched: an evidence table with a leading axis of ``n`` rows asks ``n``
questions at once, and each message carries that axis only when its side holds batched
evidence (messages from evidence-free subtrees are computed once and broadcast).

References
----------
.. [1] Shafer, G., & Shenoy, P. P. (1990). Probability propagation. *Annals of Mathematics and
   Artificial Intelligence*, 2, 327-351.
.. [2] Madsen, A. L., & Jensen, F. V. (1999). Lazy propagation: a junction tree inference
   algorithm based on lazy evaluation. *Artificial Intelligence*, 113(1-2), 203-245.
.. [3] Koller, D., & Friedman, N. (2009). *Probabilistic Graphical Models: Principles and
   Techniques*. MIT Press. Chapters 9-10, 13.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import networkx as nx
import numpy as np

from .._memory import DEFAULT_MAX_CELLS, check_cells, describe_variables
from ._tables import from_log, normalize
from .orders import greedy_elimination

__all__ = ["JunctionTree", "Message"]

Scope = tuple[int, ...]
Table = tuple[np.ndarray, np.ndarray]  # (values, log_scale)


class Message:
    """One message of a trace: from clique to clique, its separator and its (normalized) table.

    ``iteration`` numbers the sweep of an iterative method (loopy BP, GBP), from 1; None for
    the junction tree's single pass.
    """

    __slots__ = ("source", "target", "separator", "values", "kind", "iteration")

    def __init__(
        self, source: int, target: int, separator: Scope, values: np.ndarray, kind: str, iteration: int | None = None
    ) -> None:
        self.source = source
        self.target = target
        self.separator = separator
        self.values = values
        self.kind = kind
        self.iteration = iteration

    def __repr__(self) -> str:
        return f"Message({self.source} -> {self.target}, separator={self.separator}, kind={self.kind!r})"


def _check_width(largest, cliques, cards, max_cells, names, width, fix):
    if largest <= max_cells:
        return
    widest = max(cliques, key=lambda c: math.prod(cards[v] for v in c))
    labels = list(range(len(cards))) if names is None else list(names)
    check_cells(
        largest,
        max_cells,
        what=(
            f"largest clique of exact inference (induced width {width}) over "
            f"{describe_variables([labels[v] for v in widest], [cards[v] for v in widest])}"
        ),
        fix=fix,
    )


class JunctionTree:
    """A junction tree compiled from log factors over variable positions.

    Parameters
    ----------
    factors : sequence of (scope, log_table)
        ``scope`` a tuple of distinct positions in ``range(len(cardinalities))`` and
        ``log_table`` an array of shape ``[cardinalities[v] for v in scope]`` of log values
        (``-inf`` for zero). The distribution is proportional to ``exp(sum of the factors)``.
        A ``log_table`` of None reserves a *slot*: a factor over that scope given with each
        question (``row_factors``, one table per row of a batch), slots numbered in order.
    cardinalities : sequence of int
    heuristic : {"min-fill", "min-weight", "min-degree"}
        The elimination order that builds the cliques.
    max_cells : int
        The largest clique table allowed; a larger one raises :class:`TableTooLargeError`
        naming the induced width, before anything is allocated.
    names : sequence, optional
        The variables' names, for messages.
    fix : str, optional
        What the error of a clique over `max_cells` suggests besides a larger `max_cells`.
    merge_cells : int, default=256
        Neighbouring cliques that hold at most this many states together are merged into one:
        on small tables a message costs Python's and numpy's overhead more than arithmetic, so
        fewer, larger cliques answer faster (0 keeps every clique of the elimination order).

    Attributes
    ----------
    cliques : list of tuple of int
        The cliques, each a sorted tuple of positions.
    neighbors : list of list of int
    width : int
        The induced width of the elimination order (largest clique size - 1).
    home : list of int
        ``home[v]``: the clique where evidence on ``v`` enters and its marginal is read.
    """

    def __init__(
        self,
        factors: Sequence[tuple[Sequence[int], np.ndarray | None]],
        cardinalities: Sequence[int],
        *,
        heuristic: str = "min-fill",
        max_cells: int = DEFAULT_MAX_CELLS,
        names: Sequence[Hashable] | None = None,
        fix: str = 'use an approximate method (method="loopy" or "gbp")',
        merge_cells: int = 256,
    ) -> None:
        cards = [int(r) for r in cardinalities]
        self.cardinalities = cards
        self.merge_cells = merge_cells
        self.names = None if names is None else list(names)
        n = len(cards)
        scopes = [tuple(int(v) for v in scope) for scope, _ in factors]
        adjacency: list[set[int]] = [set() for _ in range(n)]
        for scope in scopes:
            for v in scope:
                adjacency[v].update(scope)
        elimination = greedy_elimination(adjacency, cards, heuristic=heuristic)
        self.heuristic = heuristic
        self.width = elimination.width
        self.order = elimination.order
        _check_width(elimination.largest, elimination.cliques, cards, max_cells, self.names, elimination.width, fix)
        self._build_tree(elimination.order, elimination.cliques)
        position = {v: k for k, v in enumerate(elimination.order)}
        # Potentials: each factor in the clique of its first-eliminated variable.
        assigned: list[list[tuple[Scope, np.ndarray]]] = [[] for _ in self.cliques]
        constant = 0.0
        self.slots: list[Scope] = []
        slot_homes: list[int] = []
        for scope, (_, table) in zip(scopes, factors):
            if table is None:  # a slot, filled by each question's row_factors
                self.slots.append(scope)
                first_slot = min(scope, key=position.__getitem__) if scope else None
                slot_homes.append(self._clique_of_step[position[first_slot]] if first_slot is not None else 0)
                continue
            table = np.asarray(table, dtype=np.float64)
            expected = tuple(cards[v] for v in scope)
            if table.shape != expected:
                raise ValueError(f"A factor over {scope} has shape {table.shape}, expected {expected}.")
            if not scope:
                constant += float(table)
                continue
            first = min(scope, key=position.__getitem__)
            assigned[self._clique_of_step[position[first]]].append((scope, table))
        self.potentials: list[np.ndarray] = []
        self.potential_scales: list[float] = []
        for c, clique in enumerate(self.cliques):
            log_potential = np.zeros([cards[v] for v in clique])
            for scope, table in assigned[c]:
                log_potential = log_potential + _align(table, scope, clique)
            values, scale = from_log(log_potential, len(clique))
            self.potentials.append(values)
            self.potential_scales.append(float(scale))
        self.potential_scales[0] += constant
        self.home = [self._clique_of_step[position[v]] for v in range(n)]
        # Evidence on variable v and the table of slot k enter one clique each; ids n + k name slots.
        self._entry_home = self.home + slot_homes
        self._entry_scope = [(v,) for v in range(n)] + self.slots
        self._side_variables()
        self._labels = [{v: k for k, v in enumerate(clique)} for clique in self.cliques]
        self._homed = [[e for e, home in enumerate(self._entry_home) if home == c] for c in range(len(self.cliques))]
        self._marginal_axes = [
            tuple(k for k, u in enumerate(self.cliques[self.home[v]]) if u != v) for v in range(len(cards))
        ]
        self._separator_labels = {
            (a, b): [self._labels[b][v] for v in separator] for (a, b), separator in self.separators.items()
        }
        self._cache: dict[tuple[int, int], tuple[tuple, np.ndarray, np.ndarray]] = {}
        self._schedules: dict[tuple[int, ...], list[tuple[int, int]]] = {}

    # -- compilation -------------------------------------------------------------------------

    def _build_tree(self, order: list[int], step_cliques: list[frozenset[int]]) -> None:
        position = {v: k for k, v in enumerate(order)}
        n_steps = len(order)
        parent_step = [
            min((position[u] for u in clique if u != order[k]), default=-1) for k, clique in enumerate(step_cliques)
        ]
        children: list[list[int]] = [[] for _ in range(n_steps)]
        for k, p in enumerate(parent_step):
            if p >= 0:
                children[p].append(k)
        representative = list(range(n_steps))
        for k in range(n_steps):  # children come before their parent
            for c in children[k]:
                r = representative[c]
                if step_cliques[r] >= step_cliques[k]:
                    representative[k] = r
                    break
        kept = sorted(set(representative))
        index = {step: i for i, step in enumerate(kept)}
        sets = [set(step_cliques[step]) for step in kept]
        clique_of_step = [index[representative[k]] for k in range(n_steps)]
        tree_edges = set()
        roots = []
        for k, p in enumerate(parent_step):
            a = clique_of_step[k]
            if p < 0:
                roots.append(a)
                continue
            b = clique_of_step[p]
            if a != b:
                tree_edges.add((min(a, b), max(a, b)))
        roots = sorted(set(roots))
        for r in roots[1:]:  # join the components' trees by empty separators
            tree_edges.add((roots[0], r))
        merged_into = self._merge_small(sets, tree_edges)
        alive = sorted({merged_into[i] for i in range(len(sets))})
        compact = {old: new for new, old in enumerate(alive)}
        self.cliques = [tuple(sorted(sets[old])) for old in alive]
        self._clique_of_step = [compact[merged_into[c]] for c in clique_of_step]
        edges = set()
        for a, b in tree_edges:
            a, b = compact[merged_into[a]], compact[merged_into[b]]
            if a != b:
                edges.add((min(a, b), max(a, b)))
        self.neighbors: list[list[int]] = [[] for _ in self.cliques]
        for a, b in sorted(edges):
            self.neighbors[a].append(b)
            self.neighbors[b].append(a)
        self.separators = {}
        for a, b in edges:
            separator = tuple(sorted(set(self.cliques[a]) & set(self.cliques[b])))
            self.separators[(a, b)] = separator
            self.separators[(b, a)] = separator
        self.root = 0

    def _merge_small(self, sets: list[set[int]], edges: set[tuple[int, int]]) -> list[int]:
        """Contract tree edges whose two cliques together hold at most ``merge_cells`` states.

        A message costs numpy's dispatch (microseconds) more than its arithmetic when tables are
        small, so a few larger cliques answer faster than many tiny ones; contracting an edge of a
        junction tree keeps the running intersection property. Returns each clique's survivor.
        """
        cards = self.cardinalities
        neighbours: dict[int, set[int]] = {i: set() for i in range(len(sets))}
        for a, b in edges:
            neighbours[a].add(b)
            neighbours[b].add(a)
        survivor = list(range(len(sets)))

        def size(a: int, b: int) -> int:
            return math.prod(cards[v] for v in sets[a] | sets[b])

        heap = [(size(a, b), a, b) for a, b in edges]
        heapq.heapify(heap)
        while heap:
            cells, a, b = heapq.heappop(heap)
            if cells > self.merge_cells:
                break
            if survivor[a] != a or survivor[b] != b or b not in neighbours[a] or size(a, b) != cells:
                continue  # stale: one side was merged since
            sets[a] |= sets[b]
            survivor[b] = a
            for nb in neighbours.pop(b) - {a}:
                neighbours[nb].discard(b)
                neighbours[nb].add(a)
                neighbours[a].add(nb)
            neighbours[a].discard(b)
            for nb in neighbours[a]:
                heapq.heappush(heap, (size(a, nb), min(a, nb), max(a, nb)))
        for i in range(len(survivor)):  # follow chains of merges
            root = i
            while survivor[root] != root:
                root = survivor[root]
            survivor[i] = root
        return survivor

    def _rooted(self, root: int) -> tuple[list[int], dict[int, int]]:
        """The cliques in breadth-first order from `root`, and each one's parent (-1 for the root)."""
        parent = {root: -1}
        order = [root]
        for c in order:
            for nb in self.neighbors[c]:
                if nb not in parent:
                    parent[nb] = c
                    order.append(nb)
        return order, parent

    def _side_variables(self) -> None:
        """For each directed edge (i, j), the variables whose home clique lies on i's side."""
        homed: list[list[int]] = [[] for _ in self.cliques]
        for v, c in enumerate(self._entry_home):
            homed[c].append(v)
        self.side: dict[tuple[int, int], frozenset[int]] = {}
        # One post-order from clique 0 gives the downward sides; upward sides are the complement.
        order, parent = self._rooted(0)
        below: dict[int, frozenset[int]] = {}
        for c in reversed(order):
            variables = set(homed[c])
            for nb in self.neighbors[c]:
                if nb != parent[c]:
                    variables |= below[nb]
            below[c] = frozenset(variables)
        everything = frozenset(range(len(self._entry_home)))
        for c in order:
            p = parent[c]
            if p >= 0:
                self.side[(c, p)] = below[c]
                self.side[(p, c)] = everything - below[c]

    @property
    def graph(self) -> nx.Graph:
        """The junction tree as an ``nx.Graph``: frozenset cliques (of names), ``sepset`` on edges."""
        labels = self.names if self.names is not None else list(range(len(self.cardinalities)))
        tree = nx.Graph()
        nodes = [frozenset(labels[v] for v in clique) for clique in self.cliques]
        for node, clique in zip(nodes, self.cliques):
            tree.add_node(node, kind="clique", size=len(clique))
        for (a, b), separator in self.separators.items():
            if a < b:
                tree.add_edge(nodes[a], nodes[b], sepset=frozenset(labels[v] for v in separator))
        return tree

    @property
    def largest_clique(self) -> int:
        """States of the largest clique."""
        return max((math.prod(self.cardinalities[v] for v in c) for c in self.cliques), default=1)

    # -- sum-product ----------------------------------------------------------------------

    def _contract(
        self, c: int, evidence: Mapping[int, np.ndarray], exclude: int | None, messages, out: Scope
    ) -> np.ndarray:
        """Clique `c`'s potential x its evidence x the messages from its neighbours but `exclude`, summed onto `out`.

        One ``einsum`` whose labels are the clique's own axes (precomputed), so a call costs
        little more than numpy's dispatch.
        """
        labels = self._labels[c]
        args: list = [self.potentials[c], list(range(len(self.cliques[c])))]
        for entry in self._homed[c]:
            table = evidence.get(entry)
            if table is not None:
                sub = [labels[v] for v in self._entry_scope[entry]]
                args.append(table)
                args.append([Ellipsis, *sub] if table.ndim > len(sub) else sub)
        for nb in self.neighbors[c]:
            if nb != exclude:
                values = messages[(nb, c)][0]
                sub = self._separator_labels[(nb, c)]
                args.append(values)
                args.append([Ellipsis, *sub] if values.ndim > len(sub) else sub)
        args.append([Ellipsis, *(labels[v] for v in out)])
        return np.einsum(*args)

    def _key(self, i: int, j: int, signatures: Mapping[int, Any]) -> tuple:
        side = self.side[(i, j)]
        return tuple((v, s) for v, s in signatures.items() if v in side)

    def _pass(self, i: int, j: int, evidence, signatures, messages, trace) -> None:
        key = self._key(i, j, signatures)
        cached = self._cache.get((i, j))
        if cached is not None and cached[0] == key:
            messages[(i, j)] = (cached[1], cached[2])
            return
        separator = self.separators[(i, j)]
        values, log_total = normalize(self._contract(i, evidence, j, messages, separator), len(separator))
        scale = log_total + self.potential_scales[i]
        for nb in self.neighbors[i]:
            if nb != j:
                scale = scale + messages[(nb, i)][1]
        messages[(i, j)] = (values, scale)
        self._cache[(i, j)] = (key, values, scale)
        if trace is not None:
            trace.append(Message(i, j, separator, values, "sum"))

    def _schedule(self, targets: Sequence[int]) -> list[tuple[int, int]]:
        """The directed edges whose messages the beliefs of `targets` need, senders first (memoized)."""
        key = tuple(targets)
        known = self._schedules.get(key)
        if known is not None:
            return known
        needed: list[tuple[int, int]] = []
        seen: set[tuple[int, int]] = set()
        for target in targets:
            order, parent = self._rooted(target)
            for c in reversed(order):
                p = parent[c]
                if p >= 0 and (c, p) not in seen:
                    seen.add((c, p))
                    needed.append((c, p))
        if len(self._schedules) < 4096:
            self._schedules[key] = needed
        return needed

    def beliefs(
        self,
        evidence: Mapping[int, np.ndarray] | None = None,
        cliques: Sequence[int] | None = None,
        *,
        signatures: Mapping[int, Any] | None = None,
        trace: list | None = None,
        row_factors: Mapping[int, np.ndarray] | None = None,
    ) -> dict[int, Table]:
        """Normalized beliefs of `cliques` (default all) and, as their scale, ``log P(evidence)``.

        Parameters
        ----------
        evidence : mapping of int to ndarray
            ``evidence[v]``: a non-negative likelihood vector of shape ``(r_v,)`` or, batched,
            ``(n, r_v)`` (every batched entry with the same ``n``).
        cliques : sequence of int, optional
        signatures : mapping, optional
            A hashable signature of each evidence entry (its bytes by default): messages
            computed for the same signatures are reused.
        trace : list, optional
            Each message computed is appended as a :class:`Message`.
        row_factors : mapping of int to ndarray, optional
            The table of each slot (see the class), non-negative, of shape
            ``(*batch, *cards of its scope)``; a slot left out is 1. They are never reused.

        Returns
        -------
        dict of int to (values, log_scale)
            ``values`` sums to 1 over the clique's states (per batch row) and ``log_scale`` is
            the log of the unnormalized product's total, ``log sum_x prod factors x evidence``.
        """
        evidence = dict(evidence or {})
        if signatures is None:
            signatures = {v: _signature(table) for v, table in sorted(evidence.items())}
        if row_factors:
            n = len(self.cardinalities)
            signatures = dict(signatures)
            for k, table in row_factors.items():
                evidence[n + k] = table
                signatures[n + k] = object()  # a fresh signature: never reused
        targets = list(range(len(self.cliques))) if cliques is None else list(cliques)
        messages: dict[tuple[int, int], Table] = {}
        for i, j in self._schedule(targets):
            self._pass(i, j, evidence, signatures, messages, trace)
        result = {}
        for c in targets:
            clique = self.cliques[c]
            values, log_total = normalize(self._contract(c, evidence, None, messages, clique), len(clique))
            scale = log_total + self.potential_scales[c]
            for nb in self.neighbors[c]:
                scale = scale + messages[(nb, c)][1]
            result[c] = (values, scale)
        return result

    def marginals(
        self,
        variables: Sequence[int],
        evidence: Mapping[int, np.ndarray] | None = None,
        *,
        signatures: Mapping[int, Any] | None = None,
        trace: list | None = None,
        row_factors: Mapping[int, np.ndarray] | None = None,
    ) -> tuple[dict[int, np.ndarray], np.ndarray]:
        """Posterior marginals ``P(v | evidence)`` of `variables` and ``log P(evidence)``.

        Returns
        -------
        marginals : dict of int to ndarray of shape ``(*batch, r_v)``
            Zeros in a batch row whose evidence has probability zero.
        log_evidence : ndarray of shape batch
            ``log`` of the unnormalized product summed over all states consistent with the
            evidence (``-inf`` where that is zero).
        """
        variables = list(variables)
        cliques = sorted({self.home[v] for v in variables}) or [self.root]
        beliefs = self.beliefs(evidence, cliques, signatures=signatures, trace=trace, row_factors=row_factors)
        result = {}
        for v in variables:
            values, _ = beliefs[self.home[v]]
            others = self._marginal_axes[v]
            if values.ndim > len(self.cliques[self.home[v]]):  # batched: the row axis first
                others = tuple(a + 1 for a in others)
            result[v] = values.sum(axis=others) if others else values
        log_evidence = next(iter(beliefs.values()))[1]
        return result, np.asarray(log_evidence)

    def clear_cache(self) -> None:
        """Forget the messages kept for reuse."""
        self._cache.clear()

    # -- max-product ----------------------------------------------------------------------

    def mpe(
        self, evidence: Mapping[int, np.ndarray] | None = None, *, trace: list | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """The most probable joint state given the evidence, by max-product and traceback.

        Returns
        -------
        states : ndarray of int of shape ``(*batch, n_variables)``
            The state of every variable (ties go to the first state).
        log_value : ndarray of shape batch
            ``log max_x prod factors x evidence`` (``-inf`` for impossible evidence).
        """
        evidence = dict(evidence or {})
        n_rows = _batch_size(evidence)
        root = self.root
        order, parent = self._rooted(root)
        messages: dict[tuple[int, int], Table] = {}
        tables: dict[int, np.ndarray] = {}
        for c in reversed(order):
            p = parent[c]
            clique = self.cliques[c]
            table = self._contract(c, evidence, p, messages, clique)
            if table.ndim == len(clique) and n_rows is not None:
                table = np.broadcast_to(table, (n_rows, *table.shape))
            tables[c] = table
            scale: Any = self.potential_scales[c]
            for nb in self.neighbors[c]:
                if nb != p:
                    scale = scale + messages[(nb, c)][1]
            if p >= 0:
                separator = self.separators[(c, p)]
                summed = tuple(table.ndim - len(clique) + k for k, v in enumerate(clique) if v not in separator)
                peak = table.max(axis=summed) if summed else table
                kept = [v for v in clique if v in separator]
                peak = _reorder(peak, kept, separator)
                top = peak.max(axis=tuple(range(peak.ndim - len(separator), peak.ndim))) if separator else peak
                safe = np.where(top > 0, top, 1.0)
                values = peak / (safe.reshape(safe.shape + (1,) * len(separator)) if np.ndim(safe) else safe)
                with np.errstate(divide="ignore"):
                    messages[(c, p)] = (values, scale + np.log(top))
                if trace is not None:
                    trace.append(Message(c, p, separator, values, "max"))
            else:
                root_scale = scale
        batch_shape = () if n_rows is None else (n_rows,)
        states = np.zeros(batch_shape + (len(self.cardinalities),), dtype=np.intp)
        flat_root = tables[root].reshape(batch_shape + (-1,))
        best = flat_root.argmax(axis=-1)
        top = np.take_along_axis(flat_root, np.asarray(best)[..., None], axis=-1)[..., 0]
        with np.errstate(divide="ignore"):
            log_value = np.log(top) + root_scale
        root_clique = self.cliques[root]
        for v, s in zip(root_clique, np.unravel_index(best, [self.cardinalities[u] for u in root_clique])):
            states[..., v] = s
        for c in order[1:]:
            clique = self.cliques[c]
            separator = self.separators[(c, parent[c])]
            rest = [v for v in clique if v not in separator]
            if not rest:
                continue
            table = _reorder(tables[c], list(clique), list(separator) + rest)
            rest_cards = [self.cardinalities[v] for v in rest]
            flat = table.reshape(batch_shape + (-1, math.prod(rest_cards)))
            if separator:
                index = np.ravel_multi_index(
                    tuple(states[..., v] for v in separator), [self.cardinalities[v] for v in separator]
                )
            else:
                index = np.zeros(batch_shape, dtype=np.intp)
            rows = np.take_along_axis(flat, np.asarray(index)[..., None, None], axis=-2)[..., 0, :]
            choice = rows.argmax(axis=-1)
            for v, s in zip(rest, np.unravel_index(choice, rest_cards)):
                states[..., v] = s
        return states, np.asarray(log_value)

    # -- sampling -------------------------------------------------------------------------

    def sample(
        self, n_samples: int, evidence: Mapping[int, np.ndarray] | None = None, *, random_state: Any = None
    ) -> np.ndarray:
        """Exact samples of every variable given (unbatched) evidence, by forward sampling on the tree.

        The root clique's state is drawn from its calibrated belief, then each clique's other
        variables from its belief conditioned on its separator with the parent (Koller &
        Friedman 2009, section 12.1.2; Dawid 1992).

        Returns
        -------
        ndarray of int of shape (n_samples, n_variables)

        Raises
        ------
        ValueError
            If the evidence has probability zero.
        """
        evidence = dict(evidence or {})
        if _batch_size(evidence) is not None:
            raise ValueError("Sampling takes one evidence set, not a batch.")
        rng = np.random.default_rng(random_state)
        beliefs = self.beliefs(evidence)
        if not np.isfinite(beliefs[self.root][1]):
            raise ValueError("The evidence has probability zero under the model: there is nothing to sample.")
        root = self.root
        order, parent = self._rooted(root)
        states = np.zeros((n_samples, len(self.cardinalities)), dtype=np.intp)
        for c in order:
            clique = list(self.cliques[c])
            separator = [] if parent[c] < 0 else list(self.separators[(c, parent[c])])
            rest = [v for v in clique if v not in separator]
            if not rest:
                continue
            belief = _reorder(beliefs[c][0], clique, separator + rest)
            rest_cards = [self.cardinalities[v] for v in rest]
            conditional = belief.reshape(-1, math.prod(rest_cards))
            totals = conditional.sum(axis=1, keepdims=True)
            cumulative = np.cumsum(conditional / np.where(totals > 0, totals, 1.0), axis=1)
            if separator:
                index = np.ravel_multi_index(
                    tuple(states[:, v] for v in separator), [self.cardinalities[v] for v in separator]
                )
            else:
                index = np.zeros(n_samples, dtype=np.intp)
            draws = _draw(cumulative, index, rng)
            for v, s in zip(rest, np.unravel_index(draws, rest_cards)):
                states[:, v] = s
        return states

    def sample_rows(
        self,
        evidence: Mapping[int, np.ndarray],
        *,
        row_factors: Mapping[int, np.ndarray] | None = None,
        random_state: Any = None,
    ) -> np.ndarray:
        """One exact sample of every variable per row of batched evidence (``P(x | evidence row)``).

        The sampler of :meth:`sample`, with each clique's belief conditioned on its separator
        row by row: the completions a structural EM draws for the unobserved cells of its
        rows, all rows in one pass over the tree.

        Parameters
        ----------
        evidence : mapping of int to ndarray
            Likelihoods of shape ``(n, r_v)`` (batched) or ``(r_v,)`` (the same for every row);
            at least one batched.
        row_factors : mapping of int to ndarray, optional
            The tables of the slots, as for :meth:`beliefs`.
        random_state : int, Generator or None

        Returns
        -------
        ndarray of int of shape (n, n_variables)

        Raises
        ------
        ValueError
            If no evidence is batched, or a row's evidence has probability zero.
        """
        evidence = dict(evidence)
        n = _batch_size(evidence)
        if n is None:
            raise ValueError("sample_rows takes batched evidence (one row per sample); use sample for one set.")
        rng = np.random.default_rng(random_state)
        beliefs = self.beliefs(evidence, row_factors=row_factors)
        if not np.isfinite(beliefs[self.root][1]).all():
            raise ValueError("The evidence of some row has probability zero under the model.")
        order, parent = self._rooted(self.root)
        states = np.zeros((n, len(self.cardinalities)), dtype=np.intp)
        rows = np.arange(n)
        for c in order:
            clique = list(self.cliques[c])
            separator = [] if parent[c] < 0 else list(self.separators[(c, parent[c])])
            rest = [v for v in clique if v not in separator]
            if not rest:
                continue
            values = beliefs[c][0]
            if values.ndim == len(clique):  # no batched evidence reached it: the same for every row
                values = np.broadcast_to(values, (n, *values.shape))
            separator_size = math.prod(self.cardinalities[v] for v in separator)
            rest_cards = [self.cardinalities[v] for v in rest]
            belief = _reorder(values, clique, separator + rest).reshape(n, separator_size, -1)
            if separator:
                index = np.ravel_multi_index(
                    tuple(states[:, v] for v in separator), [self.cardinalities[v] for v in separator]
                )
            else:
                index = np.zeros(n, dtype=np.intp)
            chosen = belief[rows, index]  # (n, states of the rest)
            cumulative = np.cumsum(chosen, axis=1)
            u = rng.random(n) * cumulative[:, -1]
            draws = np.minimum((cumulative <= u[:, None]).sum(axis=1), chosen.shape[1] - 1)
            for v, state in zip(rest, np.unravel_index(draws, rest_cards)):
                states[:, v] = state
        return states


def _draw(cumulative: np.ndarray, rows: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One draw per entry of `rows` from the cumulative distribution ``cumulative[row]``."""
    u = rng.random(len(rows))
    width = cumulative.shape[1]
    out = np.empty(len(rows), dtype=np.intp)
    block = max(1, 2_000_000 // max(width, 1))
    for start in range(0, len(rows), block):
        stop = start + block
        chosen = cumulative[rows[start:stop]]
        out[start:stop] = np.minimum((chosen < u[start:stop, None]).sum(axis=1), width - 1)
    return out


def _align(table: np.ndarray, scope: Scope, clique: Scope) -> np.ndarray:
    """`table` over `scope` transposed and reshaped to broadcast over `clique`."""
    order = sorted(range(len(scope)), key=lambda k: clique.index(scope[k]))
    moved = np.transpose(table, order)
    present = {scope[k] for k in order}
    return moved.reshape([table.shape[scope.index(v)] if v in present else 1 for v in clique])


def _reorder(values: np.ndarray, scope: Sequence[int], target: Sequence[int]) -> np.ndarray:
    """Permute the variable axes (the last ``len(scope)``) of `values` from `scope` to `target` order."""
    lead = values.ndim - len(scope)
    return np.transpose(values, list(range(lead)) + [lead + list(scope).index(v) for v in target])


def _signature(table: np.ndarray) -> Any:
    return (table.shape, table.tobytes())


def _batch_size(evidence: Mapping[int, np.ndarray]) -> int | None:
    sizes = {table.shape[0] for table in evidence.values() if table.ndim == 2}
    if len(sizes) > 1:
        raise ValueError(f"Batched evidence tables must have the same number of rows, got {sorted(sizes)}.")
    return sizes.pop() if sizes else None
