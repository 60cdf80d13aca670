"""The chat page in a real browser (Debian's Chromium, driven by Playwright) against a real `langgraph dev` with
the real local model: submit a HoVer claim, watch every node, open a cited passage, and work at phone width."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from claims import hover_claim

from graph import NODE_ORDER

CHROMIUM = os.environ.get("CLAIMHOP_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update"]
RUN_TIMEOUT_MS = 15 * 60 * 1000


@pytest.fixture(scope="module")
def browser():
    if not Path(CHROMIUM).exists():
        pytest.fail(f"Chromium not found at {CHROMIUM}: install Debian's chromium (bash scripts/system-packages.sh)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


def keep_screenshot(path: Path, name: str) -> None:
    """Screenshots go to the test's temp folder; CLAIMHOP_SCREENSHOTS=DIR also keeps a copy there (for docs)."""
    target = os.environ.get("CLAIMHOP_SCREENSHOTS")
    if target:
        Path(target).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(target) / name)


def test_a_claim_is_checked_in_the_page_with_every_hop_and_cited_passages(server, browser, tmp_path):
    claim = hover_claim("0012d9a6")["claim"]  # 3-hop: The Runaways' lead singer ... Foxes ... Steve Augeri
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors: list[str] = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.goto(f"{server}/ui")
    page.select_option("#max-iterations", "1")
    page.fill("#claim", claim)
    page.click("#send")

    page.wait_for_selector("#hops .hop", timeout=RUN_TIMEOUT_MS)  # mid-run: the first hops are shown live
    page.screenshot(path=tmp_path / "mid-run.png", full_page=True)
    keep_screenshot(tmp_path / "mid-run.png", "ui-mid-run.png")

    page.wait_for_selector("#verdict .badge", timeout=RUN_TIMEOUT_MS)
    page.wait_for_function("!document.querySelector('#send').disabled", timeout=60_000)
    assert not errors
    states = page.eval_on_selector_all("#timeline li", "items => items.map(i => [i.dataset.node, i.className])")
    assert [node for node, _ in states] == NODE_ORDER
    assert all(any(s in cls for s in ("done", "degraded", "skipped")) for _, cls in states), states
    assert page.locator("#hops .hop").count() >= 5
    assert page.locator("#selection li").count() == 21
    verdict = page.inner_text("#verdict .badge")
    assert page.inner_text("#model-note").startswith("Model: local")  # the server's model, before and after
    assert "Model: local: Qwen2.5-Coder-1.5B-Instruct" in page.inner_text("#verdict")  # the one that answered
    assert verdict in {"SUPPORTED", "CONTRADICTED", "INSUFFICIENT INFO"}
    assert page.locator(".bubble.ai").last.inner_text().startswith("Verdict: ")
    page.screenshot(path=tmp_path / "verdict.png", full_page=True)
    keep_screenshot(tmp_path / "verdict.png", "ui-verdict.png")

    citation = page.locator("#verdict .explanation .cite").first
    if citation.count() == 0:  # an extractive explanation still cites; the reference list always does
        citation = page.locator("#verdict .references .cite").first
    citation.click()
    dialog = page.locator("#passage")
    dialog.wait_for(state="visible")
    quoted = dialog.locator("mark").inner_text()
    assert quoted and quoted in dialog.locator("#passage-text").inner_text()
    assert page.inner_text("#passage-title").startswith("[")
    page.screenshot(path=tmp_path / "passage.png")
    keep_screenshot(tmp_path / "passage.png", "ui-passage.png")
    page.keyboard.press("Escape")

    # a follow-up on the same thread is answered from the check's recorded hops and scores
    kept = set(page.eval_on_selector_all("#selection .doc", "els => els.map(e => e.textContent)"))
    seen = page.eval_on_selector_all("#hops .chip", "els => els.map(e => e.textContent)")
    dropped = next(t for t in seen if t not in kept)
    answers = page.locator(".bubble.ai").count()
    page.fill("#claim", f"Why did you drop {dropped}?")
    page.click("#send")
    page.wait_for_function(f"document.querySelectorAll('.bubble.ai').length > {answers}", timeout=120_000)
    assert f'"{dropped}" was retrieved but dropped' in page.locator(".bubble.ai").last.inner_text()
    assert page.inner_text("#verdict .badge") == verdict  # the check itself is unchanged

    page.reload()  # the check is kept as a thread and can be reopened
    page.locator("#thread-list button", has_text=claim[:30]).first.click()
    page.wait_for_selector("#verdict .badge")
    assert page.inner_text("#verdict .badge") == verdict

    page.set_viewport_size({"width": 390, "height": 844})  # phone width: one column, nothing cut off sideways
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    page.screenshot(path=tmp_path / "phone.png", full_page=True)
    keep_screenshot(tmp_path / "phone.png", "ui-phone.png")
