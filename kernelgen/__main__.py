"""Allow `python -m kernelgen`."""

from kernelgen.cli import main

main(prog_name="kernelgen")
