"""Test-set options of the scoring commands: ``-t/--testset NAME[,NAME...] -l PAIR``, ``--testset-dir``,
``--echo``, ``--list`` (the library side is :mod:`mtscore.io.testsets`; nothing is downloaded)."""
from __future__ import annotations

import argparse
import atexit
import os
import shutil
import tempfile
from collections import defaultdict

from ..errors import InvalidParameterError
from ..io import testsets as ts


def add_testset_options(p: argparse.ArgumentParser, short: bool = True) -> None:
    """``short``: also ``-t`` (``compare`` keeps ``-t`` for ``--test`` and offers ``--testset`` only)."""
    g = p.add_argument_group("test sets from local folders (docs/input.md; never downloaded)")
    flags = ("-t", "--testset") if short else ("--testset",)
    g.add_argument(*flags, dest="testset", metavar="NAME[,NAME...]", default=None,
                   help="score against a test set found in sacreBLEU's cache ($SACREBLEU or ~/.sacrebleu), an "
                        "mt-metrics-eval folder ($MTME_DATA) or --testset-dir; needs -l; replaces -r; several "
                        "names joined by commas are concatenated")
    g.add_argument("--testset-dir", metavar="DIR", default=None,
                   help="a folder with test sets: sacreBLEU-cache, mt-metrics-eval or WMT release (txt/sources, "
                        "txt/references) layout; searched first")
    g.add_argument("--echo", nargs="+", metavar="FIELD", default=None,
                   help="print the test set's fields (src, ref, docid, ..., all) tab-separated and exit")
    g.add_argument("--list", dest="list_testsets", action="store_true", default=False,
                   help="list the test sets found locally (with --testset: their fields) and exit")
    g.add_argument("--download", nargs="?", const="", default=None, metavar="NAME",
                   help="refused: mtscore never downloads test sets")


def _places(args) -> str:
    return "; ".join(f"{d} ({lay if lay != 'any' else '--testset-dir'})"
                     for lay, d in ts.search_places(args.testset_dir))


def _list(args) -> str:
    if args.testset:
        out = []
        lp = args.langpair
        for name in ts.split_names(args.testset):
            found = [ts.find_testset(name, lp, args.testset_dir)] if lp else \
                [t for t in ts.list_testsets(None, args.testset_dir) if t.name == name]
            if not found:
                raise ts.InputError(f"test set {name!r} not found (mtscore never downloads); searched: {_places(args)}")
            out += [f"{t.langpair}: {', '.join(t.field_names())}" for t in found]
        return "\n".join(out)
    found = ts.list_testsets(args.langpair, args.testset_dir)
    if not found:
        return f"No test sets found locally{' for ' + args.langpair if args.langpair else ''}; searched: {_places(args)}"
    by = defaultdict(list)
    for t in found:
        by[(t.name, t.layout, t.root if t.layout != ts.SACREBLEU else os.path.dirname(t.root))].append(t.langpair)
    head = f"The test sets found locally{' for ' + args.langpair if args.langpair else ''} are:"
    return "\n".join([head] + [f"{name:<30}: {', '.join(sorted(lps))} ({lay}: {root})"
                               for (name, lay, root), lps in sorted(by.items())])


_TMP: list[str] = []


def _cleanup() -> None:
    for d in _TMP:
        shutil.rmtree(d, ignore_errors=True)


def _write_streams(refs: list[list[str]]) -> list[str]:
    """Concatenated references of joined test sets, one temporary file per stream (removed at exit)."""
    if not _TMP:
        atexit.register(_cleanup)
    d = tempfile.gettempdir()
    try:
        d = tempfile.mkdtemp(prefix="mtscore-testset-")
        _TMP.append(d)
        paths = []
        for k in range(len(refs[0]) if refs else 0):
            p = os.path.join(d, f"ref{k}.txt")
            with open(p, "w", encoding="utf-8", newline="\n") as fh:
                fh.write("".join(seg[k] + "\n" for seg in refs))
            paths.append(p)
    except OSError as exc:  # a full or read-only temporary folder: one line (exit 5), not a traceback
        from ..io.output import output_error
        raise output_error(d, exc) from None
    return paths


def apply_testset(args: argparse.Namespace) -> str | None:
    """Handle the test-set options. Returns text to print and exit with (``--list``, ``--echo``), or ``None``
    after pointing ``args.refs`` at the test set's reference files (``-t``)."""
    if getattr(args, "download", None) is not None:
        raise InvalidParameterError(
            f"--download: mtscore never downloads test sets, got --download {args.download or ''}".rstrip()
            + "; fetch it with sacreBLEU (sacrebleu -t NAME -l PAIR --echo src) or point --testset-dir at a copy")
    if args.testset_dir is not None and not os.path.isdir(args.testset_dir):
        raise InvalidParameterError(f"--testset-dir: must be an existing folder, got {args.testset_dir!r}")
    if args.langpair is not None:
        ts.check_langpair(args.langpair)
    if args.list_testsets:
        return _list(args)
    if args.testset is None:
        if args.echo:
            raise InvalidParameterError("--echo: needs a test set (-t/--testset NAME) and a language pair (-l)")
        return None
    names = ts.split_names(args.testset)
    if args.langpair is None:
        raise InvalidParameterError(f"-t/--testset {args.testset}: needs a language pair, -l/--langpair SRC-TGT")
    found = ts.find_testsets(",".join(names), args.langpair, args.testset_dir)
    if args.echo:
        return ts.echo(found, args.echo)
    if getattr(args, "refs", None):
        raise InvalidParameterError("-r/--refs: give either a test set (-t/--testset) or reference files, not both")
    if getattr(args, "tsv", None):
        raise InvalidParameterError("--tsv: give either a test set (-t/--testset) or --tsv, not both")
    if len(found) == 1 and not found[0].json_keys:
        args.refs = found[0].references
    else:
        args.refs = _write_streams(ts.read_references(found))
    return None
