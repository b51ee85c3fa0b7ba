"""WMT's XML test sets (WMT21 on): source, every translator's reference, systems and document metadata in one
file per language pair. Parsed with the standard library's ElementTree (sacreBLEU uses lxml; the element
tree and texts are the same)."""
from __future__ import annotations

import os
import xml.etree.ElementTree as ET
from collections import defaultdict

from .. import _cache as _utils
from .base import Dataset


def _ref_field(translator) -> str:
    return f"ref:{translator}" if translator else "ref"


class WMTXMLDataset(Dataset):
    """Fields: ``src``, ``ref:<translator>`` (``ref`` where a reference names none), ``docid``, ``origlang``,
    one per system, and ``domain`` where documents have one. A segment is kept when some reference has it."""

    @staticmethod
    def _unwrap_wmt21_or_later(raw_file):
        root = ET.parse(raw_file).getroot()
        src_langs = {d.get("lang") for d in root.findall(".//src")}
        ref_docs_all = root.findall(".//ref")
        ref_langs = {d.get("lang") for d in ref_docs_all}
        translators = {d.get("translator") for d in ref_docs_all}
        if len(src_langs) != 1:
            raise ValueError(f"Multiple source languages found in the file: {raw_file}")
        if len(ref_langs) != 1:
            raise ValueError(f"Found {len(ref_langs)} reference languages found in the file: {raw_file}")
        src, docids, origlangs, domains = [], [], [], []
        refs = {_ref_field(t): [] for t in translators}
        systems = defaultdict(list)
        seen_domain = False

        def sents(doc):
            return {int(seg.get("id")): seg.text if seg.text else "" for seg in doc.findall(".//seg")}

        for doc in root.findall(".//doc"):
            if "testsuite" in doc.attrib:
                continue
            src_sents = {int(seg.get("id")): seg.text for seg in doc.findall(".//src//seg")}
            by_translator = {r.get("translator"): sents(r) for r in doc.findall(".//ref")}
            hyps = {h.get("system"): sents(h) for h in doc.findall(".//hyp")}
            for seg_id in sorted(src_sents):
                if not any(v.get(seg_id, "") for v in by_translator.values()):
                    continue
                for t in translators:
                    refs[_ref_field(t)].append(by_translator.get(t, {}).get(seg_id, ""))
                src.append(src_sents[seg_id])
                for name in hyps:
                    systems[name].append(hyps[name][seg_id])
                docids.append(doc.attrib["id"])
                origlangs.append(doc.attrib["origlang"])
                domains.append(doc.get("domain"))
                seen_domain = doc.get("domain") is not None
        fields = {"src": src, **refs, "docid": docids, "origlang": origlangs, **systems}
        if seen_domain:
            fields["domain"] = domains
        return fields

    def _get_langpair_path(self, langpair: str) -> str:
        entry = self._get_langpair_metadata(langpair)[langpair]
        return os.path.join(self._rawdir, entry["path"] if isinstance(entry, dict) else entry[0])

    def process_to_text(self, langpair=None) -> None:
        self.maybe_download()
        for lp in sorted(self._get_langpair_metadata(langpair)):
            with _utils.smart_open(self._get_langpair_path(lp)) as fin:
                fields = self._unwrap_wmt21_or_later(fin)
            for name, lines in fields.items():
                out = self._get_txt_file_path(lp, name)
                if os.path.exists(out) and os.path.getsize(out) > 0:
                    continue
                with _utils.smart_open(out, "w") as fout:
                    for line in lines:
                        print(self._clean(line), file=fout)

    def _get_langpair_allowed_refs(self, langpair: str):
        """The references scored against: the pair's ``refs`` (WMT22), else the test set's default."""
        default = self.kwargs.get("refs", [])
        entry = self._get_langpair_metadata(langpair)[langpair]
        allowed = entry.get("refs", default) if isinstance(entry, dict) else default
        return [_ref_field(r) for r in allowed]

    def get_reference_files(self, langpair: str):
        allowed = self._get_langpair_allowed_refs(langpair)
        files, fields = self.get_files(langpair), self.fieldnames(langpair)
        return [f for f, field in zip(files, fields) if field in allowed]

    def fieldnames(self, langpair: str):
        self.maybe_download()
        with _utils.smart_open(self._get_langpair_path(langpair)) as fin:
            return list(self._unwrap_wmt21_or_later(fin).keys())
