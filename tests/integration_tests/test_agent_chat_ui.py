"""LangChain's agent-chat-ui (create-agent-chat-app 0.1.6's nextjs template, installed from npm and built by
scripts/agent-chat-ui.sh) against a real `langgraph dev` serving claimhop, in headless Chromium: a HoVer claim
typed in, its progress streamed, the verdict with readable citations, then a follow-up on the same thread."""

from __future__ import annotations

import os
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from test_browser import CHROMIUM, CHROMIUM_ARGS, RUN_TIMEOUT_MS, keep_screenshot

from benchmarks.launch import free_port

ROOT = Path(__file__).resolve().parents[2]
CLAIM = "Steve Augeri and the lead singer of The Runaways were both American musicians."


@pytest.fixture(scope="module")
def chat_ui(tmp_path_factory):
    """The built app, started on a free loopback port (the build happens once per CLAIMHOP_HOME)."""
    log = tmp_path_factory.mktemp("agent-chat-ui") / "agent-chat-ui.log"
    subprocess.run(["bash", str(ROOT / "scripts" / "agent-chat-ui.sh"), "build"], check=True, timeout=1800)
    port = free_port()
    with open(log, "w") as out:
        proc = subprocess.Popen(["bash", str(ROOT / "scripts" / "agent-chat-ui.sh"), "start", str(port)],
                                stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 120
        while True:
            try:
                urllib.request.urlopen(url, timeout=5)
                break
            except (urllib.error.URLError, ConnectionError):
                assert proc.poll() is None, log.read_text()[-2000:]
                assert time.time() < deadline, "agent-chat-ui did not start in 120 s"
                time.sleep(1)
        yield url
    finally:
        os.killpg(proc.pid, 15)
        proc.wait(timeout=30)


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


def ai_texts(page) -> list[str]:
    return page.eval_on_selector_all("[data-testid='ai-message'], .group.mr-auto", "els => els.map(e => e.innerText)")


def test_a_claim_in_agent_chat_ui_streams_its_progress_and_ends_with_a_readable_cited_verdict(
        server, chat_ui, browser, tmp_path):
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.goto(f"{chat_ui}/?apiUrl={server}&assistantId=claimhop")
    page.fill("textarea", CLAIM)
    page.keyboard.press("Enter")
    page.wait_for_function("document.body.innerText.includes('Retrieved')", timeout=RUN_TIMEOUT_MS)
    page.screenshot(path=tmp_path / "mid-run.png", full_page=True)
    keep_screenshot(tmp_path / "mid-run.png", "agent-chat-ui-mid-run.png")
    page.wait_for_function("document.body.innerText.includes('Verdict:')", timeout=RUN_TIMEOUT_MS)
    page.wait_for_function("document.body.innerText.includes('Model:')", timeout=60_000)
    time.sleep(2)
    page.screenshot(path=tmp_path / "verdict.png", full_page=True)
    keep_screenshot(tmp_path / "verdict.png", "agent-chat-ui-verdict.png")
    text = page.inner_text("body")
    assert not errors
    assert "First documents for the claim" in text  # a progress message streamed before the verdict
    verdict_part = text[text.index("Verdict:"):]
    assert any(v in verdict_part.split("\n", 1)[0] for v in ("SUPPORTED", "CONTRADICTED", "INSUFFICIENT_INFO"))
    assert "[1]" in verdict_part and "References" in verdict_part
    # references are readable: one per line, not run together, and no raw JSON anywhere
    assert "\n[2]" in verdict_part or "\n\n[2]" in verdict_part
    assert '{"' not in text and "[object Object]" not in text

    page.fill("textarea", "Why did you keep Steve Augeri?")
    page.keyboard.press("Enter")
    page.wait_for_function("document.body.innerText.split('Why did you keep Steve Augeri?').length > 1 && "
                           "document.body.innerText.split('Why did you keep Steve Augeri?')[1].includes('Steve Augeri')",
                           timeout=RUN_TIMEOUT_MS)
    time.sleep(3)
    after = page.inner_text("body").split("Why did you keep Steve Augeri?", 1)[1]
    assert "found" in after.lower() or "kept" in after.lower() or "selected" in after.lower()
    page.screenshot(path=tmp_path / "follow-up.png", full_page=True)
    keep_screenshot(tmp_path / "follow-up.png", "agent-chat-ui-follow-up.png")
