"""Allow `python -m kernelgen`."""

from kernelgen.cli import main

main()
