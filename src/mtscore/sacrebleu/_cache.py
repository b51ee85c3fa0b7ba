"""sacreBLEU's cache folder and file helpers, below both :mod:`.utils` and :mod:`.dataset`."""
from __future__ import annotations

import gzip
import hashlib
import os

from .metrics import sacrelogger

USERHOME = os.path.expanduser("~")
SACREBLEU_DIR = os.environ.get("SACREBLEU", os.path.join(USERHOME, ".sacrebleu"))


def smart_open(file, mode: str = "rt", encoding: str = "utf-8"):
    """Open a plain or ``.gz`` text file with lines split on ``\\n`` only (sacreBLEU's reader)."""
    if os.fspath(file).endswith(".gz"):
        return gzip.open(file, mode=mode, encoding=encoding, newline="\n")
    return open(file, mode=mode, encoding=encoding, newline="\n")


def get_md5sum(dest_path: str) -> str:
    md5 = hashlib.md5()
    with open(dest_path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            md5.update(block)
    return md5.hexdigest()


def extract_tarball(filepath: str, destdir: str) -> None:
    """Unpack a ``.tar.gz``/``.tgz``/``.zip`` archive into ``destdir`` (members outside it are refused)."""
    sacrelogger.info(f"Extracting {filepath} to {destdir}")
    if filepath.endswith((".tar.gz", ".tgz")):
        import tarfile
        with tarfile.open(filepath) as tar:
            try:
                tar.extractall(path=destdir, filter="data")
            except TypeError:  # Python without extraction filters
                tar.extractall(path=destdir)
    elif filepath.endswith(".zip"):
        import zipfile
        with zipfile.ZipFile(filepath, "r") as z:
            z.extractall(path=destdir)
