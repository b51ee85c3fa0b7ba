"""Extract the files NLTK's NIST and BLEU unit tests read from nltk_data's ``models/wmt15_eval`` package.

NLTK's tests (nltk/test/unit/translate/test_nist.py and test_bleu.py, class TestBLEUvsMteval13a) read
``models/wmt15_eval/{ref.ru,google.ru,mteval-13a.output}`` through ``nltk.data.find``, i.e. from a downloaded
nltk_data. Tests here never download, so the files are stored under tests/known_answers/nltk-wmt15-eval/ and
tests/metrics/test_nltk_wmt15_eval.py reads them (a missing file fails that test).

How the stored copy was made (the nltk_data commit and the zip's blob id are written to SOURCE.json):

    # fetch github:nltk/nltk_data (a git mirror without work tree), then
    python3 scripts/nltk_wmt15_eval.py --git-dir /work/.mirror/nltk+nltk_data/repo

The package (WMT15 newstest2015 en-ru, first 100 sentences, with a Google Translate output of 25 Oct 2016 and the
output of mteval-v13a.pl on them; see README.txt in the package) is small; only the files the tests need are kept:
README.txt (provenance), ref.ru and google.ru (Moses-tokenized; what NLTK's tests feed to corpus_nist/corpus_bleu),
newstest-2015-100sents.en-ru.ref.ru (the untokenized reference inside the .sgm file mteval-v13a.pl scored: its
hypothesis .sgm holds google.ru's lines) and mteval-13a.output.
"""
from __future__ import annotations

import argparse
import hashlib
import io
import json
import subprocess
import zipfile
from pathlib import Path

FILES = ["README.txt", "ref.ru", "google.ru", "newstest-2015-100sents.en-ru.ref.ru", "mteval-13a.output"]
ZIP = "packages/models/wmt15_eval.zip"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--git-dir", required=True, help="a clone or mirror of github.com/nltk/nltk_data")
    ap.add_argument("--rev", default="HEAD")
    ap.add_argument("--out", default="tests/known_answers/nltk-wmt15-eval")
    args = ap.parse_args()
    git = ["git", "--git-dir", args.git_dir]
    commit = subprocess.run(git + ["rev-parse", args.rev], check=True, capture_output=True, text=True).stdout.strip()
    blob = subprocess.run(git + ["rev-parse", f"{args.rev}:{ZIP}"], check=True, capture_output=True,
                          text=True).stdout.strip()
    data = subprocess.run(git + ["show", f"{args.rev}:{ZIP}"], check=True, capture_output=True).stdout
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    sha = {}
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        for name in FILES:
            raw = z.read(f"wmt15_eval/{name}")
            (out / name).write_bytes(raw)
            sha[name] = hashlib.sha256(raw).hexdigest()
    (out / "SOURCE.json").write_text(json.dumps(
        {"repository": "github.com/nltk/nltk_data", "commit": commit, "path": ZIP, "zip_blob": blob,
         "script": "scripts/nltk_wmt15_eval.py", "sha256": sha}, indent=1) + "\n")
    print(f"wrote {len(FILES)} files from nltk_data@{commit[:12]} to {out}")


if __name__ == "__main__":
    main()
