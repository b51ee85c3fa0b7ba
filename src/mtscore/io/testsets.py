"""Test sets from local folders (``-t NAME -l PAIR``); nothing is ever downloaded.

Three layouts are searched, in this order (:func:`search_places`):

1. ``--testset-dir DIR`` (``testset_dir=``), in any of the three layouts below;
2. **sacreBLEU's cache** (``$SACREBLEU``, else ``~/.sacrebleu``): ``<cache>/<NAME>/<NAME>.<PAIR>.<FIELD>``, the plain
   text files sacreBLEU writes when it fetches a test set (``src``, ``ref`` or ``ref-A`` ..., ``docid``,
   ``origlang`` ...). sacreBLEU 2.6's test-set registry (shipped with mtscore as data; an installed sacreBLEU is
   not consulted) says which fields and references a test set has, exactly as sacreBLEU uses them (e.g. WMT21
   scores against reference A only, ``wmt17/tworefs`` against both); for a test set it does not know, the fields
   are the files present and the reference is ``ref`` or else the first ``ref-*`` file in sorted order (the field
   sacreBLEU's ``--echo ref`` falls back to);
3. **mt-metrics-eval** data folders (``$MTME_DATA``, else ``~/.mt-metrics-eval/mt-metrics-eval-v2``):
   ``<dir>/<NAME>/sources/<PAIR>.txt``, ``references/<PAIR>.<REF>.txt``, ``documents/<PAIR>.docs``. The
   reference is mt-metrics-eval's standard one (``refA``; WMT23 he-en: ``refB``);
4. **WMT24++ release folders** (``--testset-dir`` only): ``<dir>/<PAIR>.jsonl`` or ``<dir>/<NAME>/<PAIR>.jsonl``, the
   layout of google/wmt24pp (one JSON object per segment: ``source``, ``target`` = the post-edited reference, the
   default, ``original_target`` = the reference before post-editing (field ``ref:original``), ``document_id``,
   ``domain``, ``is_bad_source``). ``NAME`` is the folder's name or ``wmt24pp``. Rows marked ``is_bad_source`` are
   left out of every field, as the release recommends ("the segments marked as true were removed from the
   evaluation"): the test set's segments, and so the lines a hypothesis file must have, are the other rows (what
   ``--echo src`` prints);
5. **WMT release folders** (``--testset-dir`` only): ``<dir>/txt/sources/<PREFIX>.<PAIR>.src.<s>`` and
   ``<dir>/txt/references/<PREFIX>.<PAIR>.ref.<X>.<t>`` (wmtNN-news-systems). ``NAME`` is the file prefix
   (``newstest2021``) or the release folder's name (``wmt21-news-systems``, or its part before the first ``-``:
   ``wmt21``); ``DIR`` may be the release folder or a folder holding release folders. The reference is ``A``
   when there is one, else the first in sorted order.

Several test sets joined by commas (``wmt20,wmt21``) are concatenated in that order, as sacreBLEU does.
A test set that is in none of these places is a one-line error that names every place searched.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Mapping, Sequence

from ..errors import InputError, InvalidParameterError, plural
from .text import read_lines

SACREBLEU, MTME, WMT_RELEASE = "sacreBLEU cache", "mt-metrics-eval", "WMT release"
WMT24PP = "WMT24++ release"
# WMT24++ jsonl keys of the fields (release README); rows with is_bad_source true are left out
WMT24PP_KEYS = (("src", "source"), ("ref", "target"), ("ref:original", "original_target"), ("docid", "document_id"),
                ("domain", "domain"))
# mt-metrics-eval's standard reference where it is not refA
MTME_STD_REFS = {("wmt23", "he-en"): "refB", ("wmt22", "cs-en"): "refB",
                 # mt-metrics-eval's WMT24++ (meta_info.WMT24PP_DATA): the post-edits, posteditA, except these
                 ("wmt24pp", "en-de_DE"): "posteditB", ("wmt24pp", "en-is_IS"): "refA"}
_PAIR = re.compile(r"[A-Za-z][A-Za-z0-9_]*-[A-Za-z][A-Za-z0-9_]*")


@dataclass(frozen=True)
class TestSet:
    """One test set and language pair found on disk: its fields (``src``, ``ref`` ..., in order) and files."""

    name: str
    langpair: str
    layout: str  # SACREBLEU, MTME or WMT_RELEASE
    root: str  # the folder it was found in
    fields: tuple[tuple[str, str], ...]  # (field name, file path)
    ref_fields: tuple[str, ...]  # the references used for scoring
    columns: tuple[tuple[str, int], ...] = ()  # fields that are one TAB-separated column of their file (0-based)
    raw: str | None = None  # sacreBLEU cache: the raw WMT file the registry names for this pair (when on disk)
    raw_format: str | None = None  # "xml" (WMT21+), "sgm" (up to WMT20) or "other": from the registry
    json_keys: tuple[tuple[str, str], ...] = ()  # fields read from a JSON key of a .jsonl file (WMT24++)

    __test__ = False  # not a pytest test class

    def field_names(self) -> list[str]:
        return [f for f, _ in self.fields]

    def path(self, field: str) -> str:
        """File of ``field``; ``ref`` means the first scoring reference when there is no field of that name."""
        d = dict(self.fields)
        if field in d:
            return d[field]
        if field == "ref" and self.ref_fields:
            return d[self.ref_fields[0]]
        raise InvalidParameterError(
            f"--echo: test set {self.name}/{self.langpair} has no field {field!r}; "
            f"available: {', '.join(self.field_names())}")

    @property
    def source(self) -> str:
        return self.path("src")

    @property
    def references(self) -> list[str]:
        return [self.path(f) for f in self.ref_fields]


def sacrebleu_cache_dir(environ: Mapping[str, str] | None = None) -> str:
    env = os.environ if environ is None else environ
    return env.get("SACREBLEU") or os.path.join(os.path.expanduser("~"), ".sacrebleu")


def mtme_dir(environ: Mapping[str, str] | None = None) -> str:
    env = os.environ if environ is None else environ
    return env.get("MTME_DATA") or os.path.join(os.path.expanduser("~"), ".mt-metrics-eval", "mt-metrics-eval-v2")


def search_places(testset_dir: str | None = None, environ: Mapping[str, str] | None = None) -> list[tuple[str, str]]:
    """(layout, folder) pairs searched in order; ``layout`` None = every layout (``--testset-dir``)."""
    places: list[tuple[str, str]] = []
    if testset_dir is not None:
        places.append(("any", os.fspath(testset_dir)))
    places.append((SACREBLEU, sacrebleu_cache_dir(environ)))
    places.append((MTME, mtme_dir(environ)))
    return places


_REGISTRY_FILE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "sacrebleu",
                              "registry.json")
_REGISTRY: dict | None = None


def _registry() -> dict:
    """sacreBLEU 2.6's test-set registry as mtscore ships it (``mtscore/data/sacrebleu/registry.json``, the data
    the drop-in's ``sacrebleu.dataset`` is built from): ``{"datasets": {name: entry}, "subsets": ...}``. Read
    from the package, never from an installed sacreBLEU, so a test set resolves to the same fields and
    references whether or not sacreBLEU is installed (before, without it ``wmt17/tworefs`` scored one
    reference of two)."""
    global _REGISTRY
    if _REGISTRY is None:
        import json
        with open(_REGISTRY_FILE, encoding="utf-8") as fh:
            reg = json.load(fh)
        _REGISTRY = {"datasets": {d["name"]: d for d in reg["datasets"]}, "subsets": reg["subsets"]}
    return _REGISTRY


def _registry_fields(entry: dict, lp: str) -> tuple[list[str] | None, list[str] | None]:
    """The fields and the scored references of test set ``entry``'s pair ``lp`` as sacreBLEU's dataset classes
    derive them from the registry alone: ``(fields, refs)``; WMT21+ XML sets name their references only
    (their fields are in the raw XML): ``(None, refs)``."""
    kind = entry["format"]
    if kind == "WMTXMLDataset":
        pair = entry["langpairs"][lp]
        allowed = pair.get("refs", entry["kwargs"].get("refs", [])) if isinstance(pair, dict) else \
            entry["kwargs"].get("refs", [])
        return None, [f"ref:{r}" if r else "ref" for r in allowed]
    if kind in ("FakeSGMLDataset", "WMTAdditionDataset", "IWSLTXMLDataset"):  # (IWSLT XML is a FakeSGML)
        files = entry["langpairs"][lp]
        if len(files) < 2:
            return None, None
        fields = ["src"] + (["ref"] if len(files) == 2 else [f"ref:{i}" for i in range(len(files) - 1)])
        if not entry["name"].startswith("wmt08"):
            fields += ["docid", "genre", "origlang"]
    else:  # plain text, TSV
        fields = ["src", "ref"]
    return fields, [f for f in fields if f.startswith("ref")]


# --- sacreBLEU cache ---------------------------------------------------------------------------------
def _sacrebleu_fields(cache: str, name: str, lp: str) -> TestSet | None:
    outdir = os.path.join(cache, name)
    prefix = f"{name.replace('/', '_')}.{lp}."
    try:
        entries = os.listdir(outdir) if os.path.isdir(outdir) else None
    except OSError:  # unreadable: as if absent (the error names the place searched)
        entries = None
    if entries is None:
        return None
    present = {f[len(prefix):]: os.path.join(outdir, f) for f in entries
               if f.startswith(prefix) and os.path.isfile(os.path.join(outdir, f))
               and not f.endswith(".lock")}
    if "src" not in present:
        return None
    ds = _registry()["datasets"].get(name)
    fields: list[str] | None = None
    refs: list[str] | None = None
    raw = raw_format = None
    if ds is not None and lp in ds["langpairs"]:
        kind = ds["format"]
        entry = ds["langpairs"][lp]
        rel = entry.get("path") if isinstance(entry, dict) else (entry[0] if entry else None)
        if isinstance(rel, str):
            raw_format = "xml" if kind == "WMTXMLDataset" else ("sgm" if rel.endswith(".sgm") else "other")
            raw = os.path.join(outdir, "raw", rel)
            raw = raw if os.path.isfile(raw) else None
        fields, refs = _registry_fields(ds, lp)
    by_field = {k.replace("-", ":", 1) if k.startswith("ref-") else k: v for k, v in present.items()}
    if fields is None:
        meta = [f for f in ("docid", "genre", "origlang", "domain") if f in by_field]
        ref_all = sorted(f for f in by_field if f == "ref" or f.startswith("ref:"))
        rest = sorted(f for f in by_field if f not in meta and f not in ref_all and f != "src")
        fields = ["src"] + ref_all + meta + rest
    if not refs:  # no registry, or it names no reference for this pair
        ref_all = sorted(f for f in by_field if f == "ref" or f.startswith("ref:"))
        refs = ["ref"] if "ref" in by_field else ref_all[:1]
    missing = [f for f in fields if f not in by_field]
    if missing:  # a partly processed folder: only what is there
        fields = [f for f in fields if f in by_field]
    refs = [r for r in (refs or []) if r in by_field]
    if not refs:
        return None
    return TestSet(name, lp, SACREBLEU, outdir, tuple((f, by_field[f]) for f in fields), tuple(refs),
                   raw=raw, raw_format=raw_format)


# --- mt-metrics-eval ----------------------------------------------------------------------------------
def _mtme(root: str, name: str, lp: str) -> TestSet | None:
    base = Path(root) / name
    if not (base / "sources" / f"{lp}.txt").is_file():
        if Path(root).name == name and (Path(root) / "sources" / f"{lp}.txt").is_file():
            base = Path(root)
        else:
            return None
    refdir = base / "references"
    refs = {p.name[len(lp) + 1:-4]: str(p) for p in sorted(refdir.glob(f"{lp}.*.txt"))} if refdir.is_dir() else {}
    human = [r for r in refs if r.startswith(("ref", "postedit"))]  # WMT24++: posteditA/B
    if not human:
        return None
    std = MTME_STD_REFS.get((name, lp), "posteditA" if name == "wmt24pp" else "refA")
    std = std if std in refs else sorted(human)[0]
    fields = [("src", str(base / "sources" / f"{lp}.txt")), ("ref", refs[std])]
    fields += [(f"ref:{r}", p) for r, p in refs.items()]
    docs = base / "documents" / f"{lp}.docs"
    if docs.is_file():
        fields += [("docid", str(docs)), ("domain", str(docs))]
    return TestSet(name, lp, MTME, str(base), tuple(fields), ("ref",), (("docid", 1), ("domain", 0)))


# --- WMT24++ release folders (google/wmt24pp) ------------------------------------------------------------------
def _wmt24pp(root: str, name: str, lp: str) -> TestSet | None:
    r = Path(root)
    for path in (r / name / f"{lp}.jsonl", r / f"{lp}.jsonl"):
        if path.parent == r and not (r.name == name or name == "wmt24pp"):
            continue
        if path.is_file() and _looks_wmt24pp(path):
            fields = tuple((f, str(path)) for f, _ in WMT24PP_KEYS)
            return TestSet(name, lp, WMT24PP, str(path.parent), fields, ("ref",), json_keys=WMT24PP_KEYS)
    return None


def _looks_wmt24pp(path: Path) -> bool:
    """The first line is a JSON object with WMT24++'s keys (not, e.g., an mt-metrics-eval jsonl source file)."""
    import json
    try:
        with open(path, encoding="utf-8") as fh:
            obj = json.loads(fh.readline())
    except (OSError, ValueError, RecursionError):  # not JSON, or nested too deeply: not a WMT24++ file
        return False
    return isinstance(obj, dict) and all(k in obj for k in ("source", "target", "original_target"))


def _jsonl_rows(path: str) -> list[dict]:
    """The kept rows of a WMT24++ jsonl file (``is_bad_source`` rows left out), each checked."""
    from .wmt import _read_jsonl
    out = []
    for i, obj in enumerate(_read_jsonl(path, "WMT24++ layout"), 1):
        bad = obj.get("is_bad_source", False)
        if not isinstance(bad, bool):
            raise InputError(f"is_bad_source must be true or false, got {bad!r}", path, i)
        for _, key in WMT24PP_KEYS:
            if not isinstance(obj.get(key), str):
                raise InputError(f"expected a string field {key!r} (WMT24++ layout: source, target, original_target, "
                                 f"document_id, domain), got {obj.get(key)!r}", path, i)
        if not bad:
            out.append(obj)
    return out


def wmt24pp_skipped(t: TestSet) -> int:
    """How many rows of a WMT24++ test set are left out as bad sources."""
    return len(read_lines(t.path("src"))) - len(_jsonl_rows(t.path("src"))) if t.layout == WMT24PP else 0


# --- WMT release folders ----------------------------------------------------------------------------------
def _release_dirs(root: str) -> list[Path]:
    r = Path(root)
    out = [r] if (r / "txt" / "sources").is_dir() else []
    if r.is_dir():
        out += [p for p in sorted(r.iterdir()) if p.is_dir() and (p / "txt" / "sources").is_dir()]
    return out


def _release(root: str, name: str, lp: str) -> TestSet | None:
    for rel in _release_dirs(root):
        folder_match = rel.name == name or rel.name.split("-")[0] == name
        src_dir, ref_dir = rel / "txt" / "sources", rel / "txt" / "references"
        pat = re.compile(rf"(.+)\.{re.escape(lp)}\.src\.[^.]+$")
        prefixes = sorted({m.group(1) for p in src_dir.iterdir() if (m := pat.match(p.name))})
        chosen = [p for p in prefixes if p == name] or (prefixes if folder_match and len(prefixes) == 1 else [])
        if not chosen:
            continue
        prefix = chosen[0]
        src = sorted(src_dir.glob(f"{prefix}.{lp}.src.*"))[0]
        rpat = re.compile(rf"{re.escape(prefix)}\.{re.escape(lp)}\.ref\.(.+)\.[^.]+$")
        refs = {m.group(1): str(p) for p in sorted(ref_dir.glob(f"{prefix}.{lp}.ref.*")) if (m := rpat.match(p.name))} \
            if ref_dir.is_dir() else {}
        if not refs:
            continue
        std = "A" if "A" in refs else sorted(refs)[0]
        fields = [("src", str(src)), ("ref", refs[std])] + [(f"ref:{r}", p) for r, p in refs.items()]
        return TestSet(name, lp, WMT_RELEASE, str(rel), tuple(fields), ("ref",))
    return None


# --- resolution ---------------------------------------------------------------------------------------
def check_langpair(langpair) -> str:
    if not isinstance(langpair, str) or not _PAIR.fullmatch(langpair):
        raise InvalidParameterError(f"-l/--langpair: must be SRC-TGT with two language codes (e.g. en-de), got {langpair!r}")
    return langpair


def split_names(names: str) -> list[str]:
    """``"wmt20,wmt21"`` -> ``["wmt20", "wmt21"]`` (sacreBLEU's comma-joined test sets)."""
    parts = [p.strip() for p in str(names).split(",")]
    if not parts or any(not p for p in parts):
        raise InvalidParameterError(f"-t/--testset: test set names joined by commas, none empty; got {names!r}")
    return parts


def find_testset(name: str, langpair: str, testset_dir: str | None = None,
                 environ: Mapping[str, str] | None = None) -> TestSet:
    """The first place that has test set ``name`` for ``langpair``; else an error naming every place searched."""
    check_langpair(langpair)
    searched = []
    for layout, d in search_places(testset_dir, environ):
        tries = [SACREBLEU, MTME, WMT24PP, WMT_RELEASE] if layout == "any" else [layout]
        for lay in tries:
            if lay == SACREBLEU:
                found = _sacrebleu_fields(d, name, langpair)
                where = os.path.join(d, name)
            elif lay == MTME:
                found = _mtme(d, name, langpair)
                where = os.path.join(d, name, "sources", f"{langpair}.txt")
            elif lay == WMT24PP:
                found = _wmt24pp(d, name, langpair)
                where = os.path.join(d, "[" + name + "/]" + f"{langpair}.jsonl")
            else:
                found = _release(d, name, langpair)
                where = os.path.join(d, "[*/]txt/sources")
            if found is not None:
                return found
            searched.append(f"{where} ({lay})")
    raise InputError(
        f"test set {name!r} for {langpair} not found (mtscore never downloads); searched: {'; '.join(searched)}; "
        f"get it with sacreBLEU (sacrebleu -t {name} -l {langpair} --echo src) or pass --testset-dir DIR")


def find_testsets(names: str, langpair: str, testset_dir: str | None = None,
                  environ: Mapping[str, str] | None = None) -> list[TestSet]:
    found = [find_testset(n, langpair, testset_dir, environ) for n in split_names(names)]
    counts = {len(t.ref_fields) for t in found}
    if len(counts) > 1:
        detail = ", ".join(f"{t.name} has {len(t.ref_fields)}" for t in found)
        raise InputError(f"-t: joined test sets need the same number of references: {detail}")
    return found


def _read_field(t: TestSet, field: str) -> list[str]:
    path = t.path(field)
    key = dict(t.json_keys).get(field)
    if key is not None:
        return [row[key] for row in _jsonl_rows(path)]
    col = dict(t.columns).get(field)
    if col is None:
        return read_lines(path)
    rows = read_lines(path)  # mt-metrics-eval documents/<lp>.docs: DOMAIN<TAB>DOCID
    for i, r in enumerate(rows, 1):
        if r.count("\t") != 1:
            raise InputError(f"expected DOMAIN<TAB>DOCID, got {r.count(chr(9)) + 1} field(s)", path, i)
    return [r.split("\t")[col] for r in rows]


def read_field(testsets: Sequence[TestSet], field: str) -> list[str]:
    """The lines of ``field`` (``src``, ``ref``, ``docid`` ...) of the test sets, concatenated."""
    out: list[str] = []
    for t in testsets:
        out += _read_field(t, field)
    return out


def read_references(testsets: Sequence[TestSet]) -> list[list[str]]:
    """The scoring references of the test sets, concatenated, sentence-major (``refs[i]`` = segment i's)."""
    streams: list[list[str]] = []
    for k in range(len(testsets[0].ref_fields)):
        lines: list[str] = []
        for t in testsets:
            lines += _read_field(t, t.ref_fields[k])
        streams.append(lines)
    n = {len(s) for s in streams}
    if len(n) > 1:
        raise InputError(f"the references of {','.join(t.name for t in testsets)} differ in line count: "
                         + ", ".join(str(len(s)) for s in streams))
    return [list(seg) for seg in zip(*streams)]


def echo(testsets: Sequence[TestSet], fields: Sequence[str], origlang: str | None = None,
         subset: str | None = None) -> str:
    """Lines of the requested fields, tab-separated, as sacreBLEU's ``--echo`` prints them (``all`` = every field),
    only the segments of ``origlang``/``subset`` when given (:func:`subset_mask`)."""
    fields = list(fields)
    if "all" in fields and len(fields) != 1:
        raise InvalidParameterError("--echo: 'all' cannot be combined with other fields")
    lines_out: list[str] = []
    for t in testsets:
        names = t.field_names() if fields == ["all"] else fields
        cols = [_read_field(t, f) for f in names]
        if t.ref_fields and t.ref_fields[0] not in names:  # a metadata field alone (--echo docid) is checked
            names, cols = list(names) + [t.ref_fields[0]], cols + [_read_field(t, t.ref_fields[0])]  # too
            shown = len(names) - 1
        else:
            shown = len(names)
        n = {len(c) for c in cols}
        if len(n) > 1:
            raise InputError(f"--echo: the fields of {t.name}/{t.langpair} differ in line count: "
                             + ", ".join(f"{f} has {len(c)}" for f, c in zip(names, cols)),
                             next(t.path(f) for f, c in zip(names, cols) if len(c) != len(cols[-1])))
        names, cols = names[:shown], cols[:shown]
        rows = list(zip(*cols))
        if origlang is not None or subset is not None:
            keep = subset_mask(t, origlang, subset)
            if len(keep) != len(rows):
                raise InputError(f"the document metadata of {t.name}/{t.langpair} has {plural(len(keep), 'segment')}, its "
                                 f"text files {len(rows)}", t.raw or t.root)
            rows = [r for r, k in zip(rows, keep) if k]
        lines_out += ["\t".join(x.rstrip() for x in row) for row in rows]
    return "\n".join(lines_out)


def list_testsets(langpair: str | None = None, testset_dir: str | None = None,
                  environ: Mapping[str, str] | None = None) -> list[TestSet]:
    """Every (test set, language pair) present in the searched places (optionally of one language pair)."""
    out: list[TestSet] = []
    seen = set()
    for layout, d in search_places(testset_dir, environ):
        try:
            cands = _candidates(layout, d)
        except OSError:  # an unreadable folder lists nothing
            continue
        for name, lp in cands:
            if (name, lp) in seen or (langpair is not None and lp != langpair):
                continue
            try:
                t = find_testset(name, lp, testset_dir, environ)
            except (InputError, InvalidParameterError):
                continue
            seen.add((name, lp))
            out.append(t)
    return out


def _candidates(layout: str, d: str) -> list[tuple[str, str]]:
    """(name, pair) of the test sets that folder ``d`` seems to hold in ``layout``."""
    if not os.path.isdir(d):
        return []
    cands: list[tuple[str, str]] = []
    if layout in ("any", SACREBLEU):
        for sub in sorted(os.listdir(d)):
            p = os.path.join(d, sub)
            if not os.path.isdir(p) or sub == "models":
                continue
            pat = re.compile(rf"{re.escape(sub)}\.([^.]+-[^.]+)\.src$")
            cands += [(sub, m.group(1)) for f in sorted(os.listdir(p)) if (m := pat.match(f))]
    if layout in ("any", MTME):
        for sub in sorted(os.listdir(d)):
            srcd = os.path.join(d, sub, "sources")
            if os.path.isdir(srcd):
                cands += [(sub, f[:-4]) for f in sorted(os.listdir(srcd)) if f.endswith(".txt")]
    if layout == "any":
        pat = re.compile(r"([^.]+-[^.]+)\.jsonl$")
        for sub in [d] + [os.path.join(d, x) for x in sorted(os.listdir(d))]:
            if os.path.isdir(sub):
                name = os.path.basename(os.path.normpath(sub))
                cands += [(name, m.group(1)) for f in sorted(os.listdir(sub)) if (m := pat.match(f))]
        for rel in _release_dirs(d):
            pat = re.compile(r"(.+)\.([^.]+-[^.]+)\.src\.[^.]+$")
            cands += sorted({(m.group(1), m.group(2)) for p in (rel / "txt" / "sources").iterdir()
                             if (m := pat.match(p.name))})
    return cands


# --- subsets by document metadata (sacreBLEU's --origlang / --subset / --detail) --------------------------
# sacreBLEU 2.6 (utils.filter_subset) reads the raw WMT file of the pair: the XML of WMT21+ (per segment: the
# origlang and domain attributes of its <doc>) or the SGM source of WMT up to 2020 (per <seg> line: the last
# ` origlang="..."` / ` docid="..."` of the preceding <doc ...> line, the whole line when it has none; the subset
# tags per docid from its registry's SUBSETS, WMT18/19 only). Without the raw file mtscore reads the per-segment
# fields sacreBLEU extracted from it (``NAME.PAIR.origlang``, ``.domain``, ``.docid``), or mt-metrics-eval's
# documents/PAIR.docs (domain and docid; it has no original language).
_SGM_ORIGLANG = re.compile(r'.* origlang="([^"]+)".*\n')
_SGM_DOCID = re.compile(r'.* docid="([^"]+)".*\n')


@dataclass(frozen=True)
class SegmentMeta:
    """Per-segment document metadata of one test set, and the rule that applies to it."""

    kind: str  # "xml" (domain = regex target) or "sgm" (docid -> SUBSETS tag = regex target)
    origlang: tuple | None  # per segment, None: not known
    domain: tuple | None  # per segment (xml); None when the test set has no domains
    docid: tuple | None  # per segment (sgm)
    doc_origlangs: tuple | None = None  # sgm: the value of every <doc> line (sacreBLEU's available origlangs)

    __test__ = False


def _subset_tags(name: str):
    """sacreBLEU's document annotations (SUBSETS: WMT18/19 docid -> COUNTRY-domain), from its registry."""
    return _registry()["subsets"].get(name)


def _lines_keepends(path: str) -> list[str]:
    """Lines split on ``\\n`` only, each with its ``\\n`` (sacreBLEU reads raw files with ``newline="\\n"``)."""
    from .output import note_input
    note_input(path)
    with open(path, encoding="utf-8", newline="\n") as fh:
        return fh.readlines()


def _parse_sgm(path: str) -> SegmentMeta:
    orig: list[str] = []
    docid: list[str] = []
    docs: list[str] = []
    cur_o = cur_d = None
    for line in _lines_keepends(path):
        if line.startswith("<doc "):
            m = _SGM_ORIGLANG.match(line)
            cur_o = m.group(1) if m else line
            m = _SGM_DOCID.match(line)
            cur_d = m.group(1) if m else line
            docs.append(cur_o)
        if line.startswith("<seg "):
            if cur_o is None:  # a segment before any <doc>: sacreBLEU never includes it
                orig.append(None)
                docid.append(None)
            else:
                orig.append(cur_o)
                docid.append(cur_d)
    return SegmentMeta("sgm", tuple(orig), None, tuple(docid), tuple(docs))


def _parse_wmt_xml(path: str) -> SegmentMeta:
    """The segments sacreBLEU keeps from a WMT21+ XML file (documents without the ``testsuite`` attribute,
    segments of the source with a non-empty reference by some translator), with their document's origlang
    and domain; domains count only when the last kept segment's document has one (sacreBLEU's rule)."""
    import xml.etree.ElementTree as ET
    try:
        root = ET.parse(path).getroot()
    except (ET.ParseError, OSError) as exc:
        raise InputError(f"cannot parse the WMT XML file: {exc}", path) from None
    orig: list[str] = []
    domains: list = []
    seen_domain = False
    def seg_id(seg):
        try:
            return int(seg.get("id"))
        except (TypeError, ValueError):
            raise InputError(f"a <seg> has no integer id (got {seg.get('id')!r})", path) from None

    for doc in root.iter("doc"):
        if "testsuite" in doc.attrib:
            continue
        src_ids = sorted({seg_id(seg) for src in doc.iter("src") for seg in src.iter("seg")})
        refs = {}
        for ref in doc.iter("ref"):
            refs[ref.get("translator")] = {seg_id(seg): seg.text or "" for seg in ref.iter("seg")}
        for sid in src_ids:
            if not any(r.get(sid, "") for r in refs.values()):
                continue
            if "origlang" not in doc.attrib:
                raise InputError(f"document {doc.get('id')!r} has no origlang attribute", path)
            orig.append(doc.attrib["origlang"])
            domains.append(doc.get("domain"))
            seen_domain = doc.get("domain") is not None
    return SegmentMeta("xml", tuple(orig), tuple(domains) if seen_domain else None, None)


def segment_meta(t: TestSet) -> SegmentMeta:
    """The document metadata of test set ``t``: its raw WMT file when sacreBLEU's registry names one on disk,
    else the per-segment metadata files; an error when it has none."""
    if t.raw is not None:
        if t.raw_format == "xml":
            return _parse_wmt_xml(t.raw)
        if t.raw_format == "sgm":
            return _parse_sgm(t.raw)
        raise InputError(f"--origlang/--subset: only WMT *.xml and *.sgm test sets have document metadata "
                         f"(sacreBLEU's rule); {t.name}/{t.langpair} comes from {t.raw}")
    names = t.field_names()
    orig = tuple(_read_field(t, "origlang")) if "origlang" in names else None
    domain = tuple(_read_field(t, "domain")) if "domain" in names else None
    docid = tuple(_read_field(t, "docid")) if "docid" in names else None
    kind = t.raw_format if t.raw_format in ("xml", "sgm") else ("xml" if domain is not None or t.layout == MTME
                                                                else "sgm")
    if orig is None and domain is None and docid is None:
        raise InputError(f"--origlang/--subset: test set {t.name}/{t.langpair} has no document metadata "
                         f"(no raw WMT file, no origlang/domain/docid field) in {t.root}")
    return SegmentMeta(kind, orig, domain, docid)


def _origlang_ok(value, origlang: str | None) -> bool:
    if origlang is None:
        return True
    if value is None:
        return False
    return value != origlang[4:] if origlang.startswith("non-") else value == origlang


def subset_mask(t: TestSet, origlang: str | None, subset: str | None, meta: SegmentMeta | None = None) -> list[bool]:
    """Which segments of ``t`` sacreBLEU keeps for ``--origlang`` (``non-XX`` = every other original
    language) and ``--subset`` (a regular expression searched in the document's domain, or in WMT18/19 in
    sacreBLEU's COUNTRY-domain tag of its docid; a ``country:`` prefix is dropped)."""
    meta = segment_meta(t) if meta is None else meta
    if subset is not None:
        if subset.startswith("country:"):
            subset = subset[8:]
        try:
            rx = re.compile(subset)
        except re.error as exc:
            raise InvalidParameterError(f"--subset: must be a regular expression, got {subset!r} ({exc})") from None
    n = len(next(x for x in (meta.origlang, meta.domain, meta.docid) if x is not None))
    if origlang is not None and meta.origlang is None:
        raise InputError(f"--origlang: test set {t.name}/{t.langpair} has no original-language metadata "
                         f"({t.layout} folder {t.root})")
    tags = None
    if subset is not None and meta.kind == "sgm":
        tags = _subset_tags(t.name)
        if tags is None:
            raise InputError(f"--subset: no subset annotation available for test set {t.name} (sacreBLEU's "
                             "registry has them for wmt18 and wmt19)")
        if meta.docid is None:
            raise InputError(f"--subset: test set {t.name}/{t.langpair} has no docid metadata in {t.root}")
    keep = []
    for i in range(n):
        ok = _origlang_ok(meta.origlang[i] if meta.origlang is not None else None, origlang) \
            if origlang is not None else (meta.kind != "sgm" or meta.origlang is None or meta.origlang[i] is not None)
        if subset is not None:
            if meta.kind == "sgm":
                target = tags.get(meta.docid[i], "") if meta.docid[i] is not None else ""
            else:
                target = meta.domain[i] if meta.domain is not None else None
            if target is None or not rx.search(target):
                ok = False
        keep.append(ok)
    return keep


def available_origlangs(testsets: Sequence[TestSet]) -> list[str]:
    """The original languages of the test sets' documents, sorted (sacreBLEU's ``--detail`` rows)."""
    out: set = set()
    for t in testsets:
        try:
            meta = segment_meta(t)
        except InputError:
            continue
        vals = meta.doc_origlangs if meta.kind == "sgm" and meta.doc_origlangs is not None else meta.origlang
        out |= {v for v in (vals or ()) if v is not None}
    return sorted(out)


def available_subsets(testsets: Sequence[TestSet]) -> list[str]:
    """The subsets sacreBLEU's ``--detail`` breaks scores down by: the XML domains, or ``country:XX`` and the
    domains of sacreBLEU's WMT18/19 annotations."""
    out: set = set()
    for t in testsets:
        try:
            meta = segment_meta(t)
        except InputError:
            continue
        if meta.kind == "xml":
            if meta.domain is not None:
                out |= set(meta.domain)
        else:
            tags = _subset_tags(t.name)
            if tags is not None:
                out |= {"country:" + v.split("-")[0] for v in tags.values()}
                out |= {v.split("-")[1] for v in tags.values()}
    return sorted(out)
