"""A seeded, physically plausible model of household electricity use: the kWh on the benchmark's
bills. SYNTHETIC - no meter data, no real household, no real weather record.

Why a model and not invented numbers: a caller asks "why is my July bill so high?", and the answer
must hold together - a home with central air uses more in a hot month, a one-person flat without
air conditioning barely changes. Every kWh on a bill comes from the four terms below, driven by one
shared weather series for the service area (western Pennsylvania), so the bills of all accounts
agree with each other and with the weather.

Daily electricity of a household on day d (kWh):

    E(d) = [B + O * n * f_day(d) + W] * (1 + e_base(d))  +  C(d) * (1 + e_cool(d))

- B: base load, kWh/day (refrigerator, freezer, standby electronics, always-on lighting);
- O * n * f_day: occupant load - `PER_OCCUPANT_KWH_DAY` per occupant (cooking, laundry, lighting,
  electronics), times 1.2 when someone is home by day and, for homes empty by day, 1.15 on
  weekends (`f_day`);
- W: electric water heater (optional): per occupant `HOT_WATER_L_PER_PERSON` litres a day heated by
  `HOT_WATER_DELTA_K`, at `WATER_HEATER_EFFICIENCY`, plus tank standby loss;
- C(d): cooling. With CDD(d) = max(0, T(d) - 18.3 degC), the cooling degree-days of the day's
  mean outdoor temperature T(d),
      C(d) = CDD(d) * UA * 24/1000 * GAIN * share * f_setback / COP + fans
  UA = floor area * the envelope's heat-loss coefficient per m2 of floor (W/K, conduction and air
  leakage); GAIN scales for solar and latent (dehumidification) load; share is the part of the home
  the equipment cools (central 1, window units `WINDOW_COOLED_SHARE`, none 0); f_setback = 0.85
  when the home is empty by day (the thermostat set up), else 1; COP = EER / 3.412 (EER in
  Btu/Wh). Homes without central air run fans: `FAN_KWH_PER_CDD_OCCUPANT` per degree-day and
  occupant;
- e_base, e_cool: the household's day-to-day variation, normal with sd `BASE_NOISE_SD` and
  `COOL_NOISE_SD` (clipped at -0.5), from numpy.random.default_rng(household.seed).

Weather T(d): a seasonal curve (an annual harmonic fitted to approximate public monthly climate
normals for Pittsburgh, PA: about 16 degC in May, 21 in June, 23 in July, 22 in August, 18 in
September, 10.5 in April; rounded, approximate - no exact data is claimed) plus an AR(1) daily
anomaly a(d) = PHI * a(d-1) + eps, stationary sd `ANOMALY_SD`, from
numpy.random.default_rng(WEATHER_SEED). Heating is assumed non-electric (gas furnaces are the norm
there) and the early-May heating days add nothing.

Approximations: a degree-day model with a fixed 18.3 degC balance point for every home, no
thermal mass or humidity, one weather series for the whole service area, no holidays or vacations,
lighting not tied to day length. Nothing reads the wall clock; the same parameters always give the
same kWh. Per-period totals are rounded half up to whole kWh and must lie in 150..1000 kWh: a
household outside raises `ValueError` (the manifest's author picks other parameters - the model
never clips).
"""

from __future__ import annotations

import datetime as dt
import math
from functools import lru_cache
from typing import Literal

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, model_validator

WEATHER_SEED = 20260506
"""The one weather series of the service area (all accounts share it)."""

PERIODS: tuple[tuple[dt.date, dt.date], ...] = (
    (dt.date(2026, 5, 6), dt.date(2026, 6, 5)),
    (dt.date(2026, 6, 6), dt.date(2026, 7, 5)),
    (dt.date(2026, 7, 6), dt.date(2026, 8, 5)),
    (dt.date(2026, 8, 6), dt.date(2026, 9, 5)),
)
"""The four billing periods of the design's calendar (inclusive start and end dates)."""
FIRST_DAY, LAST_DAY = PERIODS[0][0], PERIODS[-1][1]
N_DAYS = (LAST_DAY - FIRST_DAY).days + 1

MIN_PERIOD_KWH, MAX_PERIOD_KWH = 150, 1000
"""Every period of every account lies here (the issue's 150-1,000 kWh a month)."""

CLIMATE_NORMALS_C: tuple[tuple[int, float], ...] = (
    (4, 10.5),
    (5, 16.0),
    (6, 21.0),
    (7, 23.0),
    (8, 22.0),
    (9, 18.0),
)
"""(month, mean temperature degC): approximate public climate normals for Pittsburgh, PA,
rounded; the seasonal curve is fitted to them (each placed at the 15th of its month)."""
PHI = 0.65
"""Lag-1 autocorrelation of daily mean-temperature anomalies (warm and cool spells last days)."""
ANOMALY_SD = 2.8
"""Stationary standard deviation of the daily anomaly, degC."""

CDD_BASE_C = 18.3
"""Cooling degree-day base (65 degF), the conventional balance point."""
ENVELOPE_W_PER_M2K = {"tight": 1.3, "average": 1.9, "leaky": 2.7}
"""Whole-house heat-loss coefficient per m2 of floor area, W/(m2 K): conduction and air leakage
(a newer tight house, a typical one, an old leaky one)."""
GAIN = 1.35
"""Solar and latent load on top of the conductive load."""
DEFAULT_EER = {"window": 10.0, "central": 11.5}
"""Energy efficiency ratio, Btu/Wh, when the account does not give one."""
WINDOW_COOLED_SHARE = 0.35
"""Window units cool a bedroom or two and the living room, not the whole house."""
SETBACK_FACTOR = 0.85
"""Cooling load of a home empty by day (thermostat set up while away)."""
FAN_KWH_PER_CDD_OCCUPANT = 0.06
"""Box and ceiling fans in homes without central air."""

PER_OCCUPANT_KWH_DAY = 1.8
DAYTIME_FACTOR = 1.2
WEEKEND_FACTOR = 1.15
HOT_WATER_L_PER_PERSON = 42.0
HOT_WATER_DELTA_K = 35.0
WATER_HEATER_EFFICIENCY = 0.92
WATER_HEATER_STANDBY_KWH_DAY = 1.2
BASE_NOISE_SD = 0.08
COOL_NOISE_SD = 0.15


class Household(BaseModel):
    """The parameters of one home (the `usage:` block of an account in accounts.yaml)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    seed: int = Field(ge=0)
    """the household's own day-to-day variation"""
    floor_area_m2: float = Field(ge=25, le=450)
    envelope: Literal["tight", "average", "leaky"] = "average"
    ac: Literal["none", "window", "central"]
    ac_eer: float | None = Field(default=None, ge=7, le=20)
    """Btu/Wh; None takes the type's default (`DEFAULT_EER`)"""
    base_load_kwh_day: float = Field(ge=1, le=15)
    occupants: int = Field(ge=1, le=8)
    daytime_occupancy: bool = False
    electric_water_heater: bool = False

    @model_validator(mode="after")
    def _eer_needs_ac(self) -> Household:
        if self.ac == "none" and self.ac_eer is not None:
            raise ValueError("ac_eer given for a home without air conditioning")
        return self

    @property
    def cop(self) -> float:
        """Coefficient of performance of the air conditioner (0 without one)."""
        if self.ac == "none":
            return 0.0
        return (self.ac_eer or DEFAULT_EER[self.ac]) / 3.412

    @property
    def ua_w_per_k(self) -> float:
        return self.floor_area_m2 * ENVELOPE_W_PER_M2K[self.envelope]


def _day_of_year(month: int, day: int) -> int:
    return dt.date(2026, month, day).timetuple().tm_yday


@lru_cache(maxsize=1)
def _seasonal_coefficients() -> tuple[float, float, float]:
    """Least-squares annual harmonic a + b cos(wt) + c sin(wt) through the monthly normals."""
    w = 2 * math.pi / 365.0
    t = np.array([_day_of_year(m, 15) for m, _ in CLIMATE_NORMALS_C], dtype=float)
    design = np.column_stack([np.ones_like(t), np.cos(w * t), np.sin(w * t)])
    target = np.array([c for _, c in CLIMATE_NORMALS_C])
    coef, *_ = np.linalg.lstsq(design, target, rcond=None)
    return float(coef[0]), float(coef[1]), float(coef[2])


def seasonal_normal(day: dt.date) -> float:
    """The smooth climatological mean temperature of a day, degC."""
    a, b, c = _seasonal_coefficients()
    w = 2 * math.pi / 365.0
    t = day.timetuple().tm_yday
    return a + b * math.cos(w * t) + c * math.sin(w * t)


def weather(seed: int) -> list[tuple[dt.date, float]]:
    """Daily mean outdoor temperature (degC, one decimal) for every day of the four periods:
    the seasonal curve plus an AR(1) anomaly. Synthetic."""
    rng = np.random.default_rng(seed)
    innovation_sd = ANOMALY_SD * math.sqrt(1 - PHI**2)
    eps = rng.normal(0.0, innovation_sd, N_DAYS)
    anomaly = rng.normal(0.0, ANOMALY_SD)  # start from the stationary distribution
    series = []
    for i in range(N_DAYS):
        anomaly = PHI * anomaly + float(eps[i]) if i else anomaly
        day = FIRST_DAY + dt.timedelta(days=i)
        series.append((day, round(seasonal_normal(day) + anomaly, 1)))
    return series


@lru_cache(maxsize=1)
def service_area_weather() -> tuple[tuple[dt.date, float], ...]:
    """The shared series every account's bills are computed from (`WEATHER_SEED`)."""
    return tuple(weather(WEATHER_SEED))


def cooling_degree_days(temperature_c: float) -> float:
    return max(0.0, temperature_c - CDD_BASE_C)


def daily_kwh(household: Household) -> list[tuple[dt.date, float]]:
    """The household's electricity use for every day of the four periods, kWh (unrounded)."""
    h = household
    rng = np.random.default_rng(h.seed)
    e_base = np.maximum(rng.normal(0.0, BASE_NOISE_SD, N_DAYS), -0.5)
    e_cool = np.maximum(rng.normal(0.0, COOL_NOISE_SD, N_DAYS), -0.5)
    water = 0.0
    if h.electric_water_heater:
        per_person = HOT_WATER_L_PER_PERSON * 4.186 * HOT_WATER_DELTA_K / 3600
        water = h.occupants * per_person / WATER_HEATER_EFFICIENCY + WATER_HEATER_STANDBY_KWH_DAY
    share = {"none": 0.0, "window": WINDOW_COOLED_SHARE, "central": 1.0}[h.ac]
    setback = 1.0 if h.daytime_occupancy else SETBACK_FACTOR
    cool_per_cdd = 0.0
    if h.ac != "none":
        cool_per_cdd = h.ua_w_per_k * 24 / 1000 * GAIN * share * setback / h.cop
    if h.ac != "central":
        cool_per_cdd += FAN_KWH_PER_CDD_OCCUPANT * h.occupants
    out = []
    for i, (day, temp) in enumerate(service_area_weather()):
        if h.daytime_occupancy:
            f_day = DAYTIME_FACTOR
        else:
            f_day = WEEKEND_FACTOR if day.weekday() >= 5 else 1.0
        steady = h.base_load_kwh_day + PER_OCCUPANT_KWH_DAY * h.occupants * f_day + water
        cooling = cooling_degree_days(temp) * cool_per_cdd
        out.append((day, steady * (1 + float(e_base[i])) + cooling * (1 + float(e_cool[i]))))
    return out


def period_kwh(household: Household) -> list[int]:
    """Whole kWh of each of the four billing periods; ValueError when any lies outside
    150..1000 (never clipped)."""
    days = daily_kwh(household)
    totals = []
    for start, end in PERIODS:
        total = sum(kwh for day, kwh in days if start <= day <= end)
        totals.append(math.floor(total + 0.5))
    if any(not MIN_PERIOD_KWH <= kwh <= MAX_PERIOD_KWH for kwh in totals):
        raise ValueError(
            f"household {household.model_dump()} uses {totals} kWh in the four periods; every "
            f"period must lie in {MIN_PERIOD_KWH}..{MAX_PERIOD_KWH} kWh - choose other parameters"
        )
    return totals


__all__ = [
    "MAX_PERIOD_KWH",
    "MIN_PERIOD_KWH",
    "PERIODS",
    "WEATHER_SEED",
    "Household",
    "cooling_degree_days",
    "daily_kwh",
    "period_kwh",
    "seasonal_normal",
    "service_area_weather",
    "weather",
]
