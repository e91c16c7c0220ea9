"""The options of a comparison, in one place.

Why a dataclass: spend checks, statistics and metric choice were twelve
loose keyword arguments passed through five layers; one frozen object is
passed instead, printed in reports as it is, and cannot drift between the
table, the gate and the figures made from one results file.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from ..statistics.alpha import check_alpha

#: Above this many arms, pairs are not all computed unless asked for (`pairs="all"`):
#: 20 arms are 190 pairs; 10,000 arms would be 50 million.
ALL_PAIRS_MAX_ARMS = 20

#: Units whose divergence is not a confound unless asked for: wall time on a
#: simulator measures the machine, not the arm.
QUIET_UNITS = frozenset({"seconds"})


@dataclass(frozen=True)
class CompareOptions:
    tolerance: float = 0.1               # allowed relative drift (0.1 = 10%)
    alpha: float = 0.05
    allow_early_stop: bool = False       # under-spend of runs that stopped on their own is a note
    baseline: str | None = None          # pair every arm with this arm only
    equivalence_margin: float | None = None
    seed: int = 0                        # seeds Monte Carlo p-values and bootstrap intervals
    metric: str = "reward"
    start: float = 0.0                   # anytime metrics: score before the first trace point
    pairs: str = "auto"                  # auto | all | none
    bootstrap: bool = False
    workloads: tuple[str, ...] = ()      # only these workloads (empty: all)
    budgets: tuple[tuple[str, float], ...] = ()   # only groups whose budget gives unit == value
    confound_units: tuple[str, ...] | None = None  # units checked for confounds (None: all but seconds)
    reward_range: tuple[float, float] | None = None  # every reward lies in [lo, hi] (for groups that declare none)
    claim: str = "auto"                  # auto | typical | mean | both: the claims pair verdicts make (issue 37);
                                         # auto: typical, or mean where every pair is paired by item
    questions: str = "population"        # population | these: what an item-paired verdict is about when the same
                                         # question ids recur across seeds (issue 37 item 2; statistics/clustered)

    def __post_init__(self) -> None:
        for name in ("workloads", "confound_units"):
            value = getattr(self, name)
            if isinstance(value, str):  # one name, matched exactly: `name in "xx-search-sim-xx"` matched search-sim
                object.__setattr__(self, name, (value,))
            elif value is not None and not all(isinstance(v, str) for v in value):
                raise TypeError(f"{name} must be names (strings), got {value!r}")
        if isinstance(self.tolerance, bool) or not isinstance(self.tolerance, (int, float)) \
                or not math.isfinite(self.tolerance) or self.tolerance < 0:
            raise ValueError(f"tolerance must be a finite non-negative number, got {self.tolerance!r}")
        check_alpha(self.alpha)
        if self.pairs not in ("auto", "all", "none"):
            raise ValueError(f"pairs must be 'auto', 'all' or 'none', got {self.pairs!r}")
        if self.equivalence_margin is not None and not (math.isfinite(self.equivalence_margin)
                                                        and self.equivalence_margin > 0):
            raise ValueError(f"equivalence margin must be a positive finite number, got {self.equivalence_margin!r}")
        if self.reward_range is not None:
            lo, hi = self.reward_range
            if not (math.isfinite(lo) and math.isfinite(hi) and lo < hi):
                raise ValueError(f"reward range must be finite LO < HI, got {self.reward_range!r}")
        from .claims import claims_of
        claims_of(self.claim)   # raises on a claim that is not one of auto, typical, mean, both
        from ..statistics.clustered import QUESTION_CLAIMS
        if self.questions not in QUESTION_CLAIMS:
            raise ValueError(f"questions must be 'population' or 'these', got {self.questions!r}")
        if not math.isfinite(self.start):
            raise ValueError(f"start must be finite, got {self.start!r}")

    @property
    def claims(self) -> tuple[str, ...]:
        """The claims every pair verdict is decided on, in the order their verdicts are preferred."""
        from .claims import claims_of
        return claims_of(self.claim)

    def checks_confounds_in(self, unit: str, fixed: str) -> bool:
        if unit == fixed:
            return False
        if self.confound_units is not None:
            return unit in self.confound_units
        return unit not in QUIET_UNITS
