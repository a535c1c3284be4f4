"""Shared test settings: hypothesis without deadlines (2 shared cores make timings noisy)."""
import os

import pytest

from hypothesis import HealthCheck, settings

settings.register_profile("lab", deadline=None, max_examples=60,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "lab"))


@pytest.fixture
def english():
    """Run a test with the UI language set to English, and restore the language afterwards."""
    from attention_core import i18n
    before = i18n.get_language()
    i18n.set_language("en")
    yield
    i18n.set_language(before)
