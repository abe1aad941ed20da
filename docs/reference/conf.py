"""Sphinx configuration of attnge's API reference and tutorial (built in CI with -W)."""

from importlib.metadata import version as _version

project = "attnge"
author = "the attnge developers"
copyright = "2026, the attnge developers"  # noqa: A001 (Sphinx's name)
release = _version("attnge")
extensions = ["sphinx.ext.autodoc", "sphinx.ext.mathjax", "numpydoc"]
numpydoc_show_class_members = False
autodoc_typehints = "none"
autodoc_member_order = "bysource"
html_theme = "alabaster"
html_static_path: list[str] = []
exclude_patterns = ["_build"]
