"""The HTML report: its sections, its escaping, its numbers against the helpers, the command, a browser."""

import io
import math
import re
import sys
import warnings
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest
from headless_browser import BLANK_STD, check_page, chromium_or_skip, open_page

import graphmodels as gm
from graphmodels import cli, reporting
from graphmodels.cli import main
from graphmodels.data import MDLDiscretizer
from graphmodels.evaluation import RepeatedStratifiedKFold, compare

reporting_module = sys.modules["graphmodels.reporting._report"]

SECTION_IDS = [
    "gm-data",
    "gm-information",
    "gm-models",
    "gm-structures",
    "gm-interactions",
    "gm-jakulin",
    "gm-why",
    "gm-notes",
]
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
#: The only addresses a page may hold: XML namespaces of the inline SVG, never fetched.
NAMESPACES = {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"}


class PageParser(HTMLParser):
    """Tags (checked to nest), ids, section headings, and the text of every table cell."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.open = []
        self.tags = []
        self.ids = []
        self.problems = []
        self.h2 = []
        self.tables = []  # each a list of rows, each a list of cell texts
        self._cell = None
        self._heading = None

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        attributes = dict(attrs)
        if "id" in attributes:
            self.ids.append(attributes["id"])
        if tag == "table":
            self.tables.append([])
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag in ("td", "th"):
            self._cell = []
        elif tag == "h2":
            self._heading = []
        if tag not in VOID:
            self.open.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.tags.append(tag)
        if "id" in dict(attrs):
            self.ids.append(dict(attrs)["id"])

    def handle_endtag(self, tag):
        if tag in ("td", "th"):
            self.tables[-1][-1].append("".join(self._cell).strip())
            self._cell = None
        elif tag == "h2":
            self.h2.append("".join(self._heading).strip())
            self._heading = None
        if not self.open or self.open[-1] != tag:
            self.problems.append(f"</{tag}> closes <{self.open[-1] if self.open else None}>")
        else:
            self.open.pop()

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)
        if self._heading is not None:
            self._heading.append(data)


def parse(page):
    parser = PageParser()
    parser.feed(page)
    parser.close()
    assert not parser.problems, parser.problems[:5]
    assert not parser.open, f"unclosed tags: {parser.open[:5]}"
    return parser


def table_with(parser, header):
    """The first table whose header row holds `header`, as a DataFrame of cell texts."""
    for rows in parser.tables:
        if rows and header in rows[0]:
            return pd.DataFrame(rows[1:], columns=rows[0])
    raise AssertionError(f"no table with a column {header!r}")


def _report(frame_or_X, **options):
    # Sections 6 and 7 (the interaction analysis and the explanations) cost seconds of figures:
    # computed in the report of car, which every test of the page reads.
    options = {
        "models": ["nb", "tan"],
        "n_splits": 2,
        "progress": False,
        "interaction_analysis": False,
        "explain": False,
        **options,
    }
    return gm.report(frame_or_X, **options)


@pytest.fixture(scope="module")
def car_report():
    return _report(gm.datasets.load("car"), target="class", interaction_analysis=True, explain=True)


# ----------------------------------------------------------------------------------------------
# the page
# ----------------------------------------------------------------------------------------------
def test_page_has_its_sections_in_order_and_parses(car_report):
    page = car_report.html
    assert page.startswith("<!DOCTYPE html>") and '<meta charset="utf-8">' in page
    parser = parse(page)
    sections = [i for i in parser.ids if i in SECTION_IDS]
    assert sections == SECTION_IDS
    assert parser.h2 == [
        "1. Data",
        "2. Information between the columns",
        "3. Cross-validated models",
        "4. Learned structures",
        "5. Strongest interactions",
        "6. Interactions with the class",
        "7. Why: what drives the predictions",
        "8. Notes",
    ]
    assert len(parser.ids) == len(set(parser.ids)), "ids repeat: each inline SVG must get its own"
    # one figure per model, the bars and the heatmaps, the interaction graph and dendrogram, the
    # summary of the contributions and a row's waterfall
    assert parser.tags.count("svg") == 2 + len(car_report.models) + 2 + 2
    columns = table_with(parser, "discretization (cut points)")
    assert list(columns["column"]) == ["buying", "maint", "doors", "persons", "lug_boot", "safety"]
    assert list(columns["states"]) == ["4", "4", "4", "3", "3", "3"]


def test_interaction_and_why_sections(car_report):
    graph = car_report.interaction_graph
    assert graph.number_of_edges() == 15 and graph.graph["target"] == "class"
    page = car_report.html
    jakulin = page.split('id="gm-jakulin"')[1].split("</section>")[0]
    assert "Strongest synergies" in jakulin and "Strongest redundancies" in jakulin and "adjusted p" in jakulin
    strongest = graph.graph["pairs"].iloc[0]
    assert f"{100 * strongest['share']:+.1f}%" in jakulin
    best = car_report.cv_summary.sort_values("rank")["model"].iloc[0]
    why = page.split('id="gm-why"')[1].split("</section>")[0]
    assert f"<b>{best}</b>" in why and why.count("<svg") == 2
    X, _ = gm.datasets.load("car", return_X_y=True)
    log_proba = car_report.models[best].predict_log_proba(X)
    for k, label in enumerate(car_report.models[best].classes_):
        assert np.allclose(car_report.explanation[label].sum(axis=1), log_proba[:, k], atol=1e-10)


def test_page_is_self_contained(car_report):
    page = car_report.html
    assert page.count("<style") == 1 and "<script" not in page.lower()
    addresses = set(re.findall(r"""https?://[^\s"'<>)]+""", page))
    assert addresses <= NAMESPACES, addresses - NAMESPACES
    assert not re.search(r"""(src|href)\s*=\s*["'](?!#|data:)""", page), "a link to another resource"
    assert "@import" not in page and "url(http" not in page


def test_notebook_fragment_is_scoped_and_saved_page_is_the_html(car_report, tmp_path):
    fragment = car_report._repr_html_()
    assert fragment.startswith("<style>") and "<html" not in fragment and "<body" not in fragment
    style = fragment[len("<style>") : fragment.index("</style>")]
    selectors = [s.strip() for block in re.findall(r"([^{}]+)\{", style) for s in block.split(",")]
    assert selectors and all(s.startswith(".gm-report") for s in selectors), selectors
    path = car_report.save(tmp_path / "car.html")
    assert path.read_text(encoding="utf-8") == car_report.html
    assert "nb, tan" in repr(car_report)


def test_hostile_names_are_escaped(random_table):
    X, y = random_table(np.random.default_rng(0), n_rows=120, cards=(2, 3, 2, 3))
    X.columns = ["<b>#1</b>", "é ünï 名前", 'a&b "q"', "$x$"]
    y = y.map({"c0": "<i>yes</i>", "c1": "no & maybe", "c2": "ok"})
    page = _report(X, y=y).html
    assert "<b>#1</b>" not in page and "<i>yes</i>" not in page
    assert "&lt;b&gt;#1&lt;/b&gt;" in page and "&lt;i&gt;yes&lt;/i&gt;" in page
    assert "é ünï 名前" in page and "a&amp;b &quot;q&quot;" in page and "no &amp; maybe" in page
    parser = parse(page)
    assert "i" not in parser.tags
    assert table_with(parser, "discretization (cut points)")["column"].tolist() == list(X.columns)


def test_iris_cut_points_are_the_models_own():
    X, y = gm.datasets.load("iris", return_X_y=True)
    result = _report(X, y=y)
    models_cuts = gm.TAN().fit(X, y).discretizer_.cut_points_  # discretizer="auto"
    by_hand = MDLDiscretizer(min_distinct=11).fit(X, y).cut_points_
    columns = table_with(parse(result.html), "discretization (cut points)").set_index("column")
    for column in X.columns:
        np.testing.assert_array_equal(result.columns.loc[column, "cut_points"], models_cuts[column])
        np.testing.assert_array_equal(models_cuts[column], by_hand[column])
        written = ", ".join(format(c, ".6g") for c in by_hand[column])
        assert written in columns.loc[column, "discretization (cut points)"]
        assert columns.loc[column, "type"] == "numeric"
        assert columns.loc[column, "states"] == str(len(by_hand[column]) + 1)
    assert "2.45, 4.75" in columns.loc["petal length", "discretization (cut points)"]  # Fayyad & Irani on iris


@pytest.mark.parametrize("discretizer, method", [("equal-frequency", "equal frequency"), (None, "none")])
def test_other_discretizers(discretizer, method):
    X, y = gm.datasets.load("iris", return_X_y=True)
    result = _report(X, y=y, discretizer=discretizer, models=["nb"])
    assert all(text.startswith(method) for text in result.columns["discretization"])
    if discretizer is None:
        assert result.columns.loc["petal length", "states"] == X["petal length"].nunique()
    else:
        assert (result.columns["states"] == 5).all()


# ----------------------------------------------------------------------------------------------
# the numbers
# ----------------------------------------------------------------------------------------------
def test_information_of_a_hand_made_table():
    # a copies the class, b is a fair coin within each class: I(a; C) = ln 2 and nothing else is shared.
    y = pd.Series(list("pppppppp") + list("qqqqqqqq"), name="C")
    X = pd.DataFrame({"a": y.map({"p": "u", "q": "v"}), "b": list("xy" * 8)})
    result = _report(X, y=y, models=["nb"])
    ln2 = math.log(2)
    np.testing.assert_allclose(result.columns["class_information"], [ln2, 0.0], atol=1e-12)
    shown = ["a", "b"]  # by I(X; C)
    np.testing.assert_allclose(result.mutual_information.loc[shown, shown], [[ln2, 0], [0, ln2]], atol=1e-12)
    np.testing.assert_allclose(result.conditional_mutual_information.loc[shown, shown], [[0, 0], [0, ln2]], atol=1e-12)


def test_information_matrices_are_symmetric_and_match_tan(car_report):
    for matrix in (car_report.mutual_information, car_report.conditional_mutual_information):
        np.testing.assert_allclose(matrix.to_numpy(), matrix.to_numpy().T)
        assert (matrix.to_numpy() >= 0).all()
    arcs = car_report.interactions["tan"]
    assert len(arcs) == 5  # a tree over 6 attributes
    for arc in arcs.itertuples():  # TAN's arcs carry I(X_i; X_j | C): the heatmap's numbers
        assert arc.information == pytest.approx(car_report.conditional_mutual_information.loc[arc.parent, arc.child])
    assert list(arcs["information"]) == sorted(arcs["information"], reverse=True)


def test_the_default_hyperforest_is_reported_class_by_class():
    # tic-tac-toe: the default representation="auto" keeps one hyperforest per class.
    result = _report(gm.datasets.load("tic-tac-toe"), target="class", models=["hyperforest"])
    model = gm.HyperforestClassifier().fit(*gm.datasets.load("tic-tac-toe", return_X_y=True))
    assert model.representation_ == "free"
    table = result.interactions["hyperforest"]
    expected = {
        (tuple(sorted(h, key=str)), label)
        for label, forest in zip(model.classes_, model.structures_)
        for h in forest.hyperedges
        if len(h) > 1
    }
    assert set(zip(table["hyperedge"], table["class"])) == expected
    n_maximal = sum(len([h for h in f.maximal_hyperedges if len(h) > 1]) for f in model.structures_)
    assert (
        f"HyperforestClassifier: one hyperforest per class (2 classes), {n_maximal} maximal hyperedges" in result.html
    )


@pytest.mark.parametrize("criterion", ["ml", "mdl"])
@pytest.mark.parametrize(
    "representation, meaning",
    [
        ("joint", "I(a; b) over every row, the class being a node of the hyperforest"),
        ("shared", "I(a; b | class)"),
        ("free", "I(a; b) within its class (column class), on that class's rows alone"),
    ],
)
def test_hyperforest_note_says_what_the_weight_of_a_pair_is(representation, meaning, criterion):
    from graphmodels.reporting._report import _hyperforest_edges

    X, y = gm.datasets.load("car", return_X_y=True)
    model = gm.HyperforestClassifier(representation=representation, criterion=criterion).fit(X, y)
    table, note = _hyperforest_edges(model, len(X))
    penalty = " less the MDL penalty" if criterion == "mdl" else ""
    assert note.endswith(f"by their weight w_h in nats (for a pair, {meaning}{penalty}).")
    if criterion == "mdl":
        return
    # ML weights of pairs are exactly what the note says (the joint's pairs: inside {a, b, class}).
    pairs = table[table["size"] == 2]
    assert len(pairs) >= 3
    frame = pd.concat([X, y], axis=1)
    for row in pairs.to_dict("records"):
        a, b = row["hyperedge"]
        if representation == "joint":
            expected = gm.stats.mutual_information(frame, a, b)
        elif representation == "shared":
            expected = gm.stats.conditional_mutual_information(frame, a, b, y.name)
        else:
            expected = gm.stats.mutual_information(frame[y == row["class"]], a, b)
        assert row["weight"] == pytest.approx(expected, abs=1e-12)


def test_cv_table_equals_the_evaluation_helpers():
    X, y = gm.datasets.load("iris", return_X_y=True)  # numeric: cut inside every fold
    result = _report(X, y=y, models=["nb", "tan", "kikuchi-bayes"], n_splits=3, random_state=4)
    cv = RepeatedStratifiedKFold(n_splits=3, n_repeats=1, random_state=4)
    models = {"nb": gm.NaiveBayes(), "tan": gm.TAN(), "kikuchi-bayes": gm.KikuchiBayes()}
    expected = compare(models, {"iris": (X, y)}, cv=cv, discretizer=None, verbose=False)
    summary = result.cv_summary.set_index("model")
    theirs = expected.summary.set_index("model")
    for column in ["log_loss", "log_loss_std", "error", "error_std"]:
        np.testing.assert_allclose(summary.loc[list(models), column], theirs.loc[list(models), column], rtol=1e-12)
    np.testing.assert_allclose(result.cv_results["log_loss"], expected.results["log_loss"], rtol=1e-12)
    shown = table_with(parse(result.html), "log-loss (nats per row)").set_index("model")
    for name in models:
        assert shown.loc[name, "log-loss (nats per row)"] == (
            f"{theirs.loc[name, 'log_loss']:.4f} ± {theirs.loc[name, 'log_loss_std']:.4f}"
        )
        assert shown.loc[name, "error rate"] == f"{theirs.loc[name, 'error']:.4f} ± {theirs.loc[name, 'error_std']:.4f}"
    best = theirs["log_loss"].idxmin()
    assert shown.loc[best, "rank"] == "1"


def test_many_columns_show_the_most_informative(random_table, monkeypatch):
    # The bound read at the call (40 by default), lowered to 8: the same selection on a table of 12
    # attributes, not 45 attributes' heatmaps and figures.
    assert reporting_module.MAX_HEATMAP_COLUMNS == 40
    monkeypatch.setattr(reporting_module, "MAX_HEATMAP_COLUMNS", 8)
    rng = np.random.default_rng(3)
    X, y = random_table(rng, n_rows=80, cards=(2, 3) * 6)  # 12 attributes
    result = _report(X, y=y, models=["nb"])
    assert result.mutual_information.shape == (8, 8)
    top = result.columns["class_information"].sort_values(ascending=False, kind="stable").index[:8]
    assert list(result.mutual_information.index) == list(top)
    assert "12 attributes: the figures show the 8 with the highest I(X; C)" in result.html
    assert len(result.columns) == 12


@pytest.mark.parametrize("models", [None, ["nb", "kikuchi-bayes"]])
def test_default_models_leave_kikuchi_bayes_out_of_wide_tables(models, random_table, monkeypatch):
    # The rule read at the call, on a table one attribute past a bound of 6 (the default bound, 30,
    # made the default models' fits on 31 attributes cost 10 s for the same check).
    monkeypatch.setattr(reporting_module, "KIKUCHI_MAX_ATTRIBUTES", 6)
    X, y = random_table(np.random.default_rng(4), n_rows=60, cards=(2, 3) * 3 + (2,))  # 7 attributes
    result = _report(X, y=y, models=models)
    names = list(result.cv_summary["model"])
    if models is None:
        assert names == ["nb", "tan", "aode", "hyperforest"]
        assert "was left out of the default models: the table has 7 attributes, more than 6" in result.html
        assert result.interactions["kikuchi-bayes"].empty
    else:  # named: kept
        assert names == models and len(result.interactions["kikuchi-bayes"])


def test_a_model_that_fails_is_reported_and_the_rest_goes_on():
    X, y = gm.datasets.load("lenses", return_X_y=True)  # any data: TAN's tables exceed max_cells=10
    result = _report(X, y=y, models={"tiny": gm.TAN(max_cells=10), "nb": gm.NaiveBayes()})
    summary = result.cv_summary.set_index("model")
    assert "max_cells=10" in summary.loc["tiny", "failure"] and summary.loc["nb", "failure"] == ""
    assert "tiny" not in result.models and "nb" in result.models
    rows = table_with(parse(result.html), "log-loss (nats per row)").set_index("model")
    assert rows.loc["tiny", "log-loss (nats per row)"].startswith("failed: ")


def test_warnings_are_shown_and_listed(random_table):
    X, y = random_table(np.random.default_rng(1), n_rows=60)
    y.iloc[0] = "rare"  # one row: absent from the training rows of the fold that tests it
    with pytest.warns(UserWarning, match="absent from the training rows"):
        result = _report(X, y=y, models=["nb"])
    assert "Warnings while the report ran" in result.html
    assert "Class &#x27;rare&#x27; (1 test row in 1 fold) is absent" in result.html


def test_max_rows_takes_a_stratified_sample():
    X, y = gm.datasets.load("iris", return_X_y=True)
    result = _report(X, y=y, max_rows=60, models=["nb"])
    assert result.cv_results["n_test"].sum() == 60  # one model, the folds cover every row once
    assert "a sample of the 150 rows, stratified by class (max_rows=60, seed 0)" in result.html
    assert "60 rows (a stratified sample of 150)" in result.html


def test_rows_without_a_class_are_dropped_with_a_warning():
    frame = gm.datasets.load("lenses")
    frame.loc[[0, 5], "class"] = None
    with pytest.warns(UserWarning, match="Dropped 2 of 24 rows whose class is missing"):
        result = _report(frame, models=["nb"])  # the column named "class" by default
    assert result.cv_results["n_test"].sum() == 22


@pytest.mark.parametrize(
    "options, error, match",
    [
        ({"models": ["nb", "nope"]}, ValueError, "Unknown model 'nope'; choose from: nb, tan"),
        ({"models": []}, ValueError, "`models` is empty"),
        ({"n_splits": 1}, ValueError, "`n_splits` must be an integer in \\[2, inf\\), got 1"),
        ({"discretizer": "kmeans"}, ValueError, "`discretizer` must be"),
        ({"target": "nope"}, ValueError, "Class column 'nope' not found"),
        ({"path": "/no/such/dir/report.html"}, FileNotFoundError, "does not exist"),
    ],
)
def test_bad_input_fails_before_any_work(options, error, match, monkeypatch):
    monkeypatch.setattr(reporting_module, "training_counts", pytest.fail)  # no work may start
    with pytest.raises(error, match=match):
        _report(gm.datasets.load("lenses"), **{"target": "class", **options})


@pytest.mark.parametrize("frame", [pd.DataFrame(), pd.DataFrame(columns=["a", "class"])])
def test_an_empty_frame_is_called_empty(frame, monkeypatch):
    monkeypatch.setattr(reporting_module, "training_counts", pytest.fail)
    with pytest.raises(ValueError, match=r"`data` is empty \(0 rows, \d columns\)"):
        gm.report(frame, progress=False)


def test_labels_that_are_a_column_are_refused_by_name():
    frame = gm.datasets.load("lenses")
    with pytest.raises(ValueError, match=r"Column 'class' of `data` is the class `y` itself: pass it as target="):
        gm.report(frame, y=frame["class"], progress=False)


def test_integer_columns_cut_are_said_once_and_categorical_keeps_them():
    rng = np.random.default_rng(0)
    code = rng.integers(0, 30, 120)
    frame = pd.DataFrame({"code": code, "other": rng.choice(["u", "v"], 120)})
    frame["class"] = np.where(rng.random(120) < 0.9, code % 2, 1 - code % 2)
    with pytest.warns(gm.data.IntegerColumnsCutWarning) as record:
        result = _report(frame, models=["nb"])
    assert [str(w.message)[:51] for w in record] == ["report: discretizer='auto' cut the integer column(s"]
    assert "categorical=['code']" in str(record[0].message)
    assert "IntegerColumnsCutWarning: report:" in result.html  # listed in the page's notes
    with warnings.catch_warnings():
        warnings.simplefilter("error", gm.data.IntegerColumnsCutWarning)
        kept = _report(frame, models=["nb"], categorical=["code"])
    assert kept.columns.loc["code", "discretization"] == "none: kept as categories (categorical=)"
    assert kept.models["nb"].get_params()["categorical"] == ["code"]
    assert kept.cv_summary["error"].iloc[0] < result.cv_summary["error"].iloc[0]


def test_progress_goes_to_the_stream_and_can_be_silenced(capsys):
    frame = gm.datasets.load("lenses")
    stream = io.StringIO()
    quick = {"interaction_analysis": False, "explain": False}
    gm.report(frame, models=["nb", "tan"], n_splits=2, stream=stream, **quick)
    lines = stream.getvalue().splitlines()
    assert lines[0] == "report: 24 rows, 4 attributes, 3 classes (class 'class')"
    assert "report: cross-validating tan (2/2 models, 1 x 2 folds)..." in lines
    assert lines[-1].startswith("report: done in ")
    gm.report(frame, models=["nb"], n_splits=2, **quick)
    assert "report: cross-validating nb (1/1 models, 1 x 2 folds)..." in capsys.readouterr().err
    gm.report(frame, models=["nb"], n_splits=2, progress=False, **quick)
    assert capsys.readouterr().err == ""


def test_report_is_exported():
    assert gm.report is reporting.report and "report" in gm.__all__
    assert callable(gm.report)  # the function, not shadowed by its module


# ----------------------------------------------------------------------------------------------
# the command
# ----------------------------------------------------------------------------------------------
def test_command_writes_the_page(tmp_path, capsys):
    out = tmp_path / "report.html"
    assert main(["report", "lenses", "--out", str(out), "--models", "nb", "tan", "--folds", "2"]) == 0
    captured = capsys.readouterr()
    assert captured.out.startswith(f"report on lenses (24 rows, 2 models) saved to {out}")
    assert "report: cross-validating tan (2/2 models, 1 x 2 folds)..." in captured.err
    page = out.read_text(encoding="utf-8")
    assert "<title>graphmodels report: lenses</title>" in page
    parse(page)


def test_command_quiet_writes_nothing_on_stderr(tmp_path, capsys):
    out = tmp_path / "report.html"
    assert main(["report", "lenses", "--out", str(out), "--models", "nb", "--folds", "2", "--quiet"]) == 0
    captured = capsys.readouterr()
    assert captured.err == "" and "saved to" in captured.out and out.is_file()


@pytest.mark.parametrize(
    "out, message",
    [
        ("{tmp}/missing/report.html", "directory '{tmp}/missing' does not exist"),
        ("{tmp}/report.txt", "the file name must end in .html or .htm"),
        ("{tmp}/folder.html", "is a directory; give a file name"),
    ],
)
def test_command_checks_the_output_before_the_run(out, message, tmp_path, monkeypatch, capsys):
    def loading(*args, **kwargs):
        raise AssertionError("the data were read before the output path was checked")

    monkeypatch.setattr(cli, "_load_data", loading)
    out, message = out.format(tmp=tmp_path), message.format(tmp=tmp_path)
    (tmp_path / "folder.html").mkdir()
    assert main(["report", "car", "--out", out]) == 2
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and captured.err.startswith("graphmodels: error: --out ")
    assert message in captured.err and "report:" not in captured.err


def test_command_unknown_model_fails_before_the_run(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(cli, "_load_data", pytest.fail)
    assert main(["report", "car", "--out", str(tmp_path / "r.html"), "--models", "nb", "nope"]) == 2
    assert "unknown model 'nope'" in capsys.readouterr().err


def test_command_help(capsys):
    assert main(["report", "--help"]) == 0
    text = capsys.readouterr().out
    assert "usage: graphmodels report" in text and "--out FILE" in text and "--max-rows N" in text


# ----------------------------------------------------------------------------------------------
# in a browser
# ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "body, fails",
    [
        ('<p>text</p><script>console.error("deliberate"); undefinedFunction();</script>', "console"),
        ("", "blank"),
    ],
)
def test_browser_check_catches_console_errors_and_blank_pages(body, fails, tmp_path):
    chromium_or_skip()
    path = tmp_path / "broken.html"
    path.write_text(f"<!DOCTYPE html><html><head><title>t</title></head><body>{body}</body></html>")
    page = open_page(path, tmp_path, window_size=(400, 300))
    if fails == "console":
        assert page.console == [
            '"deliberate", source: ' + path.as_uri() + " (1)",
            '"Uncaught ReferenceError: undefinedFunction is not defined", source: ' + path.as_uri() + " (1)",
        ]
        with pytest.raises(AssertionError, match="console messages"):
            check_page(path, tmp_path, window_size=(400, 300))
    else:
        assert page.console == [] and page.pixel_std() < BLANK_STD
        with pytest.raises(AssertionError, match="looks blank"):
            check_page(path, tmp_path, window_size=(400, 300))


def test_report_shows_in_a_browser(car_report, tmp_path):
    chromium_or_skip()
    path = car_report.save(tmp_path / "report.html")
    page = check_page(path, tmp_path, expect=('id="gm-interactions"', "Strongest interactions", "<svg"))
    assert page.dom.count("<svg") == car_report.html.count("<svg")


def test_report_fragment_shows_in_a_browser(car_report, tmp_path):
    chromium_or_skip()
    path = tmp_path / "notebook-cell.html"
    path.write_text(
        f'<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>{car_report._repr_html_()}</body></html>',
        encoding="utf-8",
    )
    check_page(path, tmp_path, expect=('class="gm-report"',))


def test_model_notebook_view_shows_in_a_browser(tmp_path):
    chromium_or_skip()
    X, y = gm.datasets.load("car", return_X_y=True)
    model = gm.TAN().fit(X, y)
    if not hasattr(model, "_repr_html_"):
        pytest.skip("graphmodels models have no _repr_html_ yet (another change adds the notebook view)")
    path = tmp_path / "model.html"
    path.write_text(
        f'<!DOCTYPE html><html><head><meta charset="utf-8"></head><body>{model._repr_html_()}</body></html>',
        encoding="utf-8",
    )
    check_page(path, tmp_path, expect=("TAN",))
