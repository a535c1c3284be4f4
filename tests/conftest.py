"""Shared test settings: Agg backend, English UI and no open figures per test, a per-language fixture,
and hypothesis without deadlines (2 shared cores make timings noisy). Shared helper functions (a
widget's PNG bytes, its red message, plain words) are in tests/testkit.py, on the path through this
folder."""
import os

import matplotlib
import pytest

matplotlib.use("Agg")   # tests draw off-screen, whatever the environment says

from hypothesis import HealthCheck, settings

# "lab" (the default, make test and CI): the same examples on every run, so a green suite stays green;
# HYPOTHESIS_PROFILE=explore draws new examples each run, to look for new failures.
settings.register_profile("lab", deadline=None, max_examples=60, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("explore", deadline=None, max_examples=300,
                          suppress_health_check=[HealthCheck.too_slow])
# "quick" (make quick): the same fixed examples, fewer of them, for the one-minute loop.
settings.register_profile("quick", deadline=None, max_examples=15, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "lab"))


@pytest.fixture
def english():
    """Run a test with the UI language set to English, and restore the language afterwards."""
    from attention_core.teaching import i18n
    before = i18n.get_language()
    i18n.set_language("en")
    yield
    i18n.set_language(before)


@pytest.fixture(autouse=True)
def _fresh_ui_state():
    """Every test starts in English and leaves no open figure behind."""
    import matplotlib.pyplot as plt

    from attention_core.teaching import i18n
    i18n.set_language("en")
    yield
    i18n.set_language("en")
    plt.close("all")


@pytest.fixture(params=["en", "zh"])
def lang(request):
    """Run a test once per language; the UI language is set for its duration."""
    from attention_core.teaching import i18n
    i18n.set_language(request.param)
    return request.param
