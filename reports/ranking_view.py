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
from baselines.analysis.curves.ranking import RANK_TEST_MAX_ARMS, Ranking
from baselines.analysis.result.model import GroupAnalysis, PairRow
from baselines.core.units import unit_noun

from .figure_base import WIDTHS, Plot, Style, _finish, _height, _mpl
from .text import fixed, interval, md, quantity

RANK_RULE = ("A reversal (bold) is claimed only when both orders are detected differences: the paired test of "
             "the main table (paired t and exact sign-flip over seeds, Holm over the unit's pairs, alpha 0.05) "
             "finds A better at equal U and B better at equal V. Ranks that change without that are listed as "
             "\"order differs, not significant\".")


def rank_rule_text(r: Ranking) -> str:
    """The reversal rule, naming the procedure the analysis decided with (`Ranking.rule`)."""
    if not r.rule:
        return RANK_RULE
    return ("A reversal (bold) is claimed only when both orders are detected differences by the main table's test "
            f"({r.rule}): A better at equal U and B better at equal V. Ranks that change without that are listed "
            "as \"order differs, not significant\".")

SCORE_WHAT = {"reward": "the held-out reward of the choice in force (the workload scores traces)",
              "dev": "the arm's best-so-far dev score, not held out (the workload does not score traces), so it "
                     "may exceed the reward in the main table"}


def as_ranking(ranking) -> Ranking:
    """The `Ranking` of a group's analysis, or the Ranking itself (computed by the analysis, never here)."""
    return ranking.ranking if isinstance(ranking, GroupAnalysis) else ranking


def _level(r: Ranking, unit: str) -> float:
    return next(iter(r.by_unit[unit].values()))[2]


def ranking_rows(ranking) -> tuple[list[str], list[list[str]]]:
    """(headers, rows) of the ranking table: each arm's rank and score at equal spend in each unit.

    Arms whose scores are equal share a rank (competition ranking: 1, 1, 3), so a
    tie never reads as an order.
    """
    r = as_ranking(ranking)
    units = list(r.by_unit)
    headers = ["arm"] + [f"rank at equal {unit_noun(u)} ({quantity(_level(r, u))})" for u in units]
    body = []
    for arm in sorted(r.by_unit[units[0]], key=lambda a: r.by_unit[units[0]][a][0]):
        cells = [arm]
        for u in units:
            entry = r.by_unit[u].get(arm)
            score = f"{entry[1]:.3f}" if entry and math.isfinite(entry[1]) else "\u2014"  # no score at that level
            cells.append(f"{entry[0]} ({score})" if entry else "n/a")
        body.append(cells)
    return headers, body


def ranking_markdown(ranking, score_kind: str | None = None) -> str:
    """The ranking table with each rank's score; reversals only where both orders are detected differences.

    `ranking`: a group's analysis (its "order differs" list then cites the
    pairs the analysis holds: the pairs table's own at the fixed unit) or a
    bare `Ranking`.
    """
    r = as_ranking(ranking)
    if r is None or not r.by_unit:
        return ""
    headers, body = ranking_rows(r)
    lines = ["| " + " | ".join(md(h) for h in headers) + " |", "|:---" + "|---:" * (len(headers) - 1) + "|"]
    for cells in body:
        arm = cells[0]
        lines.append(f"| {f'**{md(arm)}**' if arm in r.flipped else md(arm)} | " + " | ".join(cells[1:]) + " |")
    text = "\n".join(lines)
    if r.supported:
        text += "\n\nReversals (bold arms): " + "; ".join(
            f"{md(a)} ahead of {md(b)} at equal {md(u)}, behind at equal {md(v)}"
            for a, b, u, v in sorted(set(r.supported))[:8])
    weak = weak_pair_lines(ranking) if isinstance(ranking, GroupAnalysis) else [
        _weak_pair_text(a, b, r, {}, 3) for a, b in r.weak[:8]]
    if weak:
        text += ("\n\nOrder differs between units, not significant (the paired test does not detect both orders):\n"
                 + "\n".join(f"- {md(line)}" for line in weak))
        if len(r.weak) > 8:
            text += f"\n- and {len(r.weak) - 8} more pair(s)"
    text += _unranked_text(r)
    what = SCORE_WHAT.get(r.score_kind or score_kind or "", "the held-out reward of the choice in force where "
                                                            "the workload scores traces, else the dev score")
    text += (f"\n\nScores are read off each run's trace at the spend level in parentheses: {what}. The level "
             "is the smallest median final spend in that unit across arms: at least half the runs of every arm "
             "reached it (a run that stopped short is scored at its last point). Arms of equal score share a rank. "
             + rank_rule_text(r))
    if any(not v for v in r.verdicts.values()) and any(len(x) > RANK_TEST_MAX_ARMS for x in r.by_unit.values()):
        text += f" With more than {RANK_TEST_MAX_ARMS} arms the pairs are not tested, so no reversal is claimed."
    return text


def weak_pair_lines(ga: GroupAnalysis) -> list[str]:
    """One plain-text line per pair whose order differs between units, citing the analysis' pairs."""
    r = ga.ranking
    if r is None:
        return []
    return [_weak_pair_text(a, b, r, ga.rank_pairs, ga.pair_decimals, ga.group.fixed) for a, b in r.weak[:8]]


def oracle_text(ga: GroupAnalysis) -> tuple[str, list[str]]:
    """(why the oracle is no result, one line per forking arm) for every format."""
    intro = ("The oracle picks with the held-out score, which no arm can: it shows the room a better selector has, "
             "not a result.")
    return intro, [f"{o.arm}: selected {o.selected:.3f}, best alternative {o.oracle:.3f} over {o.seeds} seed(s)"
                   for o in ga.oracle]


def _unranked_text(r: Ranking) -> str:
    if not r.unranked:
        return ""
    return "\n\nNot ranked: " + "; ".join(
        f"equal {md(unit_noun(u))} (the traces of {', '.join(md(a) for a in arms)} do not report it)"
        for u, arms in r.unranked.items()) + "."


def _cited(pairs: dict, a: str, b: str) -> PairRow | None:
    p = pairs.get((a, b))
    if p is None and (b, a) in pairs:
        p = pairs[(b, a)].flipped()
    return p


def _weak_pair_text(a: str, b: str, r: Ranking, rank_pairs: dict, decimals: int, fixed_unit: str = "") -> str:
    """"a vs b: 0.865 vs 0.847 at equal rollouts (pairs table: n.d., +0.018 [-0.13, +0.11]); ..." (plain text).

    At the group's fixed unit the pair cited is the pairs table's own (one
    pair, one interval, same decimals); a unit without a tested pair says so.
    """
    units = sorted({u for x, y, u, v in r.flips if (x, y) == (a, b)} | {v for x, y, u, v in r.flips if (x, y) == (a, b)},
                   key=list(r.by_unit).index)
    parts = []
    for u in units:
        pair = _cited(rank_pairs.get(u, {}), a, b)
        if pair is not None:
            where = "pairs table" if u == fixed_unit else "paired test at this level"
            stat = (f" ({where}: {pair.verdict_word}, {fixed(pair.estimate, decimals, True)} "
                    f"{interval(pair.interval.lo, pair.interval.hi, decimals, True)})")
        else:
            stat = " (no paired test at this level: fewer than two seeds with a score for both arms)"
        sa, sb = (f"{r.by_unit[u][x][1]:.3f}" if math.isfinite(r.by_unit[u][x][1]) else "\u2014" for x in (a, b))
        parts.append(f"{sa} vs {sb} at equal {u}{stat}")
    return f"{a} vs {b}: " + "; ".join(parts)


def _draw_ranks(ax, r: Ranking, style: Style) -> list:
    units = list(r.by_unit)
    out = []
    for arm in sorted(r.by_unit[units[0]]):
        ranks = [r.by_unit[u][arm][0] if arm in r.by_unit[u] else math.nan for u in units]  # ties share one
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
