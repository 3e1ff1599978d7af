"""The one error hierarchy: every failure kernelgen expects becomes one of these.

The library raises them with a one-line message that names no command-line flag; the CLI
turns them into that message (plus, where `option` says which input was at fault, the flag
that sets it) and an exit code, never a traceback.
"""

from __future__ import annotations


class KernelgenError(Exception):
    """Something went wrong while doing what was asked; nothing was written (exit 1)."""

    def __init__(self, message: str, *, option: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        # The input at fault, by its library name ("package", "kernels", "force"...), so a
        # front end can point at its own way of setting it.
        self.option = option

    def __str__(self) -> str:
        return self.message


class InvalidInput(KernelgenError):
    """The user's input is not valid; nothing was written (exit 2)."""


class NotAProject(KernelgenError):
    """A command was pointed at a folder that kernelgen did not generate."""


class ProjectConflict(KernelgenError):
    """Writing would overwrite a user's file or a hand-edited generated file."""
