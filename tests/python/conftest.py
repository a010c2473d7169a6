"""Shared fixtures of the Python package's tests.

The package under test is whichever `import inetcsum` finds: the build tree's (ctest sets
PYTHONPATH=<build>/python) or an installed wheel (scripts/test-all.sh).  Environment:
INETCSUM_SHARED_DIR  the team's shared/ folder (vectors, captures); default ../shared beside the repo
INETCSUM_CLI         the inetcsum command, to compare the binding with it on every capture (optional)
INETCSUM_TEST_QUICK  fewer hypothesis examples and kernel GRO trains (sanitizer builds)
"""

import os
import pathlib

import pytest
from hypothesis import HealthCheck, settings

import inetcsum

REPO = pathlib.Path(__file__).resolve().parents[2]
SHARED = pathlib.Path(os.environ.get("INETCSUM_SHARED_DIR", REPO.parent / "shared"))

# Derandomized: a failure reproduces on the next run; the database is off so runs do not depend
# on each other.  The quick profile is for the sanitizer build, where every call is slower.
settings.register_profile(
    "default", max_examples=300, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "quick", max_examples=60, derandomize=True, database=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile("quick" if os.environ.get("INETCSUM_TEST_QUICK") else "default")


def pytest_report_header(config):
    return (
        f"inetcsum {inetcsum.__version__} from {pathlib.Path(inetcsum.__file__).parent}, "
        f"kernels {inetcsum.impls()} (using {inetcsum.impl_name()}), crc32c {inetcsum.crc32c_impl_name()}"
    )


@pytest.fixture
def shared():
    if not SHARED.is_dir():
        pytest.skip(f"needs the shared folder: {SHARED} is missing (the team's shared/ folder is not beside this "
                    "checkout; INETCSUM_SHARED_DIR names another)")
    return SHARED


@pytest.fixture(params=inetcsum.impls())
def each_impl(request):
    """Runs a test once per kernel this CPU can run, then restores the best one."""
    inetcsum.set_impl(request.param)
    yield request.param
    inetcsum.set_impl(None)
