"""A scope the home has no memory for (a typo, `-u alcie`) is named on stderr with the close names; stdout is
what it would have been."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from memfiles.cli import app

runner = CliRunner()


def _seed(home: Path) -> None:
    for user in ("alice", "alan"):
        assert runner.invoke(app, ["add", "-u", user, "notification_channel", "email"]).exit_code == 0


def test_a_typo_in_the_user_says_so_with_the_close_names_and_changes_nothing_else(home: Path) -> None:
    _seed(home)
    typo = runner.invoke(app, ["recall", "email", "-u", "alcie"])
    nobody = runner.invoke(app, ["recall", "email", "-u", "zed"])
    assert typo.exit_code == 0 and nobody.exit_code == 0
    assert "no memory for user 'alcie'" in typo.stderr and "did you mean alice" in typo.stderr
    assert "no memory for user 'zed'" in nobody.stderr and "did you mean" not in nobody.stderr
    assert typo.stdout == nobody.stdout.replace("user:zed", "user:alcie")  # the same empty block
    assert "email" not in typo.stdout
    assert not (home / "users" / "alcie").exists()  # reading never makes a scope


def test_a_known_user_gets_no_warning(home: Path) -> None:
    _seed(home)
    found = runner.invoke(app, ["recall", "email", "-u", "alice"])
    assert found.exit_code == 0 and found.stderr == "" and "email" in found.stdout


def test_render_show_and_the_hook_name_the_typo_too(home: Path) -> None:
    _seed(home)
    for args in (["render", "-u", "alcie"], ["show", "-u", "alcie"], ["history", "goal", "-s", "user:alcie"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 0 and "did you mean alice" in result.stderr, args
    hook = runner.invoke(app, ["recall", "--hook", "-u", "alcie"], input=json.dumps({"prompt": "email"}))
    assert hook.exit_code == 0 and hook.stdout == "" and "did you mean alice" in hook.stderr
