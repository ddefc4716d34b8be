"""Tests of DiscreteBayesianNetwork and the BIF reader/writer."""

import gzip
import io
import itertools
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from graphmodels.io import load_network, read_bif, write_bif
from graphmodels.networks import DiscreteBayesianNetwork

# A -> B, A -> C.  P(A) = (0.3, 0.7); P(B | A); P(C | A).
SMALL = """
// a hand-written network
network small {
  property "written by hand";
}
variable A {
  type discrete [ 2 ] { a0, a1 };
}
variable B {
  type discrete [ 2 ] { b0, b1 };
  property position = (1, 2);
}
variable C {
  type discrete [ 3 ] { c0, c1, c2 };
}
/* roots use a table,
   children one row per parent state */
probability ( A ) {
  table 0.3, 0.7;
}
probability ( B | A ) {
  (a0) 0.9, 0.1;
  (a1) 0.4, 0.6;
}
probability ( C | A ) {
  (a0) 0.2, 0.5, 0.3;
  (a1) 0.1, 0.1, 0.8;
}
"""


@pytest.fixture(scope="module")
def small():
    return read_bif(SMALL)


@pytest.fixture(scope="module")
def alarm():
    return load_network("alarm")


def test_small_structure(small):
    assert small.name == "small"
    assert small.variables == ["A", "B", "C"]
    assert small.parents == {"A": (), "B": ("A",), "C": ("A",)}
    assert small.states["C"] == ["c0", "c1", "c2"]
    assert small.cpts["B"].tolist() == [[0.9, 0.1], [0.4, 0.6]]
    graph = small.graph
    assert sorted(graph.edges) == [("A", "B"), ("A", "C")]
    assert graph.nodes["C"] == {"cardinality": 3, "states": ["c0", "c1", "c2"], "role": "feature"}
    graph.add_edge("B", "C")  # a new graph each time: the network is unchanged
    assert small.graph.number_of_edges() == 2
    assert small.topological_order() == ["A", "B", "C"]


def test_small_log_likelihood_hand_computed(small):
    rows = pd.DataFrame(
        {"C": ["c0", "c2", "c1"], "A": ["a0", "a1", "a0"], "B": ["b0", "b1", "b1"]}
    )  # columns in another order on purpose
    expected = [0.3 * 0.9 * 0.2, 0.7 * 0.6 * 0.8, 0.3 * 0.1 * 0.5]  # 0.054, 0.336, 0.015
    np.testing.assert_allclose(small.log_likelihood(rows), np.log(expected), rtol=0, atol=1e-12)
    codes = np.array([[0, 0, 0], [1, 1, 2], [0, 1, 1]])
    np.testing.assert_allclose(small.log_likelihood_codes(codes), np.log(expected), rtol=0, atol=1e-12)


def test_small_sums_to_one_over_all_configurations(small):
    codes = np.array(list(itertools.product(range(2), range(2), range(3))))
    assert math.isclose(np.exp(small.log_likelihood_codes(codes)).sum(), 1.0, abs_tol=1e-12)


def test_conditional_table_order_child_slowest():
    # `table` of a conditional block: child slowest, last parent fastest.
    text = SMALL.replace("(a0) 0.9, 0.1;\n  (a1) 0.4, 0.6;", "table 0.9, 0.4, 0.1, 0.6;")
    assert read_bif(text).cpts["B"].tolist() == [[0.9, 0.1], [0.4, 0.6]]


def test_javabayes_dog_problem_form():
    # JavaBayes' dog-problem.bif (the format's reference example): quoted names, no '|' or
    # commas.  P(dog-out = true | bowel-problem, family-out) = 0.99 (true, true),
    # 0.97 (true, false), 0.9 (false, true), 0.3 (false, false).
    text = """
    network "Dog-Problem" { }
    variable "bowel-problem" { type discrete[2] { "true" "false" }; }
    variable "family-out" { type discrete[2] { "true" "false" }; }
    variable "dog-out" { type discrete[2] { "true" "false" }; property "position = (300, 195)" ; }
    probability ( "bowel-problem" ) { table 0.01 0.99 ; }
    probability ( "family-out" ) { table 0.15 0.85 ; }
    probability ( "dog-out" "bowel-problem" "family-out" ) { //3 variable(s) and 8 values
        table 0.99 0.97 0.9 0.3 0.01 0.03 0.1 0.7 ;
    }
    """
    bn = read_bif(text)
    assert bn.name == "Dog-Problem"
    assert bn.parents["dog-out"] == ("bowel-problem", "family-out")
    np.testing.assert_array_equal(bn.cpts["dog-out"][:, :, 0], [[0.99, 0.97], [0.9, 0.3]])


def test_default_row_and_quoted_states():
    text = """
    network n { }
    variable A { type discrete [ 3 ] { "very low", low, high }; }
    variable B { type discrete [ 2 ] { no, yes }; }
    probability ( A ) { table 0.2, 0.3, 0.5; }
    probability ( B | A ) {
      ("very low") 0.5, 0.5;
      default 0.1, 0.9;
    }
    """
    bn = read_bif(text)
    assert bn.states["A"] == ["very low", "low", "high"]
    assert bn.cpts["B"].tolist() == [[0.5, 0.5], [0.1, 0.9], [0.1, 0.9]]
    rows = pd.DataFrame({"A": ["very low"], "B": ["yes"]})
    np.testing.assert_allclose(bn.log_likelihood(rows), [math.log(0.2 * 0.5)])


@pytest.mark.parametrize(
    "old, new, message",
    [
        ("(a1) 0.4, 0.6;", "(a1) 0.4, 0.5, 0.1;", r"line 23: the row of 'B' needs 2 probabilities"),
        ("(a1) 0.4, 0.6;", "(a2) 0.4, 0.6;", r"line 23: 'a2' is not a state of 'A'"),
        ("(a1) 0.4, 0.6;", "(a1) 0.4, 0.5;", r"line 23: probabilities of 'B' sum to 0.9"),
        ("(a1) 0.4, 0.6;", "(a1) 0.4, x;", r"line 23: expected a probability .* got 'x'"),
        ("(a1) 0.4, 0.6;", "(a1, b0) 0.4, 0.6;", r"line 23: a row of 'B' must name 1 parent"),
        ("(a1) 0.4, 0.6;", "(a0) 0.4, 0.6;", r"line 23: second row for 'B'"),
        ("(a1) 0.4, 0.6;", "", r"line 21: probability block of 'B' has no row for parent states \('a1',\)"),
        ("table 0.3, 0.7;", "table 0.3, 0.7, 0.0;", r"line 19: the table of 'A' needs 2 numbers"),
        ("(a0) 0.9, 0.1;", "table 0.9, 0.4, 0.1, 0.6; (a0) 0.9, 0.1;", r"line 22: .*mixes a 'table' list with rows"),
        ("type discrete [ 3 ]", "type continuous [ 3 ]", r"line 14: variable 'C' has type 'continuous'"),
        ("[ 3 ] { c0, c1, c2 }", "[ 4 ] { c0, c1, c2 }", r"line 14: variable 'C' declares 4 states but lists 3"),
        ("probability ( C | A )", "probability ( C | D )", r"line 25: .*'D', which has no variable block"),
        ("(a0) 0.2, 0.5, 0.3;", "(a0) 0.2 0.5, 0.3", r"line 27: expected a probability in the row of 'C', got '\('"),
        ("variable C {", "variables C {", r"line 13: expected 'network', 'variable' or 'probability', got 'variables'"),
        ("/* roots", "/ * roots", r"line 16: expected 'network', 'variable' or 'probability'"),
    ],
)
def test_malformed_bif_names_the_line(old, new, message):
    assert old in SMALL
    with pytest.raises(ValueError, match=message):
        read_bif(SMALL.replace(old, new))


def test_missing_cpt_and_unclosed_block():
    without_c = SMALL[: SMALL.index("probability ( C | A )")]
    with pytest.raises(ValueError, match=r"line 13: variable 'C' has no probability block \(missing CPT\)"):
        read_bif(without_c)
    with pytest.raises(ValueError, match=r"probability block of 'C' is not closed"):
        read_bif(SMALL.rstrip().rstrip("}"))
    with pytest.raises(ValueError, match="unterminated /\\* comment"):
        read_bif(SMALL + "/* never closed")


def test_cycles_are_rejected():
    with pytest.raises(ValueError, match=r"acyclic.*cycle (A -> B -> A|B -> A -> B)"):
        DiscreteBayesianNetwork(
            {"A": ("B",), "B": ("A",)},
            {"A": ["0", "1"], "B": ["0", "1"]},
            {"A": [[0.5, 0.5], [0.5, 0.5]], "B": [[0.5, 0.5], [0.5, 0.5]]},
        )
    text = SMALL.replace(
        "probability ( A ) {\n  table 0.3, 0.7;", "probability ( A | B ) {\n  (b0) 0.3, 0.7; (b1) 0.3, 0.7;"
    )
    with pytest.raises(ValueError, match=r"cycle"):
        read_bif(text)


@pytest.mark.parametrize(
    "change, error, message",
    [
        (lambda p, s, c: c.pop("B"), ValueError, "variable 'B' has no entry in `cpts`"),
        (lambda p, s, c: s.pop("A"), ValueError, "variable 'A' has no entry in `states`"),
        (lambda p, s, c: c.update(B=[[0.9, 0.1]]), ValueError, r"CPT of 'B' must have shape \(2, 2\)"),
        (lambda p, s, c: c.update(A=[1.1, -0.1]), ValueError, "CPT of 'A' has negative entries"),
        (lambda p, s, c: c.update(A=[np.nan, 1.0]), ValueError, "CPT of 'A' has non-finite entries"),
        (lambda p, s, c: c.update(B=[[0.9, 0.1], [0.5, 0.6]]), ValueError, r"'B' given A=a1 sums to 1.1"),
        (lambda p, s, c: p.update(B=("Z",)), ValueError, "parent 'Z' of 'B' is not a variable"),
        (lambda p, s, c: s.update(A=["a0", 1]), TypeError, "states of 'A' must be strings, got 1"),
        (lambda p, s, c: s.update(A=["a0", "a0"]), ValueError, "lists the state 'a0' twice"),
    ],
)
def test_constructor_validation(change, error, message):
    parents = {"A": (), "B": ("A",)}
    states = {"A": ["a0", "a1"], "B": ["b0", "b1"]}
    cpts = {"A": [0.3, 0.7], "B": [[0.9, 0.1], [0.4, 0.6]]}
    change(parents, states, cpts)
    with pytest.raises(error, match=message):
        DiscreteBayesianNetwork(parents, states, cpts)


def test_constructor_renormalizes_within_tolerance():
    bn = DiscreteBayesianNetwork({"A": ()}, {"A": ["x", "y", "z"]}, {"A": [0.3333333, 0.3333333, 0.3333333]})
    np.testing.assert_allclose(bn.cpts["A"], [1 / 3] * 3, rtol=0, atol=1e-15)
    assert not bn.cpts["A"].flags.writeable


def test_log_likelihood_rejects_bad_tables(small):
    good = pd.DataFrame({"A": ["a0"], "B": ["b0"], "C": ["c0"]})
    with pytest.raises(ValueError, match=r"variable 'C' has no state 'c9'"):
        small.log_likelihood(good.assign(C=["c9"]))
    with pytest.raises(ValueError, match=r"column 'D', which is not a variable"):
        small.log_likelihood(good.assign(D=["d"]))
    with pytest.raises(ValueError, match=r"no column for variable 'B'"):
        small.log_likelihood(good.drop(columns="B"))
    with pytest.raises(ValueError, match=r"column 'A' has a missing value"):
        small.log_likelihood(good.assign(A=[None]))
    with pytest.raises(TypeError, match="pandas DataFrame"):
        small.log_likelihood(np.zeros((1, 3)))
    with pytest.raises(ValueError, match=r"code 3 of variable 'C' \(row 0\) is outside 0..2"):
        small.log_likelihood_codes([[0, 0, 3]])


def test_sampling_matches_the_cpts(small):
    frame = small.sample(50_000, random_state=np.random.default_rng(7))
    assert list(frame.columns) == ["A", "B", "C"]
    assert set(frame["C"]) <= {"c0", "c1", "c2"}
    assert abs((frame["A"] == "a0").mean() - 0.3) < 0.01
    for child in ("B", "C"):
        freq = pd.crosstab(frame["A"], frame[child], normalize="index")
        freq = freq.reindex(index=small.states["A"], columns=small.states[child], fill_value=0.0)
        np.testing.assert_allclose(freq.to_numpy(), small.cpts[child], rtol=0, atol=0.01)


def test_sampling_seeds(small, alarm):
    a = alarm.sample_codes(1000, random_state=3)
    np.testing.assert_array_equal(a, alarm.sample_codes(1000, random_state=3))
    assert not np.array_equal(a, alarm.sample_codes(1000, random_state=4))
    pd.testing.assert_frame_equal(small.sample(50, random_state=1), small.sample(50, random_state=1))
    assert small.sample(0, random_state=0).shape == (0, 3)
    with pytest.raises(ValueError, match="non-negative integer"):
        small.sample(-1)


def test_zero_probability_states_are_never_sampled():
    bn = DiscreteBayesianNetwork(
        {"A": (), "B": ("A",)},
        {"A": ["a0", "a1", "a2"], "B": ["b0", "b1", "b2"]},
        {"A": [0.0, 1.0, 0.0], "B": [[1 / 3] * 3, [0.0, 0.0, 1.0], [1 / 3] * 3]},
    )
    codes = bn.sample_codes(2000, random_state=0)
    assert set(codes[:, 0]) == {1} and set(codes[:, 1]) == {2}
    assert np.all(np.isfinite(bn.log_likelihood_codes(codes)))
    assert bn.log_likelihood_codes([[0, 0]])[0] == -np.inf


def test_alarm(alarm):
    assert len(alarm.variables) == 37
    assert alarm.n_edges == 46
    graph = alarm.graph
    assert graph.number_of_edges() == 46
    assert alarm.parents["HRBP"] == ("ERRLOWOUTPUT", "HR")
    assert alarm.states["INTUBATION"] == ["NORMAL", "ESOPHAGEAL", "ONESIDED"]
    for v in alarm.variables:
        np.testing.assert_allclose(alarm.cpts[v].sum(axis=-1), 1.0, rtol=0, atol=1e-12)
    # From the file: probability ( HRBP | ERRLOWOUTPUT, HR ) { ... (TRUE, NORMAL) 0.3, 0.4, 0.3; ...
    np.testing.assert_allclose(alarm.cpts["HRBP"][0, 1], [0.3, 0.4, 0.3])
    order = alarm.topological_order()
    seen = set()
    for v in order:
        assert set(alarm.parents[v]) <= seen
        seen.add(v)


def test_alarm_entropy(alarm):
    # Issue value 10.43 nats; exact value by variable elimination over the parents' marginals:
    # sum_j sum_pa P(pa) H(X_j | pa) = 10.43796.
    estimate, se = alarm.entropy(20_000, random_state=0)
    assert abs(estimate - 10.43) < 0.1
    assert 0 < se < 0.05


def test_entropy_of_independent_variables_is_exact():
    bn = DiscreteBayesianNetwork(
        {"A": (), "B": ()}, {"A": ["x", "y"], "B": ["u", "v"]}, {"A": [0.5, 0.5], "B": [0.5, 0.5]}
    )
    estimate, se = bn.entropy(100)
    assert math.isclose(estimate, 2 * math.log(2)) and se == 0.0


def test_round_trip_text_file_and_gzip(small, alarm, tmp_path):
    for bn in (small, alarm):
        again = read_bif(write_bif(bn))
        assert again.variables == bn.variables
        assert again.parents == bn.parents
        assert again.states == bn.states
        for v in bn.variables:
            np.testing.assert_array_equal(again.cpts[v], bn.cpts[v])
    path = tmp_path / "alarm.bif.gz"
    write_bif(alarm, path)
    with gzip.open(path, "rt") as fh:
        assert fh.read(8) == "network "
    from_gz = read_bif(path)
    from_str_path = read_bif(str(path))
    for v in alarm.variables:
        np.testing.assert_array_equal(from_gz.cpts[v], alarm.cpts[v])
        np.testing.assert_array_equal(from_str_path.cpts[v], alarm.cpts[v])
    buffer = io.StringIO()
    write_bif(small, buffer)
    buffer.seek(0)
    assert read_bif(buffer).cpts["C"].tolist() == small.cpts["C"].tolist()
    assert read_bif(io.BytesIO(SMALL.encode())).variables == ["A", "B", "C"]
    binary = io.BytesIO()
    write_bif(small, binary)
    assert read_bif(io.BytesIO(gzip.compress(binary.getvalue()))).to_dict() == small.to_dict()
    with pytest.raises(ValueError, match="neither BIF text nor an existing file"):
        read_bif(tmp_path / "missing.bif")


def test_round_trip_quoted_names():
    bn = DiscreteBayesianNetwork(
        {"blood pressure": (), "x-ray": ("blood pressure",)},
        {"blood pressure": ["very low", "normal"], "x-ray": ["clear", "not clear"]},
        {"blood pressure": [0.125, 0.875], "x-ray": [[0.1, 0.9], [0.7, 0.3]]},
        name="my net",
    )
    again = read_bif(write_bif(bn))
    assert again.to_dict() == bn.to_dict()


def test_to_dict_from_dict_json(small):
    data = json.loads(json.dumps(small.to_dict()))
    again = DiscreteBayesianNetwork.from_dict(data)
    assert again.to_dict() == small.to_dict()
    with pytest.raises(ValueError, match="no 'cpts' entry"):
        DiscreteBayesianNetwork.from_dict({k: v for k, v in data.items() if k != "cpts"})


def test_load_network_unknown_name():
    with pytest.raises(ValueError, match=r"unknown network 'asia'; expected one of \['alarm'\]"):
        load_network("asia")
    assert load_network("ALARM").n_edges == 46


def test_bundled_alarm_is_the_shared_copy():
    import graphmodels

    bundled = Path(graphmodels.__file__).parent / "data" / "bundled" / "networks" / "alarm.bif.gz"
    assert gzip.decompress(bundled.read_bytes()).count(b"\nvariable ") == 37


def test_alarm_log_likelihood_matches_pgmpy(alarm):
    pytest.importorskip("pgmpy")
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from pgmpy.readwrite import BIFReader

    import graphmodels

    bundled = Path(graphmodels.__file__).parent / "data" / "bundled" / "networks" / "alarm.bif.gz"
    model = BIFReader(string=gzip.decompress(bundled.read_bytes()).decode()).get_model()
    frame = alarm.sample(100, random_state=11)
    expected = np.zeros(len(frame))
    raw = np.zeros(len(frame))
    for cpd in model.get_cpds():
        index = tuple(frame[v].map({s: i for i, s in enumerate(cpd.state_names[v])}).to_numpy() for v in cpd.variables)
        values = cpd.values  # shape (r_child, r_parent1, ...)
        expected += np.log((values / values.sum(axis=0))[index])
        raw += np.log(values[index])
    ours = alarm.log_likelihood(frame)
    # pgmpy keeps rows such as 0.3333333 x 3 unnormalized; we rescale them to sum to 1.
    np.testing.assert_allclose(ours, expected, rtol=0, atol=1e-9)
    np.testing.assert_allclose(ours, raw, rtol=0, atol=1e-5)
