"""One pair of arms on one metric: the record every table, report and JSON output prints.

`method` names the test whose p decided and `interval_method` how `ci` was
computed, so no output can show a verdict without the inference behind it.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field


@dataclass
class PairResult:
    """Arm a minus arm b on one metric. `verdict` is filled after Holm.

    `method` names the test whose p-value decided (see `decide`), and
    `interval_method` how `ci` was computed; `p_decide` is the p-value
    Holm adjusts (the larger of the t and sign-flip p for paired arms).
    """

    a: str
    b: str
    n: int
    diff: float
    ci: tuple[float, float]
    p: float                  # sign-flip (paired) or permutation (unpaired) p-value
    p_method: str
    p_t: float                # t-test p-value
    sd: float
    paired: bool
    mde: float
    p_adjusted: float = math.nan
    verdict: str = ""
    equivalent: bool = False
    notes: list[str] = field(default_factory=list)
    bootstrap_ci: tuple[float, float] | None = None   # secondary; under-covers at small n
    interval_method: str = "t"
    method: str = ""
    p_decide: float = math.nan
    reward_range: tuple[float, float] | None = None
    family: str = ""          # the pairs Holm adjusted together ("all 21 pairs", "6 pairs against base")
    items: int | None = None  # paired items behind a seed-clustered pair (None: per-seed statistics)
    # issue 37: the claim `verdict` decides ("mean" or "typical"), that claim's estimate and interval
    # (for "mean" the same as diff and ci), and every claim decided for this pair (Holm over pairs x claims)
    claim: str = "mean"
    claim_estimate: float = math.nan
    claim_ci: tuple[float, float] = (math.nan, math.nan)
    claim_method: str = ""
    claim_interval_method: str = ""
    claim_text: str = ""      # the verdict in words, naming its claim (built in the analysis layer)
    claims: list = field(default_factory=list)   # ClaimVerdict per claim asked for
    typical: object = None    # typical_seed.TypicalResult of the per-seed differences (None: not computed)
    # issue 37 item 2: what an item-paired pair is about ("population" or "these"; None: not paired by item),
    # its distinct question ids, and the words every view prints ("about these 20 questions")
    questions: str | None = None
    question_count: int | None = None
    about: str = ""
    route_note: str = ""      # the item route's note (not JSON: it is among `notes` once decided)

    def __post_init__(self) -> None:
        if not math.isfinite(self.p_decide):
            self.p_decide = _decision_p(self.p, self.p_t, self.paired)
        if not self.method:
            self.method = _decision_method(self.p, self.p_method, self.p_t, self.paired)
        if self.claim == "mean" and not math.isfinite(self.claim_estimate):
            self.claim_estimate, self.claim_ci = self.diff, self.ci
            self.claim_method, self.claim_interval_method = self.method, self.interval_method

    def to_json(self) -> dict:
        return {"a": self.a, "b": self.b, "n": self.n, "diff": _num(self.diff),
                "ci": [_num(self.ci[0]), _num(self.ci[1])], "interval_method": self.interval_method,
                "p": _num(self.p), "p_method": self.p_method, "p_t": _num(self.p_t),
                "p_decide": _num(self.p_decide), "method": self.method,
                "p_adjusted": _num(self.p_adjusted), "paired": self.paired,
                "mde": _num(self.mde), "verdict": self.verdict, "notes": list(self.notes),
                "family": self.family, "items": self.items,
                "questions": self.questions, "question_count": self.question_count, "about": self.about,
                "claim": self.claim, "claim_estimate": _num(self.claim_estimate),
                "claim_ci": [_num(self.claim_ci[0]), _num(self.claim_ci[1])], "claim_method": self.claim_method,
                "claim_interval_method": self.claim_interval_method, "claim_text": self.claim_text,
                "claims": [c.to_json() for c in self.claims],
                **({"reward_range": list(self.reward_range)} if self.reward_range is not None else {}),
                **({"bootstrap_ci": [_num(self.bootstrap_ci[0]), _num(self.bootstrap_ci[1])]}
                   if self.bootstrap_ci is not None else {})}


def _num(x: float):
    return None if x is None or not math.isfinite(x) else float(x)


def _decision_p(p: float, p_t: float, paired: bool) -> float:
    """The p-value a verdict needs below alpha (after Holm): both tests must reject.

    Taking the larger p is valid whenever either test is: on normal noise the
    t test, on any exchangeable pair (0/1, skewed, ties) the sign-flip test.
    """
    ps = [x for x in (p, p_t) if x is not None and math.isfinite(x)]
    return max(ps) if ps else math.nan


def _decision_method(p: float, p_method: str, p_t: float, paired: bool) -> str:
    name = "Welch t" if not paired else "paired t"
    if not math.isfinite(p_t):
        return p_method
    if not math.isfinite(p):
        return name
    return p_method if p >= p_t else name
