"""The HTML page of a report: escaping, tables, figures as inline SVG, one scoped stylesheet.

Every string that comes from the data (column names, states, class labels, model names,
warning messages) goes through :func:`html.escape`; every figure is drawn with matplotlib
and pasted as ``<svg>`` by :func:`graphmodels.plotting.figure_svg`, without its own
``<style>`` (the page's one stylesheet holds its rule), with its element ids made unique in
the page. Nothing here fetches anything or runs a script.
"""

from __future__ import annotations

import datetime
import html
import re
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from .._display import plural

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from ..models import TrainingCounts

#: The sections, in page order: (anchor, heading).
SECTIONS = (
    ("gm-data", "Data"),
    ("gm-information", "Information between the columns"),
    ("gm-models", "Cross-validated models"),
    ("gm-structures", "Learned structures"),
    ("gm-interactions", "Strongest interactions"),
    ("gm-jakulin", "Interactions with the class"),
    ("gm-why", "Why: what drives the predictions"),
    ("gm-notes", "Notes"),
)

#: Longest column name written in a figure (longer ones end in an ellipsis).
_LABEL_LENGTH = 24

#: Heatmaps with at most this many attributes write each cell's value.
_ANNOTATE_UP_TO = 12

STYLE = """
.gm-report{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;
 color:#1f2328;background:#fff;line-height:1.45;max-width:1180px;margin:0 auto;padding:20px 28px}
.gm-report h1{font-size:1.65em;margin:0 0 .15em}
.gm-report h2{font-size:1.3em;border-bottom:2px solid #d0d7de;padding-bottom:.15em;margin:1.8em 0 .6em}
.gm-report h3{font-size:1.05em;margin:1.1em 0 .35em}
.gm-report p{margin:.4em 0 .7em}
.gm-report .lead{color:#57606a;margin-top:0}
.gm-report nav{margin:.8em 0 0;font-size:.95em}
.gm-report nav a{margin-right:1.1em;color:#0969da;text-decoration:none}
.gm-report table{border-collapse:collapse;font-size:.88em;margin:.4em 0 1em}
.gm-report th,.gm-report td{border-bottom:1px solid #d8dee4;padding:4px 9px;text-align:left;vertical-align:top}
.gm-report th{background:#f6f8fa;font-weight:600}
.gm-report td.num,.gm-report th.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
.gm-report tr.best td{font-weight:600;background:#eef6ec}
.gm-report tr.failed td{color:#a40e26}
.gm-report .note{color:#57606a;font-size:.9em}
.gm-report .mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.92em}
.gm-report .scroll{overflow-x:auto}
.gm-report .side{display:grid;grid-template-columns:repeat(auto-fit,minmax(330px,1fr));gap:8px 24px}
.gm-report figure{margin:.3em 0 1.3em;overflow-x:auto}
.gm-report figure svg{max-width:100%;height:auto}
.gm-report figcaption{font-size:.9em;color:#57606a}
.gm-report svg *{stroke-linejoin:round;stroke-linecap:butt}
.gm-report ul.warnings li{color:#7d4e00}
.gm-report footer{margin-top:2.2em;color:#57606a;font-size:.85em;border-top:1px solid #d8dee4;padding-top:.5em}
""".strip()


# ----------------------------------------------------------------------------------------------
# text
# ----------------------------------------------------------------------------------------------
def esc(value: Any) -> str:
    """`value` as text safe in HTML content and attribute values."""
    return html.escape(str(value), quote=True)


def names(values: Sequence[Any]) -> str:
    return ", ".join(esc(v) for v in values)


def number(value: Any, digits: int = 4) -> str:
    if value is None or not np.isfinite(value):
        return "–"
    return f"{float(value):.{digits}f}"


def seconds_text(value: float) -> str:
    if not np.isfinite(value):
        return "–"
    return f"{value * 1000:.1f} ms" if value < 0.1 else f"{value:.2f} s"


def table(headers: Sequence[str], rows: Sequence[Sequence[str]], *, numeric: Sequence[int] = (), classes=None) -> str:
    """A ``<table>`` of cells given as HTML (escape them first); `numeric` columns align right."""
    right = set(numeric)
    head = "".join(f"<th{' class=num' if i in right else ''}>{h}</th>" for i, h in enumerate(headers))
    body = []
    for r, row in enumerate(rows):
        css = f' class="{classes[r]}"' if classes and classes[r] else ""
        cells = "".join(f"<td{' class=num' if i in right else ''}>{c}</td>" for i, c in enumerate(row))
        body.append(f"<tr{css}>{cells}</tr>")
    return f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table></div>'


def figure(svg: str, caption: str = "") -> str:
    return f"<figure>{svg}" + (f"<figcaption>{caption}</figcaption>" if caption else "") + "</figure>"


# ----------------------------------------------------------------------------------------------
# SVG
# ----------------------------------------------------------------------------------------------
_SVG_STYLE = re.compile(r"\s*<style[^>]*>.*?</style>", re.DOTALL)
_ID = re.compile(r'\bid="([^"]+)"')


class SvgIds:
    """Gives each inline SVG of a page its own id prefix (matplotlib numbers ids per figure)."""

    def __init__(self) -> None:
        self.count = 0

    def inline(self, svg: str) -> str:
        """`svg` without its ``<style>``, its ids (and references to them) prefixed."""
        self.count += 1
        svg = _SVG_STYLE.sub("", svg)
        ids = set(_ID.findall(svg))
        if not ids:
            return svg
        prefix = f"gm{self.count}-"
        alternatives = "|".join(re.escape(i) for i in sorted(ids, key=len, reverse=True))
        # An id is written id="x"; it is referred to as url(#x) or href="#x".
        pattern = re.compile(rf'(\bid="|#)({alternatives})(?=["\)])')
        svg = pattern.sub(lambda m: m.group(1) + prefix + m.group(2), svg)
        # A drawing may give one id to several groups (a gid per kind of edge): number the
        # repeats, which nothing refers to (a reference to a repeated id would be ambiguous).
        seen: dict[str, int] = {}

        def number(match: re.Match[str]) -> str:
            name = match.group(1)
            seen[name] = seen.get(name, 0) + 1
            return match.group(0) if seen[name] == 1 else f'id="{name}-{seen[name]}"'

        return _ID.sub(number, svg)


def _label(value: Hashable) -> str:
    """A column name for a figure: shortened, with ``$`` kept literal (not mathtext)."""
    text = str(value)
    if len(text) > _LABEL_LENGTH:
        text = text[: _LABEL_LENGTH - 1] + "…"
    return text.replace("$", r"\$")


def _svg(fig: Figure) -> str:
    from ..plotting import figure_svg

    return figure_svg(fig, close=False)


def class_information_svg(values: pd.Series) -> str:
    """Horizontal bars of ``I(X; C)``, the highest first, each with its value."""
    from matplotlib.figure import Figure

    n = len(values)
    fig = Figure(figsize=(7.2, 0.9 + 0.23 * n), layout="constrained")
    ax = fig.subplots()
    positions = np.arange(n)
    ax.barh(positions, values.to_numpy(), color="#4c78a8", height=0.7)
    ax.set_yticks(positions, [_label(v) for v in values.index], fontsize=8 if n > 20 else 9)
    ax.invert_yaxis()
    top = float(values.max()) if n and values.max() > 0 else 1.0
    ax.set_xlim(0, top * 1.18)
    for y, value in zip(positions, values.to_numpy()):
        ax.text(value + top * 0.01, float(y), f"{value:.3f}", va="center", fontsize=7.5, color="#333333")
    ax.set_xlabel("I(X; C), nats")
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    return _svg(fig)


def heatmaps_svg(mi: pd.DataFrame, cmi: pd.DataFrame) -> str:
    """``I(X_i; X_j)`` and ``I(X_i; X_j | C)`` side by side, one colour scale, diagonals blank."""
    from matplotlib import colormaps
    from matplotlib.figure import Figure

    n = len(mi)
    labels = [_label(v) for v in mi.index]
    off_diagonal = ~np.eye(n, dtype=bool)
    matrices = [np.where(off_diagonal, m.to_numpy(dtype=float), np.nan) for m in (mi, cmi)]
    vmax = max((float(np.nanmax(m)) for m in matrices if n > 1), default=0.0) or 1.0
    cell = 0.34 if n <= 16 else 0.2
    side = max(2.2, cell * n)
    room = 0.075 * max(len(label) for label in labels)  # inches of tick labels
    fig = Figure(figsize=(2 * side + room + 2.2, side + room + 0.9), layout="constrained")
    axes = fig.subplots(1, 2)
    cmap = colormaps["Blues"].with_extremes(bad="#f3f3f3")
    font = 9 if n <= 16 else (7 if n <= 30 else 6)
    titles = (r"$I(X_i;\ X_j)$", r"$I(X_i;\ X_j\ |\ C)$")
    images = []
    for ax, values, heading in zip(axes, matrices, titles):
        images.append(ax.imshow(values, cmap=cmap, vmin=0.0, vmax=vmax, interpolation="nearest"))
        ax.set_xticks(range(n), labels, rotation=90, fontsize=font)
        ax.set_yticks(range(n), labels if ax is axes[0] else [], fontsize=font)
        ax.set_title(heading, fontsize=11)
        ax.tick_params(length=2)
        if n <= _ANNOTATE_UP_TO:
            for i, j in zip(*np.nonzero(off_diagonal)):
                value = values[i, j]
                colour = "white" if value > 0.55 * vmax else "#222222"
                ax.text(j, i, f"{value:.3f}", ha="center", va="center", fontsize=6.5, color=colour)
    fig.colorbar(images[0], ax=list(axes), label="nats", shrink=0.85)
    return _svg(fig)


# ----------------------------------------------------------------------------------------------
# the page
# ----------------------------------------------------------------------------------------------
class Page:
    """The sections of a report, built one after another, rendered as a scoped HTML fragment."""

    def __init__(self, title: str) -> None:
        self.title = title
        self.parts: list[str] = []
        self.ids = SvgIds()

    def render(self) -> str:
        return f'<style>\n{STYLE}\n</style>\n<div class="gm-report">\n' + "\n".join(self.parts) + "\n</div>"

    def _section(self, index: int, body: str) -> None:
        anchor, heading = SECTIONS[index]
        self.parts.append(f'<section id="{anchor}">\n<h2>{index + 1}. {esc(heading)}</h2>\n{body}\n</section>')

    # ------------------------------------------------------------------ header
    def header(self, *, n_rows: int, n_total: int, n_features: int, n_classes: int, class_name: Hashable) -> None:
        size = f"{n_rows:,} rows" + (f" (a stratified sample of {n_total:,})" if n_rows < n_total else "")
        links = "".join(f'<a href="#{anchor}">{esc(heading)}</a>' for anchor, heading in SECTIONS)
        self.parts.append(
            f"<header>\n<h1>{esc(self.title)}</h1>\n"
            f'<p class="lead">{size}, {plural(n_features, "attribute")}, '
            f"class column <b>{esc(class_name)}</b> with {plural(n_classes, 'value')}.</p>\n"
            f"<nav>{links}</nav>\n</header>"
        )

    # ------------------------------------------------------------------ 1. data
    def data_section(
        self,
        *,
        labels: pd.Series,
        class_name: Hashable,
        columns: pd.DataFrame,
        n_total: int,
        max_rows: int | None,
        seed: int | None,
        discretizer: str | None,
        dropped: int,
    ) -> None:
        n_rows = len(labels)
        parts = []
        facts = [f"{n_rows:,} rows"]
        if n_rows < n_total:
            facts.append(
                f"a sample of the {n_total:,} rows, stratified by class (max_rows={max_rows}, seed {seed}): "
                "every number below comes from these rows"
            )
        if dropped:
            facts.append(f"{plural(dropped, 'row')} whose class is missing left out")
        kinds = columns["type"].value_counts()
        listing = ", ".join(f"{count} {kind}" for kind, count in kinds.items())
        facts.append(f"{plural(len(columns), 'attribute')} ({listing})")
        missing = int(columns["missing"].sum())
        facts.append(
            f"{plural(missing, 'missing cell')}"
            + (" (a state of its own in every model: missing='value')" if missing else "")
        )
        parts.append(f"<p>{'; '.join(facts)}.</p>")
        frequencies = labels.value_counts(sort=True)
        rows = [[esc(label), f"{count:,}", f"{count / n_rows:.1%}"] for label, count in frequencies.items()]
        parts.append(f"<h3>The class, {esc(class_name)}</h3>")
        parts.append(table(["value", "rows", "share"], rows, numeric=(1, 2)))
        parts.append("<h3>The attributes</h3>")
        how = {
            None: "Numeric columns are not discretized (discretizer=None): each distinct value is a state.",
            "mdl": "Numeric columns with more than 10 distinct values are cut at Fayyad &amp; Irani's MDL cut "
            "points, fitted here on all rows and by each model on its training rows: the models' default.",
            "fayyad-irani": "Numeric columns with more than 10 distinct values are cut at Fayyad &amp; Irani's MDL "
            "cut points, fitted here on all rows and by each model on its training rows.",
            "equal-frequency": "Numeric columns with at least 10 distinct values are cut into 5 bins of equal "
            "frequency, fitted here on all rows and by each model on its training rows.",
        }[discretizer]
        parts.append(f'<p class="note">{how} States: distinct values after that (missing cells not counted).</p>')
        rows = []
        for column, row in columns.iterrows():
            cuts = f'<span class="mono">{esc(", ".join(format(c, ".6g") for c in row["cut_points"]))}</span>'
            examples = names(row["examples"]) + (", …" if row["states"] > len(row["examples"]) else "")
            rows.append(
                [
                    esc(column),
                    esc(row["type"]),
                    f"{row['states']:,}",
                    f"{row['missing']:,}",
                    esc(row["discretization"]) + (f": {cuts}" if row["cut_points"] else ""),
                    number(row["class_information"]),
                    f'<span class="mono">{examples}</span>',
                ]
            )
        parts.append(
            table(
                ["column", "type", "states", "missing cells", "discretization (cut points)", "I(X; C), nats", "values"],
                rows,
                numeric=(2, 3, 5),
            )
        )
        self._section(0, "\n".join(parts))

    # ------------------------------------------------------------------ 2. information
    def information_section(
        self, *, columns: pd.DataFrame, mi: pd.DataFrame, cmi: pd.DataFrame, class_entropy: float
    ) -> None:
        shown = list(mi.index)
        limited = len(shown) < len(columns)
        values = columns["class_information"].loc[shown]
        parts = [
            "<p>Plug-in estimates from the counts of all rows, after the discretization above, in nats "
            f"(natural logarithms). The class entropy H(C) = {class_entropy:.4f} nats is the most an attribute "
            "can tell about the class.</p>"
        ]
        if limited:
            parts.append(
                f"<p><b>{len(columns)} attributes: the figures show the {len(shown)} with the highest I(X; C)</b> "
                "(the table above lists every attribute).</p>"
            )
        parts.append(figure(self.ids.inline(class_information_svg(values)), "I(X; C) of each attribute."))
        if len(shown) >= 2:
            caption = (
                "Left: I(X<sub>i</sub>; X<sub>j</sub>), how much two attributes tell about each other. Right: "
                "I(X<sub>i</sub>; X<sub>j</sub> | C), the same within each class (what TAN's tree maximizes). "
                "Attributes ordered by I(X; C); the diagonals (the entropies) are left blank."
            )
            parts.append(figure(self.ids.inline(heatmaps_svg(mi, cmi)), caption))
        self._section(1, "\n".join(parts))

    # ------------------------------------------------------------------ 3. models
    def models_section(
        self,
        *,
        summary: pd.DataFrame,
        n_splits: int,
        n_repeats: int,
        seed: int | None,
        class_entropy: float,
        left_out: dict[str, str],
    ) -> None:
        done = summary[summary["failure"] == ""]
        best_loss = done["log_loss"].min() if len(done) else np.nan
        rows, classes = [], []
        for _, row in summary.iterrows():
            if row["failure"]:
                rows.append([esc(row["model"]), f"failed: {esc(row['failure'])}", "", "", "", ""])
                classes.append("failed")
                continue
            rows.append(
                [
                    esc(row["model"]),
                    f"{number(row['log_loss'])} ± {number(row['log_loss_std'])}",
                    f"{number(row['error'])} ± {number(row['error_std'])}",
                    f"{seconds_text(row['fit_time'])} ± {seconds_text(row['fit_time_std'])}",
                    seconds_text(row["predict_time"]),
                    f"{row['rank']:.0f}",
                ]
            )
            classes.append("best" if row["log_loss"] == best_loss else "")
        repeats = f"{n_repeats} × " if n_repeats > 1 else ""
        parts = [
            f"<p>{repeats}{n_splits}-fold stratified cross-validation (seed {seed}): every model on the same "
            "folds, fitted on the training rows of each fold (numeric columns cut on those rows only) and scored "
            "on its held-out rows. Mean ± standard deviation over the folds.</p>",
            table(
                ["model", "log-loss (nats per row)", "error rate", "fit time per fold", "predict time", "rank"],
                rows,
                numeric=(1, 2, 3, 4, 5),
                classes=classes,
            ),
            '<p class="note">Log-loss: the mean of −ln P(true class) over the held-out rows, the probability '
            "clipped at 10<sup>−15</sup> (a class missing from a training fold costs 34.5 nats, not infinity). "
            f"Predicting the class frequencies alone scores about H(C) = {class_entropy:.4f} nats. Error rate: the "
            "share of held-out rows whose most probable class is wrong. Rank by mean log-loss; the best row is "
            "in bold; a model that failed has no rank.</p>",
        ]
        parts += [f"<p><b>{esc(name)}</b> was {esc(why)}.</p>" for name, why in left_out.items()]
        self._section(2, "\n".join(parts))

    # ------------------------------------------------------------------ 4. structures
    def structures_section(
        self, *, models: dict[str, Any], fitted: dict[str, Any], errors: dict[str, str], n_rows: int
    ) -> None:
        from ..plotting import draw_svg

        parts = [f"<p>Each model fitted on all {n_rows:,} rows.</p>"]
        for name, model in models.items():
            parts.append(f"<h3>{esc(name)}: {esc(type(model).__name__)}</h3>")
            if name not in fitted:
                parts.append(f'<p class="note">Could not be fitted: {esc(errors.get(name, "unknown error"))}</p>')
                continue
            try:
                svg = self.ids.inline(draw_svg(fitted[name]))
            except Exception as error:  # noqa: BLE001 - a drawing that fails costs one figure, not the report
                parts.append(f'<p class="note">Could not be drawn: {esc(error)}</p>')
                continue
            parts.append(figure(svg, esc(structure_caption(fitted[name]))))
        self._section(3, "\n".join(parts))

    # ------------------------------------------------------------------ 5. interactions
    def interactions_section(self, *, tables: dict[str, pd.DataFrame], notes: dict[str, str], top: int) -> None:
        columns = []
        headings = {
            "tan": "TAN: augmenting arcs",
            "hyperforest": "Hyperforest: hyperedges",
            "kikuchi-bayes": "Kikuchi-Bayes: regions",
        }
        for name, heading in headings.items():
            frame = tables.get(name, pd.DataFrame())
            body = [f"<h3>{esc(heading)}</h3>", f'<p class="note">{esc(notes.get(name, ""))}</p>']
            if len(frame):
                shown = frame.head(top)
                if name == "tan":
                    rows = [[esc(r.parent), esc(r.child), number(r.information)] for r in shown.itertuples()]
                    body.append(table(["parent", "child", "I(parent; child | C)"], rows, numeric=(2,)))
                elif name == "hyperforest":
                    rows = [[names(r.hyperedge), number(r.weight)] for r in shown.itertuples()]
                    if "class" in shown.columns:
                        rows = [[*row, esc(c)] for row, c in zip(rows, shown["class"])]
                    extra = ["class"] if "class" in shown.columns else []
                    body.append(table(["hyperedge", "weight w_h", *extra], rows, numeric=(1,)))
                else:
                    rows = [[names(r.region), str(r.step), number(r.gain)] for r in shown.itertuples()]
                    body.append(table(["region (with the class)", "step", "gain"], rows, numeric=(1, 2)))
                if len(frame) > top:
                    body.append(f'<p class="note">The {top} strongest of {len(frame)}.</p>')
            elif not notes.get(name, "").startswith(("could not", "Kikuchi-Bayes was left out")):
                body.append('<p class="note">None found.</p>')
            columns.append("<div>" + "\n".join(body) + "</div>")
        intro = (
            "<p>What three structure learners found strongest, fitted on all rows, each in nats: TAN's "
            "I(a; b | C) for each arc of its tree; the hyperforest's weight of each hyperedge (for a pair, "
            "I(a; b | C) less an MDL penalty); the training log-likelihood per row that each region of "
            "Kikuchi-Bayes added when its search chose it.</p>"
        )
        self._section(4, intro + '\n<div class="side">\n' + "\n".join(columns) + "\n</div>")

    # ------------------------------------------------------------------ 6. interaction analysis
    def jakulin_section(self, *, graph: Any, note: str, top: int) -> None:
        from matplotlib.figure import Figure

        from ..plotting import draw_interaction_dendrogram, draw_interaction_graph

        if graph is None:
            self._section(5, f'<p class="note">{esc(note)}</p>')
            return
        target, unit = graph.graph["target"], graph.graph["unit"]
        intro = (
            f"<p>Jakulin &amp; Bratko's interaction analysis of all rows: the interaction information "
            f"I(A; B; C) = I(A; B | C) − I(A; B) of each pair of attributes with the class, as a share of the "
            f"class entropy H(C) = {graph.graph['class_entropy']:.4f} {esc(unit)}. Positive is synergy (the pair "
            "tells more about the class than each attribute alone), negative redundancy (they tell the same "
            "thing). P-values: the likelihood ratio of the 3-way table against the model built from its 2-way "
            "tables (an irreducible interaction), chi-squared, Benjamini-Hochberg adjusted; a redundancy is "
            "rarely irreducible: the pair's own dependence explains it.</p>"
        )
        fig = Figure(figsize=(8.5, 6.0), layout="constrained")
        draw_interaction_graph(graph, top=6, ax=fig.subplots())
        pictures = figure(self.ids.inline(_svg(fig)), "The six strongest synergies and redundancies.")
        n = graph.number_of_nodes()
        fig = Figure(figsize=(7.0, max(3.0, 0.3 * min(n, 60) + 1.4)), layout="constrained")
        if n <= 40:
            draw_interaction_dendrogram(graph, ax=fig.subplots())
            pictures += figure(self.ids.inline(_svg(fig)), "Attributes clustered by interaction distance 1 / |I|.")
        pairs = graph.graph["pairs"]
        parts = [intro, '<div class="side">', pictures, "</div>"]
        for kind, chosen in (
            ("synergies", pairs[pairs["interaction"] > 0]),
            ("redundancies", pairs[pairs["interaction"] < 0]),
        ):
            rows = [
                [
                    esc(r.a),
                    esc(r.b),
                    number(r.interaction),
                    f"{100 * r.share:+.1f}%",
                    *([f"{r.adjusted_p_value:.3g}"] if "adjusted_p_value" in pairs else []),
                ]
                for r in chosen.head(top).itertuples()
            ]
            headers = ["a", "b", f"I(a; b; {esc(target)}), {esc(unit)}", "share of H(C)"]
            headers += ["adjusted p"] if "adjusted_p_value" in pairs else []
            parts.append(f"<h3>Strongest {kind}</h3>")
            parts.append(table(headers, rows, numeric=(2, 3, 4)) if rows else '<p class="note">None.</p>')
        self._section(5, "\n".join(parts))

    # ------------------------------------------------------------------ 7. why
    def why_section(self, *, name: str | None, model: Any, explanation: Any, example: Any, note: str) -> None:
        from matplotlib.figure import Figure

        from ..plotting import draw_contribution_summary, draw_waterfall

        if explanation is None:
            self._section(6, f'<p class="note">{esc(note)}</p>')
            return
        parts = [
            f"<p>The model of lowest cross-validated log-loss, <b>{esc(name)}</b>, fitted on all rows: each "
            "prediction's log-odds (or each class's log-probability) is a sum of the model's terms, "
            f'<span class="mono">model.explain(X)</span> (exact: a row\'s terms add up to its score). {esc(note)}</p>'
        ]
        terms = min(15, explanation.shape[1])
        fig = Figure(figsize=(7.5, 0.3 * terms + 1.5), layout="constrained")
        draw_contribution_summary(model, explanation, max_terms=15, ax=fig.subplots())  # the structure is in 4.
        caption = f"The mean absolute contribution of each term over the {len(explanation):,} rows explained."
        parts.append(figure(self.ids.inline(_svg(fig)), caption))
        fig = Figure(figsize=(8.0, 5.6), layout="constrained")
        draw_waterfall(explanation, 0, data=example, ax=fig.subplots())
        parts.append(
            figure(self.ids.inline(_svg(fig)), "Why the first row got its prediction: its terms, largest first.")
        )
        self._section(6, "\n".join(parts))

    # ------------------------------------------------------------------ 6. notes
    def notes_section(
        self, *, warnings_seen: list[str], seconds: dict[str, float], settings: dict[str, Any], version: str
    ) -> None:
        parts = []
        if warnings_seen:
            items = "".join(f"<li>{esc(text)}</li>" for text in warnings_seen)
            parts.append(f'<h3>Warnings while the report ran</h3>\n<ul class="warnings">{items}</ul>')
        rows = [[esc(key), f'<span class="mono">{esc(value)}</span>'] for key, value in settings.items()]
        parts.append("<h3>Settings</h3>\n" + table(["setting", "value"], rows))
        rows = [[esc(stage), f"{value:.2f} s"] for stage, value in seconds.items()]
        parts.append("<h3>Run time</h3>\n" + table(["stage", "seconds"], rows, numeric=(1,)))
        self._section(len(SECTIONS) - 1, "\n".join(parts))
        today = datetime.datetime.now().strftime("%Y-%m-%d %H:%M")
        self.parts.append(
            f"<footer>Made by graphmodels {esc(version)} on {today}. One self-contained page: figures as inline "
            "SVG, no script, nothing fetched.</footer>"
        )


def structure_caption(model: Any) -> str:
    """A one-line account of a fitted model's structure."""
    import networkx as nx

    from ..structures import Hyperforest, hyperforests_by_class

    structure = getattr(model, "structure_", None)
    name = type(model).__name__
    if hasattr(model, "ranked_superparents"):
        return (
            f"{name} averages one model per super-parent set (each attribute, or set of attributes, a parent of "
            "all the others); drawn: the members whose super-parents tell most about the class."
        )
    if isinstance(structure, Hyperforest):
        edges = [h for h in structure.maximal_hyperedges if len(h) > 1]
        largest = max((len(h) for h in edges), default=1)
        return (
            f"{name}: a hyperforest with {plural(len(edges), 'maximal hyperedge')} of two or more attributes, "
            f"the largest of {largest}."
        )
    forests = hyperforests_by_class(model)
    if forests is not None:
        edges = [h for forest in forests.values() for h in forest.maximal_hyperedges if len(h) > 1]
        largest = max((len(h) for h in edges), default=1)
        return (
            f"{name}: one hyperforest per class ({plural(len(forests), 'class', 'classes')}), "
            f"{plural(len(edges), 'maximal hyperedge')} of two or more attributes in all, the largest of {largest}; "
            "drawn: each class's hyperforest in its own panel (the 6 most probable classes at most)."
        )
    if isinstance(structure, nx.DiGraph) and any("counting_number" in d for _, d in structure.nodes(data=True)):
        maximal = [n for n in structure.nodes if structure.in_degree(n) == 0]
        return f"{name}: {plural(len(maximal), 'maximal region')}, {plural(len(structure), 'region')} in all."
    if isinstance(structure, nx.DiGraph):
        kinds = pd.Series([d.get("kind", "other") for _, _, d in structure.edges(data=True)], dtype=object)
        between = int((kinds != "class").sum())
        representation = getattr(model, "representation_", None)  # ChowLiu: a tree per class, or TAN's for all
        if representation == "free":
            return (
                f"{name}: one tree per class ({plural(len(model.classes_), 'class', 'classes')}), {between} arcs "
                "between attributes in all; drawn: each class's tree in its own panel (the 6 most probable classes at most)."
            )
        shared = " (one tree for every class: TAN's)" if representation == "shared" else ""
        return f"{name}{shared}: {plural(len(kinds), 'arc')}, {between} of them between attributes."
    if isinstance(structure, nx.Graph):
        return f"{name}: a Markov network with {plural(structure.number_of_edges(), 'edge')}."
    return name


def class_entropy(counts: TrainingCounts) -> float:
    """``H(C)`` in nats from the class counts."""
    engine = counts.engine
    frequencies = np.asarray(engine.counts([counts.class_name]), dtype=float)
    p = frequencies[frequencies > 0] / frequencies.sum()
    return float(-(p * np.log(p)).sum())
