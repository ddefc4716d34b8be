"""Draw a TAN on the 72 attributes of the emotions data, its 20 strongest arcs in full.

Usage: ``python examples/draw_large_tan.py [OUTPUT_DIR] [EMOTIONS_CSV]`` (defaults:
``examples/figures`` and ``/work/shared/datasets/emotions.csv.gz``; the emotions data
is not bundled, see :func:`graphmodels.data.read_multilabel`). Writes
``large_tan_emotions.png``.

The class is the first label, ``amazed-suprised``; the numeric attributes are cut
into equal-frequency bins. With 72 attributes the layers of the tree are flowed into
rows shaped to the page, labels keep what tells the names apart
(``Mean…Std…MFCC_3`` for ``Mean_Acc1298_Std_Mem40_MFCC_3``), and ``top_k=20``
draws the 20 arcs of highest conditional mutual information in full, the other
augmenting arcs and every class arc faded.
"""

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import graphmodels as gm  # noqa: E402
from graphmodels.plotting import draw_network  # noqa: E402

DEFAULT_DATA = "/work/shared/datasets/emotions.csv.gz"


def main(output_dir=None, data=None):
    output_dir = Path(output_dir) if output_dir else Path(__file__).parent / "figures"
    output_dir.mkdir(parents=True, exist_ok=True)
    X, Y = gm.data.read_multilabel(data or DEFAULT_DATA)
    y = Y.iloc[:, 0]
    model = gm.TAN(discretizer="equal-frequency").fit(X, y)
    ax = draw_network(
        model,
        top_k=20,
        title=f"TAN on emotions ({X.shape[1]} attributes; class: {y.name}): the 20 strongest arcs",
    )
    path = output_dir / "large_tan_emotions.png"
    ax.figure.savefig(path, dpi=72)
    print(f"Wrote {path}")
    return path


if __name__ == "__main__":
    main(*sys.argv[1:3])
