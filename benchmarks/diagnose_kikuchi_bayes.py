"""Why kBMA misses the paper's Table 1 on tic-tac-toe and monk2: fixed structures in the same folds.

The two shared sets whose kBMA log-loss is off the paper's while our naive Bayes
matches the paper's NB (so the data copy agrees) are tic-tac-toe and monk2. This
script looks at them through fixed structures scored with the library's own
pieces (``cluster_variation_regions``, ``degrees_of_freedom`` of eq. 7,
``parsimonious_log_prior`` of eq. 6, the consistent Dirichlet submodels of
eq. 4), in the folds of the Table 1 run (``RepeatedStratifiedKFold(n_splits=5,
n_repeats=5, random_state=0)``):

* the MAP structure of the whole set (for tic-tac-toe, against the paper's
  Figure 2: 5 two-way, 4 three-way, 6 four-way regions) held fixed, its
  parameters estimated on each training fold;
* the number of 4-way regions in each training fold's MAP, and how far (in log
  posterior) that MAP is from its best extension by one more 4-way region.

Before reporting, the script checks that its fixed-structure scorer gives the
log posterior that ``KikuchiBayes`` recorded for its own MAP stage.

Usage::

    python benchmarks/diagnose_kikuchi_bayes.py

Writes the ``kikuchi-gaps`` section of RESULTS.md. Reads ``../shared/datasets``
(or ``$GRAPHMODELS_DATASETS``).
"""

from __future__ import annotations

import collections
import itertools
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.special import logsumexp

import graphmodels as gm
from graphmodels.evaluation import RepeatedStratifiedKFold
from graphmodels.learners.kikuchi import parsimonious_log_prior
from graphmodels.models.kikuchi import DEFAULT_PRIOR_STRENGTH
from graphmodels.stats import CountingEngine
from graphmodels.structures.regions import cluster_variation_regions, degrees_of_freedom

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_kikuchi_bayes import load_sets, read_paper  # noqa: E402
from common import machine_markdown, write_section  # noqa: E402


class FixedStructure:
    """Kikuchi-Bayes with given initial regions (attribute positions; the class is added).

    ``codes`` is the whole set coded 0..card-1 per column, class last.
    """

    def __init__(self, codes, cards, regions, prior_strength=DEFAULT_PRIOR_STRENGTH):
        self.codes, self.cards = codes, cards
        self.class_position = codes.shape[1] - 1
        graph = cluster_variation_regions([frozenset(r) | {self.class_position} for r in regions])
        self.counting = dict(graph.nodes(data="counting_number"))
        self.theta = prior_strength
        attributes = range(self.class_position)
        self.df = degrees_of_freedom(self.counting, dict(enumerate(cards)), given=attributes)

    def log_proba(self, train, test):
        """log P(y | x) of the rows `test`, submodels estimated on the rows `train` (eq. 4)."""
        c, cards = self.class_position, self.cards
        rows = self.codes[test]
        engine = CountingEngine(self.codes[train], cards)
        log_phi = np.zeros((len(test), cards[c]))
        for region, count in self.counting.items():
            variables = sorted(region)
            table = np.asarray(engine.counts(variables))
            log_table = np.log((table + self.theta / table.size) / (table.sum() + self.theta))
            for y in range(cards[c]):
                index = tuple(rows[:, v] if v != c else np.full(len(test), y) for v in variables)
                log_phi[:, y] += count * log_table[index]
        return log_phi - logsumexp(log_phi, axis=1, keepdims=True)

    def mean_log_loss(self, train, test):
        log_p = self.log_proba(train, test)
        return float(-log_p[np.arange(len(test)), self.codes[test, self.class_position]].mean())

    def log_posterior(self, rows=None):
        """Eq. (6) prior on the eq. (7) df plus the eq. (8) likelihood, on `rows` (all by default)."""
        rows = np.arange(len(self.codes)) if rows is None else np.asarray(rows)
        log_p = self.log_proba(rows, rows)
        log_likelihood = float(log_p[np.arange(len(rows)), self.codes[rows, self.class_position]].sum())
        return parsimonious_log_prior(self.df, len(rows)) + log_likelihood


def encode(X, y):
    frame = pd.concat([X, y.rename("__class__")], axis=1).astype(str)
    codes = np.column_stack([pd.factorize(frame[c], sort=True)[0] for c in frame.columns])
    cards = [int(frame[c].nunique()) for c in frame.columns]
    return codes, cards


def folds(y, n_repeats=5):
    cv = RepeatedStratifiedKFold(n_splits=5, n_repeats=n_repeats, random_state=0)
    return list(cv.split(np.zeros(len(y)), y))


def cv_log_loss(structure, splits):
    return float(np.mean([structure.mean_log_loss(train, test) for train, test in splits]))


def map_regions(model, columns):
    """The MAP stage's added regions as tuples of attribute positions (class dropped)."""
    position = {name: i for i, name in enumerate(columns)}
    added = model.path_["region"].iloc[1 : model.map_step_ + 1]
    return [tuple(sorted(position[a] for a in region[:-1])) for region in added]


def check_scorer(model, structure):
    ours = float(model.path_["log_posterior"].iloc[model.map_step_])
    mine = structure.log_posterior()
    if not np.isclose(ours, mine, rtol=1e-9, atol=1e-6):
        sys.exit(f"fixed-structure scorer disagrees with KikuchiBayes: {mine} vs {ours}")
    return ours


def four_way_counts(regions):
    return sum(len(r) == 3 for r in regions)


def gap(name, X, y, paper):
    """The report lines of one set (whole-set MAP, fold MAPs, margins of one more 4-way region)
    and the median margin."""
    codes, cards = encode(X, y)
    columns = list(X.columns)
    model = gm.KikuchiBayes().fit(X, y)
    regions = map_regions(model, columns)
    structure = FixedStructure(codes, cards, regions)
    map_posterior = check_scorer(model, structure)
    sizes = collections.Counter(len(r) + 1 for r in regions)
    splits = folds(y)
    triples = list(itertools.combinations(range(X.shape[1]), 3))
    fours, margins, fold_loss = [], [], {"kMAP": [], "kBMA": []}
    for train, test in splits:
        for label, averaging in (("kMAP", False), ("kBMA", True)):
            fitted = gm.KikuchiBayes(averaging=averaging).fit(X.iloc[train], y.iloc[train])
            proba = fitted.predict_proba(X.iloc[test])
            truth = np.searchsorted(fitted.classes_, y.iloc[test].to_numpy())
            fold_loss[label].append(float(-np.log(proba[np.arange(len(test)), truth]).mean()))
        fold_regions = map_regions(fitted, columns)
        fours.append(four_way_counts(fold_regions))
        fold_map = FixedStructure(codes, cards, fold_regions).log_posterior(train)
        inside = {frozenset(r) for r in fold_regions if len(r) == 3}
        extended = [
            FixedStructure(codes, cards, fold_regions + [t]).log_posterior(train)
            for t in triples
            if frozenset(t) not in inside
        ]
        margins.append(fold_map - max(extended))
    fixed_loss = cv_log_loss(structure, splits)
    by_count = collections.Counter(fours)
    lines = [
        f"### {name}",
        "",
        f"- MAP on the whole set ({len(y)} rows): {sizes[2]} two-way, {sizes[3]} three-way, {sizes[4]} four-way "
        f"regions; log posterior {map_posterior:.2f} (the fixed-structure scorer reproduces it)."
        + (" The paper's Figure 2 has 5, 4 and 6." if name == "tic-tac-toe" else ""),
        f"- That structure held fixed, parameters from each training fold: **{fixed_loss:.3f}** over the "
        f"25 folds (paper: kMAP {paper['logloss_kmap']:.2f}, kBMA {paper['logloss_kbma']:.2f}); optimistic, "
        "since the structure was chosen on rows that include every test fold.",
        f"- The MAPs searched on the 25 training folds ({len(splits[0][0])} rows) have "
        + ", ".join(f"{k} four-way regions in {by_count[k]}" for k in sorted(by_count))
        + f"; their fold log-loss: kMAP {np.mean(fold_loss['kMAP']):.3f}, kBMA {np.mean(fold_loss['kBMA']):.3f}.",
        "- Log posterior of each fold's MAP minus that of its best extension by one more 4-way region "
        f"(on the training fold): median {np.median(margins):.1f}, range {min(margins):.1f} to "
        f"{max(margins):.1f} nats (the log posteriors are about {fold_map:.0f}; a negative margin is an "
        "extension the stepwise search passed by).",
    ]
    return lines, float(np.median(margins))


def main():
    start = time.perf_counter()
    sets = load_sets(["tic-tac-toe", "monk2"])
    if not sets:
        sys.exit("Neither tic-tac-toe nor monk2 found: nothing to diagnose (RESULTS.md left as it is).")
    paper = read_paper()
    lines = [
        "## Kikuchi-Bayes: the tic-tac-toe and monk2 gaps (diagnose_kikuchi_bayes.py)",
        "",
        machine_markdown(),
        "",
        "Fixed structures scored with the library's region graphs, eq. (7) df, eq. (6) prior and eq. (4) "
        f"submodels (vartheta = {DEFAULT_PRIOR_STRENGTH:g}) in the folds of the Table 1 run; our NB "
        "matches the paper's NB on both sets, so the data agree.",
        "",
    ]
    medians = {}
    for name, (X, y) in sets.items():
        set_lines, medians[name] = gap(name, X, y, paper.loc[name])
        lines += set_lines + [""]
    lines += [
        "On both sets the search on all rows finds a structure that, held fixed, reaches the paper's "
        "kMAP in our folds (for tic-tac-toe, the paper's Figure 2 structure; a structure that has seen "
        "the test folds, so this shows what the search can find, not a fair score); the searches on the "
        "training folds stop with fewer 4-way regions, and those structures are the ones that miss. "
        "The next 4-way region loses by a median of "
        + " and ".join(f"{m:.1f} nats ({n})" for n, m in medians.items())
        + " of log posterior on the training folds, a few percent of the posterior: a slightly weaker "
        "prior or higher likelihood than ours would add it. None of the readings of eqs. (4)-(8) and "
        "section 7 we measured (prior strengths 0.25-8, other continuations past the MAP, degrees of "
        "freedom over observed cells only) closes the gap without worsening other sets.",
        "",
    ]
    lines.append(f"Run time {time.perf_counter() - start:.0f} s.")
    body = "\n".join(lines)
    write_section("kikuchi-gaps", body)
    print(body)


if __name__ == "__main__":
    main()
