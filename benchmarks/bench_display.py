"""Time of a model's notebook display (``_repr_html_``) for every default model family on the shared sets.

Issue 16's target: under 0.5 s for each default model on every shared set. For each
classification set of ``../shared/datasets`` (MANIFEST.tsv; not the ``alarm`` network nor the
multi-label ``emotions``) and each family with its default settings (``gm.TAN()``, ...), the
model is fitted once on the set (at most ``--max-rows`` rows, default 5,000, a stratified
sample with seed 0; Kikuchi-Bayes only on sets of at most ``--kikuchi-rows`` rows, default
2,000, as its search is slow beyond), then ``model._repr_html_()`` is timed: the summary and,
for a structure of at most 60 nodes, the drawing as inline SVG (a larger one is summarized,
not drawn). The time is the best of 3 renders (one if the first takes 2 s or more), after one
warm-up render of a small model (matplotlib's import and font cache are not counted).

Usage::

    python benchmarks/bench_display.py [--sets car iris ...] [--families TAN AODE ...]
        [--max-rows 5000] [--kikuchi-rows 2000] [--out benchmarks/RESULTS.md]

Writes its section of RESULTS.md between ``<!-- display:start -->`` and ``<!-- display:end -->``
(only for a run over every set and family, unless ``--out`` is given).
"""

from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402

import graphmodels as gm  # noqa: E402
from graphmodels._display import MAX_DRAWN_NODES  # noqa: E402

SKIP = {"alarm", "emotions"}
TARGET = 0.5
FAMILIES = {
    "NaiveBayes": gm.NaiveBayes,
    "TAN": gm.TAN,
    "FAN": gm.FAN,
    # One forest per class and one shared hyperforest, as when the RESULTS table was made (the
    # default "auto" fits both representations and keeps one: the same drawing and display).
    "ChowLiu": lambda: gm.ChowLiu(representation="free"),
    "KDB": gm.KDB,
    "AODE": gm.AODE,
    "HyperforestClassifier": lambda: gm.HyperforestClassifier(representation="shared"),
    "KikuchiBayes": gm.KikuchiBayes,
    "HierarchicalNaiveBayes": gm.HierarchicalNaiveBayes,
}


def shared_sets(selected):
    folder = common.datasets_dir()
    if folder is None:
        sys.exit("The shared data sets are needed: set GRAPHMODELS_DATASETS to their folder.")
    manifest = pd.read_csv(folder / "MANIFEST.tsv", sep="\t")
    return [n for n in manifest["name"] if n not in SKIP and (not selected or n in selected)]


def load(name, max_rows):
    frame = common.read_dataset(name)
    X, y = frame.iloc[:, :-1], frame.iloc[:, -1].astype(str)
    if max_rows and len(frame) > max_rows:
        from sklearn.model_selection import train_test_split

        keep, _ = train_test_split(np.arange(len(frame)), train_size=max_rows, stratify=y, random_state=0)
        keep = np.sort(keep)
        X, y = X.iloc[keep].reset_index(drop=True), y.iloc[keep].reset_index(drop=True)
    return X, y.rename("class"), len(frame)


def warm_up():
    X, y = gm.datasets.load("car", return_X_y=True)
    gm.TAN().fit(X, y)._repr_html_()


def timed_render(model, repeat=5, budget=2.0):
    """``(best wall seconds, CPU seconds of that render, html, n_runs)`` of ``model._repr_html_()``.

    Best of `repeat` renders, or of one when it takes `budget` seconds or more: on a shared machine
    the best wall-clock time is the one least inflated by other jobs.
    """
    best = None
    for runs in range(1, repeat + 1):
        wall, cpu = time.perf_counter(), time.process_time()
        text = model._repr_html_()
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
        if best is None or wall < best[0]:
            best = (wall, cpu)
        if runs == 1 and wall >= budget:
            break
    return best[0], best[1], text, runs


def run(names, families, max_rows, kikuchi_rows):
    rows = []
    for name in names:
        X, y, n_total = load(name, max_rows)
        for family in families:
            record = {"dataset": name, "family": family, "rows": len(X), "total_rows": n_total}
            if family == "KikuchiBayes" and n_total > kikuchi_rows:
                rows.append({**record, "status": f"skipped (> {kikuchi_rows:,} rows)"})
                continue
            start = time.perf_counter()
            model = FAMILIES[family]().fit(X, y)
            fit_seconds = time.perf_counter() - start
            seconds, cpu_seconds, text, runs = timed_render(model)
            drawn = "<svg" in text
            rows.append(
                {
                    **record,
                    "status": "drawn" if drawn else "summary only",
                    "fit_s": fit_seconds,
                    "render_s": seconds,
                    "cpu_s": cpu_seconds,
                    "runs": runs,
                    "kB": len(text) / 1000,
                    "failed": "could not" in text,
                }
            )
            print(
                f"[display] {name:>24} {family:>22}: fit {fit_seconds:6.2f} s, render {seconds:5.3f} s "
                f"({'drawn' if drawn else 'summary'}, {len(text) / 1000:.0f} kB)",
                flush=True,
            )
    return pd.DataFrame(rows)


def markdown(results, elapsed, max_rows, kikuchi_rows):
    timed_rows = results.dropna(subset=["render_s"])
    lines = [
        "## Notebook display: render time of `_repr_html_` (bench_display.py)",
        "",
        common.machine_markdown(),
        "",
        "Each default model (`gm.TAN()`, ...) fitted once per shared classification set (not `alarm`, "
        f"not the multi-label `emotions`; at most {max_rows:,} rows, a stratified sample with seed 0; "
        f"Kikuchi-Bayes only on sets of at most {kikuchi_rows:,} rows), then `model._repr_html_()` timed: "
        f"the summary and, for a structure of at most {MAX_DRAWN_NODES} nodes, its drawing as inline SVG "
        "(AODE: its 1 or 2 most informative members; Kikuchi-Bayes: its interaction diagram). Wall-clock "
        "time, best of 5 renders (of 1 if it takes 2 s or more), after one warm-up render; CPU time of the same "
        "render beside it. The machine was shared with other jobs (see the load average): "
        f"times are upper bounds. Target: under {TARGET} s for every family on every set. "
        f"Run time {elapsed / 60:.1f} min.",
        "",
    ]
    summary = []
    for family, group in timed_rows.groupby("family", sort=False):
        worst = group.loc[group["render_s"].idxmax()]
        summary.append(
            {
                "family": family,
                "sets": len(group),
                "drawn": int((group["status"] == "drawn").sum()),
                "median (s)": f"{group['render_s'].median():.3f}",
                "max (s)": f"{group['render_s'].max():.3f}",
                "max CPU (s)": f"{group['cpu_s'].max():.3f}",
                "slowest set": worst["dataset"],
                f"under {TARGET} s": "yes" if group["render_s"].max() < TARGET else "**no**",
            }
        )
    lines += [common.markdown_table(pd.DataFrame(summary)), ""]
    met = bool((timed_rows["render_s"] < TARGET).all())
    failed = int(timed_rows["failed"].sum())
    lines.append(
        f"Target {'met' if met else 'missed'}: {int((timed_rows['render_s'] < TARGET).sum())} of {len(timed_rows)} "
        f"renders under {TARGET} s of wall-clock time (the slowest {timed_rows['render_s'].max():.3f} s); "
        f"CPU time at most {timed_rows['cpu_s'].max():.3f} s; {failed} display(s) showed an error."
    )
    lines += [
        "",
        "Render time (s) per set; `s` marks a summary without drawing (more than "
        f"{MAX_DRAWN_NODES} nodes), `-` a fit not run.",
        "",
    ]
    table = {}
    for name, group in results.groupby("dataset", sort=False):
        row = {"set": name, "rows": f"{int(group['rows'].iloc[0]):,}"}
        for _, record in group.iterrows():
            if pd.isna(record.get("render_s")):
                row[record["family"]] = "-"
            else:
                mark = "" if record["status"] == "drawn" else " s"
                row[record["family"]] = f"{record['render_s']:.3f}{mark}"
        table[name] = row
    lines.append(common.markdown_table(pd.DataFrame(list(table.values())).fillna("-")))
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sets", nargs="+", help="shared set names (default: every classification set)")
    parser.add_argument("--families", nargs="+", choices=list(FAMILIES), help="model families (default: all)")
    parser.add_argument("--max-rows", type=int, default=5_000, help="fit on at most this many rows")
    parser.add_argument("--kikuchi-rows", type=int, default=2_000, help="fit Kikuchi-Bayes only up to this size")
    parser.add_argument("--out", help="write the section into this file (default for a full run: RESULTS.md)")
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore")
    import sklearn.model_selection  # noqa: F401 - imported before any timing

    warm_up()
    start = time.perf_counter()
    results = run(shared_sets(args.sets), args.families or list(FAMILIES), args.max_rows, args.kikuchi_rows)
    elapsed = time.perf_counter() - start
    body = markdown(results, elapsed, args.max_rows, args.kikuchi_rows)
    print(body)
    out = args.out or (common.RESULTS if not args.sets and not args.families else None)
    if out:
        common.write_section("display", body, out)
        print(f"[display] wrote {out}", file=sys.stderr)


if __name__ == "__main__":
    main()
