"""`python -m memfiles` runs the `mem` command line."""

from memfiles.cli import run

run()
