"""Produce the AutoRank known answers under tests/known_answers/ from the WMT organisers' own files.

* ``wmt25-autorank.json``: the WMT25 preliminary ranking as the organisers' automatic-evaluation repository
  (prosho-97/wmt-automatic-eval) printed it at the commit that added the tables (``autorank/res/``): per language
  pair, each metric's system scores, each robust-scaled score and the AutoRank. Two prints of one run exist: the
  spreadsheet ``autorank.xlsx`` (every number rounded to 2 decimals) and the LaTeX tables ``autorank_<lp>.tex``
  (COMET-family scores to 3 decimals, the others and AutoRank to 1). For each number the finer print is kept and
  its number of decimals recorded, so a test can derive the bound the rounding allows (docs/rank.md).
* ``wmt25-en-it-gemba-*.seg.jsonl``: the per-segment GEMBA-ESA scores (Command A, GPT-4.1) of English-Italian, read
  from the repository's ``outputs.pickle`` files, one JSON line per (system, document), for the language pair whose
  system scores the repository also printed to 4 decimals (``autorank/res/GEMBA-ESA-*.csv``).
* in ``wmt25-autorank.json`` too, ``system_means``: each metric's system score to full precision, with its scored
  and missing segment counts, computed here from the per-segment outputs of every metric that the organisers
  published as JSON lines (wmt-conference/wmt25-general-mt, ``data/automatic_scores/<system>.jsonl``); the script
  checks that each mean rounds to the printed value.
* ``wmt25-report.json``: the published report itself ("Preliminary Ranking of WMT25 General Machine Translation
  Systems", wmt-conference/wmt25-general-mt ``preliminary_ranking/latex_source/generated_report.tex``): for all 31
  language pairs (English-Bhojpuri and English-Maasai ranked by chrF++ alone), the systems, the metrics, the printed
  AutoRank (1 decimal), and each metric's full-precision system mean with its scored and missing segment counts,
  computed from the per-segment outputs; the script checks that every mean rounds to the report's printed score.
* ``wmt24-autorank.json``: the WMT24 preliminary ranking from wmt-conference/wmt24-news-systems: the spreadsheet
  ``humeval/AutoRank.xlsx`` (MetricX-23-XL to full precision, CometKiwi-DA-XL to 4 decimals, both stored so that lower
  is better; each metric's scaled rank and the AutoRank to full precision) and the report's tables
  (``report/generated_report.tex``: AutoRank and MetricX to 1 decimal, CometKiwi to 3).

The pickles are read by a small interpreter of the pickle opcodes for plain containers and numbers
(``pickletools.genops``); any other opcode (a class, a function call) stops the script. Nothing is unpickled, no
pickle code runs. The spreadsheets are read as the XML inside their zip files.

    python scripts/autorank_known_answers.py --wmt25 /work/.mirror/prosho-97+wmt-automatic-eval/repo \\
        --wmt25-scores /work/.mirror/wmt-conference+wmt25-general-mt/repo \\
        --wmt24 /work/.mirror/wmt-conference+wmt24-news-systems/repo

(each argument a git directory of the repository; the commits are fixed below and recorded in the files).
"""
from __future__ import annotations

import argparse
import io
import json
import pickletools
import re
import subprocess
import sys
import zipfile
from pathlib import Path
from xml.etree import ElementTree as ET

WMT25_REPO = "prosho-97/wmt-automatic-eval"
WMT25_COMMIT = "dafba65031c77999d85b603a95ef739bda4647ff"  # "add code for generating autorank latex tables"
SCORES_REPO = "wmt-conference/wmt25-general-mt"
SCORES_COMMIT = "ebae87369fc8931d7f1c6faf8192e8f04a480d1f"
WMT24_REPO = "wmt-conference/wmt24-news-systems"
WMT24_COMMIT = "bfa937ee53586aa173d68657b89b8642693f7b66"
OUT = Path(__file__).resolve().parents[1] / "tests" / "known_answers"

_PLAIN = {"EMPTY_DICT", "EMPTY_LIST", "MARK", "APPEND", "APPENDS", "SETITEM", "SETITEMS", "MEMOIZE", "BINGET",
          "LONG_BINGET", "NONE", "BININT", "BININT1", "BININT2", "BINFLOAT", "SHORT_BINUNICODE", "BINUNICODE",
          "BINUNICODE8", "PROTO", "FRAME", "STOP", "NEWTRUE", "NEWFALSE", "EMPTY_TUPLE", "TUPLE1", "TUPLE2", "TUPLE3",
          "TUPLE", "PUT", "BINPUT", "LONG_BINPUT", "GET"}


def read_plain_pickle(data: bytes):
    """The value of a pickle made only of dicts, lists, tuples, str, int, float, bool and None, by interpreting
    its opcodes; raises on any other opcode (GLOBAL, REDUCE, ...): no pickle code is executed."""
    stack, marks, memo = [], [], {}
    for op, arg, pos in pickletools.genops(data):
        n = op.name
        if n not in _PLAIN:
            raise ValueError(f"pickle opcode {n} at byte {pos}: not a plain container; refusing to go on")
        if n in ("PROTO", "FRAME"):
            continue
        if n == "EMPTY_DICT":
            stack.append({})
        elif n == "EMPTY_LIST":
            stack.append([])
        elif n == "EMPTY_TUPLE":
            stack.append(())
        elif n == "MARK":
            marks.append(len(stack))
        elif n in ("BININT", "BININT1", "BININT2", "BINFLOAT", "SHORT_BINUNICODE", "BINUNICODE", "BINUNICODE8"):
            stack.append(arg)
        elif n == "NONE":
            stack.append(None)
        elif n in ("NEWTRUE", "NEWFALSE"):
            stack.append(n == "NEWTRUE")
        elif n == "MEMOIZE":
            memo[len(memo)] = stack[-1]
        elif n in ("PUT", "BINPUT", "LONG_BINPUT"):
            memo[arg] = stack[-1]
        elif n in ("GET", "BINGET", "LONG_BINGET"):
            stack.append(memo[arg])
        elif n == "APPEND":
            v = stack.pop()
            stack[-1].append(v)
        elif n == "APPENDS":
            k = marks.pop()
            items = stack[k:]
            del stack[k:]
            stack[-1].extend(items)
        elif n == "SETITEM":
            v = stack.pop()
            key = stack.pop()
            stack[-1][key] = v
        elif n == "SETITEMS":
            k = marks.pop()
            items = stack[k:]
            del stack[k:]
            for i in range(0, len(items), 2):
                stack[-1][items[i]] = items[i + 1]
        elif n in ("TUPLE1", "TUPLE2", "TUPLE3"):
            k = int(n[-1])
            items = tuple(stack[-k:])
            del stack[-k:]
            stack.append(items)
        elif n == "TUPLE":
            k = marks.pop()
            items = tuple(stack[k:])
            del stack[k:]
            stack.append(items)
        elif n == "STOP":
            return stack.pop()
    raise ValueError("pickle without STOP")


def git_show(repo: Path, commit: str, path: str) -> bytes:
    return subprocess.run(["git", "-C", str(repo), "show", f"{commit}:{path}"], check=True,
                          capture_output=True).stdout


_NS = {"m": "http://schemas.openxmlformats.org/spreadsheetml/2006/main"}


def read_xlsx(data: bytes) -> dict:
    """{sheet name: list of rows (lists of cell text, None for an empty cell)} of an .xlsx with inline strings."""
    z = zipfile.ZipFile(io.BytesIO(data))
    shared = []
    if "xl/sharedStrings.xml" in z.namelist():
        for si in ET.fromstring(z.read("xl/sharedStrings.xml")).findall("m:si", _NS):
            shared.append("".join(t.text or "" for t in si.iter(f"{{{_NS['m']}}}t")))
    wb = ET.fromstring(z.read("xl/workbook.xml"))
    rels = ET.fromstring(z.read("xl/_rels/workbook.xml.rels"))
    target = {r.get("Id"): r.get("Target") for r in rels}
    out = {}
    rid = "{http://schemas.openxmlformats.org/officeDocument/2006/relationships}id"
    for sh in wb.find("m:sheets", _NS):
        path = "xl/" + target[sh.get(rid)].lstrip("/").removeprefix("xl/")
        rows = []
        for row in ET.fromstring(z.read(path)).iter(f"{{{_NS['m']}}}row"):
            cells = {}
            for c in row.findall("m:c", _NS):
                col = re.match(r"[A-Z]+", c.get("r")).group(0)
                idx = 0
                for ch in col:
                    idx = idx * 26 + ord(ch) - 64
                t = c.get("t")
                if t == "inlineStr":
                    val = "".join(x.text or "" for x in c.iter(f"{{{_NS['m']}}}t"))
                elif t == "s":
                    val = shared[int(c.find("m:v", _NS).text)]
                else:
                    v = c.find("m:v", _NS)
                    val = None if v is None else v.text
                cells[idx - 1] = val
            width = max(cells) + 1 if cells else 0
            rows.append([cells.get(i) for i in range(width)])
        out[sh.get("name")] = rows
    return out


def decimals(text: str) -> int:
    return len(text.split(".")[1]) if "." in text else 0


def _print2(v: float) -> str:
    """How pandas' ``float_format="%.2f"`` printed the value the spreadsheet stores (it stores the float of that
    text, e.g. 0.5600000000000001): the 2-decimal text."""
    return f"{float(v):.2f}"


def _tex_rows(tex: str):
    for line in tex.splitlines():
        line = line.strip()
        if "&" not in line or line.startswith(("\\bf", "System Name")):
            continue
        yield [c.strip() for c in line.rstrip("\\").rstrip().rstrip("\\").split("&")]


def segment_means(repo: Path) -> dict:
    """{(lp, system, metric): [sum, scored, missing]} from data/automatic_scores/*.jsonl of wmt25-general-mt."""
    names = subprocess.run(["git", "-C", str(repo), "ls-tree", "--name-only", SCORES_COMMIT,
                            "data/automatic_scores/"], check=True, capture_output=True, text=True).stdout.split()
    acc: dict = {}
    for path in names:
        system = Path(path).name[:-len(".jsonl")]
        for line in git_show(repo, SCORES_COMMIT, path).decode("utf-8").splitlines():
            row = json.loads(line)
            for metric, vals in row["metric_scores"].items():
                a = acc.setdefault((row["language_pair"], system, metric), [0.0, 0, 0])
                for v in vals:
                    if v is None:
                        a[2] += 1
                    else:
                        a[0] += v
                        a[1] += 1
    return acc


def wmt25(repo: Path, scores_repo: Path) -> None:
    files = {}
    xlsx = read_xlsx(git_show(repo, WMT25_COMMIT, "autorank/res/autorank.xlsx"))
    files["autorank/res/autorank.xlsx"] = True
    lps = {}
    for lp, rows in xlsx.items():
        head = rows[0]
        col = {name: i for i, name in enumerate(head) if name}
        metrics = [h[:-4] for h in head if h and h.endswith("_raw")]
        systems = [r[0] for r in rows[1:]]
        tex_path = f"autorank/res/autorank_{lp}.tex"
        tex = git_show(repo, WMT25_COMMIT, tex_path).decode("utf-8")
        files[tex_path] = True
        header = next(line for line in tex.splitlines() if line.startswith("System Name"))
        tcols = [c.strip().replace(" $\\uparrow$", "").replace(" $\\downarrow$", "") for c in
                 header.rstrip("\\ ").split("&")]
        tex_vals = {}
        for cells in _tex_rows(tex):
            if len(cells) != len(tcols) or cells[0] == "System Name":
                continue
            name = cells[0].replace("\\_", "_")
            tex_vals[name] = dict(zip(tcols, cells))
        scores, scaled, dec = {}, {}, {}
        for m in metrics:
            scores[m], scaled[m] = {}, {}
            for r, s in zip(rows[1:], systems):
                x2 = _print2(r[col[m + "_raw"]])
                tx = tex_vals.get(s, {}).get(m)
                # the tables print COMET-family scores with round(x, 3) (str drops trailing zeros: "0.6" is 0.600)
                best = f"{float(tx):.3f}" if tx is not None and "comet" in m.lower() else x2
                if tx is not None and abs(float(tx) - float(x2)) > 0.5 * 10 ** -decimals(tx) + 0.005 + 1e-12:
                    raise SystemExit(f"{lp} {s} {m}: the two prints disagree ({tx} vs {x2})")
                scores[m][s] = best
                scaled[m][s] = _print2(r[col[m]])
            dec[m] = sorted({decimals(v) for v in scores[m].values()})
        autorank = {s: _print2(r[col["autorank"]]) for r, s in zip(rows[1:], systems)}
        autorank_tex = {s: tex_vals[s]["AutoRank"] for s in systems if s in tex_vals}
        constrained = {s: r[col["is_constrained"]] == "1" for r, s in zip(rows[1:], systems)}
        lps[lp] = {"systems": systems, "metrics": metrics, "scores": scores, "decimals": dec,
                   "scaled": scaled, "autorank": autorank, "autorank_tex": autorank_tex, "constrained": constrained}
    # per-segment GEMBA-ESA of en-it_IT, checked against the 4-decimal system scores of the same run
    seg_files = {}
    for metric in ("GEMBA-ESA-CMDA", "GEMBA-ESA-GPT4.1"):
        pk = f"data/metrics_outputs/{metric}/outputs.pickle"
        data = read_plain_pickle(git_show(repo, WMT25_COMMIT, pk))
        files[pk] = True
        csv_path = f"autorank/res/{metric}.csv"
        csv = git_show(repo, WMT25_COMMIT, csv_path).decode().splitlines()[1:]
        files[csv_path] = True
        printed = {line.split(",")[0]: line.split(",")[2] for line in csv}
        lp = "en-it_IT"
        lines = []
        for s in lps[lp]["systems"]:
            for domain, docs in data[s][lp].items():
                for doc, segs in docs.items():
                    lines.append(json.dumps({"system": s, "domain": domain, "doc": doc, "scores": segs},
                                            ensure_ascii=False))
            vals = [x for d in data[s][lp].values() for segs in d.values() for x in segs if x is not None]
            mean = sum(vals) / len(vals)
            if s in printed and abs(mean - float(printed[s])) > 0.00005 + 1e-12:
                raise SystemExit(f"{metric} {s}: per-segment mean {mean} vs printed {printed[s]}")
        name = f"wmt25-en-it-{metric.lower()}.seg.jsonl"
        (OUT / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
        seg_files[metric] = {"file": name, "system_scores_4dp": {s: printed[s] for s in lps[lp]["systems"]
                                                                 if s in printed}}
        # the other language pairs: the script checks the 2-decimal print (not committed: too large)
        for lp2, rec in lps.items():
            if metric not in rec["scores"]:
                continue
            for s in rec["systems"]:
                vals = [x for d in data[s][lp2].values() for segs in d.values() for x in segs if x is not None]
                if abs(sum(vals) / len(vals) - float(rec["scores"][metric][s])) > 0.005 + 1e-9:
                    raise SystemExit(f"{metric} {lp2} {s}: per-segment mean disagrees with the print")
    acc = segment_means(scores_repo)
    for lp, rec in lps.items():
        rec["system_means"] = {}
        for m in rec["metrics"]:
            rec["system_means"][m] = {}
            for s in rec["systems"]:
                total, n, miss = acc[(lp, s, m)]
                mean = total / n
                h = 0.5 * 10.0 ** -decimals(rec["scores"][m][s])
                if abs(mean - float(rec["scores"][m][s])) > h + 1e-9:
                    raise SystemExit(f"{lp} {s} {m}: per-segment mean {mean} vs printed {rec['scores'][m][s]}")
                rec["system_means"][m][s] = [mean, n, miss]  # JSON floats read back to the same double
    out = {"upstream": {"repository": WMT25_REPO, "commit": WMT25_COMMIT, "files": sorted(files),
                        "segment_scores": {"repository": SCORES_REPO, "commit": SCORES_COMMIT,
                                           "files": "data/automatic_scores/*.jsonl"}},
           "made_by": "scripts/autorank_known_answers.py",
           "note": "numbers as printed (strings keep the printed decimals); metrics as stored upstream: every "
                   "metric higher-is-better (MetricX negated); system_means: [mean, scored, missing] per system, "
                   "computed from the per-segment outputs",
           "segments": seg_files, "lps": lps}
    (OUT / "wmt25-autorank.json").write_text(_dumps(out), encoding="utf-8")
    print(f"wmt25: {len(lps)} language pairs", file=sys.stderr)


def _dumps(obj) -> str:
    """Indented JSON with the short lists ([mean, scored, missing]) kept on one line."""
    text = json.dumps(obj, indent=1, ensure_ascii=False)
    return re.sub(r"\[\n\s+([^\[\]{}]*?)\n\s+\]", lambda m: "[" + " ".join(m.group(1).split()) + "]", text) + "\n"


# the report prints some systems under other names (upstream autorank/compute_autorank.py, ``system_renames``)
RENAMED = {"CommandA-WMT": "CommandA-MT", "Shy-hunyuan-MT": "Shy", "TowerPlus-9B[M]": "TowerPlus-9B",
           "TowerPlus-72B[M]": "TowerPlus-72B", "EuroLLM-9B[M]": "EuroLLM-9B", "EuroLLM-22B-pre.[M]": "EuroLLM-22B"}
LANGS = {"cs": "Czech", "ja": "Japanese", "en": "English", "cs_CZ": "Czech", "ar_EG": "Egyptian Arabic",
         "bn_BD": "Bengali", "bho_IN": "Bhojpuri", "zh_CN": "Simplified Chinese", "et_EE": "Estonian",
         "fa_IR": "Persian", "de_DE": "German", "el_GR": "Greek", "hi_IN": "Hindi", "is_IS": "Icelandic",
         "id_ID": "Indonesian", "it_IT": "Italian", "ja_JP": "Japanese", "kn_IN": "Kannada", "ko_KR": "Korean",
         "lt_LT": "Lithuanian", "mr_IN": "Marathi", "mas_KE": "Maasai", "ro_RO": "Romanian", "ru_RU": "Russian",
         "sr_Latn_RS": "Serbian (Latin)", "sr_Cyrl_RS": "Serbian (Cyrilics)", "sv_SE": "Swedish", "th_TH": "Thai",
         "tr_TR": "Turkish", "uk_UA": "Ukrainian", "vi_VN": "Vietnamese"}


def wmt25_report(scores_repo: Path) -> None:
    path = "preliminary_ranking/latex_source/generated_report.tex"
    tex = git_show(scores_repo, SCORES_COMMIT, path).decode("utf-8")
    acc = segment_means(scores_repo)
    lps_seen = {lp for lp, _, _ in acc}
    title_to_lp = {f"{LANGS[lp.split('-', 1)[0]]}-{LANGS[lp.split('-', 1)[1]]}": lp for lp in lps_seen}
    out_lps = {}
    for block in tex.split("\\begin{tabularx}")[1:]:
        title = re.search(r"\\textbf\{([^}]*)\}", block).group(1)
        lp = title_to_lp[title]
        parts = block.split("\\midrule")
        head = [c.strip().replace(" $\\uparrow$", "").replace(" $\\downarrow$", "")
                for c in parts[1].strip().rstrip("\\").split("&")]
        metrics = head[head.index("AutoRank") + 1:]
        systems, autorank, means, printed = [], {}, {m: {} for m in metrics}, {m: {} for m in metrics}
        for line in parts[2].split("\\bottomrule")[0].strip().splitlines():
            if "&" not in line:
                continue
            cells = [re.sub(r"\\cellcolor\{[^}]*\}", "", c).strip()
                     for c in line.strip().rstrip("\\").strip().split("&")]
            shown = cells[0].replace("\\official ", "").replace("\\_", "_").strip()
            name = RENAMED.get(shown, shown)
            row = dict(zip(head, cells))
            systems.append(name)
            autorank[name] = row["AutoRank"]
            for m in metrics:
                total, n, miss = acc[(lp, name, m)]
                mean = total / n
                # the report prints COMET-family scores with round(x, 3) ("0.6" is 0.600), the others to 1 decimal
                h = 0.0005 if "comet" in m.lower() else 0.5 * 10.0 ** -decimals(row[m])
                if abs(mean - float(row[m])) > h + 1e-9:
                    raise SystemExit(f"report {lp} {name} {m}: per-segment mean {mean} vs printed {row[m]}")
                means[m][name] = [mean, n, miss]
                printed[m][name] = f"{float(row[m]):.3f}" if "comet" in m.lower() else row[m]
        out_lps[lp] = {"title": title, "systems": systems, "metrics": metrics, "autorank": autorank,
                       "scores": printed, "system_means": means}
    out = {"upstream": {"repository": SCORES_REPO, "commit": SCORES_COMMIT,
                        "files": [path, "data/automatic_scores/*.jsonl"]},
           "made_by": "scripts/autorank_known_answers.py",
           "note": "the WMT25 preliminary report's tables: printed AutoRank (1 decimal) and scores (COMET family written to 3 "
                   "decimals as printed by round(x, 3), others as printed); system_means: [mean, scored, "
                   "missing] of each metric, computed from the per-segment outputs (every metric stored "
                   "higher-is-better: MetricX negated); systems under their file names",
           "lps": out_lps}
    (OUT / "wmt25-report.json").write_text(_dumps(out), encoding="utf-8")
    print(f"wmt25 report: {len(out_lps)} language pairs", file=sys.stderr)


def wmt24(repo: Path) -> None:
    xlsx = read_xlsx(git_show(repo, WMT24_COMMIT, "humeval/AutoRank.xlsx"))
    tex = git_show(repo, WMT24_COMMIT, "report/generated_report.tex").decode("utf-8")
    # the report's full tables ("... ranking for <Source>-<Target>." without "excluding closed systems")
    report = {}
    for block in tex.split("\\begin{tabular}{R{40mm}")[1:]:
        cap = re.search(r"\\caption\{Preliminary WMT24 General MT automatic ranking for ([^.]*?)\.\}", block)
        if cap is None or "excluding" in cap.group(1):
            continue
        rows = {}
        for line in block.split("\\toprule", 1)[1].split("\\bottomrule", 1)[0].splitlines():
            if "&" not in line:
                continue
            body = re.sub(r"^\\(opentrack|closedtrack)\{(.*)\}\s*\\\\$", r"\2", line.strip())
            body = body.rstrip("\\ ").strip()
            cells = [c.strip() for c in body.split("&")]
            name = re.sub(r"\\nonsupporting\{([^}]*)\}", r"\1", cells[0]).replace("$\\dagger$", "").strip()
            rows[name] = {"AutoRank": cells[1], "MetricX": cells[2], "CometKiwi": cells[3]}
        report[cap.group(1)] = rows
    lps = {}
    for lp, rows in xlsx.items():
        head = rows[0]
        col = {name: i for i, name in enumerate(head) if name}
        systems = [r[0].replace("$\\dagger$", "").strip() for r in rows[1:]]

        def column(name):
            return {s: r[col[name]] for r, s in zip(rows[1:], systems)}
        lps[lp] = {"systems": systems, "metrics": ["metricx", "cometkiwi"],
                   "scores": {"metricx": column("metricx"), "cometkiwi": column("cometkiwi")},
                   "decimals": {"metricx": sorted({decimals(v) for v in column("metricx").values()}),
                                "cometkiwi": sorted({decimals(v) for v in column("cometkiwi").values()})},
                   "rank": {"metricx": column("rank_metricx"), "cometkiwi": column("rank_cometkiwi")},
                   "autorank": column("AutoRank"), "type": column("type")}
    names = {"cs": "Czech", "en": "English", "de": "German", "es": "Spanish", "hi": "Hindi", "is": "Icelandic",
             "ja": "Japanese", "ru": "Russian", "uk": "Ukrainian", "zh": "Chinese"}
    for lp, rec in lps.items():
        src, tgt = lp.split("-")
        title = f"{names[src]}-{names[tgt]}"
        rec["report"] = report.get(title, {})
        rec["report_title"] = title
    out = {"upstream": {"repository": WMT24_REPO, "commit": WMT24_COMMIT,
                        "files": ["humeval/AutoRank.xlsx", "report/generated_report.tex"]},
           "made_by": "scripts/autorank_known_answers.py",
           "note": "both metrics stored lower-is-better (CometKiwi negated); the report prints CometKiwi positive",
           "lps": lps}
    (OUT / "wmt24-autorank.json").write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wmt24: {len(lps)} language pairs; report tables for {sorted(report)}", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--wmt25", type=Path, required=True, help="git directory of " + WMT25_REPO)
    ap.add_argument("--wmt25-scores", type=Path, required=True, help="git directory of " + SCORES_REPO)
    ap.add_argument("--wmt24", type=Path, required=True, help="git directory of " + WMT24_REPO)
    args = ap.parse_args()
    wmt25(args.wmt25, args.wmt25_scores)
    wmt25_report(args.wmt25_scores)
    wmt24(args.wmt24)


if __name__ == "__main__":
    main()
