"""Results -> text / JSON / TSV / LaTeX / Markdown strings (no printing here)."""
from ..params import provide
from .tables import FORMATS, Marked, Table, render_table

provide("formats", FORMATS)  # the output formats of the parameter layer's `format` option

__all__ = ["FORMATS", "Marked", "Table", "render_table"]
