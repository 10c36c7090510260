"""`python -m memfiles` runs the `mem` command line."""

from memfiles.cli import main

main()
