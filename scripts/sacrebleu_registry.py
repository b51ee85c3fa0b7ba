"""Write sacreBLEU's test-set registry as data: src/mtscore/data/sacrebleu/registry.json.

The facts (test-set names, their format, download addresses and md5 sums, descriptions, citations,
language pairs with the raw files inside each archive, the reference each pair scores against, the WMT18/19
document annotations) are read from the installed ``sacrebleu`` package (a test-only dependency, pinned
to 2.6.0); no code of sacreBLEU's is copied. tests/sacrebleu/test_sacrebleu_dataset.py checks that the file equals
what the installed package says.

    .venv/bin/python scripts/sacrebleu_registry.py [OUT]
"""
from __future__ import annotations

import json
import os
import sys


def registry() -> dict:
    import sacrebleu
    from sacrebleu.dataset import DATASETS, _SUBSETS
    out = {
        "provenance": f"sacreBLEU {sacrebleu.__version__} (sacrebleu/dataset/__init__.py), "
                      "extracted by scripts/sacrebleu_registry.py",
        "sacrebleu_version": sacrebleu.__version__,
        "datasets": [],
        "subsets": {k: {d.split("=")[0]: d.split("=")[1] for d in v.split()} for k, v in _SUBSETS.items()},
    }
    for name, ds in DATASETS.items():
        out["datasets"].append({
            "name": ds.name, "format": type(ds).__name__, "data": list(ds.data or []),
            "md5": list(ds.md5) if ds.md5 is not None else None,
            "description": ds.description, "citation": ds.citation,
            "langpairs": ds.langpairs, "kwargs": ds.kwargs,
        })
        assert name == ds.name
    return out


def main(argv) -> int:
    here = os.path.dirname(os.path.abspath(__file__))
    dest = argv[0] if argv else os.path.join(here, "..", "src", "mtscore", "data", "sacrebleu", "registry.json")
    with open(dest, "w", encoding="utf-8") as f:
        json.dump(registry(), f, ensure_ascii=False, indent=1)
        f.write("\n")
    print(f"wrote {dest}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
