"""The package's version, in one place: ``pyproject.toml`` reads it from here when building
(``[tool.setuptools.dynamic]``), and ``sklearn_ltr_metrics.__version__`` re-exports it."""

__version__ = "0.2.0"
