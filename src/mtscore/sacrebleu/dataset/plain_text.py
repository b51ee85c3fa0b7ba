"""Plain-text test sets: source and reference files, line-aligned."""
from __future__ import annotations

import os

from .. import _cache as _utils
from .base import Dataset


class PlainTextDataset(Dataset):
    """One file per field, each line right-stripped."""

    def process_to_text(self, langpair=None) -> None:
        self.maybe_download()
        for lp, files in self._get_langpair_metadata(langpair).items():
            for field, origin in zip(self.fieldnames(lp), files):
                with _utils.smart_open(os.path.join(self._rawdir, origin)) as fin, \
                        _utils.smart_open(self._get_txt_file_path(lp, field), "wt") as fout:
                    for line in fin:
                        print(line.rstrip(), file=fout)
