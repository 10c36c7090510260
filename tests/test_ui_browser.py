"""`mem ui` in a real headless Chromium (Debian's `chromium`, driven by Playwright): open the home, a scope and
a key's timeline, accept a proposed fact, resolve a conflict, reject a quarantined episode where the API has a
quarantine, forget a fact; each change checked in MEMORY.md and `git log`, and the hostile value checked to run
no script. Screenshots of the home, a scope and a timeline go to the test's temporary folder.

Skipped, with the reason, where Chromium or Playwright is not installed (`.ci/run` installs both).
"""

from __future__ import annotations

import os
import queue
import re
import shutil
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ui_home import HOSTILE, build, commits

CHROMIUM = os.environ.get("MEM_UI_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"  # Debian's
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)) and not shutil.which("chromium"):
    pytest.skip(
        f"no Chromium at {CHROMIUM}: apt-get install -y chromium to run the browser test", allow_module_level=True
    )
sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed: pip install playwright")


@pytest.fixture
def served(isolated: Path) -> Iterator[tuple[str, Path]]:
    """`mem ui --no-open` on a free port of 127.0.0.1, serving a built home; yields its URL (with the token)."""
    root = isolated / "home"
    build(root)
    command = [sys.executable, "-m", "memfiles", "--home", str(root), "ui", "--no-open", "--port", "0"]
    server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: queue.Queue[str] = queue.Queue()
    assert server.stdout is not None
    threading.Thread(target=lambda: [lines.put(line) for line in server.stdout], daemon=True).start()  # type: ignore[union-attr]
    try:
        first = lines.get(timeout=60)
    except queue.Empty:
        server.kill()
        pytest.fail(f"mem ui printed no address in 60 s; stderr: {server.stderr.read() if server.stderr else ''}")
    found = re.search(r"(http://127\.0\.0\.1:\d+/\?token=\S+)", first)
    assert found, first
    try:
        yield found[1], root
    finally:
        server.terminate()
        server.wait(timeout=30)


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Any]:
    with sync_api.sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path / "profile"), executable_path=CHROMIUM, headless=True, args=ARGS
        )
        context.set_default_timeout(30_000)
        try:
            yield context
        finally:
            context.close()


def memory(root: Path) -> str:
    return (root / "users" / "alice" / "MEMORY.md").read_text()


def status_of(root: Path, key: str, value: str) -> str:
    """The status MEMORY.md gives the fact `key` = `value`."""
    for block in memory(root).split("\n- id: "):
        if f"\n  key: {key}\n" in block and f"\n  value: {value}\n" in block:
            found = re.search(r"\n  status: (\w+)", block)
            assert found
            return found[1]
    raise AssertionError(f"no fact {key} = {value} in MEMORY.md")


def png(path: Path) -> None:
    data = path.read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n") and len(data) > 1000, path


def test_a_person_browses_and_settles_memory_in_chromium(
    served: tuple[str, Path], browser: Any, tmp_path: Path
) -> None:
    url, root = served
    page = browser.new_page()
    dialogs: list[str] = []

    def on_dialog(dialog: Any) -> None:
        dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.accept() if dialog.type == "confirm" else dialog.dismiss()

    page.on("dialog", on_dialog)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))

    # The home: the token becomes a cookie and leaves the address.
    page.goto(url)
    assert "token=" not in page.url
    alice_row = page.locator('tr[data-scope="user:alice"]')
    assert alice_row.locator("td").nth(2).inner_text() == "1"  # one key in conflict
    page.screenshot(path=str(tmp_path / "home.png"), full_page=True)
    png(tmp_path / "home.png")

    # A scope: the hostile nickname is text, and no script ran.
    page.click("text=user:alice")
    page.wait_for_selector("#facts")
    assert HOSTILE in page.locator('td.value:has-text("onerror")').inner_text()
    assert page.locator("main img").count() == 0
    assert not [d for d in dialogs if d.startswith("alert")]
    # a bidi override typed into MEMORY.md by hand: held back from every reader, listed for review, made visible
    assert "Enter⟦U+202E⟧esirp" not in page.locator("#facts").inner_text()
    assert "Enter⟦U+202E⟧esirp" in page.locator("#review").inner_text()
    page.screenshot(path=str(tmp_path / "scope.png"), full_page=True)
    png(tmp_path / "scope.png")

    # A key's timeline: what is believed now, and on a day in April by the slider.
    page.click('#facts a:text("notification_channel")')
    page.wait_for_selector("#timeline")
    assert page.locator("#asof-values").inner_text() == "email"
    assert page.locator("g.bar").count() == 2
    page.fill("#asof-date", "2026-04-15")
    page.dispatch_event("#asof-date", "change")
    assert page.locator("#asof-values").inner_text() == "sms"
    assert page.locator("#asof-day").inner_text() == "2026-04-15"
    page.screenshot(path=str(tmp_path / "timeline.png"), full_page=True)
    png(tmp_path / "timeline.png")

    # Accept the proposed fact.
    page.goto(url.split("?")[0] + "s/user:alice")
    assert status_of(root, "shipping_city", "Toronto") == "proposed"
    page.locator('#review tr:has-text("shipping_city") button:text("Accept")').click()
    page.wait_for_selector(".done")
    assert "accept" in page.locator(".done").inner_text()
    assert status_of(root, "shipping_city", "Toronto") == "active"
    assert commits(root)[0] == "mem: accept user:alice shipping_city"

    # Resolve the conflict: keep the stated value.
    page.locator('.rival:has-text("Enterprise") button:text("Keep this one")').click()
    page.wait_for_selector(".done")
    assert status_of(root, "plan_tier", "Enterprise") == "active"
    assert status_of(root, "plan_tier", "Pro") == "superseded"
    assert commits(root)[0] == "mem: resolve user:alice plan_tier"
    assert page.locator("#conflicts .conflict").count() == 0

    # Forget, behind the confirmation ui.js asks for.
    page.locator('#facts tr:has-text("onerror") button:text("Forget")').click()
    page.wait_for_selector(".done")
    assert any(d.startswith("confirm: Forget this fact?") for d in dialogs)
    assert "onerror" not in memory(root)
    assert commits(root)[0].startswith("mem: forget user:alice")

    # A quarantined episode (the API's flagged(); the page says so where a memfiles has no quarantine).
    import memfiles

    alice = memfiles.open_home(root).user("alice")
    _reject_a_quarantined_episode(page, url, root, alice)

    assert errors == [] and not [d for d in dialogs if d.startswith("alert")]


def _reject_a_quarantined_episode(page: Any, url: str, root: Path, alice: Any) -> None:
    """The guard held the builder's injection-shaped episode back; a person rejects it from the review queue."""
    held = alice.flagged()
    assert held, "the builder's quarantined episode is not held"
    page.goto(url.split("?")[0] + "s/user:alice")
    episode_id = held[0].id
    page.locator(f'tr[data-episode="{episode_id}"] button:text("Reject")').click()
    page.wait_for_selector(".done")
    assert all(h.id != episode_id for h in alice.flagged())
    assert "reject" in commits(root)[0]
