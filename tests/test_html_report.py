"""The self-contained HTML report, opened in a real headless Chromium (Debian `chromium`, driven by
Playwright).

The browser tests skip only when /usr/bin/chromium or the playwright package is missing
(`bash scripts/install --test` installs both)."""

from __future__ import annotations

import base64
import gzip
import json
import re
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from pydantic import ValidationError

from callbench.errors import CallbenchError
from callbench.reports.html import caller_diff, data_block, load_calls, render_html, viewer_data
from callbench.runs import RunConfig, run_suite
from callbench.suite_check import load_suite
from callbench.testing import FakeProvider

MINI = Path(__file__).parent / "fixtures" / "mini"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
INJECTED = '<script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">'
CALL = "oracle/reschedule/r0"
NEW_KEYS = ("intervals", "completion", "exclusions", "flake_rate", "operational")
DATA_BLOCK = re.compile(
    r'<script type="application/octet-stream" id="callbench-data"[^>]*>([^<]*)</script>'
)


def block_text(source: str) -> str:
    """The data block of a report page: base64 text only."""
    blocks = DATA_BLOCK.findall(source)
    assert len(blocks) == 1
    return blocks[0]


def decode_block(source: str):
    """What the viewer reads: the page's data block, base64-decoded, gunzipped and parsed."""
    return json.loads(
        gzip.decompress(base64.b64decode(block_text(source), validate=True)).decode("utf-8")
    )


def expected_data(run_dir: Path, report: dict | None = None) -> dict:
    """The viewer data for a run folder, through a JSON round trip (as the page would carry it)."""
    report = report if report is not None else json.loads((run_dir / "report.json").read_text())
    return json.loads(json.dumps(viewer_data(report, load_calls(run_dir, report)[0])))


def judge(body):
    """A fake judge: every criterion met and every rating 4, citing the first two messages, with a
    hostile rationale."""
    system, user = body["messages"][0]["content"], body["messages"][1]["content"]
    ids = re.findall(r'"id": "([^"]+)"', user)
    if "verify explicit claims" in system:
        return json.dumps(
            {"checks": [{"id": i, "holds": True, "evidence": [0], "quote": "x"} for i in ids]}
        )
    if "rate one recorded phone call" in system:
        return json.dumps(
            {
                "ratings": [
                    {"id": i, "rating": 4, "evidence": [0, 2], "rationale": INJECTED} for i in ids
                ]
            }
        )
    return json.dumps(
        {
            "verdicts": [
                {"id": i, "label": "met", "evidence": [2, 3], "rationale": "</script>" + INJECTED}
                for i in ids
            ]
        }
    )


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    """The mini suite with a seeded mishearing on the first caller turn (plus its authored split),
    oracle and noop,
    judged by a fake judge; then a candidate reply rewritten to carry markup that must never run."""
    suite = load_suite(MINI)
    scenario = suite.scenarios["reschedule"]
    noisy = scenario.model_copy(
        update={"channel": scenario.channel.model_copy(update={"seeded_first_turn": True})}
    )
    suite = suite.model_copy(update={"scenarios": {"reschedule": noisy}})
    out = tmp_path_factory.mktemp("html") / "run"
    with FakeProvider(judge) as provider:
        run_suite(
            suite,
            RunConfig(
                candidates=("oracle", "noop"), judge=f"openai-compatible:{provider.base_url}#judge"
            ),
            out,
        )
    path = out / "traces" / "oracle" / "reschedule" / "r0.json"
    trace = json.loads(path.read_text())
    trace["messages"][0]["text"] = "Hello, Swift Parcels. " + INJECTED
    path.write_text(json.dumps(trace, indent=1))
    return out


@pytest.fixture(scope="module")
def html_path(run_dir) -> Path:
    return render_html(run_dir, run_dir / "report.html")


@pytest.fixture(scope="module")
def browser(html_path):
    """Chromium, launched after the run is made: Playwright's sync API keeps an event loop running
    in this thread
    until it stops, and run_suite needs asyncio.run."""
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is missing (bash scripts/install --test installs Debian chromium)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("the playwright package is missing (it is in the 'test' extra)")
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


class Page:
    """A page that records console errors, page errors and every request, opened on a file."""

    def __init__(self, browser, path: Path):
        self.page = browser.new_page(viewport={"width": 1400, "height": 1000})
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.url = path.resolve().as_uri()

    def open(self, init_script: str | None = None) -> Page:
        """Load the page and wait until the trace viewer has inflated its data (or said it could
        not)."""
        if init_script:
            self.page.add_init_script(init_script)
        self.page.goto(self.url)
        self.page.wait_for_load_state("load")
        self.page.wait_for_selector(
            '#call-list[data-state="ready"], #call-list[data-state="failed"]', state="attached"
        )
        return self

    def open_call(self, key: str):
        self.page.click(f'button.call-link[data-call="{key}"]')
        self.page.wait_for_selector("#call-view .entry")


@pytest.fixture
def page(browser, html_path):
    p = Page(browser, html_path).open()
    yield p
    p.page.close()


def test_loads_with_no_console_errors_and_no_network(page):
    page.page.wait_for_timeout(200)
    assert page.errors == []
    assert page.requests == [page.url]
    board = page.page.inner_text("#leaderboard")
    assert "oracle" in board and "noop" in board
    for section in ("forest", "slices", "tradeoffs", "exclusions", "calls"):
        assert page.page.is_visible(f"#{section}")
    assert page.page.locator("#forest svg circle").count() >= 4
    assert page.page.locator("#call-list button.call-link").count() == 2
    csp = page.page.get_attribute('meta[http-equiv="Content-Security-Policy"]', "content")
    assert "default-src 'none'" in csp and "script-src 'sha256-" in csp


def test_injected_markup_is_text_and_never_runs(page, html_path):
    source = html_path.read_text()
    assert "<script>window.__pwned" not in source and "<img src=x" not in source
    assert source.count("<script") == 2  # the data block and the viewer
    assert re.fullmatch(
        r"[A-Za-z0-9+/]*={0,2}", block_text(source)
    )  # nothing in it can end the block
    calls = {c["key"]: c for c in decode_block(source)["calls"]}
    assert (
        INJECTED in calls[CALL]["trace"]["messages"][0]["text"]
    )  # the markup is in the data, as data
    page.open_call(CALL)
    judged = page.page.locator('#call-view .verdict[data-id="looked_up_first"]')
    judged.wait_for()
    assert page.page.evaluate("window.__pwned") is None
    assert page.page.locator("#call-view script, #call-view img, img").count() == 0
    first = page.page.inner_text('#call-view .entry[data-index="0"]')
    assert INJECTED in first  # shown as the characters the candidate produced
    assert INJECTED in judged.inner_text()  # a judge's rationale is text too
    assert page.errors == [] and page.requests == [page.url]


def test_trace_viewer_links_a_verdict_to_the_entries_it_cites(page):
    page.open_call(CALL)
    view = page.page.locator("#call-view")
    assert "reschedule" in view.locator("h3").inner_text()
    facts = view.locator(".facts").inner_text()
    for fact in ("candidate", "scenario", "agent", "end", "task", "conversation"):
        assert fact in facts
    verdict = view.locator('.verdict[data-id="move"]')
    link = verdict.locator("button.ev-link").first
    index = link.get_attribute("data-index")
    page.page.evaluate("window.scrollTo(0, 0)")
    link.click()
    entry = view.locator(f'.entry[data-index="{index}"]')
    assert "cited" in entry.get_attribute("class")
    assert view.locator(".entry.cited").count() == 1
    box, height = entry.bounding_box(), page.page.viewport_size["height"]
    assert box is not None and 0 <= box["y"] and box["y"] + min(box["height"], 50) <= height
    assert (
        "reschedule_delivery" in entry.inner_text()
    )  # the cited entry is the tool result the action matched
    assert "active" in verdict.get_attribute("class")
    # a judged verdict citing two entries highlights both when its name is clicked
    view.locator('.verdict[data-id="looked_up_first"] button.vtitle').click()
    assert sorted(
        view.locator(".entry.cited").evaluate_all("ns => ns.map(n => n.dataset.index)")
    ) == ["2", "3"]


def test_call_transcript_shows_damage_fragments_tools_and_matchers(page, run_dir):
    page.open_call(CALL)
    view = page.page.locator("#call-view")
    trace = json.loads((run_dir / "traces" / "oracle" / "reschedule" / "r0.json").read_text())
    first_turn = trace["caller_turns"][0]
    seeded = first_turn["channel_events"][0]
    assert seeded["applied"] and seeded["kind"] == "substitute"
    entry = view.locator(f'.entry[data-index="{first_turn["message_indices"][0]}"]')
    assert "caller meant: " + first_turn["intended"] in entry.inner_text()
    assert entry.locator("mark.lost").inner_text() == seeded["before"]
    assert entry.locator("mark.damage").inner_text() == seeded["after"]
    assert (
        f"{seeded['before']} → {seeded['after']}" in entry.locator(".channel.applied").inner_text()
    )
    split_turn = next(t for t in trace["caller_turns"] if len(t["observed"]) > 1)
    second = view.locator(f'.entry[data-index="{split_turn["message_indices"][1]}"]').inner_text()
    assert (
        "CALLER (cont.)" in second
        and "fragment 2/2" in second
        and split_turn["observed"][1] in second
    )
    text = view.inner_text()
    assert "→ lookup_parcel(" in text and '"tracking_id":"SP-0412"' in text
    assert "✓ args.tracking_id eq: expected SP-0412, got SP-0412" in text
    tool = view.locator(".entry.role-tool").first
    tool.locator("details.json", has_text="returned").locator("summary").click()
    assert '"status": "in_transit"' in tool.inner_text()
    assert "END: end_tool" in text


def test_filters_and_deep_links(page):
    page.page.click('#leaderboard a[href="#calls=noop"]')  # a candidate's row lists its calls
    # the viewer reacts to the hash change on its own turn of the event loop
    # polls from outside the page: the report's CSP forbids eval
    from playwright.sync_api import expect

    expect(page.page.locator("#call-list select")).to_have_value("noop", timeout=5000)
    assert page.page.locator("#call-list button.call-link:visible").all_inner_texts() == [
        "reschedule r0"
    ]
    page.page.select_option("#call-list select", "")
    assert page.page.locator("#call-list button.call-link:visible").count() == 2
    page.page.goto(page.url + "#call=" + "oracle%2Freschedule%2Fr0")
    page.page.wait_for_selector("#call-view .entry")
    assert "oracle/reschedule/r0" in page.page.inner_text("#call-view h3")
    assert page.errors == []


def test_an_older_report_renders_with_placeholders(browser, run_dir, tmp_path):
    report = json.loads((run_dir / "report.json").read_text())
    for row in report["candidates"].values():
        for key in NEW_KEYS:
            row.pop(key, None)
    for key in ("slices", "comparisons", "ranking"):
        report.pop(key, None)
    out = render_html(run_dir, tmp_path / "old.html", report)
    page = Page(browser, out).open()
    text = page.page.inner_text("body")
    assert "not available" in text and "no interval" in text
    assert "Forest plot skipped" not in text  # the point estimates are still there
    assert "Skipped: no candidate has both a completion rate and cost per call" in text
    assert "Scores by slice (language, difficulty, tags) not available" in text
    assert page.errors == [] and page.requests == [page.url]
    page.page.close()


def test_full_report_fields_draw_every_plot(browser, run_dir, tmp_path):
    report = json.loads((run_dir / "report.json").read_text())
    for i, row in enumerate(report["candidates"].values()):
        row["intervals"] = {
            m: {"estimate": 50.0 + i, "low": 40.0, "high": 60.0 + i, "samples": 100, "level": 0.95}
            for m in ("task", "conversation", "overall")
        }
        row["completion"] = {
            "passed": 1 - i,
            "of": 1,
            "rate": 1.0 - i,
            "wilson": [0.2 * (1 - i), 1.0 - 0.8 * i],
        }
        row["operational"] = {"cost_per_call": 0.01 * (i + 1), "latency_p50_s": 1.5 + i}
        row["exclusions"] = {"RateLimitError": {"count": 2, "passes": 1}}
        row["flake_rate"] = 0.25
    out = render_html(run_dir, tmp_path / "full.html", report)
    page = Page(browser, out).open()
    assert page.page.locator("#forest svg circle").count() == 6
    assert page.page.locator("#tradeoffs svg").count() == 2
    assert page.page.locator("#tradeoffs svg circle").count() == 4
    assert "RateLimitError" in page.page.inner_text("#exclusions")
    assert "[40.0, 61.0]" in page.page.inner_text("#leaderboard")
    assert page.errors == [] and page.requests == [page.url]
    page.page.close()


def test_missing_pieces_never_crash(tmp_path, run_dir):
    bare = {"schema_version": 1, "suite": {"id": "s", "sha256": "0" * 64}, "candidates": {}}
    render_html(tmp_path, tmp_path / "empty.html", report=bare)  # no traces, no candidates
    assert "No candidates" in (tmp_path / "empty.html").read_text()
    copy = tmp_path / "run"
    shutil.copytree(run_dir, copy)
    (copy / "traces" / "noop" / "reschedule" / "r0.json").write_text("{not json")
    (copy / "scorecards" / "oracle" / "reschedule" / "r0.json").unlink()
    html = render_html(copy, tmp_path / "broken.html").read_text()
    assert "not a readable JSON trace" in html


def test_a_report_that_is_not_one_is_refused_before_drawing(tmp_path):
    with pytest.raises(ValidationError, match="candidates"):
        render_html(tmp_path, tmp_path / "empty.html", report={"schema_version": 3})
    (tmp_path / "report.json").write_text('{"schema_version": 3, "suite": {}, "candidates": {}}')
    with pytest.raises(CallbenchError, match="not a callbench report .* suite.id"):
        render_html(tmp_path, tmp_path / "bad.html")
    assert not (tmp_path / "empty.html").exists() and not (tmp_path / "bad.html").exists()


def test_a_renderer_bug_raises_instead_of_losing_its_section(tmp_path, run_dir, monkeypatch):
    """The page used to swallow any exception of a section into a note; a bug must surface."""
    from callbench.reports import html

    def broken(report):
        raise ZeroDivisionError("a bug in a table")

    sections = [(sid, t, broken if sid == "slices" else b) for sid, t, b in html.SECTIONS]
    monkeypatch.setattr(html, "SECTIONS", sections)
    with pytest.raises(ZeroDivisionError, match="a bug in a table"):
        render_html(run_dir, tmp_path / "bug.html")


def test_data_block_cannot_close_its_block():
    data = {"t": "</script><!--<script>a&b</SCRIPT>", "u": "\u2028", "lone": "\ud800", "hi": "નમસ્તે"}
    text = data_block(data)
    assert re.fullmatch(r"[A-Za-z0-9+/]*={0,2}", text)
    member = base64.b64decode(text)
    assert member[:10] == bytes(
        [0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 2, 255]
    )  # no timestamp, no name, OS "unknown"
    assert json.loads(gzip.decompress(member)) == data
    assert data_block(data) == text


def test_data_block_round_trips_the_viewer_data(run_dir, html_path):
    data = decode_block(html_path.read_text())
    assert data == expected_data(run_dir)
    assert data["candidates"] == ["oracle", "noop"]
    assert sorted(c["key"] for c in data["calls"]) == ["noop/reschedule/r0", "oracle/reschedule/r0"]
    oracle = next(c for c in data["calls"] if c["key"] == CALL)
    assert oracle["card"]["items"] and oracle["diffs"] and oracle["trace"]["messages"]


def test_same_run_gives_byte_identical_pages(run_dir, tmp_path):
    first = render_html(run_dir, tmp_path / "a.html").read_bytes()
    second = render_html(run_dir, tmp_path / "b.html").read_bytes()
    assert first == second


def test_page_is_several_times_smaller_than_its_raw_data(tmp_path):
    """The built-in starter suite with three baselines (48 distinct calls, offline): the whole page
    against the compact
    JSON it carries. The two-call fixture above is too small for this (its tables, style and script
    outweigh its data).
    The run goes in a worker thread: a module's Playwright may be holding this thread's event
    loop."""
    from callbench.suite_check import check_suite

    with ThreadPoolExecutor(1) as pool:
        pool.submit(
            run_suite,
            check_suite("starter").suite,
            RunConfig(candidates=("oracle", "noop", "shortcut"), seed=0),
            tmp_path / "run",
        ).result()
    page = render_html(tmp_path / "run", tmp_path / "starter.html")
    raw = json.dumps(
        expected_data(tmp_path / "run"), ensure_ascii=False, separators=(",", ":")
    ).encode("utf-8")
    assert len(decode_block(page.read_text())["calls"]) == 48
    assert 3 * page.stat().st_size <= len(raw), (
        page.stat().st_size,
        len(raw),
    )  # 4.3x measured: tables, style
    assert 8 * len(block_text(page.read_text())) <= len(
        raw
    )  # and script are ~90 KB of it; the block alone: ~9x


def test_viewer_shows_calls_after_async_decompression(page):
    assert page.page.get_attribute("#call-list", "data-state") == "ready"
    assert "Loading" not in page.page.inner_text("#call-list")
    assert page.page.locator("#call-list button.call-link").all_inner_texts() == [
        "reschedule r0",
        "reschedule r0",
    ]
    page.open_call(CALL)
    assert page.page.locator("#call-view .entry.role-caller").count() >= 1
    assert page.page.locator("#call-view .entry.role-candidate").count() >= 1
    assert "Swift Parcels" in page.page.inner_text('#call-view .entry[data-index="0"]')
    assert page.errors == [] and page.requests == [page.url]


@pytest.mark.parametrize("case", ["no DecompressionStream", "corrupt block"])
def test_viewer_says_so_when_it_cannot_inflate_and_the_rest_still_renders(
    browser, html_path, tmp_path, case
):
    path, init = html_path, None
    if case == "no DecompressionStream":
        init = "delete window.DecompressionStream"
    else:
        source = html_path.read_text()
        path = tmp_path / "corrupt.html"
        path.write_text(
            source.replace(block_text(source), base64.b64encode(b"not gzip at all!").decode())
        )
    page = Page(browser, path).open(init)
    assert page.page.get_attribute("#call-list", "data-state") == "failed"
    message = page.page.inner_text("#call-list")
    assert "could not read the traces" in message
    assert ("DecompressionStream" in message) == (case == "no DecompressionStream")
    assert page.page.locator("#call-list button.call-link").count() == 0
    assert "oracle" in page.page.inner_text("#leaderboard")
    assert page.page.locator("#forest svg circle").count() >= 4
    assert page.page.locator('#scenarios a[href^="#calls="]').count() >= 2
    assert page.errors == [] and page.requests == [page.url]
    page.page.close()


def test_caller_diff_marks_damage_but_not_fragment_cuts():
    assert caller_diff("same words", ["same words"]) is None
    split = caller_diff("It's SP-0412.", ["It's SP-04", "12."])
    assert not any(flag for frag in split["fragments"] for _, flag in frag)
    heard = caller_diff("on the 13th, please", ["on the 30th, please"])
    assert [s for s, flag in heard["intended"] if flag] == ["13th,"]
    assert [s for s, flag in heard["fragments"][0] if flag] == ["30th,"]
    lost = caller_diff("I need the parcel", ["I need parcel"])
    assert [s for s, flag in lost["intended"] if flag] == ["the"]


def test_viewer_marks_background_speech_and_keeps_the_step_on_the_callers_words(browser, tmp_path):
    """A casting background whose television line lands in every caller turn, sometimes before the
    caller's words."""
    import shutil

    root = tmp_path / "mini"
    shutil.copytree(MINI, root)
    (root / "suite.yaml").write_text(
        (root / "suite.yaml").read_text()
        + "casting:\n  backgrounds:\n    tv: { intrusion_rate: 1.0, intrusions: { '*': [breaking "
        "news from the studio] } }\n"
    )
    with ThreadPoolExecutor(
        1
    ) as pool:  # the browser fixture's Playwright holds this thread's event loop
        pool.submit(
            run_suite, load_suite(root), RunConfig(candidates=("oracle",)), tmp_path / "run"
        ).result()
    page = Page(browser, render_html(tmp_path / "run", tmp_path / "tv.html")).open()
    page.open_call("oracle/reschedule/r0")
    says = page.page.locator("#call-view .entry.role-caller .say").all_inner_texts()
    background = [s for s in says if s.startswith("CALLER (background)")]
    assert background and all("breaking news from the studio" in s for s in background)
    stepped = [s for s in says if "[step" in s]
    assert stepped and not any("breaking news" in s for s in stepped)
    assert page.errors == []
