"""sacreBLEU's test-set registry (``sacrebleu.dataset``): ``DATASETS`` (name -> :class:`Dataset`), ``SUBSETS``,
``COUNTRIES``, ``DOMAINS``.

The registry is data, ``mtscore/data/sacrebleu/registry.json``: sacreBLEU 2.6's 67 test sets with their format,
archive addresses and md5 sums, descriptions, citations, language pairs (the raw files inside each archive)
and default references, and the WMT18/19 document annotations -- facts extracted from sacreBLEU 2.6 by
``scripts/sacrebleu_registry.py`` and compared with it by ``tests/sacrebleu/test_sacrebleu_dataset.py``. Files are
looked up in sacreBLEU's cache (``$SACREBLEU``, else ``~/.sacrebleu``); nothing is downloaded.
"""
from __future__ import annotations

import json
import os

from .base import Dataset, TestSetNotDownloaded
from .fake_sgml import FakeSGMLDataset, WMTAdditionDataset
from .iwslt_xml import IWSLTXMLDataset
from .plain_text import PlainTextDataset
from .tsv import TSVDataset
from .wmt_xml import WMTXMLDataset

_FORMATS = {c.__name__: c for c in (FakeSGMLDataset, WMTAdditionDataset, IWSLTXMLDataset, PlainTextDataset,
                                    TSVDataset, WMTXMLDataset)}
REGISTRY_FILE = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))),
                             "data", "sacrebleu", "registry.json")


def _load():
    with open(REGISTRY_FILE, encoding="utf-8") as f:
        reg = json.load(f)
    datasets = {}
    for d in reg["datasets"]:
        datasets[d["name"]] = _FORMATS[d["format"]](
            d["name"], data=d["data"], description=d["description"], citation=d["citation"], md5=d["md5"],
            langpairs=d["langpairs"], **d["kwargs"])
    return reg, datasets


_REGISTRY, DATASETS = _load()
REGISTRY_VERSION = _REGISTRY["sacrebleu_version"]
SUBSETS = _REGISTRY["subsets"]
_SUBSETS = {k: " ".join(f"{doc}={tag}" for doc, tag in v.items()) for k, v in SUBSETS.items()}
COUNTRIES = sorted({v.split("-")[0] for v in SUBSETS["wmt19"].values()})
DOMAINS = sorted({v.split("-")[1] for v in SUBSETS["wmt19"].values()})

__all__ = ["DATASETS", "SUBSETS", "COUNTRIES", "DOMAINS", "Dataset", "FakeSGMLDataset", "WMTAdditionDataset",
           "IWSLTXMLDataset", "PlainTextDataset", "TSVDataset", "WMTXMLDataset", "TestSetNotDownloaded"]
