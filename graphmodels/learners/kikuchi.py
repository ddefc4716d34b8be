"""Kikuchi-Bayes structure search (Jakulin & Rish): stepwise forward selection
of class-containing regions under the parsimonious prior.

A model is a set of initial regions, each a set of attributes plus the class;
its Kikuchi approximation :math:`\\Phi(x, y) = \\prod_R P(v_R)^{c_R}` over the
cluster-variation region graph gives the class posterior
:math:`P(y | x) = \\Phi(x, y) / \\sum_{y'} \\Phi(x, y')` (Lemma 1). Every
region of such a model contains the class, so the whole region graph does.

The search keeps, for every distinct training row ``x``, the array
``log Phi(x, .)`` over the classes. Adding a region ``S`` changes only the
counting numbers of the regions inside ``S`` (all others keep their
supersets), so a candidate is scored by adding ``sum_T dc_T log P(v_T)`` over
at most ``2^(|S|-1)`` sub-regions ``T`` of ``S`` to that array — the trick of
Caruana et al. (2004) the paper uses for its one-level lookahead — and all
candidates of one size are scored together in batched numpy arrays.
"""

from __future__ import annotations

import itertools
import math

import numpy as np

from ..estimators.parameters import BDeu

__all__ = ["kikuchi_bayes_path", "parsimonious_log_prior"]

# Bytes of per-row log-probability arrays kept between candidates.
_CACHE_BYTES = 512 * 2**20
# Elements of one (candidates, rows, classes) block scored at once.
_BLOCK_ELEMENTS = 2**21
# Log-posterior differences below this are ties, broken by attribute names.
_TIE_TOLERANCE = 1e-9


def parsimonious_log_prior(df, n):
    """Log of the parsimonious structure prior, eq. (6) of Jakulin & Rish.

    :math:`\\log P(M) = -n \\, df / (n - df - 1)`: Akaike's information
    criterion with the small-sample correction. Models with ``df >= n - 1``
    have prior probability zero (``-inf``), not a division error.

    Parameters
    ----------
    df : float
        Degrees of freedom of the model (eq. 5, or eq. 7 for a classifier).
    n : float
        Number of training instances (sum of weights).

    Returns
    -------
    float

    Examples
    --------
    >>> parsimonious_log_prior(1, 100)
    -1.0204081632653061
    >>> parsimonious_log_prior(99, 100)
    -inf
    """
    if df >= n - 1:
        return -math.inf
    return -n * df / (n - df - 1)


def _popcount(mask):
    return bin(mask).count("1")


def _bits(mask):
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _submasks(mask):
    """All submasks of `mask` (including 0 and `mask`)."""
    out = [0]
    for bit in _bits(mask):
        out += [m | (1 << bit) for m in out]
    return out


class _RegionSearch:
    """Training rows, region tables and the current Kikuchi model of one search."""

    def __init__(self, engine, class_position, attributes, prior_strength):
        self.engine = engine
        self.attributes = list(attributes)
        self.cards = np.array([int(engine.cardinalities[p]) for p in self.attributes], dtype=np.int64)
        self.n_classes = int(engine.cardinalities[class_position])
        self.estimator = BDeu(prior_strength)
        codes, weights = [], []
        columns = self.attributes + [class_position]
        for chunk, w in engine.iter_chunks(columns):
            codes.append(chunk)
            weights.append(np.ones(len(chunk)) if w is None else w)
        codes = np.concatenate(codes) if codes else np.zeros((0, len(columns)), dtype=np.int64)
        weights = np.concatenate(weights) if weights else np.zeros(0)
        if codes.size and codes.min() < 0:
            bad = engine.names[columns[int(np.flatnonzero((codes < 0).any(axis=0))[0])]]
            raise ValueError(
                f"Variable {bad!r} has unknown (-1) codes in the training data; Kikuchi-Bayes "
                "needs every training cell observed (missing values are a state of their own)."
            )
        x, y = codes[:, :-1], codes[:, -1]
        # One row per distinct attribute vector, with its class weights: the
        # conditional likelihood only needs log Phi(x, .) once per distinct x.
        if x.shape[1]:
            unique, inverse = np.unique(x, axis=0, return_inverse=True)
        else:
            unique, inverse = np.zeros((1, 0), dtype=np.int64), np.zeros(len(y), dtype=np.int64)
        self.x = np.ascontiguousarray(unique, dtype=np.int64)
        m = self.n_classes
        self.class_weights = np.bincount(
            inverse.ravel() * m + y, weights=weights, minlength=len(unique) * m
        ).reshape(len(unique), m)
        self.row_weights = self.class_weights.sum(axis=1)
        self.total = float(weights.sum())
        self._class_offsets = np.arange(m)
        self._log_rows = {}
        self._cached_bytes = 0

    # --------------------------------------------------------------- tables
    def cells(self, mask):
        return int(np.prod(self.cards[_bits(mask)])) * self.n_classes

    def region_codes(self, mask):
        """Mixed-radix code of each distinct row over the attributes of `mask`."""
        code = np.zeros(len(self.x), dtype=np.int64)
        for bit in _bits(mask):
            code = code * self.cards[bit] + self.x[:, bit]
        return code

    def counts(self, mask):
        """Counts of (attributes of `mask`, class), shape (cells of the attributes, n_classes)."""
        m = self.n_classes
        cells = self.cells(mask)
        flat = self.region_codes(mask)[:, None] * m + self._class_offsets
        return np.bincount(flat.ravel(), weights=self.class_weights.ravel(), minlength=cells).reshape(-1, m)

    def log_table(self, mask):
        """``log P(v_R)`` under the consistent Dirichlet prior (eq. 4), shape (cells, n_classes)."""
        return np.log(self.estimator.joint(self.counts(mask)))

    def log_rows(self, mask):
        """``log P(x_R, y)`` for every distinct row and class, shape (n_rows, n_classes)."""
        rows = self._log_rows.get(mask)
        if rows is None:
            rows = self.log_table(mask)[self.region_codes(mask)]
            if self._cached_bytes + rows.nbytes <= _CACHE_BYTES:
                self._log_rows[mask] = rows
                self._cached_bytes += rows.nbytes
        return rows

    def candidate_log_rows(self, masks):
        """``log P(x_S, y)`` of a batch of same-size regions, shape (len(masks), n_rows, n_classes)."""
        m = self.n_classes
        n = len(self.x)
        cells = np.array([self.cells(s) for s in masks], dtype=np.int64)
        offsets = np.concatenate([[0], np.cumsum(cells)[:-1]])
        flat = np.empty((len(masks), n), dtype=np.int64)
        for b, s in enumerate(masks):
            flat[b] = self.region_codes(s) * m + offsets[b]
        index = flat[:, :, None] + self._class_offsets  # (B, n, m)
        counts = np.bincount(
            index.ravel(), weights=np.broadcast_to(self.class_weights, index.shape).ravel(), minlength=int(cells.sum())
        )
        # Eq. (4): alpha = prior_strength / cells of each region, the same
        # prior_strength everywhere, so overlapping submodels agree.
        theta = self.estimator.equivalent_sample_size
        alpha = np.repeat(theta / cells, cells)
        log_p = np.log((counts + alpha) / (self.total + theta))
        return log_p[index]

    # ------------------------------------------------------------ likelihood
    def conditional_log_likelihood(self, log_phi):
        """Eq. (8): sum over training rows of ``log P(y | x)``; `log_phi` is (..., n_rows, n_classes)."""
        if self.n_classes == 2:
            norm = np.logaddexp(log_phi[..., 0], log_phi[..., 1])
        else:
            top = log_phi.max(axis=-1)
            norm = np.log(np.exp(log_phi - top[..., None]).sum(axis=-1)) + top
        fit = np.tensordot(log_phi, self.class_weights, axes=([-2, -1], [0, 1]))
        return fit - norm @ self.row_weights

    def class_df(self, mask):
        """Conditional degrees of freedom (eq. 7) of one region: (|Y| - 1) prod |X_a|."""
        return (self.n_classes - 1) * int(np.prod(self.cards[_bits(mask)]))


class _Model:
    """A Kikuchi model during the search: counting numbers over attribute masks."""

    def __init__(self, search):
        self.search = search
        self.counting = {0: 1}  # the class alone
        self.maximal = [0]
        self.log_phi = np.array(search.log_rows(0), dtype=np.float64, copy=True)
        self.df = search.class_df(0)
        self._closure_cache = {}

    def closure(self, mask):
        """Smallest region of the intersection closure containing `mask`, or None if uncovered."""
        if mask in self._closure_cache:
            return self._closure_cache[mask]
        meet = None
        for region in self.maximal:
            if region & mask == mask:
                meet = region if meet is None else meet & region
        self._closure_cache[mask] = meet
        return meet

    def changes(self, region):
        """Counting-number changes ``{mask: dc}`` from adding the uncovered region `region`.

        Only sub-regions ``T`` of `region` change. With ``Q`` the current
        closure, the new counting numbers follow from ``sum_{U >= T} c'_U = 1``:
        ``c'_T = sum_{U in Q, T <= U <= region} c_U - sum_{U in Q', T < U <= region} c'_U``
        (and ``c'_region = 1``); a sub-region is in the new closure when it is
        ``region`` intersected with the smallest old region containing it.
        """
        subs = _submasks(region)
        members = [region]
        for t in subs:
            if t == region:
                continue
            cl = self.closure(t)
            if cl is not None and cl & region == t:
                members.append(t)
        members.sort(key=_popcount, reverse=True)
        new = {}
        counting = self.counting
        for t in members:
            if t == region:
                new[t] = 1
                continue
            old = 0
            for u in subs:
                if u & t == t:
                    old += counting.get(u, 0)
            new[t] = old - sum(c for u, c in new.items() if u & t == t)
        return {t: c - counting.get(t, 0) for t, c in new.items() if c != counting.get(t, 0)}

    def add(self, region, changes, delta_log_phi):
        for t, dc in changes.items():
            c = self.counting.get(t, 0) + dc
            if c:
                self.counting[t] = c
            else:
                self.counting.pop(t, None)
        self.maximal = [r for r in self.maximal if r & region != r] + [region]
        self._closure_cache = {}
        self.log_phi += delta_log_phi
        self.df += sum(dc * self.search.class_df(t) for t, dc in changes.items())


def kikuchi_bayes_path(
    engine,
    class_variable=None,
    *,
    max_region_size=4,
    prior_strength=1.0,
    continue_past_map=True,
    max_log_posterior_drop=50.0,
    max_steps=None,
    max_cells=None,
):
    """Greedy Kikuchi-Bayes structure search with one-level lookahead (section 7 of [1]_).

    Regions are sets of attributes plus the class. The search starts from the
    class alone. At each step every region of the current size (number of
    variables, class included) that is not inside a region of the model is
    scored, and the one with the highest log posterior (the parsimonious log
    prior of eq. 6 on the conditional degrees of freedom of eq. 7, plus the
    conditional log-likelihood of eq. 8 under the consistent Dirichlet prior
    of eq. 4) is added if it raises the log posterior. When no region of size
    ``k`` does, the search moves to size ``k + 1`` (stepwise forward selection,
    Jobson 1992), up to `max_region_size`.

    The maximum a posteriori (MAP) model is where this ascent ends. With
    `continue_past_map`, the path then goes on from size 2 again, adding the
    region of highest posterior while it raises the conditional likelihood,
    as the paper does to integrate over the stage of the path. It stops when
    the likelihood no longer rises, when a region would make the prior zero
    (``df >= n - 1``), or when the log posterior falls more than
    `max_log_posterior_drop` below the best one, where a stage's weight in
    the model average is below ``exp(-max_log_posterior_drop)``.

    Parameters
    ----------
    engine : CountingEngine
        Counts of the attributes and the class (no unknown cells).
    class_variable : name, optional
        The class; defaults to the last variable of the engine.
    max_region_size : int, default=4
        Largest region, class included (the paper's k <= 4).
    prior_strength : float, default=1.0
        ``vartheta`` of eq. (4), > 0: the number of uniformly distributed
        pseudo-instances added to every submodel.
    continue_past_map : bool, default=True
        Go on past the MAP model while the likelihood rises.
    max_log_posterior_drop : float, default=50.0
        Stop past the MAP once a stage's log posterior is this far below the best.
    max_steps : int, optional
        Most regions to add.
    max_cells : int, optional
        Skip candidate regions whose table would be larger; defaults to the
        engine's ``max_cells``.

    Returns
    -------
    list of dict
        One entry per stage, the class-only model first, with keys
        ``region`` (frozenset of names, class included; the class alone for
        stage 0), ``phase`` (``"start"``, ``"ascent"`` or ``"beyond MAP"``),
        ``counting_numbers`` (dict frozenset -> int: the region graph of the
        stage), ``df`` (eq. 7), ``log_prior``, ``log_likelihood`` (eq. 8, nats)
        and ``log_posterior``.

    Raises
    ------
    ValueError
        For bad parameters or training cells coded -1.

    References
    ----------
    .. [1] Jakulin, A., & Rish, I. (2006). Kikuchi-Bayes: Markov networks for
           classification. IBM Research Report.
    .. [2] Caruana, R., Niculescu, A., Crew, G., & Ksikes, A. (2004). Ensemble
           selection from libraries of models. *ICML*.

    Examples
    --------
    >>> import numpy as np
    >>> from graphmodels.stats import CountingEngine
    >>> rng = np.random.default_rng(0)
    >>> x = rng.integers(0, 2, size=(400, 3))
    >>> y = x[:, 0] ^ x[:, 1]
    >>> engine = CountingEngine(np.column_stack([x, y]), [2, 2, 2, 2], names=["a", "b", "c", "y"])
    >>> path = kikuchi_bayes_path(engine, "y", max_region_size=3)
    >>> [sorted(step["region"]) for step in path]
    [['y'], ['a', 'b', 'y']]
    """
    class_position = engine.n_variables - 1 if class_variable is None else engine.position(class_variable)
    if isinstance(max_region_size, bool) or not isinstance(max_region_size, (int, np.integer)) or max_region_size < 1:
        raise ValueError(f"`max_region_size` must be an integer >= 1, got {max_region_size!r}.")
    if isinstance(prior_strength, bool) or not isinstance(prior_strength, (int, float, np.number)) or not (
        np.isfinite(prior_strength) and prior_strength > 0
    ):
        raise ValueError(f"`prior_strength` must be a finite number > 0, got {prior_strength!r}.")
    if max_steps is not None and (not isinstance(max_steps, (int, np.integer)) or max_steps < 0):
        raise ValueError(f"`max_steps` must be None or an integer >= 0, got {max_steps!r}.")
    if not max_log_posterior_drop > 0:
        raise ValueError(f"`max_log_posterior_drop` must be > 0, got {max_log_posterior_drop!r}.")
    max_cells = engine.max_cells if max_cells is None else int(max_cells)

    # Attributes in name order, so ties go the same way whatever the column order.
    attributes = sorted((p for p in range(engine.n_variables) if p != class_position), key=lambda p: str(engine.names[p]))
    search = _RegionSearch(engine, class_position, attributes, float(prior_strength))
    model = _Model(search)
    n = search.total
    names = [engine.names[p] for p in attributes]
    class_name = engine.names[class_position]

    def region_names(mask):
        return frozenset([class_name] + [names[b] for b in _bits(mask)])

    def record(mask, phase, log_likelihood):
        log_prior = parsimonious_log_prior(model.df, n)
        path.append(
            {
                "region": region_names(mask),
                "phase": phase,
                "counting_numbers": {region_names(t): c for t, c in model.counting.items()},
                "df": int(model.df),
                "log_prior": float(log_prior),
                "log_likelihood": float(log_likelihood),
                "log_posterior": float(log_prior + log_likelihood),
            }
        )

    path = []
    log_likelihood = float(search.conditional_log_likelihood(model.log_phi))
    record(0, "start", log_likelihood)
    if max_region_size < 2 or not attributes:
        return path
    best = path[0]["log_posterior"]
    phase = "ascent"
    size = 2
    while max_steps is None or len(path) - 1 < max_steps:
        choice = _best_candidate(search, model, size - 1, n, max_cells)
        current = path[-1]
        accept = False
        if choice is not None:
            mask, changes, cand_ll, cand_df = choice
            cand_post = parsimonious_log_prior(cand_df, n) + cand_ll
            if phase == "ascent":
                accept = cand_post > current["log_posterior"]
            else:
                accept = cand_ll > current["log_likelihood"] and cand_post > best - max_log_posterior_drop
        if accept:
            delta = _delta_log_phi(search, mask, changes)
            model.add(mask, changes, delta)
            record(mask, phase, cand_ll)
            best = max(best, path[-1]["log_posterior"])
            continue
        size += 1
        if size > min(max_region_size, len(attributes) + 1):
            if phase == "beyond MAP" or not continue_past_map:
                break
            phase, size = "beyond MAP", 2
    return path


def _delta_log_phi(search, mask, changes):
    delta = np.zeros_like(search.log_rows(0), dtype=np.float64)
    for t, dc in changes.items():
        rows = search.candidate_log_rows([t])[0] if t == mask else search.log_rows(t)
        delta += dc * rows
    return delta


def _candidates(model, n_attributes, n_in_region):
    """Attribute masks of the given size that no region of the model contains."""
    covered = set()
    for region in model.maximal:
        bits = _bits(region)
        if len(bits) >= n_in_region:
            covered.update(sum(1 << b for b in combo) for combo in itertools.combinations(bits, n_in_region))
    for combo in itertools.combinations(range(n_attributes), n_in_region):
        mask = sum(1 << b for b in combo)
        if mask not in covered:
            yield mask


def _best_candidate(search, model, n_in_region, n, max_cells):
    """Score every region with `n_in_region` attributes; return the best as
    ``(mask, changes, log_likelihood, df)`` or None if none has a non-zero prior."""
    masks, changes, dfs = [], [], []
    for mask in _candidates(model, len(search.attributes), n_in_region):
        if search.cells(mask) > max_cells:
            continue
        change = model.changes(mask)
        df = model.df + sum(dc * search.class_df(t) for t, dc in change.items())
        if df >= n - 1:  # prior zero: never accepted
            continue
        masks.append(mask)
        changes.append(change)
        dfs.append(df)
    if not masks:
        return None
    n_rows, m = model.log_phi.shape
    block = max(1, _BLOCK_ELEMENTS // max(1, n_rows * m))
    log_likelihoods = np.empty(len(masks))
    for start in range(0, len(masks), block):
        stop = min(start + block, len(masks))
        scores = search.candidate_log_rows(masks[start:stop])
        for b in range(start, stop):
            row = scores[b - start]
            for t, dc in changes[b].items():
                if t != masks[b]:
                    row += dc * search.log_rows(t)
        scores += model.log_phi
        log_likelihoods[start:stop] = search.conditional_log_likelihood(scores)
    posts = np.array([parsimonious_log_prior(df, n) for df in dfs]) + log_likelihoods
    top = posts.max()
    # First (in attribute-name order) of the candidates tied at the top.
    b = int(np.flatnonzero(posts >= top - _TIE_TOLERANCE * max(1.0, abs(top)))[0])
    return masks[b], changes[b], float(log_likelihoods[b]), dfs[b]
