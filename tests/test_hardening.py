"""What a hostile tester tries: odd names, damaged manifests, links and special files,
two commands at once. Each gets a one-line refusal or works; nothing is lost, no traceback."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import options_for
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kernelgen import add_kernel, journal, new_project
from kernelgen.cli import main
from kernelgen.errors import KernelgenError


def one_line_refusal(result, code: int = 2) -> str:
    assert result.exit_code == code, result.output
    assert "Traceback" not in result.output
    return result.output


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--package", "cuda_env"], "would shadow"),
        (["--package", "setup"], "would shadow"),
        (["--package", "build"], "leaves out of version control"),
        (["--package", "dist"], "leaves out of version control"),
        (["--package", "Tests"], "would shadow"),
        (["--package", "requires_cuda"], "would hide the package"),  # a name in tests/devices.py
        (["-k", "activation=x"], "would hide the op"),  # the tests' input tensor
        (["-k", "vector_add=dtype"], "would hide the op"),  # a test parameter
        (["-k", "vector_add=NULL"], "standard macro"),
        (["-k", "vector_add=EOF"], "standard macro"),
        (["-k", "vector_add=foo", "-k", "vector_add=Foo"], "differ only in case"),
        (["-k", "vector_add=Module"], "differ only in case"),
        (["-k", "vector_add=" + "k" * 41], "is 41 characters long; the most is 40"),
        (["--arch", "\uff19.0"], "is not a compute capability"),
    ],
)
def test_names_that_would_break_the_project_are_refused(cli, tmp_path, args, says):
    result = cli("new", "proj", "--no-input", *args)
    assert says in one_line_refusal(result)
    assert not (tmp_path / "proj").exists()


identifiers = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,40}", fullmatch=True)


@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(package=identifiers, kernel=identifiers, template=st.sampled_from(["vector_add", "sparse"]))
def test_any_name_is_either_a_project_or_a_one_line_refusal(tmp_path, package, kernel, template):
    result = CliRunner().invoke(
        main,
        [
            "new",
            str(tmp_path / "p"),
            "--no-input",
            "--dry-run",
            "--package",
            package,
            "-k",
            f"{template}={kernel}",
        ],
    )
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert result.exit_code in (0, 2), result.output
    if result.exit_code == 2:
        errors = [line for line in result.output.splitlines() if line.startswith("Error: ")]
        assert len(errors) == 1, result.output  # click's usage lines, then the one error


@pytest.fixture
def project(tmp_path) -> Path:
    root = tmp_path / "proj"
    new_project(options_for("vector_add"), root)
    return root


@pytest.mark.parametrize(
    ("damage", "says"),
    [
        (lambda text: text.split("[owned]")[0], "[owned] is missing"),
        (lambda text: text.split("[owned]")[0] + "[owned]\n", "[owned] is empty"),
        (
            lambda text: 'owned = "x"\n' + text.replace("[owned]", "[unowned]"),
            "[owned] is not a table",
        ),
        (
            lambda text: text.replace('package = "myops"', "package = 3"),
            "package in [project] is not a string",
        ),
        (lambda text: text.replace("[kernelgen]", ""), "[kernelgen] is missing"),
        (lambda text: text.replace("[project]", "[project"), "is not valid TOML"),
    ],
)
def test_a_damaged_manifest_is_an_error_and_nothing_is_written(cli, project, damage, says):
    manifest = project / "kernelgen.toml"
    manifest.write_text(damage(manifest.read_text()))
    init = project / "myops" / "__init__.py"
    init.write_text(init.read_text() + "# my edit\n")
    result = cli("add-kernel", "activation", "--project", str(project))
    assert says in one_line_refusal(result, 1)
    assert init.read_text().endswith("# my edit\n")
    assert not (project / "myops" / "csrc" / "silu.cpp").exists()


def test_a_manifest_that_is_not_utf8(cli, project):
    manifest = project / "kernelgen.toml"
    manifest.write_bytes(manifest.read_bytes().replace(b"myops", b"my\xffops", 1))
    assert "is not UTF-8" in one_line_refusal(
        cli("add-kernel", "sparse", "--project", str(project)), 1
    )
    result = cli("doctor", "--project", str(project))
    assert "Traceback" not in result.output and "is not UTF-8" in result.output


def test_a_folder_linked_out_of_the_project_is_not_written_through(cli, project, tmp_path):
    outside = tmp_path / "elsewhere"
    (project / "tests").rename(outside)
    (project / "tests").symlink_to(outside)
    result = cli("add-kernel", "activation", "--project", str(project))
    assert "is a link out of the project" in one_line_refusal(result, 1)
    assert not (outside / "test_silu.py").exists()


def test_a_fifo_where_kernelgen_reads_is_refused_not_waited_on(cli, project):
    manifest = project / "kernelgen.toml"
    manifest.unlink()
    os.mkfifo(manifest)
    result = cli("add-kernel", "activation", "--project", str(project))
    assert "not a regular file" in one_line_refusal(result, 1)


def test_a_link_to_a_device_at_an_owned_file_is_refused(cli, project):
    init = project / "myops" / "__init__.py"
    init.unlink()
    init.symlink_to("/dev/zero")
    result = cli("add-kernel", "activation", "--project", str(project))
    assert "symbolic link" in one_line_refusal(result, 1)
    assert init.is_symlink()


def test_an_interrupted_change_is_rolled_back_by_the_next_command_and_said(cli, project):
    pid = os.fork()
    if pid == 0:  # killed in the middle of the renames, after the journal is written
        real_replace = os.replace
        calls = {"n": 0}

        def replace_then_die(src, dst):
            calls["n"] += 1
            if calls["n"] == 3:
                os._exit(9)
            real_replace(src, dst)

        journal.os.replace = replace_then_die  # type: ignore[attr-defined]
        try:
            add_kernel(project, "activation")
        finally:
            os._exit(0)
    os.waitpid(pid, 0)
    assert journal.pending(project)
    result = cli("add-kernel", "sparse", "--project", str(project))
    assert result.exit_code == 0, result.output
    assert "rolled back an interrupted change" in result.output
    assert not (project / "myops" / "csrc" / "silu.cpp").exists()
    assert (project / "myops" / "csrc" / "csr.cpp").exists()


def test_two_add_kernels_at_once_both_land(tmp_path):
    for trial in range(3):
        root = tmp_path / f"proj{trial}"
        new_project(options_for("vector_add"), root)
        runs = [
            subprocess.Popen(
                [sys.executable, "-m", "kernelgen", "add-kernel", template, "--project", str(root)],
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
            )
            for template in ("activation", "sparse")
        ]
        outputs = [run.communicate(timeout=120)[0] for run in runs]
        assert [run.returncode for run in runs] == [0, 0], outputs
        manifest = (root / "kernelgen.toml").read_text()
        assert 'name = "silu"' in manifest and 'name = "csr"' in manifest
        init = (root / "myops" / "__init__.py").read_text()
        assert "silu" in init and "csr_spmv" in init


def test_a_held_lock_makes_the_second_command_refuse_with_one_line(cli, project, monkeypatch):
    from kernelgen import project_lock

    monkeypatch.setattr(project_lock, "WAIT_S", 0.2)
    with project_lock.locked(project):
        pid = os.fork()
        if pid == 0:
            try:
                with project_lock.locked(project, wait_s=0.2):
                    os._exit(0)
            except KernelgenError as exc:
                os._exit(3 if "another kernelgen command" in exc.message else 4)
        _, status = os.waitpid(pid, 0)
    assert os.WEXITSTATUS(status) == 3


def test_the_longest_accepted_names_work(cli, tmp_path):
    name = "k" * 40
    result = cli("new", "proj", "--no-input", "--package", "p" * 40, "-k", f"vector_add={name}")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "proj" / "benchmarks" / f"bench_{name}.py").is_file()


def test_a_destination_too_deep_for_the_filesystem_is_refused(cli, tmp_path):
    deep = tmp_path.joinpath(*["d" * 250] * 16)  # over 4000 bytes before any generated name
    result = cli("new", str(deep), "--no-input", "--package", "proj")
    assert "would be longer than 4000 bytes" in one_line_refusal(result)
    assert not (tmp_path / ("d" * 250)).exists()


def test_a_file_differing_only_in_case_on_disk_is_not_clobbered(cli, project):
    twin = project / "myops" / "csrc" / "Silu.cpp"
    twin.write_text("the user's file\n")
    result = cli("add-kernel", "activation", "--project", str(project))
    assert "the same file on case-insensitive disks" in one_line_refusal(result, 1)
    assert twin.read_text() == "the user's file\n"


def test_doctor_survives_build_locks_vanishing_during_its_scan(tmp_path, monkeypatch):
    from kernelgen import doctor

    locks = tmp_path / "ext"
    (locks / "a").mkdir(parents=True)
    (locks / "a" / "lock").write_text("")
    real_stat = Path.stat

    def vanishing(self, *args, **kwargs):
        if self.name == "lock":
            raise FileNotFoundError(2, "No such file or directory")
        return real_stat(self, *args, **kwargs)

    monkeypatch.setattr(Path, "stat", vanishing)
    machine = doctor.Machine(env={"TORCH_EXTENSIONS_DIR": str(locks)}, torch=None)
    assert doctor._stale_locks(machine) == []
