"""Rendering: deterministic output, nothing unrendered, Python that parses."""

import ast
import dataclasses
import re
from pathlib import PurePosixPath as _path

import pytest
import yaml
from conftest import ALL_TEMPLATES, options_for

from kernelgen import cuda_env
from kernelgen.ci_matrix import NVCC_COMPUTE_CAPABILITIES
from kernelgen.generate import new_project, render_project
from kernelgen.manifest import MANIFEST_NAME, Manifest
from kernelgen.options import STABLE_ABI_MIN_TORCH


def all_kernels_project():
    files = render_project(options_for(*ALL_TEMPLATES)).files
    return files


def test_rendering_is_deterministic():
    assert render_project(options_for(*ALL_TEMPLATES)) == render_project(
        options_for(*ALL_TEMPLATES)
    )


def test_no_template_syntax_survives():
    for path, content in all_kernels_project().items():
        text = content.decode()
        if path.suffix == ".yml":  # GitHub Actions expressions are ${{ ... }}
            text = re.sub(r"\$\{\{[^}]*\}\}", "", text)
        assert not re.search(r"\{\{|\{%|\{#", text), f"unrendered template syntax in {path}"
        assert not re.search(r"\{\{|\}\}|\.jinja$", str(path)), f"unrendered path {path}"


def test_generated_python_parses():
    python_files = [p for p in all_kernels_project() if p.suffix == ".py"]
    assert len(python_files) > 10
    for path in python_files:
        ast.parse(all_kernels_project()[path], filename=str(path))


def test_workflow_is_valid_yaml_with_expected_jobs():
    workflow = yaml.safe_load(all_kernels_project()[_path(".github/workflows/ci.yml")])
    assert set(workflow["jobs"]) >= {"build-and-test", "abi3-wheel", "gpu-tests", "lint"}
    build = workflow["jobs"]["build-and-test"]
    cells = build["strategy"]["matrix"]["include"]
    assert len({c["torch"] for c in cells}) >= 2
    assert len({c["cuda"] for c in cells}) >= 2
    assert len({c["python"] for c in cells}) >= 2
    steps = {step.get("name", ""): step for step in build["steps"]}
    assert "USE_CUDA=1" in steps["Build (CUDA kernels for the default arch list)"]["run"]
    assert "pytest" in steps["Test (CPU; CUDA tests skip without a GPU)"]["run"]
    wheel_steps = [s.get("run", "") for s in workflow["jobs"]["abi3-wheel"]["steps"]]
    assert any("python -m build --wheel" in run for run in wheel_steps)
    assert workflow["jobs"]["gpu-tests"]["runs-on"] == ["self-hosted", "gpu"]
    lint = [s.get("run", "") for s in workflow["jobs"]["lint"]["steps"]]
    assert any("pre-commit run --all-files" in run for run in lint)


def test_a_stable_abi_workflow_tests_only_torch_versions_it_supports():
    options = dataclasses.replace(options_for("vector_add"), abi="stable")
    files = render_project(options).files
    workflow = yaml.safe_load(files[_path(".github/workflows/ci.yml")])
    cells = workflow["jobs"]["build-and-test"]["strategy"]["matrix"]["include"]
    minimum = tuple(int(part) for part in STABLE_ABI_MIN_TORCH.split("."))
    assert all(tuple(map(int, c["torch"].split(".")[:2])) >= minimum for c in cells), cells


def _workflow(options):
    return yaml.safe_load(render_project(options).files[_path(".github/workflows/ci.yml")])


@pytest.mark.parametrize(
    ("abi", "arch_list", "matrix_toolkits", "wheel_toolkit"),
    [
        ("standard", ("9.0",), {"12.6", "12.8", "13.0"}, "13.0.0"),
        ("standard", ("7.0", "8.0"), {"12.6", "12.8"}, "12.8.0"),  # CUDA 13 has no 7.0
        ("stable", ("10.0", "12.0"), {"12.8", "13.0"}, "13.0.0"),  # Blackwell: 12.8 and newer
        ("standard", ("11.0",), {"13.0"}, "13.0.0"),
    ],
)
def test_workflow_builds_only_with_toolkits_that_compile_the_arch_list(
    abi, arch_list, matrix_toolkits, wheel_toolkit
):
    options = dataclasses.replace(options_for("vector_add"), abi=abi, arch_list=arch_list)
    workflow = _workflow(options)
    cells = workflow["jobs"]["build-and-test"]["strategy"]["matrix"]["include"]
    assert {c["cuda"] for c in cells} == matrix_toolkits
    assert all(c["torch-index"] == "cu" + c["cuda"].replace(".", "") for c in cells)
    wheel_steps = workflow["jobs"]["abi3-wheel"]["steps"]
    toolkit_step = next(s for s in wheel_steps if "cuda-toolkit" in s.get("uses", ""))
    assert toolkit_step["with"]["cuda"] == wheel_toolkit


def test_an_arch_list_no_toolkit_spans_keeps_the_matrix_and_says_so(tmp_path):
    options = dataclasses.replace(options_for("vector_add"), arch_list=("7.0", "11.0"))
    cells = _workflow(options)["jobs"]["build-and-test"]["strategy"]["matrix"]["include"]
    assert len(cells) == 3
    result = new_project(options, tmp_path / "proj")
    assert any("edit the matrix in .github/workflows/ci.yml" in note for note in result.notes)


def test_the_toolkit_table_matches_this_nvcc():
    cuda_home = cuda_env.locate_cuda_home().path
    version = cuda_env.nvcc_version(cuda_home) if cuda_home else None
    if version is None:
        pytest.skip("needs nvcc")
    cuda = f"{version[0]}.{version[1]}"
    if cuda not in NVCC_COMPUTE_CAPABILITIES:
        pytest.skip(f"CUDA {cuda} is not in the CI matrix")
    assert cuda_env.nvcc_compute_capabilities(cuda_home) == NVCC_COMPUTE_CAPABILITIES[cuda]


def test_manifest_round_trips():
    options = options_for("vector_add", "activation")
    files = render_project(options).tree()
    manifest = Manifest.from_toml(files[_path(MANIFEST_NAME)].decode(), _path(MANIFEST_NAME))
    assert manifest.options == options
    assert set(manifest.owned) == {"myops/__init__.py"}


def test_package_name_flows_into_every_layer():
    files = render_project(options_for("vector_add", package="fastops")).files
    assert b"TORCH_LIBRARY(fastops, m)" in files[_path("fastops/csrc/module.cpp")]
    assert b"namespace fastops {" in files[_path("fastops/csrc/cuda/vector_add.cu")]
    ops_module = files[_path("fastops/ops/vector_add.py")]
    assert b"_ops = torch.ops.fastops\n" in ops_module
    assert b"return _ops.vector_add.default(a, b)" in ops_module


@pytest.mark.parametrize("template", ALL_TEMPLATES)
def test_each_template_renders_its_own_files(template):
    (kernel_files,) = render_project(options_for(template)).per_kernel.values()
    assert any(p.suffix == ".cu" for p in kernel_files)
    assert any(p.name.startswith("test_") for p in kernel_files)
    assert any(p.name.startswith("bench_") for p in kernel_files)


def test_readme_says_how_to_make_your_own_activation():
    files = render_project(options_for("vector_add", "activation")).files
    readme = files[_path("README.md")].decode()
    assert "reference_silu" in readme and "myops/csrc/silu_math.h" in readme
    files = render_project(options_for("vector_add")).files
    assert "your own activation" not in files[_path("README.md")].decode()


@pytest.mark.parametrize(
    ("name", "math", "baseline"),
    [
        ("silu", "std::exp(-x)", "torch.nn.functional.silu(x)"),
        ("gelu", "std::erf(", "torch.nn.functional.gelu(x)"),
        ("gelu_tanh", "std::tanh(u)", 'torch.nn.functional.gelu(x, approximate="tanh")'),
        ("relu", "x > T(0) ? x : T(0)", "torch.relu(x)"),
    ],
)
def test_activation_name_picks_its_math_reference_and_baseline(name, math, baseline):
    from kernelgen.options import KernelChoice, ProjectOptions

    options = ProjectOptions(
        package="acts", namespace="acts", kernels=(KernelChoice("activation", name),)
    )
    files = render_project(options).files
    header = files[_path(f"acts/csrc/{name}_math.h")].decode()
    assert math in header.split("End of the activation")[0]
    assert baseline in files[_path(f"benchmarks/bench_{name}.py")].decode()
    test_source = files[_path(f"tests/test_{name}.py")].decode()
    reference = ast.parse(test_source)
    assert any(
        isinstance(node, ast.FunctionDef) and node.name == f"reference_{name}"
        for node in reference.body
    )


def test_an_unknown_activation_name_starts_as_silu_and_says_where_to_edit(cli, tmp_path):
    result = cli("new", "acts", "--no-input", "--kernel", "activation=swishy")
    assert result.exit_code == 0, result.output
    assert (
        "Note: swishy computes SiLU (swish) (swishy is not one of silu, gelu, gelu_tanh, relu)"
        in result.output
    )
    assert (
        "acts/csrc/swishy_math.h" in result.output
        and "reference_swishy in tests/test_swishy.py" in result.output
    )
    docs = (tmp_path / "acts" / "docs" / "swishy.md").read_text()
    assert "is not one of the activations kernelgen knows by name" in docs
    known = cli("new", "acts2", "--no-input", "--kernel", "activation=gelu")
    assert "Note:" not in known.output
    assert "knows by name" not in (tmp_path / "acts2" / "docs" / "gelu.md").read_text()
