"""Test sets in one TSV file (MTNT): each field is a column, ``N:FILE`` naming column N."""
from __future__ import annotations

import os

from ...errors import InvalidParameterError
from .. import _cache as _utils
from .base import Dataset


class TSVDataset(Dataset):
    """``FILE`` alone: column 0 for the source, 1 for the reference; ``N:FILE``: column N."""

    @staticmethod
    def _split_index_and_filename(meta: str, field: str):
        parts = meta.split(":")
        if len(parts) == 2:
            try:
                return int(parts[0]), parts[1]
            except ValueError:
                raise InvalidParameterError(f"Invalid meta for TSVDataset: {meta}") from None
        return (0 if field == "src" else 1), meta

    def process_to_text(self, langpair=None) -> None:
        self.maybe_download()
        for lp, metas in self._get_langpair_metadata(langpair).items():
            for field, meta in zip(self.fieldnames(lp), metas):
                index, origin = self._split_index_and_filename(meta, field)
                with _utils.smart_open(os.path.join(self._rawdir, origin)) as fin, \
                        _utils.smart_open(self._get_txt_file_path(lp, field), "wt") as fout:
                    for line in fin:
                        print(line.rstrip("\n").split("\t")[index], file=fout)
