"""BNClassifier's inner settings, one at a time against the default: outer log-loss, choices, CPU (issue 27).

Each run fits ``gm.BNClassifier()`` on the 5 outer folds of the peers' protocol
(StratifiedKFold(5, shuffle=True, random_state=0), 5 equal-frequency bins fitted per training fold)
of each set given, with module constants of graphmodels set as asked (``--set
graphmodels.models.bn_classifier.REPEATED_RACE_Z=2.5``), and saves per set the mean outer
log-loss, the CPU seconds of the fits (``time.process_time``) and the five choices, as JSON.
``--render`` compares each saved run with its baseline run: the same choices, the log-loss change, the
CPU ratio. Two runs side by side share the machine: their CPU seconds compare roughly (one of two
processes ran up to a third slower on identical work here); the choices and losses compare exactly.

Usage::

    python benchmarks/study_bnclassifier_settings.py --run OUT.json [--set MODULE.NAME=VALUE ...] --sets iris ...
    python benchmarks/study_bnclassifier_settings.py --render "LABEL=BASE.json,OTHER.json" ... [--results]

Reads ``../shared/datasets``.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import common  # noqa: E402
from bench_peers import fold_data, load, log_loss_and_error  # noqa: E402

import graphmodels as gm  # noqa: E402


def run(out, settings, sets):
    """Fit BNClassifier() on every outer fold of `sets` with `settings` (``module.NAME=value``); save JSON."""
    for setting in settings:
        target, value = setting.split("=", 1)
        module, name = target.rsplit(".", 1)
        setattr(importlib.import_module(module), name, float(value))
    from sklearn.model_selection import StratifiedKFold

    results = {"settings": settings, "load": common.load_average(), "sets": {}}
    for name in sets:
        X, y, _ = load(name, 20_000)
        losses, cpu, chosen = [], 0.0, []
        for train, test in StratifiedKFold(5, shuffle=True, random_state=0).split(X, y):
            data = fold_data(X, y, train, test)
            model = gm.BNClassifier()
            start = time.process_time()
            model.fit(data["X_train"], data["y_train"])
            cpu += time.process_time() - start
            probabilities = np.asarray(model.predict_proba(data["X_test"]), dtype=float)
            losses.append(log_loss_and_error(probabilities, model.classes_, data["y_test"])[0])
            chosen.append(model.selection_.loc[model.selection_["chosen"], "candidate"].item())
        results["sets"][name] = {"log_loss": float(np.mean(losses)), "fit": cpu, "chosen": chosen}
        print(name, round(float(np.mean(losses)), 4), round(cpu, 1), flush=True)
        Path(out).write_text(json.dumps(results))


def _sets_of(saved):
    """The per-set results of a saved run (also of the first runs, saved as the per-set dict alone)."""
    return saved.get("sets", saved)


def render(comparisons):
    """A markdown table per ``(label, baseline path, run path)``: each set's log-loss and CPU, side by side."""
    blocks = []
    for label, base, path in comparisons:
        default = _sets_of(json.loads(Path(base).read_text()))
        other = _sets_of(json.loads(Path(path).read_text()))
        rows, cpu_default, cpu_other = [], 0.0, 0.0
        for name in [s for s in default if s in other]:
            a, b = default[name], other[name]
            cpu_default, cpu_other = cpu_default + a["fit"], cpu_other + b["fit"]
            same = sum(x == z for x, z in zip(a["chosen"], b["chosen"]))
            rows.append(
                f"| {name} | {a['log_loss']:.4f} | {b['log_loss']:.4f} | {b['log_loss'] - a['log_loss']:+.4f} "
                f"| {a['fit']:.1f} | {b['fit']:.1f} | {same} of {len(a['chosen'])} |"
            )
        ratio = cpu_other / cpu_default if cpu_default else float("nan")
        blocks.append(
            f"### {label}\n\nCPU over these sets: {cpu_default:.1f} s -> {cpu_other:.1f} s ({ratio:.2f}x).\n\n"
            "| set | log-loss (baseline) | log-loss (setting) | change | CPU s (baseline) | CPU s (setting) | same choices |\n"
            "| --- | --- | --- | --- | --- | --- | --- |\n" + "\n".join(rows)
        )
    return "\n\n".join(blocks)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--run", metavar="OUT", help="fit and save a run as JSON")
    parser.add_argument("--set", action="append", default=[], metavar="MODULE.NAME=VALUE")
    parser.add_argument("--sets", nargs="+", default=[])
    parser.add_argument("--render", nargs="+", metavar="LABEL=BASE,RUN", help="compare saved runs with their baselines")
    parser.add_argument("--note", default="", help="with --render --results: how the runs were made")
    parser.add_argument("--results", action="store_true", help="with --render: write the RESULTS.md section")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    if args.run:
        run(args.run, args.set, args.sets)
        return
    comparisons = []
    for item in args.render:
        label, paths = item.rsplit("=", 1)
        comparisons.append((label, *paths.split(",", 1)))
    body = render(comparisons)
    if args.results:
        body = (
            "## BNClassifier's inner settings, one at a time (study_bnclassifier_settings.py, issue 27)\n\n"
            f"{args.note}\n\n{common.machine_markdown()}\n\n{body}"
        )
        common.write_section("bnclassifier-settings", body)
    print(body)


if __name__ == "__main__":
    main()
