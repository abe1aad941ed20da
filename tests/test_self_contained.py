"""The repository cites nothing outside itself; every section it cites exists."""

import re
from pathlib import Path

ROOT = Path(__file__).parents[1]
SKIP = {".git", ".venv", "build", "dist", "__pycache__", ".pytest_cache", ".hypothesis"}


def files():
    for path in ROOT.rglob("*"):
        parts = set(path.relative_to(ROOT).parts)
        if path.is_file() and path.suffix in {".py", ".md", ".toml", ".txt", ""} \
                and not parts & SKIP and not any(p.endswith(".egg-info") for p in parts):
            yield path


def test_no_path_outside_the_repository_and_every_cited_section_exists():
    math = (ROOT / "docs" / "math.md").read_text(encoding="utf-8")
    sections = set(re.findall(r"^## (\d+)\.", math, re.M))
    for path in files():
        if path == Path(__file__):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        assert "../shared" not in text and "design.md" not in text, path
        for match in re.finditer(r"([\w./]*)math\.md(?: §(\d+))?", text):
            cited = match.group(1) + "math.md"          # from the root, or relative to the file
            assert ROOT / "docs" / "math.md" in ((ROOT / cited).resolve(),
                                                 (path.parent / cited).resolve()), \
                (path, match.group(0))
            assert match.group(2) is None or match.group(2) in sections, (path, match.group(0))
