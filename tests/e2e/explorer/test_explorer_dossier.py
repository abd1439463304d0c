"""The dossier page, in Chromium: the service's dossier of a model version, printable, as a PDF.

The page is reached from the model version card of the demo story; what it shows is the
`dossier` answer for the same id with the same token, and its PDF is the one
`/v1/dossier/{id}?format=pdf` answers.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

import httpx
import pytest
from explorer_helpers import WAIT_MS, Api, Explorer, Stories, node_route, page_route
from playwright.sync_api import Browser

_DOSSIER = "query ($id: ID!) { dossier(id: $id) { id title html gaps } }"

_FRAME = "iframe.dossier-frame"
# The frame's document has been parsed and laid out (its body holds the document's text).
_FRAME_LOADED = """sel => { const f = document.querySelector(sel);
  const d = f && f.contentDocument;
  return !!d && d.readyState === 'complete' && !!d.body && d.body.innerText.trim().length > 0; }"""
# The text and the headings of a document, as the browser lays them out.
_TEXT = "() => document.body.innerText"
_HEADINGS = """() => [...document.querySelectorAll('h1, h2, h3')]
  .map(h => h.textContent.replace(/\\s+/g, ' ').trim())"""
# Chrome the explorer draws around every page.
_CHROME = ("header.top", '[aria-label="Main"]', "button:text-is('Sign out')")


def _version(stories: Stories) -> str:
    return f"model:{stories.demo}/chat-1b@1.0.0"


def _dossier(api: Api, token: str, node: str) -> dict[str, Any] | None:
    found: dict[str, Any] | None = api.data(token, _DOSSIER, {"id": node})["dossier"]
    return found


def _rest(api: Api, token: str, node: str, fmt: str) -> httpx.Response:
    return httpx.get(
        f"{api.url}/v1/dossier/{quote(node, safe='')}",
        params={"format": fmt},
        headers={"Authorization": f"Bearer {token}"},
        timeout=120,
    )


def _words(text: str) -> str:
    return " ".join(text.split())


def _open_from_card(explorer: Explorer, token: str, node: str) -> None:
    """Sign in on the model version's card, follow its Dossier link, wait for the document."""
    explorer.signed_in(token, node_route(node))
    explorer.page.locator(f'[data-node-card="{node}"]').wait_for(timeout=WAIT_MS)
    explorer.page.get_by_role("link", name="Dossier", exact=True).click()
    _wait_for_document(explorer, node)


def _wait_for_document(explorer: Explorer, node: str) -> None:
    explorer.page.locator(f'[data-dossier="{node}"]').wait_for(timeout=WAIT_MS)
    explorer.page.wait_for_function(_FRAME_LOADED, arg=_FRAME, timeout=WAIT_MS)
    explorer.shot("dossier")


def _rendered(browser: Browser, html: str) -> tuple[str, list[str]]:
    """(body text, headings) of `html` laid out by the browser on its own, scripts off."""
    context = browser.new_context(
        java_script_enabled=False, viewport={"width": 1600, "height": 1000}
    )
    try:
        page = context.new_page()
        page.set_content(html)
        text = str(page.evaluate(_TEXT))
        headings: list[str] = page.evaluate(_HEADINGS)
    finally:
        context.close()
    return text, headings


def test_the_card_links_to_the_dossier_and_the_page_shows_the_answer(
    explorer: Explorer, api: Api, stories: Stories, chromium: Browser
) -> None:
    version = _version(stories)
    _open_from_card(explorer, stories.reader, version)
    dossier = _dossier(api, stories.reader, version)
    assert dossier is not None
    page = explorer.page

    assert page.url.endswith(f"#{page_route('dossier', version)}")
    assert explorer.texts('[data-field="title"]') == [dossier["title"]]
    count = page.get_by_test_id("dossier-gaps-count")
    assert count.get_attribute("data-count") == str(len(dossier["gaps"]))
    assert explorer.texts('[data-testid="dossier-gaps"] [data-field="gap"]') == dossier["gaps"]
    if dossier["gaps"]:
        assert count.inner_text().startswith(f"{len(dossier['gaps'])} gap")
    else:
        assert count.inner_text().startswith("No gaps")

    # The frame holds the service's HTML as it is, and lays out the same text and sections.
    frame = page.locator(_FRAME)
    assert frame.get_attribute("srcdoc") == dossier["html"]
    shown_text = page.evaluate(
        f"() => document.querySelector('{_FRAME}').contentDocument.body.innerText"
    )
    shown_headings = page.evaluate(
        f"""() => [...document.querySelector('{_FRAME}').contentDocument
          .querySelectorAll('h1, h2, h3')].map(h => h.textContent.replace(/\\s+/g, ' ').trim())"""
    )
    want_text, want_headings = _rendered(chromium, dossier["html"])
    assert want_headings, "the service's dossier has no sections"
    assert shown_headings == want_headings
    assert _words(shown_text) == _words(want_text)
    assert dossier["title"] in _words(shown_text)
    # The REST route's HTML is the same document.
    rest = _rest(api, stories.reader, version, "html")
    assert rest.status_code == 200, rest.text
    assert _rendered(chromium, rest.text)[1] == want_headings
    assert not explorer.errors


def test_nothing_in_the_document_can_run(explorer: Explorer, stories: Stories) -> None:
    version = _version(stories)
    explorer.signed_in(stories.reader, page_route("dossier", version))
    _wait_for_document(explorer, version)
    sandbox = explorer.page.locator(_FRAME).get_attribute("sandbox")
    assert sandbox is not None, "the frame is not sandboxed"
    tokens = sandbox.split()
    assert "allow-scripts" not in tokens
    assert not {"allow-forms", "allow-popups", "allow-top-navigation"} & set(tokens)
    # A script and an event handler put into the frame's document do not run.
    explorer.page.evaluate(
        f"""() => {{
          const d = document.querySelector('{_FRAME}').contentDocument;
          const s = d.createElement('script');
          s.textContent = 'parent.__dossierRan = "script";';
          d.body.appendChild(s);
          const i = d.createElement('img');
          i.setAttribute('onerror', 'parent.__dossierRan = "handler";');
          i.src = 'data:image/png;base64,broken';
          d.body.appendChild(i);
        }}"""
    )
    explorer.page.wait_for_timeout(500)
    assert explorer.page.evaluate("() => window.__dossierRan ?? null") is None


def test_print_prints_the_document_and_print_media_shows_only_it(
    explorer: Explorer, stories: Stories
) -> None:
    version = _version(stories)
    explorer.signed_in(stories.reader, page_route("dossier", version))
    _wait_for_document(explorer, version)
    page = explorer.page
    # Count the print dialogs the page opens: the frame's, and the explorer's own.
    page.evaluate(
        f"""() => {{
          const w = document.querySelector('{_FRAME}').contentWindow;
          window.__prints = {{ frame: 0, page: 0 }};
          w.print = () => {{ window.__prints.frame += 1; }};
          window.print = () => {{ window.__prints.page += 1; }};
        }}"""
    )
    page.get_by_role("button", name="Print", exact=True).click()
    page.wait_for_function("() => window.__prints.frame > 0", timeout=WAIT_MS)
    assert page.evaluate("() => window.__prints") == {"frame": 1, "page": 0}

    def visible(selector: str) -> bool:
        return page.locator(selector).first.is_visible()

    for selector in _CHROME:
        assert visible(selector), f"{selector} is not shown on screen"
    assert visible('[data-field="title"]')
    page.emulate_media(media="print")
    try:
        explorer.shot("print-media")
        hidden = [
            s for s in (*_CHROME, '[data-field="title"]', "button:text-is('Print')") if visible(s)
        ]
        assert hidden == [], f"printed: {hidden}"
        assert visible(_FRAME)
        box = page.locator(_FRAME).bounding_box()
        assert box is not None
        assert box["y"] == pytest.approx(0, abs=1), "something is printed above the document"
        # The frame is as tall as its document: the printout holds all of it, not a window.
        full = page.evaluate(
            f"() => document.querySelector('{_FRAME}').contentDocument.documentElement.scrollHeight"
        )
        assert box["height"] >= full - 1
    finally:
        page.emulate_media(media="screen")
    assert visible("header.top")


def test_download_pdf_saves_the_services_pdf_under_its_name(
    explorer: Explorer, api: Api, stories: Stories
) -> None:
    version = _version(stories)
    explorer.signed_in(stories.reader, page_route("dossier", version))
    _wait_for_document(explorer, version)
    rest = _rest(api, stories.reader, version, "pdf")
    assert rest.status_code == 200, rest.text
    assert rest.headers["content-type"].startswith("application/pdf")
    named = re.search(r'filename="([^"]+)"', rest.headers["content-disposition"])
    assert named, rest.headers["content-disposition"]
    since = len(explorer.requests)
    with explorer.page.expect_download(timeout=120_000) as info:
        explorer.page.get_by_role("button", name="Download PDF", exact=True).click()
    download = info.value
    assert download.suggested_filename == named.group(1)
    saved = download.path()
    assert saved.read_bytes()[:4] == b"%PDF"
    assert explorer.texts('[data-testid="dossier-download"] code') == [named.group(1)]
    # The PDF was asked for with the token as a bearer header, never in the URL.
    asked = [r for r in explorer.requests[since:] if "/v1/dossier/" in r.url]
    assert [r.url for r in asked] == [f"{api.url}/v1/dossier/{quote(version, safe='')}?format=pdf"]
    assert asked[0].all_headers().get("authorization") == f"Bearer {stories.reader}"
    assert stories.reader not in asked[0].url
    assert not explorer.errors


def test_an_unknown_or_unreadable_version_shows_the_not_found_page(
    explorer: Explorer, api: Api, stories: Stories
) -> None:
    unknown = f"model:{stories.demo}/chat-1b@9.9.9"
    assert _dossier(api, stories.reader, unknown) is None
    assert _rest(api, stories.reader, unknown, "html").status_code == 404
    explorer.signed_in(stories.reader, page_route("dossier", unknown))
    explorer.page.get_by_test_id("not-found").wait_for(timeout=WAIT_MS)
    explorer.shot("not-found")
    assert unknown in explorer.page.get_by_test_id("not-found").inner_text()
    assert explorer.page.locator(_FRAME).count() == 0
    # A reader of another project gets the same page for the demo's version.
    version = _version(stories)
    assert _dossier(api, stories.chain_reader, version) is None
    explorer.page.get_by_role("button", name="Sign out").click()
    explorer.signed_in(stories.chain_reader, page_route("dossier", version))
    explorer.page.get_by_test_id("not-found").wait_for(timeout=WAIT_MS)
    assert version in explorer.page.get_by_test_id("not-found").inner_text()
    assert explorer.page.locator(_FRAME).count() == 0


def test_the_id_of_another_kind_of_node_shows_the_apis_error(
    explorer: Explorer, api: Api, stories: Stories
) -> None:
    run = f"run:{stories.demo}-demo-finetune-001"
    assert api.data(stories.reader, "query ($id: ID!) { node(id: $id) { id } }", {"id": run})[
        "node"
    ] == {"id": run}
    body = api.graphql(stories.reader, _DOSSIER, {"id": run})
    assert body.get("data", {}).get("dossier") is None
    [error] = body["errors"]
    explorer.signed_in(stories.reader, page_route("dossier", run))
    shown = explorer.page.locator('.error[role="alert"]')
    shown.wait_for(timeout=WAIT_MS)
    explorer.shot("error")
    assert _words(shown.inner_text()) == _words(
        f"Error ({error['extensions']['code']}): {error['message']}"
    )
    assert explorer.page.get_by_test_id("not-found").count() == 0
    assert explorer.page.locator(_FRAME).count() == 0
