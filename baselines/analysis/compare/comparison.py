"""What a comparison found: per-arm summaries, flags, pairs and groups (the types only).

The rules that fill these live in `comparing.py` and `pairing.py`; reports,
the gate and the JSON of contract section 3 read them. A `Group` carries its
own arms x seeds score matrix (rliable's shape), so everything downstream
works on the group's data instead of re-selecting records by budget.
"""
from __future__ import annotations

import importlib
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...core.records import budget_key
from .pair_result import PairResult
from ..result import renderers

MEASURED, PARTIAL, UNREPORTED = "measured", "partial", "unreported"

#: The module whose `analyse` turns a Comparison into the `Analysis` its views render. Named, not imported:
#: it imports these types (a module-level import back would be a cycle), and a worker never needs it.
ANALYSE_MODULE = "baselines.analysis.result.build"


def _views() -> Any:
    """The registered views (reports/views.py), loaded by name on first use (see `result.renderers`).

    The analysis layer must not import reports (tests/test_layers.py), and a
    worker or `import baselines` must not pay for matplotlib.
    """
    return renderers.renderer("views")


def json_num(x) -> float | None:
    """A finite float for JSON, or null (JSON has no NaN)."""
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


@dataclass
class UnitSpend:
    """An arm's spend in one unit: median over runs that report it."""

    median: float | None
    status: str                # measured | partial | unreported
    reported_runs: int


@dataclass
class ArmSummary:
    arm: str
    runs: int
    scored: int
    errors: int
    mean: float
    ci: tuple[float, float]
    min: float
    median: float
    max: float
    dev_mean: float
    spend: dict[str, UnitSpend]
    first_error: str | None = None
    interval: str = "t"  # how `ci` was computed: "t", "t (skewed rewards: may under-cover)",
                         # "clopper-pearson" (0/1 rewards) or "betting" (declared range)

    def to_json(self) -> dict[str, Any]:
        out = {"arm": self.arm, "runs": self.runs, "scored": self.scored, "errors": self.errors,
               "reward": {"mean": json_num(self.mean), "ci": [json_num(self.ci[0]), json_num(self.ci[1])],
                          "interval": self.interval,
                          "min": json_num(self.min), "median": json_num(self.median), "max": json_num(self.max)},
               "dev_reward": {"mean": json_num(self.dev_mean)},
               "spend": {u: {"median": json_num(s.median), "status": s.status, "runs": s.reported_runs}
                         for u, s in self.spend.items()}}
        out["first_error"] = self.first_error
        return out


@dataclass
class Flag:
    """One arm that drifted in one unit; `spend`/`reference` are what was decided on."""

    arm: str
    unit: str
    spend: float
    reference: float
    direction: str               # over | under
    reference_source: str        # "budget" or "median of arms"
    seed: int | None = None      # the worst run, for per-run drift in the fixed unit
    runs: int = 0                # how many runs drifted (fixed unit)
    of_runs: int = 0
    lower_bound: bool = False

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"arm": self.arm, "unit": self.unit, "spend": json_num(self.spend),
                               "reference": json_num(self.reference), "direction": self.direction}
        out["reference_source"] = self.reference_source
        if self.seed is not None:
            out.update(seed=self.seed, runs=self.runs, of_runs=self.of_runs)
        if self.lower_bound:
            out["lower_bound"] = True
        return out


@dataclass
class Unverified:
    arm: str
    unit: str
    reason: str                  # unreported | partial
    reported_runs: int = 0
    runs: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"arm": self.arm, "unit": self.unit, "reason": self.reason,
                "reported_runs": self.reported_runs, "runs": self.runs}


@dataclass
class Skipped:
    """A group of the results that this comparison left out, and why (never silently)."""

    workload: str
    budget: dict[str, float]
    reason: str
    unit_nouns: dict[str, str] = field(default_factory=dict)  # the workload's words for its units (printing)

    def to_json(self) -> dict[str, Any]:
        return {"workload": self.workload, "budget": self.budget, "reason": self.reason}


@dataclass
class Group:
    """One (workload, budget): the only runs that may be compared with each other.

    `scores` is the arms x seeds matrix of the compared metric (NaN where a
    run is missing or unscored), `seeds` its column labels, and `rows` the
    positions of the group's runs in the table it was built from, in (arm,
    seed) order, so callers can reach the records without re-filtering.
    """

    workload: str
    budget: dict[str, float]
    arms: list[ArmSummary]
    units: list[str]
    unequal: list[Flag] = field(default_factory=list)
    unverified: list[Unverified] = field(default_factory=list)
    confounded: list[Flag] = field(default_factory=list)
    unreported: list[Unverified] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    pairs: list[PairResult] = field(default_factory=list)
    reference: float | None = None
    reference_source: str | None = None
    early_stopped: list[str] = field(default_factory=list)  # arms whose under-spend was accepted
    fixed: str = ""
    not_a_comparison: str | None = None   # why this group cannot answer "A vs B at equal budget"
    reward_range: tuple[float, float] | None = None  # declared by every run of the group, else None
    unit_nouns: dict[str, str] = field(default_factory=dict)  # the workload's own words for its units
    scores: np.ndarray = field(default_factory=lambda: np.empty((0, 0)))
    seeds: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64))
    rows: np.ndarray = field(default_factory=lambda: np.empty(0, dtype=np.int64))
    degraded: list = field(default_factory=list)  # `degradation.Degraded`: arms whose governor dropped stages
    over_budget: Any = None  # `over_budget.OverBudget`: runs above the allowance in the fixed unit, else None

    @property
    def valid(self) -> bool:
        return not self.unequal and not self.unverified and self.not_a_comparison is None

    @property
    def complete(self) -> bool:
        """Every arm scored every seed the group has."""
        return all(a.scored == len(self.seeds) for a in self.arms)

    @property
    def arm_names(self) -> list[str]:
        return [a.arm for a in self.arms]

    def arm(self, name: str) -> ArmSummary:
        for summary in self.arms:
            if summary.arm == name:
                return summary
        raise KeyError(name)

    def incomplete_arms(self) -> list[ArmSummary]:
        return [a for a in self.arms if a.scored < len(self.seeds)]

    def to_json(self) -> dict[str, Any]:
        return {"workload": self.workload, "budget": self.budget, "fixed": self.fixed, "valid": self.valid,
                "complete": self.complete, "not_a_comparison": self.not_a_comparison,
                "reward_range": list(self.reward_range) if self.reward_range else None,
                "unit_nouns": dict(self.unit_nouns),
                "reference": {"value": json_num(self.reference), "source": self.reference_source},
                "arms": [a.to_json() for a in self.arms],
                "unequal": [f.to_json() for f in self.unequal],
                "unverified": [u.to_json() for u in self.unverified],
                "confounded": [f.to_json() for f in self.confounded],
                "unreported": [u.to_json() for u in self.unreported],
                "notes": list(self.notes), "early_stopped": list(self.early_stopped),
                "pairs": [p.to_json() for p in self.pairs],
                "degraded": [d.to_json() for d in self.degraded],
                "over_budget": None if self.over_budget is None else self.over_budget.to_json()}


def runs_by_arm(records, group: Group) -> dict[str, list]:
    """The group's runs among `records`, by arm (for figures and pages that need traces or per-run fields)."""
    key = budget_key(group.budget)
    out: dict[str, list] = {}
    for r in records:
        if r.workload == group.workload and budget_key(r.budget) == key:
            out.setdefault(r.arm, []).append(r)
    return out


@dataclass
class Comparison:
    """Every selected group, the groups left out, and the options they were judged by.

    `fixed` is the unit given on the command line, or the one unit every
    group's budget names; None when the groups are fixed in different units
    (each group says its own).
    """

    fixed: str | None
    tolerance: float
    groups: list[Group]
    alpha: float = 0.05
    metric: str = "reward"
    metric_note: str = ""
    skipped: list[Skipped] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    #: the records compared, when `compare` was given records (not a RunTable): the views use them
    records: list[Any] | None = field(default=None, repr=False, compare=False)

    @property
    def valid(self) -> bool:
        return all(g.valid for g in self.groups)

    # -- the analysis every view renders, and the views (reports/views.py renders; see result.renderers) -----
    def analysis(self, baseline: str | None = None, records: Any = None, ranges: dict | None = None) -> Any:
        """The `Analysis` of this comparison (computed once per baseline, records and ranges; cached)."""
        records = self.records if records is None else records
        key = (baseline, id(records), id(ranges))
        cache = self.__dict__.setdefault("_analyses", {})
        if key not in cache:
            cache[key] = importlib.import_module(ANALYSE_MODULE).analyse(self, records, baseline, ranges)
        return cache[key]

    def to_markdown(self, baseline: str | None = None) -> str:
        """The markdown table, flags and pairs `costmatch report` prints."""
        return _views().to_markdown(self.analysis(baseline))

    def to_latex(self, baseline: str | None = None, columns: str | None = None) -> str:
        """Booktabs tables, as `costmatch report --format latex`."""
        return _views().to_latex(self.analysis(baseline), columns)

    def to_html(self, baseline: str | None = None, title: str = "costmatch report") -> str:
        """One self-contained HTML page with the tables, per-seed runs and figures, as `report --format html`."""
        return _views().to_html(self.analysis(baseline), title)

    def plot(self, x_unit: str | None = None, width: str = "single") -> Any:
        """Every figure the data allow: a list of matplotlib Figures that a notebook shows inline."""
        return _views().plot(self.analysis(), x_unit, width)

    def _repr_html_(self) -> str:
        return _views().html_fragment(self.analysis())

    @property
    def complete(self) -> bool:
        return all(g.complete for g in self.groups)

    def to_json(self) -> dict[str, Any]:
        out = {"fixed": self.fixed, "tolerance": self.tolerance, "alpha": self.alpha,
               "valid": self.valid, "complete": self.complete, "metric": self.metric,
               "groups": [g.to_json() for g in self.groups],
               "skipped": [s.to_json() for s in self.skipped],
               "warnings": list(self.warnings)}  # always present (contract 4.2): a reader may index it
        if self.metric_note:
            out["metric_note"] = self.metric_note
        return out
