"""benchmarks/RESULTS.md: every section between its own markers, none inside another.

Each benchmark rewrites its section between ``<!-- name:start -->`` and ``<!-- name:end -->``
(benchmarks/common.py ``write_section``); sections merged from parallel branches once ended up
interleaved, so that a rerun would have rewritten the wrong text.
"""

import re
from pathlib import Path

import pytest

RESULTS = Path(__file__).resolve().parents[1] / "benchmarks" / "RESULTS.md"


def test_every_results_section_is_closed_before_the_next_opens():
    if not RESULTS.exists():
        pytest.skip("benchmarks/RESULTS.md is not in this checkout")
    markers = re.findall(r"<!-- ([\w.-]+):(start|end) -->", RESULTS.read_text(encoding="utf-8"))
    assert markers, "RESULTS.md has no section markers"
    seen = set()
    for k in range(0, len(markers), 2):
        (name, kind), closing = markers[k], markers[k + 1] if k + 1 < len(markers) else None
        assert kind == "start", f"section {name!r} ends before it starts"
        assert closing == (name, "end"), f"section {name!r} is not closed before {closing}"
        assert name not in seen, f"section {name!r} appears twice"
        seen.add(name)
