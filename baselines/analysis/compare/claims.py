"""Named claims behind every pair verdict (issue 37): "mean" and "typical", decided as one Holm family.

- *mean*: the difference of means (t, exact sign-flip and the printed
  interval must all agree; `pair_verdict`).
- *typical*: a beats b on a typical seed: it wins on more of the seeds where
  they differ than it loses (exact sign test, ties dropped; its interval is
  the order-statistic interval for the median untied difference;
  `typical_seed`).

Which claims are made is fixed before the data are seen (`--claim`, the
suite's `claim` key; default "typical", docs/statistics.md says why), and
Holm runs over every claim printed (pairs x claims), so asking for both
claims costs power instead of doubling the false alarms. The verdict of the
first decided claim (in the order asked) is the pair's `verdict`; every
claim's verdict, interval and notes are in `pair.claims`, and `claim_text`
says it in words.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..statistics.typical_seed import (INTERVAL_METHOD, METHOD, detectable_share, min_sign_p, seeds_to_decide,
                           typical_claim)

MEAN, TYPICAL = "mean", "typical"

CLAIM_CHOICES = ("auto", "typical", "mean", "both")

#: The default: the typical-seed claim (decisive at 3-10 seeds on any reward shape), except in a group
#: whose every pair is paired by question (`items`), where the mean claim paired by item is the powerful
#: one (docs/statistics.md, "Which claim"). Whether runs carry items is the design, known before the data.
DEFAULT_CLAIM = "auto"

DECIDED = ("a>b", "b>a")


def claims_of(choice: str) -> tuple[str, ...]:
    """The claims a `--claim` choice makes, in the order their verdicts are preferred."""
    if choice not in CLAIM_CHOICES:
        raise ValueError(f"claim must be one of {', '.join(CLAIM_CHOICES)}, got {choice!r}")
    if choice == "auto":
        return (TYPICAL,)
    return (TYPICAL, MEAN) if choice == "both" else (choice,)


@dataclass
class ClaimVerdict:
    """One claim's verdict on one pair, with the interval and the test that decided it."""

    claim: str
    verdict: str
    estimate: float
    ci: tuple[float, float]
    interval_method: str
    method: str
    p: float
    p_adjusted: float
    notes: list[str] = field(default_factory=list)
    wins: int | None = None
    losses: int | None = None
    ties: int | None = None
    win_share_ci: tuple[float, float] | None = None
    detectable: float | None = None     # typical: win share that would likely be missed; mean: the mde
    seeds_to_decide: int | None = None
    about: str = ""     # mean paired by item: "about the question population (20 questions)" (issue 37 item 2)

    def to_json(self) -> dict:
        out = {"claim": self.claim, "verdict": self.verdict, "estimate": _num(self.estimate),
               "ci": [_num(self.ci[0]), _num(self.ci[1])], "interval_method": self.interval_method,
               "method": self.method, "p": _num(self.p), "p_adjusted": _num(self.p_adjusted),
               "notes": list(self.notes), "about": self.about}
        if self.claim == TYPICAL:
            out.update(wins=self.wins, losses=self.losses, ties=self.ties,
                       win_share_ci=None if self.win_share_ci is None else [_num(x) for x in self.win_share_ci],
                       detectable_win_share=_num(self.detectable), seeds_to_decide=self.seeds_to_decide)
        return out


def _num(x):
    return None if x is None or not math.isfinite(x) else float(x)


def attach_typical(pairs: list, names: list[str], matrix: np.ndarray, level: float) -> None:
    """Give each paired pair the typical-seed statistics of its per-seed differences (seeds both scored)."""
    row = {name: i for i, name in enumerate(names)}
    x = np.asarray(matrix, dtype=float)
    for pair in pairs:
        if not pair.paired or pair.a not in row or pair.b not in row:
            continue
        d = x[row[pair.a]] - x[row[pair.b]]
        pair.typical = typical_claim(d[np.isfinite(d)], level)


def decide_typical(pair, p_adjusted: float, alpha: float, family: int) -> ClaimVerdict:
    """The typical-seed verdict of one pair at its Holm-adjusted p (see the module docstring)."""
    t = pair.typical
    c = t.counts
    out = ClaimVerdict(TYPICAL, "", t.median, t.ci, INTERVAL_METHOD, METHOD, t.p, p_adjusted,
                       wins=c.wins, losses=c.losses, ties=c.ties, win_share_ci=t.win_share_ci)
    level = alpha / max(family, 1)
    if pair.n < 3:
        out.verdict = "underpowered"
        out.notes.append(f"only {pair.n} paired seed{'s' if pair.n != 1 else ''}; at least 3 are needed")
        return out
    lo, hi = t.ci
    agrees = (lo > 0) if c.wins > c.losses else (hi < 0)
    if p_adjusted < alpha and c.wins != c.losses and agrees:
        out.verdict = "a>b" if c.wins > c.losses else "b>a"
        out.notes.append(f"typical seed: decided by the {METHOD} ({_record(c)}; Holm-adjusted p "
                         f"{p_adjusted:.3g}); the median interval excludes 0")
        return out
    if min_sign_p(c.untied) > alpha:
        out.verdict = "underpowered"
        out.notes.append(f"typical seed: with {c.untied} seed(s) where the arms differ no exact sign test can "
                         f"reach p<{alpha:g}")
        return out
    out.verdict = "no difference detected"
    share = detectable_share(c.untied, level)
    out.detectable = share
    where = f"at n={c.untied}" if family == 1 else f"at n={c.untied} with {family} claims (Holm: p<{level:.2g} first)"
    if share is None:
        out.notes.append(f"typical seed: the exact sign test cannot reach p<{level:.2g} {where}: add seeds, or "
                         "compare against one arm (--baseline)")
    else:
        out.notes.append(f"typical seed: an arm winning fewer than {share:.0%} of the seeds where they differ would "
                         f"likely be missed {where} (exact)")
    observed = max(c.wins, c.losses) / c.untied if c.untied else math.nan
    needed = seeds_to_decide(observed, level) if observed > 0.5 else None
    out.seeds_to_decide = needed
    if needed is not None and needed > c.untied:
        out.notes.append(f"typical seed: at the observed {_record(c)}, about {needed} differing seeds would likely "
                         "decide (exact, power 0.8)")
    return out


def win_loss_text(wins: int, losses: int, ties: int = 0) -> str:
    """"10 wins, 1 loss, 2 tied": counts in words a reader can say ("1 losses" read as a typo)."""
    tied = f", {ties} tied" if ties else ""
    return f"{wins} win{'' if wins == 1 else 's'}, {losses} loss{'' if losses == 1 else 'es'}{tied}"


def _record(c) -> str:
    return win_loss_text(c.wins, c.losses, c.ties)


def mean_verdict(pair, p_adjusted: float) -> ClaimVerdict:
    """The mean claim's verdict as `pair_verdict` left it on the pair."""
    return ClaimVerdict(MEAN, pair.verdict, pair.diff, pair.ci, pair.interval_method, pair.method,
                        pair.p_decide, p_adjusted, list(pair.notes), detectable=pair.mde,
                        about=getattr(pair, "about", ""))


def set_headline(pair, verdicts: list[ClaimVerdict]) -> None:
    """The pair's `verdict` and its claim fields: the first decided claim in the order asked, else the first.

    An equivalence (a mean claim, TOST) is preferred to an undecided typical claim.
    """
    pair.claims = verdicts
    if len(verdicts) == 1 and verdicts[0].claim == MEAN:
        head = verdicts[0]
    else:
        head = next((v for v in verdicts if v.verdict in DECIDED), None) or \
            next((v for v in verdicts if v.verdict == "equivalent"), verdicts[0])
    pair.claim = head.claim
    pair.claim_estimate, pair.claim_ci = head.estimate, head.ci
    pair.claim_method, pair.claim_interval_method = head.method, head.interval_method
    if head.claim == TYPICAL:
        pair.verdict, pair.p_adjusted, pair.equivalent = head.verdict, head.p_adjusted, False
        pair.method = head.method
    else:
        pair.verdict, pair.p_adjusted = head.verdict, head.p_adjusted
    pair.notes = list(head.notes) + [n if n.startswith(f"{v.claim}") else f"{_label(v.claim)}: {n}"
                                     for v in verdicts if v is not head for n in v.notes]
    pair.claim_text = claim_sentence(pair)


def claim_phrase(pairs: list, about: bool = False) -> str:
    """" on a typical seed" / " on the mean" when every pair's verdict names that claim, else "" (summaries).

    With `about` (once per summary line: its "N of M pairs decided"), an item-paired mean claim also says
    what it is about, as its sentence does: ", about the question population (20 questions)" when every
    pair says the same, else the shared kind without the count."""
    claims = {p.claim for p in pairs}
    if len(claims) != 1:
        return ""
    if claims == {TYPICAL}:
        return " on a typical seed"
    if not about:
        return " on the mean"
    abouts = {getattr(p, "about", "") for p in pairs}
    if len(abouts) == 1:
        about = abouts.pop()
        return f" on the mean, {about}" if about else " on the mean"
    kinds = {getattr(p, "questions", None) for p in pairs}
    if kinds == {"population"}:
        return " on the mean, about the question population"
    if kinds == {"these"}:
        return " on the mean, about these questions"
    return " on the mean"


def _label(claim: str) -> str:
    return "typical seed" if claim == TYPICAL else "mean"


def claim_sentence(pair, signed=None) -> str:
    """The pair's verdicts in words, each naming its claim, e.g.

    "ucb1 beats random on a typical seed (10 of 10 seeds; median gain +0.38
    [+0.21, +0.52]); the mean gain is undecided at 10 seeds".
    """
    signed = signed or _signed   # `signed`: how a signed number prints (the analysis passes its table's decimals)
    parts = []
    for v in pair.claims:
        parts.append(_typical_words(pair, v, signed) if v.claim == TYPICAL else _mean_words(pair, v, signed))
    return "; ".join(parts)


def _typical_words(pair, v: ClaimVerdict, signed=None) -> str:
    signed = signed or _signed
    lo, hi = v.ci
    interval = f"[{signed(lo)}, {signed(hi)}]"
    of = f"of {v.wins + v.losses} seeds where they differ" if v.ties else f"of {pair.n} seeds"
    if v.verdict in DECIDED:
        win, lose = (pair.a, pair.b) if v.verdict == "a>b" else (pair.b, pair.a)
        k = v.wins if v.verdict == "a>b" else v.losses
        gain = v.estimate if v.verdict == "a>b" else -v.estimate
        gi = interval if v.verdict == "a>b" else f"[{signed(-hi)}, {signed(-lo)}]"
        return f"{win} beats {lose} on a typical seed ({k} {of}; median gain {signed(gain)} {gi})"
    return (f"{pair.a} vs {pair.b} on a typical seed is {_undecided(v.verdict)} at {pair.n} seeds "
            f"({win_loss_text(v.wins, v.losses, v.ties)} for {pair.a}; "
            f"median difference {signed(v.estimate)} {interval})")


def _mean_words(pair, v: ClaimVerdict, signed=None) -> str:
    signed = signed or _signed
    lo, hi = v.ci
    about = f", {v.about}" if v.about else ""   # item-paired: which questions the claim is about
    if v.verdict in DECIDED:
        win, lose = (pair.a, pair.b) if v.verdict == "a>b" else (pair.b, pair.a)
        gain = v.estimate if v.verdict == "a>b" else -v.estimate
        gi = f"[{signed(lo)}, {signed(hi)}]" if v.verdict == "a>b" else f"[{signed(-hi)}, {signed(-lo)}]"
        return f"{win} beats {lose} on the mean{about} (mean gain {signed(gain)} {gi})"
    if v.verdict == "equivalent":
        return f"{pair.a} and {pair.b} are equivalent on the mean{about} (mean difference {signed(v.estimate)})"
    subject = "the mean gain" if len(pair.claims) > 1 else f"{pair.a} vs {pair.b} on the mean"
    return (f"{subject}{about} is {_undecided(v.verdict)} at {pair.n} seeds ({signed(v.estimate)} "
            f"[{signed(lo)}, {signed(hi)}])")


def _undecided(verdict: str) -> str:
    return "underpowered" if verdict == "underpowered" else "undecided"


def _signed(x: float) -> str:
    if not math.isfinite(x):
        return "-inf" if x < 0 else "+inf" if x > 0 else "n/a"
    return f"{x:+.3g}"
