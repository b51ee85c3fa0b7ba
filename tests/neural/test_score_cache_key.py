"""The neural score cache's key and its failure modes (docs/neural-metrics.md, "The score cache").

The key must cover everything that decides a score: each component is changed in turn on a copy of the tiny
COMET-DA checkpoint of tests/fixtures/neural (built and scored by unbabel-comet: tests/test_neural_comet.py) and
the model must run again; a rerun with nothing changed must not load the model at all, nor hash the weights
again. The cache's failure modes (a locked file, another schema, a truncated value, a malformed span entry, a
folder in its place) are one-line errors or a recomputation with one warning. Everything runs in temp folders.
"""
import json
import os
import shutil
import sqlite3
import threading
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the neural extra (torch) is part of the test extras")

from mtscore.cli.main import main  # noqa: E402
from mtscore.errors import InputError  # noqa: E402
from mtscore.metrics.registry import get_metric  # noqa: E402
from mtscore import neural  # noqa: E402
from mtscore.neural import cache as _cache  # noqa: E402
from mtscore.neural import comet_model as cm  # noqa: E402
from neural_float import comet_tolerance  # noqa: E402

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "neural"
KA = json.loads((FIX / "known_answers.json").read_text(encoding="utf-8"))
T = KA["triples"][:6]


@pytest.fixture
def env(tmp_path, monkeypatch):
    """A copy of the COMET-DA checkpoint, its inputs, a cache in tmp_path, and a counter of model loads and
    encoder calls."""
    monkeypatch.setenv("MTSCORE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("MTSCORE_NO_CACHE", raising=False)
    d = tmp_path / "ckpt"
    shutil.copytree(FIX / "comet-da", d)
    (tmp_path / "s.txt").write_text("\n".join(x["src"] for x in T) + "\n", encoding="utf-8")
    seen = {"load": 0, "calls": 0}
    monkeypatch.setattr(neural, "_LOADED", {})  # as in a new process: no model kept from another test
    real_load, real_emb = cm.load, cm.sentence_embeddings

    def load(*a, **k):
        seen["load"] += 1
        return real_load(*a, **k)

    def emb(m, seqs):
        seen["calls"] += 1
        return real_emb(m, seqs)
    monkeypatch.setattr(cm, "load", load)
    monkeypatch.setattr(cm, "sentence_embeddings", emb)
    return d, tmp_path / "s.txt", seen


def _score(d, src, **kw):
    m = get_metric("comet", model=str(d), sources=str(src), **kw)
    return m.stats([x["mt"] for x in T], [[x["ref"]] for x in T]).values[:, 0]


def _edit(path: Path, old: str, new: str):
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new), encoding="utf-8")


def test_rerun_is_served_without_loading_the_model_or_hashing_the_weights(env, monkeypatch):
    d, src, seen = env
    tol = comet_tolerance("comet-da")  # float32 bound (tests/neural_float.py); its own model loads are not counted
    seen["load"] = seen["calls"] = 0
    first = _score(d, src)
    np.testing.assert_allclose(first, KA["models"]["comet-da"]["scores"][:6], atol=tol, rtol=0)
    assert seen["load"] == 1 and seen["calls"] > 0
    seen.update(load=0, calls=0)
    neural._LOADED.clear()  # a new process: nothing kept
    read = []
    real_open = open
    monkeypatch.setattr(_cache, "open", lambda p, *a, **k: (read.append(str(p)), real_open(p, *a, **k))[1],
                        raising=False)
    again = _score(d, src)
    assert again.tobytes() == first.tobytes()
    assert seen == {"load": 0, "calls": 0}  # no model built, no encoder call
    assert read == []  # the weights' digest came from the memo: no file hashed


def test_each_key_component_makes_a_recomputation(env, monkeypatch):
    d, src, seen = env
    base = _score(d, src)

    def recomputed(**kw):
        seen.update(load=0, calls=0)
        got = _score(d, src, **kw)
        assert seen["calls"] > 0, "served from the cache"
        return got
    # hparams.yaml: the pooling, then the layer mix
    _edit(d / "hparams.yaml", "pool: avg", "pool: max")
    pooled = recomputed()
    assert np.abs(pooled - base).max() > 1e-4  # the old numbers would be wrong
    _edit(d / "hparams.yaml", "pool: max", "pool: avg")
    assert _score(d, src).tobytes() == base.tobytes()  # back: a hit again
    _edit(d / "hparams.yaml", "layer_transformation: sparsemax", "layer_transformation: softmax")
    recomputed()
    _edit(d / "hparams.yaml", "layer_transformation: softmax", "layer_transformation: sparsemax")
    # the encoder's config
    cfg = json.loads((d / "encoder" / "config.json").read_text())
    cfg["layer_norm_eps"] = cfg.get("layer_norm_eps", 1e-5) * 10
    (d / "encoder" / "config.json").write_text(json.dumps(cfg))
    recomputed()
    shutil.copy(FIX / "comet-da" / "encoder" / "config.json", d / "encoder" / "config.json")
    # a tokenizer file (same tokens, other bytes), then an added one
    tj = json.loads((d / "encoder" / "tokenizer.json").read_text(encoding="utf-8"))
    (d / "encoder" / "tokenizer.json").write_text(json.dumps(tj, indent=1), encoding="utf-8")
    recomputed()
    (d / "encoder" / "added_tokens.json").write_text("{}")
    recomputed()
    # the precision
    recomputed(precision="bf16")
    # the weights: one value changed, same size
    ck = d / "checkpoints" / "model.ckpt"
    sd = torch.load(str(ck), weights_only=True)
    k = next(k for k in sd["state_dict"] if k.startswith("estimator."))
    sd["state_dict"][k] = sd["state_dict"][k] + 0.5
    torch.save(sd, str(ck))
    recomputed()
    # the inference code's version
    monkeypatch.setattr(_cache, "INFERENCE_VERSION", _cache.INFERENCE_VERSION + "-next")
    recomputed()


def test_weights_rewritten_in_place_with_the_same_mtime_are_hashed_again(env):
    d, src, seen = env
    _score(d, src)
    ck = d / "checkpoints" / "model.ckpt"
    st = ck.stat()
    sd = torch.load(str(ck), weights_only=True)
    k = next(k for k in sd["state_dict"] if k.startswith("estimator."))
    sd["state_dict"][k] = sd["state_dict"][k] * 2
    torch.save(sd, str(ck))
    assert ck.stat().st_size == st.st_size
    os.utime(ck, ns=(st.st_atime_ns, st.st_mtime_ns))  # as cp -p or rsync -t leave it
    seen.update(load=0, calls=0)
    _score(d, src)
    assert seen["calls"] > 0


def test_cometkiwi_and_xcomet_without_references(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("MTSCORE_CACHE_DIR", str(tmp_path / "cache"))
    t = KA["triples"]
    (tmp_path / "s.txt").write_text("\n".join(x["src"] for x in t) + "\n", encoding="utf-8")
    (tmp_path / "a.txt").write_text("\n".join(x["mt"] for x in t) + "\n", encoding="utf-8")
    kiwi = f"cometkiwi:model={FIX / 'cometkiwi'},sources={tmp_path / 's.txt'}"
    assert main(["score", "-i", str(tmp_path / "a.txt"), "-m", kiwi, "--sentence-level", "-f", "json"]) == 0, \
        capsys.readouterr().err
    rows = json.loads(capsys.readouterr().out)["rows"]
    # float32 kernels differ by CPU: bounds measured against float64 (tests/neural_float.py)
    np.testing.assert_allclose([r["CometKiwi"] for r in rows], KA["models"]["cometkiwi"]["scores"],
                               atol=comet_tolerance("cometkiwi"), rtol=0)
    qe = json.loads((FIX / "xcomet_qe_known_answers.json").read_text(encoding="utf-8"))
    xc = f"xcomet:model={FIX / 'xcomet'},sources={tmp_path / 's.txt'}"
    out = tmp_path / "spans.json"
    assert main(["score", "-i", str(tmp_path / "a.txt"), "-m", xc, "--sentence-level", "-f", "json",
                 "--spans-out", str(out)]) == 0, capsys.readouterr().err
    doc = json.loads(capsys.readouterr().out)
    np.testing.assert_allclose([r["XCOMET"] for r in doc["rows"]], qe["scores"], atol=comet_tolerance("xcomet"), rtol=0)
    assert "ref:none" in json.dumps(doc)
    got = json.loads(out.read_text(encoding="utf-8"))["a"]  # one system: its name without the extension
    assert [[(s["start"], s["end"], s["severity"], s["text"]) for s in seg] for seg in got] == \
           [[(s["start"], s["end"], s["severity"], s["text"]) for s in seg] for seg in qe["error_spans"]]
    # with a reference, XCOMET scores (src, mt, ref) as before
    (tmp_path / "r.txt").write_text("\n".join(x["ref"] for x in t) + "\n", encoding="utf-8")
    assert main(["score", "-r", str(tmp_path / "r.txt"), "-i", str(tmp_path / "a.txt"), "-m", xc, "-f", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["rows"][0]["XCOMET"] == \
        pytest.approx(np.mean(KA["models"]["xcomet"]["scores"]), abs=comet_tolerance("xcomet"))
    # COMET-DA needs the reference: without -r it is the usual one-line error
    da = f"comet:model={FIX / 'comet-da'},sources={tmp_path / 's.txt'}"
    assert main(["score", "-i", str(tmp_path / "a.txt"), "-m", da]) == 2
    assert "-r/--refs" in capsys.readouterr().err


def test_comet_sentence_json_has_no_empty_error_spans(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("MTSCORE_CACHE_DIR", str(tmp_path / "cache"))
    for name, key in (("s.txt", "src"), ("r.txt", "ref"), ("a.txt", "mt")):
        (tmp_path / name).write_text("\n".join(x[key] for x in T) + "\n", encoding="utf-8")
    da = f"comet:model={FIX / 'comet-da'},sources={tmp_path / 's.txt'}"
    assert main(["score", "-r", str(tmp_path / "r.txt"), "-i", str(tmp_path / "a.txt"), "-m", da,
                 "--sentence-level", "-f", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert len(doc["rows"]) == len(T) and "error_spans" not in json.dumps(doc)


# -- the cache as an input, and its failure modes --------------------------------------------------------
def _one_line(capsys, rc, code):
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ln.startswith("mtscore: error:")]
    assert rc == code and len(lines) == 1 and "Traceback" not in err, (rc, err)
    return lines[0], err


def test_outputs_never_replace_the_cache(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("MTSCORE_CACHE_DIR", str(tmp_path / "cache"))
    c = _cache.ScoreCache()
    c.put_many([(_cache.key("fp", "", "k", ("x",)), 0.5, None)])
    c.close()
    db = tmp_path / "cache" / "neural.sqlite"
    before = db.read_bytes()
    link = tmp_path / "link.sqlite"
    link.symlink_to(db)
    for name in ("r.txt", "a.txt"):
        (tmp_path / name).write_text("a b c\nd e f\n")
    hard = tmp_path / "hard.sqlite"
    os.link(db, hard)
    for target in (db, link, hard):
        rc = main(["report", "-r", str(tmp_path / "r.txt"), "-i", str(tmp_path / "a.txt"), "-m", "bleu",
                   "--resamples", "10", "-q", "-o", str(target)])
        line, _ = _one_line(capsys, rc, 5)
        assert "the neural score cache" in line or "one of this run's inputs (read as" in line, line
    assert db.read_bytes() == before and link.is_symlink()
    # a cache that does not exist yet (the run could create it before writing its outputs): refused too
    monkeypatch.setenv("MTSCORE_CACHE_DIR", str(tmp_path / "new-cache"))
    (tmp_path / "new-cache").mkdir()
    rc = main(["report", "-r", str(tmp_path / "r.txt"), "-i", str(tmp_path / "a.txt"), "-m", "bleu",
               "--resamples", "10", "-q", "-o", str(tmp_path / "new-cache" / "neural.sqlite")])
    line, _ = _one_line(capsys, rc, 5)
    assert "it is the neural score cache" in line
    assert not (tmp_path / "new-cache" / "neural.sqlite").exists()


def test_cache_command_on_unusable_caches(tmp_path, capsys, monkeypatch):
    f = tmp_path / "afile"
    f.write_text("x")
    monkeypatch.setenv("MTSCORE_CACHE_DIR", str(f))
    line, _ = _one_line(capsys, main(["cache"]), 5)
    assert "MTSCORE_CACHE_DIR names a file" in line
    monkeypatch.setenv("MTSCORE_CACHE_DIR", str(tmp_path / "c"))
    (tmp_path / "c" / "neural.sqlite").mkdir(parents=True)
    line, _ = _one_line(capsys, main(["cache"]), 5)
    assert "is a folder" in line
    (tmp_path / "c" / "neural.sqlite").rmdir()
    with sqlite3.connect(tmp_path / "c" / "neural.sqlite") as con:
        con.execute("CREATE TABLE scores (id INTEGER, name TEXT)")
    line, _ = _one_line(capsys, main(["cache"]), 3)
    assert "not a score cache of this mtscore" in line and "scores (id, name)" in line
    assert main(["cache", "--clear"]) == 0  # --clear makes the tables anew
    assert "cleared" in capsys.readouterr().out
    assert main(["cache", "-f", "json"]) == 0 and json.loads(capsys.readouterr().out)["rows"][0]["entries"] == 0


def test_a_cache_of_the_old_layout_is_emptied(tmp_path):
    db = tmp_path / "neural.sqlite"
    with sqlite3.connect(db) as con:  # the layout of a cache keyed by the weights' digest only
        con.execute("CREATE TABLE scores (k BLOB PRIMARY KEY, v BLOB NOT NULL, extra TEXT)")
        con.execute("CREATE TABLE digests (path TEXT, size INTEGER, mtime INTEGER, digest TEXT, "
                    "PRIMARY KEY (path, size, mtime))")
        con.execute("INSERT INTO scores VALUES (?, ?, NULL)", (b"k" * 32, b"\0" * 8))
    c = _cache.ScoreCache(db)
    assert c.stats()["entries"] == 0  # its scores could be stale: recomputed
    c.close()


def test_a_locked_cache_is_said_then_a_one_line_error(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("MTSCORE_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("MTSCORE_CACHE_WAIT", "0.6")
    _cache.ScoreCache().stats()
    c = _cache.ScoreCache()
    c.put_many([(_cache.key("fp", "", "k", ("x",)), 0.5, None)])
    c.close()
    holder = sqlite3.connect(tmp_path / "neural.sqlite", isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    try:
        line, err = _one_line(capsys, main(["cache"]), 5)
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert "locked by another process" in line and "MTSCORE_CACHE_WAIT" in line
    assert "mtscore: warning: the neural score cache" in err and "waiting up to 0.6 s" in err
    # released within the wait: a value, after the warning
    holder = sqlite3.connect(tmp_path / "neural.sqlite", isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN EXCLUSIVE")
    monkeypatch.setenv("MTSCORE_CACHE_WAIT", "30")
    timer = threading.Timer(1.5, lambda: (holder.execute("ROLLBACK"), holder.close()))
    timer.start()
    try:
        assert main(["cache", "-f", "json"]) == 0
    finally:
        timer.join()
    io = capsys.readouterr()
    assert json.loads(io.out)["rows"][0]["entries"] == 1 and "locked by another process" in io.err
    monkeypatch.setenv("MTSCORE_CACHE_WAIT", "soon")
    line, _ = _one_line(capsys, main(["cache"]), 2)
    assert "MTSCORE_CACHE_WAIT='soon'" in line


def test_unreadable_entries_are_recomputed_with_one_warning(env, recwarn):
    d, src, seen = env
    first = _score(d, src)
    db = Path(os.environ["MTSCORE_CACHE_DIR"]) / "neural.sqlite"
    with sqlite3.connect(db) as con:
        keys = [r[0] for r in con.execute("SELECT k FROM scores")]
        con.execute("UPDATE scores SET v = ? WHERE k = ?", (b"\x01\x02\x03", keys[0]))  # truncated
        con.execute("UPDATE scores SET extra = ? WHERE k = ?", ('[{"start": "x"}]', keys[1]))  # a malformed span
    # the two entries are recomputed in a batch of their own: equal within the float32 bound (tests/neural_float.py)
    tol = comet_tolerance("comet-da")
    seen.update(load=0, calls=0)
    again = _score(d, src)
    np.testing.assert_allclose(again, first, atol=tol, rtol=0)
    assert seen["calls"] > 0 and sum(again != first) <= 2  # the others come from the cache, bit for bit
    msgs = [str(w.message) for w in recwarn if "unreadable" in str(w.message)]
    assert len(msgs) == 1 and "2 unreadable entries" in msgs[0]
    seen.update(load=0, calls=0)
    assert _score(d, src).tobytes() == again.tobytes() and seen == {"load": 0, "calls": 0}  # replaced


def test_valid_spans_rule():
    good = {"start": 0, "end": 3, "severity": "minor", "text": "abc", "confidence": 0.5}
    assert _cache._valid_spans([good]) and _cache._valid_spans([])
    for bad in ({**good, "start": 1.7}, {**good, "start": True}, {**good, "end": -1}, {**good, "start": 4},
                {**good, "severity": "huge"}, {**good, "text": None}, {**good, "confidence": "x"},
                {k: v for k, v in good.items() if k != "severity"}):
        assert not _cache._valid_spans([bad]), bad
    assert not _cache._valid_spans({"start": 0}) and not _cache._valid_spans("[]")


# -- checkpoints that must be refused in one line --------------------------------------------------------
def test_nan_weights(env):
    d, src, _ = env
    ck = d / "checkpoints" / "model.ckpt"
    sd = torch.load(str(ck), weights_only=True)
    k = next(k for k in sd["state_dict"] if k.startswith("encoder.model.encoder.layer.0."))
    sd["state_dict"][k].view(-1)[0] = float("nan")
    torch.save(sd, str(ck))
    with pytest.raises(InputError, match=r"has 1 NaN or infinite value: a corrupt or diverged checkpoint") as e:
        _score(d, src, cache=False)
    assert k in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize("text,match", [
    ("hidden_sizes: '3072'\n", "hidden_sizes must be a list of int, got str '3072'"),
    ("hidden_sizes:\n- 48\n- big\n", "hidden_sizes must be a list of int"),
    ("input_segments: mt\n", "input_segments must be a list of str, got str 'mt'"),
    ("layer_norm: {a: 1}\n", "layer_norm must be a bool, got dict"),
    ("pool: " + "[" * 50000 + "]" * 50000 + "\n", "nested too deeply|pool must be a str"),
])
def test_malformed_hparams(env, text, match):
    d, src, _ = env
    lines = [ln for ln in (d / "hparams.yaml").read_text().splitlines(keepends=True)]
    key = text.split(":")[0]
    kept = []
    skip = False
    for ln in lines:  # drop the key's old value (and its list items)
        if ln.startswith(key + ":"):
            skip = True
            continue
        if skip and ln.startswith("- "):
            continue
        skip = False
        kept.append(ln)
    (d / "hparams.yaml").write_text("".join(kept) + text)
    with pytest.raises(InputError, match=match) as e:
        _score(d, src, cache=False)
    assert "\n" not in str(e.value) and "hparams.yaml" in str(e.value)


def test_metricx_tokenizer_and_options_are_in_the_key(tmp_path, monkeypatch):
    """MetricX: another tokenizer= folder (same files at first, then a changed tokenizer.json), the input
    format and the token limit each make a recomputation; the same ones are served from the cache."""
    import neural_tiny_mt5

    from mtscore.neural import metricx_model as mx
    mka = json.loads((FIX / "metricx_known_answers.json").read_text(encoding="utf-8"))
    d = tmp_path / "tiny-metricx"
    assert neural_tiny_mt5.build(d, mka["seed"]) == mka["safetensors_sha256"]
    monkeypatch.setenv("MTSCORE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(neural, "_LOADED", {})
    calls = []
    real = mx.predict
    monkeypatch.setattr(mx, "predict", lambda m, seqs: (calls.append(len(seqs)), real(m, seqs))[1])
    (tmp_path / "s.txt").write_text("\n".join(x["src"] for x in T) + "\n", encoding="utf-8")
    tok2 = tmp_path / "tok2"
    shutil.copytree(FIX / "mt5-tokenizer", tok2)

    def run(**kw):
        calls.clear()
        m = get_metric("metricx", model=str(d), sources=str(tmp_path / "s.txt"), **kw)
        return m.stats([x["mt"] for x in T], [[x["ref"]] for x in T]).values[:, 0], bool(calls)
    base, ran = run(tokenizer=str(FIX / "mt5-tokenizer"))
    again, ran_again = run(tokenizer=str(FIX / "mt5-tokenizer"))
    assert ran and not ran_again and again.tobytes() == base.tobytes()
    assert run(tokenizer=str(tok2))[1]  # another tokenizer= (the same files): scored again
    tj = json.loads((tok2 / "tokenizer.json").read_text(encoding="utf-8"))
    (tok2 / "tokenizer.json").write_text(json.dumps(tj, indent=2), encoding="utf-8")
    assert run(tokenizer=str(tok2))[1]  # a changed tokenizer file
    assert run(tokenizer=str(FIX / "mt5-tokenizer"), max_input_length=64)[1]
    assert run(tokenizer=str(FIX / "mt5-tokenizer"), version="23")[1]


def test_other_tables_in_the_file_are_left_alone(tmp_path):
    """The LLM judges keep their answers in the same file (table llm_answers): the score cache checks only its
    own tables, in whichever order the two were made, and --clear of a foreign schema keeps the answers."""
    db = tmp_path / "neural.sqlite"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE llm_answers (digest TEXT PRIMARY KEY, model TEXT, answer TEXT, created REAL)")
        con.execute("INSERT INTO llm_answers VALUES ('d', 'm', 'a', 0)")
    c = _cache.ScoreCache(db)
    k = _cache.key("fp", "", "k", ("x",))
    c.put_many([(k, 0.5, None)])
    assert c.get_many([k]) == {k: (0.5, None)} and c.stats()["entries"] == 1
    c.close()
    with sqlite3.connect(db) as con:
        con.execute("DROP TABLE digests")
        con.execute("ALTER TABLE scores ADD COLUMN more TEXT")
    with pytest.raises(InputError, match=r"table scores \(k, v, extra, more\)"):
        _cache.ScoreCache(db).stats()
    c = _cache.ScoreCache(db)
    c.clear()
    assert c.stats()["entries"] == 0
    c.close()
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT COUNT(*) FROM llm_answers").fetchone()[0] == 1
