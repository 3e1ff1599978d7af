"""The one error hierarchy: every failure kernelgen expects becomes one of these.

Click turns them into a one-line message and an exit code, never a traceback:
bad input is a usage error (exit 2), a failure at run time exits 1.
"""

import click


class KernelgenError(click.ClickException):
    """Something went wrong while doing what was asked (exit 1)."""


class InvalidInput(click.UsageError):
    """The user's input is not valid (exit 2); nothing was written."""


class NotAProject(KernelgenError):
    """add-kernel was pointed at a folder that kernelgen did not generate."""


class ProjectConflict(KernelgenError):
    """Writing would overwrite a user's file or a hand-edited generated file."""
