"""End to end: generate a project with every reference kernel, build it with pip, run its tests.

The project starts with `new`, grows with `add-kernel`, takes a user's edits and is brought to
a newer kernelgen's templates with `update`, so every path is exercised. The
build runs with no CUDA variables set: where nvcc and a CUDA build of torch are present, the
generated setup.py must find the toolkit itself (through a wrapper nvcc if need be) and
compile the .cu files for the default arch list; elsewhere it builds the CPU extension.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pytest
from newer_kernelgen import commit_all, newer_catalog

from kernelgen import cuda_env, update_project
from kernelgen.reconcile import Action

torch = pytest.importorskip("torch", reason="torch is needed to build a generated project")

pytestmark = pytest.mark.slow

TEMPLATES_ADDED = ["activation", "sparse", "wmma"]


def cuda_build_expected() -> str | None:
    """None when this machine should build the CUDA kernels, else why not."""
    if torch.version.cuda is None:
        return f"torch {torch.__version__} is a CPU-only build"
    if cuda_env.locate_cuda_home(os.environ).path is None:
        return "no CUDA toolkit (nvcc) found"
    return None


def run(args: list[str | Path], cwd: Path, env: dict[str, str] | None = None, timeout: int = 1800):
    result = subprocess.run(
        [str(a) for a in args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert result.returncode == 0, (
        f"{args} failed:\n{result.stdout[-6000:]}\n{result.stderr[-6000:]}"
    )
    return result


def venv_seeing_this_environment(env_dir: Path) -> Path:
    """A fresh venv whose interpreter also imports this interpreter's packages; its python.

    `system_site_packages=True` is not enough: run from inside a venv (or conda), it exposes
    the base interpreter's site-packages, not the ones torch was installed into. A `.pth` file
    naming this interpreter's own site folders works from a venv, the system Python and conda
    alike. There is no pip of its own: the venv uses this environment's pip and setuptools.
    """
    venv.create(env_dir, with_pip=False)
    python = env_dir / "bin" / "python"
    child_site = run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], cwd=env_dir
    ).stdout.strip()
    ours = [p for p in sys.path if p.rstrip("/").endswith(("site-packages", "dist-packages"))]
    # addsitedir, not a bare path line, so the .pth files in those folders run too.
    lines = [f"import site; site.addsitedir({folder!r})" for folder in ours]
    Path(child_site, "parent_environment.pth").write_text("\n".join(lines) + "\n")
    return python


@pytest.fixture(scope="module")
def built_project(tmp_path_factory):
    """A project with all four kernels, pip-installed into a venv that sees this torch."""
    root = tmp_path_factory.mktemp("e2e")
    kernelgen = [sys.executable, "-m", "kernelgen"]
    run([*kernelgen, "new", "e2e-ops", "--no-input", "--kernel", "vector_add"], cwd=root)
    project = root / "e2e-ops"
    for template in TEMPLATES_ADDED:
        run([*kernelgen, "add-kernel", template], cwd=project)
    # A user's edits, then an update to a newer kernelgen's templates (simulated): the
    # project that is built and tested below has been through new, add-kernel and update.
    with open(project / "setup.py", "a") as setup:
        setup.write("# a user's tweak, which the update keeps\n")
    with open(project / "e2e_ops" / "csrc" / "vector_add.cpp", "a") as source:
        source.write("// a user's note, which the update keeps\n")
    commit_all(project, "generated and edited")
    updated = update_project(project, catalog=newer_catalog(root / "newer"))
    assert not updated.conflicts and {c.action for c in updated.changes} >= {Action.MERGE}

    python = venv_seeing_this_environment(root / "venv")
    build_env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("CUDA_HOME", "CUDA_PATH", "TORCH_CUDA_ARCH_LIST")
    }
    build_env["MAX_JOBS"] = str(os.cpu_count() or 2)
    build = run(
        [python, "-m", "pip", "install", "--no-build-isolation", "--no-deps", "-v", "-e", "."],
        cwd=project,
        env=build_env,
        timeout=3600,
    )
    return project, python, build.stdout + build.stderr


def test_build_compiles_cuda_where_it_can(built_project):
    project, python, log = built_project
    flag = run(
        [python, "-c", "import e2e_ops; print(e2e_ops._C.built_with_cuda)"], cwd=project.parent
    )
    reason = cuda_build_expected()
    if reason is None:
        assert flag.stdout.strip() == "1", log[-4000:]
        home = cuda_env.locate_cuda_home(os.environ).path
        if not (home / "include" / "cusparse.h").exists() and cuda_env.pip_cuda_include_dirs():
            assert "cusparse.h not in the toolkit; using the pip wheel's" in log
        assert "TORCH_CUDA_ARCH_LIST=9.0" in log, log[-4000:]  # the build env unsets it
    else:
        assert flag.stdout.strip() == "0"
        assert "building the CPU-only extension" in log


def test_build_log_has_no_macro_redefinitions(built_project):
    _, _, log = built_project
    assert "redefined" not in log, [line for line in log.splitlines() if "redefined" in line][:3]


def test_cuda_kernels_are_compiled_for_sm90(built_project):
    if (reason := cuda_build_expected()) is not None:
        pytest.skip(reason)
    project, _, log = built_project
    assert "-gencode=arch=compute_90,code=sm_90" in log
    (library,) = (project / "e2e_ops").glob("_C*.so")
    toolkit_bin = cuda_env.locate_cuda_home(os.environ).path / "bin"
    cuobjdump = shutil.which(
        "cuobjdump", path=f"{toolkit_bin}{os.pathsep}{os.environ.get('PATH', '')}"
    )
    if cuobjdump is None:  # a minimal toolkit: the fatbinary still names its targets
        assert b"sm_90" in library.read_bytes()
        return
    listing = run([cuobjdump, "--list-elf", library], cwd=project).stdout
    for kernel in ("vector_add", "silu", "csr", "wmma_gemm"):
        assert f"{kernel}.sm_90.cubin" in listing, listing


def test_generated_test_suite_passes(built_project):
    project, python, _ = built_project
    result = run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=project)
    summary = result.stdout.strip().splitlines()[-1]
    assert " passed" in summary and "failed" not in summary, result.stdout[-3000:]


def test_generated_benchmark_runs(built_project):
    project, python, _ = built_project
    result = run(
        [python, "benchmarks/bench_vector_add.py", "--quick", "--device", "cpu"], cwd=project
    )
    assert "ratio" in result.stdout and "vector_add" in result.stdout


def test_rebuild_after_an_edit_recompiles_only_that_file(built_project):
    """The README's fast loop: build/temp survives `pip install -e`, and ninja recompiles only
    the edited source."""
    project, python, _ = built_project
    edited = "csrc/cuda/vector_add.cu" if cuda_build_expected() is None else "csrc/vector_add.cpp"
    source = project / "e2e_ops" / edited
    source.write_text(source.read_text() + "\n// an edit\n")
    result = run(
        [python, "setup.py", "build_ext", "--inplace"],
        cwd=project,
        env=os.environ | {"MAX_JOBS": "2"},
    )
    steps = [
        line
        for line in result.stdout.splitlines()
        if line.startswith("[") and "/" in line.split("]")[0]
    ]
    assert len(steps) == 1 and steps[0].startswith("[1/1]"), steps
    assert edited.rsplit("/", 1)[-1] in steps[0]


def test_wheel_builds_with_the_standard_command_and_pins_its_torch(built_project):
    project, python, _ = built_project
    run([python, "-m", "build", "--wheel", "--no-isolation", "--outdir", "dist"], cwd=project)
    assert not (project / "build").exists()  # the build folder is .build: no shadowed module
    (wheel,) = (project / "dist").glob("e2e_ops-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        metadata = archive.read(
            next(n for n in names if n.endswith(".dist-info/METADATA"))
        ).decode()
    assert any(re.fullmatch(r"e2e_ops/_C\..*so", name) for name in names), names
    assert f"Requires-Dist: torch=={torch.__version__.split('+')[0]}" in metadata.splitlines()


def test_generated_setup_routes_compiles_through_ccache_when_present(tmp_path, monkeypatch):
    run([sys.executable, "-m", "kernelgen", "new", "cached", "--no-input"], cwd=tmp_path)
    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    for tool in ("ccache", "nvcc"):
        (fake_bin / tool).write_text('#!/bin/sh\nexec "$@"\n')
        (fake_bin / tool).chmod(0o755)
    monkeypatch.syspath_prepend(str(tmp_path / "cached"))
    spec = importlib.util.spec_from_file_location("cached_setup", tmp_path / "cached" / "setup.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    env = {"PATH": f"{fake_bin}{os.pathsep}/usr/bin:/bin"}
    module.use_ccache_if_present(env)
    assert env["CXX"] == f"{fake_bin / 'ccache'} c++"
    assert env["PYTORCH_NVCC"] == f"{fake_bin / 'ccache'} {fake_bin / 'nvcc'}"
    chosen = {"PATH": env["PATH"], "CXX": "g++"}
    module.use_ccache_if_present(chosen)
    assert chosen["CXX"] == "g++"  # the user's choice stands
    # A compiler given as "ccache c++" still answers the libstdc++ probe.
    assert cuda_env.libstdcxx_link_args(env["CXX"]) == cuda_env.libstdcxx_link_args("c++")


def test_generated_project_builds_cpu_only_when_forced(tmp_path):
    run([sys.executable, "-m", "kernelgen", "new", "cpuonly", "--no-input"], cwd=tmp_path)
    env = {**os.environ, "USE_CUDA": "0"}
    run(
        [sys.executable, "setup.py", "-q", "build_ext", "--inplace"],
        cwd=tmp_path / "cpuonly",
        env=env,
    )
    flag = run(
        [sys.executable, "-c", "import cpuonly; print(cpuonly._C.built_with_cuda)"],
        cwd=tmp_path / "cpuonly",
    )
    assert flag.stdout.strip() == "0"
    shutil.rmtree(tmp_path / "cpuonly" / "build", ignore_errors=True)


def test_forced_cuda_build_without_a_toolkit_stops_with_one_line(tmp_path):
    run([sys.executable, "-m", "kernelgen", "new", "nocuda", "--no-input"], cwd=tmp_path)
    env = {
        **os.environ,
        "USE_CUDA": "1",
        "CUDA_HOME": str(tmp_path / "no-such-toolkit"),
        "PATH": os.path.dirname(sys.executable) + os.pathsep + "/usr/bin:/bin",
    }
    result = subprocess.run(
        [sys.executable, "setup.py", "build_ext", "--inplace"],
        cwd=tmp_path / "nocuda",
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode != 0
    assert "error: USE_CUDA=1, but" in result.stderr
    assert "no CUDA toolkit found" in result.stderr or "CPU-only build" in result.stderr
    assert "nvcc" not in result.stdout  # stopped before any compiler ran


@pytest.mark.parametrize(
    ("debug", "nvcc_flags"), [("", ["-O3", "-lineinfo"]), ("1", ["-O0", "-g", "-G"])]
)
def test_setup_debug_switch(tmp_path, monkeypatch, debug, nvcc_flags):
    """The generated setup.py's flags, inspected without compiling (it imports as a module)."""
    run([sys.executable, "-m", "kernelgen", "new", "flags", "--no-input"], cwd=tmp_path)
    monkeypatch.chdir(tmp_path / "flags")
    monkeypatch.syspath_prepend(str(tmp_path / "flags"))
    monkeypatch.setenv("DEBUG", debug)
    spec = importlib.util.spec_from_file_location(
        "generated_setup", tmp_path / "flags" / "setup.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    build_env = cuda_env.BuildEnvironment(cuda_home=Path("/usr/local/cuda"))
    cuda_ext = module.extension(build_env, with_cuda=True)
    assert cuda_ext.extra_compile_args["nvcc"][: len(nvcc_flags)] == nvcc_flags
    assert any(source.endswith("vector_add.cu") for source in cuda_ext.sources)
    cpu_ext = module.extension(build_env, with_cuda=False)
    assert not any(source.endswith(".cu") for source in cpu_ext.sources)
    assert ("-O0" in cpu_ext.extra_compile_args["cxx"]) == bool(debug)
