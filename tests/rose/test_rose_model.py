"""ROSE metric surface, model files, training and CLI."""
import json
import sys

import numpy as np
import pytest

from mtscore.cli.main import main
from mtscore.errors import InputError, InvalidParameterError, OptionalDependencyError
from mtscore.metrics.registry import get_metric
from mtscore.metrics.rose_features import CORE_FEATURES, FEATURES_VERSION
from mtscore.rose.model import DATA_DIR, load_model
from mtscore.rose.train import TrainingData, ranking_pairs, train

HYPS = ["the cat sat on the mat .", "a dog barked loudly", "", "hello world !", "it is raining , again"]
REFS = [["the cat is on the mat ."], ["the dog barked .", "a dog was barking"], ["x"], ["hello , world !"],
        ["it rains again"]]


@pytest.mark.parametrize("name", ["rose", "rose-reg", "rose-rank"])
def test_decomposable_surface(name):
    m = get_metric(name)
    assert m.decomposable and m.columns[-1] == "count" and m.columns[:-1] == CORE_FEATURES
    st = m.stats(HYPS, REFS)
    sent = m.sentence_scores(st)
    corpus = m.corpus_from_stats(st).score
    assert corpus == pytest.approx(sent.mean(), abs=1e-12)
    # batched resampling: weights @ stats == mean of the resampled sentence scores
    rng = np.random.default_rng(0)
    w = rng.multinomial(len(HYPS), np.full(len(HYPS), 1 / len(HYPS)), size=7).astype(float)
    assert np.allclose(m.score(w @ st.values), (w @ sent) / w.sum(1), atol=1e-12)
    assert np.isnan(m.score(np.zeros(len(m.columns))))
    # sentence score = w . standardized(f) + b, computed independently
    f = st.values[:, :-1]
    exp = ((f - m.model.mean) / m.model.scale) @ m.model.weights + m.model.intercept
    assert np.allclose(sent, exp)


def test_shipped_models_record_their_command():
    for key in ("reg", "rank"):
        d = json.loads((DATA_DIR / f"rose-{key}.json").read_text())
        assert d["training"]["command"].startswith("mtscore rose train --data ../shared/data/wmt23 --lp he-en zh-en")
        assert d["features"] == list(CORE_FEATURES) and d["kernel"] == {"type": "linear"}
        assert load_model(key).training["dataset"]["lps"] == ["he-en", "zh-en"]


def _model_dict():
    return json.loads((DATA_DIR / "rose-reg.json").read_text())


def test_model_version_and_feature_errors(tmp_path):
    d = _model_dict()
    d["format_version"] = 2
    p = tmp_path / "m.json"
    p.write_text(json.dumps(d))
    with pytest.raises(InputError, match="format_version 2 is not supported"):
        load_model(p)
    d = _model_dict()
    d["features_version"] = "rose-features-0"
    p.write_text(json.dumps(d))
    with pytest.raises(InputError, match="retrain"):
        load_model(p)
    d = _model_dict()
    i = d["features"].index("func_diff")
    for key in ("features", "weights"):
        del d[key][i]
    for key in ("mean", "scale"):
        del d["scaler"][key][i]
    p.write_text(json.dumps(d))
    with pytest.raises(InputError, match="missing feature.*func_diff"):
        load_model(p)
    d = _model_dict()
    d["features"][0] = "bleu"
    p.write_text(json.dumps(d))
    with pytest.raises(InputError, match="unknown feature.*bleu"):
        load_model(p)
    d = _model_dict()
    d["weights"] = d["weights"][:-1]
    p.write_text(json.dumps(d))
    with pytest.raises(InputError, match="'weights' has 16 values for 17 features"):
        load_model(p)
    p.write_text("not json")
    with pytest.raises(InputError, match="not valid JSON"):
        load_model(p)
    with pytest.raises(InvalidParameterError, match="neither a built-in model"):
        load_model(tmp_path / "absent.json")


def test_feature_order_in_file_does_not_matter(tmp_path):
    d = _model_dict()
    perm = list(reversed(range(len(d["features"]))))
    for key in ("features", "weights"):
        d[key] = [d[key][i] for i in perm]
    for key in ("mean", "scale"):
        d["scaler"][key] = [d["scaler"][key][i] for i in perm]
    p = tmp_path / "rev.json"
    p.write_text(json.dumps(d))
    a = get_metric("rose", rose_model=str(p)).sentence_scores_of(HYPS, REFS)
    b = get_metric("rose-reg").sentence_scores_of(HYPS, REFS)
    assert np.allclose(a, b)


def test_pos_variant_without_tagger(monkeypatch):
    monkeypatch.setitem(sys.modules, "textblob", None)
    monkeypatch.setitem(sys.modules, "textblob.en", None)
    m = get_metric("rose-rankpos")
    with pytest.raises(OptionalDependencyError, match=r"pip install 'mtscore\[pos\]'"):
        m.stats(HYPS, REFS)
    # pre-tagged input needs no tagger
    m2 = get_metric("rose-rankpos", pos_tagger="pretagged")
    s = m2.sentence_scores_of(["a/DT cat/NN"], [["a/DT dog/NN"]])
    assert np.isfinite(s).all()
    with pytest.raises(InputError, match="not word/TAG"):
        m2.stats(["a cat"], [["a/DT dog/NN"]])


def _toy_data(n_sys=3, n_seg=30, seed=1, equal=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_sys * n_seg, len(CORE_FEATURES)))
    w = rng.normal(size=len(CORE_FEATURES))
    y = np.zeros(n_sys * n_seg) if equal else X @ w + 0.1 * rng.normal(size=len(X))
    group = np.tile(np.arange(n_seg), n_sys)
    systems = [f"s{i}" for i in np.repeat(np.arange(n_sys), n_seg)]
    return TrainingData(X, y, group, systems, CORE_FEATURES, {"tokenize": "13a", "lowercase": False,
                                                              "function_words": "en", "pos_tagger": None})


@pytest.mark.parametrize("objective", ["regression", "ranking"])
@pytest.mark.parametrize("kernel", ["linear", "poly", "rbf"])
def test_training_deterministic_and_json_round_trip(tmp_path, objective, kernel):
    data = _toy_data()
    m1 = train(data, objective, kernel, seed=3)
    m2 = train(data, objective, kernel, seed=3)
    assert json.dumps(m1.to_dict()) == json.dumps(m2.to_dict())
    p = tmp_path / "m.json"
    m1.save(p)
    m3 = load_model(p)
    assert np.allclose(m3.decision(data.X), m1.decision(data.X))
    # the learned scores agree with the (noise-free part of the) human scores
    s = m1.decision(data.X)
    a, b = ranking_pairs(data.y, data.group)
    agree = np.mean(np.sign(s[a] - s[b]) == np.sign(data.y[a] - data.y[b]))
    assert agree > 0.7
    if kernel != "linear":  # non-linear models score through [score, count] statistics
        met = get_metric("rose", rose_model=str(p))
        assert met.columns == ("score", "count")


def test_training_bad_input():
    with pytest.raises(InputError, match="at least two"):
        train(_toy_data(n_sys=1), "regression")
    with pytest.raises(InputError, match="no usable ranking pairs"):
        train(_toy_data(equal=True), "ranking")
    with pytest.raises(InvalidParameterError, match="objective"):
        train(_toy_data(), "classification")


def _write_mtme(root, lp, systems, ref, human):
    (root / "sources").mkdir(parents=True, exist_ok=True)
    (root / "references").mkdir(exist_ok=True)
    (root / "human-scores").mkdir(exist_ok=True)
    (root / "system-outputs" / lp).mkdir(parents=True, exist_ok=True)
    (root / "sources" / f"{lp}.txt").write_text("\n".join(f"src {i}" for i in range(len(ref))) + "\n")
    (root / "references" / f"{lp}.refA.txt").write_text("\n".join(ref) + "\n")
    lines = []
    for name, hyps in systems.items():
        (root / "system-outputs" / lp / f"{name}.txt").write_text("\n".join(hyps) + "\n")
        lines += [f"{name}\t{v}" for v in human[name]]
    (root / "human-scores" / f"{lp}.mqm.seg.score").write_text("\n".join(lines) + "\n")


def _synthetic_mtme(root, lp, seed):
    rng = np.random.default_rng(seed)
    words = "the a cat dog sat on mat ran far away house big small red blue".split()
    ref = [" ".join(rng.choice(words, size=8)) for _ in range(40)]
    systems, human = {}, {}
    for k, noise in enumerate((0.1, 0.4, 0.8)):
        hyps, scores = [], []
        for r in ref:
            toks = r.split()
            bad = rng.random(len(toks)) < noise
            toks = [rng.choice(words) if b else t for t, b in zip(toks, bad)]
            hyps.append(" ".join(toks))
            scores.append(-float(bad.sum()))
        systems[f"sys{k}"] = hyps
        human[f"sys{k}"] = scores
    _write_mtme(root, lp, systems, ref, human)


def test_cli_train_and_score_held_out_pair(tmp_path, capsys):
    root = tmp_path / "mtme"
    _synthetic_mtme(root, "aa-en", 0)
    _synthetic_mtme(root, "bb-en", 1)
    out1 = tmp_path / "m1.json"
    texts = []
    for _ in range(2):
        rc = main(["rose", "train", "--data", str(root), "--lp", "aa-en", "--objective", "ranking", "--seed", "5",
                   "-o", str(out1)])
        assert rc == 0
        texts.append(out1.read_text())
    assert texts[0] == texts[1]
    d = json.loads(out1.read_text())
    assert d["features_version"] == FEATURES_VERSION and "--lp aa-en" in d["training"]["command"]
    # score the held-out pair: the system ranking follows the (synthetic) human ranking
    from mtscore.io.wmt import load_mtme

    data = load_mtme(root, "bb-en")
    m = get_metric("rose", rose_model=str(out1))
    refs = [[r] for r in data.refs["refA"]]
    sys_scores = [m.corpus(data.systems[f"sys{k}"], refs).score for k in range(3)]
    assert sys_scores[0] > sys_scores[1] > sys_scores[2]
    capsys.readouterr()
    assert main(["rose", "info", str(out1)]) == 0
    assert "prec_1" in capsys.readouterr().out


def test_cli_train_errors(tmp_path, capsys):
    root = tmp_path / "mtme"
    _write_mtme(root, "aa-en", {"only": ["a b", "c d"]}, ["a b", "c e"], {"only": [-1, 0]})
    rc = main(["rose", "train", "--data", str(root), "--lp", "aa-en", "-o", str(tmp_path / "x.json")])
    assert rc == 3
    assert "at least two systems" in capsys.readouterr().err
    root2 = tmp_path / "mtme2"
    _write_mtme(root2, "aa-en", {"s1": ["a b", "c d"], "s2": ["a c", "c"]}, ["a b", "c e"], {"s1": [-1, 0], "s2": [-1, 0]})
    rc = main(["rose", "train", "--data", str(root2), "--lp", "aa-en", "--objective", "ranking", "-o", str(tmp_path / "y.json")])
    assert rc == 3
    assert "no usable ranking pairs" in capsys.readouterr().err


def test_cli_score(tmp_path, capsys):
    h, r = tmp_path / "h.txt", tmp_path / "r.txt"
    h.write_text("\n".join(HYPS) + "\n")
    r.write_text("\n".join(x[0] for x in REFS) + "\n")
    assert main(["score", "-m", "rose", "rose-reg", "-r", str(r), "-i", str(h), "-f", "json"]) == 0
    out = capsys.readouterr().out
    assert "ROSE-reg" in out
    assert main(["score", "-m", "rose", "-r", str(r), "-i", str(h), "--rose-model", str(tmp_path / "nope.json")]) == 2
    assert "neither a built-in model" in capsys.readouterr().err


def test_real_data_held_out_en_de(data):
    """The shipped model (trained on he-en, zh-en) scores the unseen en-de pair."""
    from mtscore.io.wmt import load_mtme

    d = load_mtme(data("wmt23"), "en-de")
    m = get_metric("rose", function_words="de")
    refs = [[x] for x in d.refs["refA"]]
    names = sorted(d.mt_systems())[:3]
    scores = [m.corpus(d.systems[s], refs).score for s in names]
    assert all(np.isfinite(scores))
    # the reference scored against itself is better than every MT system
    assert m.corpus(d.refs["refA"], refs).score > max(scores)
