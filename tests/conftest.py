import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(os.environ.get("MTSCORE_TEST_DATA", ROOT.parent / "shared" / "data"))


def data_path(*parts) -> Path:
    """Path under ../shared/data; skips the calling test with a reason when it is absent."""
    p = DATA.joinpath(*parts)
    if not p.exists():
        pytest.skip(f"real data not available: {p} (tests read ../shared/data beside the project)")
    return p


@pytest.fixture
def data():
    return data_path
