"""``mtscore cache``: the neural score cache's file, entries and bytes; ``--clear`` empties it (cache in a temp
folder through MTSCORE_CACHE_DIR). The counts are checked with sqlite3 and os.stat directly."""
import json
import os
import sqlite3

from mtscore.cli.main import main
from mtscore.neural.cache import ScoreCache, key


def _show(capsys, *extra):
    assert main(["cache", "-f", "json", *extra]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def test_cache_command_shows_and_clears(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("MTSCORE_CACHE_DIR", str(tmp_path / "c"))
    db = tmp_path / "c" / "neural.sqlite"
    got = _show(capsys)
    assert got["rows"] == [{"file": str(db), "entries": 0, "bytes": 0}]
    assert not db.exists()  # showing creates nothing
    c = ScoreCache()
    c.put_many([(key("d", "fp32", "k", (f"seg {i}",)), i / 7, None) for i in range(37)])
    c.close()
    row = _show(capsys)["rows"][0]
    with sqlite3.connect(db) as con:
        n = con.execute("SELECT COUNT(*) FROM scores").fetchone()[0]
    assert n == 37 and row == {"file": str(db), "entries": n, "bytes": os.stat(db).st_size}
    out = _show(capsys, "--clear")
    assert out["rows"][0]["entries"] == 0 and any("cleared: 37 entries" in x for x in out["notes"])
    with sqlite3.connect(db) as con:
        assert con.execute("SELECT COUNT(*) FROM scores").fetchone()[0] == 0
    assert main(["cache"]) == 0 and str(db) in capsys.readouterr().out  # text table


def test_cache_command_on_a_file_that_is_not_a_cache(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("MTSCORE_CACHE_DIR", str(tmp_path))
    (tmp_path / "neural.sqlite").write_bytes(b"not sqlite at all, " * 100)
    rc = main(["cache"])
    err = capsys.readouterr().err
    assert rc != 0 and "neural.sqlite" in err and len(err.strip().splitlines()) == 1
    assert (tmp_path / "neural.sqlite").read_bytes() == b"not sqlite at all, " * 100  # never replaced
