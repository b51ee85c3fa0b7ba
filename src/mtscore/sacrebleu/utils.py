"""sacreBLEU's ``sacrebleu.utils``: the test-set functions (``get_source_file``, ``get_reference_files``,
``download_test_set``, ``get_available_testsets`` ...), ``smart_open``, ``SACREBLEU_DIR`` and the small
helpers callers import (``my_log``, ``sum_of_lists``, ``sanity_check_lengths``).

``SACREBLEU_DIR`` is sacreBLEU's cache folder, ``$SACREBLEU`` or ``~/.sacrebleu``, read once at import as
sacreBLEU does. The test-set functions resolve to the text files sacreBLEU keeps there; where sacreBLEU would
download, :class:`~mtscore.sacrebleu.dataset.TestSetNotDownloaded` names the file to place and where.
"""
from __future__ import annotations

import math
import os
from typing import List, Sequence

from ..errors import InputError, InvalidParameterError
from ._cache import SACREBLEU_DIR, USERHOME, extract_tarball, get_md5sum, sacrelogger, smart_open
from .dataset import COUNTRIES, DATASETS, DOMAINS, REGISTRY_VERSION, SUBSETS, TestSetNotDownloaded


def my_log(num: float) -> float:
    """``log(num)``, with ``-9999999999`` for 0 (sacreBLEU's floor for a zero precision)."""
    return -9999999999 if num == 0.0 else math.log(num)


def sum_of_lists(lists):
    """Element-wise sum of equal-length lists."""
    if not lists:
        return []
    out = [0 for _ in lists[0]]
    for row in lists:
        for i, v in enumerate(row):
            out[i] += v
    return out


def sanity_check_lengths(system: Sequence[str], refs: Sequence[Sequence[str]], test_set=None) -> None:
    """Raise when a reference stream's length differs from the system's (sacreBLEU exits there)."""
    n = len(system)
    for k, ref in enumerate(refs):
        if len(ref) != n:
            where = f" (test set {test_set})" if test_set else ""
            raise InputError(f"reference stream {k + 1} has {len(ref)} lines, the system output {n}{where}: "
                             "they must be the same length")


def _dataset(test_set: str):
    if test_set not in DATASETS:
        raise InvalidParameterError(f"No such test set {test_set} (sacreBLEU {REGISTRY_VERSION}'s registry "
                                    "has no test set of that name; sacrebleu --list shows them)")
    return DATASETS[test_set]


def get_source_file(test_set: str, langpair: str) -> str:
    """Path of the test set's source file in sacreBLEU's cache (made from the raw archive when missing)."""
    return _dataset(test_set).get_source_file(langpair)


def get_reference_files(test_set: str, langpair: str) -> List[str]:
    """Paths of the references the test set scores against, in sacreBLEU's cache."""
    return _dataset(test_set).get_reference_files(langpair)


def get_files(test_set: str, langpair: str) -> List[str]:
    """Paths of every field of the test set (source, references, metadata), in sacreBLEU's cache."""
    return _dataset(test_set).get_files(langpair)


def download_test_set(test_set: str, langpair=None) -> List[str]:
    """sacreBLEU downloads here; mtscore checks the cache and names the file to place when it is missing."""
    return _dataset(test_set).get_files(langpair)


def download_file(source_path: str, dest_path: str, extract_to=None, expected_md5=None) -> None:
    """Never downloads: a ``dest_path`` already there is accepted, else the error names what to place where."""
    if os.path.isfile(dest_path) and os.path.getsize(dest_path) > 0:
        return
    raise TestSetNotDownloaded(f"{dest_path} is missing and mtscore never downloads; fetch {source_path}"
                               + (f" (md5 {expected_md5})" if expected_md5 else "") + f" and place it at {dest_path}",
                               path=dest_path, url=source_path)


def get_langpairs_for_testset(testset: str) -> List[str]:
    """The language pairs of a test set (``[]`` for an unknown name, as sacreBLEU)."""
    return list(DATASETS[testset].langpairs) if testset in DATASETS else []


def get_available_testsets() -> List[str]:
    """Every test set of the registry, names in reverse sorted order (sacreBLEU's order)."""
    return sorted(DATASETS, reverse=True)


def get_available_testsets_for_langpair(langpair: str) -> List[str]:
    """Test sets having the pair in either direction, in registry order."""
    src, trg = langpair.split("-")[:2]
    return [d.name for d in DATASETS.values() if f"{src}-{trg}" in d.langpairs or f"{trg}-{src}" in d.langpairs]


def get_available_origlangs(test_sets: str, langpair: str) -> List[str]:
    """Original languages annotated in the test sets' ``origlang`` files (comma-separated names)."""
    out = set()
    for name in test_sets.split(","):
        ds = _dataset(name)
        fields = ds.fieldnames(langpair)
        if "origlang" in fields:
            with smart_open(ds.get_files(langpair)[fields.index("origlang")]) as f:
                out.update(line.strip() for line in f)
    return sorted(out)


def get_available_subsets(test_sets: str, langpair: str) -> List[str]:
    """Subsets (document domains, or WMT18/19's COUNTRY-domain annotations) of the test sets."""
    out = set()
    for name in test_sets.split(","):
        ds = _dataset(name)
        fields = ds.fieldnames(langpair)
        if "domain" in fields:
            with smart_open(ds.get_files(langpair)[fields.index("domain")]) as f:
                out.update(line.strip() for line in f)
        elif name in SUBSETS:
            out.update(COUNTRIES + DOMAINS)
    return sorted(out)


__all__ = ["SACREBLEU_DIR", "USERHOME", "DATASETS", "SUBSETS", "COUNTRIES", "DOMAINS", "sacrelogger", "smart_open",
           "my_log", "sum_of_lists", "sanity_check_lengths", "get_source_file", "get_reference_files", "get_files",
           "download_test_set", "download_file", "get_md5sum", "extract_tarball", "get_langpairs_for_testset",
           "get_available_testsets", "get_available_testsets_for_langpair", "get_available_origlangs",
           "get_available_subsets", "TestSetNotDownloaded"]
