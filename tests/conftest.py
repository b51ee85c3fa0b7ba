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


# Hypothesis: reproducible runs and no example database (nothing is written into the checkout).
from hypothesis import settings as _hyp_settings  # noqa: E402

_hyp_settings.register_profile("mtscore", database=None, derandomize=True)
_hyp_settings.load_profile("mtscore")
