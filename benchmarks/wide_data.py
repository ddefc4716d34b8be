"""Generated wide data for the wide-data benchmarks (issue 26): several generators per model.

Each benchmark of issue 18 was timed on one generated set, the one it was tuned on. Issue 26
re-measured the targets on other data and missed them. These generators vary what makes the
searches and the counting slow or fast: the order of the interactions with the class (none,
main effects, pairwise, three-way), their strength, the attributes' cardinalities (binary,
ternary, 2-5 mixed) and how skewed their states are (uniform, or one common state as on
connect-4's board cells). Every generator is seeded: ``make(name)`` always returns the same
data.

Not part of the package: the benchmark scripts import it as a sibling module.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def _states(rng, n_rows, cards, skew=0.0):
    """Columns of `cards` states: uniform, or with one state of probability `skew` + (1 - skew) / r."""
    out = np.empty((n_rows, len(cards)), dtype=np.int64)
    for j, r in enumerate(cards):
        p = np.full(r, (1.0 - skew) / r)
        p[j % r] += skew
        out[:, j] = rng.choice(r, size=n_rows, p=p)
    return out


def _cards(kind, n_cols):
    if kind == "binary":
        return [2] * n_cols
    if kind == "ternary":
        return [3] * n_cols
    if kind == "mixed":  # 2-5 states, cycling
        return [2 + j % 4 for j in range(n_cols)]
    raise ValueError(kind)


def _pick(rng, n_cols, n_groups, size):
    """`n_groups` disjoint groups of `size` columns."""
    return rng.permutation(n_cols)[: n_groups * size].reshape(n_groups, size)


def _interaction(x, cards, group):
    """A centered parity term of the columns of `group`: no main effect, no lower-order interaction."""
    r = int(min(cards[g] for g in group))
    total = sum(x[:, g] % r for g in group) % r
    return (total == 0) - 1.0 / r


# ---------------------------------------------------------------------------- Kikuchi-Bayes
#: name -> (description, keyword arguments of :func:`kikuchi_data`)
KIKUCHI = {
    "main": ("3-state, class on 4 columns (main effects and one pair; bench_wide_kikuchi's own)", {"order": "own"}),
    "pairwise": ("3-state, class on 6 pairs (parity, strength 1.5)", {"order": 2, "strength": 1.5}),
    "pairwise-weak": ("3-state, class on 6 pairs (parity, strength 0.6)", {"order": 2, "strength": 0.6}),
    "three-way": ("3-state, class on 3 triples (parity, strength 2)", {"order": 3, "strength": 2.0}),
    "none": ("3-state, class independent of every column", {"order": 0}),
    "binary-pairwise": ("2-state, class on 6 pairs (parity, strength 1.5)", {"order": 2, "cards": "binary"}),
    "mixed-pairwise": ("2-5 states, class on 6 pairs (parity, strength 1.5)", {"order": 2, "cards": "mixed"}),
    "skewed-pairwise": (
        "3-state, one state at 0.7, class on 6 pairs (parity, strength 1.5)",
        {"order": 2, "skew": 0.55},
    ),
    "3-class-pairwise": ("3-state, 3 classes on 6 pairs (parity, strength 1.5)", {"order": 2, "n_classes": 3}),
}


def kikuchi_data(n_cols=200, n_rows=2000, *, order=2, strength=1.5, cards="ternary", skew=0.0, n_classes=2, seed=0):
    """Attributes and a class for KikuchiBayes.

    ``order="own"`` is bench_wide_kikuchi's original set (the class on x000..x003: two main
    effects and a pair); ``order`` 0, 2 or 3: the class independent of the columns, or on
    6 disjoint pairs / 3 disjoint triples of columns through centered parity terms (no main
    effects) of weight `strength`.
    """
    rng = np.random.default_rng(seed)
    if order == "own":
        X = rng.integers(0, 3, size=(n_rows, n_cols))
        logit = 1.2 * (X[:, 0] == 2) - 1.0 * (X[:, 1] == 0) + 0.8 * ((X[:, 2] + X[:, 3]) % 3 == 0)
        y = (rng.random(n_rows) < 1 / (1 + np.exp(-(logit - 0.3)))).astype(int)
        return pd.DataFrame(X, columns=[f"x{j:03d}" for j in range(n_cols)]), pd.Series(y, name="y")
    card_list = _cards(cards, n_cols)
    X = _states(rng, n_rows, card_list, skew)
    logits = np.zeros((n_rows, n_classes))
    if order:
        groups = _pick(rng, n_cols, 6 if order == 2 else 3, order)
        for i, group in enumerate(groups):
            logits[:, i % n_classes] += strength * _interaction(X, card_list, group)
    p = np.exp(logits - logits.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    y = (rng.random(n_rows)[:, None] > np.cumsum(p, axis=1)).sum(axis=1)
    return pd.DataFrame(X, columns=[f"x{j:03d}" for j in range(n_cols)]), pd.Series(y, name="y")


# ---------------------------------------------------------------------------- hyperforests
#: name -> (description, keyword arguments of :func:`hyperforest_data`)
HYPERFOREST = {
    "chain": ("3-state, each column on the previous two and the class", {}),
    "none": ("3-state, independent uniform columns and class", {"order": 0}),
    "binary": ("2-state, each column on the previous two and the class", {"cards": "binary"}),
    "mixed": ("2-5 states, each column on the previous two and the class", {"cards": "mixed"}),
    "skewed": ("3-state, one common state (0.6-0.95) as on connect-4", {"skew": "board"}),
}


def hyperforest_data(n_rows=60_000, n_cols=42, *, order=2, cards="ternary", skew=0.0, n_classes=3, seed=0):
    """Connect-4-sized data: `n_cols` attributes and a class of `n_classes` states.

    With ``order`` 2 each column copies, with probability 0.5, a parity of the two columns
    before it and the class (a chain of three-way interactions, what a tree-width-3
    hyperforest can hold); 0: independent columns. ``skew="board"``: each column has one
    common state of probability between 0.6 and 0.95 (connect-4's board cells).
    """
    rng = np.random.default_rng(seed)
    card_list = _cards(cards, n_cols)
    y = rng.integers(0, n_classes, n_rows)
    if skew == "board":
        common = 0.6 + 0.35 * (np.arange(n_cols) % 6) / 5
    else:
        common = np.full(n_cols, float(skew))
    X = np.empty((n_rows, n_cols), dtype=np.int64)
    for j, r in enumerate(card_list):
        p = np.full(r, (1.0 - common[j]) / r)
        p[0] += common[j]
        noise = rng.choice(r, size=n_rows, p=p)
        if order and j >= 2:
            parity = (X[:, j - 1] + X[:, j - 2] + y) % r
            if common[j] > 0:  # keep the common state common
                parity = np.where(rng.random(n_rows) < common[j], 0, parity)
            noise = np.where(rng.random(n_rows) < 0.5, parity, noise)
        X[:, j] = noise
    frame = pd.DataFrame(X, columns=[f"x{j:02d}" for j in range(n_cols)]).astype(str)
    return frame, pd.Series(y, name="class").astype(str)


# ---------------------------------------------------------------------------- multi-dimensional
#: name -> (description, keyword arguments of :func:`multidimensional_data`)
MULTIDIMENSIONAL = {
    "chain": ("bench_wide's own: labels in a chain, attributes on two labels and the previous attribute", {}),
    "independent": ("independent labels, each attribute on one label", {"labels": "independent", "links": 1}),
    "ternary-labels": ("3-state labels in a chain, attributes on three labels", {"label_cards": 3, "links": 3}),
    "five-state": ("5-state attributes on two labels and the previous attribute", {"attribute_cards": 5}),
    "none": ("every label and attribute independent", {"labels": "independent", "links": 0}),
    "strong": (
        "attributes on two labels and the previous attribute, 0.8 instead of 0.35",
        {"strength": 0.8},
    ),
}


def multidimensional_data(
    n_rows=3000,
    n_labels=12,
    n_attributes=40,
    *,
    labels="chain",
    label_cards=None,
    attribute_cards=None,
    links=2,
    strength=0.35,
    seed=0,
):
    """Labels and attributes for MultiDimensionalTAN; the defaults are bench_wide.py's own set.

    Labels of 2-3 states (`label_cards` to fix them) in a chain (each copies the one before it
    with probability 0.6) or independent; attributes of 3-5 states (`attribute_cards` to fix
    them), each a parity of `links` labels with probability `strength`, else the previous
    attribute with probability 0.35, else noise.
    """
    rng = np.random.default_rng(seed)
    out_labels, prev = {}, None
    for k in range(n_labels):
        r = label_cards or (2 if k % 3 else 3)
        y = (
            rng.integers(0, r, n_rows)
            if prev is None or labels == "independent"
            else np.where(rng.random(n_rows) < 0.6, prev % r, rng.integers(0, r, n_rows))
        )
        out_labels[f"label_{k}"], prev = y, y
    attrs, ys = {}, list(out_labels.values())
    for j in range(n_attributes):
        s = attribute_cards or 3 + j % 3
        u = rng.random(n_rows)
        other = attrs[f"x{j - 1}"] % s if j else rng.integers(0, s, n_rows)
        noise = rng.integers(0, s, n_rows)  # drawn in bench_wide.py's order: the same data
        if links == 0:
            attrs[f"x{j}"] = noise
            continue
        chosen = [ys[(j * (2 * t + 1) + t) % n_labels] for t in range(links)]
        parity = sum((t + 1) * c for t, c in enumerate(chosen)) % s
        attrs[f"x{j}"] = np.where(u < strength, parity, np.where(u < strength + 0.35, other, noise))
    return pd.DataFrame(attrs).astype(str), pd.DataFrame(out_labels).astype(str)
