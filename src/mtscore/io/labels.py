"""Label files: one label per segment (domain, genre, document id ...), read by one rule in every command that
takes them (``report --labels``, ``audit subsets/length --labels``, ``analyse docs --docs``).

The rule (docs/report.md, "Label files"): line *i* is segment *i*'s; a line is split at TAB characters into
fields and the label is field K of ``--label-field K`` (1-based, default 1). So a file of one label per line is
read as it is, and mt-metrics-eval's ``documents/<lp>.docs`` (``DOMAIN<TAB>DOCID``) gives each segment's domain
by default and its document with ``--label-field 2``. ``analyse docs --docs`` wants document ids: it reads the
same files, its field being the last of at most two (``DOCID`` or ``DOMAIN<TAB>DOCID``).

Errors name the file, the line, the rule and the value (a line with too few fields, a count that is not one
label per segment, an empty document id)."""
from __future__ import annotations

from ..errors import InputError, plural
from .text import count_detail, read_lines

__all__ = ["read_labels", "read_doc_ids"]


def _count(path: str, n: int, n_segments: int | None, what: str) -> None:
    if n_segments is not None and n != n_segments:
        raise InputError(f"one {what} per segment: the {what} file and the inputs differ in line count: "
                         f"{count_detail([(path, n), ('each input', n_segments)])}")


def read_labels(path: str, n_segments: int | None = None, field: int = 1) -> list[str]:
    """Each segment's label: field ``field`` (1-based) of its TAB-separated line."""
    lines = read_lines(path)
    _count(path, len(lines), n_segments, "label")
    if field == 1:
        return [ln.split("\t", 1)[0] for ln in lines]
    out = []
    for i, ln in enumerate(lines, 1):
        parts = ln.split("\t")
        if len(parts) < field:
            raise InputError(f"line has {plural(len(parts), 'TAB-separated field')}, --label-field is {field}", path, i)
        out.append(parts[field - 1])
    return out


def read_doc_ids(path: str, n_segments: int | None = None) -> list[str]:
    """Each segment's document id: ``DOCID`` per line, or mt-metrics-eval's ``DOMAIN<TAB>DOCID``."""
    lines = read_lines(path)
    ids = []
    for n, line in enumerate(lines, 1):
        cols = line.split("\t")
        if len(cols) > 2:
            raise InputError(f"expected DOCID or DOMAIN<TAB>DOCID, got {plural(len(cols), 'column')}", path, n)
        doc = cols[-1].strip()
        if not doc:
            raise InputError("empty document id", path, n)
        ids.append(doc)
    _count(path, len(ids), n_segments, "document id")
    return ids
