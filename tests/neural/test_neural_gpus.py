"""``gpus=N``: data-parallel scoring, one model replica per device, one thread each. This machine has
no GPU: the mechanics run on two CPU replicas (the metric's internal device list), and must give the same numbers
as one device, bit for bit, with both replicas used. ``gpus`` larger than the visible GPUs: one line."""
import json
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the neural extra (torch) is part of the test extras")

from mtscore.cli.main import main  # noqa: E402
from mtscore.errors import InvalidParameterError  # noqa: E402
from mtscore.metrics.registry import get_metric  # noqa: E402

FIX = Path(__file__).resolve().parents[1] / "fixtures" / "neural"
KA = json.loads((FIX / "known_answers.json").read_text(encoding="utf-8"))
T = KA["triples"]
TOL = 1e-6


@pytest.fixture
def src(tmp_path):
    p = tmp_path / "src.txt"
    p.write_text("\n".join(x["src"] for x in T) + "\n", encoding="utf-8")
    return str(p)


@pytest.mark.parametrize("name,model", [("comet", "comet-da"), ("cometkiwi", "cometkiwi"), ("xcomet", "xcomet")])
def test_two_replicas_same_numbers_as_one_device(name, model, src):
    hyps, refs = [x["mt"] for x in T], [[x["ref"]] for x in T]
    one = get_metric(name, model=str(FIX / model), sources=src, cache=False, batch_size=3)
    two = get_metric(name, model=str(FIX / model), sources=src, cache=False, batch_size=3)
    two._device_list = ("cpu", "cpu")
    a = one.stats(hyps, refs).values
    b = two.stats(hyps, refs).values
    assert a.tobytes() == b.tobytes()  # identical: the same batches, each on an identical replica
    key = {"comet-da": "comet-da", "cometkiwi": "cometkiwi", "xcomet": "xcomet"}[model]
    np.testing.assert_allclose(b[:, 0], KA["models"][key]["scores"], atol=TOL, rtol=0)
    reps = two._replicas
    assert len(reps) == 2 and reps[0].net is not reps[1].net
    assert all(r.calls > 0 for r in reps), [r.calls for r in reps]  # both devices took batches
    if name == "xcomet":
        assert two.last_spans == one.last_spans


def test_gpus_more_than_visible_is_one_line(tmp_path, src, capsys):
    (tmp_path / "r").write_text("a\n", encoding="utf-8")
    (tmp_path / "s1").write_text("a\n", encoding="utf-8")
    n = torch.cuda.device_count() if torch.cuda.is_available() else 0
    m = get_metric("comet", model=str(FIX / "comet-da"), sources=str(tmp_path / "s1"), cache=False, gpus=n + 1)
    with pytest.raises(InvalidParameterError, match=rf"comet: gpus={n + 1} but torch sees {n} GPUs?"):
        m.stats(["a"], [["a"]])
    rc = main(["score", "-r", str(tmp_path / "r"), "-i", str(tmp_path / "r"), "-m",
               f"comet:model={FIX / 'comet-da'},sources={tmp_path / 's1'},gpus={n + 1}"])
    err = capsys.readouterr().err
    assert rc == 2 and len(err.strip().splitlines()) == 1 and f"gpus={n + 1} but torch sees" in err, err
