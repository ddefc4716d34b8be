"""The network readers (BIF, XMLBIF, UAI) against hostile and large files (issue 26): a byte
budget on the decompressed text, declared table sizes checked before any number is read, and
the fast numpy path giving the same networks and errors as the careful token-by-token path."""

import bz2
import gzip
import io
import lzma
import tracemalloc

import numpy as np
import pytest

from graphmodels.io import bif, load_network, read_bif, read_uai, read_xmlbif, uai, write_bif, write_uai, write_xmlbif
from graphmodels.models import FileTooLargeError
from graphmodels.networks import DiscreteBayesianNetwork
from graphmodels.stats import TableTooLargeError


def _network(seed=0):
    """Four variables with 2-4 states: roots, one and two parents, state names with spaces."""
    rng = np.random.default_rng(seed)

    def table(*shape):
        t = rng.random(shape) + 0.05
        return t / t.sum(axis=-1, keepdims=True)

    return DiscreteBayesianNetwork(
        {"a": (), "b x": ("a",), "c": ("a", "b x"), "d": ("c",)},
        {"a": ["0", "1", "2"], "b x": ["lo w", "high"], "c": ["u", "v", "w", "z"], "d": ["no", "yes"]},
        {"a": table(3), "b x": table(3, 2), "c": table(3, 2, 4), "d": table(4, 2)},
        name="four",
    )


READERS = {
    "bif": (read_bif, write_bif),
    "xmlbif": (read_xmlbif, write_xmlbif),
    "uai": (read_uai, write_uai),
}


def _same(a, b):
    assert a.parents == b.parents
    for v in a.variables:
        np.testing.assert_array_equal(a.cpts[v], b.cpts[v])


# ------------------------------------------------------------------------------- byte budget


@pytest.mark.parametrize("fmt", list(READERS))
@pytest.mark.parametrize("compress", [gzip.compress, bz2.compress, lzma.compress])
def test_compressed_input_is_read_within_max_bytes(fmt, compress, tmp_path):
    read, write = READERS[fmt]
    text = write(_network()).encode()
    path = tmp_path / "net.data"  # no telling name: compression is recognised by its magic bytes
    path.write_bytes(compress(text))
    _same(read(path), read(text))
    with pytest.raises(FileTooLargeError, match=r"holds more than 100 bytes .*pass a larger `max_bytes`"):
        read(path, max_bytes=100)
    with pytest.raises(FileTooLargeError, match="100 bytes"):
        read(compress(text), max_bytes=100)
    assert read(path, max_bytes=len(text)).variables


def test_a_compressed_bomb_is_refused_without_reaching_memory():
    bomb = gzip.compress(b"network x { }\n" + b" " * 20_000_000, compresslevel=9)  # 20 MB in ~20 kB
    tracemalloc.start()
    try:
        with pytest.raises(FileTooLargeError, match=r"1 MiB"):
            read_bif(io.BytesIO(bomb), max_bytes=2**20)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 8 * 2**20, peak


def test_text_given_as_a_string_and_load_network_have_the_budget_too():
    text = write_bif(_network())
    with pytest.raises(FileTooLargeError, match="BIF text holds more than"):
        read_bif(text, max_bytes=len(text) - 1)
    with pytest.raises(FileTooLargeError, match="max_bytes"):
        load_network("alarm", max_bytes=10_000)
    with pytest.raises(ValueError, match="`max_bytes` must be a positive integer"):
        read_uai(write_uai(_network()), max_bytes=0)


def test_a_truncated_compressed_file_is_a_value_error(tmp_path):
    path = tmp_path / "net.xml.gz"
    path.write_bytes(gzip.compress(write_xmlbif(_network()).encode())[:-40])
    with pytest.raises(ValueError, match=r"XMLBIF file .* is a truncated or corrupt gzip file"):
        read_xmlbif(path)


# ------------------------------------------------------------------------- BIF with no variable


@pytest.mark.parametrize("text", [b"", "network empty { }", "// nothing but a comment\nnetwork n { property x; }\n"])
def test_bif_without_a_variable_is_an_error(text, tmp_path):
    with pytest.raises(ValueError, match="no variable is declared"):
        read_bif(text if isinstance(text, bytes) else text.encode())
    path = tmp_path / "empty.bif"
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    with pytest.raises(ValueError, match=r"BIF line \d+: no variable is declared"):
        read_bif(path)


# ------------------------------------------------------------- declared sizes before the numbers


def test_xmlbif_and_uai_check_declared_table_sizes_before_reading_numbers():
    states = "".join(f"<OUTCOME>s{i}</OUTCOME>" for i in range(100))
    variables = "".join(f'<VARIABLE TYPE="nature"><NAME>v{j}</NAME>{states}</VARIABLE>' for j in range(4))
    given = "".join(f"<GIVEN>v{j}</GIVEN>" for j in range(3))
    xml = (
        f"<BIF><NETWORK>{variables}<DEFINITION><FOR>v3</FOR>{given}<TABLE>0.5 oops</TABLE></DEFINITION></NETWORK></BIF>"
    )
    with pytest.raises(
        TableTooLargeError, match=r"table of 'v3' \(100 states\) given 'v0' \(100 states\).*100,000,000"
    ):
        read_xmlbif(xml)
    # 30 binary variables in one MARKOV factor: 2^30 cells declared by a few bytes, no number given.
    text = "MARKOV\n30\n" + " ".join(["2"] * 30) + "\n1\n30 " + " ".join(map(str, range(30))) + "\n"
    with pytest.raises(TableTooLargeError, match=r"function 0 over variables \[0, 1, .*1,073,741,824 cells"):
        read_uai(text)
    assert read_uai(text.replace("30 0 1", "2 0 1").split("\n1\n")[0] + "\n1\n2 0 1\n4 1 2 3 4\n").factors


# ------------------------------------------------------------ the fast path and the careful one


def test_bif_fast_and_careful_paths_read_the_same_network():
    network = _network()
    plain = write_bif(network)
    # A comment and a property in every probability block: the careful path reads them.
    careful = plain.replace(") {\n", ") {\n  // a comment\n  property note = x;\n")
    assert careful.count("// a comment") == 4
    _same(read_bif(plain), network)
    _same(read_bif(careful), network)
    assert read_bif(careful).to_dict() == read_bif(plain).to_dict()


def test_bif_rows_in_batches_and_a_semicolon_inside_a_quoted_state(monkeypatch):
    network = DiscreteBayesianNetwork(
        {"a": (), "b": ("a",)},
        {"a": ["x;y", "z"] + [f"s{i}" for i in range(40)], "b": ["0", "1"]},
        {"a": np.full(42, 1 / 42), "b": np.tile([0.25, 0.75], (42, 1))},
    )
    text = write_bif(network)
    monkeypatch.setattr(bif, "_BATCH_CHARS", 16)  # many batches, one cut inside '"x;y"'
    _same(read_bif(text), network)


@pytest.mark.parametrize(
    "old, new, message",
    [
        ("0.25, 0.75;", "1e999, 0.75;", r"BIF line 13: probabilities of 'b' must be finite"),  # the sentinel's value
        ("0.25, 0.75;", "0.25, 0.75, 0.0;", r"BIF line 13: the row of 'b' needs 2 probabilities"),
        ("(z) 0.25, 0.75;", "(z) 0.25 0.75;\n  (z) 0.5, 0.5;", r"BIF line 15: second row for 'b' given \('z',\)"),
        ("table 0.5, 0.5;", "table 0.5, 0.25;", r"BIF line 10: probabilities of 'a' sum to 0.75"),
    ],
)
def test_bif_fast_path_errors_are_the_careful_ones(old, new, message):
    network = DiscreteBayesianNetwork(
        {"a": (), "b": ("a",)}, {"a": ["x", "z"], "b": ["0", "1"]}, {"a": [0.5, 0.5], "b": [[0.25, 0.75]] * 2}
    )
    text = write_bif(network)
    assert text.count(old) >= 1
    with pytest.raises(ValueError, match=message):
        read_bif(text.replace(old, new, 1))


def test_uai_plain_and_careful_text_and_scan_boundaries(monkeypatch):
    network = _network()
    text = write_uai(network)
    expected = read_uai(text)
    # Comments, carriage returns and tabs stay on the plain path; a non-ASCII character goes careful.
    commented = "c written by a test\n" + text.replace("\n", " # note\r\n", 3).replace(" ", "\t", 5)
    _same(read_uai(commented), expected)
    _same(read_uai(text.replace("BAYES", "BAYES \u00a0")), expected)  # NBSP: white space to str.split
    monkeypatch.setattr(uai, "_SCAN_BYTES", 3)  # token starts found 3 bytes at a time
    _same(read_uai(text.encode()), expected)
    with pytest.raises(ValueError, match=r"line 11: the table of function 0 holds '0\.1\.2', which is not a number"):
        read_uai(text.replace(text.split("\n")[10].split()[0], "0.1.2", 1))
