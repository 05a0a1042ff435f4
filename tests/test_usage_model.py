"""The household usage model and the 24-account manifest of the utility-billing benchmark.

The model must be deterministic and physically sensible (hotter weather, more cooling; a home
without air conditioning barely follows the weather), and the manifest must hold exactly the
design's 24 cases - each boundary on the figure it is there to test.
"""

import datetime as dt
import math
import re
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError

from callbench.backends.utility import usage
from callbench.backends.utility.usage import (
    PERIODS,
    WEATHER_SEED,
    Household,
    daily_kwh,
    period_kwh,
    weather,
)

MANIFEST = Path(usage.__file__).with_name("accounts.yaml")
TODAY = dt.date(2026, 9, 10)
DUE = {1: dt.date(2026, 6, 27), 2: dt.date(2026, 7, 27), 3: dt.date(2026, 8, 27)}
# the lead's tariff (issue 14 brief), only to check that the manifest's partial payments fit
CUSTOMER_CHARGE, DISTRIBUTION, TAX = Decimal("11.50"), Decimal("0.0712"), Decimal("0.059")

CENTRAL = Household(seed=7, floor_area_m2=150, ac="central", base_load_kwh_day=6, occupants=3)
NO_AC = Household(seed=7, floor_area_m2=150, ac="none", base_load_kwh_day=6, occupants=3)


@pytest.fixture(scope="module")
def manifest() -> dict:
    return yaml.safe_load(MANIFEST.read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def by_case(manifest) -> dict[int, dict]:
    out = {}
    for account in manifest["accounts"]:
        number = int(account["case"].split(":")[0])
        assert number not in out, f"case {number} appears twice"
        out[number] = account
    return out


def fpl_percent(account: dict) -> int | None:
    if account["annual_income"] is None:
        return None
    guideline = 15650 + 5500 * (account["household_size"] - 1)
    return (100 * account["annual_income"]) // guideline


def bill_total(kwh: int, price: float) -> Decimal:
    energy = Decimal(kwh) * (DISTRIBUTION + Decimal(str(price)))
    total = (CUSTOMER_CHARGE + energy) * (1 + TAX)
    return total.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


def add_months(day: dt.date, months: int) -> dt.date:
    y, m = divmod(day.year * 12 + day.month - 1 + months, 12)
    return dt.date(y, m + 1, min(day.day, 28))


# --- the model ---------------------------------------------------------------------------------


def test_same_parameters_give_the_same_kwh_and_weather():
    twin = Household(**CENTRAL.model_dump())
    assert period_kwh(CENTRAL) == period_kwh(twin)
    assert daily_kwh(CENTRAL) == daily_kwh(twin)
    assert weather(WEATHER_SEED) == weather(WEATHER_SEED)
    assert weather(WEATHER_SEED) != weather(WEATHER_SEED + 1)
    other_noise = Household(**{**CENTRAL.model_dump(), "seed": 8})
    assert period_kwh(other_noise) != period_kwh(CENTRAL)


def test_the_periods_are_the_design_calendar_and_every_day_has_weather():
    assert [(e - s).days + 1 for s, e in PERIODS] == [31, 30, 31, 31]
    assert PERIODS[0][0] == dt.date(2026, 5, 6) and PERIODS[-1][1] == dt.date(2026, 9, 5)
    days = [d for d, _ in weather(WEATHER_SEED)]
    assert days[0] == PERIODS[0][0] and days[-1] == PERIODS[-1][1]
    assert all((b - a).days == 1 for a, b in zip(days, days[1:]))


def test_the_seasonal_curve_follows_the_monthly_normals():
    for month, normal in usage.CLIMATE_NORMALS_C:
        days = [dt.date(2026, month, d) for d in range(1, 29)]
        mean = sum(usage.seasonal_normal(d) for d in days) / len(days)
        assert abs(mean - normal) < 0.7, (month, mean, normal)


def test_weather_anomalies_persist_day_to_day_with_a_plausible_spread():
    series = weather(WEATHER_SEED)
    anomalies = [t - usage.seasonal_normal(d) for d, t in series]
    mean = sum(anomalies) / len(anomalies)
    dev = [a - mean for a in anomalies]
    var = sum(x * x for x in dev) / len(dev)
    lag1 = sum(a * b for a, b in zip(dev, dev[1:])) / (len(dev) - 1) / var
    assert 0.4 < lag1 < 0.85
    assert 1.8 < math.sqrt(var) < 4.0
    july = [t for d, t in series if d.month == 7]
    may = [t for d, t in series if d.month == 5]
    assert sum(july) / len(july) > sum(may) / len(may) + 4


def test_cooling_load_rises_with_hotter_weather(monkeypatch):
    normal = period_kwh(CENTRAL)
    assert normal[2] > normal[0] + 150  # July's period against May's
    hotter = tuple((d, t + 2.0) for d, t in usage.service_area_weather())
    monkeypatch.setattr(usage, "service_area_weather", lambda: hotter)
    warm = period_kwh(CENTRAL)
    assert all(w > n + 20 for w, n in zip(warm, normal)), (warm, normal)
    no_ac_warm = period_kwh(NO_AC)
    monkeypatch.undo()
    assert sum(no_ac_warm) - sum(period_kwh(NO_AC)) < (sum(warm) - sum(normal)) / 5


def test_a_home_without_air_conditioning_is_flatter_than_one_with_central_air():
    def swing(kwh: list[int]) -> float:
        return (max(kwh) - min(kwh)) / (sum(kwh) / len(kwh))

    assert swing(period_kwh(NO_AC)) < 0.1
    assert swing(period_kwh(NO_AC)) < swing(period_kwh(CENTRAL)) / 3


def test_efficiency_envelope_and_occupants_move_the_load_the_right_way():
    def july(**change) -> int:
        return period_kwh(Household(**{**CENTRAL.model_dump(), **change}))[2]

    assert july(ac_eer=14.0) < july() < july(ac_eer=9.0)
    assert july(envelope="tight") < july() < july(envelope="leaky")
    assert july(occupants=1) < july() < july(occupants=5)
    assert july(electric_water_heater=True) > july() + 100
    assert july(ac="window") < july()


def test_a_household_outside_150_to_1000_kwh_raises_naming_its_parameters():
    mansion = Household(
        seed=1,
        floor_area_m2=400,
        envelope="leaky",
        ac="central",
        ac_eer=8,
        base_load_kwh_day=12,
        occupants=6,
    )
    with pytest.raises(ValueError, match=r"floor_area_m2.*400") as info:
        period_kwh(mansion)
    assert "150..1000" in str(info.value)
    hermit = Household(seed=1, floor_area_m2=30, ac="none", base_load_kwh_day=1.5, occupants=1)
    with pytest.raises(ValueError, match="base_load_kwh_day"):
        period_kwh(hermit)


def test_household_parameters_are_checked():
    with pytest.raises(ValidationError):
        Household(seed=1, floor_area_m2=100, ac="none", ac_eer=10, base_load_kwh_day=4, occupants=1)
    with pytest.raises(ValidationError):
        Household(seed=1, floor_area_m2=100, ac="heat pump", base_load_kwh_day=4, occupants=1)
    with pytest.raises(ValidationError):
        Household(seed=1, floor_area_m2=100, ac="none", base_load_kwh_day=4, occupants=1, pool=True)


# --- the manifest ------------------------------------------------------------------------------


def test_the_manifest_is_labelled_synthetic_and_has_its_three_keys(manifest):
    assert set(manifest) == {"notice", "suppliers", "accounts"}
    assert "synthetic" in manifest["notice"].lower()
    assert len(manifest["accounts"]) == 24


def test_every_account_uses_150_to_1000_kwh_in_every_period(manifest):
    spread = []
    for account in manifest["accounts"]:
        kwh = period_kwh(Household(**account["usage"]))
        assert all(150 <= k <= 1000 for k in kwh), account["full_name"]
        assert account["usage"]["occupants"] == account["household_size"]
        spread.append(kwh[2])
    assert min(spread) < 250 and max(spread) > 850  # low and high summer homes both present


def test_every_design_case_is_there_once(by_case):
    assert sorted(by_case) == list(range(1, 25))


def test_identities_are_unique_and_well_formed(manifest):
    accounts = manifest["accounts"]
    for key in ("account_number", "email", "phone", "full_name"):
        values = [a[key] for a in accounts]
        assert len(set(values)) == len(values), key
    last4 = [c["last4"] for a in accounts for c in a["cards"]]
    assert len(set(last4)) == len(last4)
    for a in accounts:
        assert re.fullmatch(r"[1-9]\d{9}", a["account_number"])
        assert re.fullmatch(r"[a-z.]+@example\.(com|net|org)", a["email"])
        assert re.fullmatch(r"\d{3}-555-01\d\d", a["phone"])
        assert re.fullmatch(r"1[5-7]\d{3}", a["postal_code"])  # western and central PA
        assert 1 <= len(a["cards"]) <= 2
        assert a["supplier"] in manifest["suppliers"]
        assert all(dt.date.fromisoformat(c["expires"] + "-01") > TODAY for c in a["cards"])
    assert {s["price_per_kwh"] > 0 for s in manifest["suppliers"].values()} == {True}
    assert len(manifest["suppliers"]) == 3 and "default" in manifest["suppliers"]


def test_income_boundaries_land_on_the_stated_percents(by_case):
    assert fpl_percent(by_case[5]) == 150
    assert fpl_percent(by_case[4]) == 151
    assert fpl_percent(by_case[24]) == 250
    assert fpl_percent(by_case[6]) == 300
    assert fpl_percent(by_case[7]) == 301
    assert fpl_percent(by_case[2]) is None and fpl_percent(by_case[8]) is None
    assert fpl_percent(by_case[1]) <= 150 and fpl_percent(by_case[3]) > 300
    assert fpl_percent(by_case[19]) <= 250


def test_arrears_sit_on_49_99_and_50_00_exactly_once_each(manifest, by_case):
    partial = [a["partial"] for a in manifest["accounts"] if a["partial"]]
    assert sorted(p["leave_unpaid"] for p in partial) == [49.99, 50.00]
    price = manifest["suppliers"]
    for case, left in ((9, "49.99"), (10, "50.00")):
        account = by_case[case]
        assert account["partial"] == {"bill": 3, "leave_unpaid": float(left)}
        assert account["paid"] == [1, 2] and account["prior_arrears"] is None
        kwh = period_kwh(Household(**account["usage"]))[2]
        total = bill_total(kwh, price[account["supplier"]]["price_per_kwh"])
        assert total > Decimal(left) + 5  # a real part of bill 3 was paid


def test_bill_arrears_and_days_past_due_per_case(manifest, by_case):
    unpaid = {c: sorted({1, 2, 3} - set(a["paid"])) for c, a in by_case.items()}
    for case in (1, 2, 3, 14, 15, 16, 21, 22, 23):
        assert unpaid[case] == [], case
    for case in (4, 7, 12, 13, 24):
        assert unpaid[case] == [3], case
    for case in (5, 6, 8, 11, 19, 20):
        assert unpaid[case] == [2, 3], case
    for account in manifest["accounts"]:  # a single unpaid bill is itself >= $50 arrears
        if unpaid[int(account["case"].split(":")[0])] == [3] and not account["partial"]:
            kwh = period_kwh(Household(**account["usage"]))[2]
            price = manifest["suppliers"][account["supplier"]]["price_per_kwh"]
            assert bill_total(kwh, price) >= 50
    for case, days in ((17, 60), (18, 59)):
        prior = by_case[case]["prior_arrears"]
        assert prior["amount"] >= 500
        assert (TODAY - dt.date.fromisoformat(prior["due_date"])).days == days
        oldest_bill = min(unpaid[case], default=4)
        assert oldest_bill == 3 and (TODAY - DUE[oldest_bill]).days < days
    assert [c for c, a in by_case.items() if a["prior_arrears"]] == [17, 18]


def test_arrangements_per_case(by_case):
    broken = {c: a["arrangement"] for c, a in by_case.items() if a["arrangement"]}
    assert sorted(broken) == [11, 12, 13, 14, 15, 16]
    assert {c: broken[c]["broken_on"] for c in (11, 12, 13)} == {
        11: "2026-02-14",
        12: "2025-08-01",
        13: "2025-09-10",
    }
    for case, arrangement in broken.items():
        start = dt.date.fromisoformat(arrangement["start"])
        until = TODAY
        if arrangement["status"] == "broken":
            until = dt.date.fromisoformat(arrangement["broken_on"])
        due = [
            k for k in range(1, arrangement["term_months"] + 1) if add_months(start, k - 1) <= until
        ]
        missed, paid = arrangement["missed_instalments"], arrangement["paid_instalments"]
        assert list(range(1, paid + 1)) + missed == due, case  # instalment 1 falls due on start
        assert arrangement["down_payment"] == 0
    assert broken[14]["status"] == "active" and broken[14]["missed_instalments"] == []
    overdue = [c for c, a in broken.items() if a["status"] == "active" and a["missed_instalments"]]
    assert overdue == [15, 16]
    assert fpl_percent(by_case[15]) != fpl_percent(by_case[16])
    assert broken[15]["principal"] != broken[16]["principal"]


def test_declined_card_protections_extensions_and_paperless(manifest, by_case):
    declining = [a for a in manifest["accounts"] if any(c["declines"] for c in a["cards"])]
    assert declining == [by_case[21]] and len(by_case[21]["cards"]) == 1
    assert len(by_case[3]["cards"]) == 2
    assert [c for c, a in by_case.items() if a["shutoff_notice"]] == [19]
    assert [c for c, a in by_case.items() if a["medical_certificate_until"]] == [20]
    assert by_case[20]["medical_certificate_until"] == "2026-11-30"
    granted = {c: a["extension_last_granted"] for c, a in by_case.items()}
    assert {c: g for c, g in granted.items() if g} == {22: "2026-01-20", 23: "2025-09-10"}
    for case, on in ((1, False), (2, True), (3, False), (23, True), (24, False)):
        assert by_case[case]["paperless"] is on
    assert by_case[24]["supplier"] != "default"


def test_two_holders_have_names_a_transcription_could_confuse(by_case):
    camila, kamala = by_case[5], by_case[9]
    assert (camila["full_name"], kamala["full_name"]) == ("Camila Reyes", "Kamala Raines")
    assert camila["account_number"] != kamala["account_number"]
    assert camila["postal_code"] != kamala["postal_code"]
