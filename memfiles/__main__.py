"""`python -m memfiles` runs the `mem` command line."""

from memfiles.launch import entry

entry()
