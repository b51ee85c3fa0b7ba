"""WMT's SGML-like files (up to WMT20): source and references in separate ``.sgm`` files."""
from __future__ import annotations

import os
import re

from .. import _cache as _utils
from .base import Dataset

_SEG = re.compile(r"<seg.*?>(.*)</seg>.*?")


class FakeSGMLDataset(Dataset):
    """Segments are the ``<seg ...>`` lines; ``docid``, ``genre`` and ``origlang`` come from the enclosing
    ``<doc ...>`` line's attributes (not for WMT08)."""

    def _convert_format(self, input_file_path: str, output_filep_path: str) -> None:
        with _utils.smart_open(input_file_path) as fin, _utils.smart_open(output_filep_path, "wt") as fout:
            for line in fin:
                if line.startswith("<seg "):
                    print(self._clean(_SEG.sub(r"\1", line)), file=fout)

    def _convert_meta(self, input_file_path: str, field: str, output_filep_path: str) -> None:
        pattern = re.compile(rf'{field}="(.*?)"')
        with _utils.smart_open(input_file_path) as fin, _utils.smart_open(output_filep_path, "wt") as fout:
            value = ""
            for line in fin:
                if line.startswith("<doc "):
                    m = pattern.search(line)
                    if m is not None:
                        value = m.group(1)
                elif line.startswith("<seg "):
                    print(value, file=fout)

    def process_to_text(self, langpair=None) -> None:
        self.maybe_download()
        pairs = self._get_langpair_metadata(langpair)
        for lp, files in pairs.items():
            # metadata fields are read from the source file
            origins = [os.path.join(self._rawdir, p) for p in files] + [os.path.join(self._rawdir, files[0])] * 3
            for field, origin in zip(self.fieldnames(lp), origins):
                out = self._get_txt_file_path(lp, field)
                if field.startswith(("src", "ref")):
                    self._convert_format(origin, out)
                else:
                    self._convert_meta(origin, field, out)

    def fieldnames(self, langpair):
        files = self._get_langpair_metadata(langpair)[langpair]
        if len(files) < 2:
            raise ValueError(f"Each language pair in {self.name} must have at least 2 fields.")
        fields = ["src"] + (["ref"] if len(files) == 2 else [f"ref:{i}" for i in range(len(files) - 1)])
        if not self.name.startswith("wmt08"):
            fields += ["docid", "genre", "origlang"]
        return fields


class WMTAdditionDataset(FakeSGMLDataset):
    """WMT's additional references (e.g. ``wmt19/google/ar``): ``.sgm`` files, or plain text."""

    def _convert_format(self, input_file_path: str, output_filep_path: str) -> None:
        if input_file_path.endswith(".sgm"):
            return super()._convert_format(input_file_path, output_filep_path)
        with _utils.smart_open(input_file_path) as fin, _utils.smart_open(output_filep_path, "wt") as fout:
            for line in fin:
                print(line.rstrip(), file=fout)
