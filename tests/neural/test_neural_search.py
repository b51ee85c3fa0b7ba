"""The neural metrics in ``meta``, ``analyse`` and ``nbest`` (oracle, MBR, tuned reranking), with the
tiny checkpoints of tests/fixtures/neural.

Oracles: unbabel-comet's known answers (known_answers.json) for the segment scores; SciPy's Pearson correlation
for meta; for MBR with a COMET utility, the naive computation -- every (hypothesis, pseudo-reference) pair's
sentence score through the metric's ordinary path (``stats`` -> ``sentence_scores``, its own dedup and batches)
-- to 1e-6, and the expected utilities in plain Python; the encoder calls of the fast path are counted.
"""
import json
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the neural extra (torch) is part of the test extras")

from mtscore.cli.main import main  # noqa: E402
from mtscore.errors import InputError  # noqa: E402
from mtscore.metrics.registry import get_metric  # noqa: E402
from mtscore.neural import comet_model as cm  # noqa: E402
from mtscore.search import NBestList, PairwiseUtility, Pool, mbr_select  # noqa: E402
from neural_float import comet_tolerance  # noqa: E402

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "neural"
KA = json.loads((FIX / "known_answers.json").read_text(encoding="utf-8"))
TOL = 1e-6
T = KA["triples"]
N = len(T)


def _write(path, lines):
    Path(path).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.setenv("MTSCORE_CACHE_DIR", str(tmp_path / "cache"))
    return {"src": _write(tmp_path / "src.txt", [x["src"] for x in T]),
            "ref": _write(tmp_path / "ref.txt", [x["ref"] for x in T]),
            "a": _write(tmp_path / "a.txt", [x["mt"] for x in T]),
            "b": _write(tmp_path / "b.txt", [T[(i + 3) % N]["mt"] for i in range(N)]),
            "c": _write(tmp_path / "c.txt", [x["ref"][: len(x["ref"]) // 2] for x in T])}


def _spec(files, kind="comet", model="comet-da", **extra):
    return ",".join([f"{kind}:model={FIX / model}", f"sources={files['src']}", "cache=false",
                     *(f"{k}={v}" for k, v in extra.items())])


def _seg(files, system, kind="comet", model="comet-da"):
    m = get_metric(kind, model=str(FIX / model), sources=files["src"], cache=False)
    hyps = Path(files[system]).read_text(encoding="utf-8").splitlines()
    return m.sentence_scores(m.stats(hyps, [[x["ref"]] for x in T]))


def _json(capsys, args):
    rc = main(args)
    out, err = capsys.readouterr()
    assert rc == 0, err
    return json.loads(out)


# ---------------------------------------------------------------------------------------------------- meta
def test_meta_segment_pearson_with_comet(files, tmp_path, capsys):
    from scipy.stats import pearsonr
    systems = ["a", "b", "c"]
    rng = np.random.default_rng(3)
    human = {s: -np.array([len(x) for x in Path(files[s]).read_text(encoding="utf-8").splitlines()], float)
             + rng.normal(0, 5, N) for s in systems}
    _write(tmp_path / "human.tsv", [f"{s}\t{i + 1}\t{human[s][i]:.6f}" for s in systems for i in range(N)])
    doc = _json(capsys, ["meta", "-r", files["ref"], "-i", *(files[s] for s in systems), "--human-file",
                         str(tmp_path / "human.tsv"), "--human-format", "tsv", "--level", "seg", "--stats", "pearson",
                         "--avg-by", "none", "--ci", "0", "-m", _spec(files), "-f", "json"])
    row = [r for r in doc["rows"] if r["metric"] == "COMET"][0]
    seg = {s: _seg(files, s) for s in systems}
    np.testing.assert_allclose(seg["a"], KA["models"]["comet-da"]["scores"], atol=comet_tolerance("comet-da"), rtol=0)
    want = pearsonr(np.concatenate([seg[s] for s in systems]), np.concatenate([human[s] for s in systems]))[0]
    got = row["Pearson r"]
    assert got == pytest.approx(want, abs=1e-6), row


# ------------------------------------------------------------------------------------------------- analyse
def test_analyse_wins_lengths_docs_with_comet(files, tmp_path, capsys):
    seg_a, seg_b = _seg(files, "a"), _seg(files, "b")
    spec = _spec(files)
    wins = _json(capsys, ["analyse", "wins", "-r", files["ref"], "-i", files["a"], files["b"], "-m", spec,
                          "--cutoffs", "0", "-f", "json"])["tables"][0]["rows"][0]
    diff = seg_b - seg_a
    assert (wins["wins"], wins["losses"], wins["ties"]) == (int((diff > 0).sum()), int((diff < 0).sum()),
                                                           int((diff == 0).sum()))
    assert wins["wins"] and wins["losses"] and wins["mean diff"] == pytest.approx(float(diff.mean()), abs=TOL)
    rows = _json(capsys, ["analyse", "lengths", "-r", files["ref"], "-i", files["a"], "-m", spec, "--cutoffs", "20",
                          "--resamples", "0", "-f", "json"])["tables"][0]["rows"]
    ka = np.array(KA["models"]["comet-da"]["scores"])
    from mtscore.tokenize import tokenize_corpus
    ref_len = np.array([len(x.split()) for x in tokenize_corpus([x["ref"] for x in T], "13a")])
    short = ref_len < 20
    assert 0 < short.sum() < N
    a = files["a"].rsplit("/", 1)[1].rsplit(".", 1)[0]  # the system's name: its file name less the extension
    got = {r["reference length"]: (r[f"{a} segments"], r[f"{a} COMET"]) for r in rows}
    tol = comet_tolerance("comet-da")  # float32 kernels differ by CPU (tests/neural_float.py)
    assert got["<20"][0] == short.sum() and got["<20"][1] == pytest.approx(ka[short].mean(), abs=tol)
    assert got[">=20"][0] == N - short.sum() and got[">=20"][1] == pytest.approx(ka[~short].mean(), abs=tol)
    # documents: each document scored as one joined segment (its sources joined the same way)
    ids = _write(tmp_path / "docs.txt", [f"d{i // 5}" for i in range(N)])
    docs = _json(capsys, ["analyse", "docs", "-r", files["ref"], "-i", files["a"], "-m", spec, "--docs", ids,
                          "--resamples", "0", "-f", "json"])
    m = get_metric("comet", model=str(FIX / "comet-da"), sources=files["src"], cache=False)
    groups = [list(range(k, min(k + 5, N))) for k in range(0, N, 5)]
    joined = [(" ".join(T[i]["src"] for i in g), " ".join(T[i]["mt"] for i in g), " ".join(T[i]["ref"] for i in g))
              for g in groups]
    from mtscore.neural import runner
    want, _ = runner.score(m._load(), joined, 16, "comet", use_cache=False)
    got = _numbers(docs)
    for w in want:
        assert any(abs(g - w) < tol for g in got), (w, docs)


def _numbers(obj):
    if isinstance(obj, dict):
        return [x for v in obj.values() for x in _numbers(v)]
    if isinstance(obj, list):
        return [x for v in obj for x in _numbers(v)]
    return [float(obj)] if isinstance(obj, (int, float)) and not isinstance(obj, bool) else []


# --------------------------------------------------------------------------------------------------- nbest
K = 4
SEGS = 6


def _nbest_lists():
    """SEGS segments of K candidates each (one repeated candidate per segment)."""
    out = []
    for i in range(SEGS):
        t = T[i]
        out.append([t["mt"], T[(i + 7) % N]["mt"], t["ref"][: max(1, len(t["ref"]) // 2)], t["mt"]])
    return out


def test_mbr_comet_encodes_each_candidate_once_and_equals_the_naive_computation(files, tmp_path, monkeypatch):
    # batches of other shapes round differently in float32: the bound is this model's measured float32 rounding
    # error (tests/neural_float.py), measured before the encoder calls are counted
    tol = comet_tolerance("comet-da")
    srcs = _write(tmp_path / "nsrc.txt", [T[i]["src"] for i in range(SEGS)])
    lists = _nbest_lists()
    pool = Pool.of(NBestList.from_lists(lists))
    metric = get_metric("comet", model=str(FIX / "comet-da"), sources=srcs, cache=False, batch_size=3)
    encoded = []
    real = cm.sentence_embeddings
    monkeypatch.setattr(cm, "sentence_embeddings", lambda mm, seqs: (encoded.append(len(seqs)), real(mm, seqs))[1])
    fast = PairwiseUtility(metric, pool)
    assert fast.method == "comet"
    mats = dict(fast.matrices())
    distinct = set(pool.texts) | {T[i]["src"] for i in range(SEGS)}
    assert sum(encoded) == len(distinct)  # every distinct candidate and source encoded once
    assert sum(encoded) < SEGS * K * K  # (the naive path would encode each pair's texts)
    # the naive computation: every (hyp, pseudo-ref) pair through the metric's ordinary path
    for s, cands in enumerate(lists):
        src_file = _write(tmp_path / f"pair-src-{s}.txt", [T[s]["src"]] * (K * K))
        naive = get_metric("comet", model=str(FIX / "comet-da"), sources=src_file, cache=False)
        hyps = [cands[a] for a in range(K) for b in range(K)]
        refs = [[cands[b]] for a in range(K) for b in range(K)]
        want = naive.sentence_scores(naive.stats(hyps, refs)).reshape(K, K)
        np.testing.assert_allclose(mats[s], want, atol=tol, rtol=0)
    # one segment per chunk of pairs (as with many long n-best lists): each chunk encodes its own candidates and
    # source once, and drops them after
    from mtscore.search import mbr as mbr_mod
    real_chunks = mbr_mod._chunks
    monkeypatch.setattr(mbr_mod, "_chunks", lambda sizes, limit=None: real_chunks(sizes, K * K))
    encoded.clear()
    per_chunk = dict(PairwiseUtility(metric, pool).matrices())
    assert sum(encoded) == sum(len(set(c) | {T[i]["src"]}) for i, c in enumerate(lists))
    for s in mats:
        np.testing.assert_allclose(per_chunk[s], mats[s], atol=tol, rtol=0)
    # the generic path (the metric's stats on the pairs, each pair's source bound) agrees too
    generic = dict(PairwiseUtility(metric, pool, method="generic").matrices())
    for s in mats:
        np.testing.assert_allclose(generic[s], mats[s], atol=tol, rtol=0)
    # MBR's choice: the candidate with the highest expected utility (plain Python)
    sel = mbr_select(pool, metric)
    for s, cands in enumerate(lists):
        eu = [sum(mats[s][a][b] for b in range(K)) / K for a in range(K)]
        assert sel.texts[s] == cands[int(np.argmax(eu))]
        assert sel.info["expected_utility"][s] == pytest.approx(max(eu), abs=TOL)


def test_nbest_cli_oracle_mbr_tune_with_neural_metrics(files, tmp_path, capsys):
    lists = _nbest_lists()
    lines = [f"{i} ||| {c} ||| LM= {-len(c) / 10:.2f} WP= {-len(c.split())} ||| {-len(c) / 10:.2f}"
             for i, cands in enumerate(lists) for c in cands]
    nb = _write(tmp_path / "nbest.txt", lines)
    ref = _write(tmp_path / "nref.txt", [T[i]["ref"] for i in range(SEGS)])
    srcs = _write(tmp_path / "nsrc.txt", [T[i]["src"] for i in range(SEGS)])
    comet = f"comet:model={FIX / 'comet-da'},sources={srcs},cache=false"
    kiwi = f"cometkiwi:model={FIX / 'cometkiwi'},sources={srcs},cache=false"
    doc = _json(capsys, ["nbest", nb, "-r", ref, "-m", comet, kiwi, "--oracle", comet, "--mbr", comet, kiwi,
                         "--tune", comet, "--seed", "1", "-f", "json"])
    methods = {r["selection"] for r in doc["rows"]}
    assert {"oracle(COMET, per segment)", "MBR(COMET, uniform)", "MBR(CometKiwi, uniform)",
            "rerank(tuned on COMET)"} <= methods, methods
    # the oracle picks, per segment, the candidate with the best COMET against the reference (plain argmax), and
    # MBR(CometKiwi) (a QE utility: the same for every pseudo-reference) the candidate with the best CometKiwi
    m = get_metric("comet", model=str(FIX / "comet-da"), sources=_write(
        tmp_path / "rep-src.txt", [T[i]["src"] for i in range(SEGS) for _ in range(K)]), cache=False)
    flat = m.sentence_scores(m.stats([c for cands in lists for c in cands],
                                     [[T[i]["ref"]] for i in range(SEGS) for _ in range(K)])).reshape(SEGS, K)
    kq = get_metric("cometkiwi", model=str(FIX / "cometkiwi"), sources=str(tmp_path / "rep-src.txt"), cache=False)
    qe = kq.sentence_scores(kq.stats([c for cands in lists for c in cands],
                                     [[T[i]["ref"]] for i in range(SEGS) for _ in range(K)])).reshape(SEGS, K)
    doc = _json(capsys, ["nbest", nb, "-r", ref, "-m", comet, kiwi, "--oracle", comet, "--mbr", kiwi, "-f", "json"])
    rows = {r["selection"]: r for r in doc["rows"]}
    assert rows["oracle(COMET, per segment)"]["COMET"] == pytest.approx(float(flat.max(axis=1).mean()), abs=TOL)
    assert rows["MBR(CometKiwi, uniform)"]["CometKiwi"] == pytest.approx(float(qe.max(axis=1).mean()), abs=TOL)
    assert rows["1-best"]["COMET"] == pytest.approx(float(flat[:, 0].mean()), abs=TOL)
    # a sources file with another line count: one line naming it
    bad = _write(tmp_path / "bad-src.txt", [T[i]["src"] for i in range(SEGS - 1)])
    rc = main(["nbest", nb, "-r", ref, "-m", "bleu", "--mbr", f"comet:model={FIX / 'comet-da'},sources={bad}"])
    err = capsys.readouterr().err
    assert rc != 0 and "5 source segments for the 6 segments of the n-best list" in err and len(
        err.strip().splitlines()) == 1, err
