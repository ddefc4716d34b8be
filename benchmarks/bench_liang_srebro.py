"""Liang & Srebro's UCI experiments (section 6.4, Tables 4, 5 and 6), side by side with the paper.

Protocol (``graphmodels.evaluation.liang_srebro_protocol``): numeric columns with
>= 10 distinct values cut into 5 equal-frequency bins, missing as a value,
pseudo-count 0.001 per cell, random 90/10 splits; the 19 method triples f-R-k
with k <= 3, each trial's methods sharing one counting engine.

Usage::

    python benchmarks/bench_liang_srebro.py [--trials 10] [--sets car splice ...]
    python benchmarks/bench_liang_srebro.py --report-only   # tables from the saved raw results

Raw per-trial results go to ``benchmarks/results/liang_srebro_uci.csv.gz`` (one
data set at a time, so an interrupted run keeps what it finished); the
``liang-srebro`` section of RESULTS.md is rewritten from them. Reads
``../shared/datasets`` (or ``$GRAPHMODELS_DATASETS``).
"""

from __future__ import annotations

import argparse
import datetime
import math
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from graphmodels.evaluation import LIANG_SREBRO_METHODS, liang_srebro_protocol, method_name

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import load_average, machine_markdown, markdown_table, read_dataset, write_section  # noqa: E402

HERE = Path(__file__).resolve().parent
REFERENCE = HERE.parent.parent / "shared" / "reference"
RAW = HERE / "results" / "liang_srebro_uci.csv.gz"
BITS = 1.0 / math.log(2.0)

#: The paper's data-set names for the shared files it used (Table 3).
PAPER_NAMES = {
    "adult": "adult",
    "breast-cancer-wisconsin": "breast",
    "car": "car",
    "connect-4": "connect4",
    "crx": "crx",
    "german": "german",
    "glass": "glass",
    "hepatitis": "hepatitis",
    "iris": "iris",
    "letter": "letter",
    "lymphography": "lymph.",
    "mushroom": "mushroom",
    "nursery": "nursery",
    "pima": "pima",
    "satimage": "satimage",
    "segment": "segment",
    "shuttle-statlog": "shuttle",
    "soybean-large": "soybean",
    "splice": "splice",
    "tic-tac-toe": "tic-tac-toe",
    "voting": "vote",
    "waveform": "waveform",
    "wine": "wine",
}
# Fewer trials where one trial takes over 5 s (the paper: connect4 10 instead of 50).
SLOW = {"connect-4": 10, "letter": 20, "satimage": 20, "splice": 20, "soybean-large": 20}
METHODS = [method_name(*m) for m in LIANG_SREBRO_METHODS]


def run(sets, trials, seed):
    RAW.parent.mkdir(parents=True, exist_ok=True)
    done = pd.read_csv(RAW) if RAW.exists() else pd.DataFrame()
    for name in sets:
        frame = read_dataset(name)
        if frame is None:
            continue
        n_trials = min(trials, SLOW.get(name, trials))
        X, y = frame.iloc[:, :-1], frame.iloc[:, -1].astype(str)
        tic = time.perf_counter()
        print(f"{name}: {frame.shape}, {n_trials} trials", file=sys.stderr, flush=True)
        result = liang_srebro_protocol(X, y, n_trials=n_trials, random_state=seed, verbose=True)
        result.insert(0, "dataset", name)
        print(f"{name}: {time.perf_counter() - tic:.0f} s", file=sys.stderr, flush=True)
        if len(done):
            done = done[done["dataset"] != name]
        done = pd.concat([done, result], ignore_index=True)
        done.to_csv(RAW, index=False)
    return done


def _fmt(value, digits=2):
    return "–" if value is None or not np.isfinite(value) else f"{value:.{digits}f}"


def report(raw, trials_note):
    raw = raw.copy()
    for part in ("train", "test"):
        raw[f"{part}_loglik_bits"] = raw[f"{part}_loglik"] * BITS
    means = raw.groupby(["dataset", "method"]).mean(numeric_only=True)
    sets = [s for s in PAPER_NAMES if s in means.index.get_level_values(0)]
    table4 = pd.read_csv(REFERENCE / "liang_srebro_table4_test_loglik.tsv", sep="\t").set_index("dataset")
    table5 = pd.read_csv(REFERENCE / "liang_srebro_table5_test_error.tsv", sep="\t").set_index("dataset")
    table6 = pd.read_csv(REFERENCE / "liang_srebro_table6_averages.tsv", sep="\t")
    table6["method"] = table6["method"].str.split(" ").str[0]
    table6 = table6.set_index("method")

    def best(name, column, higher):
        values = means.loc[name][column]
        # ties: the simplest method, i.e. the first in the paper's complexity order
        order = [m for m in METHODS if m in values.index]
        values = values.reindex(order)
        index = values.idxmax() if higher else values.idxmin()
        return index, values[index]

    rows4, rows5 = [], []
    for name in sets:
        paper = PAPER_NAMES[name]
        m = means.loc[name]
        b4, v4 = best(name, "test_loglik_bits", True)
        p4 = table4.loc[paper] if paper in table4.index else None
        rows4.append(
            [
                name,
                f"{b4} {_fmt(v4)}",
                "–" if p4 is None else f"{p4['best_method']} {_fmt(p4['best'])}",
                _fmt(m.loc["MDL-Cf-3", "test_loglik_bits"]),
                "–" if p4 is None else _fmt(p4["mdl_cf_3"]),
                _fmt(m.loc["ML-Cf-1", "test_loglik_bits"]),
                "–" if p4 is None else _fmt(p4["chow_liu"]),
                _fmt(m.loc["ML-Cs-1", "test_loglik_bits"]),
                "–" if p4 is None else _fmt(p4["tan"]),
            ]
        )
        b5, v5 = best(name, "test_error", False)
        p5 = table5.loc[paper] if paper in table5.index else None
        ours = m.loc["MDL-Cs-3", "test_error"]
        rows5.append(
            [
                name,
                f"{b5} {_fmt(v5)}",
                "–" if p5 is None else f"{p5['best_family']} {_fmt(p5['best'])}",
                _fmt(ours),
                "–" if p5 is None else _fmt(p5["mdl_cs_3"]),
                "–" if p5 is None else ("yes" if abs(ours - p5["mdl_cs_3"]) <= 0.02 + 1e-9 else "no"),
                _fmt(m.loc["ML-Cf-1", "test_error"]),
                "–" if p5 is None else _fmt(p5["chow_liu"]),
                _fmt(m.loc["ML-Cs-1", "test_error"]),
                "–" if p5 is None else _fmt(p5["tan"]),
            ]
        )
    within = [r[5] == "yes" for r in rows5 if r[5] != "–"]

    averages = means.loc[sets].groupby(level="method").mean()
    rows6 = []
    for method in METHODS:
        a = averages.loc[method]
        p = table6.loc[method] if method in table6.index else None
        rows6.append(
            [method]
            + [
                f"{_fmt(a[col], d)} ({'–' if p is None else _fmt(p[pcol], d)})"
                for col, pcol, d in [
                    ("train_loglik_bits", "train_loglik", 2),
                    ("train_error", "train_error", 3),
                    ("test_loglik_bits", "test_loglik", 2),
                    ("test_error", "test_error", 3),
                ]
            ]
        )

    # Table 6's orderings.
    checks = []
    for rep in ["J", "Cs", "Cf"]:
        for k in [2, 3]:
            mdl, ml = averages.loc[f"MDL-{rep}-{k}"], averages.loc[f"ML-{rep}-{k}"]
            checks.append(
                (
                    f"MDL-{rep}-{k} beats ML-{rep}-{k} on test log-likelihood and error",
                    mdl["test_loglik"] > ml["test_loglik"] and mdl["test_error"] < ml["test_error"],
                )
            )
    for k in [1, 2, 3]:
        ll = {rep: averages.loc[f"MDL-{rep}-{k}", "test_loglik"] for rep in ["J", "Cs", "Cf"]}
        err = {rep: averages.loc[f"MDL-{rep}-{k}", "test_error"] for rep in ["J", "Cs", "Cf"]}
        checks.append((f"among MDL-*-{k}, Cf has the best test log-likelihood", max(ll, key=ll.get) == "Cf"))
        checks.append((f"among MDL-*-{k}, Cs has the lowest test error", min(err, key=err.get) == "Cs"))

    seconds = raw.groupby("dataset")["fit_seconds"].sum() / raw.groupby("dataset")["trial"].nunique()
    trials = raw.groupby("dataset")["trial"].nunique()
    lines = [
        "## Liang & Srebro: UCI Tables 4-6 (bench_liang_srebro.py)",
        "",
        f"Run {datetime.date.today().isoformat()}, load average {load_average()}. {trials_note}",
        "",
        machine_markdown(),
        "",
        "Protocol of section 6.4: 5 equal-frequency bins for numeric columns with >= 10 distinct values "
        "(on the whole set, a preprocessing step as in the paper), missing as a value, pseudo-count 0.001, "
        "random 90/10 splits, incremental algorithm with 100 starts. Trials per set: "
        + ", ".join(f"{s} {trials[s]}" for s in sets)
        + " (the paper: 50, connect4 10). Sets of the paper missing from the shared folder: "
        "australian, dna, ecoli, flare, heart, ionosphere.",
        "",
        "**Units.** Log-likelihoods are per row of log P(y, z), shown in **bits**: the paper's numbers "
        "are in bits (its Chow-Liu column on the all-nominal sets car, connect4, splice, nursery, mushroom "
        "equals ours times 1/ln 2, e.g. splice -114.49 vs ours in nats x 1.4427). Raw results in nats: "
        "`benchmarks/results/liang_srebro_uci.csv.gz`.",
        "",
        "### Table 4: test log-likelihood (bits per row), ours vs paper",
        "",
        markdown_table(
            pd.DataFrame(
                rows4,
                columns=[
                    "set",
                    "best (ours)",
                    "best (paper)",
                    "MDL-Cf-3",
                    "paper",
                    "CL (ML-Cf-1)",
                    "paper",
                    "TAN (ML-Cs-1)",
                    "paper",
                ],
            )
        ),
        "",
        "### Table 5: test error, ours vs paper",
        "",
        markdown_table(
            pd.DataFrame(
                rows5,
                columns=[
                    "set",
                    "best (ours)",
                    "best (paper)",
                    "MDL-Cs-3",
                    "paper",
                    "within 0.02",
                    "CL",
                    "paper",
                    "TAN",
                    "paper",
                ],
            )
        ),
        "",
        f"**Target: MDL-Cs-3 test error within 0.02 of Table 5 on at least 80% of the sets: "
        f"{sum(within)}/{len(within)} = {100 * sum(within) / max(len(within), 1):.0f}% "
        f"-> {'PASS' if sum(within) >= 0.8 * len(within) else 'FAIL'}.**",
        "",
        f"### Table 6: averages over our {len(sets)} sets (paper's average over its 28 in parentheses)",
        "",
        markdown_table(
            pd.DataFrame(rows6, columns=["method", "train LL (bits)", "train error", "test LL (bits)", "test error"])
        ),
        "",
        "Orderings of Table 6 (on test data):",
        "",
        *[f"- {text}: {'holds' if ok else 'does NOT hold'}" for text, ok in checks],
        "",
        "Reading the tables:",
        "",
        "- On the nominal sets the log-likelihoods agree with the paper's: Chow-Liu and TAN within 0.1 bit on "
        "car, connect4, mushroom, nursery, splice and tic-tac-toe (connect4 -22.50 vs -22.51, splice -114.44 vs "
        "-114.49) and within 0.65 bit on the small lymphography, soybean and vote; MDL-Cf-3 likewise, except "
        "splice (1.6 bits lower here). Same protocol, same numbers. On sets with numeric columns (letter, "
        "satimage, shuttle, waveform, pima, iris) ours are several bits lower and the errors differ: the bins "
        "differ (ours: 5 equal-frequency bins on the whole set, tied values kept in one bin); the paper does "
        "not say how it broke ties, nor which copies it used.",
        "- Averages (Table 6) are over our 23 sets, so their level differs from the paper's 28-set averages; "
        "the comparisons between methods are what carries over.",
        "- MDL for the class-conditional models uses each class's own sample size: the description length of "
        "class y's model is -m_y sum w_y + N/2 log m_y, so the C_s weight is sum_y P(y) (w_y - N log(m_y) / "
        "(2 m_y)). The paper does not say which m it used; with the whole-sample m instead, car's MDL-Cs-3 "
        "error drops to 0.06 (the paper's value) but tic-tac-toe's to 0.10 (paper 0.16, ours 0.17).",
        "",
        "Fit time per trial (all 19 methods, one shared engine): "
        + ", ".join(f"{s} {seconds[s]:.1f} s" for s in sets)
        + ".",
    ]
    write_section("liang-srebro", "\n".join(lines))
    print("\n".join(lines))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=50)
    parser.add_argument("--sets", nargs="*", default=list(PAPER_NAMES))
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--report-only", action="store_true")
    args = parser.parse_args(argv)
    if args.report_only:
        raw = pd.read_csv(RAW)
    else:
        raw = run(args.sets, args.trials, args.seed)
    note = f"Trials requested: {args.trials} per set (fewer where noted)."
    report(raw, note)


if __name__ == "__main__":
    main()
