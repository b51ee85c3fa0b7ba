"""Run sacreBLEU 2.6's own tests (the files beside this one, unchanged) against mtscore's shim, offline.

The only addition: a test that needs a test set sacreBLEU would download (mtscore never downloads; the cache
is an empty temporary folder) is reported as skipped with the file it would need, instead of failing with
mtscore's ``TestSetNotDownloaded``. Run by tests/test_sacrebleu_shim.py with the shim's ``src`` first on
``PYTHONPATH`` and ``SACREBLEU`` pointing at an empty folder (test_dataset.py deletes cache folders).
"""
import pytest


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem):
    from mtscore.sacrebleu.dataset import TestSetNotDownloaded
    args = {a: pyfuncitem.funcargs[a] for a in pyfuncitem._fixtureinfo.argnames}
    try:
        pyfuncitem.obj(**args)
    except TestSetNotDownloaded as exc:
        pytest.skip(f"needs a download: {exc.path}")
    return True
