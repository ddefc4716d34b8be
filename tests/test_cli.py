"""The `graphmodels` command."""

import argparse
import gzip
import importlib
import io
import os
import re
import shlex
import sys
from importlib.metadata import version
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import graphmodels as gm
from graphmodels import cli
from graphmodels.cli import _describe, main
from graphmodels.models import CLASSIFIERS

compare_module = importlib.import_module("graphmodels.evaluation.compare")
README = Path(__file__).resolve().parents[1] / "README.md"


def _frame(n=60, seed=0):
    """Three categorical attributes that track the class `target`, a numeric one, a column last."""
    rng = np.random.default_rng(seed)
    target = rng.choice(["yes", "no"], size=n)
    noisy = lambda p: np.where(rng.random(n) < p, target, rng.choice(["yes", "no"], size=n))  # noqa: E731
    return pd.DataFrame(
        {
            "a b": noisy(0.8),
            "#": noisy(0.7),
            "c": noisy(0.6),
            "dose": np.round(np.where(target == "yes", 5.0, 3.0) + rng.normal(0, 1, n), 2),
            "target": target,
            "last": rng.choice(list("pq"), size=n),
        }
    )


@pytest.fixture
def csv_path(tmp_path):
    path = tmp_path / "data.csv"
    _frame().to_csv(path, index=False)
    return path


def _one_line_error(capsys, code, *fragments):
    captured = capsys.readouterr()
    assert code == 2
    assert captured.err.count("\n") == 1 and captured.err.startswith("graphmodels"), captured.err
    assert "Traceback" not in captured.err
    for fragment in fragments:
        assert fragment in captured.err, captured.err
    return captured.err


def test_datasets_lists_bundled_sets(capsys):
    assert main(["datasets"]) == 0
    out = capsys.readouterr().out
    assert "tic-tac-toe" in out and "monk1" in out


def test_compare_prints_a_table_and_saves_drawings(tmp_path, capsys):
    code = main(
        [
            "compare",
            "lenses",
            "--models",
            "nb",
            "tan",
            "--folds",
            "3",
            "--repeats",
            "1",
            "--quiet",
            "--out",
            str(tmp_path),
        ]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "log-loss" in out and "nb" in out and "tan" in out
    assert (tmp_path / "lenses-nb.png").stat().st_size > 0
    assert (tmp_path / "lenses-tan.png").stat().st_size > 0
    folds = pd.read_csv(tmp_path / "lenses-folds.csv")
    assert len(folds) == 6


def test_fit_a_csv_file_draws_and_saves(tmp_path, capsys):
    frame = pd.DataFrame({"a b": list("xxyyxy") * 5, "#": list("pqpqqp") * 5, "target": list("110010") * 5})
    path = tmp_path / "data.csv"
    frame.to_csv(path, index=False)
    png, model = tmp_path / "tan.png", tmp_path / "model.json"
    assert (
        main(["fit", str(path), "--class-column", "target", "--model", "tan", "--draw", str(png), "--save", str(model)])
        == 0
    )
    assert png.stat().st_size > 0 and model.stat().st_size > 0
    assert "TAN on data" in capsys.readouterr().out


# ----------------------------------------------------------------------------------------------
# every model: fit, draw, save, load, predict
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", list(CLASSIFIERS))
def test_every_model_fits_draws_and_saves_and_the_saved_model_predicts(name, csv_path, tmp_path, capsys):
    png, saved, npz = tmp_path / f"{name}.png", tmp_path / f"{name}.json", tmp_path / f"{name}.npz"
    argv = ["fit", str(csv_path), "--target", "target", "--model", name]
    assert main([*argv, "--draw", str(png), "--save", str(saved)]) == 0
    captured = capsys.readouterr()
    assert png.stat().st_size > 0 and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    out = captured.out
    assert f"{type(CLASSIFIERS[name]()).__name__} on data: 60 rows, 5 attributes, 2 classes" in out
    assert "0 augmenting" not in out and "structure:" in out
    # The model cut the numeric `dose` with MDL inside fit, and keeps the cut points.
    assert "discretized with mdl: dose (" in out
    frame = _frame()
    X, y = frame.drop(columns="target"), frame["target"]
    accuracy = float(re.search(r"accuracy (\d\.\d{3})", out).group(1))
    for path in (saved, npz):
        if path == npz and name == "nb":  # the CLI saves .npz as .json (model.save picks the format): once
            assert main([*argv, "--save", str(npz)]) == 0
        elif path == npz:  # the fitted model in the other format, without a second fit
            gm.load_model(saved).save(npz)
        loaded = gm.load_model(path)
        assert type(loaded) is CLASSIFIERS[name]
        assert list(loaded.discretizer_.binned_columns_) == ["dose"]
        predicted = loaded.predict(X)  # raw rows: the saved model cuts `dose` itself
        assert set(predicted) <= {"yes", "no"}
        assert np.mean(predicted == y.to_numpy()) == pytest.approx(accuracy, abs=5e-4)


@pytest.mark.parametrize("discretizer", ["equal-frequency", "none"])
def test_the_discretizer_option_reaches_the_model(discretizer, csv_path, tmp_path, capsys):
    saved = tmp_path / "nb.json"
    argv = ["fit", str(csv_path), "--target", "target", "--model", "nb", "--discretizer", discretizer]
    assert main([*argv, "--save", str(saved)]) == 0
    out = capsys.readouterr().out
    loaded = gm.load_model(saved)
    assert loaded.discretizer == (None if discretizer == "none" else discretizer)
    if discretizer == "none":  # every value of `dose` is a state of its own
        assert "discretized" not in out and loaded.discretizer_ is None
        assert len(loaded.encoder_.levels_[list(loaded.feature_names_in_).index("dose")]) > 20
    else:
        assert "discretized with equal-frequency: dose (5 bins)" in out


def test_integer_columns_cut_are_noted_and_categorical_keeps_them(tmp_path, capsys):
    rng = np.random.default_rng(0)
    code = rng.integers(0, 30, 200)
    path = tmp_path / "codes.csv"
    pd.DataFrame({"code": code, "class": np.where(rng.random(200) < 0.9, code % 2, 1 - code % 2)}).to_csv(
        path, index=False
    )
    argv = ["fit", str(path), "--model", "nb"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert "note: the integer column(s) 'code' are cut into intervals" in captured.err
    assert "--categorical code" in captured.err
    assert main([*argv, "--categorical", "code", "--save", str(tmp_path / "nb.json")]) == 0
    captured = capsys.readouterr()
    assert "'code'" not in captured.err and "discretized" not in captured.out.split("code")[0]
    assert gm.load_model(tmp_path / "nb.json").get_params()["categorical"] == ["code"]
    _one_line_error(capsys, main([*argv, "--categorical", "nope"]), "--categorical: no column named 'nope'")


@pytest.mark.parametrize("extension", [".png", ".pdf", ".svg"])
def test_draw_formats(extension, tmp_path, capsys):
    path = tmp_path / f"nb{extension}"
    assert main(["fit", "lenses", "--model", "nb", "--draw", str(path)]) == 0
    head = path.read_bytes()[:5]
    assert head == {".png": b"\x89PNG\r", ".pdf": b"%PDF-", ".svg": b"<?xml"}[extension]


# ----------------------------------------------------------------------------------------------
# the summary of `fit` suits the model
# ----------------------------------------------------------------------------------------------
def _fit_output(capsys, *argv):
    assert main(["fit", *argv]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("name", ["nb", "aode", "ande"])
def test_fit_summary_without_arcs_between_attributes(name, capsys):
    out = _fit_output(capsys, "lenses", "--model", name)
    assert "structure: 4 arcs from the class, no arcs between attributes" in out
    assert "augmenting" not in out
    assert ("each attribute in turn is a parent" in out) == (name == "aode")
    assert ("each set of 2 attributes in turn is a parent" in out) == (name == "ande")


@pytest.mark.parametrize("name", ["tan", "kdb"])
def test_fit_summary_lists_augmenting_arcs_with_their_weight(name, capsys):
    out = _fit_output(capsys, "car", "--model", name)
    # car has 6 attributes: TAN's tree (and KDB with k=1) has 5 arcs between them.
    assert "structure: 6 arcs from the class, 5 augmenting arcs between attributes" in out
    arcs = re.findall(r"^  (\S+) -> (\S+)   I = (\d\.\d{4}) nats$", out, flags=re.M)
    assert len(arcs) == 5
    weights = [float(w) for _, _, w in arcs]
    assert weights == sorted(weights, reverse=True)
    model = CLASSIFIERS[name]().fit(*_xy("car"))
    expected = {(u, v) for u, v, d in model.structure_.edges(data=True) if d["kind"] == "augmenting"}
    assert {(u, v) for u, v, _ in arcs} == expected


def _xy(name):
    frame = gm.datasets.load(name)
    return frame.drop(columns="class"), frame["class"]


def test_fit_summary_of_the_other_structures(capsys):
    out = _fit_output(capsys, "car", "--model", "hyperforest")
    model = CLASSIFIERS["hyperforest"]().fit(*_xy("car"))
    # car: the representation chosen is one hyperforest shared by the classes, and the summary says why.
    assert model.representation_ == "shared"
    assert "(one structure for every class)" in out
    scores = model.representation_selection_.set_index("representation")["log_loss"]
    assert (
        "representation: shared, the lowest leave-one-out log-loss on the training rows "
        f"(free {scores['free']:.4f}, shared {scores['shared']:.4f} nats per row)" in out
    )
    # tic-tac-toe: one hyperforest per class, each listed under its class.
    out = _fit_output(capsys, "tic-tac-toe", "--model", "hyperforest")
    model = CLASSIFIERS["hyperforest"]().fit(*_xy("tic-tac-toe"))
    assert model.representation_ == "free"
    widest = max(forest.width for forest in model.structures_)
    assert "structure: one hyperforest per class over the attributes (representation free), 2 classes, " in out
    assert f"the widest of width {widest}:\n" in out
    blocks = re.split(r"^class ", out.split("the widest of width")[1], flags=re.M)[1:]
    assert len(blocks) == len(model.classes_)
    for label, forest, block in zip(model.classes_, model.structures_, blocks):
        maximal = [h for h in forest.maximal_hyperedges if len(h) > 1]
        s = "s" if len(maximal) != 1 else ""
        assert block.startswith(f"{label}: hyperforest of width {forest.width}, {len(maximal)} maximal hyperedge{s} ")
        assert re.findall(r"^  (\{.*\})$", block, flags=re.M) == sorted(
            ("{" + ", ".join(sorted(h)) + "}" for h in maximal), key=lambda t: (-t.count(","), t)
        )
    out = _fit_output(capsys, "car", "--model", "kikuchi-bayes")
    assert re.search(r"structure: Kikuchi approximation with \d+ maximal regions", out)
    assert "  {class, buying, maint}" in out
    out = _fit_output(capsys, "car", "--model", "hnb")
    assert re.search(r"^  latent L1 = \(\w+, \w+\), \d+ states$", out, flags=re.M)
    out = _fit_output(capsys, "car", "--model", "chow-liu")  # it keeps TAN's tree on car: TAN's summary
    assert "augmenting arcs between attributes, one tree for every class (TAN's)" in out
    assert re.search(r"^  \w+ -> \w+   I = \d\.\d{4} nats$", out, flags=re.M) and "in the structure" not in out
    out = _fit_output(capsys, "voting", "--model", "chow-liu")  # a tree per class on voting: each arc's classes
    assert re.search(r"^  [\w-]+ -> [\w-]+   in the structures? of class(es)? [\w, ]+$", out, flags=re.M)


class _PerClass:
    """The fitted attributes of HyperforestClassifier(representation="free") that the summary reads."""

    def __init__(self, forests):
        import networkx as nx

        self.classes_ = np.array([f"c{i}" for i in range(len(forests))], dtype=object)
        self.structures_ = forests
        self.structure_ = nx.Graph()


@pytest.mark.parametrize(
    "n_classes, header, last",
    [
        (1, "1 class, the widest of width 1:", "  {a, b}"),
        (8, "8 classes, the widest of width 1:", "  {a, b}"),
        (9, "9 classes, the widest of width 1:", "... and 1 more class"),
        (12, "12 classes, the widest of width 1:", "... and 4 more classes"),
    ],
)
def test_summary_of_hyperforests_per_class_lists_at_most_max_listed_classes(n_classes, header, last):
    # As the notebook display: the first MAX_LISTED (8) classes, then how many more; plurals right.
    forests = [gm.structures.Hyperforest([("a", "b")], "abc") for _ in range(n_classes)]
    lines = _describe(_PerClass(forests))
    assert lines[0] == f"structure: one hyperforest per class over the attributes (representation free), {header}"
    listed = [line for line in lines if line.startswith("class ")]
    assert listed == [
        f"class c{i}: hyperforest of width 1, 1 maximal hyperedge of 2 or more variables:"
        for i in range(min(n_classes, 8))
    ]
    assert lines[-1] == last and len(lines) == 1 + 2 * min(n_classes, 8) + (n_classes > 8)


def test_summary_of_hyperforests_per_class_counts_independent_classes():
    forests = [gm.structures.Hyperforest([], "ab"), gm.structures.Hyperforest([("a", "b", "c"), ("c", "d")])]
    lines = _describe(_PerClass(forests))
    assert lines == [
        "structure: one hyperforest per class over the attributes (representation free), 2 classes, the widest of width 2:",
        "class c0: hyperforest of width 0, 0 maximal hyperedges of 2 or more variables",
        "class c1: hyperforest of width 2, 2 maximal hyperedges of 2 or more variables:",
        "  {a, b, c}",
        "  {c, d}",
    ]


@pytest.mark.parametrize("representation", ["joint", "shared"])
def test_summary_of_one_hyperforest_lists_its_maximal_hyperedges(representation):
    model = gm.HyperforestClassifier(representation=representation).fit(*_xy("car"))
    lines = _describe(model)
    maximal = [h for h in model.structure_.maximal_hyperedges if len(h) > 1]
    over = (
        "the attributes and the class"
        if representation == "joint"
        else "the attributes (one structure for every class)"
    )
    assert lines[0].startswith(f"structure: hyperforest of width {model.structure_.width} over {over}, ")
    assert f"{len(maximal)} maximal hyperedges of 2 or more variables" in lines[0]
    assert len(lines) == 1 + len(maximal)
    for hyperedge in maximal:
        shown = sorted(hyperedge, key=lambda n: (n != "class", str(n)))
        assert "  {" + ", ".join(shown) + "}" in lines


def test_fit_reports_training_accuracy_and_log_loss(capsys):
    out = _fit_output(capsys, "lenses", "--model", "nb")
    X, y = _xy("lenses")
    model = gm.NaiveBayes().fit(X, y)
    expected = -np.mean(np.log(model.predict_proba(X)[np.arange(len(y)), model.classes_.searchsorted(y)]))
    assert f"accuracy {model.score(X, y):.3f}, log-loss {expected:.4f} nats per row" in out


# ----------------------------------------------------------------------------------------------
# the class column, dropped rows
# ----------------------------------------------------------------------------------------------
def test_no_class_column_and_no_target_is_an_error_listing_the_columns(csv_path, capsys):
    err = _one_line_error(capsys, main(["fit", str(csv_path)]), "has no column named 'class'", "--target NAME")
    assert "columns: a b, #, c, dose, target, last" in err
    assert "perhaps --target 'target'" in err


def test_the_column_named_class_is_used_not_the_last_one(tmp_path, capsys):
    path = tmp_path / "data.csv"
    _frame().rename(columns={"target": "class"}).to_csv(path, index=False)
    out = _fit_output(capsys, str(path), "--model", "nb")
    assert "5 attributes, 2 classes (class column 'class')" in out


@pytest.mark.parametrize("option", ["--target", "--class-column"])
def test_target_and_its_older_name(option, csv_path, capsys):
    out = _fit_output(capsys, str(csv_path), option, "last", "--model", "nb")
    assert "(class column 'last')" in out
    err = _one_line_error(capsys, main(["fit", str(csv_path), option, "Dose"]), "class column 'Dose' not found")
    assert "(did you mean 'dose'?)" in err and "columns: a b, #, c, dose, target, last" in err


def test_rows_with_a_missing_class_are_dropped_and_counted(tmp_path, capsys):
    frame = _frame()
    frame.loc[[3, 17, 40], "target"] = np.nan
    path = tmp_path / "data.csv"
    frame.to_csv(path, index=False)
    assert main(["fit", str(path), "--target", "target", "--model", "nb"]) == 0
    captured = capsys.readouterr()
    assert "graphmodels: note: dropped 3 of 60 rows of 'data' whose class 'target' is empty" in captured.err
    assert "57 rows" in captured.out
    frame["target"] = np.nan
    frame.to_csv(path, index=False)
    _one_line_error(capsys, main(["fit", str(path), "--target", "target"]), "every row", "empty class column")


# ----------------------------------------------------------------------------------------------
# delimiters
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("sep,compressed", [(";", False), ("\t", False), ("|", False), (";", True)])
def test_a_file_that_reads_as_one_column_is_sniffed_and_the_delimiter_named(sep, compressed, tmp_path, capsys):
    text = _frame().to_csv(index=False, sep=sep)
    path = tmp_path / ("data.csv.gz" if compressed else "data.csv")
    if compressed:
        with gzip.open(path, "wt") as handle:
            handle.write(text)
    else:
        path.write_text(text)
    assert main(["fit", str(path), "--target", "target", "--model", "nb"]) == 0
    captured = capsys.readouterr()
    assert "60 rows, 5 attributes, 2 classes" in captured.out
    name = {";": "';'", "\t": "tab", "|": "'|'"}[sep]
    assert f"note: read '{path}' as {name}-separated: commas give a single column" in captured.err
    # The delimiter given explicitly: no note.
    given = "tab" if sep == "\t" else sep
    assert main(["fit", str(path), "--target", "target", "--model", "nb", "--sep", given]) == 0
    assert "note: read" not in capsys.readouterr().err


@pytest.mark.parametrize("compression", ["gzip", "bzip2", "xz"])
def test_a_truncated_or_corrupt_compressed_csv_is_one_line_and_exit_code_2(compression, tmp_path, capsys):
    import bz2
    import lzma

    data = _frame().to_csv(index=False).encode()
    suffix, packed = {
        "gzip": (".gz", gzip.compress(data)[:-20]),  # truncated: EOFError from the gzip stream
        "bzip2": (".bz2", bz2.compress(data)[:-20]),  # truncated: EOFError
        "xz": (".xz", lzma.compress(data)),
    }[compression]
    if compression == "xz":  # one flipped byte inside the stream: lzma.LZMAError
        packed = packed[:40] + bytes([packed[40] ^ 0xFF]) + packed[41:]
    path = tmp_path / f"data.csv{suffix}"
    path.write_bytes(packed)
    _one_line_error(
        capsys,
        main(["fit", str(path), "--target", "target", "--model", "nb"]),
        f"cannot read '{path}': it is a truncated or corrupt {compression} file",
    )


def test_a_wrong_sep_or_a_single_column_file_gets_a_hint(tmp_path, capsys):
    path = tmp_path / "data.csv"
    _frame().to_csv(path, index=False, sep=";")
    _one_line_error(
        capsys,
        main(["fit", str(path), "--target", "target", "--sep", ","]),
        "only one column was read from",
        "it looks separated by ';': use --sep ';'",
    )
    single = tmp_path / "single.csv"
    single.write_text("class\na\nb\na\n")
    _one_line_error(capsys, main(["fit", str(single)]), "only one column was read", "give it with --sep")
    _one_line_error(capsys, main(["fit", "lenses", "--sep", "ab"]), "argument --sep: must be one character")


# ----------------------------------------------------------------------------------------------
# output paths are checked before the run
# ----------------------------------------------------------------------------------------------
@pytest.fixture
def no_run(monkeypatch):
    """Fail the test if the data are read: the checks must come first."""

    def fail(*args, **kwargs):
        raise AssertionError("the data were read before the output paths were checked")

    monkeypatch.setattr(cli, "_load_data", fail)


@pytest.mark.parametrize(
    "argv,message",
    [
        (["fit", "car", "--draw", "{tmp}/x.jpg"], "--draw '{tmp}/x.jpg': the file name must end in .png, .pdf or .svg"),
        (["fit", "car", "--save", "{tmp}/m.pkl"], "--save '{tmp}/m.pkl': the file name must end in .json or .npz"),
        (["fit", "car", "--save", "{tmp}/no/m.json"], "directory '{tmp}/no' does not exist"),
        (["fit", "car", "--draw", "{tmp}/no/x.png"], "directory '{tmp}/no' does not exist"),
        (["fit", "car", "--save", "{tmp}/dir.json"], "--save '{tmp}/dir.json' is a directory"),
        (["compare", "car", "--out", "{tmp}/no/out"], "--out '{tmp}/no/out': directory '{tmp}/no' does not exist"),
        (["compare", "car", "--out", "{tmp}/file.txt"], "--out '{tmp}/file.txt' exists and is not a directory"),
        (["fit", "car", "--model", "svm"], "unknown model 'svm'"),
        (["compare", "car", "--models", "nb", "forest"], "unknown model 'forest'"),
    ],
)
def test_outputs_and_models_are_checked_before_the_run(argv, message, tmp_path, capsys, no_run):
    (tmp_path / "dir.json").mkdir()
    (tmp_path / "file.txt").write_text("")
    argv = [a.replace("{tmp}", str(tmp_path)) for a in argv]
    _one_line_error(capsys, main(argv), message.replace("{tmp}", str(tmp_path)))


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root may write anywhere")
def test_an_unwritable_directory_is_reported_before_the_run(tmp_path, capsys, no_run):
    locked = tmp_path / "locked"
    locked.mkdir()
    locked.chmod(0o500)
    try:
        _one_line_error(capsys, main(["fit", "car", "--save", str(locked / "m.json")]), "is not writable")
        _one_line_error(capsys, main(["compare", "car", "--out", str(locked)]), "is not writable")
    finally:
        locked.chmod(0o700)


def test_compare_out_may_be_a_new_directory(tmp_path, capsys):
    out = tmp_path / "new"
    assert main(["compare", "lenses", "--models", "nb", "--folds", "2", "--repeats", "1", "--out", str(out)]) == 0
    assert (out / "lenses-nb.png").exists()


# ----------------------------------------------------------------------------------------------
# errors, version, help
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "argv,message",
    [
        (["fit", "no-such-set"], "unknown data set"),
        (["fit", "missing/file.csv"], "file not found"),
        (["fit", "car", "--class-column", "nope"], "class column 'nope' not found"),
        (["fit", "car", "--target", "nope"], "class column 'nope' not found"),
        (["fit", "car", "--model", "svm"], "unknown model 'svm'"),
        (["compare", "car", "--models", "nb", "forest"], "unknown model 'forest'"),
        (["compare", "car", "--folds", "1"], "argument --folds: must be an integer >= 2, got '1'"),
        (["compare", "car", "--repeats", "x"], "argument --repeats: must be an integer >= 1, got 'x'"),
        (["fit", "car", "--discretizer", "magic"], "argument --discretizer: invalid choice: 'magic'"),
        (["fit", "car", "--bogus"], "unrecognized arguments: --bogus"),
        (["fit"], "the following arguments are required: data"),
        ([], "the following arguments are required: COMMAND"),
        (["fit", "."], "'.' is a directory"),
    ],
)
def test_clear_errors(argv, message, capsys):
    _one_line_error(capsys, main(argv), message)


def test_a_header_only_file_is_a_clear_error(tmp_path, capsys):
    path = tmp_path / "empty.csv"
    path.write_text("a,b,class\n")
    _one_line_error(capsys, main(["fit", str(path)]), "has a header but no rows")
    path.write_text("")
    _one_line_error(capsys, main(["fit", str(path)]), "cannot read")


def test_version(capsys):
    assert main(["--version"]) == 0
    out = capsys.readouterr().out.strip()
    assert out == f"graphmodels {version('graphmodels')}"
    assert out == f"graphmodels {gm.__version__}"


def _actions(parser, path="graphmodels"):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                yield f"{path} {choice.dest}", choice
            for name, sub in action.choices.items():
                yield from _actions(sub, f"{path} {name}")
        yield f"{path} {'/'.join(action.option_strings) or action.dest}", action


def test_every_option_of_every_command_has_help():
    actions = list(_actions(cli._parser()))
    assert len(actions) > 20
    missing = [name for name, action in actions if not (action.help or "").strip()]
    assert not missing, f"options without help: {missing}"
    names = {name for name, _ in actions}
    assert {"graphmodels fit --target/--class-column", "graphmodels compare --quiet", "graphmodels --version"} <= names


@pytest.mark.parametrize("command", ["", "datasets", "fit", "compare"])
def test_help_exits_zero(command, capsys):
    assert main([command, "--help"] if command else ["--help"]) == 0
    assert "usage: graphmodels" in capsys.readouterr().out


def test_readme_command_lines_parse():
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## Command line") :].split("```")[1]
    lines = [line.split("#")[0].strip() for line in section.splitlines() if line.startswith("graphmodels")]
    assert len(lines) >= 5
    parser = cli._parser()
    for line in lines:
        argv = shlex.split(line)[1:]
        if argv == ["--version"]:
            continue
        args = parser.parse_args(argv)
        for name in getattr(args, "models", None) or [getattr(args, "model", "tan")]:
            assert name in CLASSIFIERS, line


# ----------------------------------------------------------------------------------------------
# compare: rare classes, progress
# ----------------------------------------------------------------------------------------------
def test_compare_with_a_class_absent_from_training_folds_prints_finite_numbers(tmp_path, capsys):
    frame = _frame().drop(columns=["last", "dose"])
    frame.loc[0, "target"] = "rare"  # one row: absent from the training rows of the fold that tests it
    path = tmp_path / "rare.csv"
    frame.to_csv(path, index=False)
    assert main(["compare", str(path), "--target", "target", "--models", "nb", "tan", "--repeats", "2"]) == 0
    captured = capsys.readouterr()
    table = captured.out.split("\n", 1)[1]
    assert "inf" not in table and "NaN" not in table
    warnings_written = [line for line in captured.err.splitlines() if line.startswith("graphmodels: warning:")]
    assert len(warnings_written) == 1
    assert "Class 'rare' (2 test rows in 2 folds) is absent from the training rows" in warnings_written[0]


class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


@pytest.mark.parametrize("quiet", [False, True])
def test_compare_progress_goes_to_stderr_and_quiet_silences_it(quiet, monkeypatch, capsys):
    monkeypatch.setattr(compare_module, "_PROGRESS_DELAY", 0.0)
    terminal = FakeTerminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    argv = ["compare", "lenses", "--models", "nb", "tan", "--folds", "3", "--repeats", "1"]
    assert main(argv + ["--quiet"] * quiet) == 0
    out = capsys.readouterr().out
    assert "log-loss (nats)" in out and "folds done" not in out
    if quiet:
        assert terminal.getvalue() == ""
    else:
        assert "[1/2] lenses nb: 1/6 folds done" in terminal.getvalue()
        assert "[2/2] lenses" in terminal.getvalue()


def test_compare_is_silent_on_stderr_when_it_is_not_a_terminal(monkeypatch, capsys):
    monkeypatch.setattr(compare_module, "_PROGRESS_DELAY", 0.0)
    assert main(["compare", "lenses", "--models", "nb", "--folds", "3", "--repeats", "1"]) == 0
    assert capsys.readouterr().err == ""


def test_interactions_prints_the_tables_and_saves_the_figures_and_pairs(tmp_path, capsys):
    graph_png, dendrogram_png, pairs_csv = tmp_path / "graph.png", tmp_path / "tree.png", tmp_path / "pairs.csv"
    argv = ["interactions", "lenses", "--top", "3", "--draw", str(graph_png), "--dendrogram", str(dendrogram_png)]
    assert main([*argv, "--csv", str(pairs_csv), "--triples"]) == 0
    out = capsys.readouterr().out
    frame = gm.datasets.load("lenses")
    entropy = -sum(p * np.log(p) for p in frame["class"].value_counts(normalize=True))
    assert f"H(class) = {entropy:.4f} nats" in out and "Strongest synergies" in out and "Strongest redundancies" in out
    assert "tear" in out.split("Information about")[1].splitlines()[2]  # the most informative attribute
    assert "without the class (4 triples)" in out
    pairs = pd.read_csv(pairs_csv)
    assert len(pairs) == 6 and {"a", "b", "interaction", "share", "p_value", "adjusted_p_value"} <= set(pairs)
    assert graph_png.read_bytes()[:4] == b"\x89PNG" and dendrogram_png.read_bytes()[:4] == b"\x89PNG"
    assert main(["interactions", "iris", "--test", "none", "--bits", "--top", "2"]) == 0
    out = capsys.readouterr().out
    assert "bits" in out and "adjusted" not in out
    assert main(["interactions", "lenses", "--csv", str(tmp_path / "pairs.txt")]) == 2
    assert "must end in .csv" in capsys.readouterr().err
    assert main(["interactions", "lenses", "--categorical", "colour"]) == 2
    assert "--categorical: no column named 'colour'" in capsys.readouterr().err


# ----------------------------------------------------------------------------------------------
# compare and report: a model that cannot fit is reported, not fatal
# ----------------------------------------------------------------------------------------------
class FitFails(gm.NaiveBayes):
    """A registered classifier whose fit raises (as one with a bug, or data it cannot handle)."""

    def _fit(self, engine):
        raise RuntimeError("the search did not converge")


@pytest.fixture
def too_wide_for_ande(tmp_path):
    """60 rows, 20 attributes of 12 states, 3 classes: AnDE(n=2)'s tables need 1.6e7 cells, past its 1e7 default."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({f"a{j}": rng.choice(list("abcdefghijkl"), size=60) for j in range(20)})
    frame["class"] = np.repeat(["u", "v", "w"], 20)
    path = tmp_path / "wide.csv"
    frame.to_csv(path, index=False)
    return path


def test_compare_reports_failed_models_and_keeps_exit_code_0(too_wide_for_ande, tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(CLASSIFIERS, "fit-fails", FitFails)
    argv = ["compare", str(too_wide_for_ande), "--models", "nb", "ande", "fit-fails", "--folds", "2", "--repeats", "1"]
    assert main([*argv, "--out", str(tmp_path)]) == 0
    captured = capsys.readouterr()
    rows = {line.split()[0]: line.split() for line in captured.out.splitlines()[3:6]}
    assert rows["nb"][-1] == "ok" and rows["ande"][1:] == ["-"] * 5 + ["failed"] and rows["fit-fails"][-1] == "failed"
    assert "\nande failed: TableTooLargeError: AnDE: The tables for n=2 " in captured.out
    assert "\nfit-fails failed: RuntimeError: the search did not converge\n" in captured.out
    assert "Traceback" not in captured.err and "warning" not in captured.err  # listed once, under the table
    assert (tmp_path / "wide-nb.png").exists() and not (tmp_path / "wide-ande.png").exists()
    assert set(pd.read_csv(tmp_path / "wide-folds.csv")["model"]) == {"nb"}
    # Every model failed: exit code 2 and one line naming each.
    _one_line_error(
        capsys, main(argv[:3] + ["ande", "fit-fails", *argv[6:]]), "Every model failed", "fit-fails on wide"
    )


def test_report_shows_a_model_whose_fit_raises_as_failed(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(CLASSIFIERS, "fit-fails", FitFails)
    out = tmp_path / "report.html"
    assert main(["report", "lenses", "--models", "nb", "fit-fails", "--folds", "2", "--out", str(out), "--quiet"]) == 0
    page = out.read_text()
    assert "failed: RuntimeError: the search did not converge" in page
    assert "Could not be fitted: RuntimeError: the search did not converge" in page
