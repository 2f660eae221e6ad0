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
import shutil
import sys
from typing import Any

import plotly.io as pio
from plotly.io.base_renderers import MimetypeRenderer


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
# ``score`` is documented: FullModelSelector's and FullModelRegressor's are their own (the
# search's metric); the other estimators inherit ClassifierMixin's, left out by
# "inherited-members" below.
_SKLEARN_MEMBERS = (
    "set_fit_request,set_predict_request,set_predict_proba_request,set_score_request,"
    "set_transform_request,set_inverse_transform_request,set_output,get_metadata_routing,"
    "get_params,set_params,fit_transform,fit_predict,get_feature_names_out"
)
autodoc_default_options = {
    "members": True,
    # Members a class inherits from the package's own bases (FullModelSearch's describe,
    # export_python, fit_trial) are documented; those of these library classes are not.
    "inherited-members": "BaseEstimator,ClassifierMixin,RegressorMixin,TransformerMixin,"
    "SelectorMixin,BaseSampler,object",
    "show-inheritance": True,
    "exclude-members": _SKLEARN_MEMBERS,
}
autodoc_typehints = "description"
autodoc_member_order = "bysource"
napoleon_google_docstring = True
napoleon_numpy_docstring = False
myst_heading_anchors = 3
# config.cache: sphinx_gallery_conf holds functions, so Sphinx rebuilds everything each time.
suppress_warnings = ["myst.header", "config.cache"]

# No network here or in CI: intersphinx would try to download inventories, so it is only
# enabled when a cached inventory is given explicitly.
intersphinx_mapping: dict[str, tuple[str, str | None]] = {}

# The gallery's plotly figures use the site's own copy of plotly.js (no CDN: the site must work
# offline). A gallery block that ends with a figure is embedded through the figure's HTML repr,
# made by the renderer below without plotly.js or MathJax; _templates/page.html loads
# _static/plotly.min.js (copied from the installed plotly package) in the <head> of the pages
# that hold a figure, before the figures' inline scripts run.


class _SitePlotlyRenderer(MimetypeRenderer):  # type: ignore[misc]  # plotly: no stubs, Any base
    """A figure as an HTML fragment that expects ``Plotly`` from the page."""

    def to_mimebundle(self, fig_dict: Any) -> dict[str, str]:
        html = pio.to_html(
            fig_dict,
            include_plotlyjs=False,
            include_mathjax=False,
            full_html=False,
            default_width="100%",
            default_height=525,
            validate=False,
        )
        return {"text/html": html}


pio.renderers["psms_site"] = _SitePlotlyRenderer()
pio.renderers.default = "psms_site"
html_static_path = ["_static"]
_PLOTLY_JS = os.path.join(os.path.dirname(pio.__file__), "..", "package_data", "plotly.min.js")
os.makedirs(os.path.join(os.path.dirname(__file__), "_static"), exist_ok=True)
_DEST = os.path.join(os.path.dirname(__file__), "_static", "plotly.min.js")
if not os.path.exists(_DEST) or os.path.getsize(_DEST) != os.path.getsize(_PLOTLY_JS):
    shutil.copyfile(_PLOTLY_JS, _DEST)

html_theme = "furo"
html_title = f"optuna-psms {release}"

#: Gallery order within each section (files not listed follow, by name).
GALLERY_ORDER = [
    "samplers_quickstart.py",
    "plot_population.py",
    "compare_dataset.py",
    "dashboard.py",
    "distributed_workers.py",
    "full_model_selection.py",
    # examples/samplers/: as the guides
    "pso.py",
    "pattern_search.py",
    "focused_grid.py",
    "eda.py",
    "dynamic_random.py",
]


class GalleryOrder:
    """sphinx-gallery sort key: :data:`GALLERY_ORDER`, then by file name."""

    def __init__(self, src_dir: str) -> None:
        self.src_dir = src_dir

    def __call__(self, filename: str) -> tuple[int, str]:
        rank = GALLERY_ORDER.index(filename) if filename in GALLERY_ORDER else len(GALLERY_ORDER)
        return rank, filename

    def __repr__(self) -> str:  # sphinx-gallery compares configurations by repr
        return f"GalleryOrder({GALLERY_ORDER})"


sphinx_gallery_conf = {
    "examples_dirs": ["../examples"],
    "gallery_dirs": ["gallery"],
    "filename_pattern": r"/[^_].*\.py$",
    "within_subsection_order": GalleryOrder,
    "download_all_examples": False,
    "remove_config_comments": True,
    # Plotly figures returned at the end of a gallery block are embedded by their HTML repr
    # (the renderer above); no image scraper, so the thumbnails are the default one unless an
    # example names its own (sphinx_gallery_thumbnail_path).
    "image_scrapers": (),
    "abort_on_example_error": True,
    "show_memory": False,
    "reset_modules": (),
    "plot_gallery": os.environ.get("PSMS_DOCS_GALLERY", "1") == "1",
}
