"""sacreBLEU's ``Dataset``: one test set of the registry, its files in sacreBLEU's local cache.

The layout is sacreBLEU 2.6's: ``$SACREBLEU/<NAME>/raw/`` holds the downloaded archive (named
``<NAME with / as _>.<basename of the URL>``) and what it unpacks to; ``$SACREBLEU/<NAME>/<NAME>.<PAIR>.<FIELD>``
the plain-text files made from it (``ref:A`` is written ``ref-A``). mtscore never downloads: where sacreBLEU
would fetch the archive, :meth:`Dataset.maybe_download` raises :class:`TestSetNotDownloaded`, which names the
address, the md5 sum and the path to place the file at. An archive placed there by hand is checked against
its md5 sum and unpacked, as sacreBLEU does right after a download; the text files are then made exactly as
sacreBLEU makes them.
"""
from __future__ import annotations

import os
import re
from typing import Dict, List, Optional

from ...errors import InputError, InvalidParameterError
from .. import _cache as _utils


class TestSetNotDownloaded(InputError, OSError):
    """A test set sacreBLEU would download is not in the local cache (mtscore never downloads).

    An ``OSError`` like the ``urllib.error.URLError`` sacreBLEU raises when it cannot download, and an mtscore
    :class:`~mtscore.errors.InputError` (the command line prints its one line and exits 3). ``path``: where
    to place the file; ``url``: where sacreBLEU fetches it from."""

    __test__ = False

    def __init__(self, message: str, path: Optional[str] = None, url: Optional[str] = None):
        super().__init__(message)
        self.path, self.url = path, url

    def __str__(self) -> str:
        return self.message


class Dataset:
    """One test set: ``name``, ``data`` (archive URLs), ``description``, ``citation``, ``md5`` (one per URL),
    ``langpairs`` (pair -> raw files inside the archive; WMT22: a dict with ``path`` and ``refs``) and
    ``kwargs`` (``refs``: the default reference of XML test sets), as in sacreBLEU's registry."""

    __test__ = False

    def __init__(self, name: str, data: Optional[List[str]] = None, description: Optional[str] = None,
                 citation: Optional[str] = None, md5: Optional[List[str]] = None, langpairs=None, **kwargs):
        self.name = name
        self.data = data
        self.description = description
        self.citation = citation
        self.md5 = md5
        self.langpairs = langpairs if langpairs is not None else {}
        self.kwargs = kwargs
        self._outdir = os.path.join(_utils.SACREBLEU_DIR, self.name)
        self._rawdir = os.path.join(self._outdir, "raw")

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r}, {len(self.langpairs)} language pairs)"

    # -- the raw archive -------------------------------------------------------------------------------
    def _get_tarball_filename(self, url: str) -> str:
        return self.name.replace("/", "_") + "." + os.path.basename(url)

    def maybe_download(self) -> None:
        """Where sacreBLEU downloads: check that every archive is in ``raw/`` (else raise
        :class:`TestSetNotDownloaded` naming it); unpack one placed there by hand that was never unpacked."""
        sums = list(self.md5) if self.md5 else [None] * len(self.data or [])
        for url, md5 in zip(self.data or [], sums):
            tarball = os.path.join(self._rawdir, self._get_tarball_filename(url))
            if not os.path.isfile(tarball) or os.path.getsize(tarball) == 0:
                if self._raw_files_present():  # unpacked by hand, the archive gone: nothing to fetch
                    continue
                raise TestSetNotDownloaded(
                    f"test set {self.name}: {tarball} is missing and mtscore never downloads; fetch {url}"
                    + (f" (md5 {md5})" if md5 else "") + f" and place it at {tarball}, or let sacreBLEU fill its "
                    f"cache once (sacrebleu -t {self.name} --echo src with the real sacreBLEU)",
                    path=tarball, url=url)
            if tarball.endswith((".tar.gz", ".tgz", ".zip")) and not self._raw_files_present():
                if md5 is not None:
                    got = _utils.get_md5sum(tarball)
                    if got != md5:
                        raise InputError(f"test set {self.name}: md5 sum of {tarball} is {got}, sacreBLEU's "
                                         f"registry says {md5} (a different or truncated download; fetch {url} "
                                         "again)", path=tarball)
                _utils.extract_tarball(tarball, self._rawdir)

    def _raw_files_present(self) -> bool:
        paths = []
        for entry in self.langpairs.values():
            rel = entry.get("path") if isinstance(entry, dict) else (entry[0] if entry else None)
            if isinstance(rel, str):
                paths.append(os.path.join(self._rawdir, rel.split(":")[-1]))
        return bool(paths) and all(os.path.exists(p) for p in paths)

    # -- text files --------------------------------------------------------------------------------------
    @staticmethod
    def _clean(s: str) -> str:
        """Strip, and collapse each run of white space to one space."""
        return re.sub(r"\s+", " ", s.strip())

    def _get_txt_file_path(self, langpair: str, fieldname: str) -> str:
        return os.path.join(self._outdir, f"{self.name.replace('/', '_')}.{langpair}.{fieldname.replace(':', '-')}")

    def _get_langpair_metadata(self, langpair: Optional[str]) -> Dict:
        if langpair is None:
            return self.langpairs
        if langpair not in self.langpairs:
            raise InvalidParameterError(
                f"No such language pair {self.name}/{langpair} (test set {self.name} has "
                f"{', '.join(self.langpairs) or 'none'})")
        return {langpair: self.langpairs[langpair]}

    def process_to_text(self, langpair: Optional[str] = None) -> None:  # pragma: no cover - every format has one
        raise NotImplementedError

    def fieldnames(self, langpair: str) -> List[str]:
        return ["src", "ref"]

    def __iter__(self, langpair):
        fins = [_utils.smart_open(f) for f in self.get_files(langpair)]
        try:
            yield from zip(*fins)
        finally:
            for f in fins:
                f.close()

    def source(self, langpair: str):
        with _utils.smart_open(self.get_source_file(langpair)) as fin:
            for line in fin:
                yield line.strip()

    def references(self, langpair: str):
        fins = [_utils.smart_open(f) for f in self.get_reference_files(langpair)]
        try:
            yield from zip(*fins)
        finally:
            for f in fins:
                f.close()

    def get_source_file(self, langpair: str) -> str:
        files, fields = self.get_files(langpair), self.fieldnames(langpair)
        return files[fields.index("src")]

    def get_reference_files(self, langpair: str) -> List[str]:
        files, fields = self.get_files(langpair), self.fieldnames(langpair)
        return [f for f, field in zip(files, fields) if field.startswith("ref")]

    def get_files(self, langpair: str) -> List[str]:
        """The text files of the pair's fields (source, references, metadata), made from the raw archive when
        missing (which must then be in the cache)."""
        files = [self._get_txt_file_path(langpair, field) for field in self.fieldnames(langpair)]
        for f in files:
            if not os.path.exists(f):
                self.process_to_text(langpair)
        return files
