"""The shim distribution shims/sacrebleu: a ``sacrebleu`` package and command that are mtscore's
drop-in, so tools that ``import sacrebleu`` use mtscore unchanged.

- sacreBLEU 2.6.0's own test files (vendored unchanged in shims/sacrebleu/upstream/test, provenance there) run
  against the shim in a subprocess, offline: every test that does not download passes (133), the 11 that need
  a test set downloaded are skipped naming the file;
- the shim installs into a fresh venv and uninstalls cleanly, offline (a wheel built without build isolation,
  pip --no-index), in the test's temporary folder; there ``import sacrebleu`` is mtscore's and the
  ``sacrebleu`` command gives sacreBLEU's output."""
import hashlib
import importlib.metadata
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import data_path

ROOT = Path(__file__).resolve().parents[2]
SHIM = ROOT / "shims" / "sacrebleu"
UPSTREAM = SHIM / "upstream"
# git blob ids of sacreBLEU's test/ folder at tag v2.6.0 (commit 2277caccfc7b956671a6a09f1646f62250034157)
UPSTREAM_BLOBS = {
    "test_api.py": "02ac9f0394c9d6b38ab0fdccd23d487edb82c228",
    "test_bleu.py": "d8312de63f50d6dd9596408d296064df75e4ac4d",
    "test_chrf.py": "24df6d52ba34128f987b4321933277787f3e2ca9",
    "test_dataset.py": "d3ece8cbb0dc430b15ad2bc74a50ab349a702359",
    "test_sentence_bleu.py": "88afa2ebd751482c94f055e58f5932e3b63e4a99",
    "test_significance.py": "f7098328b0b1c60bf360721dd289423d32e70312",
    "test_ter.py": "df650a931267744c728e11df8a7758930204e5af",
    "test_tokenizer_ter.py": "e76a03bfe4982f899d132fd0cb6faf253120b3b1",
    "wmt17_en_de_systems.pkl.bz2": "227b630ef9a4f6d080d95dcf9828a3e15388ca16",
}


def _blob(path: Path) -> str:
    data = path.read_bytes()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def test_vendored_tests_are_sacrebleus_unchanged():
    files = {p.name for p in (UPSTREAM / "test").iterdir() if p.is_file()} - {"conftest.py"}
    assert files == set(UPSTREAM_BLOBS)
    for name, blob in UPSTREAM_BLOBS.items():
        assert _blob(UPSTREAM / "test" / name) == blob, name


def _offline_env(tmp_path, **extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "PYTHON", "SACREBLEU"))}
    env.update({"HOME": str(tmp_path / "home"), "PYTHONDONTWRITEBYTECODE": "1", "PIP_NO_INDEX": "1",
                "PIP_DISABLE_PIP_VERSION_CHECK": "1", "PIP_NO_CACHE_DIR": "1", "NO_COLOR": "1",
                "http_proxy": "http://127.0.0.1:9", "https_proxy": "http://127.0.0.1:9"}, **extra)
    (tmp_path / "home").mkdir(exist_ok=True)
    return env


@pytest.mark.slow
def test_sacrebleus_own_tests_pass_against_the_shim(tmp_path):
    work = tmp_path / "upstream"
    shutil.copytree(UPSTREAM, work)
    cache = tmp_path / "cache"
    cache.mkdir()
    env = _offline_env(tmp_path, PYTHONPATH=os.pathsep.join([str(SHIM / "src"), str(ROOT / "src")]),
                       SACREBLEU=str(cache))
    r = subprocess.run([sys.executable, "-m", "pytest", "-q", "-rs", "-p", "no:cacheprovider", "test"], cwd=work,
                       env=env, capture_output=True, text=True, timeout=1800)
    out = r.stdout + r.stderr
    assert r.returncode == 0, out[-3000:]
    summary = out.strip().splitlines()[-1]
    counts = {k: int(n) for n, k in re.findall(r"(\d+) (passed|skipped|failed|error|errors)", summary)}
    assert counts == {"passed": 133, "skipped": 11}, summary
    skips = [ln for ln in out.splitlines() if ln.startswith("SKIPPED")]
    assert skips and all("needs a download: " + str(cache) in ln for ln in skips), skips
    # the suite ran against the shim, not the installed sacreBLEU
    probe = subprocess.run([sys.executable, "-c", "import sacrebleu; print(sacrebleu.__name__)"], cwd=work, env=env,
                           capture_output=True, text=True, timeout=300)
    assert probe.stdout.strip() == "mtscore.sacrebleu", probe.stderr


def _deps_dir(tmp_path) -> Path:
    """mtscore and what it imports, as links in one folder (a .pth points the fresh venv at it): the shim's
    dependency ``mtscore`` is then installed there, and nothing else of this environment is visible."""
    deps = tmp_path / "deps"
    deps.mkdir()
    import mtscore
    import numpy
    import regex
    import scipy
    for mod in (mtscore, numpy, scipy, regex):
        pkg = Path(mod.__file__).resolve().parent
        (deps / pkg.name).symlink_to(pkg)
        libs = pkg.parent / f"{pkg.name}.libs"
        if libs.is_dir():
            (deps / libs.name).symlink_to(libs)
        dist = importlib.metadata.distribution(pkg.name)
        meta = Path(dist._path)  # the .dist-info folder
        (deps / meta.name).symlink_to(meta)
    return deps


@pytest.mark.slow
def test_shim_installs_and_uninstalls_cleanly_in_a_fresh_venv(tmp_path):
    env = _offline_env(tmp_path)
    src = tmp_path / "shim"
    shutil.copytree(SHIM, src, ignore=shutil.ignore_patterns("upstream", "build", "*.egg-info", "__pycache__"))
    dist = tmp_path / "dist"
    r = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "--no-index",
                        "-w", str(dist), str(src)], env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    (wheel,) = dist.glob("*.whl")
    assert wheel.name.startswith("sacrebleu-2.6.0+mtscore")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, env=env, timeout=600)
    py, bindir = venv / "bin" / "python", venv / "bin"
    site = Path(subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               capture_output=True, text=True, check=True).stdout.strip())
    (site / "mtscore-deps.pth").write_text(str(_deps_dir(tmp_path)) + "\n", encoding="utf-8")
    before = sorted(p.relative_to(venv) for p in venv.rglob("*") if "__pycache__" not in p.parts)

    r = subprocess.run([str(py), "-m", "pip", "install", "--no-index", "--no-build-isolation", str(wheel)],
                       env=env, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    probe = ("import importlib.metadata as m, sacrebleu, sacrebleu.utils, sacrebleu.metrics.lib_ter; "
             "from sacrebleu.dataset import DATASETS; "
             "print(m.version('sacrebleu'), sacrebleu.__name__, sacrebleu.__version__, len(DATASETS))")
    r = subprocess.run([str(py), "-c", probe], env=env, capture_output=True, text=True, timeout=300)
    assert r.stdout.split() == ["2.6.0+mtscore.0.1.0", "mtscore.sacrebleu", "2.6.0", "67"], r.stderr
    r = subprocess.run([str(bindir / "sacrebleu"), "-V"], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0 and r.stdout.startswith("sacrebleu 2.6.0 (mtscore "), r.stdout + r.stderr
    d17 = data_path("wmt17-en-de")
    ref = d17 / "newstest2017.en-de.ref0.de"
    hyp = d17 / "systems" / "newstest2017.online-A.0.en-de"
    for argv in ([str(ref), "-i", str(hyp), "-b"], [str(ref), "-i", str(hyp), "--confidence", "-cin", "1"]):
        r = subprocess.run([str(bindir / "sacrebleu"), *argv], env=env, capture_output=True, text=True, timeout=600)
        m = subprocess.run([str(py), "-m", "sacrebleu", *argv], env=env, capture_output=True, text=True,
                           timeout=600)
        assert r.returncode == 0 and r.stdout and r.stdout == m.stdout, r.stderr
    r = subprocess.run([str(bindir / "sacrebleu"), "--list", "-t", "wmt17"], env=env, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0 and r.stdout.startswith("cs-en: src, ref, docid, genre, origlang\n"), r.stderr

    r = subprocess.run([str(py), "-m", "pip", "uninstall", "-y", "sacrebleu"], env=env, capture_output=True,
                       text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
    after = sorted(p.relative_to(venv) for p in venv.rglob("*") if "__pycache__" not in p.parts)
    assert after == before
    r = subprocess.run([str(py), "-c", "import sacrebleu"], env=env, capture_output=True, text=True, timeout=300)
    assert r.returncode != 0 and "No module named 'sacrebleu'" in r.stderr
