"""The one place the version is written: pyproject.toml reads it (setuptools `attr:`, a static
read that imports nothing), and ``scalarlang.__version__`` re-exports it."""

__version__ = "0.1.0"
