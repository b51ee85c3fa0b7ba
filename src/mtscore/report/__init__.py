"""Results -> text / JSON / TSV / LaTeX / Markdown strings (no printing here)."""
from .tables import FORMATS, Table, render_table

__all__ = ["FORMATS", "Table", "render_table"]
