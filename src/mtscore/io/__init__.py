"""Reading text and tabular inputs. Never drops, strips or reorders lines silently."""
from .text import read_lines, read_segments, read_tsv, read_ref_streams, read_systems

__all__ = ["read_lines", "read_segments", "read_tsv", "read_ref_streams", "read_systems"]
