"""The `graphmodels` command."""

import pandas as pd
import pytest

from graphmodels.cli import main


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


@pytest.mark.parametrize(
    "argv,message",
    [
        (["fit", "no-such-set"], "unknown data set"),
        (["fit", "missing/file.csv"], "file not found"),
        (["fit", "car", "--class-column", "nope"], "class column 'nope' not found"),
        (["fit", "car", "--model", "svm"], "unknown model 'svm'"),
        (["compare", "car", "--models", "nb", "forest"], "unknown model 'forest'"),
    ],
)
def test_clear_errors(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
