"""End to end against a real OpenAI-compatible server: ``transformers serve`` on 127.0.0.1 with a tiny random causal LM
built here (tests/llm/llm_tiny_causal_lm.py): chat template, usage, concurrency, the cache.

``score`` -> ``compare`` -> ``report`` with ``bleu`` and ``gemba-esa``; the server's own log counts the requests: the
first run sends them, every later command none. The random model mostly answers nothing or "85"s, so segments go
through GEMBA's escalation and many end without a score (NaN, counted), which is checked too. Needs the serving
dependencies of transformers (fastapi, uvicorn, openai, accelerate: the test extra); skipped without them.
"""
from __future__ import annotations

import json
import math
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from conftest import cli_output

pytestmark = pytest.mark.slow

SRC = ["The cat sat on the mat.", "It rained all day.", "We like tea."]
REF = ["Die Katze saß auf der Matte.", "Es regnete den ganzen Tag.", "Wir mögen Tee."]
SYS = {"a": ["Die Katze saß auf der Matte.", "Es hat den ganzen Tag geregnet.", "Wir mögen Tee."],
       "b": ["Katze Matte.", "Regen.", "Tee."]}


def _serve_available() -> bool:
    try:
        from transformers.utils.import_utils import is_serve_available
        import accelerate  # noqa: F401  (serve places the model with it)
    except ImportError:
        return False
    return is_serve_available()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _posts(log: Path) -> int:
    return log.read_text(encoding="utf-8", errors="replace").count('"POST /v1/chat/completions HTTP/1.1" 200')


@pytest.mark.skipif(not _serve_available(), reason="transformers serve needs fastapi, uvicorn, openai and accelerate "
                    "(the test extra)")
def test_score_compare_report_against_transformers_serve(tmp_path, monkeypatch):
    sys.path.insert(0, os.path.dirname(__file__))
    from llm_tiny_causal_lm import build
    model = build(tmp_path / "tiny-lm")
    port = _free_port()
    log = tmp_path / "serve.log"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "PYTHONPATH": os.pathsep.join(sys.path)}
    with open(log, "w", encoding="utf-8") as fh:
        server = subprocess.Popen([sys.executable, "-c", "import sys; from transformers.cli.transformers import main; "
                                   "sys.argv[0] = 'transformers'; sys.exit(main())", "serve", str(model),
                                   "--host", "127.0.0.1", "--port", str(port), "--device", "cpu", "--default-seed", "38"],
                                  stdout=fh, stderr=subprocess.STDOUT, env=env)
    try:
        url = f"http://127.0.0.1:{port}"
        for _ in range(1200):  # up to ~2 minutes, asked every 0.1 s
            try:
                urllib.request.urlopen(url + "/health", timeout=2)
                break
            except OSError:
                if server.poll() is not None:
                    pytest.fail("transformers serve ended: " + log.read_text(encoding="utf-8")[-2000:])
                time.sleep(0.1)
        for name, lines in (("src.en", SRC), ("ref.de", REF), ("a.de", SYS["a"]), ("b.de", SYS["b"])):
            (tmp_path / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
        env_c = {**env, "MTSCORE_CACHE_DIR": str(tmp_path / "cache"), "OPENAI_API_KEY": "sk-unused-by-local-server"}
        spec = f"gemba-esa:endpoint={url}/v1,model={model},sources={tmp_path / 'src.en'},concurrency=4"
        base = ["-r", str(tmp_path / "ref.de"), "-i", str(tmp_path / "a.de"), str(tmp_path / "b.de"), "-l", "en-de"]

        def run(*args):
            p = subprocess.run([sys.executable, "-m", "mtscore", *args], capture_output=True, text=True, env=env_c,
                               timeout=600)
            assert p.returncode == 0, p.stderr
            return p

        def run_here(*args):
            """The later commands in this process (``main``, the same environment): they are served by the
            cache, which the server's log checks; the first run above is the end-to-end one."""
            for k in ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE", "MTSCORE_CACHE_DIR", "OPENAI_API_KEY"):
                monkeypatch.setenv(k, env_c[k])
            cli_output(*args)

        first = run("score", *base, "-m", "bleu", spec, "--sentence-level", "-f", "json")
        sent = _posts(log)
        # two requests per segment and system, and more: greedy decoding answers nothing, so every score request
        # climbs GEMBA's temperature ladder
        assert sent > 2 * 2 * len(SRC)
        rows = json.loads(first.stdout)["rows"]
        scores = [r[f"{s}:GEMBA-ESA"] for r in rows for s in ("a", "b")]
        assert all(x is None or (isinstance(x, float) and (math.isnan(x) or 0 <= x <= 100)) for x in scores)
        assert all(isinstance(r["a:BLEU"], float) for r in rows)
        run_here("score", *base, "-m", "bleu", spec)
        run_here("compare", *base, "-m", spec, "--n-samples", "100")
        run_here("report", *base, "-m", "bleu", spec, "-o", str(tmp_path / "report.html"), "--resamples", "100")
        assert _posts(log) == sent  # everything after the first run came from the cache
    finally:
        server.terminate()
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            server.kill()
