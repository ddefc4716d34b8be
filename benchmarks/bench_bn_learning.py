"""Learning a Bayesian network over all variables (issue 29): ALARM recovery, scale, search optimality, EM.

Four experiments, one run each, every method on the same rows:

1. ALARM recovery. n = 1,000, 5,000 and 20,000 rows forward-sampled from the bundled ALARM
   network (``np.random.default_rng([seed, n])``); the structural Hamming distance (SHD) of each
   learned CPDAG to ALARM's CPDAG (``structure_difference(..., cpdag=True).hamming``: pairs of
   variables joined differently, an arc of the wrong direction or an undirected edge for an arc
   counting once), and the fit time. graphmodels' hill climbing and tabu search (BIC and BDeu,
   ESS 1) and PC-stable (G2, alpha 0.05) against pgmpy's ``HillClimbSearch`` (its defaults: a
   tabu list of 100, BDeu and BIC) and ``PC`` (variant "stable", G2, alpha 0.05, one job) and
   pyAgrum's greedy hill climbing (BIC, BDeu) and MIIC (one thread each). Each fit runs in a
   forked process with a time limit (``--time-limit``); a fit that hits it is reported as such.
2. Scale: a 200-variable random network (``random_hypertree_network(200, 2)``, binary, the
   moral graph of tree-width 2) sampled at 5,000 rows, learned by hill climbing (BIC).
3. Search optimality on tiny problems: on random 4- and 5-variable data sets, how often hill
   climbing (plain; and with a tabu list of 10 and 5 restarts of 3 random moves) reaches the
   best score of all DAGs, which exact search (dynamic programming over subsets, proven equal to
   enumerating all DAGs in tests/test_structure_search.py) gives.
4. EM: ALARM rows with 20 % of the cells missing completely at random, the parameters of the
   true DAG by EM (graphmodels ``BayesianNetwork(structure=dag, missing="em")`` against pyAgrum's
   ``BNLearner.useEM``), both with a pseudo-count of 1 per cell and the relative stopping rule
   1e-6; the mean over variables and parent configurations of KL(true || learned), and the time.

Usage::

    python benchmarks/bench_bn_learning.py [--sizes 1000 5000 20000] [--time-limit 300] [--no-write]

Writes its section of RESULTS.md between ``<!-- bn-learning:start -->`` and ``<!-- bn-learning:end -->``.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import sys
import tempfile
import time
from pathlib import Path

import networkx as nx
import numpy as np
import pandas as pd

from graphmodels.io import load_network
from graphmodels.learners import exact_search, hill_climbing, pc_stable
from graphmodels.models import BayesianNetwork
from graphmodels.networks import random_hypertree_network
from graphmodels.structures import cpdag, structure_difference

sys.path.insert(0, str(Path(__file__).resolve().parent))
from common import RESULTS, load_average, machine_markdown, markdown_table, write_section  # noqa: E402


# ---------------------------------------------------------------------------- running with a limit
def _child(queue, function, frame):
    started = time.perf_counter()
    try:
        graph = function(frame)
        queue.put(("ok", sorted(graph.edges), time.perf_counter() - started))
    except Exception as error:  # reported in the table, not raised: one peer's failure ends nothing
        print(f"error: {type(error).__name__}: {error}"[:300], flush=True)
        queue.put(("error", [], time.perf_counter() - started))


def limited(function, frame, limit):
    """Run `function(frame)` (returning a graph) in a forked process; (status, arcs, seconds)."""
    context = mp.get_context("fork")
    queue = context.Queue()
    process = context.Process(target=_child, args=(queue, function, frame))
    process.start()
    try:
        result = queue.get(timeout=limit)
    except Exception:
        result = ("time limit", [], float(limit))
    process.join(5)
    if process.is_alive():
        process.terminate()
        process.join()
    return result


def _as_digraph(arcs, nodes):
    graph = nx.DiGraph()
    graph.add_nodes_from(nodes)
    graph.add_edges_from(arcs)
    return graph


# ---------------------------------------------------------------------------- the learners
def ours(search, score=None):
    def learn(frame):
        if search == "pc":
            return pc_stable(frame, test="g2", alpha=0.05)
        return hill_climbing(frame, score=score, tabu=10 if search == "tabu" else 0)

    return learn


def pgmpy_hill_climbing(score):
    def learn(frame):
        from pgmpy.estimators import HillClimbSearch

        dag = HillClimbSearch(frame).estimate(scoring_method=score, show_progress=False)
        return nx.DiGraph(list(dag.edges))

    return learn


def pgmpy_pc(frame):
    from pgmpy.estimators import PC

    pdag = PC(frame).estimate(
        variant="stable", ci_test="g_sq", significance_level=0.05, return_type="pdag", n_jobs=1, show_progress=False
    )
    graph = nx.DiGraph(list(pdag.directed_edges))
    for u, v in pdag.undirected_edges:
        graph.add_edge(u, v)
        graph.add_edge(v, u)
    return graph


def _pyagrum_learner(frame):
    import pyagrum as gum

    gum.setNumberOfThreads(1)
    handle, path = tempfile.mkstemp(suffix=".csv")
    os.close(handle)
    frame.to_csv(path, index=False)
    learner = gum.BNLearner(path)
    return learner, path


def pyagrum_greedy(score):
    def learn(frame):
        learner, path = _pyagrum_learner(frame)
        learner.useGreedyHillClimbing()
        {"bic": learner.useScoreBIC, "bdeu": learner.useScoreBDeu}[score]()
        dag = learner.learnDAG()  # the structure only, as the other searches
        os.unlink(path)
        return nx.DiGraph([(learner.nameFromId(u), learner.nameFromId(v)) for u, v in dag.arcs()])

    return learn


def pyagrum_miic(frame):
    learner, path = _pyagrum_learner(frame)
    learner.useMIIC()
    pdag = learner.learnPDAG()
    os.unlink(path)
    name = learner.nameFromId
    graph = nx.DiGraph([(name(u), name(v)) for u, v in pdag.arcs()])
    for u, v in pdag.edges():
        graph.add_edge(name(u), name(v))
        graph.add_edge(name(v), name(u))
    return graph


def methods(peers):
    table = [
        ("graphmodels", "hill climbing, BIC", ours("hc", "bic")),
        ("graphmodels", "hill climbing, BDeu", ours("hc", "bdeu")),
        ("graphmodels", "tabu, BIC", ours("tabu", "bic")),
        ("graphmodels", "tabu, BDeu", ours("tabu", "bdeu")),
        ("graphmodels", "PC-stable, G2", ours("pc")),
    ]
    if "pyagrum" in peers:
        table += [
            ("pyAgrum", "greedy hill climbing, BIC", pyagrum_greedy("bic")),
            ("pyAgrum", "greedy hill climbing, BDeu", pyagrum_greedy("bdeu")),
            ("pyAgrum", "MIIC", pyagrum_miic),
        ]
    if "pgmpy" in peers:
        table += [
            ("pgmpy", "HillClimbSearch, BIC", pgmpy_hill_climbing("bic-d")),
            ("pgmpy", "HillClimbSearch, BDeu", pgmpy_hill_climbing("bdeu")),
            ("pgmpy", "PC stable, G2", pgmpy_pc),
        ]
    return table


def alarm_recovery(args, peers):
    alarm = load_network("alarm")
    truth = cpdag(alarm.graph)
    rows = []
    for n in args.sizes:
        frame = alarm.sample(n, random_state=np.random.default_rng([args.seed, n]))
        frame = frame.astype(str)
        for library, method, learn in methods(peers):
            status, arcs, seconds = limited(learn, frame, args.time_limit)
            shd = structure_difference(_as_digraph(arcs, alarm.variables), truth, cpdag=True).hamming
            rows.append(
                {
                    "n": n,
                    "library": library,
                    "method": method,
                    "SHD": shd if status == "ok" else None,
                    "seconds": seconds,
                    "status": status,
                }
            )
            print(n, library, method, status, rows[-1]["SHD"], f"{seconds:.2f}s", flush=True)
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------- scale
def wide_network(args):
    network, _ = random_hypertree_network(200, 2, random_state=args.seed)
    frame = network.sample(5000, random_state=args.seed)
    status, arcs, seconds = limited(ours("hc", "bic"), frame, max(args.time_limit, 600))
    shd = structure_difference(_as_digraph(arcs, network.variables), cpdag(network.graph), cpdag=True).hamming
    truth = {frozenset(arc) for arc in network.graph.edges}
    learned = {frozenset(arc) for arc in arcs}
    print("200 variables", status, shd, f"{seconds:.2f}s", flush=True)
    return {
        "skeleton": f"{len(truth & learned)} shared, {len(truth - learned)} missing, {len(learned - truth)} extra",
        "status": status,
        "seconds": seconds,
        "SHD": shd,
        "true arcs": network.graph.number_of_edges(),
        "learned arcs": len(arcs),
    }


# ---------------------------------------------------------------------------- optimality on tiny problems
def _random_frame(rng, n_variables, n_rows=200):
    """Rows of a random DAG (each arc of a random order with probability 0.5) with random tables."""
    order = list(rng.permutation(n_variables))
    data: dict[str, np.ndarray] = {}
    for k, v in enumerate(order):
        parents = [p for p in order[:k] if rng.random() < 0.5]
        r = int(rng.integers(2, 4))
        index = np.zeros(n_rows, dtype=int)
        for p in parents:
            index = index * 3 + data[f"x{p}"]
        table = rng.dirichlet(np.full(r, 0.7), size=3 ** len(parents))
        data[f"x{v}"] = (rng.random(n_rows)[:, None] > np.cumsum(table[index], axis=1)).sum(axis=1).clip(0, r - 1)
    return pd.DataFrame({name: data[name] for name in sorted(data)}).astype(str)


def optimality(args):
    rng = np.random.default_rng(args.seed)
    rows = []
    for n_variables in (4, 5):
        hits = {"plain": 0, "tabu + restarts": 0}
        for draw in range(args.draws):
            score = ("bic", "bdeu", "k2")[draw % 3]
            frame = _random_frame(rng, n_variables)
            best = exact_search(frame, score=score).graph["score"]
            plain = hill_climbing(frame, score=score)
            climbed = hill_climbing(frame, score=score, tabu=10, restarts=5, perturb=3, random_state=draw)
            hits["plain"] += plain.graph["score"] >= best - 1e-9
            hits["tabu + restarts"] += climbed.graph["score"] >= best - 1e-9
        for name, hit in hits.items():
            rows.append({"variables": n_variables, "hill climbing": name, "best of all DAGs": f"{hit}/{args.draws}"})
            print(n_variables, name, hit, "/", args.draws, flush=True)
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------- EM
def _aligned(learned, truth, v):
    """The learned CPT of `v` with the true network's parent order and state order."""
    table = np.asarray(learned.cpts[v], dtype=np.float64)
    parents = list(learned.parents[v])
    table = np.transpose(table, [parents.index(p) for p in truth.parents[v]] + [len(parents)])
    for axis, name in enumerate([*truth.parents[v], v]):
        index = [learned.states[name].index(s) for s in truth.states[name]]
        table = np.take(table, index, axis=axis)
    return table


def mean_kl(learned, truth):
    """Mean over variables of the mean over parent configurations of KL(true || learned), nats."""
    values = []
    for v in truth.variables:
        p = np.asarray(truth.cpts[v], dtype=np.float64)
        q = _aligned(learned, truth, v)
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(p > 0, p * (np.log(p) - np.log(q)), 0.0)
        values.append(terms.sum(axis=-1).mean())
    return float(np.mean(values))


def em_comparison(args, peers):
    from graphmodels.io import from_pyagrum, to_pyagrum

    alarm = load_network("alarm")
    n = args.em_rows
    frame = alarm.sample(n, random_state=np.random.default_rng([args.seed, n, 1])).astype(str)
    holes = frame.mask(np.random.default_rng([args.seed, 2]).random(frame.shape) < 0.2)
    categorical = pd.DataFrame({v: pd.Categorical(holes[v], categories=alarm.states[v]) for v in alarm.variables})
    started = time.perf_counter()
    model = BayesianNetwork(structure=alarm.graph, missing="em", estimator="laplace", em_tol=1e-6)
    model.fit(categorical)
    ours_seconds = time.perf_counter() - started
    rows = [
        {
            "library": "graphmodels",
            "mean KL (nats)": mean_kl(model.to_bayesian_network(), alarm),
            "seconds": ours_seconds,
            "iterations": int(model.em_trace_["iteration"].max()),
        }
    ]
    print("EM graphmodels", rows[-1], flush=True)
    if "pyagrum" in peers:
        import pyagrum as gum

        gum.setNumberOfThreads(1)
        template = to_pyagrum(alarm)
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "holes.csv"
            holes.fillna("?").to_csv(path, index=False)
            started = time.perf_counter()
            learner = gum.BNLearner(str(path), template, ["?"])
            learner.useSmoothingPrior(1.0)
            learner.useEMWithRateCriterion(1e-6)
            learned = learner.learnParameters(template.dag())
            seconds = time.perf_counter() - started
        rows.append(
            {
                "library": "pyAgrum",
                "mean KL (nats)": mean_kl(from_pyagrum(learned), alarm),
                "seconds": seconds,
                "iterations": int(learner.EMnbrIterations()),
            }
        )
        print("EM pyAgrum", rows[-1], flush=True)
    # Available-case parameters (no EM), for scale.
    started = time.perf_counter()
    available = BayesianNetwork(structure=alarm.graph, missing="available-case", estimator="laplace").fit(categorical)
    rows.append(
        {
            "library": "graphmodels, available-case (no EM)",
            "mean KL (nats)": mean_kl(available.to_bayesian_network(), alarm),
            "seconds": time.perf_counter() - started,
            "iterations": 0,
        }
    )
    return pd.DataFrame(rows)


# ---------------------------------------------------------------------------- report
def _fmt_recovery(table):
    shown = table.copy()
    shown["SHD"] = [str(int(s)) if st == "ok" else st for s, st in zip(shown["SHD"].fillna(-1), shown["status"])]
    shown["seconds"] = [
        f"{s:.2f}" if st == "ok" else f"> {s:.0f}" if st == "time limit" else f"{s:.2f}"
        for s, st in zip(shown["seconds"], shown["status"])
    ]
    wide = shown.pivot_table(
        index=["library", "method"], columns="n", values=["SHD", "seconds"], aggfunc="first", sort=False
    )
    wide.columns = [f"{what} n={n}" for what, n in wide.columns]
    order = [f"{what} n={n}" for n in sorted(table["n"].unique()) for what in ("SHD", "seconds")]
    return wide[order].reset_index()


#: The heading of each part's subsection, to carry a skipped part's last results over.
HEADINGS = {
    "alarm": "### ALARM recovery",
    "wide": "### 200 variables",
    "optimality": "### Hill climbing against the best of all DAGs",
    "em": "### EM:",
}


def earlier_subsection(part):
    """The subsection of `part` in the bn-learning section of RESULTS.md (its last run), or None."""
    text = RESULTS.read_text(encoding="utf-8") if RESULTS.exists() else ""
    start, end = "<!-- bn-learning:start -->", "<!-- bn-learning:end -->"
    if start not in text or end not in text:
        return None
    section = text.split(start, 1)[1].split(end, 1)[0]
    for block in section.split("\n### ")[1:]:
        block = "### " + block.strip()
        if block.startswith(HEADINGS[part]):
            return block.split("\n\nInterpretation", 1)[0]
    return None


def warm_up(peers):
    """Import every library (and scipy.special, which graphmodels imports on first use) before the
    forks, so that no fit's time includes an import."""
    import scipy.special  # noqa: F401

    tiny = load_network("alarm").sample(200, random_state=0).astype(str)
    hill_climbing(tiny, score="bic")
    pc_stable(tiny)
    if "pgmpy" in peers:
        import pgmpy.estimators  # noqa: F401
    if "pyagrum" in peers:
        import pyagrum  # noqa: F401


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 5000, 20000])
    parser.add_argument("--time-limit", type=float, default=120.0)
    parser.add_argument("--draws", type=int, default=60)
    parser.add_argument("--em-rows", type=int, default=2000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--peers", nargs="*", default=["pyagrum", "pgmpy"])
    parser.add_argument("--skip", nargs="*", default=[], choices=["alarm", "wide", "optimality", "em"])
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    peers = []
    for peer in args.peers:
        try:
            __import__(peer)
            peers.append(peer)
        except ImportError:
            print(f"{peer} is not installed: left out", flush=True)
    warm_up(peers)
    started_load = load_average()
    machine = machine_markdown()
    started = time.perf_counter()
    sections = []
    if "alarm" not in args.skip:
        recovery = alarm_recovery(args, peers)
        ok = recovery[recovery["status"] == "ok"]
        lines = []
        for n in args.sizes:
            at = ok[ok["n"] == n]
            best_ours = at[at["library"] == "graphmodels"]["SHD"].min()
            best_peer = at[at["library"] != "graphmodels"]["SHD"].min()
            lines.append(f"- n = {n}: best SHD graphmodels {best_ours:.0f}, best peer {best_peer:.0f}.")
        n = max(args.sizes)
        at = recovery[recovery["n"] == n].set_index("method")
        hc = at.loc["hill climbing, BIC", "seconds"]
        for peer in ("HillClimbSearch, BIC", "greedy hill climbing, BIC"):
            if peer in at.index:
                limit = " (at least: time limit)" if at.loc[peer, "status"] == "time limit" else ""
                lines.append(
                    f"- n = {n}: {peer} / graphmodels hill climbing (BIC) time = {at.loc[peer, 'seconds'] / hc:.1f}{limit}."
                )
        sections.append(
            "### ALARM recovery (SHD to the true CPDAG; seconds per fit)\n\n"
            + markdown_table(_fmt_recovery(recovery).astype(str))
            + "\n\n"
            + "\n".join(lines)
        )
    if "wide" not in args.skip:
        wide = wide_network(args)
        sections.append(
            "### 200 variables\n\n"
            f"`random_hypertree_network(200, 2, random_state={args.seed})` (binary; {wide['true arcs']} arcs), "
            f"5,000 rows, hill climbing (BIC): {wide['status']}, {wide['seconds']:.1f} s, "
            f"{wide['learned arcs']} arcs learned, SHD to the true CPDAG {wide['SHD']}; skeleton: "
            f"{wide['skeleton']} edges. (The truth has no v-structure, a k-tree's parents being adjacent, so its "
            "CPDAG is all undirected and every v-structure an extra arc creates turns edges into arcs.)"
        )
    if "optimality" not in args.skip:
        table = optimality(args)
        sections.append(
            "### Hill climbing against the best of all DAGs\n\n"
            f"{args.draws} random data sets per size (200 rows; a random DAG, 2-3 states; scores BIC, BDeu, K2 in turn); "
            "the best score from exact search.\n\n" + markdown_table(table.astype(str))
        )
    if "em" not in args.skip:
        table = em_comparison(args, peers)
        shown = table.assign(
            **{
                "mean KL (nats)": table["mean KL (nats)"].map("{:.4f}".format),
                "seconds": table["seconds"].map("{:.2f}".format),
            }
        )
        sections.append(
            f"### EM: parameters of ALARM's DAG, {args.em_rows:,} rows, 20 % of the cells missing at random\n\n"
            + markdown_table(shown.astype(str))
        )
    total = time.perf_counter() - started
    carried = []
    for part in args.skip:  # a skipped part keeps its last results, said to come from an earlier run
        earlier = earlier_subsection(part)
        if earlier is not None:
            carried.append(part)
            heading, _, rest = earlier.partition("\n")
            note = " (from an earlier run of this script)"
            sections.append(f"{heading}{'' if heading.endswith(note) else note}\n{rest}")
    order = [HEADINGS[part] for part in ("alarm", "wide", "optimality", "em")]
    sections.sort(key=lambda text: next(i for i, h in enumerate(order) if text.startswith(h)))
    body = (
        "## Learning a Bayesian network over all variables (issue 29)\n\n"
        f"`python benchmarks/bench_bn_learning.py --sizes {' '.join(map(str, args.sizes))} "
        f"--time-limit {args.time_limit:.0f}{' --skip ' + ' '.join(args.skip) if args.skip else ''}` "
        f"({total:.0f} s in all). See the script's docstring for the protocol. Load average (1, 5, 15 min) "
        f"at the start {started_load}, at the end {load_average()}: each fit in its own process, one "
        "after the other; compare the ratios within one run.\n\n"
        "Machine:\n\n" + machine + "\n\n" + "\n\n".join(sections)
    )
    print(body)
    if not args.no_write:
        write_section("bn-learning", body)


if __name__ == "__main__":
    main()
