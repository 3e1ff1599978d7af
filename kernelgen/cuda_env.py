"""Find, check and repair the CUDA toolchain a PyTorch extension build will use.

Standard library only, and it never imports torch: `kernelgen doctor` runs it to diagnose a
machine, and every generated project carries this same file (as cuda_env.py beside setup.py)
so its build fixes what it can before torch.utils.cpp_extension looks at the environment.

The traps it handles, all seen on real machines:
- `nvcc` on PATH is a wrapper script (or a symlink farm) outside the toolkit, so torch's guess
  CUDA_HOME = dirname(dirname(which nvcc)) points at e.g. /usr/local, and linking fails
  with "cannot find -lcudart". We ask nvcc itself where it lives (`nvcc -dryrun`).
- a minimal toolkit without cusparse.h / cublas_v2.h, which torch's ATen/cuda headers include,
  while the pip wheels of the CUDA libraries (site-packages/nvidia/...) carry them.
- no GPU visible at build time, where torch cannot pick an arch list by itself.
- a C++ compiler that cannot find a shared libstdc++ (a relocated toolchain, $CXX pointing
  into /opt) and so links a private static copy into the extension. Torch runs on the shared
  one; the extension's copy has an uninitialised locale, and the first TORCH_CHECK that
  formats a number segfaults. We link against the libstdc++ this process has loaded instead.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import re
import shlex
import shutil
import signal
import subprocess
from collections.abc import Mapping, MutableMapping
from dataclasses import dataclass, field
from pathlib import Path

# Headers that torch's own CUDA headers (ATen/cuda/CUDAContext.h and friends) include.
TORCH_CUDA_HEADERS = (
    "cuda_runtime.h",
    "cuda_runtime_api.h",
    "cusparse.h",
    "cublas_v2.h",
    "cublasLt.h",
    "cusolverDn.h",
)


@dataclass(frozen=True)
class CudaHome:
    """Where the CUDA toolkit is, how it was found, and what torch alone would have guessed."""

    path: Path | None
    found_by: str
    torch_guess: Path | None

    @property
    def torch_would_fail(self) -> bool:
        """True when torch's own guess is not a usable toolkit but ours is."""
        return self.path is not None and (
            self.torch_guess is None or not is_toolkit(self.torch_guess)
        )


@dataclass
class BuildEnvironment:
    """What the build needs beyond torch's defaults, and what it could not fix."""

    cuda_home: Path | None
    include_dirs: list[Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    missing_headers: list[str] = field(default_factory=list)


def is_toolkit(path: Path) -> bool:
    """A CUDA toolkit root: bin/nvcc plus the runtime headers."""
    return (path / "bin" / "nvcc").is_file() and (path / "include" / "cuda_runtime.h").is_file()


def torch_cuda_home_guess(env: Mapping[str, str]) -> Path | None:
    """The CUDA_HOME torch.utils.cpp_extension would pick, by the same rules."""
    explicit = env.get("CUDA_HOME") or env.get("CUDA_PATH")
    if explicit:
        return Path(explicit)
    nvcc = shutil.which("nvcc", path=env.get("PATH"))
    if nvcc:
        return Path(nvcc).parent.parent
    default = Path("/usr/local/cuda")
    return default if default.exists() else None


# A probe that takes longer than this is hung: a working nvcc answers --version in well
# under a second. A tool that hung once is not asked again in the same process, so a hanging
# nvcc costs one timeout, not one per check.
PROBE_TIMEOUT_S = 8.0
_hung_tools: set[str] = set()


def run_probe(
    args: list[str], timeout: float = PROBE_TIMEOUT_S, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str] | None:
    """Run a tool, its output captured as text (undecodable bytes replaced); None when it
    cannot run or does not finish in `timeout` seconds (it is then killed with its children)."""
    if args[0] in _hung_tools:
        return None
    try:
        process = subprocess.Popen(
            args,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            env=None if env is None else dict(env),
            start_new_session=True,  # its own process group: a timeout kills the children too
        )
    except (OSError, ValueError):
        return None
    try:
        out, err = process.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        _hung_tools.add(args[0])
        with contextlib.suppress(OSError):
            os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        return None
    return subprocess.CompletedProcess(
        args, process.returncode, out.decode(errors="replace"), err.decode(errors="replace")
    )


def toolkit_behind(nvcc: Path) -> Path | None:
    """The toolkit root an `nvcc` command really runs from, even through a wrapper script."""
    real = nvcc.resolve()
    if is_toolkit(real.parent.parent):
        return real.parent.parent
    probe = run_probe([str(nvcc), "-dryrun", "-c", "-x", "cu", os.devnull, "-o", os.devnull])
    if probe is None:
        return None
    match = re.search(r"^#\$ _HERE_=(.+)$", probe.stdout + probe.stderr, re.MULTILINE)
    if match:
        root = Path(match.group(1).strip()).parent
        if is_toolkit(root):
            return root
    return None


def locate_cuda_home(env: Mapping[str, str] | None = None) -> CudaHome:
    """Find the toolkit: $CUDA_HOME/$CUDA_PATH, else the nvcc on PATH (through wrappers), else
    /usr/local/cuda. An explicit variable that points at no toolkit is reported, not trusted."""
    env = os.environ if env is None else env
    guess = torch_cuda_home_guess(env)
    for variable in ("CUDA_HOME", "CUDA_PATH"):
        value = env.get(variable)
        if value:
            path = Path(value)
            if is_toolkit(path):
                return CudaHome(path, f"${variable}", guess)
            return CudaHome(None, f"${variable}={value} holds no bin/nvcc and include/", guess)
    nvcc = shutil.which("nvcc", path=env.get("PATH"))
    if nvcc:
        root = toolkit_behind(Path(nvcc))
        if root is not None:
            how = (
                "nvcc on PATH"
                if root == Path(nvcc).parent.parent
                else f"{nvcc} (a wrapper) runs {root}/bin/nvcc"
            )
            return CudaHome(root, how, guess)
    for candidate in (
        Path("/usr/local/cuda"),
        *sorted(Path("/usr/local").glob("cuda-*"), reverse=True),
    ):
        if is_toolkit(candidate):
            return CudaHome(candidate, f"{candidate}", guess)
    return CudaHome(None, "no nvcc on PATH and no /usr/local/cuda", guess)


def _nvcc_says(cuda_home: Path, flag: str) -> str | None:
    """What the toolkit's nvcc prints for `flag`; None when it cannot be run."""
    result = run_probe([str(cuda_home / "bin" / "nvcc"), flag])
    return None if result is None else result.stdout


def nvcc_version(cuda_home: Path) -> tuple[int, int] | None:
    """The toolkit's CUDA version, from `nvcc --version` ("release 13.0")."""
    out = _nvcc_says(cuda_home, "--version")
    if out is None:
        return None
    match = re.search(r"release (\d+)\.(\d+)", out)
    return (int(match.group(1)), int(match.group(2))) if match else None


def nvcc_compute_capabilities(cuda_home: Path) -> set[tuple[int, int]]:
    """The compute capabilities the toolkit's nvcc compiles for, (7, 5) for compute_75; empty
    when nvcc cannot say."""
    out = _nvcc_says(cuda_home, "--list-gpu-arch") or ""
    return {(int(cc[:-1]), int(cc[-1])) for cc in re.findall(r"compute_(\d+)", out)}


def unsupported_archs(cuda_home: Path, arch_list: list[str] | tuple[str, ...]) -> list[str]:
    """The compute capabilities in `arch_list` ("8.0", "9.0a", "8.6+PTX") that this nvcc
    cannot compile for (CUDA 13 dropped everything below 7.5, say); [] when nvcc cannot say."""
    supported = nvcc_compute_capabilities(cuda_home)
    if not supported:
        return []
    unsupported = []
    for arch in arch_list:
        match = re.match(r"(\d+)\.(\d+)", arch)
        if match and (int(match.group(1)), int(match.group(2))) not in supported:
            unsupported.append(arch)
    return unsupported


def cuda_major_mismatch(toolkit: tuple[int, int], torch_cuda: str) -> str | None:
    """Why nvcc `toolkit` cannot build for a torch built with CUDA `torch_cuda`, or None.

    Torch refuses a major mismatch; a minor one usually works.
    """
    match = re.fullmatch(r"(\d+)\.(\d+)(\.\d+)?", torch_cuda or "")
    if match is None:
        return f"torch reports CUDA version {torch_cuda!r}, which is not MAJOR.MINOR"
    wanted = int(match.group(1))
    if toolkit[0] == wanted:
        return None
    return (
        f"nvcc is CUDA {toolkit[0]}.{toolkit[1]} but torch was built with CUDA {torch_cuda}; "
        f"install a CUDA {wanted}.x toolkit, or a torch built for CUDA {toolkit[0]}"
    )


def pip_cuda_include_dirs() -> list[Path]:
    """Include folders of the NVIDIA pip wheels (nvidia/cu13/include, nvidia/cusparse/include...)."""
    spec = importlib.util.find_spec("nvidia")
    if spec is None or not spec.submodule_search_locations:
        return []
    dirs: set[Path] = set()
    for location in spec.submodule_search_locations:
        dirs.update(p for p in Path(location).glob("*/include") if p.is_dir())
    return sorted(dirs)


def find_header(header: str, folders: list[Path]) -> Path | None:
    """The first folder in `folders` holding `header`."""
    return next((folder for folder in folders if (folder / header).is_file()), None)


def links_libstdcxx_statically(compiler: str) -> bool:
    """True when `compiler` has no shared libstdc++ on its search path, so it would link the
    static one into a shared library ("-print-file-name" answers a bare name when not found)."""
    try:
        command = shlex.split(compiler)  # CXX may be "ccache g++"
    except ValueError:
        return False
    if not command:
        return False
    result = run_probe([*command, "-print-file-name=libstdc++.so"])
    return result is not None and result.stdout.strip() == "libstdc++.so"


def loaded_libstdcxx() -> Path | None:
    """The libstdc++.so.6 this process has mapped (after importing torch: the one torch uses)."""
    try:
        maps = Path("/proc/self/maps").read_text()
    except OSError:
        return None
    for line in maps.splitlines():
        path = line.split()[-1] if line.split() else ""
        if Path(path).name.startswith("libstdc++.so"):
            return Path(path)
    return None


def libstdcxx_link_args(compiler: str) -> tuple[list[str], str | None]:
    """Link arguments that keep the extension on the process's shared libstdc++, with a note
    saying why; nothing when the compiler links it dynamically anyway."""
    if not links_libstdcxx_statically(compiler):
        return [], None
    shared = loaded_libstdcxx()
    if shared is None:
        return (
            [],
            f"{compiler} would link libstdc++ statically and no shared libstdc++ is loaded to use instead",
        )
    return [
        str(shared)
    ], f"{compiler} has no shared libstdc++; linking {shared} (the one torch uses)"


def prepare_build_environment(env: MutableMapping[str, str] | None = None) -> BuildEnvironment:
    """Fix what can be fixed before torch.utils.cpp_extension is imported.

    Sets CUDA_HOME when torch's own guess would be wrong, and returns the pip-wheel include
    folders that supply headers the toolkit lacks (to be searched after the toolkit's own).
    """
    env = os.environ if env is None else env
    home = locate_cuda_home(env)
    result = BuildEnvironment(cuda_home=home.path)
    if home.path is None:
        result.notes.append(f"no CUDA toolkit found ({home.found_by})")
        return result
    if home.torch_would_fail or not env.get("CUDA_HOME"):
        env["CUDA_HOME"] = str(home.path)
        if home.torch_would_fail:
            result.notes.append(f"CUDA_HOME set to {home.path}: {home.found_by}")
    toolkit_include = home.path / "include"
    wheel_dirs = pip_cuda_include_dirs()
    for header in TORCH_CUDA_HEADERS:
        if find_header(header, [toolkit_include]) is not None:
            continue
        supplier = find_header(header, wheel_dirs)
        if supplier is None:
            result.missing_headers.append(header)
        elif supplier not in result.include_dirs:
            result.include_dirs.append(supplier)
            result.notes.append(f"{header} not in the toolkit; using the pip wheel's {supplier}")
    return result
