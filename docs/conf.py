"""Sphinx configuration of the wordle_gym documentation: ``pip install -e ".[docs]"``, then
``sphinx-build -W -b html docs docs/_build/html`` (warnings are errors)."""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
from pathlib import Path

HERE = Path(__file__).resolve().parent

project = "wordle_gym"
author = "wordle_gym developers"
copyright = "wordle_gym developers, MIT licence"
release = importlib.metadata.version("wordle-gym")

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.napoleon",
]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]
myst_enable_extensions = ["colon_fence", "deflist"]
# links to a page's sections by their text (checked: a missing anchor is a warning)
myst_heading_anchors = 3

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "show-inheritance": True}
autosummary_generate = True
templates_path = ["_templates"]
# the old paths of moved modules (wordle_gym.utils.moved.MOVED) are not documented a second time
autosummary_context = {"moved": sorted(importlib.import_module("wordle_gym.utils.moved").MOVED)}
# verifiers pins an older openai than the dev extras, so the docs are built without it: its module
# is mocked for the API reference of wordle_gym.integrations.verifiers (installed as
# wordle_gym_verifiers).
autodoc_mock_imports = ["verifiers", "openenv", "fastapi"]  # fastapi: OpenEnv's server
napoleon_google_docstring = True
napoleon_numpy_docstring = False
nitpicky = False

html_theme = "furo"
html_title = "wordle_gym"
html_static_path = ["_static"]
html_css_files = ["custom.css"]  # wide tables and code stay inside the page
# A favicon of its own: a browser asks for /favicon.ico otherwise, which the checks' server answers
# 404 (a console error in docs/check.py on the pages where the request lands before the load event).
html_favicon = "_static/favicon.svg"
html_theme_options = {"navigation_with_keys": True}
html_show_sourcelink = False


def setup(app: object) -> None:
    """The local extension (``_ext/wordle_docs.py``: pages and tables generated from the code),
    loaded from its file."""
    spec = importlib.util.spec_from_file_location("wordle_docs", HERE / "_ext" / "wordle_docs.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.setup(app)
