"""The repository cites nothing outside itself; every section it cites exists.

The forbidden names are assembled from parts, so that this file does not cite them.
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[1]
MATH = ROOT / "docs/math.md"                     # the account every citation points to
OUTSIDE = ("../" + "shared", "design" + ".md")   # the reference files outside the repository
SKIP = {".git", ".venv", "build", "dist", "__pycache__", ".pytest_cache", ".hypothesis"}


def files():
    for path in ROOT.rglob("*"):
        parts = set(path.relative_to(ROOT).parts)
        if path.is_file() and path.suffix in {".py", ".md", ".toml", ".txt", ""} \
                and not parts & SKIP and not any(p.endswith(".egg-info") for p in parts):
            yield path


@pytest.mark.slow
def test_no_path_outside_the_repository_and_every_cited_section_exists():
    sections = set(re.findall(r"^## (\d+)\.", MATH.read_text(encoding="utf-8"), re.M))
    citation = re.compile(r"([\w./]*)" + re.escape(MATH.name) + r"(?: §(\d+))?")
    for path in files():
        if path == Path(__file__):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        assert not any(name in text for name in OUTSIDE), path
        for match in citation.finditer(text):
            cited = match.group(1) + MATH.name      # from the root, or relative to the file
            assert MATH in ((ROOT / cited).resolve(), (path.parent / cited).resolve()), \
                (path, match.group(0))
            assert match.group(2) is None or match.group(2) in sections, (path, match.group(0))
