"""Animations of learning traces (issue 17): ``plotting.animate`` and ``graphmodels animate``.

The proof: an animation has one frame per step plus the final one; the structure of frame k
is the one the accepted steps up to k build (replayed here independently of the module) and is
what is drawn; the GIF written reads back in Pillow with as many frames.
"""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import networkx as nx  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
from PIL import Image  # noqa: E402

import graphmodels as gm  # noqa: E402
from graphmodels.cli import main  # noqa: E402
from graphmodels.plotting import animate, animation_widget  # noqa: E402
from graphmodels.plotting.animation import _hyperforest_replay  # noqa: E402

SMALL = {"figsize": (3.0, 2.5)}

# Animations made only to inspect their frames are never rendered by matplotlib's timer.
pytestmark = pytest.mark.filterwarnings("ignore:Animation was deleted without rendering anything")


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def car():
    return gm.datasets.load("car", return_X_y=True)


@pytest.fixture(scope="module")
def tan(car):
    return gm.TAN(trace=True).fit(*car)


def _augmenting(graph):
    return {frozenset((u, v)) for u, v, kind in graph.edges(data="kind") if kind == "augmenting"}


def _drawn_edges(ax, gid):
    return [p for p in ax.patches if p.get_gid() == gid]


def _random_frame(seed, n_columns, n_rows=300):
    """Columns copying their left neighbour often; the class a function of the first two."""
    rng = np.random.default_rng(seed)
    columns, previous = {}, rng.integers(0, 3, n_rows)
    for j in range(n_columns):
        columns[f"x{j}"] = np.where(rng.random(n_rows) < 0.5, previous, rng.integers(0, 3, n_rows))
        previous = columns[f"x{j}"]
    X = pd.DataFrame(columns).astype(str)
    y = pd.Series(np.where(columns["x0"] == columns["x1"], "same", "other"), name="label")
    return X, y


def test_tan_has_one_frame_per_step_plus_the_final(tan):
    anim = animate(tan, **SMALL)
    assert len(anim.frames) == len(tan.trace_) + 1 == 17
    assert anim.frames[-1].row is None and anim.structures[-1] is tan.structure_
    # The first step of TAN on car, as docs/traces.rst shows it.
    assert anim.frames[0].caption == "step 1/16: accept (buying, maint), I = 0.072 nats \N{EM DASH} joins two trees"
    assert anim.frames[4].caption.startswith("step 5/16: reject (maint, safety), I = 0.0064 nats")


def test_frame_k_draws_the_structure_of_the_accepted_steps_up_to_k(tan):
    anim = animate(tan, **SMALL)
    ax = anim._fig.axes[0]
    accepted: set[frozenset] = set()
    n_classes_arcs = sum(1 for _, _, kind in tan.structure_.edges(data="kind") if kind == "class")
    for k, row in enumerate(tan.trace_.itertuples()):
        if row.action == "accept":
            accepted.add(frozenset(row.item))
        structure = anim.structures[k]
        assert _augmenting(structure) == accepted
        assert set(structure.nodes) == set(tan.structure_.nodes)  # every node from frame 0 on
        anim._func(k)
        assert len(_drawn_edges(ax, "edge:augmenting")) == len(accepted)
        assert len(_drawn_edges(ax, "edge:class")) == n_classes_arcs
        assert ax.get_title(loc="left").startswith(f"TAN\nstep {k + 1}/16: {row.action}")
        highlighted = [line for line in ax.lines if line.get_gid() == "step"]
        assert len(highlighted) == (1 if row.action in ("accept", "reject") else 0)
        if row.action in ("accept", "reject"):
            assert highlighted[0].get_linestyle() == ("-" if row.action == "accept" else "--")
        cycle = [line for line in ax.lines if line.get_gid() == "cycle"]
        assert len(cycle) == (1 if row.action == "reject" else 0)
    assert accepted == _augmenting(tan.structure_)


def test_layout_is_fixed_across_frames(tan):
    anim = animate(tan, **SMALL)
    ax = anim._fig.axes[0]
    offsets, limits = [], []
    for k in (0, 5, len(anim.frames) - 1):
        anim._func(k)
        nodes = next(c for c in ax.collections if c.get_gid() == "nodes")
        offsets.append(np.asarray(nodes.get_offsets()))
        limits.append((ax.get_xlim(), ax.get_ylim()))
    for other in offsets[1:]:
        np.testing.assert_array_equal(offsets[0], other)
    assert limits[0] == limits[1] == limits[2]


def test_gif_reads_back_with_one_image_per_frame(tan, tmp_path):
    anim = animate(tan, interval=100, max_frames=5, **SMALL)  # each frame is rendered: a few suffice
    path = tmp_path / "tan.gif"
    anim.save(path, writer="pillow", dpi=50)
    with Image.open(path) as image:
        assert image.format == "GIF" and image.n_frames == len(anim.frames) == 5


def test_to_jshtml_is_html(tan):
    html = animate(tan, max_frames=3, **SMALL).to_jshtml()
    assert "<script" in html and "<img" in html


def test_max_frames_leaves_out_rejected_steps_first():
    X, y = _random_frame(0, 14)  # 91 candidate edges, 13 accepted
    model = gm.TAN(trace=True).fit(X, y)
    steps = model.trace_
    anim = animate(model, max_frames=30, **SMALL)
    assert len(steps) + 1 > 30 and len(anim.frames) == 30
    kept = [frame.row["step"] for frame in anim.frames[:-1]]
    assert kept == sorted(kept)
    assert set(steps.loc[steps["action"] != "reject", "step"]) <= set(kept)  # every accepted step and root
    for frame in anim.frames[:-1]:
        upto = steps[(steps["step"] <= frame.row["step"]) & (steps["action"] == "accept")]
        assert _augmenting(frame.structure) == set(map(frozenset, upto["item"]))
    # Fewer frames than accepted steps: those are subsampled evenly, the order kept.
    few = animate(model, max_frames=5, **SMALL)
    assert len(few.frames) == 5 and all(f.row["action"] != "reject" for f in few.frames[:-1])


def _fitted(name, car):
    X, y = car
    models = {
        "fan": lambda: gm.FAN(trace=True).fit(X, y),
        "kdb": lambda: gm.KDB(k=2, trace=True).fit(X, y),
        "skdb": lambda: gm.SelectiveKDB(max_k=2, trace=True).fit(X.iloc[:600], y.iloc[:600]),
        "chow-liu": lambda: gm.ChowLiu(trace=True, criterion="ml", representation="free").fit(X, y),
        "chow-liu-shared": lambda: gm.ChowLiu(trace=True).fit(X, y),  # car: "auto" keeps TAN's tree
        "chow-liu-tree": lambda: gm.ChowLiuTree(trace=True).fit(X),
        "hyperforest": lambda: gm.HyperforestClassifier(trace=True, n_starts=3).fit(X, y),
        "hyperforest-global": lambda: gm.HyperforestClassifier(trace=True, algorithm="global").fit(X, y),
        "hyperforest-shared": lambda: gm.HyperforestClassifier(trace=True, representation="shared", n_starts=3).fit(
            X, y
        ),
        "hyperforest-free": lambda: gm.HyperforestClassifier(trace=True, representation="Cf", n_starts=2).fit(X, y),
        "hyperforest-density": lambda: gm.HyperforestDensity(trace=True, treewidth=2, n_starts=2).fit(X),
        "kikuchi-bayes": lambda: gm.KikuchiBayes(trace=True, max_region_size=3).fit(X, y),
        "hnb": lambda: gm.HierarchicalNaiveBayes(trace=True, random_state=0).fit(X, y),
    }
    return models[name]()


def _same(a, b):
    if isinstance(a, nx.Graph):
        return {frozenset(e) for e in a.edges} == {frozenset(e) for e in b.edges} and set(a) == set(b)
    if isinstance(a, gm.structures.Hyperforest):
        return set(a.maximal_hyperedges) == set(b.maximal_hyperedges)
    return [frozenset(r) for r in a] == [frozenset(r) for r in b]


@pytest.mark.parametrize(
    "name",
    [
        "fan",
        "kdb",
        "skdb",
        "chow-liu",
        "chow-liu-shared",
        "chow-liu-tree",
        "hyperforest",
        "hyperforest-global",
        "hyperforest-shared",
        "hyperforest-free",
        "hyperforest-density",
        "kikuchi-bayes",
        "hnb",
    ],
)
def test_every_supported_search_replays_to_its_final_structure(name, car):
    model = _fitted(name, car)
    options = {"class_label": model.classes_[-1]} if name in ("chow-liu", "hyperforest-free") else {}
    anim = animate(model, **options, **SMALL)
    last_step = anim.structures[-2]  # after the last step: the final structure (Kikuchi-Bayes: the path's end)
    if name == "kikuchi-bayes":
        assert [frozenset(r) for r in last_step] == [frozenset(r) for r in model.path_["region"]]
        assert _same(anim.structures[-1], model.path_["region"].iloc[: model.map_step_ + 1])
    elif name in ("chow-liu", "hyperforest-free"):
        assert _same(last_step, model.structures_[-1])
    elif name in ("hyperforest", "hyperforest-global"):  # the default "auto": the representation it kept
        # car: the shared hyperforest (a per-class one replays its first class's search).
        assert model.representation_ == "shared"
        assert _same(last_step, model.structure_)
    else:
        assert name != "chow-liu-shared" or model.representation_ == "shared"
        assert _same(last_step, model.structure_)
    # The first frame of each kind of step (accept, reject, a region, a latent...: what a frame
    # highlights depends on its step's action and whether it was accepted) and the final frame
    # draw; the other frames take the same code on the structures in between.
    first_of_kind = {}
    for k, frame in enumerate(anim.frames[:-1]):
        first_of_kind.setdefault((frame.row.get("action"), frame.accepted), k)
    for k in [*first_of_kind.values(), len(anim.frames) - 1]:
        anim._func(k)


def test_a_free_hyperforest_search_replays_each_class_to_its_structure(car):
    model = _fitted("hyperforest-free", car)  # one search per class
    for k, label in enumerate(model.classes_):
        anim = animate(model, class_label=label, max_frames=2, **SMALL)
        assert _same(anim.structures[-1], model.structures_[k])
        replay = _hyperforest_replay(model, label)
        assert replay.title == f"class {label}"
        assert _same(replay.structures[-1], model.structures_[k])
        assert all(row["class"] == label for row in replay.rows)
    plt.close("all")


def test_hnb_frames_add_the_latents_in_order(car):
    model = _fitted("hnb", car)
    anim = animate(model, **SMALL)
    latents = [[n for n, r in s.nodes(data="role") if r == "latent"] for s in anim.structures]
    names = [name for name, _, _ in model.latent_definitions_]
    assert latents[0] == [] and sorted(latents[-1]) == sorted(names)
    counts = [len(x) for x in latents]
    assert counts == sorted(counts)


@pytest.mark.parametrize(
    ("make", "error", "match"),
    [
        (lambda car: gm.TAN().fit(*car), ValueError, r"fit it with trace=True"),
        (lambda car: gm.NaiveBayes().fit(*car), ValueError, r"animate supports TAN, FAN, KDB"),
        (lambda car: gm.TAN(trace=True), gm.models.NotFittedError, "not fitted"),
        (lambda car: nx.path_graph(3), TypeError, "Expected a fitted model"),
    ],
)
def test_what_cannot_be_animated_is_refused(make, error, match, car):
    with pytest.raises(error, match=match):
        animate(make(car))


def test_bad_options_are_refused(tan, car):
    with pytest.raises(ValueError, match=r"`max_frames` must be an integer >= 2, got 1"):
        animate(tan, max_frames=1)
    chow_liu = gm.ChowLiu(trace=True, representation="free").fit(*car)
    with pytest.raises(ValueError, match="`class_label` must be one of the classes"):
        animate(chow_liu, class_label="nope")


def test_widget_without_ipywidgets_says_how_to_install(tan, monkeypatch):
    import builtins

    real_import = builtins.__import__

    def no_ipywidgets(name, *args, **kwargs):
        if name == "ipywidgets":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_ipywidgets)
    with pytest.raises(ImportError, match="pip install ipywidgets"):
        animation_widget(tan)


def test_widget_has_a_slider_over_the_frames(tan):
    widgets = pytest.importorskip("ipywidgets")
    box = animation_widget(tan, **SMALL)
    slider = next(w for w in box.children[0].children if isinstance(w, widgets.IntSlider))
    assert slider.max == len(tan.trace_)
    slider.value = 5  # draws frame 5 in the figure the output shows
    assert box.figure.axes[0].get_title(loc="left").startswith("TAN\nstep 6/16")


# ----------------------------------------------------------------------------- command line
def test_cli_writes_the_gif(tmp_path, capsys):
    path = tmp_path / "tan.gif"
    argv = ["animate", "car", "--model", "tan", "--out", str(path), "--dpi", "30", "--interval", "100"]
    assert main([*argv, "--max-frames", "4"]) == 0  # TAN on car has 17 frames: every one is rendered
    with Image.open(path) as image:
        assert image.n_frames == 4
    assert f"4 frames (100 ms each) saved to {path}" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--out", "x.png"], "the file name must end in .gif"),
        (["--out", "/no/such/directory/x.gif"], "does not exist"),
        (["--out", "x.gif", "--model", "nb"], "has no structure search to animate; choose from: tan"),
    ],
)
def test_cli_bad_arguments_fail_before_fitting(argv, message, monkeypatch, capsys):
    def no_fit(self, *args, **kwargs):
        raise AssertionError("fitted")

    monkeypatch.setattr(gm.TAN, "fit", no_fit)
    monkeypatch.setattr(gm.NaiveBayes, "fit", no_fit)
    assert main(["animate", "car", *argv]) == 2
    assert message in capsys.readouterr().err


def test_in_a_notebook_only_the_animation_is_shown(tan):
    # Jupyter's inline backend draws every figure left open in pyplot when a cell ends: the figure
    # animate made was shown again as a static frame under HTML(anim.to_jshtml()) (issue 26).
    pytest.importorskip("matplotlib_inline", reason="needs the notebook extra: pip install 'graphmodels[notebook]'")
    backend = matplotlib.get_backend()
    plt.switch_backend("module://matplotlib_inline.backend_inline")
    try:
        anim = animate(tan, max_frames=2, **SMALL)
        assert plt.get_fignums() == []  # nothing left for the backend to show after the cell
        html = anim.to_jshtml()  # the animation still renders its figure
        assert html.count("<img") == 1 and html.count("data:image/png;base64") == 2  # one player, 2 frames
    finally:
        plt.switch_backend(backend)
