"""The ``graphmodels`` command.

::

    graphmodels datasets
    graphmodels fit DATA --class-column NAME --model tan --draw out.png
    graphmodels compare DATA [--models nb tan ...] [--out DIR]

``DATA`` is a CSV file (optionally gzip-compressed) or the name of a bundled
data set. Numeric columns with more than 10 distinct values are discretized
with Fayyad & Irani's MDL method (``--discretizer``), fitted on training rows
only.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

import pandas as pd

__all__ = ["main"]


class CommandError(Exception):
    """An error to report in one line, without a traceback."""


def _load_data(source, class_column):
    from .data import datasets

    if os.path.exists(source):
        try:
            frame = pd.read_csv(source, keep_default_na=False, na_values=[""])
        except (pd.errors.ParserError, UnicodeDecodeError, OSError) as error:
            raise CommandError(f"cannot read {source!r} as CSV: {error}") from None
        name = os.path.basename(source).split(".")[0]
    elif source.lower().endswith((".csv", ".csv.gz", ".gz", ".txt")) or os.sep in source:
        raise CommandError(f"file not found: {source!r}")
    else:
        try:
            frame = datasets.load(source)
        except ValueError as error:
            raise CommandError(f"{error} (or give the path of a CSV file)") from None
        name = source
    if class_column is None:
        class_column = "class" if "class" in frame.columns else frame.columns[-1]
    if class_column not in frame.columns:
        raise CommandError(
            f"class column {class_column!r} not found in {source!r}; columns are: "
            + ", ".join(map(str, frame.columns[:30]))
        )
    if frame[class_column].isna().any():
        frame = frame[frame[class_column].notna()]
    return name, frame.drop(columns=[class_column]), frame[class_column]


def _model(name):
    from .models import CLASSIFIERS

    key = name.lower()
    if key not in CLASSIFIERS:
        raise CommandError(f"unknown model {name!r}; choose from: {', '.join(CLASSIFIERS)}")
    return CLASSIFIERS[key]()


def _discretizer(name):
    from .evaluation import make_discretizer

    return None if name == "none" else make_discretizer(name)


def _draw(model, path, title):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from .plotting import draw_network

    ax = draw_network(model)
    ax.set_title(title)
    ax.figure.savefig(path, dpi=150, bbox_inches="tight")
    plt.close(ax.figure)


def _cmd_datasets(args):
    from .data import datasets

    table = datasets.describe()[["rows", "attributes", "classes", "numeric_attributes", "missing_cells"]]
    print(table.rename_axis("name").to_string())
    print("\nSources and licences: graphmodels.datasets.info(name), or graphmodels/data/bundled/LICENSES.md")


def _cmd_fit(args):
    name, X, y = _load_data(args.data, args.class_column)
    model = _model(args.model)
    binner = _discretizer(args.discretizer)
    if binner is not None:
        X = binner.fit(X, y).transform(X)
    model.fit(X, y)
    graph = model.structure_
    print(f"{type(model).__name__} on {name}: {len(X)} rows, {X.shape[1]} attributes, {len(model.classes_)} classes")
    print(f"training accuracy {model.score(X, y):.3f}")
    arcs = [(u, v, d) for u, v, d in graph.edges(data=True) if d.get("kind") == "augmenting"]
    print(f"{len(arcs)} augmenting arcs" + (":" if arcs else ""))
    for u, v, data in sorted(arcs, key=lambda e: -e[2].get("weight", 0.0)):
        print(f"  {u} -> {v}   I = {data.get('weight', float('nan')):.4f} nats")
    if args.draw:
        _draw(model, args.draw, f"{type(model).__name__} on {name}")
        print(f"drawing saved to {args.draw}")
    if args.save:
        model.save(args.save)
        print(f"model saved to {args.save}")


def _cmd_compare(args):
    from .evaluation import RepeatedStratifiedKFold, compare

    name, X, y = _load_data(args.data, args.class_column)
    models = {m: _model(m) for m in args.models}
    cv = RepeatedStratifiedKFold(n_splits=args.folds, n_repeats=args.repeats, random_state=args.seed)
    result = compare(
        models,
        {name: (X, y)},
        cv=cv,
        discretizer=_discretizer(args.discretizer),
        verbose=not args.quiet,
    )
    table = result.summary.set_index("model")[["log_loss", "log_loss_std", "error", "fit_time", "predict_time"]]
    print(
        f"{name}: {len(X)} rows, {X.shape[1]} attributes, {y.nunique()} classes; "
        f"{args.repeats} x {args.folds}-fold stratified cross-validation"
    )
    print(
        table.rename(
            columns={
                "log_loss": "log-loss (nats)",
                "log_loss_std": "sd",
                "fit_time": "fit (s)",
                "predict_time": "predict (s)",
            }
        ).to_string(float_format=lambda v: f"{v:.4f}")
    )
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        binner = _discretizer(args.discretizer)
        X_all = binner.fit(X, y).transform(X) if binner is not None else X
        result.results.to_csv(os.path.join(args.out, f"{name}-folds.csv"), index=False)
        for model_name, model in models.items():
            model.fit(X_all, y)
            path = os.path.join(args.out, f"{name}-{model_name}.png")
            _draw(model, path, f"{type(model).__name__} on {name}")
        print(f"fold results and a drawing of each structure saved in {args.out}")


def _parser():
    from .models import CLASSIFIERS

    parser = argparse.ArgumentParser(prog="graphmodels", description="Learn and compare Bayesian-network classifiers.")
    commands = parser.add_subparsers(dest="command", required=True)

    commands.add_parser("datasets", help="list the bundled data sets")

    discretizers = ["mdl", "equal-frequency", "none"]
    fit = commands.add_parser("fit", help="fit one model on a data set, print and draw its structure")
    fit.add_argument("data", help="a CSV file or a bundled data set name")
    fit.add_argument("--class-column", default=None, help="class column (default: 'class', else the last)")
    fit.add_argument("--model", default="tan", help=f"one of {', '.join(CLASSIFIERS)} (default tan)")
    fit.add_argument("--discretizer", default="mdl", choices=discretizers)
    fit.add_argument("--draw", metavar="PNG", help="save a drawing of the structure")
    fit.add_argument("--save", metavar="FILE", help="save the fitted model (.json or .npz)")

    cmp_ = commands.add_parser("compare", help="cross-validate classifiers on a data set")
    cmp_.add_argument("data", help="a CSV file or a bundled data set name")
    cmp_.add_argument("--class-column", default=None)
    cmp_.add_argument("--models", nargs="+", default=list(CLASSIFIERS), help="models to compare (default: all)")
    cmp_.add_argument("--discretizer", default="mdl", choices=discretizers)
    cmp_.add_argument("--folds", type=int, default=5)
    cmp_.add_argument("--repeats", type=int, default=5)
    cmp_.add_argument("--seed", type=int, default=0)
    cmp_.add_argument("--out", metavar="DIR", help="save per-fold results and structure drawings here")
    cmp_.add_argument("--quiet", action="store_true", help="no progress lines")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``graphmodels`` command; returns the exit status.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments after the command name; by default ``sys.argv[1:]``.

    Returns
    -------
    int
        0 on success, 2 for an error reported in one line on stderr.
    """
    args = _parser().parse_args(argv)
    handlers = {"datasets": _cmd_datasets, "fit": _cmd_fit, "compare": _cmd_compare}
    try:
        if getattr(args, "models", None):
            for name in args.models:
                _model(name)
        handlers[args.command](args)
    except CommandError as error:
        print(f"graphmodels: error: {error}", file=sys.stderr)
        return 2
    except (ValueError, TypeError, OSError) as error:
        print(f"graphmodels: error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
