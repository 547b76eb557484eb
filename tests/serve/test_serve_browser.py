"""The workbench in a real browser: headless Chromium (Debian's ``chromium``, driven by
Playwright; never a downloaded browser) through what a person does — open the two
permalinks, step through and filter the executions, explain a forbidden state, see bad
input marked at its line, edit a cat model, diff two models, cancel a long run, share a
link.  Screenshots go to ``$HERDSMAN_SCREENSHOTS`` when it names a directory.

Skipped, with the reason, where Chromium or Playwright is missing (``.ci/run`` installs
Chromium when it can)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from support.serve import Server

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
LONG = (
    "X86 LONG\n{ }\n P0 | P1 | P2 | P3 ;\n"
    + "".join(
        " " + " | ".join(f"MOV [x],${t * 10 + i + 1}" for t in range(4)) + " ;\n" for i in range(4)
    )
    + " MOV EAX,[x] | MOV EAX,[x] | MOV EAX,[x] | MOV EAX,[x] ;\nexists (0:EAX=1 /\\ 1:EAX=11)\n"
)
#: How long a page may take to show a result (ms): the machine may be busy.
WAIT = 90_000


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    if not os.path.exists(CHROMIUM):
        pytest.skip("needs Debian's chromium (apt-get install chromium; .ci/run installs it)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="needs Playwright (pip)")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        yield b
        b.close()


@pytest.fixture
def page(browser: Any, server: Server) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1440, "height": 1000})
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    pg.set_default_timeout(WAIT)
    yield pg
    context.close()
    assert not errors, f"the page reported errors: {errors}"


def shot(page: Any, name: str) -> None:
    """A screenshot of the whole page (kept where $HERDSMAN_SCREENSHOTS says)."""
    where = os.environ.get("HERDSMAN_SCREENSHOTS")
    if where:
        Path(where).mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(where) / f"{name}.png"), full_page=True)


def open_link(page: Any, server: Server, query: str) -> None:
    page.goto(f"{server.url}/?{query}")
    page.wait_for_selector("body[data-ready=true]")


def wait_done(page: Any, panel: str = "") -> None:
    status = f"#{panel}status" if panel else "#status"
    # a function, not an expression: the page's CSP forbids eval, rightly
    page.wait_for_function(
        f"() => !document.querySelector('{status}').classList.contains('busy') && "
        f"document.querySelector('{status}').textContent !== ''"
    )


def test_permalink_mp_shows_herds_block_and_every_execution(page: Any, server: Server) -> None:
    open_link(page, server, "example=ppc/MP+lwsync+addr.litmus&model=power")
    page.wait_for_selector("#pictures svg")
    wait_done(page)
    text = page.inner_text("#output-text")
    assert "Observation MP+lwsync+addr Never 0 3" in text
    assert page.text_content("#output-title").startswith("herd's output")
    assert page.locator("#pictures .count").inner_text() == "1 of 3"
    assert "Test MP+lwsync+addr" in page.inner_html("#pictures svg")
    assert page.locator("#states tbody tr").count() == 3
    shot(page, "mp-permalink")
    page.click("#pictures button:has-text('Next')")
    assert page.locator("#pictures .count").inner_text() == "2 of 3"
    caption = page.inner_text("#pictures .viewer-caption")
    assert caption == page.locator("#states tbody tr").nth(1).locator("td").first.inner_text()
    page.locator("#states tbody tr").nth(2).click()  # only that state's executions
    assert page.locator("#pictures .count").inner_text() == "1 of 1"
    assert page.inner_text("#pictures .viewer-caption") == "1:r1=1; 1:r4=1;"
    assert "never observed" in page.inner_text("#condition")


def test_permalink_peterson_shows_genmcs_report_and_the_violation(
    page: Any, server: Server
) -> None:
    open_link(page, server, "example=programs/peterson.c&model=tso")
    page.wait_for_selector("#pictures svg")
    wait_done(page)
    assert page.inner_text("#output-text").startswith("Error: Safety violation!")
    assert "GenMC's report" in page.text_content("#output-title")
    svg = page.inner_html("#pictures svg")
    assert "Test peterson, Generic(tso)" in svg and "Thread 2" in svg
    assert page.inner_text("#pictures .viewer-caption") == "the violating execution"
    assert page.is_disabled("#explain")  # explain takes litmus tests
    shot(page, "peterson-permalink")


def test_explain_a_forbidden_state_draws_the_cycle(page: Any, server: Server) -> None:
    open_link(page, server, "example=ppc/MP+lwsync+addr.litmus&model=power")
    page.wait_for_selector("#why")
    wait_done(page)
    page.click("#why")
    page.wait_for_function(
        "() => document.querySelector('#output-title').textContent === 'Explanation'"
    )
    page.wait_for_selector("#pictures svg")
    wait_done(page)
    assert page.text_content("#output-title") == "Explanation"
    text = page.inner_text("#output-text")
    assert "Forbidden: 1 candidate execution gives this state" in text
    assert "cycle of observation" in text
    assert "observation: " in page.inner_html("#pictures svg")  # the cycle, labelled
    assert "task=explain" in page.url
    shot(page, "mp-explain")


def test_bad_input_is_one_line_marked_in_the_editor(page: Any, server: Server) -> None:
    open_link(page, server, "")
    text = "X86 BAD\n{ }\n P0 ;\n MOV [x],$1 ;\n FROB EAX ;\nexists (x=1)\n"
    page.fill("#source-editor textarea", text)
    page.click("#run")
    page.wait_for_selector("#problem:not(.hidden)")
    wait_done(page)
    problem = page.inner_text("#problem")
    assert problem.startswith("BAD.litmus:5:") and ": error: " in problem
    assert "\n" not in problem.strip()
    assert page.inner_text("#source-editor .gutter .bad") == "5"
    shot(page, "bad-input")


def test_edit_a_cat_model_errors_at_their_line(page: Any, server: Server) -> None:
    open_link(page, server, "example=x86/SB.litmus&model=tso")
    wait_done(page)
    page.select_option("#model", "custom")
    page.wait_for_function("() => document.querySelector('#cat-editor textarea').value")
    cat = page.input_value("#cat-editor textarea")
    page.fill("#cat-editor textarea", cat + "\nacyclic nosuchrelation as broken\n")
    page.click("#run")
    page.wait_for_selector("#problem:not(.hidden)")
    wait_done(page)
    problem = page.inner_text("#problem")
    assert problem.startswith("model.cat:") and "nosuchrelation" in problem
    line = int(problem.split(":")[1])
    assert page.inner_text("#cat-editor .gutter .bad") == str(line)
    assert "model=custom" in page.url and "cat=" in page.url  # the permalink carries it
    shot(page, "cat-error")
    page.fill("#cat-editor textarea", cat)  # mended: it runs
    page.click("#run")
    page.wait_for_selector("#pictures svg")
    wait_done(page)
    assert page.is_hidden("#problem")
    assert "Test SB Allowed" in page.inner_text("#output-text")


def test_diff_two_models_with_progress(page: Any, server: Server) -> None:
    open_link(page, server, "task=diff&model=tso&model_b=sc&tests=x86")
    page.wait_for_selector("#diff-rows tbody tr")  # rows come while the diff runs
    wait_done(page, "diff-")
    rows = page.locator("#diff-rows tbody tr")
    assert rows.count() == 22
    report = page.inner_text("#diff-report pre")
    assert report.startswith("herdsman diff: A = tso, B = sc; 22 tests")
    assert "tso allows, sc forbids" in page.inner_text("#diff-rows")
    page.wait_for_selector("#diff-pictures svg")
    shot(page, "diff")


def test_cancel_a_long_run(page: Any, server: Server) -> None:
    open_link(page, server, f"text={quote(LONG)}&model=tso&engine=reference&timeout=60")
    page.wait_for_selector("#status.busy")
    page.wait_for_function("() => !document.querySelector('#cancel').disabled")
    page.click("#cancel")
    wait_done(page)
    assert page.inner_text("#status") == "cancelled"
    assert page.is_enabled("#run") and page.is_disabled("#cancel")
    assert page.is_hidden("#output")


def test_share_carries_pasted_text_and_options(page: Any, server: Server) -> None:
    open_link(page, server, "")
    text = "X86 MINE\n{ }\n P0 | P1 ;\n MOV [x],$1 | MOV EAX,[x] ;\nexists (1:EAX=1)\n"
    page.fill("#source-editor textarea", text)
    page.select_option("#model", "sc")
    page.select_option("#engine", "trust")
    page.click("#share")
    url = page.url
    assert "text=" in url and "model=sc" in url and "engine=trust" in url
    page.goto(url)  # opening the link runs it
    page.wait_for_selector("#pictures svg")
    wait_done(page)
    assert "Test MINE Allowed" in page.inner_text("#output-text")
    assert page.input_value("#source-editor textarea") == text
