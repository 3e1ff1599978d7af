"""A new package may not take a name torch's or CUDA's C++ headers declare at global scope:
the package is the C++ namespace of every generated source, so the build would fail."""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest
from conftest import options_for

from kernelgen import cuda_env
from kernelgen.cpp_global_names import CPP_GLOBAL_NAMES, HEADERS
from kernelgen.options import ProjectOptions, validate_new_package_name

FINDER = Path(__file__).resolve().parent.parent / "scripts" / "find_cpp_global_names.py"


@pytest.mark.parametrize(
    ("name", "declared_by"),
    [
        ("all", "CUDA's device_atomic_functions.h"),
        ("sin", "the C library's math.h"),
        ("index", "the C library's strings.h"),
        ("half", "CUDA's cuda_fp16.h"),
        ("dim3", "CUDA's vector_types.h"),
    ],
)
def test_new_refuses_a_name_the_headers_declare(cli, tmp_path, name, declared_by):
    result = cli("new", "proj", "--no-input", "--package", name)
    assert result.exit_code == 2, f"{name} ({declared_by}): {result.output}"
    assert "global scope" in result.output and f"{name}_ops" in result.output
    assert "Traceback" not in result.output
    assert list(tmp_path.iterdir()) == []


def test_the_default_from_the_folder_is_checked_too(cli, tmp_path):
    result = cli("new", "all", "--no-input")
    assert result.exit_code == 2
    assert "global scope" in result.output and "pass --package" in result.output
    assert list(tmp_path.iterdir()) == []


# C++ reserves these at global scope, where the package's namespace lives; `_exit` is the C
# library's, which the header scan does not list.
@pytest.mark.parametrize("name", ["my__ops", "_Ops", "_private_ops", "_exit"])
def test_new_refuses_identifiers_cpp_reserves(cli, tmp_path, name):
    result = cli("new", "proj", "--no-input", "--package", name)
    assert result.exit_code == 2 and "reserved at global scope in C++" in result.output
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("name", ["myops", "sparse_ops", "ops_", "MyOps"])
def test_ordinary_names_stay_free(name):
    validate_new_package_name(name)


def test_a_project_made_before_a_name_was_listed_still_loads():
    # add-kernel and update rebuild ProjectOptions from kernelgen.toml; only `new` refuses.
    options = options_for("vector_add", package="index")
    assert isinstance(options, ProjectOptions) and options.package == "index"


def _load_finder():
    spec = importlib.util.spec_from_file_location("find_cpp_global_names", FINDER)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_list_matches_what_nvcc_finds_in_the_headers_it_was_read_from():
    """Rerun the finder where the machine has the headers the list was read from (CI does)."""
    pytest.importorskip("torch")
    cuda_home = cuda_env.locate_cuda_home().path
    if cuda_home is None or shutil.which("c++") is None:
        pytest.skip("needs nvcc and a C++ compiler")
    finder = _load_finder()
    here = finder.headers_in_use(cuda_home)
    if here != HEADERS:
        pytest.skip(f"the list was read from {HEADERS}; this machine has {here}")
    found = finder.find_global_names(cuda_home)
    assert {"all", "sin", "index", "cuda"} <= found
    assert "myops" not in found
    assert sorted(found - CPP_GLOBAL_NAMES) == [], "names missing from the list: rerun the finder"
    assert sorted(CPP_GLOBAL_NAMES - found) == [], "names no longer declared: rerun the finder"
