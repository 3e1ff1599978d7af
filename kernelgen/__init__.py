"""kernelgen: scaffold PyTorch C++/CUDA extension projects from tested reference kernels.

The pipeline, one module per stage:

    cli        parse the command line, prompt, map errors to messages and exit codes
    options    validate names and answers into ProjectOptions / KernelChoice
    catalog    discover the project skeleton and the reference kernels; resolve choices
    render     render templates into an in-memory FileSet (one Jinja environment)
    manifest   read and write kernelgen.toml and the pristine copies beside it
    reconcile  decide what becomes of one generated file rendered anew (merge: 3-way text)
    writer     check every target, then write all files or none (journal: crash safety)
    generate   the entry points new_project and add_kernel
    update     the entry point update_project
    doctor     check the machine's CUDA build environment (cuda_env: find the toolkit)
"""

__version__ = "0.1.0"

from kernelgen.generate import GenerationResult, add_kernel, new_project  # noqa: E402
from kernelgen.options import KernelChoice, ProjectOptions  # noqa: E402
from kernelgen.update import UpdateResult, update_project  # noqa: E402

__all__ = [
    "GenerationResult",
    "KernelChoice",
    "ProjectOptions",
    "UpdateResult",
    "__version__",
    "add_kernel",
    "new_project",
    "update_project",
]
