"""The CLI as a user meets it: through Click's CliRunner, in a temporary folder."""

from pathlib import Path

import pytest

from kernelgen import __version__
from kernelgen.catalog import tomllib


def test_version(cli):
    result = cli("--version")
    assert result.exit_code == 0 and __version__ in result.output


@pytest.mark.parametrize("command", [[], ["new"], ["add-kernel"], ["list"]])
def test_every_command_has_help_with_an_example(cli, command):
    result = cli(*command, "--help")
    assert result.exit_code == 0
    assert "Example" in result.output


def test_list_shows_templates_with_dtypes(cli):
    result = cli("list")
    assert result.exit_code == 0
    for template in ("vector_add", "activation", "sparse", "wmma"):
        assert template in result.output
    assert "dtypes: float32" in result.output


def test_new_with_defaults(cli, tmp_path):
    result = cli("new", "my-ops", "--no-input")
    assert result.exit_code == 0, result.output
    project = tmp_path / "my-ops"
    assert (project / "my_ops" / "csrc" / "cuda" / "vector_add.cu").is_file()
    manifest = tomllib.loads((project / "kernelgen.toml").read_text())
    assert manifest["project"]["package"] == "my_ops"
    assert manifest["kernels"] == [
        {"template": "vector_add", "name": "vector_add", "ops": ["vector_add"]}
    ]
    # The next steps compile once, and say what the generated README says.
    readme = (project / "README.md").read_text()
    install = 'pip install --no-build-isolation -e ".[test]"'
    assert (
        result.output.count("pip install") == 1 and install in result.output and install in readme
    )
    for command in ("python -m benchmarks", "python setup.py build_ext --inplace"):
        assert command in result.output and command in readme


def test_add_kernel_next_steps_rebuild_and_benchmark_the_new_kernel(cli, tmp_path):
    assert cli("new", "proj", "--no-input").exit_code == 0
    result = cli("add-kernel", "activation", "--name", "gelu2", "--project", str(tmp_path / "proj"))
    assert result.exit_code == 0, result.output
    assert "python setup.py build_ext --inplace" in result.output
    assert "python -m benchmarks --only gelu2" in result.output
    assert "pip install" not in result.output


def test_new_with_renamed_kernels_and_namespace(cli, tmp_path):
    result = cli(
        "new",
        "proj",
        "--name",
        "fastops",
        "--namespace",
        "fast",
        "--kernel",
        "vector_add",
        "--kernel",
        "activation=my_gelu",
        "--arch",
        "8.0",
        "--arch",
        "9.0",
    )
    assert result.exit_code == 0, result.output
    init = (tmp_path / "proj" / "fastops" / "__init__.py").read_text()
    assert "from .ops.my_gelu import (\n    my_gelu,\n    my_gelu_backward,\n)" in init
    setup = (tmp_path / "proj" / "setup.py").read_text()
    assert 'DEFAULT_CUDA_ARCH_LIST = "8.0;9.0"' in setup


def test_new_prompts_on_a_terminal(cli, tmp_path, monkeypatch):
    monkeypatch.setattr("kernelgen.cli._interactive", lambda no_input: not no_input)
    result = cli("new", "proj", input="pkg\nns\nvector_add,activation\n9.0\n")
    assert result.exit_code == 0, result.output
    assert "Python package name [proj]" in result.output
    assert (tmp_path / "proj" / "pkg" / "ops" / "silu.py").is_file()


def test_dry_run_writes_nothing(cli, tmp_path):
    result = cli("new", "proj", "--no-input", "--dry-run")
    assert result.exit_code == 0
    assert "Would write" in result.output and "vector_add.cu" in result.output
    assert not (tmp_path / "proj").exists()


def test_listing_shows_the_pristine_copies_as_one_line(cli, tmp_path):
    result = cli("new", "proj", "--no-input")
    assert result.exit_code == 0
    written = [p for p in (tmp_path / "proj").rglob("*") if p.is_file()]
    pristine = [p for p in written if ".kernelgen" in p.parts]
    assert f"Created {len(written) - len(pristine)} files in" in result.output
    assert f".kernelgen/generated/  ({len(pristine)} files: copies as generated" in result.output
    assert result.output.count("vector_add.cu") == 1


@pytest.mark.parametrize(
    "args",
    [
        ["new", "2fast", "--no-input"],
        ["new", "proj", "--package", "class"],
        ["new", "proj", "--package", "torch"],
        ["new", "proj", "--namespace", "aten"],
        ["new", "proj", "--kernel", "vector_add=__init__"],
        ["new", "proj", "--kernel", "vector_add=../evil"],
        ["new", "proj", "--kernel", "vector_add", "--kernel", "vector_add"],
        ["new", "proj", "--kernel", "activation=vector_add", "--kernel", "vector_add"],
        ["new", "proj", "--kernel", "activation=x", "--kernel", "vector_add=x_backward"],
        ["new", "proj", "--kernel", "vector_add=module"],
        ["new", "proj", "--kernel", "conv2d"],
        ["new", "proj", "--arch", "sm90"],
    ],
)
def test_bad_input_is_a_one_line_usage_error(cli, tmp_path, args):
    result = cli(*args)
    assert result.exit_code == 2, result.output
    assert "Traceback" not in result.output
    error_lines = [line for line in result.output.splitlines() if line.startswith("Error:")]
    assert len(error_lines) == 1
    assert list(tmp_path.iterdir()) == []


def test_bad_directory_name_suggests_the_package_option(cli):
    result = cli("new", "2fast", "--no-input")
    assert "--package" in result.output


def test_new_refuses_a_non_empty_folder(cli, tmp_path):
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "notes.txt").write_text("mine")
    result = cli("new", "proj", "--no-input")
    assert result.exit_code == 2 and "not empty" in result.output
    assert sorted(p.name for p in (tmp_path / "proj").iterdir()) == ["notes.txt"]


def test_new_with_force_keeps_unrelated_files(cli, tmp_path):
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "notes.txt").write_text("mine")
    result = cli("new", "proj", "--no-input", "--force")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "proj" / "notes.txt").read_text() == "mine"
    assert (tmp_path / "proj" / "setup.py").is_file()


def test_new_into_an_empty_existing_folder(cli, tmp_path):
    (tmp_path / "proj").mkdir()
    assert cli("new", "proj", "--no-input").exit_code == 0


def test_generation_is_byte_identical_for_the_same_answers(cli, tmp_path):
    for folder in ("a", "b"):
        assert (
            cli(
                "new", folder, "--package", "ops1", "-k", "vector_add", "-k", "activation"
            ).exit_code
            == 0
        )
    files_a = sorted(
        p.relative_to(tmp_path / "a") for p in (tmp_path / "a").rglob("*") if p.is_file()
    )
    files_b = sorted(
        p.relative_to(tmp_path / "b") for p in (tmp_path / "b").rglob("*") if p.is_file()
    )
    assert files_a == files_b
    for relative in files_a:
        assert (tmp_path / "a" / relative).read_bytes() == (tmp_path / "b" / relative).read_bytes()


def _new_project(cli, tmp_path) -> Path:
    assert cli("new", "proj", "--no-input").exit_code == 0
    return tmp_path / "proj"


def test_add_kernel_adds_files_and_updates_manifest(cli, tmp_path):
    project = _new_project(cli, tmp_path)
    result = cli("add-kernel", "activation", "--name", "my_gelu", "--project", str(project))
    assert result.exit_code == 0, result.output
    assert (project / "proj" / "csrc" / "cuda" / "my_gelu.cu").is_file()
    assert (project / "tests" / "test_my_gelu.py").is_file()
    assert (
        "    my_gelu,\n    my_gelu_backward,\n)" in (project / "proj" / "__init__.py").read_text()
    )
    manifest = tomllib.loads((project / "kernelgen.toml").read_text())
    assert [k["name"] for k in manifest["kernels"]] == ["vector_add", "my_gelu"]


def test_add_kernel_from_inside_the_project(cli, tmp_path, monkeypatch):
    project = _new_project(cli, tmp_path)
    monkeypatch.chdir(project / "tests")
    assert cli("add-kernel", "wmma").exit_code == 0
    assert (project / "proj" / "ops" / "wmma_gemm.py").is_file()


def test_add_kernel_dry_run_writes_nothing(cli, tmp_path):
    project = _new_project(cli, tmp_path)
    before = {p: p.read_bytes() for p in project.rglob("*") if p.is_file()}
    result = cli("add-kernel", "sparse", "--project", str(project), "--dry-run")
    assert result.exit_code == 0 and "Would write" in result.output and "csr.cu" in result.output
    assert {p: p.read_bytes() for p in project.rglob("*") if p.is_file()} == before


def test_add_kernel_refuses_a_taken_name(cli, tmp_path):
    project = _new_project(cli, tmp_path)
    result = cli("add-kernel", "vector_add", "--project", str(project))
    assert result.exit_code == 2 and "already defined" in result.output


def test_add_kernel_refuses_a_hand_edited_init(cli, tmp_path):
    project = _new_project(cli, tmp_path)
    init = project / "proj" / "__init__.py"
    init.write_text(init.read_text() + "\nMY_CONSTANT = 1\n")
    result = cli("add-kernel", "activation", "--project", str(project))
    assert result.exit_code == 1 and "edited by hand" in result.output
    assert "MY_CONSTANT" in init.read_text()
    assert not (project / "proj" / "ops" / "silu.py").exists()


def test_add_kernel_never_overwrites_a_users_file(cli, tmp_path):
    project = _new_project(cli, tmp_path)
    mine = project / "tests" / "test_silu.py"
    mine.write_text("# my own test\n")
    result = cli("add-kernel", "activation", "--project", str(project))
    assert result.exit_code == 1 and "tests/test_silu.py" in result.output
    assert mine.read_text() == "# my own test\n"
    assert not (project / "proj" / "ops" / "silu.py").exists()


def test_add_kernel_outside_a_project(cli, tmp_path):
    result = cli("add-kernel", "activation")
    assert result.exit_code == 1 and "not inside a kernelgen project" in result.output


def test_add_kernel_unknown_template(cli, tmp_path):
    project = _new_project(cli, tmp_path)
    result = cli("add-kernel", "conv2d", "--project", str(project))
    assert result.exit_code == 2 and "choose from" in result.output


def test_disk_errors_are_a_one_line_error(cli, tmp_path, monkeypatch):
    def refuse(target, content, mode):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr("kernelgen.writer._write_file", refuse)
    result = cli("new", "proj", "--no-input")
    assert result.exit_code == 1
    assert (
        "Permission denied; nothing was written" in result.output
        and "Traceback" not in result.output
    )
    assert list(tmp_path.iterdir()) == []


def test_arch_older_than_a_kernel_needs_is_refused_before_writing(cli, tmp_path):
    result = cli("new", "tc", "--no-input", "--kernel", "wmma", "--arch", "5.0")
    assert result.exit_code == 2
    assert (
        "the wmma kernel needs compute capability 7.0 or newer, but the arch list includes 5.0"
        in result.output
        and "(check --arch)" in result.output
    )
    assert not (tmp_path / "tc").exists()


def test_each_prompt_validates_its_own_answer_and_asks_again(cli, monkeypatch):
    monkeypatch.setattr("kernelgen.cli._interactive", lambda no_input: not no_input)
    answers = [
        "bad-name",
        "good",
        "for",
        "ns",
        "vector_add=,activation=gelu",
        "activation=gelu",
        "foo",
        "9.0",
    ]
    result = cli("new", "p", "--dry-run", input="\n".join(answers) + "\n")
    assert result.exit_code == 0, result.output
    errors = [line for line in result.output.splitlines() if line.startswith("Error: ")]
    assert [e.split(":")[1].strip() for e in errors] == [
        "Python package name",
        "torch.ops namespace",
        "Kernels (activation, sparse, vector_add, wmma; TEMPLATE[=NAME], comma-separated)",
        "CUDA archs to build for when no GPU is visible",
    ]
    assert not any("--" in e for e in errors)  # the prompt is named, not a flag
    assert "Kernel gelu: ops gelu, gelu_backward" in result.output


@pytest.mark.parametrize(
    "args",
    [
        ["x", "-k", "vector_add="],
        ["x", "--package", ""],
        ["x", "--namespace", ""],
        [""],
        ["x", "--arch", ""],
    ],
    ids=["empty kernel name", "empty package", "empty namespace", "empty directory", "empty arch"],
)
def test_empty_values_are_refused_not_defaulted(cli, tmp_path, args):
    result = cli("new", *args, "--no-input")
    assert result.exit_code == 2, result.output
    assert "Error:" in result.output
    assert list(tmp_path.iterdir()) == []


def test_list_and_dry_run_show_default_kernel_and_op_names(cli):
    listing = cli("list").output
    assert "default name: silu (ops: silu, silu_backward)" in listing
    assert "named variants: silu, gelu, gelu_tanh, relu" in listing
    dry = cli("new", "sparse_ops", "--no-input", "--dry-run", "-k", "sparse").output
    assert "Kernel csr: ops csr_spmv, csr_spmm" in dry


def test_add_kernel_duplicate_name_error_fits_add_kernel(cli, tmp_path):
    assert cli("new", "proj", "--no-input").exit_code == 0
    result = cli("add-kernel", "vector_add", "--project", str(tmp_path / "proj"))
    assert result.exit_code == 2
    assert "already defined" in result.output and "--kernel" not in result.output


def test_the_old_spelling_of_package_still_works(cli, tmp_path):
    result = cli("new", "proj", "--no-input", "--name", "fastops")
    assert result.exit_code == 0 and (tmp_path / "proj" / "fastops" / "__init__.py").is_file()
    assert "now `new --package`" in result.output
