"""Density estimators over discrete variables."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .._trace import Trace, root_rows
from ..inference.likelihoods import forest_log_likelihood, topological_order
from ..learners.trees import _chow_liu_tree, tie_safe
from ..stats.counting import DEFAULT_MAX_CELLS
from ..stats.information import entropy_of_counts
from ..structures.forests import orient_forest
from . import _fitted
from .augmented import TREE_ALGORITHM_CONSTRAINTS, _forest_tables, family_log_tables
from .base import BaseDensity
from .queries import Queryable
from .registry import register_model
from .tables import ConditionalTables, column_states

if TYPE_CHECKING:
    from ..estimators.parameters import Estimator

__all__ = ["ChowLiuTree"]


@register_model("chow-liu-tree")
class ChowLiuTree(BaseDensity, ConditionalTables, Queryable):
    """Tree-shaped density estimate of Chow & Liu (1968).

    The maximum spanning tree of the pairwise mutual information, rooted at
    the variable of highest entropy, with CPTs from the estimator. The
    distribution is a Bayesian network, so it is normalized: it sums to one
    over all configurations.

    Parameters
    ----------
    estimator : str, dict or Estimator, default="bdeu-auto"
        Parameter estimator, see :func:`graphmodels.estimators.get_estimator`.
        The default, :class:`~graphmodels.estimators.EmpiricalBayesBDeu`,
        gives each table the BDeu equivalent sample size that maximises its
        marginal likelihood; it was chosen by cross-validated log-loss over
        the shared UCI sets (``benchmarks/bench_defaults.py``). Paper
        reproductions pass the paper's prior (``"bdeu"``: BDeu(1)).
    algorithm : {"kruskal", "prim"}, default="kruskal"
    trace : bool, default=False
        Record the steps of the structure search in ``trace_``.
    discretizer : {"auto", "mdl", "equal-frequency"}, None or a discretizer, default="auto"
        How numeric columns become states: fitted inside ``fit`` on the
        training rows only, kept in ``discretizer_`` and applied at
        prediction. ``"auto"`` cuts each numeric column with at least 10
        distinct values into 5 equal-frequency bins (unsupervised); ``None``
        keeps every value as a state. See :mod:`graphmodels.data.discretize`.
    categorical : list of column names, optional
        Columns kept as categories, never cut into intervals, whatever their
        type: integer codes of categories, say. A pandas ``category`` column
        is never cut either. When ``discretizer="auto"`` cuts a column of whole
        numbers, ``fit`` warns (:class:`~graphmodels.data.IntegerColumnsCutWarning`).
    missing : {"value", "error"}, default="value"
    max_cells : int, default=10_000_000
        Largest table (in float64 cells, 8 bytes each) the model may allocate; a fit that needs
        a larger one raises :class:`~graphmodels.stats.TableTooLargeError` before allocating it,
        naming the columns and the value of `max_cells` at which it fits.

    Attributes
    ----------
    structure_ : nx.DiGraph
        The oriented tree; edges carry ``weight`` = mutual information (nats).
    parents_ : ndarray of shape (n_variables,)
        Parent position of each variable, -1 for the root.
    log_tables_ : list of ndarray of shape (1, r_parent, r_j)
    trace_ : DataFrame
        Only with ``trace=True``: the spanning-tree steps as
        :func:`~graphmodels.learners.chow_liu_tree` records them, then a
        ``"root"`` step per tree (``score`` the root's entropy, the
        highest of its tree).

    References
    ----------
    .. [1] Chow, C. K., & Liu, C. N. (1968). Approximating discrete
           probability distributions with dependence trees. *IEEE
           Transactions on Information Theory*, 14(3), 462-467.

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"a": list("xxyy"), "b": list("xxyx")})
    >>> model = ChowLiuTree().fit(frame)
    >>> model.sample(3, random_state=0).shape
    (3, 2)
    """

    def __init__(
        self,
        *,
        estimator: str | dict[str, Any] | Estimator = "bdeu-auto",
        algorithm: str = "kruskal",
        trace: bool = False,
        discretizer: Any = "auto",
        categorical: Sequence[Hashable] | None = None,
        missing: str = "value",
        max_cells: int = DEFAULT_MAX_CELLS,
    ) -> None:
        self.estimator = estimator
        self.algorithm = algorithm
        self.trace = trace
        self.discretizer = discretizer
        self.categorical = categorical
        self.missing = missing
        self.max_cells = max_cells

    _parameter_constraints = TREE_ALGORITHM_CONSTRAINTS

    _fitted_attributes: tuple[str, ...] = ("structure_", "parents_", "log_tables_")

    def _validate_fitted_state(self):
        """The common checks, then a forest of parents and each column's table ``(1, r_parent or 1, r_j)``."""
        super()._validate_fitted_state()
        cards = self._validated_cardinalities()
        parents = _fitted.parent_map("parents_", self.parents_, len(cards))
        _forest_tables("log_tables_", self.log_tables_, parents, cards, 1, self)

    def _fit(self, engine):
        names = engine.names
        record = Trace("cycle") if self.trace else None
        tree = _chow_liu_tree(engine, None, self.algorithm, None, "ml", record)
        entropies = {name: tie_safe(entropy_of_counts(engine.counts([name]))) for name in names}
        self.structure_ = orient_forest(tree, root_key=entropies.__getitem__)
        if record is not None:
            root_rows(record, self.structure_, entropies, "highest entropy of its tree: the arcs point away from it")
            self.trace_ = record.frame()
        position = {name: i for i, name in enumerate(names)}
        self.parents_ = np.full(len(names), -1, dtype=np.int64)
        for u, v in self.structure_.edges:
            self.parents_[position[v]] = position[u]
        self.log_tables_ = family_log_tables(engine, self.parents_, self.estimator_)

    def _log_likelihood(self, codes):
        return forest_log_likelihood(codes, self.parents_, self.log_tables_)[:, 0]

    def _conditional_tables(self):
        """For :meth:`cpd`: each column's table given its parent in the tree (the root's marginal)."""
        columns = list(self.encoder_.columns_)
        families = {
            name: ((columns[parent],), table[0]) if parent >= 0 else ((), table[0, 0])
            for name, parent, table in zip(columns, self.parents_, self.log_tables_)
        }
        return families, column_states(self), {}

    def _sample_codes(self, n, rng):
        codes = np.zeros((n, len(self.parents_)), dtype=np.int64)
        for j in topological_order(self.parents_):
            p = self.parents_[j]
            probabilities = np.exp(self.log_tables_[j][0])  # (r_parent, r_j)
            rows = probabilities[codes[:, p] if p >= 0 else np.zeros(n, dtype=np.int64)]
            cumulative = np.cumsum(rows, axis=1)
            draws = rng.random(n)[:, None] * cumulative[:, -1:]
            codes[:, j] = np.minimum((draws >= cumulative).sum(axis=1), rows.shape[1] - 1)
        return codes
