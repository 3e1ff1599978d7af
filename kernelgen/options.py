"""Validate the user's answers (package, namespace, op names, arch list) into typed options.

Every check here runs before anything is rendered or written, and every failure is an
InvalidInput with one line saying what is wrong and what to do instead.
"""

from __future__ import annotations

import keyword
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

from kernelgen.cpp_global_names import CPP_GLOBAL_NAMES
from kernelgen.errors import InvalidInput

_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# Names become file names, C++ identifiers and Python calls. 40 characters (longer than any
# torch op name but a handful) is what the generated code is formatted for: up to it, ruff and
# clang-format leave every generated line as it is (tests/test_formatting.py).
MAX_NAME_LENGTH = 40
ARCH_PATTERN = re.compile(r"[0-9]+\.[0-9]+a?(\+PTX)?")  # ASCII digits only: nvcc reads no others

CPP_KEYWORDS = frozenset(
    """alignas alignof and and_eq asm auto bitand bitor bool break case catch char char8_t
    char16_t char32_t class compl concept const consteval constexpr constinit const_cast continue
    co_await co_return co_yield decltype default delete do double dynamic_cast else enum explicit
    export extern false float for friend goto if inline int long mutable namespace new noexcept
    not not_eq nullptr operator or or_eq private protected public register reinterpret_cast
    requires return short signed sizeof static static_assert static_cast struct switch template
    this thread_local throw true try typedef typeid typename union unsigned using virtual void
    volatile wchar_t while xor xor_eq""".split()
)

# Names a generated package would shadow or collide with in C++ (std::, at::, c10::...).
RESERVED_PACKAGE_NAMES = frozenset(
    {
        "torch",
        "kernelgen",
        "setuptools",
        "pytest",
        "numpy",
        "scipy",
        "triton",
        "tests",
        "benchmarks",
        "std",
        "at",
        "c10",
        "caffe2",
        "cuda",
        "nvcuda",
        "cub",
        "thrust",
        # Modules of the generated project itself: setup.py imports cuda_env, the tests and
        # benchmarks import utils, conftest and common from their folders.
        "cuda_env",
        "setup",
        "conftest",
        "utils",
        "common",
        "docs",
    }
)
# Folders the generated .gitignore leaves out of version control: a package there is lost.
GITIGNORED_NAMES = frozenset({"build", "dist", "__pycache__"})
# Names the C and C++ standard libraries define as macros (and the few CUDA adds): a kernel or
# package called so turns every use into the macro's value, and the C++ stops compiling.
C_MACROS = frozenset(
    """NULL EOF BUFSIZ FILENAME_MAX FOPEN_MAX L_tmpnam TMP_MAX SEEK_CUR SEEK_END SEEK_SET
    stdin stdout stderr errno assert offsetof setjmp va_arg va_copy va_end va_start
    EXIT_FAILURE EXIT_SUCCESS RAND_MAX MB_CUR_MAX CLOCKS_PER_SEC INFINITY NAN HUGE_VAL
    CHAR_BIT CHAR_MAX CHAR_MIN INT_MAX INT_MIN LONG_MAX LONG_MIN SCHAR_MAX SCHAR_MIN SHRT_MAX
    SHRT_MIN UCHAR_MAX UINT_MAX ULONG_MAX USHRT_MAX LLONG_MAX LLONG_MIN ULLONG_MAX
    FLT_MAX FLT_MIN DBL_MAX DBL_MIN FLT_EPSILON DBL_EPSILON SIZE_MAX PTRDIFF_MAX
    INT8_MAX INT16_MAX INT32_MAX INT64_MAX UINT8_MAX UINT16_MAX UINT32_MAX UINT64_MAX
    EDOM ERANGE EILSEQ SIGABRT SIGFPE SIGILL SIGINT SIGSEGV SIGTERM SIG_DFL SIG_ERR SIG_IGN
    M_PI M_E WITH_CUDA USE_CUDA TORCH_TARGET_VERSION __CUDA_ARCH__""".split()
)
# Torch's own operator namespaces.
RESERVED_NAMESPACES = frozenset({"aten", "prim", "prims", "torch", "c10", "quantized", "_"})
# The C++ ABIs a project can build on: torch's full C++ API (a wheel per torch release), or
# the stable ABI (one abi3 wheel for this torch and every later one).
ABIS = ("standard", "stable")
# The oldest torch a stable-ABI project runs on (its TORCH_TARGET_VERSION): 2.10 is the first
# release whose stable API has all the reference kernels use (new_empty with a dtype,
# contiguous, zero_, copy_, parallel_for and the CUDA error checks).
STABLE_ABI_MIN_TORCH = "2.10"


def torch_target_version(version: str) -> str:
    """TORCH_TARGET_VERSION for torch `version` ("2.10" -> "0x020a000000000000"): the major
    and minor release in the top two bytes, as torch/csrc/stable/version.h reads it."""
    major, minor = (int(part) for part in version.split(".")[:2])
    return f"0x{major:02x}{minor:02x}000000000000"


# Attributes of the generated package that an op name must not replace.
RESERVED_OP_NAMES = frozenset({"ops", "csrc", "torch", "testing"})


@dataclass(frozen=True)
class KernelChoice:
    """One reference kernel to instantiate: `template` named `name` (files and ops derive from
    it); no name means the template's default, filled in by kernelgen.catalog."""

    template: str
    name: str | None = None

    @classmethod
    def parse(cls, spec: str) -> KernelChoice:
        """Parse `TEMPLATE` or `TEMPLATE=NAME`."""
        template, sep, name = spec.partition("=")
        if sep and not name.strip():
            raise InvalidInput(
                f"kernel {spec!r}: the name after '=' is empty; give one, or drop the '='",
                option="kernels",
            )
        return cls(template=template.strip(), name=name.strip() if sep else None)


@dataclass(frozen=True)
class ProjectOptions:
    """Everything `kernelgen new` needs to know, already validated."""

    package: str
    namespace: str
    kernels: tuple[KernelChoice, ...]
    arch_list: tuple[str, ...] = ("9.0",)
    distribution: str = field(default="")
    abi: str = "standard"

    def __post_init__(self) -> None:
        validate_package_name(self.package)
        if self.abi not in ABIS:
            raise InvalidInput(f"abi {self.abi!r} is not one of: {', '.join(ABIS)}", option="abi")
        validate_namespace(self.namespace)
        validate_arch_list(self.arch_list)
        if not self.kernels:
            raise InvalidInput("a project needs at least one kernel", option="kernels")
        for kernel in self.kernels:
            if kernel.name is not None:
                validate_kernel_name(kernel.name)
        if not self.distribution:
            object.__setattr__(self, "distribution", self.package.replace("_", "-"))


def default_package_name(directory: Path | str) -> str:
    """The package name `new` proposes for DIR: its base name with '-' and '.' made '_'."""
    base = Path(directory).resolve().name if str(directory) in ("", ".") else Path(directory).name
    return base.replace("-", "_").replace(".", "_")


def _check_identifier(name: str, what: str, option: str) -> None:
    def refuse(problem: str) -> InvalidInput:
        return InvalidInput(f"{what} {name!r} {problem}", option=option)

    if not name:
        raise InvalidInput(f"{what} must not be empty", option=option)
    if "/" in name or "\\" in name or ".." in name:
        raise refuse("must not contain path separators or '..'")
    if not _IDENTIFIER.fullmatch(name):
        raise refuse(
            "is not a valid identifier (letters, digits and '_', not starting with a digit)"
        )
    if keyword.iskeyword(name):
        raise refuse("is a Python keyword")
    if name in CPP_KEYWORDS:
        raise refuse("is a C++ keyword")
    if name in C_MACROS:
        raise refuse("is a C/C++ standard macro")
    if name.startswith("__") and name.endswith("__"):
        raise refuse("is a dunder name, reserved by Python")


def _check_length(name: str, what: str, option: str) -> None:
    if len(name) > MAX_NAME_LENGTH:
        raise InvalidInput(
            f"{what} {name[:MAX_NAME_LENGTH]}... is {len(name)} characters long; "
            f"the most is {MAX_NAME_LENGTH}",
            option=option,
        )


def validate_package_name(name: str) -> None:
    """A Python package name that is also usable as a C++ namespace."""
    _check_identifier(name, "package name", "package")
    _check_length(name, "package name", "package")
    reserved = {n.casefold() for n in RESERVED_PACKAGE_NAMES}
    if name.casefold() in reserved or name in sys.stdlib_module_names:
        raise InvalidInput(
            f"package name {name!r} would shadow an existing module or C++ namespace",
            option="package",
        )
    if name in GITIGNORED_NAMES:
        raise InvalidInput(
            f"package name {name!r} is a folder the generated .gitignore leaves out of version "
            "control",
            option="package",
        )


def validate_new_package_name(name: str) -> None:
    """A package name for a new project: validate_package_name, and also free in C++.

    The package is the C++ namespace of every generated source, so it must not be a name
    torch's or CUDA's headers already declare at global scope (`all`, `sin`, `index`: the
    build would fail), nor an identifier C++ reserves at global scope for the implementation
    (`__` anywhere, or a leading `_`: the C library's `_exit` is one). Only `new` asks this:
    a project made before a name joined the list keeps loading for add-kernel and update.
    """
    validate_package_name(name)
    if "__" in name or name.startswith("_"):
        raise InvalidInput(
            f"package name {name!r} is reserved at global scope in C++ ('__' anywhere, or a "
            f"leading '_'), and the package is the C++ namespace of the generated code",
            option="package",
        )
    if name in CPP_GLOBAL_NAMES:
        raise InvalidInput(
            f"package name {name!r} is already declared at global scope by torch's or CUDA's "
            f"C++ headers, and the package is the C++ namespace of the generated code; "
            f"try {name}_ops",
            option="package",
        )


def validate_namespace(name: str) -> None:
    """A torch operator namespace: ops are called as torch.ops.<namespace>.<op>."""
    _check_identifier(name, "namespace", "namespace")
    _check_length(name, "namespace", "namespace")
    if name in RESERVED_NAMESPACES:
        raise InvalidInput(f"namespace {name!r} belongs to PyTorch", option="namespace")


def validate_op_name(name: str, what: str = "op name") -> None:
    """An operator (or kernel instance) name: a function in Python, C++ and torch.ops."""
    _check_identifier(name, what, "kernels")
    if name in RESERVED_OP_NAMES or name.startswith("_"):
        raise InvalidInput(
            f"{what} {name!r} is reserved by the generated package (or starts with '_')",
            option="kernels",
        )


def validate_kernel_name(name: str) -> None:
    """A kernel instance's name: its files, C++ functions and ops derive from it."""
    validate_op_name(name, what="kernel name")
    _check_length(name, "kernel name", "kernels")


def validate_arch_list(arch_list: tuple[str, ...]) -> None:
    """CUDA compute capabilities as TORCH_CUDA_ARCH_LIST spells them: 8.0, 9.0, 9.0a, 8.6+PTX."""
    if not arch_list:
        raise InvalidInput(
            "the arch list needs at least one compute capability, e.g. 9.0", option="arch_list"
        )
    for arch in arch_list:
        if not ARCH_PATTERN.fullmatch(arch):
            raise InvalidInput(
                f"{arch!r} is not a compute capability like 8.0, 9.0, 9.0a or 8.6+PTX",
                option="arch_list",
            )


def compute_capability(arch: str) -> tuple[int, int]:
    """(9, 0) for "9.0", "9.0a" or "9.0+PTX": the part that orders architectures."""
    major, _, rest = arch.partition(".")
    minor = re.match(r"[0-9]*", rest)
    return int(major), int(minor.group(0) if minor and minor.group(0) else 0)


def parse_arch_list(values: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    """Accept `--arch 8.0 --arch 9.0` as well as `--arch "8.0;9.0"` or `--arch 8.0,9.0`."""
    arches: list[str] = []
    for value in values:
        arches.extend(a for a in re.split(r"[;, ]+", value) if a)
    return tuple(dict.fromkeys(arches))
