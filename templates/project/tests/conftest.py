"""Fixtures shared by the tests: the devices to run on, and a fresh, reported random seed."""

import os

import pytest
import torch

from devices import requires_cuda

SEED_VARIABLE = "TEST_SEED"  # TEST_SEED=1234 pytest ... reruns with the inputs of a failure
_seed_key = pytest.StashKey[int]()


@pytest.fixture(params=["cpu", pytest.param("cuda", marks=requires_cuda)])
def device(request: pytest.FixtureRequest) -> str:
    """Every test taking `device` runs on the CPU, and on CUDA where it can."""
    return request.param


@pytest.fixture(autouse=True)
def fresh_seed(request: pytest.FixtureRequest) -> int:
    """Fresh random inputs each run (or those of $TEST_SEED); a failure's report names the seed."""
    if os.environ.get(SEED_VARIABLE):
        seed = int(os.environ[SEED_VARIABLE])
        torch.manual_seed(seed)
    else:
        seed = torch.seed()
    request.node.stash[_seed_key] = seed
    return seed


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):
    outcome = yield
    report = outcome.get_result()
    if report.failed and _seed_key in item.stash:
        seed = item.stash[_seed_key]
        report.sections.append(
            ("random seed", f"inputs drawn with seed {seed}; rerun with {SEED_VARIABLE}={seed}")
        )
