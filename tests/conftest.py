"""Shared test configuration.

Hypothesis profiles: "dev" keeps local runs quick, "ci" (chosen when the CI variable is set, as
.ci/run does) searches harder. HYPOTHESIS_PROFILE picks one explicitly. Deadlines are off in both
because timing on shared CI machines varies too much to be a useful failure signal.
"""

import os

from hypothesis import settings

settings.register_profile("dev", max_examples=50, deadline=None)
settings.register_profile("ci", max_examples=300, deadline=None, print_blob=True)
default_profile = "ci" if os.environ.get("CI") else "dev"
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or default_profile)
