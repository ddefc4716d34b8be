"""The ``graphmodels`` command.

::

    graphmodels datasets
    graphmodels fit DATA [--target NAME] [--model tan] [--draw out.png] [--save model.json]
    graphmodels compare DATA [--target NAME] [--models nb tan ...] [--out DIR] [--quiet]
    graphmodels report DATA --out report.html [--target NAME] [--models nb tan ...] [--folds K] [--quiet]
    graphmodels animate DATA --out tan.gif [--model tan] [--target NAME] [--interval MS] [--max-frames N]
    graphmodels interactions DATA [--target NAME] [--top N] [--test asymptotic] [--triples] [--draw graph.png]
    graphmodels --version

``DATA`` is a CSV file (optionally compressed: ``.gz``, ``.bz2``, ``.xz``,
``.zip``) or the name of a bundled data set (``graphmodels datasets`` lists
them).

* **Class column**: ``--target NAME`` (``--class-column`` is an older name for
  it); without it, the column named ``class``. A table with neither is an
  error that lists its columns: the command never guesses (taking the last
  column silently would fit a model of the wrong variable).
* **Rows with a missing class** (an empty cell) are dropped, and the command
  says how many on stderr. Missing attribute values stay, as a value of
  their own.
* **Delimiter**: a comma, unless ``--sep`` says otherwise. When a file read
  with commas gives a single column, the delimiter is sniffed among ``;``,
  tab and ``|`` (:class:`csv.Sniffer`) and the one used is named on stderr;
  a file that still gives one column is an error that suggests ``--sep``.
* **Numeric columns** with more than 10 distinct values are discretized
  with Fayyad & Irani's MDL method (``--discretizer``, passed to the model's
  ``discretizer=``): the cut points are fitted inside ``fit``, on the
  training rows only (in ``compare``, on each training fold), and a saved
  model keeps them, so it predicts raw rows.
* **Output paths** (``--draw`` ending in ``.png``, ``.pdf`` or ``.svg``;
  ``--save`` in ``.json`` or ``.npz``; ``compare --out`` a directory;
  ``report --out`` a file ending in ``.html`` or ``.htm``; ``animate --out`` in ``.gif``;
  ``interactions --csv`` in ``.csv``) are checked
  before any work: their directory must exist and be writable.
* **Messages**: results go to stdout; notes, warnings and progress to
  stderr. ``compare`` shows its progress when stderr is a terminal and the
  run lasts more than a few seconds; ``report`` writes a line per step;
  ``--quiet`` silences both.
* **A model that fails** in ``compare`` or ``report`` (a table beyond its
  ``max_cells``, data it cannot handle: any error of its fit or predict)
  is shown as failed, with its one-line reason (``compare``: status
  ``failed``, ``-`` for its figures, and a line ``NAME failed: reason``
  under the table; ``report``: in the page), and the other models go on.
* **Exit status**: 0 on success, also when some models failed but at least
  one completed; 2 for a usage or data error, or when every model of
  ``compare`` failed, reported in one line ``graphmodels: error: ...`` on
  stderr, without a traceback; 130 when interrupted.

Each fold's log-loss in ``compare`` clips the probability of the true class
at ``1e-15`` (as scikit-learn's ``log_loss``), so a class absent from a
training fold gives a finite figure and a warning instead of ``inf``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shlex
import sys
import warnings
from collections.abc import Sequence
from typing import Any

import pandas as pd

from ._files import atomic_write, write_text

__all__ = ["main"]

#: File name endings of ``--draw`` (matplotlib writes each) and of ``--save`` (the model formats).
_DRAWING_FORMATS = (".png", ".pdf", ".svg")
_MODEL_FORMATS = (".json", ".npz")
#: File name endings of ``report --out``.
_REPORT_FORMATS = (".html", ".htm")
#: File name endings of ``animate --out`` (matplotlib's Pillow writer).
_ANIMATION_FORMATS = (".gif",)

#: Delimiters tried when a file read with commas gives a single column, and how they are named.
_SNIFFED = ";\t|"
_SEP_NAMES = {",": "','", ";": "';'", "\t": "tab", "|": "'|'", " ": "' '"}
_SEP_ALIASES = {"tab": "\t", "\\t": "\t", "comma": ",", "semicolon": ";", "space": " ", "pipe": "|"}


class CommandError(Exception):
    """An error to report in one line, without a traceback."""


def _note(text: str) -> None:
    print(f"graphmodels: note: {text}", file=sys.stderr, flush=True)


def _show_warning(message, category, filename, lineno, file=None, line=None):
    """Warnings as one line on stderr, without the source line Python would print."""
    print(f"graphmodels: warning: {message}", file=sys.stderr, flush=True)


# ----------------------------------------------------------------------------------------------
# input
# ----------------------------------------------------------------------------------------------
def _separator(text: str) -> str:
    """``--sep``: one character, or a name such as ``tab`` (``\\t`` as typed in a shell works too)."""
    sep = _SEP_ALIASES.get(text.lower(), text)
    if len(sep) != 1 or sep in '"\r\n':
        raise argparse.ArgumentTypeError(f"must be one character or 'tab', got {text!r}")
    return sep


def _sep_hint(sep: str) -> str:
    return "--sep tab" if sep == "\t" else f"--sep {_SEP_NAMES.get(sep, repr(sep))}"


def _sample(path: str, size: int = 65536) -> str:
    """The first lines of a (possibly compressed) text file, for the delimiter sniffer."""
    import bz2
    import gzip
    import lzma

    with open(path, "rb") as handle:
        magic = handle.read(6)
    opener: Any = open
    if magic[:2] == b"\x1f\x8b":
        opener = gzip.open
    elif magic[:3] == b"BZh":
        opener = bz2.open
    elif magic == b"\xfd7zXZ\x00":
        opener = lzma.open
    try:
        with opener(path, "rt", encoding="utf-8", errors="replace", newline="") as handle:
            text = handle.read(size)
    except (OSError, EOFError, lzma.LZMAError):
        return ""
    return text if len(text) < size else text[: text.rfind("\n") + 1]


def _sniff(path: str) -> str | None:
    """The delimiter among ``;``, tab and ``|`` that the first lines of `path` are split by, if any."""
    import csv

    sample = _sample(path)
    if not sample.strip():
        return None
    try:
        return csv.Sniffer().sniff(sample, delimiters=_SNIFFED).delimiter
    except csv.Error:
        return None


def _damaged(path: str, error: BaseException) -> CommandError:
    """The one-line error of a compressed file that ends early or holds corrupt data."""
    from ._files import compression_of

    try:
        with open(path, "rb") as handle:
            compression = compression_of(handle.read(6)) or os.path.splitext(path)[1].lstrip(".") or "compressed"
    except OSError:
        compression = "compressed"
    detail = str(error).strip() or type(error).__name__
    return CommandError(f"cannot read {path!r}: it is a truncated or corrupt {compression} file ({detail})")


def _read_csv(path: str, sep: str | None) -> pd.DataFrame:
    import lzma
    import zipfile
    import zlib

    def read(delimiter: str) -> pd.DataFrame | Exception:
        try:
            return pd.read_csv(path, sep=delimiter, keep_default_na=False, na_values=[""])
        except (EOFError, lzma.LZMAError, zlib.error, zipfile.BadZipFile) as error:  # a damaged compressed file
            raise _damaged(path, error) from None
        except (ValueError, OSError) as error:  # pandas' ParserError and EmptyDataError, UnicodeDecodeError
            return error

    first = read(sep or ",")
    if isinstance(first, pd.DataFrame) and first.shape[1] >= 2:
        return first
    guess = _sniff(path)
    if sep is None and guess is not None:
        sniffed = read(guess)
        if isinstance(sniffed, pd.DataFrame) and sniffed.shape[1] >= 2:
            _note(
                f"read {path!r} as {_SEP_NAMES[guess]}-separated: commas give a single column "
                f"(pass {_sep_hint(guess)} to skip this guess)"
            )
            return sniffed
    if isinstance(first, Exception):
        with_sep = f" with {_sep_hint(sep)}" if sep is not None else ""
        raise CommandError(f"cannot read {path!r} as CSV{with_sep}: {first}")
    used = _SEP_NAMES.get(sep or ",", repr(sep))
    hint = (
        f"it looks separated by {_SEP_NAMES[guess]}: use {_sep_hint(guess)}"
        if guess is not None and guess != sep
        else "is it separated by another character? give it with --sep"
    )
    raise CommandError(f"only one column was read from {path!r} (split at {used}); {hint}")


def _load_data(source: str, target: str | None, sep: str | None = None) -> tuple[str, pd.DataFrame, pd.Series]:
    """Name, attributes and class of `source`, a CSV file or a bundled data set name."""
    from .data import datasets

    if os.path.isdir(source):
        raise CommandError(f"{source!r} is a directory; give a CSV file or a bundled data set name")
    if os.path.exists(source):
        frame = _read_csv(source, sep)
        name = os.path.basename(source).split(".")[0]
    elif source.lower().endswith((".csv", ".tsv", ".txt", ".gz", ".bz2", ".xz", ".zip")) or os.sep in source:
        raise CommandError(f"file not found: {source!r}")
    else:
        try:
            frame = datasets.load(source)
        except ValueError as error:
            raise CommandError(f"{error} (or give the path of a CSV file)") from None
        name = source
    if len(frame) == 0:
        raise CommandError(f"{source!r} has a header but no rows")
    columns = [str(c) for c in frame.columns]
    listing = ", ".join(columns[:30]) + (f", ... ({len(columns)} columns)" if len(columns) > 30 else "")
    if target is None:
        if "class" not in frame.columns:
            near = [c for c in columns if c.lower() in ("class", "target", "label", "y")]
            hint = f" (perhaps --target {near[0]!r})" if near else ""
            raise CommandError(
                f"{source!r} has no column named 'class'; name the class column with --target NAME{hint}; "
                f"columns: {listing}"
            )
        target = "class"
    elif target not in frame.columns:
        near = [c for c in columns if c.lower() == target.lower()]
        hint = f" (did you mean {near[0]!r}?)" if near else ""
        raise CommandError(f"class column {target!r} not found in {source!r}{hint}; columns: {listing}")
    missing = frame[target].isna()
    if missing.all():
        raise CommandError(f"every row of {source!r} has an empty class column {target!r}")
    if missing.any():
        _note(f"dropped {int(missing.sum())} of {len(frame)} rows of {name!r} whose class {target!r} is empty")
        frame = frame[~missing]
    if frame.shape[1] < 2:
        raise CommandError(f"{source!r} has no attribute columns besides the class {target!r}")
    y = frame[target]
    if y.nunique() < 2:
        _note(f"the class {target!r} has a single value, {y.iloc[0]!r}: every prediction will be that value")
    return name, frame.drop(columns=[target]), y


# ----------------------------------------------------------------------------------------------
# checks made before any work
# ----------------------------------------------------------------------------------------------
def _model(
    name: str, discretizer: str = "mdl", seed: int | None = None, categorical: Sequence[str] | None = None
) -> Any:
    """A registered classifier with default settings but ``discretizer=`` (``"none"`` is None) and ``categorical=``.

    A model with a ``random_state`` (hierarchical naive Bayes' inner folds) gets `seed`, so that
    ``--seed`` makes a run repeatable for every model, not only its folds.
    """
    from .models import CLASSIFIERS

    key = name.lower()
    if key not in CLASSIFIERS:
        raise CommandError(f"unknown model {name!r}; choose from: {', '.join(CLASSIFIERS)}")
    model = CLASSIFIERS[key](discretizer=None if discretizer == "none" else discretizer, categorical=categorical)
    if "random_state" in model.get_params():
        model.set_params(random_state=seed)
    return model


def _check_columns(X: pd.DataFrame, args: argparse.Namespace) -> None:
    """Refuse a ``--categorical`` name that is no column; note the integer columns the discretizer will cut."""
    categorical = args.categorical or []
    unknown = [name for name in categorical if name not in X.columns]
    if unknown:
        listing = ", ".join(map(str, list(X.columns)[:20]))
        raise CommandError(f"--categorical: no column named {', '.join(map(repr, unknown))}; columns: {listing}")
    if args.discretizer == "none":
        return
    from .data import make_discretizer
    from .models.base import _integer_columns

    minimum = make_discretizer(args.discretizer).min_distinct
    numeric = [c for c in X.columns if c not in categorical and X[c].dtype.kind in "iuf" and X[c].nunique() >= minimum]
    cut = list(_integer_columns(X, numeric))
    if cut:
        shown = ", ".join(map(repr, cut[:5])) + (f" and {len(cut) - 5} more" if len(cut) > 5 else "")
        _note(
            f"the integer column(s) {shown} are cut into intervals, as numbers (--discretizer {args.discretizer}); "
            f"if they are codes of categories, keep them as categories with --categorical {' '.join(shlex.quote(str(c)) for c in cut)}"
        )


def _check_directory(directory: str, what: str) -> None:
    if not os.path.isdir(directory):
        raise CommandError(f"{what}: directory {directory!r} does not exist")
    if not os.access(directory, os.W_OK | os.X_OK):
        raise CommandError(f"{what}: directory {directory!r} is not writable")


def _either(options: Sequence[str]) -> str:
    return ", ".join(options[:-1]) + " or " + options[-1] if len(options) > 1 else options[0]


def _check_output_file(path: str, option: str, formats: Sequence[str]) -> None:
    """Fail now, not after the run, if `path` cannot be written in one of `formats`."""
    if os.path.splitext(path)[1].lower() not in formats:
        raise CommandError(f"{option} {path!r}: the file name must end in {_either(formats)}")
    if os.path.isdir(path):
        raise CommandError(f"{option} {path!r} is a directory; give a file name")
    _check_directory(os.path.dirname(os.path.abspath(path)), f"{option} {path!r}")
    if os.path.exists(path) and not os.access(path, os.W_OK):
        raise CommandError(f"{option} {path!r}: the file exists and is not writable")


def _check_output_directory(path: str) -> None:
    """``--out DIR``: an existing writable directory, or a new one in an existing writable directory."""
    if os.path.exists(path):
        if not os.path.isdir(path):
            raise CommandError(f"--out {path!r} exists and is not a directory")
        _check_directory(path, f"--out {path!r}")
    else:
        _check_directory(os.path.dirname(os.path.abspath(path)), f"--out {path!r}")


# ----------------------------------------------------------------------------------------------
# output
# ----------------------------------------------------------------------------------------------
def _draw(model: Any, path: str, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from .plotting import draw_network

    figure: Any = draw_network(model, title=title).figure  # every panel of a drawing is in its figure
    try:
        # Into a temporary file that replaces `path` only when complete: a failed write keeps the old drawing.
        with atomic_write(path, "wb") as handle:
            figure.savefig(handle, format=os.path.splitext(path)[1][1:].lower(), dpi=150, bbox_inches="tight")
    finally:
        plt.close(figure)


def _save_animation(anim: Any, path: str, dpi: int) -> None:
    """``anim.save`` into a temporary file beside `path` (same extension: it picks the writer's format), then moved."""
    import tempfile

    directory, name = os.path.split(os.path.abspath(path))
    stem, extension = os.path.splitext(name)
    fd, temporary = tempfile.mkstemp(prefix=f".{stem}.", suffix=extension, dir=directory)
    os.close(fd)
    try:
        anim.save(temporary, writer="pillow", dpi=dpi)
        with open(temporary, "rb+") as handle:
            os.fsync(handle.fileno())
        try:  # the permissions of the file replaced, else those a plain open gives (mkstemp's are 0600)
            permissions = os.stat(path).st_mode & 0o7777
        except OSError:
            mask = os.umask(0)
            os.umask(mask)
            permissions = 0o666 & ~mask
        os.chmod(temporary, permissions)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def _names(nodes, class_node=None) -> str:
    """`nodes` as ``{class, a, b}``: the class first, then the others in order of their text."""
    ordered = sorted(nodes, key=lambda n: (n != class_node, str(n)))
    return "{" + ", ".join(map(str, ordered)) + "}"


def _classes(labels: list[str]) -> str:
    return f"class {labels[0]}" if len(labels) == 1 else f"classes {', '.join(labels)}"


def _listed(lines: list[str], limit: int = 30) -> list[str]:
    return lines if len(lines) <= limit else [*lines[:limit], f"  ... and {len(lines) - limit} more"]


def _describe_network(model: Any, graph: Any) -> list[str]:
    """Bayesian-network classifiers: arcs by kind, augmenting arcs with their weight, latent variables."""
    from .models import AODE, AnDE

    arcs: dict[str, list] = {}
    for u, v, data in graph.edges(data=True):
        arcs.setdefault(data.get("kind", "other"), []).append((u, v, data))
    latent = [(n, d) for n, d in graph.nodes(data=True) if d.get("role") == "latent"]
    n_class = len(arcs.get("class", []))
    augmenting = arcs.get("augmenting", [])
    others = sum(len(edges) for kind, edges in arcs.items() if kind not in ("class", "augmenting"))
    parts = [f"{n_class} arc{'s' if n_class != 1 else ''} from the class"]
    if augmenting:
        parts.append(f"{len(augmenting)} augmenting arc{'s' if len(augmenting) != 1 else ''} between attributes")
    if latent:
        parts.append(f"{len(latent)} latent variable{'s' if len(latent) != 1 else ''}")
    elif others:
        parts.append(f"{others} other arc{'s' if others != 1 else ''}")
    if not augmenting and not latent and not others:
        parts.append("no arcs between attributes")
    # A ChowLiu that kept TAN's shared tree is TAN: its arcs are every class's, with TAN's weights.
    shared = getattr(model, "representation_", None) == "shared"
    if shared:
        parts.append("one tree for every class (TAN's)")
    lines = ["structure: " + ", ".join(parts)]
    if isinstance(model, AODE):
        lines.append(
            "  AODE averages one-dependence estimators: each attribute in turn is a parent of all the others "
            "(--draw shows the members with the highest I(super-parent; class))"
        )
    elif isinstance(model, AnDE):
        lines.append(
            f"  AnDE averages {model.n}-dependence estimators: each set of {model.n} attributes in turn is a parent "
            "of all the others (--draw shows the members with the highest I(super-parents; class))"
        )
    rows = []
    per_class = not shared and any("classes" in data for _, _, data in augmenting)
    for u, v, data in sorted(augmenting, key=lambda e: (-e[2].get("weight", 0.0), str(e[0]), str(e[1]))):
        if per_class:
            classes = list(map(str, data.get("classes", [])))
            rows.append(f"  {u} -> {v}   in the structure{'s' if len(classes) != 1 else ''} of {_classes(classes)}")
        elif "weight" in data:
            rows.append(f"  {u} -> {v}   I = {data['weight']:.4f} nats")
        else:
            rows.append(f"  {u} -> {v}")
    if augmenting and not per_class and any("weight" in d for _, _, d in augmenting):
        lines.append("augmenting arcs (I: conditional mutual information of the two attributes given the class):")
    elif augmenting:
        lines.append("augmenting arcs:")
    lines += _listed(rows)
    for node, data in latent:
        children = ", ".join(map(str, data.get("children", graph.successors(node))))
        lines.append(f"  latent {node} = ({children}), {data.get('cardinality', '?')} states")
    return lines


def _describe_hyperforest(model: Any, forest: Any) -> list[str]:
    class_nodes = [n for n, d in forest.node_attributes.items() if d.get("role") == "class"]
    class_node = class_nodes[0] if class_nodes else None
    edges = [h for h in forest.maximal_hyperedges if len(h) > 1]
    over = "the attributes and the class" if class_node is not None else "the attributes"
    shared = " (one structure for every class)" if getattr(model, "representation_", None) == "shared" else ""
    lines = [
        f"structure: hyperforest of width {forest.width} over {over}{shared}, "
        f"{len(edges)} maximal hyperedge{'s' if len(edges) != 1 else ''} of 2 or more variables"
        + (":" if edges else "")
    ]
    rows = sorted((_names(h, class_node) for h in edges), key=lambda t: (-t.count(","), t))
    return lines + _listed([f"  {row}" for row in rows])


def _describe_hyperforests_per_class(forests: dict[Any, Any]) -> list[str]:
    """One hyperforest per class (``representation="free"``, label -> forest): each class's maximal hyperedges.

    The first :data:`~graphmodels._display.MAX_LISTED` classes are listed, as in the notebook
    display; the line after them says how many more there are.
    """
    from ._display import MAX_LISTED, plural

    width = max((forest.width for forest in forests.values()), default=0)
    lines = [
        f"structure: one hyperforest per class over the attributes (representation free), "
        f"{plural(len(forests), 'class', 'classes')}, the widest of width {width}:"
    ]
    for label, forest in list(forests.items())[:MAX_LISTED]:
        edges = [h for h in forest.maximal_hyperedges if len(h) > 1]
        lines.append(
            f"class {label}: hyperforest of width {forest.width}, "
            f"{plural(len(edges), 'maximal hyperedge')} of 2 or more variables" + (":" if edges else "")
        )
        rows = sorted((_names(h) for h in edges), key=lambda t: (-t.count(","), t))
        lines += _listed([f"  {row}" for row in rows], limit=15)
    if len(forests) > MAX_LISTED:
        lines.append(f"... and {plural(len(forests) - MAX_LISTED, 'more class', 'more classes')}")
    return lines


def _describe_undirected(graph: Any) -> list[str]:
    n = graph.number_of_edges()
    lines = [f"structure: Markov network with {n} edge{'s' if n != 1 else ''}" + (":" if n else "")]
    rows = []
    for u, v, data in sorted(graph.edges(data=True), key=lambda e: (str(e[0]), str(e[1]))):
        classes = data.get("classes")
        rows.append(f"  {u} -- {v}" + (f"   for {_classes(list(map(str, classes)))}" if classes else ""))
    return lines + _listed(rows)


def _describe_regions(model: Any, graph: Any) -> list[str]:
    class_node = getattr(model, "class_name_", None)
    maximal = [n for n in graph.nodes if graph.in_degree(n) == 0]
    lines = [
        f"structure: Kikuchi approximation with {len(maximal)} maximal region{'s' if len(maximal) != 1 else ''} "
        f"({graph.number_of_nodes()} regions with their overlaps):"
    ]
    rows = sorted((_names(region, class_node) for region in maximal), key=lambda t: (-t.count(","), t))
    return lines + _listed([f"  {row}" for row in rows])


def _describe(model: Any) -> list[str]:
    """A summary of `model`'s structure, and how its representation was chosen when it was."""
    from ._display import representation_scores, representation_scoring

    lines = _describe_structure(model)
    scores = representation_scores(model)
    if scores is not None:
        lines.append(
            f"representation: {model.representation_}, the lowest {representation_scoring(model)} log-loss on the "
            "training rows "
            f"({scores} nats per row)"
        )
    return lines


def _describe_structure(model: Any) -> list[str]:
    """A summary of `model`'s structure that fits its kind of structure."""
    import networkx as nx

    from .structures import Hyperforest, hyperforests_by_class

    structure = model.structure_
    if isinstance(structure, Hyperforest):
        return _describe_hyperforest(model, structure)
    forests = hyperforests_by_class(model)
    if forests is not None:
        return _describe_hyperforests_per_class(forests)
    if isinstance(structure, nx.DiGraph) and any("counting_number" in d for _, d in structure.nodes(data=True)):
        return _describe_regions(model, structure)
    if isinstance(structure, nx.DiGraph):
        return _describe_network(model, structure)
    if isinstance(structure, nx.Graph):
        return _describe_undirected(structure)
    return [f"structure: {type(structure).__name__}"]


# ----------------------------------------------------------------------------------------------
# commands
# ----------------------------------------------------------------------------------------------
def _cmd_datasets(args: argparse.Namespace) -> None:
    from .data import datasets

    table = datasets.describe()[["rows", "attributes", "classes", "numeric_attributes", "missing_cells"]]
    print(table.rename_axis("name").to_string())
    print("\nSources and licences: graphmodels.datasets.info(name), or graphmodels/data/bundled/LICENSES.md")


def _cmd_fit(args: argparse.Namespace) -> None:
    from .evaluation import log_loss

    model = _model(args.model, args.discretizer, args.seed, args.categorical)
    if args.draw:
        _check_output_file(args.draw, "--draw", _DRAWING_FORMATS)
    if args.save:
        _check_output_file(args.save, "--save", _MODEL_FORMATS)
    name, X, y = _load_data(args.data, args.target, args.sep)
    _check_columns(X, args)
    model.fit(X, y)
    print(
        f"{type(model).__name__} on {name}: {len(X)} rows, {X.shape[1]} attributes, "
        f"{len(model.classes_)} classes (class column {y.name!r})"
    )
    binner = getattr(model, "discretizer_", None)
    if binner is not None:
        cuts = binner.cut_points_
        bins = ", ".join(f"{c} ({len(cuts[c]) + 1} bins)" for c in binner.binned_columns_)
        print(f"discretized with {args.discretizer}: {bins}")
    log_proba = model.predict_log_proba(X)
    accuracy = float((model.classes_[log_proba.argmax(axis=1)] == y.to_numpy()).mean())
    print(
        f"on the training rows: accuracy {accuracy:.3f}, "
        f"log-loss {log_loss(y, log_proba, model.classes_, eps=1e-15):.4f} nats per row"
    )
    for line in _describe(model):
        print(line)
    if args.draw:
        _draw(model, args.draw, f"{type(model).__name__} on {name}")
        print(f"drawing saved to {args.draw}")
    if args.save:
        model.save(args.save)
        print(f"model saved to {args.save}")


def _cmd_compare(args: argparse.Namespace) -> None:
    from .evaluation import ModelFailedWarning, RepeatedStratifiedKFold, compare, failure_reason

    models = {m: _model(m, args.discretizer, args.seed, args.categorical) for m in args.models}
    if args.out:
        _check_output_directory(args.out)
    name, X, y = _load_data(args.data, args.target, args.sep)
    _check_columns(X, args)
    cv = RepeatedStratifiedKFold(n_splits=args.folds, n_repeats=args.repeats, random_state=args.seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ModelFailedWarning)  # the failures are listed under the table
        result = compare(
            models,
            {name: (X, y)},
            cv=cv,
            discretizer=None,  # each model discretizes inside its fit, so on each training fold
            verbose=False if args.quiet else None,
        )
    summary = result.summary.set_index("model")
    table = summary[["log_loss", "log_loss_std", "error", "fit_time", "predict_time", "status"]]
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
        ).to_string(float_format=lambda v: f"{v:.4f}", na_rep="-")
    )
    failed = result.failures
    for model_name, reason in zip(failed["model"], failed["failure"]):
        print(f"{model_name} failed: {reason}")
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        write_text(os.path.join(args.out, f"{name}-folds.csv"), result.results.to_csv(index=False), compress=False)
        for model_name, model in models.items():
            if summary.at[model_name, "status"] == "failed":
                continue
            try:
                model.fit(X, y)
                path = os.path.join(args.out, f"{name}-{model_name}.png")
                _draw(model, path, f"{type(model).__name__} on {name}")
            except Exception as error:  # noqa: BLE001 - one model's drawing that fails costs that drawing only
                _note(f"no drawing of {model_name}: {failure_reason(error)}")
        print(f"fold results and a drawing of each structure that completed saved in {args.out}")


def _cmd_report(args: argparse.Namespace) -> None:
    from .reporting import report

    for name in args.models or ():
        _model(name, args.discretizer)  # an unknown name fails here, before any work
    _check_output_file(args.out, "--out", _REPORT_FORMATS)
    name, X, y = _load_data(args.data, args.target, args.sep)
    _check_columns(X, args)
    result = report(
        X,
        y=y,
        models=None if args.models is None else [m.lower() for m in args.models],
        n_splits=args.folds,
        n_repeats=args.repeats,
        random_state=args.seed,
        max_rows=args.max_rows,
        discretizer=None if args.discretizer == "none" else args.discretizer,
        categorical=args.categorical,
        title=f"graphmodels report: {name}",
        progress=not args.quiet,
    )
    result.save(args.out)
    size = os.path.getsize(args.out) / 1024
    print(f"report on {name} ({len(X)} rows, {len(result.cv_summary)} models) saved to {args.out} ({size:,.0f} kB)")


def _cmd_animate(args: argparse.Namespace) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from .plotting import animate
    from .plotting.animation import REPLAYS

    model = _model(args.model, args.discretizer, args.seed, args.categorical)
    animated = tuple(cls for classes in REPLAYS for cls in classes)
    if not any(isinstance(model, cls) for cls in animated):
        from .models import CLASSIFIERS

        names = [key for key, cls in CLASSIFIERS.items() if issubclass(cls, animated)]
        raise CommandError(f"model {args.model!r} has no structure search to animate; choose from: {', '.join(names)}")
    _check_output_file(args.out, "--out", _ANIMATION_FORMATS)
    name, X, y = _load_data(args.data, args.target, args.sep)
    _check_columns(X, args)
    model.set_params(trace=True).fit(X, y)
    anim = animate(model, interval=args.interval, max_frames=args.max_frames)
    figure = anim._fig  # type: ignore[attr-defined]  # FuncAnimation keeps its figure there
    try:
        _save_animation(anim, args.out, args.dpi)
    finally:
        plt.close(figure)
    n_frames = len(anim.frames)  # type: ignore[attr-defined]
    print(
        f"{type(model).__name__} on {name}: a trace of {len(model.trace_)} steps, {n_frames} frames "
        f"({args.interval} ms each) saved to {args.out}"
    )


def _cmd_interactions(args: argparse.Namespace) -> None:
    from .stats import interaction_graph

    for option, path, formats in (
        ("--draw", args.draw, _DRAWING_FORMATS),
        ("--dendrogram", args.dendrogram, _DRAWING_FORMATS),
        ("--csv", args.csv, (".csv",)),
    ):
        if path:
            _check_output_file(path, option, formats)
    name, X, y = _load_data(args.data, args.target, args.sep)
    _check_columns(X, args)
    graph = interaction_graph(
        X.astype({column: "category" for column in args.categorical or ()}),  # kept as categories, never cut
        y,
        test=None if args.test == "none" else args.test,
        n_resamples=args.resamples,
        correction=None if args.correction == "none" else args.correction,
        alpha=args.alpha,
        triples=args.triples,
        discretizer=None if args.discretizer == "none" else args.discretizer,
        base=2 if args.bits else None,
        random_state=args.seed,
    )
    unit, target = graph.graph["unit"], graph.graph["target"]
    tested = graph.graph["test"] is not None
    print(
        f"{name}: {len(X)} rows, {X.shape[1]} attributes; H({target}) = {graph.graph['class_entropy']:.4f} {unit}. "
        f"I(A;B;{target}) = I(A;B|{target}) - I(A;B): > 0 synergy, < 0 redundancy; % of H({target})."
    )
    if tested:
        print(
            f"p: the {args.test} likelihood-ratio test against the model built from the 2-way tables (Jakulin & "
            f"Bratko 2004); adjusted: {args.correction} within each table, significant at adjusted p <= {args.alpha}."
        )

    def shown(frame, columns, names):
        table = frame[columns].rename(columns=names).copy()
        table[f"% of H({target})"] = [f"{100 * v:+.1f}%" for v in frame["share"]]
        return table

    names = {"mutual_information": f"I(A;{target})", "interaction": "I", "p_value": "p", "adjusted_p_value": "adjusted"}
    tests = ["p_value", "adjusted_p_value"] if tested else []
    attributes = graph.graph["attributes"].head(args.top)
    print(f"\nInformation about {target!r} (the {len(attributes)} highest of {X.shape[1]}):")
    print(
        shown(attributes, ["attribute", "mutual_information", *tests], names).to_string(index=False, float_format=_fmt)
    )
    pairs = graph.graph["pairs"]
    for kind, chosen in (
        ("synergies", pairs[pairs["interaction"] > 0].head(args.top)),
        ("redundancies", pairs[pairs["interaction"] < 0].head(args.top)),
    ):
        print(f"\nStrongest {kind} ({len(chosen)} of {len(pairs)} pairs):")
        if len(chosen):
            print(shown(chosen, ["a", "b", "interaction", *tests], names).to_string(index=False, float_format=_fmt))
    if args.triples:
        triples = graph.graph["triples"]
        order = triples["interaction"].abs().sort_values(ascending=False).index[: args.top]
        print(f"\nStrongest triples of attributes, I(A;B;D) without the class ({len(triples)} triples):")
        columns = ["a", "b", "c", "interaction", *tests]
        print(triples.loc[order, columns].rename(columns=names).to_string(index=False, float_format=_fmt))
    if args.csv:
        write_text(args.csv, pairs.to_csv(index=False), compress=False)
        print(f"\nevery pair saved to {args.csv}")
    for path, what in ((args.draw, "graph"), (args.dendrogram, "dendrogram")):
        if path:
            _draw_interactions(graph, path, what, name, args.top)
            print(f"interaction {what} saved to {path}")


def _fmt(value: float) -> str:
    return f"{value:.3g}" if abs(value) < 1e-3 and value != 0 else f"{value:.4f}"


def _draw_interactions(graph: Any, path: str, what: str, name: str, top: int) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from .plotting import draw_interaction_dendrogram, draw_interaction_graph

    if what == "graph":
        ax = draw_interaction_graph(graph, top=top, title=f"Interactions with {graph.graph['target']!r} in {name}")
    else:
        ax = draw_interaction_dendrogram(graph, title=f"Interaction dendrogram of {name}")
    figure: Any = ax.figure
    try:
        with atomic_write(path, "wb") as handle:
            figure.savefig(handle, format=os.path.splitext(path)[1][1:].lower(), dpi=150, bbox_inches="tight")
    finally:
        plt.close(figure)


# ----------------------------------------------------------------------------------------------
# parser
# ----------------------------------------------------------------------------------------------
class _Parser(argparse.ArgumentParser):
    """argparse, with a usage error in one line that points to ``--help``."""

    def error(self, message: str) -> Any:  # argparse types it NoReturn; it exits
        self.exit(2, f"{self.prog}: error: {message} (see '{self.prog} --help')\n")


def _int_at_least(minimum: int):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = minimum - 1
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be an integer >= {minimum}, got {text!r}")
        return value

    return parse


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("graphmodels")
    except PackageNotFoundError:
        return "unknown (not installed)"


def _add_data_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("data", help="a CSV file (optionally .gz, .bz2, .xz or .zip) or a bundled data set name")
    parser.add_argument(
        "--target",
        "--class-column",
        dest="target",
        metavar="NAME",
        default=None,
        help="the class column (default: the column named 'class'; without one, an error lists the columns); "
        "--class-column is an older name of this option",
    )
    parser.add_argument(
        "--sep",
        metavar="CHAR",
        type=_separator,
        default=None,
        help="the CSV delimiter, one character or 'tab' (default: ','; when that gives a single column, "
        "';', tab or '|' is detected and named on stderr)",
    )
    parser.add_argument(
        "--discretizer",
        default="mdl",
        choices=["mdl", "equal-frequency", "none"],
        help="how the model bins numeric columns with more than 10 distinct values, fitted on training rows "
        "only and saved with it: Fayyad & Irani's MDL cut points (default), 5 equal-frequency bins, or none "
        "(every value a category)",
    )
    parser.add_argument(
        "--categorical",
        nargs="+",
        metavar="COLUMN",
        default=None,
        help="columns kept as categories, never cut into intervals, whatever their type (integer codes of "
        "categories); a note on stderr names the integer columns that are cut",
    )


def _add_model_seed_option(parser: argparse.ArgumentParser) -> None:
    """``--seed`` of ``fit`` and ``animate``: the model's own random numbers, so that a run repeats."""
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        help="seed of the model's random numbers, e.g. hnb's inner folds (default: 0)",
    )


def _add_cv_options(parser: argparse.ArgumentParser, models: Sequence[str] | None, default: str, repeats: int) -> None:
    """``--models``, ``--folds``, ``--repeats`` and ``--seed``, shared by ``compare`` and ``report``."""
    from .models import CLASSIFIERS

    parser.add_argument(
        "--models",
        nargs="+",
        metavar="NAME",
        default=None if models is None else list(models),
        help=f"the models to compare, among {', '.join(CLASSIFIERS)} (default: {default})",
    )
    parser.add_argument("--folds", type=_int_at_least(2), default=5, help="folds per repetition (default: 5)")
    parser.add_argument(
        "--repeats", type=_int_at_least(1), default=repeats, help=f"repetitions with new folds (default: {repeats})"
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        help="seed of the folds and of every model that draws random numbers (default: 0)",
    )


def _parser() -> argparse.ArgumentParser:
    from .models import CLASSIFIERS
    from .reporting import DEFAULT_MODELS, KIKUCHI_MAX_ATTRIBUTES

    parser = _Parser(
        prog="graphmodels",
        description="Learn, draw and compare Bayesian-network and Markov-network classifiers on a CSV file "
        "or a bundled data set.",
        epilog="Errors are reported in one line on stderr with exit status 2.",
    )
    parser.add_argument(
        "--version", action="version", version=f"graphmodels {_version()}", help="print the version and exit"
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True, help="the command, one of:")

    commands.add_parser("datasets", help="list the bundled data sets", description="List the bundled data sets.")

    fit = commands.add_parser(
        "fit",
        help="fit one model on a data set, print and draw its structure",
        description="Fit one model on all rows, print a summary of its structure, and optionally draw and save it.",
    )
    _add_data_options(fit)
    _add_model_seed_option(fit)
    fit.add_argument(
        "--model", default="tan", metavar="NAME", help=f"the model: one of {', '.join(CLASSIFIERS)} (default: tan)"
    )
    fit.add_argument("--draw", metavar="FILE", help=f"save a drawing of the structure ({_either(_DRAWING_FORMATS)})")
    fit.add_argument(
        "--save",
        metavar="FILE",
        help=f"save the fitted model ({_either(_MODEL_FORMATS)}; read it back with graphmodels.load_model)",
    )

    cmp_ = commands.add_parser(
        "compare",
        help="cross-validate classifiers on a data set",
        description="Cross-validate classifiers on one data set (every model on the same stratified folds) and "
        "print the mean log-loss, error and times. Progress goes to stderr when it is a terminal.",
    )
    _add_data_options(cmp_)
    _add_cv_options(cmp_, list(CLASSIFIERS), "all", repeats=5)
    cmp_.add_argument("--out", metavar="DIR", help="save per-fold results and a drawing of each structure here")
    cmp_.add_argument("--quiet", action="store_true", help="no progress on stderr")

    rep = commands.add_parser(
        "report",
        help="write a readable HTML report on a data set and its models",
        description="Write one self-contained HTML page (figures as inline SVG, no script, nothing fetched): "
        "the data summary with the discretization, the pairwise and class-conditional mutual information, "
        "each model's cross-validated log-loss, error and time, the drawing of each learned structure, and "
        "the strongest interactions found by TAN, the hyperforest and Kikuchi-Bayes. Progress goes to stderr.",
    )
    _add_data_options(rep)
    rep.add_argument(
        "--out",
        metavar="FILE",
        required=True,
        help=f"the page to write ({_either(_REPORT_FORMATS)}); its directory is checked before the run",
    )
    _add_cv_options(
        rep,
        None,
        f"{' '.join(DEFAULT_MODELS)}; kikuchi-bayes left out beyond {KIKUCHI_MAX_ATTRIBUTES} attributes",
        repeats=1,
    )
    rep.add_argument(
        "--max-rows",
        type=_int_at_least(2),
        default=None,
        metavar="N",
        help="use a sample of at most N rows, stratified by class (default: every row); the page says so",
    )
    rep.add_argument("--quiet", action="store_true", help="no progress on stderr")

    ani = commands.add_parser(
        "animate",
        help="animate a model's structure search as a GIF",
        description="Fit one model with trace=True and save its structure search, one frame per step and a "
        "last frame with the final structure, as an animated GIF (graphmodels.plotting.animate).",
    )
    _add_data_options(ani)
    _add_model_seed_option(ani)
    ani.add_argument(
        "--model",
        default="tan",
        metavar="NAME",
        help="a model with a structure search, e.g. tan (default), fan, kdb, chow-liu, hyperforest, kikuchi-bayes, hnb",
    )
    ani.add_argument("--out", metavar="FILE", required=True, help="the GIF to write; its directory is checked first")
    ani.add_argument("--interval", type=_int_at_least(1), default=800, metavar="MS", help="ms per frame (default: 800)")
    ani.add_argument(
        "--max-frames",
        type=_int_at_least(2),
        default=200,
        metavar="N",
        help="the most frames; a longer search leaves out rejected steps first (default: 200)",
    )
    ani.add_argument("--dpi", type=_int_at_least(10), default=80, help="resolution of the GIF (default: 80)")

    inter = commands.add_parser(
        "interactions",
        help="which attributes interact with the class: synergy, redundancy, significance",
        description="Jakulin & Bratko's interaction analysis (graphmodels.interaction_graph): the information of "
        "each attribute about the class, the interaction information I(A;B;class) of every pair (> 0 synergy, "
        "< 0 redundancy) as a share of the class entropy, each with a P-value corrected for multiple testing; "
        "optionally every triple of attributes, and the interaction graph and dendrogram as figures.",
    )
    _add_data_options(inter)
    inter.add_argument("--top", type=_int_at_least(1), default=10, metavar="N", help="rows of each table (default: 10)")
    inter.add_argument(
        "--test",
        default="asymptotic",
        choices=["asymptotic", "bootstrap", "none"],
        help="the significance test: the chi-squared limit (default), the parametric bootstrap, or none",
    )
    inter.add_argument("--resamples", type=_int_at_least(1), default=200, help="bootstrap tables (default: 200)")
    inter.add_argument(
        "--correction",
        default="fdr_bh",
        choices=["fdr_bh", "holm", "bonferroni", "none"],
        help="multiple-testing correction (default: fdr_bh, Benjamini-Hochberg)",
    )
    inter.add_argument("--alpha", type=float, default=0.05, help="level of the adjusted P-values (default: 0.05)")
    inter.add_argument("--triples", action="store_true", help="also every triple of attributes, I(A;B;D)")
    inter.add_argument("--bits", action="store_true", help="information in bits (default: nats)")
    inter.add_argument("--seed", type=int, default=0, help="seed of the bootstrap (default: 0)")
    inter.add_argument("--draw", metavar="FILE", help=f"save the interaction graph ({_either(_DRAWING_FORMATS)})")
    inter.add_argument("--dendrogram", metavar="FILE", help="save the interaction dendrogram")
    inter.add_argument("--csv", metavar="FILE", help="save every pair with its measures (.csv)")
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
        0 on success (``--help`` and ``--version`` included); 2 for a usage
        or data error, reported in one line on stderr; 1 when stdout is
        closed before the output is written; 130 when interrupted.
    """
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as done:  # --help, --version, or a usage error already written
        return done.code if isinstance(done.code, int) else (0 if done.code is None else 2)
    handlers = {
        "datasets": _cmd_datasets,
        "fit": _cmd_fit,
        "compare": _cmd_compare,
        "report": _cmd_report,
        "animate": _cmd_animate,
        "interactions": _cmd_interactions,
    }
    with warnings.catch_warnings():
        warnings.showwarning = _show_warning
        try:
            handlers[args.command](args)
        except BrokenPipeError:  # the reader of stdout went away (`graphmodels datasets | head`)
            with contextlib.suppress(OSError, ValueError, AttributeError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
            return 1
        except (CommandError, ValueError, TypeError, OSError) as error:
            message = " ".join(str(error).strip().splitlines())
            print(f"graphmodels: error: {message}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            print("graphmodels: interrupted", file=sys.stderr)
            return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
