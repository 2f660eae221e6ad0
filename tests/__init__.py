"""The test suite; its folders mirror the package's (samplers/, fms/, cli/, ...)."""

from pathlib import Path


#: The repository's root folder.
REPO = Path(__file__).resolve().parent.parent
