"""Results -> text / JSON / TSV / LaTeX / Markdown strings (no printing here)."""
from .tables import FORMATS, Marked, Table, render_table

__all__ = ["FORMATS", "Marked", "Table", "render_table"]
