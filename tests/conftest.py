import os
import signal
import sys
from pathlib import Path

import pytest

# A suite started as a background job of a non-interactive shell (`cmd &`, `nohup ... &`, `setsid`) inherits
# SIGINT ignored, and so would every mtscore process the tests start and then interrupt on purpose (an ignored
# signal stays ignored across exec; the mtscore CLI, like any program, leaves an inherited "ignore" alone). The
# tests stand for Ctrl-C at a terminal, so the suite restores Python's own handler (a caught signal is reset to
# the default in the children it starts).
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

# BLAS and PyTorch single-threaded, as the mtscore CLI runs BLAS (mtscore.cli.main._single_threaded_blas) and for
# the same reason: OpenBLAS' and OpenMP's threads spin while they wait, so the many small matrix products of the tests
# (SPA's permutation draws, resampling, the tiny neural checkpoints) cost 4-5 times their CPU time with two threads,
# and more while pytest-xdist runs a worker per core. Set before NumPy and torch are imported (both read it once,
# when they start); the processes the tests start inherit it, unless a test sets its own environment
# (tests/contracts/test_startup.py does). A thread count the user set is left alone.
if not ({"numpy", "torch"} & set(sys.modules)) and not any(
        v in os.environ for v in ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")):
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    os.environ["OMP_NUM_THREADS"] = "1"

# Text output at the width of a pipe (the CLI's default, 100 columns, as in .ci/run): pytest-xdist's workers set
# COLUMNS=80, which would refit the tables and help that tests read.
os.environ.pop("COLUMNS", None)
os.environ.pop("LINES", None)

ROOT = Path(__file__).resolve().parents[1]
# The one data-location variable: every test that reads real data (WMT, TED, n-best lists) finds it here;
# default ../shared/data beside the checkout (README, "Tests").
DATA = Path(os.environ.get("MTSCORE_TEST_DATA", ROOT.parent / "shared" / "data"))

# Nothing is left in the system temporary folder: the whole session (pytest's base temp folder, the temporary
# files of the mtscore processes the tests start, Dask's dask-scratch-space) works in one folder, removed at
# exit. TMPDIR reaches the child processes; tempfile.tempdir this process.
import atexit as _atexit  # noqa: E402
import shutil as _shutil  # noqa: E402
import tempfile as _tempfile  # noqa: E402

_SESSION_TMP = _tempfile.mkdtemp(prefix="mtscore-test-tmp-")
_atexit.register(_shutil.rmtree, _SESSION_TMP, ignore_errors=True)
os.environ["TMPDIR"] = _SESSION_TMP
os.environ["DASK_TEMPORARY_DIRECTORY"] = _SESSION_TMP
_tempfile.tempdir = _SESSION_TMP


# pytest-xdist (`-n auto --dist loadfile`, the README's command) hands whole files to its workers, the next file to
# the first worker that is free, in the order of the queue. The files that take longest go first (longest first is
# close to the best order for such a queue; otherwise a long file dispatched last keeps one worker busy while the
# other idles), the rest in collection order; xdist's own reordering (by number of tests, not by time) is off.
# Seconds of one file on the 2-core CI machine, measured with `pytest -n auto --dist loadfile --durations=0`
# (summed per file); a file missing here runs after these, a stale figure only costs wall time.
LONGEST_FIRST = (
    "tests/contracts/test_params_fuzz.py",  # 70 s
    "tests/report/test_report_browser.py",  # 26 s
    "tests/tokenize/test_tokenize.py",  # 25 s
    "tests/neural/test_neural_hub_checkpoints.py",  # 25 s
    "tests/contracts/test_fresh_install.py",  # 22 s
    "tests/contracts/test_output_model.py",  # 22 s
    "tests/meta/test_meta_mtme.py",  # 18 s
    "tests/backends/test_scale.py",  # 17 s
    "tests/neural/test_neural_dask.py",  # 15 s
    "tests/sacrebleu/test_sacrebleu_shim.py",  # 15 s
    "tests/kernels/test_ckernels.py",  # 14 s
    "tests/sacrebleu/test_sacrebleu_api.py",  # 12 s
    "tests/llm/test_llm_transformers_serve.py",  # 11 s
    "tests/report/test_report_html.py",  # 10 s
    "tests/sacrebleu/test_sacrebleu_cli.py",  # 10 s
    "tests/analysis/test_analysis_comparemt.py",  # 10 s
    "tests/kernels/test_ckernels_perf.py",  # 9 s
    "tests/kernels/test_reference_path_commands.py",  # 9 s
    "tests/report/test_report_layout.py",  # 8 s
    "tests/contracts/test_fault_regressions.py",  # 8 s
    "tests/contracts/test_no_compiler.py",  # 8 s
)


def pytest_collection_modifyitems(config, items):
    rank = {f: i for i, f in enumerate(LONGEST_FIRST)}
    order = {id(it): (rank.get(it.nodeid.split("::", 1)[0], len(rank)), k) for k, it in enumerate(items)}
    items.sort(key=lambda it: order[id(it)])


def pytest_configure(config):
    if hasattr(config.option, "loadscopereorder"):  # pytest-xdist: keep the order above (LONGEST_FIRST)
        config.option.loadscopereorder = False
    if config.option.basetemp is None:  # pytest's default is <system temp>/pytest-of-USER, kept after the run
        config.option.basetemp = os.path.join(_SESSION_TMP, "pytest")
    try:
        import dask
        dask.config.set({"temporary-directory": _SESSION_TMP})
    except ImportError:
        pass


def data_path(*parts) -> Path:
    """Path under ../shared/data; skips the calling test with a reason when it is absent."""
    p = DATA.joinpath(*parts)
    if not p.exists():
        pytest.skip(f"real data not available: {p} (tests read ../shared/data beside the project)")
    return p


CHROMIUM_MISSING = "needs Chromium: install the Debian/Ubuntu package 'chromium' (apt-get install chromium)"


def chromium_path() -> str | None:
    """Debian's Chromium, when installed (tests never install it: .ci/run does)."""
    import shutil
    return shutil.which("chromium") or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)


def run_cli(*argv, cwd=None, interpreter_warnings: bool = False) -> tuple:
    """``mtscore ARGV`` in this process (``mtscore.cli.main.main``, as the console entry point runs it): (exit code,
    stdout, stderr); argparse's own exits give their code. ``cwd``: the working directory of the run.
    ``interpreter_warnings``: a new interpreter's warning filters, printed to stderr (not pytest's recorder), so that a
    foreign warning is a line on stderr as in a subprocess. The end-to-end path (a new interpreter) is for tests that
    run ``python -m mtscore`` themselves."""
    import contextlib
    import io
    import warnings

    from mtscore.cli.main import main
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err), warnings.catch_warnings(), \
            (contextlib.chdir(cwd) if cwd else contextlib.nullcontext()):
        if interpreter_warnings:
            warnings.resetwarnings()
            warnings.simplefilter("default")
            for category in (DeprecationWarning, PendingDeprecationWarning, ImportWarning, ResourceWarning):
                warnings.simplefilter("ignore", category)
            warnings.showwarning = warnings._showwarning_orig
        try:
            rc = main([str(a) for a in argv])
        except SystemExit as exc:
            rc = exc.code
    return rc, out.getvalue(), err.getvalue()


def cli_output(*argv, cwd=None) -> str:
    """The stdout of :func:`run_cli`, which must succeed (its stderr is the failure message)."""
    rc, out, err = run_cli(*argv, cwd=cwd)
    assert rc == 0, err
    return out


@pytest.fixture
def data():
    return data_path


# Hypothesis: reproducible runs, no example database, and its other caches (constants, unicode tables) in a
# temporary folder removed at exit: the suite writes nothing into the checkout or HOME.
import atexit  # noqa: E402
import shutil  # noqa: E402
import tempfile  # noqa: E402

# Libraries and programs the tests start write caches and settings under HOME (matplotlib through compare-mt,
# Chromium's crash reports and dconf, rustup's settings): the session runs with HOME and the XDG folders in a
# temporary folder, removed at exit, so the real HOME is never touched.
_SESSION_HOME = tempfile.mkdtemp(prefix="mtscore-test-home-")
atexit.register(shutil.rmtree, _SESSION_HOME, ignore_errors=True)
for _var, _sub in (("HOME", ""), ("XDG_CONFIG_HOME", ".config"), ("XDG_CACHE_HOME", ".cache"),
                   ("XDG_DATA_HOME", ".local/share"), ("MPLCONFIGDIR", ".config/matplotlib")):
    os.environ[_var] = os.path.join(_SESSION_HOME, _sub) if _sub else _SESSION_HOME

from hypothesis import settings as _hyp_settings  # noqa: E402
from hypothesis.configuration import set_hypothesis_home_dir  # noqa: E402

_HYPOTHESIS_HOME = tempfile.mkdtemp(prefix="mtscore-hypothesis-")
atexit.register(shutil.rmtree, _HYPOTHESIS_HOME, ignore_errors=True)
set_hypothesis_home_dir(_HYPOTHESIS_HOME)
_hyp_settings.register_profile("mtscore", database=None, derandomize=True)
_hyp_settings.load_profile("mtscore")
