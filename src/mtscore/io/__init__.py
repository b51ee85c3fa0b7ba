"""Reading text and tabular inputs. Never drops, strips or reorders lines silently."""
from ..params import provide
from .text import read_lines, read_segments, read_tsv, read_ref_streams, read_systems

__all__ = ["read_lines", "read_segments", "read_tsv", "read_ref_streams", "read_systems"]


def _score_formats():
    from .scores import SCORE_FORMATS
    return SCORE_FORMATS


provide("score_formats", _score_formats)  # the stored-score formats of the parameter layer
