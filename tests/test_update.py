"""kernelgen update, and one project whatever the order of new and add-kernel.

A "newer kernelgen" is simulated by rendering from changed copies of the template folders
(tests/newer_kernelgen.py); the project lives in a git repository, as update requires.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest
from conftest import ALL_TEMPLATES, options_for, snapshot
from newer_kernelgen import (
    DROPPED_FILE,
    NEW_FILE,
    README_NEWS,
    SETUP_FIX,
    commit_all,
    git,
    newer_catalog,
)

from kernelgen import add_kernel, doctor, new_project, update_project
from kernelgen.errors import ProjectConflict
from kernelgen.manifest import PRISTINE_DIR, read_manifest
from kernelgen.merge import merge3
from kernelgen.reconcile import Action


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A vector_add project, committed to git."""
    root = tmp_path / "proj"
    new_project(options_for("vector_add"), root)
    commit_all(root, "generated")
    return root


@pytest.fixture
def newer(tmp_path: Path):
    return newer_catalog(tmp_path / "newer")


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def actions(result) -> dict[str, Action]:
    return {str(c.path): c.action for c in result.changes}


def test_update_takes_the_new_templates_and_keeps_the_users_edits(project, newer):
    setup, source = project / "setup.py", project / "myops" / "csrc" / "vector_add.cpp"
    setup.write_text(setup.read_text() + "# my own tweak\n")
    first_line = source.read_text().split("\n", 1)[0]
    edit(source, first_line, "// my own first line")
    (project / "NOTES.md").write_text("the user's notes\n")
    commit_all(project, "edits")

    result = update_project(project, catalog=newer)

    assert actions(result) == {
        "setup.py": Action.MERGE,
        "myops/csrc/vector_add.cpp": Action.CONFLICT,
        "README.md": Action.REPLACE,
        NEW_FILE: Action.CREATE,
        DROPPED_FILE: Action.DELETE,
    }
    assert SETUP_FIX in setup.read_text() and setup.read_text().endswith("# my own tweak\n")
    merged = source.read_text()
    assert merged.startswith("<<<<<<< yours\n// my own first line\n=======\n")
    assert "// vector_add: c = a + b, reworded by a newer kernelgen.\n>>>>>>> kernelgen" in merged
    assert [c.path.name for c in result.conflicts] == ["vector_add.cpp"]
    assert (project / "README.md").read_text().endswith(README_NEWS)
    assert (project / NEW_FILE).is_file() and not (project / DROPPED_FILE).exists()
    assert (project / "NOTES.md").read_text() == "the user's notes\n"
    # The pristine copies and the manifest now describe what the newer templates generate.
    pristine_setup = (project / PRISTINE_DIR / "setup.py").read_text()
    assert SETUP_FIX in pristine_setup and "my own tweak" not in pristine_setup
    assert not (project / PRISTINE_DIR / DROPPED_FILE).exists()
    generated = read_manifest(project).generated
    assert NEW_FILE in generated and DROPPED_FILE not in generated

    before = snapshot(project)
    again = update_project(project, catalog=newer, force=True)  # the conflict is uncommitted
    assert again.changes == [] and snapshot(project) == before


def test_updating_an_unchanged_project_is_a_no_op(project):
    before = snapshot(project)
    result = update_project(project)
    assert result.changes == [] and snapshot(project) == before
    assert git(project, "status", "--porcelain") == ""


def test_a_dropped_file_the_user_edited_is_kept(project, newer):
    (project / DROPPED_FILE).write_text("include my_extra_file\n")
    commit_all(project)
    result = update_project(project, catalog=newer)
    (kept,) = [c for c in result.changes if str(c.path) == DROPPED_FILE]
    assert kept.action is Action.KEEP and "edited" in kept.reason
    assert (project / DROPPED_FILE).read_text() == "include my_extra_file\n"


def test_a_generated_file_the_user_deleted_stays_deleted(project, newer):
    (project / "README.md").unlink()
    commit_all(project)
    result = update_project(project, catalog=newer)
    assert actions(result)["README.md"] is Action.KEEP
    assert not (project / "README.md").exists()


def test_a_users_file_where_the_templates_now_put_one_is_not_touched(project, newer):
    (project / NEW_FILE).write_text("my changelog\n")
    commit_all(project)
    result = update_project(project, catalog=newer)
    assert actions(result)[NEW_FILE] is Action.KEEP
    assert (project / NEW_FILE).read_text() == "my changelog\n"


def test_update_refuses_uncommitted_changes_unless_forced(project, newer):
    (project / "setup.py").write_text((project / "setup.py").read_text() + "# wip\n")
    before = snapshot(project)
    with pytest.raises(ProjectConflict, match="uncommitted changes") as refused:
        update_project(project, catalog=newer)
    assert refused.value.option == "force" and snapshot(project) == before
    assert actions(update_project(project, catalog=newer, force=True))["setup.py"] is Action.MERGE


def test_update_outside_git_is_refused_unless_forced(tmp_path, newer):
    root = tmp_path / "plain"
    new_project(options_for("vector_add"), root)
    with pytest.raises(ProjectConflict, match="not in a git work tree"):
        update_project(root, catalog=newer)
    assert actions(update_project(root, catalog=newer, force=True))["README.md"] is Action.REPLACE


def test_dry_run_prints_a_unified_diff_and_writes_nothing(cli, project, newer, monkeypatch):
    monkeypatch.setattr("kernelgen.generate.installed", lambda: newer)
    before = snapshot(project)
    result = cli("update", "--project", str(project), "--dry-run")
    assert result.exit_code == 0, result.output
    assert "--- a/setup.py\n+++ b/setup.py\n" in result.output
    assert "+" + SETUP_FIX in result.output
    assert f"--- a/{DROPPED_FILE}\n+++ /dev/null" in result.output
    assert "Dry run: nothing was written." in result.output
    assert snapshot(project) == before


def test_cli_update_exit_status(cli, project, newer, monkeypatch):
    monkeypatch.setattr("kernelgen.generate.installed", lambda: newer)
    (project / "setup.py").write_text("# mine\n")
    refused = cli("update", "--project", str(project))
    assert refused.exit_code == 1 and "(pass --force)" in refused.output
    commit_all(project)
    source = project / "myops" / "csrc" / "vector_add.cpp"
    edit(source, source.read_text().split("\n", 1)[0], "// mine")
    commit_all(project)
    result = cli("update", "--project", str(project))
    assert result.exit_code == 3, result.output
    assert "CONFLICT" in result.output and "myops/csrc/vector_add.cpp" in result.output
    up_to_date = cli("update", "--project", str(project), "--force")
    assert up_to_date.exit_code == 0 and "up to date" in up_to_date.output


def test_doctor_says_when_update_would_bring_the_project_up(project, monkeypatch):
    manifest = project / "kernelgen.toml"
    edit(manifest, 'version = "', 'version = "0.0.1+')
    monkeypatch.setattr(doctor, "__version__", "0.0.9")
    (check,) = doctor.check_kernelgen_version(read_manifest(project).kernelgen_version)
    assert check.status is doctor.Status.WARNING and "kernelgen update" in check.message
    assert doctor.check_kernelgen_version("0.0.9")[0].status is doctor.Status.OK


@pytest.mark.parametrize(("first", "second"), list(itertools.permutations(ALL_TEMPLATES, 2)))
def test_one_project_whatever_the_order_of_commands(tmp_path, first, second):
    at_once, step_by_step = tmp_path / "at_once", tmp_path / "step_by_step"
    new_project(options_for(first, second), at_once)
    new_project(options_for(first), step_by_step)
    add_kernel(step_by_step, second)
    assert snapshot(step_by_step) == snapshot(at_once)


def test_add_kernel_merges_the_new_kernel_into_an_edited_readme(project):
    readme = project / "README.md"
    readme.write_text(readme.read_text() + "\nMy own notes.\n")
    result = add_kernel(project, "activation")
    assert [(str(c.path), c.action) for c in result.merged] == [("README.md", Action.MERGE)]
    text = readme.read_text()
    assert text.endswith("\nMy own notes.\n") and "`silu`, `silu_backward`" in text


@pytest.mark.parametrize(
    ("base", "yours", "new", "merged", "conflicts"),
    [
        ("a\nb\nc\n", "A\nb\nc\n", "a\nb\nC\n", "A\nb\nC\n", 0),  # both sides, apart
        ("a\nb\n", "a\nb\n", "a\nb\nc\n", "a\nb\nc\n", 0),  # only kernelgen's
        ("a\nb\n", "a\nB\n", "a\nB\n", "a\nB\n", 0),  # the same change twice
        ("a\n", "x\n", "y\n", "<<<<<<< yours\nx\n=======\ny\n>>>>>>> kg\n", 1),
        ("a\n", "x", "y", "<<<<<<< yours\nx\n=======\ny\n>>>>>>> kg\n", 1),  # no final newline
    ],
)
def test_three_way_merge(base, yours, new, merged, conflicts):
    result = merge3(base, yours, new, new_label="kg")
    assert (result.text, result.conflicts) == (merged, conflicts)
