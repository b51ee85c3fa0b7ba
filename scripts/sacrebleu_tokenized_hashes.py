"""Known answers for tests/tokenize/test_tokenize.py: the sha256 of sacreBLEU's tokenization of every line of the
real data (WMT23 and WMT21 references, sources and system outputs), per tokenizer and lowercasing, so that the test
runs sacreBLEU only when mtscore's tokenization or the data differ (it then compares line by line, live).

    python scripts/sacrebleu_tokenized_hashes.py DATA > tests/known_answers/sacrebleu-tokenized-real-data.json

DATA: the data folder (../shared/data beside the project). Needs sacrebleu==2.6.0 (the test extra's pin)."""
from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path


def real_files(data: Path) -> list[Path]:
    """The files the test tokenizes, in its order."""
    root, root21 = data / "wmt23", data / "wmt21"
    files = sorted((root / "references").glob("*.txt")) + sorted((root / "sources").glob("*.txt"))
    files += sorted((root / "system-outputs").glob("*/*.txt"))
    files += sorted((root21 / "references").iterdir()) + sorted((root21 / "sources").iterdir())
    files += sorted((root21 / "system-outputs").iterdir())
    return files


def digest(lines) -> str:
    h = hashlib.sha256()
    for x in lines:
        h.update(x.encode("utf-8") + b"\n")
    return h.hexdigest()


def main() -> None:
    import sacrebleu
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a
    from sacrebleu.tokenizers.tokenizer_char import TokenizerChar
    from sacrebleu.tokenizers.tokenizer_intl import TokenizerV14International
    from sacrebleu.tokenizers.tokenizer_zh import TokenizerZh
    from mtscore.io import read_lines  # the test's reader (UTF-8, one line per segment)
    data = Path(sys.argv[1])
    files = real_files(data)
    lines: list[str] = []
    for f in files:
        lines += read_lines(f)
    peers = {"13a": Tokenizer13a(), "intl": TokenizerV14International(), "zh": TokenizerZh(), "char": TokenizerChar()}
    out = {"sacrebleu": sacrebleu.__version__, "script": "scripts/sacrebleu_tokenized_hashes.py",
           "files": {str(f.relative_to(data)): hashlib.sha256(f.read_bytes()).hexdigest() for f in files},
           "lines": len(lines), "tokenized": {}}
    for name, peer in peers.items():
        for lowercase in (False, True):
            out["tokenized"][f"{name}:{'lc' if lowercase else 'mixed'}"] = digest(
                peer((ln.lower() if lowercase else ln).rstrip()) for ln in lines)
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
