"""Known answers for the LLM judges: the chat messages and the answer parses of the reference implementations.

Run ONCE, in a separate environment that has the ``gemba`` package (it pins nothing mtscore needs, but it pulls
openai, pandas, ipdb, diskcache ...; it is not a dependency of mtscore at run time or in the tests)::

    python3 -m venv /work/venvs/gemba
    /work/venvs/gemba/bin/pip install gemba==0.1.3
    git clone https://github.com/prosho-97/wmt-automatic-eval /tmp/wmt25-eval   # the WMT25 automatic evaluation
    git -C /tmp/wmt25-eval checkout 2d6481485d5d4db5b3e452669de860c5f2127a08
    /work/venvs/gemba/bin/python scripts/gemba_known_answers.py --wmt25 /tmp/wmt25-eval

The script only calls the reference implementations' pure functions (prompt templates, ``apply_template``,
``validate_number``, ``parse_mqm_answer``, the WMT25 scorer's ``validate_number(..., final_score=True)``); it
sends no request. It writes, under tests/fixtures/llm/:

* ``prompts.jsonl.gz``: one line per (variant, prompt kind, input): the inputs and the list of chat messages the
  reference builds, exactly as it would send them.
* ``parses.jsonl.gz``: one line per answer string: what each reference parser returns for it.
* ``known_answers_meta.json``: versions, upstream commits, counts and the sha256 of both files.

Inputs come from the data folder named by ``--data`` (default ../shared/data next to the repository): WMT21
(cs-en, de-en, en-de, en-zh), WMT23 (en-de, he-en, zh-en), WMT23 en-ja, TED sk-en and the Bengali n-best set,
plus empty segments, segments with braces/backticks/quotes and very long segments (whole documents joined).
Answer strings are drawn from a seeded generator in shapes real judges produce (see ``answers()``).
"""
from __future__ import annotations

import argparse
import gzip
import hashlib
import importlib.metadata
import json
import platform
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "fixtures" / "llm"

GEMBA_GITHUB_COMMIT = "a7a7eff8e46998447c6cbf09d06affc8f1b99ab4"  # MicrosoftTranslator/GEMBA, for reference
WMT25_COMMIT = "2d6481485d5d4db5b3e452669de860c5f2127a08"  # prosho-97/wmt-automatic-eval

# (dataset, pair, source file, hypothesis file, reference file) relative to the data folder
SETS = [
    ("wmt21", "cs-en", "wmt21/sources/newstest2021.cs-en.src.cs",
     "wmt21/system-outputs/newstest2021.cs-en.hyp.Online-B.en", "wmt21/references/newstest2021.cs-en.ref.A.en"),
    ("wmt21", "de-en", "wmt21/sources/newstest2021.de-en.src.de",
     "wmt21/system-outputs/newstest2021.de-en.hyp.Borderline.en", "wmt21/references/newstest2021.de-en.ref.A.en"),
    ("wmt21", "en-de", "wmt21/sources/newstest2021.en-de.src.en",
     None, "wmt21/references/newstest2021.en-de.ref.A.de"),
    ("wmt21", "en-zh", "wmt21/sources/newstest2021.en-zh.src.en",
     None, "wmt21/references/newstest2021.en-zh.ref.A.zh"),
    ("wmt23", "en-de", "wmt23/sources/en-de.txt", None, "wmt23/references/en-de.refA.txt"),
    ("wmt23", "he-en", "wmt23/sources/he-en.txt", "wmt23/system-outputs/he-en/GPT4-5shot.txt",
     "wmt23/references/he-en.refA.txt"),
    ("wmt23", "zh-en", "wmt23/sources/zh-en.txt", None, "wmt23/references/zh-en.refA.txt"),
    ("wmt23-en-ja", "en-ja", "wmt23-en-ja/generaltest2023.en-ja.src.en",
     "wmt23-en-ja/system-outputs/generaltest2023.en-ja.hyp.GPT4-5shot.ja",
     "wmt23-en-ja/generaltest2023.en-ja.ref.refA.ja"),
    ("ted-sk-en", "sk-en", "ted-sk-en/ted.orig.slk", "ted-sk-en/ted.sys1.detok.eng", "ted-sk-en/ted.ref.detok.eng"),
    ("nbest-bn-en", "bn-en", "nbest-bn-en/input.bn", None, "nbest-bn-en/reference.en.0"),
]

# language names GEMBA is given (its CLI takes names; gemba_da.py maps en/de/zh/ru the same way)
NAMES = {"en": "English", "de": "German", "zh": "Chinese", "cs": "Czech", "he": "Hebrew", "ja": "Japanese",
         "sk": "Slovak", "bn": "Bengali"}
# the WMT25 language codes of the pairs above (its scorer splits "src-tgt" and looks both up in its table)
WMT25_CODES = {"en": "en", "de": "de_DE", "zh": "zh_CN", "cs": "cs_CZ", "ja": "ja_JP", "bn": "bn_BD"}


def read_lines(path: Path) -> list[str]:
    # the same reading as mtscore's: UTF-8, split on "\n" only, trailing newline dropped
    text = path.read_text(encoding="utf-8")
    if text.endswith("\n"):
        text = text[:-1]
    return text.split("\n")


def gather_inputs(data: Path, rng: random.Random) -> list[dict]:
    rows = []
    for dataset, pair, src_f, hyp_f, ref_f in SETS:
        src = read_lines(data / src_f)
        ref = read_lines(data / ref_f)
        # without a system output the second reference-like line (a neighbour segment) plays the hypothesis
        hyp = read_lines(data / hyp_f) if hyp_f else ref[1:] + ref[:1]
        n = min(len(src), len(ref), len(hyp))
        picks = rng.sample(range(n), 24)
        for i in picks:
            rows.append({"dataset": dataset, "pair": pair, "line": i + 1,
                         "source": src[i], "hypothesis": hyp[i], "reference": ref[i]})
        # one very long segment per set: 40 consecutive source/hyp/ref lines joined by spaces
        j = rng.randrange(max(1, n - 40))
        rows.append({"dataset": dataset, "pair": pair, "line": -(j + 1),
                     "source": " ".join(src[j:j + 40]), "hypothesis": " ".join(hyp[j:j + 40]),
                     "reference": " ".join(ref[j:j + 40])})
    # empty segments and characters that matter to templates (braces, backticks, quotes, newlines inside)
    specials = [("", "", ""), ("Hello.", "", "Hallo."), ("", "Hallo.", "Hallo."), ("x", "y", ""),
                ("{source_seg} {0} {}", "{target_seg} }{", "{reference_seg}"),
                ("```code```", "``` ``` ```", "`"), ('He said "no".', 'Er sagte "nein".', "Er sagte „nein“."),
                ("line one\nline two", "Zeile eins\nZeile zwei", "Zeile 1\nZeile 2"),
                ("  padded  ", "\tgepolstert\t", " "), ("%s %d \\n \\u00e9", "%s %d \\n", "\\"),
                ("😀 emoji", "😀 Emoji", "😀"), ("\u200b\u00a0", "\u200b", "\u00a0")]
    for k, (s, h, r) in enumerate(specials):
        rows.append({"dataset": "special", "pair": "en-de", "line": k + 1,
                     "source": s, "hypothesis": h, "reference": r})
    return rows


SPANS = [
    "",
    "Major:\naccuracy/mistranslation - \"involvement\"\naccuracy/omission - \"the account holder\"\nMinor:\n"
    "fluency/grammar - \"wäre\"\nfluency/register - \"dir\"",
    "Major:\nno-error\nMinor:\nno-error",
    "Major:\naccuracy/addition - \"of high-speed rail\"\nMinor:\nstyle/awkward - \"etc.,\"",
    "None",
    "{error_spans} {0}",
]


def build_prompts(rows: list[dict], wmt25_dir: Path | None) -> list[dict]:
    import pandas as pd
    from gemba.gemba_esa import TEMPLATE_GEMBA_ESA_ERROR_SPANS, TEMPLATE_GEMBA_ESA_RANKING
    from gemba.gemba_mqm_utils import TEMPLATE_GEMBA_MQM, apply_template
    from gemba.prompt import prompts

    out = []
    for idx, row in enumerate(rows):
        s, t = row["pair"].split("-")
        data = pd.Series({"source_seg": row["source"], "target_seg": row["hypothesis"],
                          "reference_seg": row["reference"], "source_lang": NAMES[s], "target_lang": NAMES[t],
                          "error_spans": SPANS[idx % len(SPANS)]})
        inputs = {k: data[k] for k in data.index}
        base = {"dataset": row["dataset"], "pair": row["pair"], "line": row["line"], "inputs": inputs}
        for kind, template in (("da", prompts["GEMBA-DA"]["prompt"]), ("da-ref", prompts["GEMBA-DA_ref"]["prompt"]),
                               ("mqm", TEMPLATE_GEMBA_MQM), ("esa-spans", TEMPLATE_GEMBA_ESA_ERROR_SPANS),
                               ("esa-score", TEMPLATE_GEMBA_ESA_RANKING)):
            prompt = apply_template(template, data)
            if isinstance(prompt, str):  # gpt_api.call_api sends a string prompt as one user message
                prompt = [{"role": "user", "content": prompt}]
            out.append({"variant": "gemba", "kind": kind, **base, "messages": prompt})
    if wmt25_dir is not None:
        sys.path.insert(0, str(wmt25_dir))
        from metrics.gemba.gemba_esa_utils import TEMPLATE_GEMBA_ESA_ERROR_SPANS as W_SPANS
        from metrics.gemba.gemba_esa_utils import TEMPLATE_GEMBA_ESA_RANKING as W_RANK
        from metrics.gemba.gemba_mqm_utils import apply_template as w_apply
        from metrics.gemba.langs import LANG_CODE_2_LANG_COUNTRY
        for idx, row in enumerate(rows):
            s, t = row["pair"].split("-")
            if s not in WMT25_CODES or t not in WMT25_CODES:
                continue
            lp = f"{WMT25_CODES[s]}-{WMT25_CODES[t]}"
            sc, tc = lp.split("-")
            data = pd.DataFrame({"source_seg": [row["source"]], "target_seg": [row["hypothesis"]]})
            data["source_lang"] = LANG_CODE_2_LANG_COUNTRY[sc]["language"]
            data["target_lang"] = LANG_CODE_2_LANG_COUNTRY[tc]["language"]
            data["error_spans"] = SPANS[idx % len(SPANS)]
            series = data.iloc[0]
            inputs = {k: series[k] for k in series.index}
            base = {"dataset": row["dataset"], "pair": lp, "line": row["line"], "inputs": inputs}
            for kind, template in (("esa-spans", W_SPANS), ("esa-score", W_RANK)):
                prompt = w_apply(template, series)
                if isinstance(prompt, str):
                    prompt = [{"role": "user", "content": prompt}]
                out.append({"variant": "wmt25", "kind": kind, **base, "messages": prompt})
    return out


def answers(rng: random.Random) -> list[str]:
    from gemba.gemba_esa import esa_few_shots
    from gemba.gemba_mqm_utils import few_shots

    out: list[str] = []
    shots = [v["answer"] for v in few_shots.values()] + [v["answer"] for v in esa_few_shots.values()]
    out += shots + [a.strip() for a in shots] + [a.upper() for a in shots]
    numbers = [0, 1, 5, 33, 50, 66, 70, 75, 78, 85, 90, 95, 99, 100, 101, 150, 250, 1000, 12345]
    forms = ["{n}", "{n}.", " {n} ", "Score: {n}", "Score: {n}/100", "{n}/100", "{n}/10", "['{n}']", '["{n}"]',
             "[{n}]", "**{n}**", "**Score: {n}**", "*{n}*", "__{n}__", "Score (0-100): {n}", "{n} points",
             "I would rate this translation {n} out of 100.", "{n}%", "-{n}", "{n}.5", "{n},0", "+{n}",
             "The translation is good. Score: {n}", "Score:\n\n{n}", "```{n}```", "# Score\n{n}", "{n}\n",
             "Final score: **{n}**", "Based on the errors, I assign {n}.", "{n} - the translation is fine"]
    for n in numbers:
        for f in forms:
            out.append(f.format(n=n))
    two = ["The translation has 2 major errors and 1 minor error. Score: {a}",
           "{a} or {b}", "Score: {a}\nRevised score: {b}", "Between {a} and {b}.", "{a}-{b}", "{a}/{b}",
           "1. Accuracy: fine\n2. Fluency: fine\n\n**Final score: {a}**", "{a}, {b}, {c}",
           "Errors: 3 minor.\nScore (0-100): {a}", "Score: {a}. Do not generate anything after the score. {b}",
           "The score is {a} (out of 100), based on 2 spans.", "{a}\n\n(Confidence: {b}%)"]
    for _ in range(20):
        a, b, c = rng.choice(numbers), rng.choice(numbers), rng.choice(numbers)
        for f in two:
            out.append(f.format(a=a, b=b, c=c))
    unicode = ["٨٥", "८५", "８５", "Score: ٩٠", "໙໐", "⁸⁵", "½", "85\u200b", "\u0665\u0660/100", "𝟗𝟎"]
    out += unicode
    out += ["", " ", "\n", "N/A", "None", "null", "I cannot evaluate this translation.", "Score:", "Score: ",
            "The translation is perfect.", "one hundred", "ninety", "[]", "['']", "[\"\"]", "/100", "0/100",
            "100/100", "['100']", "['1000']", "[100]", "{\"score\": 85}", "score=85", "85 85", "0085", "00",
            "100.0", "99.99", "1e2", "0x55", "Score: 85\n", "\n\n85", "85\n\nExplanation: the 2nd clause..."]
    levels = ["Critical", "Major", "Minor", "critical", "MAJOR", "minor"]
    cats = ["accuracy/mistranslation", "accuracy/omission", "accuracy/addition", "accuracy/untranslated text",
            "fluency/grammar", "fluency/spelling", "fluency/punctuation", "fluency/register",
            "fluency/character encoding", "fluency/inconsistency", "style/awkward", "terminology/inconsistent use",
            "terminology/inappropriate for context", "non-translation", "other", "locale convention/date",
            "no-error", "no error"]
    words = ["Haus", "the account holder", "wäre", "日本語", "«quoted»", "a \"b\" c", "", "x - y", "partaje",
             "Критическая", "१२३", "two words"]
    for _ in range(260):
        lines = []
        for _ in range(rng.randint(0, 4)):
            lev = rng.choice(levels)
            lines.append(f"{lev}:" if rng.random() < 0.85 else f"{lev} errors:")
            for _ in range(rng.randint(0, 4)):
                cat = rng.choice(cats)
                if cat in ("no-error", "no error"):
                    lines.append(cat)
                else:
                    lines.append(f'{cat} - "{rng.choice(words)}"' if rng.random() < 0.8 else f"{cat}: {rng.choice(words)}")
        if rng.random() < 0.15:
            lines.insert(0, "Here are the errors:")
        if rng.random() < 0.1:
            lines = ["**" + ln + "**" if ln.endswith(":") else "- " + ln for ln in lines]
        text = "\n".join(lines)
        if rng.random() < 0.15 and text:
            text = text[: rng.randrange(len(text))]  # truncated answer
        if rng.random() < 0.1:
            text = "  " + text.replace("\n", "\n  ") + "\n"
        out.append(text)
    json_forms = [
        '{"improved translation": "Das Haus.", "errors": {"critical": [], "major": [{"class": "accuracy", "reason": "x"}], "minor": []}}',
        '{"improved translation": "Das Haus.", "errors": {"critical": [{"class": "a"}], "major": [], "minor": [{"class": "b"}, {"class": "c"}]}}',
        '{"improved translation": "Das "Haus".", "errors": {"major": [{"class": "fluency"}]}}',
        '{"improved translation": "Das "Haus".", "errors": {"major": [{"class": "fluency", "x": }], "minor": [{"class": "style"}]}}',
        '{"improved translation": "x", "errors": {"critical": [{"class": "a"}, {"class": "b"}, {"class": "c"}, {"class": "d"}, {"class": "e"}, {"class": "f"}]}}',
        '{"improved translation": "x", "errors": }',
        '{"improved translation": "x"',
        '{"improved translation": "x", "errors": {}}',
    ]
    out += json_forms
    # Markdown-wrapped and code-fenced MQM answers
    for a in shots[:3]:
        out += ["```\n" + a + "```", "**" + a.replace("\n", "**\n**") + "**", "### Errors\n" + a]
    return out


def parse_all(texts: list[str], wmt25_dir: Path | None) -> list[dict]:
    from gemba.gemba_mqm_utils import parse_mqm_answer
    from gemba.prompt import validate_number
    import contextlib
    import io

    w_validate = None
    if wmt25_dir is not None:
        sys.path.insert(0, str(wmt25_dir))
        from metrics.gemba.prompt import validate_number as w_validate

    def jsonable(x):
        if isinstance(x, tuple):
            return [jsonable(v) for v in x]
        if isinstance(x, dict):
            return {k: jsonable(v) for k, v in x.items()}
        if isinstance(x, list):
            return [jsonable(v) for v in x]
        return x

    def guarded(fn, *args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except Exception as exc:  # noqa: BLE001 - the reference's own failure is a known answer too
            return {"exception": type(exc).__name__}

    out = []
    for text in texts:
        row = {"answer": text}
        row["gemba_number"] = guarded(validate_number, text)
        with contextlib.redirect_stdout(io.StringIO()):  # parse_mqm_answer prints lines it dislikes
            try:
                row["gemba_mqm"] = jsonable(parse_mqm_answer(text, list_mqm_errors=False, normalize=False))
                row["gemba_mqm_norm"] = jsonable(parse_mqm_answer(text, list_mqm_errors=False, normalize=True))
                score, errors = parse_mqm_answer(text, list_mqm_errors=True, full_desc=True, normalize=False)
                row["gemba_mqm_errors"] = jsonable(errors)
            except Exception as exc:  # noqa: BLE001 - the reference's own failure is a known answer too
                row["gemba_mqm"] = {"exception": type(exc).__name__}
                row["gemba_mqm_norm"] = {"exception": type(exc).__name__}
                row["gemba_mqm_errors"] = {"exception": type(exc).__name__}
        if w_validate is not None:
            row["wmt25_final_score"] = guarded(w_validate, text, final_score=True)
        out.append(row)
    return out


def write_gz(path: Path, rows: list[dict]) -> str:
    raw = "".join(json.dumps(r, ensure_ascii=False, sort_keys=True) + "\n" for r in rows).encode("utf-8")
    with open(path, "wb") as fh:
        with gzip.GzipFile(fileobj=fh, mode="wb", mtime=0, filename="") as gz:
            gz.write(raw)
    return hashlib.sha256(raw).hexdigest()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data"))
    ap.add_argument("--wmt25", default=None, help="a checkout of prosho-97/wmt-automatic-eval")
    ap.add_argument("--seed", type=int, default=38)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    wmt25 = Path(args.wmt25) if args.wmt25 else None
    rows = gather_inputs(Path(args.data), rng)
    prompts = build_prompts(rows, wmt25)
    texts = answers(rng)
    parses = parse_all(texts, wmt25)
    OUT.mkdir(parents=True, exist_ok=True)
    meta = {
        "script": "scripts/gemba_known_answers.py", "seed": args.seed,
        "gemba": importlib.metadata.version("gemba"), "gemba_source": "PyPI gemba==0.1.3 (wheel)",
        "gemba_github_commit_read": GEMBA_GITHUB_COMMIT,
        "wmt25_repository": "prosho-97/wmt-automatic-eval", "wmt25_commit": WMT25_COMMIT if wmt25 else None,
        "pandas": importlib.metadata.version("pandas"), "python": platform.python_version(),
        "n_inputs": len(rows), "n_prompts": len(prompts), "n_answers": len(texts),
        "prompts_sha256": write_gz(OUT / "prompts.jsonl.gz", prompts),
        "parses_sha256": write_gz(OUT / "parses.jsonl.gz", parses),
    }
    (OUT / "known_answers_meta.json").write_text(json.dumps(meta, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(meta, indent=1))


if __name__ == "__main__":
    main()
