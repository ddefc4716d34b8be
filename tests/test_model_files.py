"""Model files that must never hurt the machine or lose a model (issue 26).

Hostile files: :func:`graphmodels.load_model` reads an NPZ archive entry by entry (only what its
document names, each header checked before its data), a JSON file within a byte budget, and
checks what it decodes as a fit would have made it; every failure is one ``ModelFileError``
naming the file and the entry. Saves are atomic: a failed write leaves the previous file, and
concurrent saves and loads never see a half-written one.
"""

from __future__ import annotations

import copy
import errno
import io
import json
import os
import sys
import threading
import zipfile

import numpy as np
import pandas as pd
import pytest

import graphmodels as gm
from graphmodels.estimators import MaximumLikelihood
from graphmodels.models import ModelFileError, registered_models
from graphmodels.models.persistence import FORMAT_VERSION


def _table(n_rows=200, seed=0):
    """Five categorical columns (2, 3, 4, 2, 3 states) that copy their left neighbour or the class."""
    rng = np.random.default_rng(seed)
    y = rng.integers(3, size=n_rows)
    columns, previous = {}, y
    for j, r in enumerate((2, 3, 4, 2, 3)):
        previous = np.where(rng.random(n_rows) < 0.6, previous % r, rng.integers(r, size=n_rows))
        columns[f"x{j}"] = [f"s{v}" for v in previous]
    return pd.DataFrame(columns), pd.Series([f"c{v}" for v in y], name="label")


@pytest.fixture(scope="session")
def data():
    return _table()


@pytest.fixture(scope="session")
def tan(data):
    """A fitted TAN: tampered copies of it make the hostile files."""
    return gm.TAN().fit(*data)


def _save(model, path):
    model.save(path)
    return path


def _load_error(path, match, **budgets):
    """The one ModelFileError loading `path` raises; its message names the file and matches `match`."""
    with pytest.raises(ModelFileError, match=match) as caught:
        gm.load_model(path, **budgets)
    assert str(path) in str(caught.value)
    assert caught.value.__cause__ is None
    return caught.value


# ------------------------------------------------------------------ a file cannot replace a method
@pytest.mark.parametrize("name", ["predict_proba", "n_classes_", "fit"])
def test_a_fitted_entry_must_be_a_declared_fitted_attribute(name, tan, tmp_path):
    path = _save(tan, tmp_path / "good.json")
    document = json.loads(path.read_text(encoding="utf-8"))
    document["fitted"][name] = 1.0  # today a float; any value would have replaced the method
    path.write_text(json.dumps(document), encoding="utf-8")
    _load_error(path, rf"fitted entry '{name}' is not a fitted attribute of TAN")


def test_declared_fitted_attributes_never_shadow_a_method_or_a_property():
    for name, cls in registered_models().items():
        for attribute in cls._declared_fitted_attributes():
            assert attribute.endswith("_") and not attribute.startswith("_"), (name, attribute)
            assert not hasattr(cls, attribute), (name, attribute)


# ------------------------------------------------------------------ NPZ: only the named entries, headers first
def _npy_header(shape, descr="<f8"):
    """The bytes of a .npy version 1.0 header declaring `shape` (a crafted file: no data need follow)."""
    buffer = io.BytesIO()
    header = {"descr": descr, "fortran_order": False, "shape": shape}
    np.lib.format.write_array_header_1_0(buffer, header)
    return buffer.getvalue()


def _rewrite_npz(source, target, replace=None, add=None):
    """Copy the archive `source` to `target`, replacing members' bytes (`replace`) and adding members (`add`)."""
    with zipfile.ZipFile(source) as archive, zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as out:
        for info in archive.infolist():
            out.writestr(info.filename, (replace or {}).get(info.filename, archive.read(info)))
        for name, data in (add or {}).items():
            out.writestr(name, data)
    return target


def _member_of(path, attribute):
    """The NPZ member that holds `attribute` (an array the document names)."""
    with zipfile.ZipFile(path) as archive:
        document = json.loads(str(np.load(io.BytesIO(archive.read("__document__.npy")))))
    return document["fitted"][attribute]["__npz__"] + ".npy"


def test_an_npz_entry_the_document_does_not_name_is_refused(tan, tmp_path):
    good = _save(tan, tmp_path / "good.npz")
    extra = io.BytesIO()
    np.save(extra, np.zeros(1_000_000))  # 8 MB that compress to a few kB: never decompressed
    path = _rewrite_npz(good, tmp_path / "extra.npz", add={"extra.npy": extra.getvalue()})
    _load_error(path, r"holds the entry 'extra', which its document does not name")
    # Named where the model reads nothing (a key that looks like a reference in the document's text):
    # refused too, and never decompressed.
    with zipfile.ZipFile(good) as archive:
        document = json.loads(str(np.load(io.BytesIO(archive.read("__document__.npy")))))
    document['x"__npz__'] = "extra"
    text = io.BytesIO()
    np.save(text, np.array(json.dumps(document)))
    replace = {"__document__.npy": text.getvalue()}
    path = _rewrite_npz(good, tmp_path / "named.npz", replace=replace, add={"extra.npy": extra.getvalue()})
    _load_error(path, r"holds the entry 'extra', which its model does not use")


def test_an_impossible_array_header_is_refused_before_anything_is_allocated(tan, tmp_path):
    good = _save(tan, tmp_path / "good.npz")
    member = _member_of(good, "class_log_prior_")
    # 10**12 float64 cells (7.28 TiB): numpy itself would try to allocate them.
    path = _rewrite_npz(good, tmp_path / "huge.npz", replace={member: _npy_header((10**12,))})
    _load_error(path, r"declares an array of shape \(1000000000000,\).*more than max_cells=10,000,000")


def test_max_cells_of_load_model_bounds_every_array(tan, tmp_path):
    path = _save(tan, tmp_path / "good.npz")
    largest = max(int(np.size(table)) for table in tan.log_tables_)
    _load_error(path, rf"more than max_cells={largest - 1:,} cells", max_cells=largest - 1)
    assert type(gm.load_model(path, max_cells=largest)) is gm.TAN


def test_an_entry_shorter_than_its_header_is_damaged(tan, tmp_path):
    good = _save(tan, tmp_path / "good.npz")
    member = _member_of(good, "class_log_prior_")
    path = _rewrite_npz(good, tmp_path / "short.npz", replace={member: _npy_header((3,)) + bytes(8)})
    _load_error(path, r"holds fewer bytes than its header declares")


def test_an_object_array_named_by_the_document_is_never_unpickled(tan, tmp_path):
    good = _save(tan, tmp_path / "good.npz")
    member = _member_of(good, "class_log_prior_")
    pickled = io.BytesIO()
    np.save(pickled, np.array([{"x": 1}], dtype=object), allow_pickle=True)
    path = _rewrite_npz(good, tmp_path / "pickled.npz", replace={member: pickled.getvalue()})
    _load_error(path, r"object array \('a\d+'\), which only pickle could read")


def test_json_and_npz_files_are_read_within_max_bytes(tan, tmp_path):
    path = _save(tan, tmp_path / "good.json")
    _load_error(path, r"holds more than 1 KiB, the limit of this load.*larger `max_bytes`", max_bytes=1024)
    path = _save(tan, tmp_path / "good.npz")
    size = path.stat().st_size
    _load_error(path, rf"is a file of {size:,} bytes, more than max_bytes={size - 1:,}", max_bytes=size - 1)
    # The document is 4 bytes a character once decompressed: past a budget the file fits in.
    _load_error(path, r"declares a document of .*, more than .*larger `max_bytes`", max_bytes=size + 1)
    assert type(gm.load_model(path)) is gm.TAN


# ------------------------------------------------------------------ deep nesting
def test_json_nested_100k_deep_is_a_model_file_error(tmp_path):
    path = tmp_path / "deep.json"
    head = f'{{"format": "graphmodels", "version": {FORMAT_VERSION}, "model": "NaiveBayes", "params": {{}}, '
    path.write_text(head + '"fitted": {"trace_": ' + "[" * 100_000 + "]" * 100_000 + "}}", encoding="utf-8")
    _load_error(path, "nested too deeply")


def test_a_document_json_parses_but_too_deep_to_decode_is_a_model_file_error(tan, tmp_path):
    path = _save(tan, tmp_path / "good.json")
    document = json.loads(path.read_text(encoding="utf-8"))
    nested = []
    for _ in range(800):  # within json's own limit, past the documents' nesting bound
        nested = [nested]
    document["fitted"]["structure_"]["__graph__"] = nested
    path.write_text(json.dumps(document), encoding="utf-8")
    _load_error(path, "nested too deeply")
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(20_000)  # a library raised it (as some do): still refused, by the bound
    try:
        _load_error(path, "nested too deeply")
    finally:
        sys.setrecursionlimit(limit)


# ------------------------------------------------------------------ tables no fit could make
def _nan(model):
    model.log_tables_[2][1, 0, 0] = np.nan


def _above_one(model):
    model.log_tables_[2][1, 0, :] = np.log([1.5, 0.2, 0.1, 0.1][: model.log_tables_[2].shape[-1]])


def _not_summing_to_one(model):
    r = model.log_tables_[2].shape[-1]
    model.log_tables_[2][1, 0, :] = np.log(np.full(r, 0.6 / r))


def _wrong_shape(model):
    table = model.log_tables_[2]
    model.log_tables_[2] = np.log(np.full(table.shape[:-1] + (table.shape[-1] + 1,), 1 / (table.shape[-1] + 1)))


def _parent_out_of_range(model):
    model.feature_parents_[3] = 7


def _negative_parent(model):
    model.feature_parents_[3] = -2  # numpy would read column -2: the next to last


def _cycle(model):
    model.feature_parents_[:2] = [1, 0]


def _classes_not_the_prior(model):
    model.classes_ = model.classes_[:-1]


def _prior_not_a_distribution(model):
    model.class_log_prior_ = model.class_log_prior_ + 0.1


TAMPERED = {
    "nan-table": (_nan, r"`log_tables_\[2\]` holds NaN"),
    "probability-above-1": (_above_one, r"`log_tables_\[2\]` holds a probability above 1"),
    "row-not-summing-to-1": (
        _not_summing_to_one,
        r"`log_tables_\[2\]` has a distribution at \(1, 0\) that sums to 0.6",
    ),
    "wrong-shape": (_wrong_shape, r"`log_tables_\[2\]` has shape \(3, \d, 5\), but .* need \(3, \d, 4\)"),
    "parent-out-of-range": (_parent_out_of_range, r"`feature_parents_` holds the index 7, outside -1..4"),
    "negative-parent": (_negative_parent, r"`feature_parents_` holds the index -2, outside -1..4"),
    "parent-cycle": (_cycle, r"`feature_parents_` has a cycle"),
    "classes-not-the-prior": (_classes_not_the_prior, r"`class_log_prior_` has shape \(3,\), but .* need \(2,\)"),
    "prior-not-a-distribution": (_prior_not_a_distribution, r"`class_log_prior_` .*(above 1|sums to)"),
}


@pytest.mark.parametrize("extension", [".json", ".npz"])
@pytest.mark.parametrize("case", sorted(TAMPERED))
def test_tables_no_fit_could_make_are_refused_naming_the_entry(case, extension, tan, tmp_path):
    tamper, message = TAMPERED[case]
    model = copy.deepcopy(tan)
    tamper(model)
    path = _save(model, tmp_path / f"{case}{extension}")  # save writes what it is given
    _load_error(path, rf"is damaged: in its TAN, {message}")


@pytest.mark.parametrize(
    "model",
    [
        gm.TAN(estimator="discriminative"),  # log-potentials: finite, not distributions
        gm.NaiveBayes(estimator=MaximumLikelihood()),  # zero counts: log-probabilities of -inf
        gm.HyperforestClassifier(representation="joint"),
        gm.KDB(k=2),
    ],
    ids=["discriminative", "maximum-likelihood", "joint-hyperforest", "kdb-2"],
)
def test_what_a_fit_makes_loads(model, data, tmp_path):
    X, y = data
    model.fit(X.iloc[:60], y.iloc[:60])
    fitted = {name for name in vars(model) if name.endswith("_") and not name.startswith("_")}
    assert fitted <= type(model)._declared_fitted_attributes()  # penalty_ and the like too
    path = _save(model, tmp_path / "model.npz")
    np.testing.assert_array_equal(gm.load_model(path).predict_proba(X), model.predict_proba(X))


# ------------------------------------------------------------------ atomic saves
def _disk_full(*args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")


@pytest.mark.parametrize("extension", [".json", ".npz"])
def test_a_failed_save_leaves_the_previous_file_intact(extension, tan, data, tmp_path, monkeypatch):
    path = _save(tan, tmp_path / f"model{extension}")
    before = path.read_bytes()
    other = gm.NaiveBayes().fit(*data)
    with monkeypatch.context() as patched:
        patched.setattr(os, "fsync", _disk_full)  # the disk fills up as the new file is flushed
        with pytest.raises(OSError, match="No space left"):
            other.save(path)
    assert path.read_bytes() == before and os.listdir(tmp_path) == [path.name]
    assert type(gm.load_model(path)) is gm.TAN


def test_a_write_that_fails_half_way_leaves_the_previous_npz_intact(tan, data, tmp_path, monkeypatch):
    path = _save(tan, tmp_path / "model.npz")
    before = path.read_bytes()
    write_array = np.lib.format.write_array

    def half_then_full(fp, array, *args, **kwargs):
        if array.size > 1:
            fp.write(b"\0" * 64)
            _disk_full()
        write_array(fp, array, *args, **kwargs)

    with monkeypatch.context() as patched:
        patched.setattr(np.lib.format, "write_array", half_then_full)
        with pytest.raises(OSError, match="No space left"):
            gm.NaiveBayes().fit(*data).save(path)
    assert path.read_bytes() == before and os.listdir(tmp_path) == [path.name]


@pytest.mark.parametrize("extension", [".json", ".npz"])
def test_concurrent_saves_leave_one_complete_file_and_readers_never_see_half_of_one(extension, tan, data, tmp_path):
    nb = gm.NaiveBayes().fit(*data)
    path = _save(tan, tmp_path / f"model{extension}")
    start, failures, saved = threading.Barrier(3), [], threading.Event()

    def save(model):
        start.wait()
        for _ in range(6):
            model.save(path)

    def read():
        start.wait()
        while not saved.is_set():
            try:
                gm.load_model(path)
            except Exception as error:  # noqa: BLE001 -- any failure to read is the finding
                failures.append(error)

    writers = [threading.Thread(target=save, args=(model,)) for model in (tan, nb)]
    reader = threading.Thread(target=read)
    for thread in (*writers, reader):
        thread.start()
    for thread in writers:
        thread.join()
    saved.set()
    reader.join()
    assert failures == []
    loaded = gm.load_model(path)
    assert type(loaded) in (gm.TAN, gm.NaiveBayes)
    expected = tan if type(loaded) is gm.TAN else nb
    np.testing.assert_array_equal(loaded.predict_proba(data[0]), expected.predict_proba(data[0]))
    assert os.listdir(tmp_path) == [path.name]  # no temporary file left behind
