"""BNClassifier's inner-fold fits: each default candidate's generative fit on an inner fold (issue 27).

:class:`graphmodels.BNClassifier` fits each candidate of ``structures="auto"`` (NB, TAN, KDB-2,
selective KDB, AODE) on every inner fold: 30 times (3 repetitions of 10 folds) below 200 training
rows, where the fixed cost of a fit decides the time. On fold 0's training rows of each set (the
peers' protocol: ``StratifiedKFold(5, shuffle=True, random_state=0)``, numeric columns cut into 5
equal-frequency bins), this script fits each candidate -- with its prior fixed as the inner folds
fix it, by leave-one-out on every training row -- on the 10 inner folds, each on a fresh engine
shared by the candidates as in BNClassifier, and reports the CPU milliseconds per fold fit (best of
`--repeats` passes), the fit that fixes the prior, and one whole ``BNClassifier().fit``. With
``--before PATH`` the graphmodels package in PATH (a checkout to compare with, e.g. ``git worktree
add /tmp/before <commit>``) is timed too, the two alternating set by set in their own processes,
and the candidates' held-out class scores and the ``selection_`` tables of both are compared bit
for bit.

    python benchmarks/bench_fold_fits.py [--sets lymphography glass ...] [--before PATH] [--results]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

CANDIDATES = ("nb", "tan", "kdb-2", "skdb", "aode")


def one(name, repeats):
    import bench_peers
    from sklearn.model_selection import StratifiedKFold

    import graphmodels as gm
    from graphmodels.models import bn_classifier
    from graphmodels.models.base import clone_model, training_counts

    warnings.filterwarnings("ignore")
    X, y, _ = bench_peers.load(name, 20_000)
    train, test = next(StratifiedKFold(5, shuffle=True, random_state=0).split(X, y))
    data = bench_peers.fold_data(X, y, train, test)
    start = time.process_time()
    chosen = gm.BNClassifier().fit(data["X_train"], data["y_train"])
    whole = time.process_time() - start
    model = gm.BNClassifier()
    counts = training_counts(data["X_train"], data["y_train"])  # the bins are text already: BNClassifier's codes
    codes, weights = counts.engine.rows()
    folds = bn_classifier.scored_folds(codes[:, -1], len(counts.classes), 10)
    prior, fits = dict.fromkeys(CANDIDATES, np.inf), dict.fromkeys(CANDIDATES, np.inf)
    digest = hashlib.sha256(chosen.selection_.to_csv(float_format="%.17g").encode())
    for repeat in range(repeats):
        fold_counts = [model._fold_counts(counts, codes, weights, rows) for rows, _ in folds]  # fresh engines
        for structure in CANDIDATES:
            start = time.process_time()
            candidate = model._fold_candidate(structure, counts, {})
            prior[structure] = min(prior[structure], time.process_time() - start)
            start = time.process_time()
            fitted = [clone_model(candidate).fit_counts(fold) for fold in fold_counts]
            fits[structure] = min(fits[structure], (time.process_time() - start) / len(folds))
            if repeat == 0:
                for fit, (_, held_out) in zip(fitted, folds):
                    digest.update(np.ascontiguousarray(fit._class_log_scores(codes[held_out, :-1])).tobytes())
    print(
        json.dumps(
            {
                "set": name,
                "rows": len(train),
                "fold_ms": {s: 1000 * v for s, v in fits.items()},
                "prior_ms": {s: 1000 * v for s, v in prior.items()},
                "whole_s": whole,
                "digest": digest.hexdigest(),
            }
        )
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--one")
    parser.add_argument("--sets", nargs="+", default=["lymphography", "glass", "soybean-large", "splice"])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--before", help="a folder holding the graphmodels package to compare with")
    parser.add_argument("--results", action="store_true", help="write the table to RESULTS.md")
    args = parser.parse_args()
    if args.one:  # "name:repeats"
        name, repeats = args.one.rsplit(":", 1)
        return one(name, int(repeats))
    load_at_start = common.load_average()
    rows = []
    for name in args.sets:
        argument = f"{name}:{args.repeats}"
        before = common.run_one(__file__, argument, args.before) if args.before else None
        after = common.run_one(__file__, argument)
        for structure in [*CANDIDATES, "prior: skdb", "BNClassifier().fit"]:
            row = {"set": f"{name} ({after['rows']} rows)", "fit": structure}
            for label, result in (("before", before), ("after", after)):
                if result is None:
                    continue
                if structure == "BNClassifier().fit":
                    row[label] = f"{result['whole_s']:.2f} s"
                elif structure == "prior: skdb":
                    row[label] = f"{result['prior_ms']['skdb']:.1f} ms"
                else:
                    row[label] = f"{result['fold_ms'][structure]:.1f} ms"
            if before is not None:
                row["same results"] = "yes" if before["digest"] == after["digest"] else "**NO**"
            rows.append(row)
        print(common.markdown_table(pd.DataFrame(rows[-len(CANDIDATES) - 2 :])), flush=True)
    shown = common.markdown_table(pd.DataFrame(rows))
    if args.results:
        compared = f" --before PATH` (before: {args.before})" if args.before else "`"
        body = "\n".join(
            [
                "## BNClassifier's inner-fold fits (bench_fold_fits.py, issue 27)",
                "",
                f"`python benchmarks/bench_fold_fits.py{compared}: CPU milliseconds per fit of each default "
                "candidate on an inner fold of fold 0's training rows (10 inner folds, each on a fresh engine "
                f"shared by the candidates; best of {args.repeats} passes), `prior: skdb` the fit on every "
                "training row that fixes selective KDB's prior for its folds, and one whole "
                "`BNClassifier().fit` (CPU seconds); before and after alternate set by set, each in its own "
                "process. `same results`: every candidate's held-out class scores and the `selection_` "
                "table equal bit for bit.",
                "",
                common.machine_markdown(),
                f"- load average (1, 5, 15 min) when the run started: {load_at_start}",
                "",
                shown,
            ]
        )
        common.write_section("bnclassifier-fold-fits", body)


if __name__ == "__main__":
    main()
