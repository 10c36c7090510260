"""`python -m memfiles` and the `mem` console script: the command line, with a Ctrl-C or an exhausted memory
at any moment — even while the command line's modules are still being imported — one line and its exit code."""

import sys


def main() -> None:
    """Run `mem`; an interrupt exits 130 and running out of memory exits 1, each with one line, no traceback.

    Every write is atomic (a temporary file renamed into place, then one commit), so stopping anywhere leaves
    each file as it was or as written, never half-written."""
    try:
        from memfiles.cli import main as run

        run()
    except KeyboardInterrupt:
        sys.stderr.write("mem: error: interrupted\n")
        raise SystemExit(130) from None
    except MemoryError:
        sys.stderr.write("mem: error: out of memory: the input is too large to handle; nothing was written\n")
        raise SystemExit(1) from None


if __name__ == "__main__":
    main()
