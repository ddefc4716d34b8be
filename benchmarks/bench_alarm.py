"""Bounded tree-width Markov networks approximating ALARM (Liang & Srebro, Table 2).

Protocol of Liang & Srebro (2004), section 6.2: for each of 10 trials, forward-sample
10,000 training rows and 2,000 test rows from the ALARM network, fit ML-k-J (a
maximum-likelihood hyperforest of tree-width k over all 37 variables, pseudo-count
0.001 per cell) for k = 0, 1, ..., and report the mean test log-likelihood per row,
beside the true network's log-likelihood of the same test rows. MDL-k-J is fitted on
the same rows for the paper's remark "ML found a better network than MDL".

The hyperforest's parameters are also refitted at a larger pseudo-count on the same
structure (the structure does not depend on the pseudo-count): a sensitivity check of
the smoothing, which dominates the test log-likelihood at k >= 3.

Usage::

    python benchmarks/bench_alarm.py [--trials 10] [--max-k 3] [--seed 0] [--no-write]

Writes its section of RESULTS.md between ``<!-- alarm:start -->`` and ``<!-- alarm:end -->``.
"""

from __future__ import annotations

import argparse
import copy
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from graphmodels.estimators import Dirichlet
from graphmodels.io import load_network
from graphmodels.models import HyperforestDensity
from graphmodels.models.hyperforest import clique_log_tables
from graphmodels.stats.counting import CountingEngine

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import REPO, RESULTS, machine_markdown, markdown_table, write_section  # noqa: E402

REFERENCE = REPO.parent / "shared" / "reference" / "liang_srebro_table2_alarm.tsv"
LOG2 = np.log(2.0)
# Liang & Srebro (2004), Table 2 (unit not stated), used when the reference file is missing.
PAPER = {0: -29.54, 1: -16.89, 2: -15.26, 3: -14.99, 4: -14.75, 5: -14.48}
PAPER_TRUE = -13.26
#: Differences of mean test log-likelihood (nats) this small count as ties of ML and MDL.
TIE = 0.005


def read_paper():
    """Paper values ``{k: test log-likelihood}`` and the true network's value."""
    if not REFERENCE.is_file():
        return dict(PAPER), PAPER_TRUE
    table = pd.read_csv(REFERENCE, sep="\t", dtype={"treewidth": str})
    values = dict(zip(table["treewidth"], table["test_loglik_ml_j"]))
    true = float(values.pop("true_network"))
    return {int(k): float(v) for k, v in values.items()}, true


def as_categorical(frame, network):
    """Columns as Categoricals over all the network's states, so a state unseen in
    training is a zero count smoothed by the pseudo-count, not a state to sum out."""
    return pd.DataFrame({v: pd.Categorical(frame[v], categories=network.states[v]) for v in network.variables})


def refit_parameters(model, train, pseudo_count):
    """A copy of a fitted HyperforestDensity with the same structure and new smoothing."""
    encoder = model.encoder_
    codes = encoder.transform(encoder.align(train, owner="bench_alarm"), owner="bench_alarm")
    engine = CountingEngine(codes, encoder.cardinalities_, names=list(encoder.columns_))
    refitted = copy.copy(model)
    refitted.estimator = refitted.estimator_ = Dirichlet(float(pseudo_count))
    refitted.network_ = clique_log_tables(engine, model.structure_, refitted.estimator_)
    return refitted


def run_trial(network, trial, args):
    seed = [args.seed, trial]
    train = as_categorical(network.sample(args.train, random_state=np.random.default_rng(seed + [0])), network)
    test = as_categorical(network.sample(args.test, random_state=np.random.default_rng(seed + [1])), network)
    rows = [{"trial": trial, "model": "true", "k": -1, "test_ll": float(np.mean(network.log_likelihood(test)))}]
    for k in range(args.max_k + 1):
        for criterion in ("ml", "mdl"):
            model = HyperforestDensity(
                treewidth=k, criterion=criterion, n_starts=args.n_starts, estimator="liang-srebro"
            )
            start = time.perf_counter()
            model.fit(train)
            seconds = time.perf_counter() - start
            row = {
                "trial": trial,
                "model": criterion,
                "k": k,
                "test_ll": float(np.mean(model.score_samples(test))),
                "train_ll": float(np.mean(model.score_samples(train))),
                "fit_seconds": seconds,
                "n_maximal": len(model.structure_.maximal_hyperedges),
                "width": model.structure_.width,
            }
            if criterion == "ml" and args.sensitivity_pseudo_count is not None:
                refitted = refit_parameters(model, train, args.sensitivity_pseudo_count)
                row["test_ll_sensitivity"] = float(np.mean(refitted.score_samples(test)))
            rows.append(row)
            print(
                f"trial {trial} k={k} {criterion:>3}: test {row['test_ll']:.4f} nats, "
                f"train {row['train_ll']:.4f}, fit {seconds:.2f} s",
                flush=True,
            )
    return rows


def summarize(raw, args, paper, paper_true, elapsed, machine):
    true = raw[raw.model == "true"].set_index("trial")["test_ll"]
    ml = raw[raw.model == "ml"].pivot(index="trial", columns="k", values="test_ll")
    mdl = raw[raw.model == "mdl"].pivot(index="trial", columns="k", values="test_ll")
    ml_train = raw[raw.model == "ml"].pivot(index="trial", columns="k", values="train_ll")
    times = raw[raw.model != "true"].groupby(["model", "k"])["fit_seconds"].mean()
    ks = list(ml.columns)
    true_mean = true.mean()

    def paper_cell(k, value):
        return "—" if value is None else f"{value:.2f}"

    table2 = []
    for k in ks:
        mean, sd = ml[k].mean(), ml[k].std(ddof=1)
        gap = (true - ml[k]).mean()
        p = paper.get(k)
        table2.append(
            {
                "k": k,
                "ours (nats)": f"{mean:.3f} ± {sd:.3f}",
                "ours (bits)": f"{mean / LOG2:.3f}",
                "gap to true (nats)": f"{gap:.3f}",
                "gap to true (bits)": f"{gap / LOG2:.3f}",
                "paper": paper_cell(k, p),
                "paper gap": "—" if p is None else f"{paper_true - p:.2f}",
                "ours (bits) − paper": "—" if p is None else f"{mean / LOG2 - p:+.2f}",
                "better than k − 1 (trials)": "—" if k == ks[0] else f"{int((ml[k] > ml[k - 1]).sum())}/{len(ml)}",
            }
        )
    table2.append(
        {
            "k": "true network",
            "ours (nats)": f"{true_mean:.3f} ± {true.std(ddof=1):.3f}",
            "ours (bits)": f"{true_mean / LOG2:.3f}",
            "gap to true (nats)": "0",
            "gap to true (bits)": "0",
            "paper": f"{paper_true:.2f}",
            "paper gap": "0",
            "ours (bits) − paper": f"{true_mean / LOG2 - paper_true:+.2f}",
            "better than k − 1 (trials)": "",
        }
    )

    pc = args.sensitivity_pseudo_count
    sens = None
    if pc is not None:
        sens = raw[raw.model == "ml"].pivot(index="trial", columns="k", values="test_ll_sensitivity")
    compare = []
    for k in ks:
        diff = ml[k] - mdl[k]
        wins = int((diff > TIE).sum())
        ties = int((diff.abs() <= TIE).sum())
        row = {
            "k": k,
            "ML train (nats)": f"{ml_train[k].mean():.3f}",
            "ML test (nats)": f"{ml[k].mean():.3f}",
            "MDL test (nats)": f"{mdl[k].mean():.3f}",
            "ML − MDL (nats)": f"{diff.mean():+.3f}",
            "ML better / tied (trials)": f"{wins} / {ties} of {len(diff)}",
        }
        if sens is not None:
            row[f"ML test, pseudo-count {pc:g} (nats)"] = f"{sens[k].mean():.3f}"
        row["fit ML (s)"] = f"{times[('ml', k)]:.2f}"
        row["fit MDL (s)"] = f"{times[('mdl', k)]:.2f}"
        compare.append(row)

    # Which unit the paper's numbers agree with: mean |ours - paper| over the shared k.
    shared = [k for k in ks if k in paper]
    err_bits = np.mean([abs(ml[k].mean() / LOG2 - paper[k]) for k in shared])
    err_nats = np.mean([abs(ml[k].mean() - paper[k]) for k in shared])
    means = ml.mean()
    drops = [f"k = {b}" for a, b in zip(ks, ks[1:]) if means[b] <= means[a]]
    gaps_bits = {k: (true - ml[k]).mean() / LOG2 for k in ks}
    best_k = int(means.idxmax())
    above_true = [f"k = {k} ({v:.2f})" for k, v in sorted(paper.items()) if v > true_mean / LOG2]
    diff = (ml - mdl).mean()
    ml_wins = [str(k) for k in ks if diff[k] > TIE]
    mdl_wins = [str(k) for k in ks if diff[k] < -TIE]
    mdl_means = mdl.mean()
    best_mdl_k = int(mdl_means.idxmax())
    best_vs = (
        f" Best of each over k: ML {means[best_k]:.3f} nats (k = {best_k}), MDL "
        f"{mdl_means[best_mdl_k]:.3f} (k = {best_mdl_k}); the best ML network is "
        + ("better" if means[best_k] > mdl_means[best_mdl_k] else "not better")
        + f" than the best MDL one, by {means[best_k] - mdl_means[best_mdl_k]:+.3f} nats, "
        f"and better in {int((ml[best_k] > mdl[best_mdl_k]).sum())} of {len(ml)} trials."
    )
    if sens is not None:
        sens_means = sens.mean()
        sens_drops = [b for a, b in zip(ks, ks[1:]) if sens_means[b] <= sens_means[a]]
        sens_text = (
            f" Refitting the same structures with pseudo-count {pc:g} (a sensitivity check, not a "
            "tuned value) "
            + (
                "makes the test log-likelihood increase with k again."
                if not sens_drops
                else f"gives its best test log-likelihood at k = {int(sens_means.idxmax())}, "
                f"{sens_means.max():.3f} nats."
            )
        )
    else:
        sens_text = ""
    if not drops:
        trend = ", and the test log-likelihood increases with k, as in the paper."
    else:
        trend = (
            f", but the test log-likelihood does not keep increasing ({', '.join(drops)} no better "
            f"than the k before; best k = {best_k}), unlike the paper. The training log-likelihood "
            "keeps rising, so this is overfitting, through the smoothing: with 10,000 rows many "
            "cells of a 4- or 5-variable clique are empty, and with a pseudo-count of 0.001 a test "
            "row that falls in one pays up to log(0.001 / 10,000) ≈ −16 nats for that clique." + sens_text
        )

    lines = [
        "## ALARM: bounded tree-width approximations (Liang & Srebro, Table 2)",
        "",
        f"`python benchmarks/bench_alarm.py --trials {args.trials} --max-k {args.max_k} --seed {args.seed}` "
        f"({elapsed:.0f} s in all).",
        f"{args.trials} trials; trial t forward-samples {args.train:,} training rows with "
        f"`np.random.default_rng([{args.seed}, t, 0])` and {args.test:,} test rows with "
        f"`np.random.default_rng([{args.seed}, t, 1])` from the bundled ALARM network "
        '(`load_network("alarm")`, 37 variables, 46 arcs). '
        f'ML-k-J = `HyperforestDensity(treewidth=k, criterion="ml")` (incremental algorithm, '
        f"{args.n_starts} starts, pseudo-count 0.001 per cell, as the paper); MDL-k-J the same with "
        '`criterion="mdl"`. Columns are Categoricals over all the network\'s states, so no test state '
        "is summed out. Log-likelihood = mean log P(x) over the test rows; ± is the standard deviation "
        "over trials. Gap = true network minus model on the same rows (paper gap: −13.26 minus the "
        "paper's value).",
        "",
        "Machine:",
        "",
        machine,
        "",
        markdown_table(pd.DataFrame(table2)),
        "",
        "ML against MDL, smoothing, fit time (means over trials):",
        "",
        markdown_table(pd.DataFrame(compare)),
        "",
        "Interpretation:",
        "",
        f"- Unit. The paper's values agree with ours in **bits** (mean |ours − paper| over k = "
        f"{shared[0]}..{shared[-1]}: {err_bits:.2f} bits, against {err_nats:.2f} if read as nats): "
        f"k = 0 gives {means[0] / LOG2:.2f} bits here and {paper[0]:.2f} in the paper, k = 1 "
        f"{means[1] / LOG2:.2f} and {paper[1]:.2f}."
        if 0 in shared and 1 in shared and err_bits < err_nats
        else f"- Unit. Mean |ours − paper|: {err_bits:.2f} if the paper is in bits, {err_nats:.2f} if in nats.",
        f"- The true network. Our copy's test log-likelihood is {true_mean:.3f} nats = "
        f"{true_mean / LOG2:.2f} bits per row (exact entropy 10.438 nats = 15.06 bits), not the "
        f"paper's {paper_true:.2f} in either unit."
        + (
            f" Read as bits, the paper's values at {', '.join(above_true)} lie above our copy's true "
            "value, which no approximation of our copy can reach in expectation."
            if above_true
            else ""
        )
        + f" So the paper's {paper_true:.2f}, and with it its gaps (3.63 bits at k = 1, 1.73 at k = 3, "
        "1.22 at k = 5), cannot be compared with ours: it belongs to a different copy of ALARM or a "
        "different computation of its entropy, while the paper's model values match ours at small k.",
        f"- Trend. Our gap shrinks from {gaps_bits[ks[1]]:.2f} bits at k = 1 to "
        f"{gaps_bits[min(2, ks[-1])]:.2f} at k = {min(2, ks[-1])}" + trend,
        "- ML vs MDL (differences within ±0.005 nats counted as ties). "
        + (f"ML is better on average at k = {', '.join(ml_wins)}" if ml_wins else "ML is never better on average")
        + (f"; MDL at k = {', '.join(mdl_wins)}." if mdl_wins else ".")
        + best_vs
        + (
            " The paper says ML found the better network; at a fixed k that holds here only where ML "
            "has not yet started to overfit through the smoothing."
            if mdl_wins
            else " As in the paper, ML found the better network."
        ),
        "",
    ]
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=10)
    parser.add_argument("--max-k", type=int, default=3, help="largest tree-width (the paper goes to 5)")
    parser.add_argument("--train", type=int, default=10_000)
    parser.add_argument("--test", type=int, default=2_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--n-starts", type=int, default=100)
    parser.add_argument(
        "--sensitivity-pseudo-count",
        type=float,
        default=0.5,
        help="also refit ML's parameters at this pseudo-count (negative to skip)",
    )
    parser.add_argument("--out", default=str(RESULTS))
    parser.add_argument("--no-write", action="store_true", help="print the section, do not write RESULTS.md")
    args = parser.parse_args(argv)
    if args.max_k < 1:
        parser.error(f"--max-k must be >= 1, got {args.max_k}.")
    if args.sensitivity_pseudo_count is not None and args.sensitivity_pseudo_count < 0:
        args.sensitivity_pseudo_count = None

    machine = machine_markdown()
    paper, paper_true = read_paper()
    network = load_network("alarm")
    start = time.perf_counter()
    rows = []
    for trial in range(args.trials):
        rows.extend(run_trial(network, trial, args))
    elapsed = time.perf_counter() - start
    body = summarize(pd.DataFrame(rows), args, paper, paper_true, elapsed, machine)
    print(body)
    if not args.no_write:
        write_section("alarm", body, Path(args.out))


if __name__ == "__main__":
    main()
