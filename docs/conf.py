"""Sphinx configuration for the optuna-psms documentation site.

Build (warnings are errors, as in CI)::

    pip install -e ".[docs]"
    python -m sphinx -W --keep-going -b html docs docs/_build/html

The layout follows Optuna's own documentation: autodoc + autosummary for the API reference
(Google-style docstrings through napoleon), doctest for the docstring examples, and
sphinx-gallery for executed examples (``examples/`` is the gallery's source). The pages
written in Markdown (``docs/*.md``) are read by MyST.
"""

from __future__ import annotations

import os
import re
import sys
from typing import Any

import plotly.io as pio
from plotly.io._sg_scraper import plotly_sg_scraper
from sphinx_gallery.sorting import FileNameSortKey


ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

import optuna_psms  # noqa: E402


project = "optuna-psms"
author = "optuna-psms developers"
copyright = "2026, optuna-psms developers"
release = optuna_psms.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.doctest",
    "sphinx.ext.intersphinx",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
    "sphinx_gallery.gen_gallery",
    "myst_parser",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = [
    "_build",
    "gallery/*.ipynb",
    "gallery/*.py",
    "gallery/*.md5",
    "**.codeobj.json",
]
templates_path = ["_templates"]

autosummary_generate = True
# scikit-learn's generated metadata-routing methods and its inherited mixin methods document
# scikit-learn, not this package (their docstrings cross-reference scikit-learn's own site).
_SKLEARN_MEMBERS = (
    "set_fit_request,set_predict_request,set_predict_proba_request,set_score_request,"
    "set_transform_request,set_inverse_transform_request,set_output,get_metadata_routing,"
    "get_params,set_params,score,fit_transform,fit_predict,get_feature_names_out"
)
autodoc_default_options = {
    "members": True,
    "inherited-members": False,
    "show-inheritance": True,
    "exclude-members": _SKLEARN_MEMBERS,
}
autodoc_typehints = "description"
autodoc_member_order = "bysource"
napoleon_google_docstring = True
napoleon_numpy_docstring = False
myst_heading_anchors = 3
# config.cache: sphinx_gallery_conf holds functions, so Sphinx rebuilds everything each time.
# plotly.sg_scraper: gallery thumbnails of plotly figures need Kaleido and Chrome; without
# them the gallery shows a placeholder thumbnail (the figures themselves are embedded).
suppress_warnings = ["myst.header", "config.cache", "plotly.sg_scraper"]

# No network here or in CI: intersphinx would try to download inventories, so it is only
# enabled when a cached inventory is given explicitly.
intersphinx_mapping: dict[str, tuple[str, str | None]] = {}

# The gallery's plotly figures need plotly.js; it is copied from the installed plotly package
# into the site (no CDN: the site must work offline). Plotly writes a <script> from its CDN
# before every figure, which blocks the page where there is no network: setup() below points
# the first of those tags at the local copy and removes the others.
pio.renderers.default = "sphinx_gallery"
_CDN_SCRIPT = re.compile(
    r'<script charset="utf-8" src="https://cdn\.plot\.ly/[^"]*"[^>]*></script>'
)
html_static_path = ["_static"]
_PLOTLY_JS = os.path.join(os.path.dirname(pio.__file__), "..", "package_data", "plotly.min.js")
os.makedirs(os.path.join(os.path.dirname(__file__), "_static"), exist_ok=True)
_DEST = os.path.join(os.path.dirname(__file__), "_static", "plotly.min.js")
if not os.path.exists(_DEST):
    import shutil

    shutil.copyfile(_PLOTLY_JS, _DEST)

html_theme = "furo"
html_title = f"optuna-psms {release}"

sphinx_gallery_conf = {
    "examples_dirs": ["../examples"],
    "gallery_dirs": ["gallery"],
    "filename_pattern": r"/[^_].*\.py$",
    "within_subsection_order": FileNameSortKey,
    "download_all_examples": False,
    "remove_config_comments": True,
    # Plotly figures returned at the end of a gallery block are embedded (plotly's own scraper).
    "image_scrapers": (plotly_sg_scraper,),
    "abort_on_example_error": True,
    "show_memory": False,
    "reset_modules": (),
    "plot_gallery": os.environ.get("PSMS_DOCS_GALLERY", "1") == "1",
}


def _strip_plotly_cdn(app: Any, exception: Exception | None) -> None:
    if exception is not None or app.builder.format != "html":
        return
    for root, _dirs, files in os.walk(app.outdir):
        for name in files:
            if name.endswith(".html"):
                path = os.path.join(root, name)
                with open(path, encoding="utf-8") as f:
                    text = f.read()
                local = os.path.relpath(os.path.join(app.outdir, "_static", "plotly.min.js"), root)
                tag = f'<script charset="utf-8" src="{local}"></script>'
                # The first figure of a page loads the local copy; later ones need nothing.
                stripped = _CDN_SCRIPT.sub("", _CDN_SCRIPT.sub(tag, text, count=1))
                if stripped != text:
                    with open(path, "w", encoding="utf-8") as f:
                        f.write(stripped)


def setup(app: Any) -> None:
    app.connect("build-finished", _strip_plotly_cdn)
