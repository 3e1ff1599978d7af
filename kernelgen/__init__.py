"""kernelgen: scaffold PyTorch C++/CUDA extension projects from tested reference kernels.

The pipeline, one module per stage:

    cli        parse the command line, prompt, map errors to exit codes
    options    validate names and answers into ProjectOptions / KernelChoice
    catalog    discover the project skeleton and the reference kernels
    render     render templates into an in-memory FileSet (one Jinja environment)
    manifest   read and write kernelgen.toml, the record of what was generated
    writer     check every target, then write all files or none
    generate   the library entry points that tie the stages together
    doctor     check the machine's CUDA build environment
"""

__version__ = "0.1.0"

from kernelgen.generate import GenerationResult, add_kernel, new_project  # noqa: E402
from kernelgen.options import KernelChoice, ProjectOptions  # noqa: E402

__all__ = [
    "GenerationResult",
    "KernelChoice",
    "ProjectOptions",
    "__version__",
    "add_kernel",
    "new_project",
]
