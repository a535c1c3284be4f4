"""Shared test settings: hypothesis without deadlines (2 shared cores make timings noisy)."""
import os

from hypothesis import HealthCheck, settings

settings.register_profile("lab", deadline=None, max_examples=60,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "lab"))
