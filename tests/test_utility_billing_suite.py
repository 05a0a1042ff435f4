"""The built-in utility-billing suite: the 100-call exam on the billing service and loan engine,
generated from the policy model, cast calm or angry and heard through four background conditions,
that no script can pass."""

import json
import re
from collections import Counter, defaultdict

import pytest

from callbench.backends.utility import policy
from callbench.generate.utility.agent import policy_variables
from callbench.runs import RunConfig, run_suite
from callbench.suite_check import check_suite
from tests.bounds import assert_no_script_earns

REQUESTS = re.compile(r"^requests-([0-9]+)$")
TOOLS = {
    "verify_caller", "get_account", "list_bills", "get_bill", "explain_bill", "compare_bills",
    "get_payment_history", "make_payment", "quote_payment_arrangement",
    "create_payment_arrangement", "get_payment_arrangement", "modify_payment_arrangement",
    "request_due_date_extension", "set_paperless_billing", "get_supplier_info",
    "transfer_to_human",
}  # fmt: skip


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    check = check_suite("utility-billing")
    assert not check.errors, "\n".join(map(str, check.errors))
    # the only warnings allowed: a recital of the manual can walk the caller's "anything else"
    # questions; every consent step fires on the call's own figure, so no write can follow
    assert all("can be walked" in w.message for w in check.warnings), check.warnings
    folder = tmp_path_factory.mktemp("ub")
    run = run_suite(check.suite, RunConfig(seed=0), folder)
    run.folder = folder
    return check.suite, run


def test_shape(result):
    suite, _ = result
    assert suite.manifest.languages == ["en"]
    assert len(suite.agents) == 1 and len(suite.scenarios) == 100
    loaded = next(iter(suite.agents.values()))
    agent = loaded.definition
    assert {t.name for t in agent.tools} == TOOLS | {"end_call"}
    assert {t.name for t in agent.end_tools} == {"end_call", "transfer_to_human"}
    assert len(loaded.instructions) >= 14000
    assert agent.variables == policy_variables()
    # the manual quotes the policy's figures from the policy model, not its own copies
    for figure in ("$50.00", "$500.00", "60 months", "36 months", "12 months", "6 months"):
        assert figure in loaded.instructions, figure
    counts: Counter[int] = Counter()
    for sc in suite.scenarios.values():
        assert sc.backend.kind == "service" and sc.gates is not None, sc.id
        assert sc.expected_changes is not None and sc.expected_changes.ordered, sc.id
        tags = [m for t in sc.tags if (m := REQUESTS.match(t))]
        assert len(tags) == 1, sc.id
        counts[int(tags[0].group(1))] += 1
        assert all(step.say and (step.cue or i == 0) for i, step in enumerate(sc.caller.plan))
        assert not any(t == "request:transfer" for t in sc.tags), sc.id
    assert counts == {2: 6, 3: 30, 4: 64}
    accounts = Counter(t for sc in suite.scenarios.values() for t in sc.tags if "account:" in t)
    assert len(accounts) == 24 and max(accounts.values()) <= 5
    # the overdue-instalment case (bills current, an arrangement instalment unpaid) is in the exam
    assert any("request:pay_overdue" in sc.tags for sc in suite.scenarios.values())
    assert sum("verification-retry" in sc.tags for sc in suite.scenarios.values()) >= 15


def test_casting(result):
    suite, _ = result
    casting = suite.manifest.casting
    assert set(casting.personas) == {"calm", "angry"}
    angry = casting.personas["angry"]
    assert angry.mood == "angry" and angry.patience == "low" and "supervisor" in angry.notes
    assert set(casting.backgrounds) == {"clean", "street", "cafe", "tv"}
    for name in ("cafe", "tv"):
        bg = casting.backgrounds[name]
        assert bg.intrusion_rate > 0 and bg.lines_for("en"), name


def test_oracle_scores_100_and_no_script_earns_anything(result):
    suite, run = result
    assert_no_script_earns(run.report, len(suite.scenarios))


def test_every_call_is_cast_the_same_for_every_candidate(result):
    _, run = result
    by_call = defaultdict(dict)
    for card in run.scorecards:
        assert card.conditions.get("persona") in {"calm", "angry"}, card.trace_id
        assert card.conditions.get("background") in {"clean", "street", "cafe", "tv"}
        by_call[(card.scenario_id, card.repeat)][card.candidate] = card.conditions
    for call, conditions in by_call.items():
        assert set(conditions) == {"oracle", "noop", "shortcut", "spray"}, call
        assert len({tuple(sorted(c.items())) for c in conditions.values()}) == 1, call


def test_the_oracle_changes_the_services_exactly_as_expected(result):
    """The ledger of every oracle call holds the writes the policy model predicted, in order: the
    policy model and the services agree on all 100 calls."""
    _, run = result
    cards = sorted(run.folder.glob("scorecards/oracle/*/r0.json"))
    assert len(cards) == 100
    for path in cards:
        card = json.loads(path.read_text())
        (changes,) = [i for i in card["items"] if i["id"] == "expected_changes"]
        assert changes["r"] == 1.0, (card["scenario_id"], changes["detail"])


def test_the_exam_runs_at_the_frozen_clock():
    assert policy.NOW.isoformat() == "2026-09-10T00:59:09+00:00"
