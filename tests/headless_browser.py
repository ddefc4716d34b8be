"""Open an HTML file in headless Chromium: its DOM, its console messages, a screenshot.

For the tests of pages meant for people (the HTML report, notebooks exported to HTML, a
model's ``_repr_html_``): :func:`check_page` loads a file, fails on any console message (a
script error, a blocked resource) and on a blank screenshot, and returns what it saw.
Where no Chromium is installed, :func:`chromium_or_skip` skips the test with the package to
install (Debian's ``chromium``; ``.ci/run`` installs it).

What headless Chromium prints, found with deliberately broken pages (``test_report.py``
keeps those as tests of this module): with ``--enable-logging=stderr --v=0``, every console
message, whatever its level (``console.log``, ``console.error``, an uncaught exception), is
one stderr line ``[pid:tid:date:INFO:CONSOLE:line] "message", source: url (line)``
(``INFO:CONSOLE(line)`` in older versions); a resource that fails to load prints nothing, so
pages are also checked for external addresses by the tests themselves. The many
``ERROR:dbus/...`` lines of a machine without a session bus are noise, not page errors.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

#: Executable names tried, in order.
CHROMIUM_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")

SKIP_REASON = (
    "headless Chromium not found: install Debian's chromium package (apt-get install chromium) to run the browser test"
)

#: A console message in Chromium's log: its text is the quoted part.
_CONSOLE = re.compile(r":CONSOLE[:(]\d*\)?\]\s*(.*)$")

#: Below this standard deviation of the pixel values (0 to 1), a screenshot counts as blank.
BLANK_STD = 0.02


def find_chromium() -> str | None:
    """The path of a Chromium (or Chrome) executable, or None."""
    for name in CHROMIUM_NAMES:
        path = shutil.which(name)
        if path:
            return path
    return None


def chromium_or_skip() -> str:
    """The Chromium executable, or skip the calling test saying what to install."""
    path = find_chromium()
    if path is None:
        pytest.skip(SKIP_REASON)
    return path


@dataclass
class PageLoad:
    """What headless Chromium saw of a page.

    Attributes
    ----------
    dom : str
        The document after loading (``--dump-dom``).
    console : list of str
        Every console message, in order.
    screenshot : Path
        The PNG screenshot.
    stderr : str
        Chromium's whole log.
    """

    dom: str
    console: list[str]
    screenshot: Path
    stderr: str

    def pixel_std(self) -> float:
        """Standard deviation of the screenshot's RGB values (0 for a one-colour image)."""
        import matplotlib.image

        image = matplotlib.image.imread(self.screenshot)  # floats in [0, 1] for a PNG
        return float(np.asarray(image)[..., :3].std())


def open_page(
    path: str | Path, workdir: str | Path, *, window_size: tuple[int, int] = (1200, 2000), timeout: float = 120
) -> PageLoad:
    """Load the local file `path` in headless Chromium once: DOM, console messages, screenshot.

    Parameters
    ----------
    path : str or Path
        An HTML file.
    workdir : str or Path
        A scratch directory (a test's ``tmp_path``): the screenshot and a fresh browser profile
        go there, so that tests running side by side do not share a profile.
    window_size : (int, int), default=(1200, 2000)
        Width and height of the screenshot, in pixels.
    timeout : float, default=120
        Seconds before the browser is stopped (the test then fails).
    """
    executable = chromium_or_skip()
    workdir = Path(workdir)
    shot = workdir / f"{Path(path).stem}-screenshot.png"
    command = [
        executable,
        "--headless=new",
        "--no-sandbox",  # as root in a container
        "--disable-gpu",
        "--hide-scrollbars",
        "--no-first-run",
        "--disable-extensions",
        "--disable-background-networking",
        f"--user-data-dir={workdir / 'chromium-profile'}",
        "--enable-logging=stderr",
        "--v=0",
        f"--window-size={window_size[0]},{window_size[1]}",
        f"--screenshot={shot}",
        "--dump-dom",
        Path(path).resolve().as_uri(),
    ]
    done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    console = [match.group(1) for line in done.stderr.splitlines() if (match := _CONSOLE.search(line))]
    assert done.returncode == 0, f"Chromium exited with {done.returncode}:\n{done.stderr[-3000:]}"
    assert shot.is_file(), f"Chromium wrote no screenshot:\n{done.stderr[-3000:]}"
    return PageLoad(dom=done.stdout, console=console, screenshot=shot, stderr=done.stderr)


def check_page(
    path: str | Path,
    workdir: str | Path,
    *,
    expect: tuple[str, ...] = (),
    allowed_console: tuple[str, ...] = (),
    window_size: tuple[int, int] = (1200, 2000),
) -> PageLoad:
    """Load `path` in headless Chromium and assert that it shows without errors.

    The page loaded (its DOM holds every string of `expect`), printed no console message
    (but those matching a regular expression of `allowed_console`; a page without scripts
    prints none) and its screenshot is not blank.

    Returns
    -------
    PageLoad
        For further checks.
    """
    page = open_page(path, workdir, window_size=window_size)
    for text in expect:
        assert text in page.dom, f"{text!r} is not in the page Chromium loaded"
    unexpected = [m for m in page.console if not any(re.search(p, m) for p in allowed_console)]
    assert not unexpected, "console messages:\n" + "\n".join(unexpected)
    std = page.pixel_std()
    assert std > BLANK_STD, f"the screenshot {page.screenshot} looks blank (pixel standard deviation {std:.4f})"
    return page
