"""Saving and loading models as JSON and NPZ."""

import io
import json
import struct
import zipfile

import numpy as np
import pandas as pd
import pytest

import graphmodels as gm
from graphmodels.estimators import Dirichlet
from graphmodels.models import ModelFileError
from graphmodels.models.persistence import FORMAT_VERSION

# The tree-family classifiers (as in test_models.py); the contract test round-trips every registered model.
CLASSIFIERS = [gm.NaiveBayes, gm.TAN, gm.FAN, gm.ChowLiu, gm.AODE, gm.AnDE]


@pytest.mark.parametrize("extension", [".json", ".npz"])
@pytest.mark.parametrize("model_class", CLASSIFIERS)
@pytest.mark.unseen_values
def test_classifier_round_trip(tmp_path, model_class, extension, random_table):
    rng = np.random.default_rng(0)
    X, y = random_table(rng)
    X.columns = ["#", "a b", "é", 1, "x"]
    X.iloc[::9, 2] = None
    labels = y.map({"c0": "1", "c1": "10", "c2": "2"})
    model = model_class(estimator=Dirichlet(0.5)).fit(X, labels)
    path = tmp_path / f"model{extension}"
    model.save(path)
    loaded = gm.load_model(path)
    assert type(loaded) is model_class
    assert loaded.get_params() == model.get_params()
    assert loaded.classes_.tolist() == ["1", "10", "2"]
    test = X.assign(x="unseen state")
    np.testing.assert_array_equal(loaded.predict_proba(test), model.predict_proba(test))
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))
    assert set(loaded.structure_.edges) == set(model.structure_.edges)
    assert dict(loaded.structure_.nodes(data=True)) == dict(model.structure_.nodes(data=True))


def test_integer_labels_and_numpy_input_round_trip(tmp_path):
    rng = np.random.default_rng(1)
    X = rng.integers(3, size=(50, 3))
    y = rng.integers(2, size=50) * 10
    model = gm.TAN().fit(X, y)
    model.save(tmp_path / "m.json")
    loaded = gm.load_model(tmp_path / "m.json")
    assert loaded.classes_.tolist() == [0, 10] and loaded.classes_.dtype.kind == "i"
    np.testing.assert_array_equal(loaded.predict(X), model.predict(X))


def test_density_round_trip(tmp_path, random_table):
    rng = np.random.default_rng(2)
    X, _ = random_table(rng)
    model = gm.ChowLiuTree().fit(X)
    model.save(tmp_path / "d.npz")
    loaded = gm.load_model(tmp_path / "d.npz")
    np.testing.assert_array_equal(loaded.score_samples(X), model.score_samples(X))
    pd.testing.assert_frame_equal(loaded.sample(10, random_state=0), model.sample(10, random_state=0))


def test_saved_json_is_plain_data(tmp_path, random_table):
    rng = np.random.default_rng(3)
    X, y = random_table(rng)
    gm.NaiveBayes().fit(X, y).save(tmp_path / "nb.json")
    document = json.loads((tmp_path / "nb.json").read_text())
    assert document["model"] == "NaiveBayes" and document["format"] == "graphmodels"


def test_save_errors(tmp_path, random_table):
    with pytest.raises(ValueError, match="not fitted"):
        gm.NaiveBayes().save(tmp_path / "x.json")
    rng = np.random.default_rng(4)
    X, y = random_table(rng)
    with pytest.raises(ValueError, match=r"\.json"):
        gm.NaiveBayes().fit(X, y).save(tmp_path / "x.pkl")
    (tmp_path / "other.json").write_text('{"hello": 1}')
    with pytest.raises(ValueError, match="not a saved graphmodels model"):
        gm.load_model(tmp_path / "other.json")
    (tmp_path / "evil.json").write_text(
        '{"format": "graphmodels", "version": 1, "model": "os.system", "params": {}, "fitted": {}}'
    )
    with pytest.raises(ValueError, match="Unknown model"):
        gm.load_model(tmp_path / "evil.json")


@pytest.fixture
def saved(tmp_path, random_table):
    """``saved(extension)`` -> the path of a fitted NaiveBayes saved in tmp_path."""

    def save(extension):
        X, y = random_table(np.random.default_rng(5), n_rows=60)
        path = tmp_path / f"good{extension}"
        gm.NaiveBayes().fit(X, y).save(path)
        return path

    return save


def _npz_bytes(**arrays):
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


def _document(**changes):
    return json.dumps({"format": "graphmodels", "version": FORMAT_VERSION, **changes})


#: name -> (extension, how to make the file's bytes from a good saved model's bytes, what the error says)
CORRUPTIONS = {
    "truncated-json": (".json", lambda good: good[: len(good) // 2], r"not valid JSON \(truncated or corrupted\?\)"),
    "empty-json": (".json", lambda good: b"", "is empty"),
    "binary-garbage-json": (".json", lambda good: bytes(range(256)) * 4, "not a JSON text file: byte"),
    "npz-named-json": (".json", lambda good: _npz_bytes(a=np.zeros(2)), "rename it to '.npz'"),
    "json-not-an-object": (".json", lambda good: b"[1, 2, 3]", "not a saved graphmodels model"),
    "json-of-another-program": (".json", lambda good: b'{"hello": 1}', "not a saved graphmodels model"),
    "future-version": (
        ".json",
        lambda good: _document(version=FORMAT_VERSION + 1, model="NaiveBayes", params={}, fitted={}).encode(),
        rf"format version {FORMAT_VERSION + 1}.*reads versions 1 to {FORMAT_VERSION}; upgrade graphmodels",
    ),
    "no-version": (".json", lambda good: b'{"format": "graphmodels"}', "format version is None"),
    "unknown-model": (
        ".json",
        lambda good: _document(model="RandomForest", params={}, fitted={}).encode(),
        "Unknown model 'RandomForest'",
    ),
    "missing-entries": (".json", lambda good: _document(model="NaiveBayes").encode(), "'model', 'params' and 'fitted'"),
    "unfitted-content": (
        ".json",
        lambda good: good.replace(b'"encoder_"', b'"encoder"'),
        "is damaged: the NaiveBayes it holds is not fitted",
    ),
    "damaged-array": (
        ".json",
        lambda good: good.replace(b'"dtype": "float64"', b'"dtype": "no-such-type"', 1),
        "is damaged, or was not written by graphmodels: TypeError: data type 'no-such-type' not understood",
    ),
    "bad-parameter": (
        ".json",
        lambda good: _document(model="NaiveBayes", params={"no_such": 1}, fitted={}).encode(),
        "is damaged, or was not written by graphmodels: TypeError",
    ),
    "truncated-npz": (".npz", lambda good: good[: len(good) // 2], r"damaged NPZ archive \(truncated or corrupted\?\)"),
    "empty-npz": (".npz", lambda good: b"", "is empty"),
    "binary-garbage-npz": (".npz", lambda good: bytes(range(256)) * 4, "not a ZIP archive"),
    "json-named-npz": (".npz", lambda good: b'{"format": "graphmodels"}', "rename it to '.json'"),
    "npy-named-npz": (".npz", lambda good: b"\x93NUMPY" + bytes(100), r"single numpy array \(\.npy\)"),
    "object-array-npz": (
        ".npz",
        lambda good: _npz_bytes(__document__=np.array(_document()), a0=np.array([{"x": 1}], dtype=object)),
        r"object array \('a0'\), which only pickle could read; graphmodels never loads pickled data",
    ),
    "npz-of-another-program": (".npz", lambda good: _npz_bytes(weights=np.ones(3)), "no '__document__' entry"),
    "npz-document-not-text": (".npz", lambda good: _npz_bytes(__document__=np.ones(3)), "is not a text"),
    "npz-document-truncated": (
        ".npz",
        lambda good: _npz_bytes(__document__=np.array(_document()[:-3])),
        "'__document__' entry is not valid JSON",
    ),
}


@pytest.mark.parametrize("case", sorted(CORRUPTIONS))
def test_every_unreadable_file_gets_one_clear_error_naming_it(case, saved, tmp_path):
    extension, corrupt, message = CORRUPTIONS[case]
    good = saved(extension).read_bytes()
    path = tmp_path / f"broken-{case}{extension}"
    path.write_bytes(corrupt(good))
    with pytest.raises(ModelFileError, match=message) as caught:
        gm.load_model(path)
    assert str(caught.value).count(str(path)) == 1
    assert isinstance(caught.value, ValueError)
    error = caught.value  # one error, not a chain of the reader's own
    assert error.__cause__ is None and (error.__context__ is None or error.__suppress_context__)


def test_an_unknown_nested_model_names_the_file(tmp_path, random_table):
    X, y = random_table(np.random.default_rng(6), n_rows=60)
    Y = pd.DataFrame({"a": y, "b": X["x0"]})
    gm.BinaryRelevance().fit(X.drop(columns="x0"), Y).save(tmp_path / "br.json")
    text = (tmp_path / "br.json").read_text(encoding="utf-8")
    assert text.count('"model": "NaiveBayes"') >= 2
    (tmp_path / "broken.json").write_text(text.replace('"model": "NaiveBayes"', '"model": "Gone"'), encoding="utf-8")
    with pytest.raises(ModelFileError, match=r"broken\.json' is damaged: Unknown model 'Gone' in a nested model"):
        gm.load_model(tmp_path / "broken.json")


def test_a_corrupted_member_of_an_npz_archive_is_reported(saved, tmp_path):
    good = saved(".npz")
    # Flip bytes inside the compressed data of the first member: its CRC no longer matches.
    with zipfile.ZipFile(good) as archive:
        info = archive.infolist()[0]
    data = bytearray(good.read_bytes())
    name_length, extra_length = struct.unpack_from("<HH", data, info.header_offset + 26)  # the local header's
    start = info.header_offset + 30 + name_length + extra_length
    for k in range(start, start + min(info.compress_size, 16)):
        data[k] ^= 0xFF
    path = tmp_path / "flipped.npz"
    path.write_bytes(bytes(data))
    with pytest.raises(ModelFileError, match="damaged NPZ archive") as caught:
        gm.load_model(path)
    assert str(path) in str(caught.value)


@pytest.mark.parametrize("name", ["model.pkl", "model.pickle", "model", "model.json.gz", "model.csv"])
def test_a_wrong_extension_is_refused_before_reading(name, tmp_path):
    path = tmp_path / name
    path.write_bytes(b"\x80\x04K\x01.")  # a pickle: never opened
    with pytest.raises(ModelFileError, match=r"'\.json' or '\.npz'.*never reads pickle") as caught:
        gm.load_model(path)
    assert str(path) in str(caught.value)


@pytest.mark.parametrize("extension", [".json", ".npz"])
def test_a_missing_file_names_its_path(extension, tmp_path):
    path = tmp_path / f"nowhere{extension}"
    with pytest.raises(FileNotFoundError, match="nowhere"):
        gm.load_model(path)


def test_files_are_written_in_the_current_format_version(saved):
    document = json.loads(saved(".json").read_text(encoding="utf-8"))
    assert document["version"] == FORMAT_VERSION == 2
    encoder = document["fitted"]["encoder_"]["__encoder__"]
    assert encoder["columns"] == ["x0", "x1", "x2", "x3", "x4"]
