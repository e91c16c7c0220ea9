"""The ranking across units as a markdown table and a figure: both render a `baselines.analysis.curves.ranking.Ranking`.

Nothing is decided here: the levels, ranks, pair verdicts and which flips
are reversals come computed from the analysis layer.

Figure rules: the spend level compared at is under each column; scores are
printed beside each point on a white ground (lines struck through 4.5 pt
labels), at 6 pt; the y axis says "dev score" when the traces carry no
held-out points (ucb1's 1.000 beside a table value of .928 read as held-out);
a unit some arm does not report is named in a note, never silently dropped;
a not-valid group says NOT VALID in its title.
"""
from __future__ import annotations

import math

from baselines.analysis.compare.comparison import Group
from baselines.analysis.curves.ranking import (
    RANK_TEST_MAX_ARMS,
    Ranking,
    order_flips,
    reversals,
    unit_verdicts,
)
from baselines.core.units import unit_noun

from .figure_base import WIDTHS, Plot, Style, _finish, _height, _mpl
from .text import md, quantity

RANK_RULE = ("A reversal (bold) is claimed only when both orders are detected differences: the paired test of "
             "the main table (paired t and exact sign-flip over seeds, Holm over the unit's pairs, alpha 0.05) "
             "finds A better at equal U and B better at equal V. Ranks that change without that are listed as "
             "\"order differs, not significant\".")

SCORE_WHAT = {"reward": "the held-out reward of the choice in force (the workload scores traces)",
              "dev": "the arm's best-so-far dev score, not held out (the workload does not score traces), so it "
                     "may exceed the reward in the main table"}


def as_ranking(ranking, score_kind: str | None = None) -> Ranking:
    """A `Ranking` from a bare unit -> arm -> entry dictionary (older callers), or the Ranking itself."""
    if isinstance(ranking, Ranking):
        return ranking
    verdicts = unit_verdicts(ranking)
    return Ranking(ranking, {}, verdicts, order_flips(ranking), reversals(ranking, verdicts=verdicts), score_kind)


def _level(r: Ranking, unit: str) -> float:
    return next(iter(r.by_unit[unit].values()))[2]


def ranking_markdown(ranking, score_kind: str | None = None) -> str:
    """The ranking table with each rank's score; reversals only where both orders are detected differences."""
    r = as_ranking(ranking, score_kind)
    if not r.by_unit:
        return ""
    units = list(r.by_unit)
    header = "| arm | " + " | ".join(f"rank at equal {md(u)} ({quantity(_level(r, u))})" for u in units) + " |"
    lines = [header, "|:---" + "|---:" * len(units) + "|"]
    for arm in sorted(r.by_unit[units[0]], key=lambda a: r.by_unit[units[0]][a][0]):
        cells = []
        for u in units:
            entry = r.by_unit[u].get(arm)
            score = f"{entry[1]:.3f}" if entry and math.isfinite(entry[1]) else "\u2014"  # no score at that level
            cells.append(f"{entry[0]} ({score})" if entry else "n/a")
        lines.append(f"| {f'**{md(arm)}**' if arm in r.flipped else md(arm)} | " + " | ".join(cells) + " |")
    text = "\n".join(lines)
    if r.supported:
        text += "\n\nReversals (bold arms): " + "; ".join(
            f"{md(a)} ahead of {md(b)} at equal {md(u)}, behind at equal {md(v)}"
            for a, b, u, v in sorted(set(r.supported))[:8])
    if r.weak:
        text += ("\n\nOrder differs between units, not significant (the paired test does not detect both orders):\n"
                 + "\n".join(f"- {_weak_pair_text(a, b, r)}" for a, b in r.weak[:8]))
        if len(r.weak) > 8:
            text += f"\n- and {len(r.weak) - 8} more pair(s)"
    text += _unranked_text(r)
    what = SCORE_WHAT.get(r.score_kind or "", "the held-out reward of the choice in force where the workload "
                                              "scores traces, else the dev score")
    text += (f"\n\nScores are read off each run's trace at the spend level in parentheses: {what}. The level "
             "is the smallest median final spend in that unit across arms, which most runs of every arm reached. "
             + RANK_RULE)
    if any(not v for v in r.verdicts.values()) and any(len(x) > RANK_TEST_MAX_ARMS for x in r.by_unit.values()):
        text += f" With more than {RANK_TEST_MAX_ARMS} arms the pairs are not tested, so no reversal is claimed."
    return text


def _unranked_text(r: Ranking) -> str:
    if not r.unranked:
        return ""
    return "\n\nNot ranked: " + "; ".join(
        f"equal {md(unit_noun(u))} (the traces of {', '.join(md(a) for a in arms)} do not report it)"
        for u, arms in r.unranked.items()) + "."


def _weak_pair_text(a: str, b: str, r: Ranking) -> str:
    """"a vs b: 0.865 vs 0.847 at equal rollouts (n.d., +0.018 [-0.13, +0.11]); ..." """
    units = sorted({u for x, y, u, v in r.flips if (x, y) == (a, b)} | {v for x, y, u, v in r.flips if (x, y) == (a, b)},
                   key=list(r.by_unit).index)
    parts = []
    for u in units:
        pair = r.verdicts.get(u, {}).get((a, b))
        stat = ""
        if pair is not None:
            lo, hi = pair.ci
            ci = f" [{lo:+.2f}, {hi:+.2f}]" if math.isfinite(lo) and math.isfinite(hi) else ""
            stat = f" ({pair.verdict}, {pair.diff:+.3f}{ci})"
        sa, sb = (f"{r.by_unit[u][x][1]:.3f}" if math.isfinite(r.by_unit[u][x][1]) else "\u2014" for x in (a, b))
        parts.append(f"{sa} vs {sb} at equal {md(u)}{md(stat)}")
    return f"{md(a)} vs {md(b)}: " + "; ".join(parts)


def _draw_ranks(ax, r: Ranking, style: Style) -> list:
    units = list(r.by_unit)
    out = []
    for arm in sorted(r.by_unit[units[0]]):
        ranks = [r.by_unit[u][arm][0] if arm in r.by_unit[u] else math.nan for u in units]
        st = style(arm)
        (line,) = ax.plot(range(len(units)), ranks, color=st["color"], marker=st["marker"], ms=3.5,
                          ls=st["linestyle"], lw=1.8 if arm in r.flipped else 0.9)
        for j, u in enumerate(units):
            if arm in r.by_unit[u] and math.isfinite(r.by_unit[u][arm][1]):
                ax.annotate(f"{r.by_unit[u][arm][1]:.3f}", (j, r.by_unit[u][arm][0]), xytext=(5, 0),
                            textcoords="offset points", fontsize=6, color=st["color"], va="center", zorder=5,
                            bbox={"boxstyle": "square,pad=0.1", "fc": "white", "ec": "none"})
        out.append((arm, line))
    return out


def ranking_plot(ranking, style: Style, name: str, title: str, width: str = "single",
                 group: Group | None = None) -> Plot | None:
    """Each arm's rank at equal spend in each unit, its score beside each point; bold only for supported reversals."""
    r = as_ranking(ranking)
    if len(r.by_unit) < 2:
        return None
    if group is not None and not group.valid:
        title += " (NOT VALID)"
    plt = _mpl()
    units = list(r.by_unit)
    fig, ax = plt.subplots(figsize=(WIDTHS[width], _height(width, 2.4)))
    pairs = _draw_ranks(ax, r, style)
    ax.set_xticks(range(len(units)), [f"equal\n{unit_noun(u)}\n({quantity(_level(r, u), compact=True)})"
                                      for u in units])
    ax.set_xlim(-0.25, len(units) - 0.45)
    n = max(len(x) for x in r.by_unit.values())
    ax.set_yticks(range(1, n + 1))
    ax.set_ylim(n + 0.4, 0.6)
    ax.set_ylabel("rank (1 = best)")
    ax.set_title(title)
    notes = [("Scores: dev score of the best so far (not held out; may exceed the table's reward)"
              if r.score_kind == "dev" else "Scores: mean held-out reward") + " at the spend level under each column."]
    if r.supported:
        notes.append("Bold lines: arms whose order reverses between units, each order a detected difference "
                     "(paired t and exact sign-flip, Holm, alpha 0.05).")
    if r.weak:
        notes.append("Order differs, not significant: " + "; ".join(f"{a} / {b}" for a, b in r.weak[:6])
                     + (f" and {len(r.weak) - 6} more" if len(r.weak) > 6 else "") + ".")
    notes += [f"Not ranked at equal {unit_noun(u)}: the traces of {', '.join(arms)} do not report it."
              for u, arms in r.unranked.items()]
    _finish(fig, ax, [h for _, h in pairs], [a for a, _ in pairs], notes)
    plot = Plot(name, title, fig, notes=notes)
    plot.arms = {a: "drawn" for a, _ in pairs}
    return plot
