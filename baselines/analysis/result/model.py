"""What one analysis of a results file found, as typed records: the only thing a view renders.

Why one object: the report re-derived from raw records (31 stops in 13
modules), so the pairs table and the "order differs" list printed two
intervals for one pair, the HTML headline took a ratio to the median of two
arms, and formats disagreed on which sections exist. Every number, interval,
test name, verdict and sentence a view prints is a field here, computed once
by `build.analyse`; markdown, LaTeX, CSV, HTML, JSON and the figures only
format them (tests/test_report_layer.py holds reports/ to that).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from ...core.records import budget_key


#: The word a pairs table prints for each verdict (the row names a and b)
PAIR_WORDS = {"a>b": "a>b", "b>a": "b>a", "no difference detected": "n.d.", "underpowered": "underpowered",
              "equivalent": "equivalent"}
#: The word a column against the baseline prints (the row is the arm)
VERDICT_SHORT = {"a>b": "better", "b>a": "worse", "no difference detected": "n.d.",
                 "underpowered": "underpowered", "equivalent": "equivalent"}
NOT_VALID = "not valid"   # the only word a pair of a not-valid group gets: its differences are no verdicts
VERDICT_LEGEND = ("n.d. = no difference detected; neither it nor \u201cunderpowered\u201d is evidence of "
                  "equality; \u201cnot valid\u201d = the group's budget is not verified equal, so no verdict.")


def _num(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


@dataclass(frozen=True)
class Interval:
    """A confidence interval and how it was computed ("t", "betting", "clopper-pearson", "hull t / bootstrap-t")."""

    lo: float
    hi: float
    method: str

    @property
    def half_width(self) -> float:
        return (self.hi - self.lo) / 2

    def to_json(self) -> dict[str, Any]:
        return {"lo": _num(self.lo), "hi": _num(self.hi), "method": self.method}


@dataclass
class ClaimResult:
    """One named claim about a pair ("mean difference", "typical seed", ...), its interval and its sentence.

    A pair's headline claim is the one its verdict decides (`PairRow.claim`);
    other claims (issue 37) sit beside it in `PairRow.claims`, each with the
    procedure that decided it, so a note never comes from another procedure.
    """

    claim: str            # "mean" or "typical" (compare.claims)
    claim_word: str       # how a table names it: "mean", "typical seed"
    estimate: float
    interval: Interval | None
    test: str             # the procedure that decided this claim (its p's method)
    p: float
    p_label: str          # the p column's name for this p ("paired t", "sign-flip", "sign test", ...)
    p_adjusted: float
    verdict: str
    verdict_word: str
    notes: list[str] = field(default_factory=list)   # from this claim's own procedure only
    sentence: str = ""
    about: str = ""       # item-paired mean: "about the question population (20 questions)" (issue 37 item 2)

    def to_json(self) -> dict[str, Any]:
        return {"claim": self.claim, "about": self.about, "estimate": _num(self.estimate),
                "interval": self.interval.to_json() if self.interval else None, "test": self.test,
                "p": _num(self.p), "p_label": self.p_label, "p_adjusted": _num(self.p_adjusted),
                "verdict": self.verdict, "verdict_word": self.verdict_word, "notes": list(self.notes),
                "sentence": self.sentence}


@dataclass
class PairRow:
    """Arm a minus arm b as every view prints it: one estimate, one interval, one test, one verdict.

    `p` is the p-value printed in the p column and `p_label` its method's
    name (from `p_method`: a seed-clustered t p is never headed "sign-flip");
    `test` is the procedure whose p decided (`PairResult.method`). `notes`
    come only from that deciding procedure and the interval beside it.
    """

    a: str
    b: str
    n: int
    estimate: float
    interval: Interval
    test: str
    p: float
    p_method: str
    p_label: str
    p_adjusted: float
    verdict: str          # a>b | b>a | no difference detected | underpowered | equivalent | not valid
    verdict_word: str     # the word a table prints (a>b, b>a, n.d., underpowered, equivalent, not valid)
    paired: bool
    family: str = ""
    notes: list[str] = field(default_factory=list)
    bootstrap: Interval | None = None
    claim: str = "mean"                # the claim `verdict` decides (issue 37: "mean" or "typical")
    claims: list[ClaimResult] = field(default_factory=list)   # every claim decided for this pair, one row each
    sentence: str = ""                 # the verdicts in words, each naming its claim (compare.claims)

    @property
    def decided(self) -> bool:
        return self.verdict in ("a>b", "b>a")

    @property
    def against_word(self) -> str:
        """The verdict read from arm a against baseline b: better, worse, n.d., underpowered, not valid."""
        if self.verdict == NOT_VALID:
            return NOT_VALID
        return VERDICT_SHORT.get(self.verdict, self.verdict) + ("" if self.paired else " (unpaired)")

    def flipped(self) -> "PairRow":
        """b minus a: the same pair read from the other arm (a column against a baseline reads arm - baseline)."""
        swap = {"a>b": "b>a", "b>a": "a>b"}
        return PairRow(self.b, self.a, self.n, -self.estimate,
                       Interval(-self.interval.hi, -self.interval.lo, self.interval.method), self.test, self.p,
                       self.p_method, self.p_label, self.p_adjusted, swap.get(self.verdict, self.verdict),
                       swap.get(self.verdict_word, self.verdict_word), self.paired, self.family, list(self.notes),
                       None if self.bootstrap is None else
                       Interval(-self.bootstrap.hi, -self.bootstrap.lo, self.bootstrap.method),
                       self.claim, [_flip_claim(c, swap) for c in self.claims], self.sentence)

    def to_json(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "n": self.n, "estimate": _num(self.estimate),
                "interval": self.interval.to_json(), "test": self.test, "p": _num(self.p),
                "p_method": self.p_method, "p_label": self.p_label, "p_adjusted": _num(self.p_adjusted),
                "verdict": self.verdict, "verdict_word": self.verdict_word, "paired": self.paired,
                "family": self.family, "notes": list(self.notes), "claim": self.claim,
                "claims": [c.to_json() for c in self.claims], "sentence": self.sentence,
                "bootstrap": self.bootstrap.to_json() if self.bootstrap else None}


def _flip_claim(c: ClaimResult, swap: dict) -> ClaimResult:
    interval = None if c.interval is None else Interval(-c.interval.hi, -c.interval.lo, c.interval.method)
    return ClaimResult(c.claim, c.claim_word, -c.estimate, interval, c.test, c.p, c.p_label, c.p_adjusted,
                       swap.get(c.verdict, c.verdict), swap.get(c.verdict_word, c.verdict_word), list(c.notes),
                       c.sentence, c.about)


@dataclass
class SpendCell:
    """An arm's median spend in one unit: measured, partial (a lower bound) or unreported (unknown, never 0)."""

    median: float | None
    status: str


@dataclass
class ArmRow:
    """One arm of a group: its runs, its mean with the interval every format prints, its spend."""

    arm: str
    runs: int
    scored: int
    seeds: str              # "10", or "8/10" when some runs were not scored
    mean: float
    interval: Interval
    spend: dict[str, SpendCell]
    vs_baseline: PairRow | None = None   # arm - baseline, when a baseline ran in the group

    def to_json(self) -> dict[str, Any]:
        return {"arm": self.arm, "runs": self.runs, "scored": self.scored, "seeds": self.seeds,
                "mean": _num(self.mean), "interval": self.interval.to_json(),
                "spend": {u: {"median": _num(c.median), "status": c.status} for u, c in self.spend.items()},
                "vs_baseline": self.vs_baseline.to_json() if self.vs_baseline else None}


@dataclass
class ConfoundRatio:
    """`arm` spent `ratio` times `reference_arm`'s median in `unit` (b/a), with the sentence a headline prints.

    Named reference, never "the median of arms": with two arms a ratio to
    their median turned "b spent 3x a" into "a spent 0.5x the median".
    """

    arm: str
    reference_arm: str
    unit: str
    unit_noun: str
    ratio: float
    lower_bound: bool
    sentence: str

    def to_json(self) -> dict[str, Any]:
        return {"arm": self.arm, "reference_arm": self.reference_arm, "unit": self.unit,
                "ratio": _num(self.ratio), "lower_bound": self.lower_bound, "sentence": self.sentence}


@dataclass
class OracleRow:
    """A forking arm's selected reward beside its best alternative's (room for a better selector, not a result)."""

    arm: str
    selected: float
    oracle: float
    seeds: int

    def to_json(self) -> dict[str, Any]:
        return {"arm": self.arm, "selected": _num(self.selected), "oracle": _num(self.oracle), "seeds": self.seeds}


@dataclass
class GroupAnalysis:
    """One (workload, budget) group: everything any view of it prints.

    `group` is the compare step's record (flags, unit nouns, per-arm spend)
    and `runs` the group's records by arm (per-seed tables and figures), both
    found once by `build.analyse`.
    """

    group: Any                      # baselines.analysis.compare.comparison.Group
    fixed_noun: str                 # "function evaluations", "samples", "completion tokens"
    arms: list[ArmRow]
    pairs: list[PairRow]
    decimals: int                   # decimals of every mean and interval of the arm table, in every format
    pair_decimals: int              # decimals of every pair estimate and interval, in every format
    baseline: str | None = None     # the baseline asked for, when it ran in this group
    baseline_note: str = ""         # "--baseline X: X did not run in this group, so no column against it"
    confounds: list[ConfoundRatio] = field(default_factory=list)
    headline_confound: list[ConfoundRatio] = field(default_factory=list)
    reward_range: Any = None        # reward range (clipping) or None
    ranking: Any = None             # baselines.analysis.curves.ranking.Ranking, or None
    #: unit -> {(a, b): PairRow} behind the ranking's "order differs" list: at the group's fixed unit the pairs
    #: table's own rows (one pair, one interval), elsewhere the same procedure on the scores at equal spend
    rank_pairs: dict[str, dict[tuple[str, str], PairRow]] = field(default_factory=dict)
    oracle: list[OracleRow] = field(default_factory=list)
    runs: dict[str, list] = field(default_factory=dict)
    frontiers: dict[str, Any] = field(default_factory=dict)   # unit -> compare.frontier.Frontier
    anytime: Any = None             # curves.anytime_series.AnytimeSeries in the fixed unit, or None
    reward_name: str | None = None  # what the reward measures when every run that says agrees
    leader: str | None = None       # the highest mean among scored arms

    @property
    def key(self) -> tuple[str, str]:
        return (self.group.workload, budget_key(self.group.budget))

    @property
    def valid(self) -> bool:
        return self.group.valid

    def pair(self, a: str, b: str) -> PairRow | None:
        """The pair a - b (flipped when stored as b - a)."""
        for p in self.pairs:
            if (p.a, p.b) == (a, b):
                return p
            if (p.a, p.b) == (b, a):
                return p.flipped()
        return None

    def to_json(self) -> dict[str, Any]:
        return {"workload": self.group.workload, "budget": dict(self.group.budget), "fixed_noun": self.fixed_noun, "valid": self.valid,
                "decimals": self.decimals, "pair_decimals": self.pair_decimals,
                "baseline": self.baseline, "baseline_note": self.baseline_note,
                "arms": [a.to_json() for a in self.arms], "pairs": [p.to_json() for p in self.pairs],
                "confounds": [c.to_json() for c in self.confounds],
                "headline_confound": [c.to_json() for c in self.headline_confound],
                "oracle": [o.to_json() for o in self.oracle], "leader": self.leader}


@dataclass
class Analysis:
    """One results file (or selection) analysed once: the groups and the comparison they came from."""

    comparison: Any                 # baselines.analysis.compare.comparison.Comparison
    groups: list[GroupAnalysis]
    baseline: str | None = None
    records: Any = None             # baselines.analysis.tables.group_runs.RunIndex, or None
    sweeps: list[Any] = field(default_factory=list)   # result.sweep.Sweep: a workload across its budgets

    @property
    def fixed(self) -> str | None:
        return self.comparison.fixed

    @property
    def metric(self) -> str:
        return self.comparison.metric

    def of(self, group) -> GroupAnalysis:
        """The analysis of a compare-step `Group` (by identity, else by workload and budget)."""
        for g in self.groups:
            if g.group is group:
                return g
        key = (group.workload, budget_key(group.budget))
        return next(g for g in self.groups if g.key == key)

    def to_json(self) -> dict[str, Any]:
        """The comparison's JSON (contract section 3) with the rendered analysis beside it under "analysis"."""
        out = self.comparison.to_json()
        out["analysis"] = {"baseline": self.baseline, "groups": [g.to_json() for g in self.groups]}
        return out
