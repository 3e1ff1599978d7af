"""kernelgen doctor: each failure a real machine shows, reproduced with a fake environment."""

from __future__ import annotations

import dataclasses
import json
import os
import stat
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import pytest
from conftest import options_for

from kernelgen import cuda_env, doctor, new_project
from kernelgen.doctor import Blocks, Machine, Status, TorchInfo

CUDA_TORCH = TorchInfo(version="2.14.1+cu130", cuda="13.0", gpus=())
HEADERS = cuda_env.TORCH_CUDA_HEADERS


def write_script(path: Path, body: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n" + body)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def fake_toolkit(
    root: Path, version: str = "13.0", headers=HEADERS, libcudart: bool = True
) -> Path:
    """A folder that looks like a CUDA toolkit: an nvcc that answers --version and -dryrun."""
    write_script(
        root / "bin" / "nvcc",
        f'case "$*" in\n'
        f'  *--version*) echo "Cuda compilation tools, release {version}, V{version}.1" ;;\n'
        f'  *-dryrun*) echo "#$ _HERE_={root}/bin" >&2 ;;\n'
        f'  *--list-gpu-arch*) printf "compute_75\\ncompute_80\\ncompute_90\\n" ;;\n'
        f"esac\nexit 0\n",
    )
    (root / "include").mkdir(parents=True, exist_ok=True)
    for header in headers:
        (root / "include" / header).write_text("")
    if libcudart:
        (root / "lib64").mkdir(exist_ok=True)
        (root / "lib64" / "libcudart.so").write_text("")
    return root


def tools_dir(tmp_path: Path, *names: str) -> Path:
    """A bin folder with stand-ins for the named tools (c++, ninja...)."""
    folder = tmp_path / "tools"
    for name in names:
        write_script(folder / name, "exit 0\n")
    return folder


def machine(path_dirs: list[Path], torch: TorchInfo | None = CUDA_TORCH, **env: str) -> Machine:
    return Machine(
        env={"PATH": os.pathsep.join(map(str, path_dirs)), **env},
        torch=torch,
        cpu_count=16,
        memory_gb=64.0,
    )


@pytest.fixture
def no_pip_wheels(monkeypatch):
    monkeypatch.setattr(cuda_env, "pip_cuda_include_dirs", lambda: [])


def find(checks, name):
    return next(c for c in checks if c.name == name)


def test_healthy_machine_can_build_cuda(tmp_path, no_pip_wheels):
    toolkit = fake_toolkit(tmp_path / "cuda")
    checks = doctor.run_checks(machine([toolkit / "bin", tools_dir(tmp_path, "c++", "ninja")]))
    assert [c for c in checks if c.status is Status.ERROR] == []
    assert doctor.exit_code(checks) == 0


def test_wrapper_nvcc_is_seen_through(tmp_path, no_pip_wheels):
    toolkit = fake_toolkit(tmp_path / "opt" / "cuda-13.0")
    wrapper = write_script(tmp_path / "wrappers" / "nvcc", f'exec {toolkit}/bin/nvcc "$@"\n')
    m = machine([wrapper.parent, tools_dir(tmp_path, "c++", "ninja")])
    check = find(doctor.run_checks(m), "CUDA_HOME")
    assert check.status is Status.WARNING
    assert f"export CUDA_HOME={toolkit}" in check.message
    # ...and the generated build fixes it by itself:
    env = dict(m.env)
    build_env = cuda_env.prepare_build_environment(env)
    assert env["CUDA_HOME"] == str(toolkit) and build_env.cuda_home == toolkit


def test_cuda_home_pointing_nowhere(tmp_path, no_pip_wheels):
    m = machine([tools_dir(tmp_path, "c++", "ninja")], CUDA_HOME=str(tmp_path / "missing"))
    checks = doctor.run_checks(m)
    assert find(checks, "CUDA_HOME").status is Status.ERROR
    assert doctor.exit_code(checks) == 1


def test_toolkit_missing_library_headers(tmp_path, no_pip_wheels):
    toolkit = fake_toolkit(tmp_path / "cuda", headers=("cuda_runtime.h", "cuda_runtime_api.h"))
    checks = doctor.run_checks(machine([toolkit / "bin", tools_dir(tmp_path, "c++", "ninja")]))
    assert find(checks, "cusparse.h").status is Status.WARNING
    assert doctor.exit_code(checks) == 0  # our kernels' lean includes do not need them


def test_missing_headers_found_in_pip_wheels(tmp_path, monkeypatch):
    wheel_include = tmp_path / "site-packages" / "nvidia" / "cu13" / "include"
    wheel_include.mkdir(parents=True)
    (wheel_include / "cusparse.h").write_text("")
    monkeypatch.setattr(cuda_env, "pip_cuda_include_dirs", lambda: [wheel_include])
    toolkit = fake_toolkit(tmp_path / "cuda", headers=("cuda_runtime.h",))
    checks = doctor.run_checks(machine([toolkit / "bin", tools_dir(tmp_path, "c++", "ninja")]))
    assert find(checks, "cusparse.h").status is Status.OK
    assert str(wheel_include) in find(checks, "cusparse.h").message
    build_env = cuda_env.prepare_build_environment({"PATH": str(toolkit / "bin")})
    assert build_env.include_dirs == [wheel_include]


def test_toolkit_without_runtime_headers_blocks_cuda(tmp_path, no_pip_wheels):
    toolkit = fake_toolkit(tmp_path / "cuda", headers=())
    (toolkit / "include" / "cuda_runtime.h").unlink(missing_ok=True)
    checks = doctor.run_checks(
        machine([toolkit / "bin", tools_dir(tmp_path, "c++", "ninja")], CUDA_HOME=str(toolkit))
    )
    assert doctor.exit_code(checks) == 1


def test_toolkit_without_libcudart(tmp_path, no_pip_wheels):
    toolkit = fake_toolkit(tmp_path / "cuda", libcudart=False)
    checks = doctor.run_checks(machine([toolkit / "bin", tools_dir(tmp_path, "c++", "ninja")]))
    assert find(checks, "libcudart").status is Status.ERROR
    assert doctor.exit_code(checks) == 1


@pytest.mark.parametrize(
    ("nvcc", "torch_cuda", "status", "code"),
    [
        ("12.4", "13.0", Status.ERROR, 1),
        ("13.1", "13.0", Status.WARNING, 0),
        ("13.0", "13.0", Status.OK, 0),
    ],
)
def test_nvcc_against_torch_cuda_version(tmp_path, no_pip_wheels, nvcc, torch_cuda, status, code):
    toolkit = fake_toolkit(tmp_path / "cuda", version=nvcc)
    torch = TorchInfo(version="2.x", cuda=torch_cuda)
    checks = doctor.run_checks(
        machine([toolkit / "bin", tools_dir(tmp_path, "c++", "ninja")], torch)
    )
    assert find(checks, "nvcc").status is status
    assert doctor.exit_code(checks) == code


def test_no_ninja_is_a_warning_with_max_jobs_advice(tmp_path, no_pip_wheels):
    toolkit = fake_toolkit(tmp_path / "cuda")
    checks = doctor.run_checks(machine([toolkit / "bin", tools_dir(tmp_path, "c++")]))
    ninja = find(checks, "ninja")
    assert ninja.status is Status.WARNING and "pip install ninja" in ninja.message
    assert "MAX_JOBS=16" in ninja.message


def test_nvcc_rejecting_the_host_compiler(tmp_path, no_pip_wheels):
    toolkit = fake_toolkit(tmp_path / "cuda")
    write_script(
        toolkit / "bin" / "nvcc",
        (toolkit / "bin" / "nvcc")
        .read_text()
        .replace("exit 0", 'echo "unsupported GNU version" >&2; exit 1'),
    )
    checks = doctor.run_checks(machine([toolkit / "bin", tools_dir(tmp_path, "c++", "ninja")]))
    assert find(checks, "nvcc + host compiler").status is Status.ERROR
    assert doctor.exit_code(checks) == 1


def test_no_host_compiler_blocks_everything(tmp_path, no_pip_wheels):
    checks = doctor.run_checks(machine([tools_dir(tmp_path, "ninja")]))
    assert find(checks, "host compiler").blocks is Blocks.ALL
    assert doctor.exit_code(checks) == 2


def test_no_torch_blocks_everything(tmp_path, no_pip_wheels):
    checks = doctor.run_checks(machine([tools_dir(tmp_path, "c++", "ninja")], torch=None))
    assert doctor.exit_code(checks) == 2


def test_cpu_only_torch_allows_only_the_cpu_build(tmp_path, no_pip_wheels):
    toolkit = fake_toolkit(tmp_path / "cuda")
    torch = TorchInfo(version="2.14.1+cpu", cuda=None)
    checks = doctor.run_checks(
        machine([toolkit / "bin", tools_dir(tmp_path, "c++", "ninja")], torch)
    )
    assert doctor.exit_code(checks) == 1


def test_no_gpu_names_the_projects_arch_list(tmp_path, no_pip_wheels):
    new_project(options_for("vector_add"), tmp_path / "proj")
    checks = doctor.run_checks(
        machine([tools_dir(tmp_path, "c++", "ninja")]), project=tmp_path / "proj"
    )
    gpus = find(checks, "GPUs")
    assert (
        gpus.status is Status.WARNING and "IndexError" in gpus.message and "(9.0)" in gpus.message
    )
    assert find(checks, "project").status is Status.OK


def test_visible_gpus_are_listed(tmp_path, no_pip_wheels):
    torch = TorchInfo(version="2.x", cuda="13.0", gpus=("9.0", "9.0"))
    checks = doctor.run_checks(machine([tools_dir(tmp_path, "c++", "ninja")], torch))
    assert "2 GPU(s), compute capability 9.0" in find(checks, "GPUs").message


def test_stale_build_lock(tmp_path, no_pip_wheels):
    lock = tmp_path / "ext" / "py311_cu130" / "myops" / "lock"
    lock.parent.mkdir(parents=True)
    lock.write_text("")
    old = time.time() - 3600
    os.utime(lock, (old, old))
    new_project(options_for("vector_add"), tmp_path / "proj")
    m = machine([tools_dir(tmp_path, "c++", "ninja")], TORCH_EXTENSIONS_DIR=str(tmp_path / "ext"))
    checks = doctor.run_checks(m, project=tmp_path / "proj")
    assert str(lock) in find(checks, "build locks").message


def test_not_a_project(tmp_path, no_pip_wheels, cli):
    checks = doctor.run_checks(machine([tools_dir(tmp_path, "c++", "ninja")]), project=tmp_path)
    assert find(checks, "project").status is Status.ERROR
    assert doctor.exit_code(checks) == 2  # nothing can be built there
    result = cli("doctor", "--project", str(tmp_path))
    assert result.exit_code == 2 and "not inside a kernelgen project" in result.output


def test_a_folder_inside_a_project_will_do(tmp_path, no_pip_wheels):
    new_project(options_for("vector_add"), tmp_path / "proj")
    inside = tmp_path / "proj" / "myops" / "csrc"
    checks = doctor.run_checks(machine([tools_dir(tmp_path, "c++", "ninja")]), project=inside)
    assert find(checks, "project").status is Status.OK
    assert str(tmp_path / "proj") in find(checks, "project").message


def test_arch_list_nvcc_cannot_target(tmp_path, no_pip_wheels):
    toolkit = fake_toolkit(tmp_path / "cuda")
    new_project(
        dataclasses.replace(options_for("vector_add"), arch_list=("7.0", "9.0")), tmp_path / "proj"
    )
    m = machine([toolkit / "bin", tools_dir(tmp_path, "c++", "ninja")], CUDA_HOME=str(toolkit))
    checks = doctor.run_checks(m, project=tmp_path / "proj")
    arch = find(checks, "arch list")
    assert arch.status is Status.ERROR and arch.blocks is Blocks.CUDA and "7.0" in arch.message
    assert "9.0" not in arch.message.split("compiles for")[1].split("when")[0]
    assert cuda_env.unsupported_archs(toolkit, ["8.6+PTX", "9.0a", "7.5"]) == ["8.6+PTX"]


def test_extension_built_before_an_added_kernel(tmp_path, no_pip_wheels):
    """An extension that loads but lacks ops added since: the package says rebuild, and so
    does doctor."""
    pytest.importorskip("torch")
    new_project(options_for("vector_add"), tmp_path / "proj")
    source = tmp_path / "empty_module.c"
    source.write_text(
        "#include <Python.h>\n"
        'static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_C", NULL, -1, NULL};\n'
        "PyMODINIT_FUNC PyInit__C(void) { return PyModule_Create(&module); }\n"
    )
    library = tmp_path / "proj" / "myops" / "_C.abi3.so"
    include = sysconfig.get_paths()["include"]
    subprocess.run(
        ["cc", "-shared", "-fPIC", f"-I{include}", str(source), "-o", str(library)], check=True
    )
    imported = subprocess.run(
        [sys.executable, "-c", "import myops"],
        cwd=tmp_path / "proj",
        capture_output=True,
        text=True,
    )
    assert "ImportError: myops._C was built before vector_add were added" in imported.stderr
    assert "python setup.py build_ext --inplace" in imported.stderr
    checks = doctor.run_checks(
        machine([tools_dir(tmp_path, "c++", "ninja")]), project=tmp_path / "proj"
    )
    built = find(checks, "built extension")
    assert built.status is Status.ERROR and "predates kernels added since" in built.message


def test_cli_json_on_this_machine(cli):
    result = cli("doctor", "--json")
    report = json.loads(result.output)
    assert result.exit_code == report["exit_code"] in (0, 1, 2)
    assert {c["name"] for c in report["checks"]} >= {"torch", "host compiler", "ninja", "GPUs"}


def test_compiler_without_shared_libstdcxx(tmp_path, no_pip_wheels, monkeypatch):
    tools = tools_dir(tmp_path, "ninja")
    write_script(
        tools / "c++",
        'case "$*" in *-print-file-name=libstdc++.so*) echo libstdc++.so ;; esac\nexit 0\n',
    )
    checks = doctor.run_checks(machine([tools]))
    assert find(checks, "C++ runtime").status is Status.WARNING
    monkeypatch.setattr(cuda_env, "loaded_libstdcxx", lambda: Path("/usr/lib/libstdc++.so.6"))
    args, note = cuda_env.libstdcxx_link_args(str(tools / "c++"))
    assert args == ["/usr/lib/libstdc++.so.6"] and "no shared libstdc++" in note


def test_ordinary_compiler_gets_no_extra_link_args(tmp_path):
    tools = tools_dir(tmp_path)
    write_script(tools / "c++", "echo /usr/lib/gcc/x86_64-linux-gnu/12/libstdc++.so\n")
    assert cuda_env.libstdcxx_link_args(str(tools / "c++")) == ([], None)


def test_extension_built_against_another_torch(tmp_path, no_pip_wheels):
    """An extension whose symbols the installed torch lacks fails to import: doctor says rebuild."""
    pytest.importorskip("torch")
    new_project(options_for("vector_add"), tmp_path / "proj")
    source = tmp_path / "stale.c"
    source.write_text(
        "void symbol_of_another_torch(void);\nvoid probe(void) { symbol_of_another_torch(); }\n"
    )
    library = tmp_path / "proj" / "myops" / "_C.abi3.so"
    subprocess.run(["cc", "-shared", "-fPIC", str(source), "-o", str(library)], check=True)
    checks = doctor.run_checks(
        machine([tools_dir(tmp_path, "c++", "ninja")]), project=tmp_path / "proj"
    )
    built = find(checks, "built extension")
    assert built.status is Status.ERROR and "rebuild" in built.message


@pytest.mark.parametrize(
    ("torch_version", "status", "says"),
    [
        ("2.11.0+cu130", Status.OK, "new enough"),
        ("2.10.0", Status.OK, "new enough"),
        ("2.9.1+cu128", Status.ERROR, "install torch>=2.10"),
        ("nightly", Status.WARNING, "cannot read torch's version"),
    ],
)
def test_stable_abi_project_reports_its_target_and_the_torch(
    tmp_path, no_pip_wheels, torch_version, status, says
):
    options = dataclasses.replace(options_for("vector_add"), abi="stable")
    new_project(options, tmp_path / "proj")
    torch = TorchInfo(version=torch_version, cuda="13.0")
    checks = doctor.run_checks(
        machine([tools_dir(tmp_path, "c++", "ninja")], torch), project=tmp_path / "proj"
    )
    abi = find(checks, "ABI")
    assert abi.status is status and says in abi.message
    assert "TORCH_TARGET_VERSION 2.10 (0x020a000000000000)" in abi.message


def test_standard_abi_project_says_it_needs_its_own_torch(tmp_path, no_pip_wheels):
    new_project(options_for("vector_add"), tmp_path / "proj")
    checks = doctor.run_checks(
        machine([tools_dir(tmp_path, "c++", "ninja")]), project=tmp_path / "proj"
    )
    assert find(checks, "ABI").message.startswith("standard")


@pytest.fixture
def no_hung_tools(monkeypatch):
    monkeypatch.setattr(cuda_env, "_hung_tools", set())


def test_a_hanging_nvcc_costs_one_short_timeout(
    tmp_path, no_pip_wheels, no_hung_tools, monkeypatch
):
    """A wrapper nvcc whose child hangs (and holds the output pipe): doctor still ends soon."""
    toolkit = fake_toolkit(tmp_path / "cuda")
    write_script(toolkit / "bin" / "nvcc", "sleep 600\n")
    monkeypatch.setattr(cuda_env, "PROBE_TIMEOUT_S", 2.0)
    started = time.monotonic()
    checks = doctor.run_checks(
        machine([toolkit / "bin", tools_dir(tmp_path, "c++", "ninja")], CUDA_HOME=str(toolkit))
    )
    assert time.monotonic() - started < 10
    assert find(checks, "nvcc").status is Status.ERROR
    assert find(checks, "nvcc + host compiler").status is Status.ERROR


def test_the_real_doctor_command_ends_within_20_s_against_a_hanging_nvcc(tmp_path):
    toolkit = fake_toolkit(tmp_path / "cuda")
    write_script(toolkit / "bin" / "nvcc", "sleep 600\n")
    env = {
        **os.environ,
        "CUDA_HOME": str(toolkit),
        "PATH": f"{toolkit / 'bin'}{os.pathsep}{os.environ['PATH']}",
    }
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-m", "kernelgen", "doctor"],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert time.monotonic() - started < 20, result.stdout
    assert "Traceback" not in result.stdout + result.stderr


def test_nvcc_printing_bytes_that_are_not_utf8(tmp_path, no_pip_wheels, no_hung_tools):
    toolkit = fake_toolkit(tmp_path / "cuda")
    write_script(
        toolkit / "bin" / "nvcc", "printf 'Cuda compilation tools, release 13.0 \\377\\376\\n'\n"
    )
    checks = doctor.run_checks(
        machine([toolkit / "bin", tools_dir(tmp_path, "c++", "ninja")], CUDA_HOME=str(toolkit))
    )
    assert "13.0" in find(checks, "nvcc").message


@pytest.mark.parametrize("value", ["garbage", "9.0;sm_90", "8.O", ";"])
def test_a_garbage_arch_list_variable_is_an_error(tmp_path, no_pip_wheels, no_hung_tools, value):
    toolkit = fake_toolkit(tmp_path / "cuda")
    checks = doctor.run_checks(
        machine(
            [toolkit / "bin", tools_dir(tmp_path, "c++", "ninja")],
            CUDA_HOME=str(toolkit),
            TORCH_CUDA_ARCH_LIST=value,
        )
    )
    arch = find(checks, "TORCH_CUDA_ARCH_LIST")
    assert arch.status is Status.ERROR and arch.blocks is Blocks.CUDA


def test_an_arch_list_variable_nvcc_cannot_target(tmp_path, no_pip_wheels, no_hung_tools):
    toolkit = fake_toolkit(tmp_path / "cuda")
    checks = doctor.run_checks(
        machine(
            [toolkit / "bin", tools_dir(tmp_path, "c++", "ninja")],
            CUDA_HOME=str(toolkit),
            TORCH_CUDA_ARCH_LIST="6.0;9.0",
        )
    )
    arch = find(checks, "TORCH_CUDA_ARCH_LIST")
    assert (
        arch.status is Status.ERROR
        and "6.0" in arch.message
        and "9.0" not in arch.message.split("for")[1]
    )


@pytest.mark.parametrize("cuda", ["13", "13.x", "cuda13.0", ""])
def test_a_torch_reporting_an_odd_cuda_version(tmp_path, no_pip_wheels, no_hung_tools, cuda):
    toolkit = fake_toolkit(tmp_path / "cuda")
    torch = TorchInfo(version="2.14.1", cuda=cuda)
    checks = doctor.run_checks(
        machine(
            [toolkit / "bin", tools_dir(tmp_path, "c++", "ninja")], torch, CUDA_HOME=str(toolkit)
        )
    )
    assert all(isinstance(c.message, str) for c in checks)
    if cuda:
        assert "not MAJOR.MINOR" in find(checks, "nvcc").message


def test_an_interrupted_change_is_reported(tmp_path, no_pip_wheels):
    new_project(options_for("vector_add"), tmp_path / "proj")
    (tmp_path / "proj" / ".kernelgen-transaction").mkdir()
    checks = doctor.run_checks(
        machine([tools_dir(tmp_path, "c++", "ninja")]), project=tmp_path / "proj"
    )
    assert "next add-kernel there rolls it back" in find(checks, "interrupted change").message


def test_torch_probe_reports_the_archs_its_extension_builder_accepts(monkeypatch):
    monkeypatch.setenv("TORCH_CUDA_ARCH_LIST", "9.0;9.5")
    info = doctor.probe_torch()
    assert info is not None and info.accepted_archs is not None
    assert {"8.0", "9.0", "9.0a"} <= info.accepted_archs and "9.5" not in info.accepted_archs
    assert info.arch_list_error is not None and "9.5" in info.arch_list_error


def test_a_project_arch_torch_does_not_know(tmp_path, no_pip_wheels, no_hung_tools):
    toolkit = fake_toolkit(tmp_path / "cuda")
    new_project(
        dataclasses.replace(options_for("vector_add"), arch_list=("9.0", "9.5+PTX")),
        tmp_path / "proj",
    )
    torch = dataclasses.replace(CUDA_TORCH, accepted_archs=frozenset({"8.0", "9.0", "9.0a"}))
    m = machine(
        [toolkit / "bin", tools_dir(tmp_path, "c++", "ninja")], torch, CUDA_HOME=str(toolkit)
    )
    checks = doctor.run_checks(m, project=tmp_path / "proj")
    arch = next(c for c in checks if c.name == "arch list" and "which torch" in c.message)
    assert arch.status is Status.ERROR and arch.blocks is Blocks.CUDA
    assert "compiles for 9.5+PTX when" in arch.message and "8.0, 9.0, 9.0a" in arch.message


def test_an_arch_list_variable_torch_rejects(tmp_path, no_pip_wheels, no_hung_tools):
    toolkit = fake_toolkit(tmp_path / "cuda")
    torch = dataclasses.replace(
        CUDA_TORCH,
        accepted_archs=frozenset({"9.0"}),
        arch_list_error="Unknown CUDA arch (9.5) or GPU not supported",
    )
    m = machine(
        [toolkit / "bin", tools_dir(tmp_path, "c++", "ninja")],
        torch,
        CUDA_HOME=str(toolkit),
        TORCH_CUDA_ARCH_LIST="9.0;9.5",
    )
    arch = find(doctor.run_checks(m), "TORCH_CUDA_ARCH_LIST")
    assert arch.status is Status.ERROR and "rejects '9.0;9.5'" in arch.message
    assert "Unknown CUDA arch (9.5)" in arch.message


def test_an_arch_name_torch_accepts_is_fine(tmp_path, no_pip_wheels, no_hung_tools):
    toolkit = fake_toolkit(tmp_path / "cuda")
    torch = dataclasses.replace(CUDA_TORCH, accepted_archs=frozenset({"9.0"}))
    m = machine(
        [toolkit / "bin", tools_dir(tmp_path, "c++", "ninja")],
        torch,
        CUDA_HOME=str(toolkit),
        TORCH_CUDA_ARCH_LIST="Hopper",
    )
    assert find(doctor.run_checks(m), "TORCH_CUDA_ARCH_LIST").status is Status.OK
