"""The per-model table of a benchmark's recorded samples: Bo1, Bo-inf and majority@n, under one named vote rule.

Why its own table: the Best-of-∞ authors publish, per dataset, a "summary
performance per model" (their `boinf/jsonl_to_table.py --all`, commit
fbcb097); a reader checking a number needs that table as a file to diff, not
figures read off a plot. The columns are defined the authors' way:

- Bo1 = right samples / all samples, pooled over the problems (a sample with
  an empty or no answer is wrong). Not the mean of per-problem shares, which
  differs when pools are unequal; that mean is majority@1.
- Bo∞ = the share of problems whose majority over every sample is right,
  exactly, under the vote rule (`baselines.core.votes`; the default is the
  authors').
- majority@n: exact at n = 1 and n = all; otherwise the mean over random
  orderings of the pool (`tts_curves`), printed with its Monte Carlo
  standard error, so an estimate never reads as an exact count.
"""
from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field

import numpy as np

from ...core.votes import VoteRule, whole_pool_credit
from .tts_curves import majority_curve, orderings, walk

ALL = "all"


@dataclass(frozen=True)
class Majority:
    """majority@n of one model: the value, its Monte Carlo standard error (0 when exact), and whether exact."""

    n: int | str
    value: float
    error: float
    exact: bool


@dataclass(frozen=True)
class ModelRow:
    model: str
    problems: int
    samples_min: int
    samples_max: int
    bo1: float
    boinf: float
    majority: tuple[Majority, ...] = field(default_factory=tuple)

    @property
    def samples(self) -> str:
        """Samples per problem: one number, or the range when the pools differ."""
        return str(self.samples_min) if self.samples_min == self.samples_max else \
            f"{self.samples_min}-{self.samples_max}"


@dataclass(frozen=True)
class PoolTable:
    benchmark: str
    rule: VoteRule
    ns: tuple
    draws: int
    seed: int
    rows: tuple[ModelRow, ...]


def parse_ns(text: str | None) -> tuple:
    """``"1,4,16,all"`` as (1, 4, 16, "all"); ValueError names the bad part."""
    if not text:
        return ()
    out = []
    for part in (p.strip() for p in text.split(",")):
        if part == ALL:
            out.append(ALL)
        elif part.isdigit() and int(part) >= 1:
            out.append(int(part))
        else:
            raise ValueError(f"--n takes whole numbers >= 1 or 'all', comma-separated (e.g. 1,4,16,all), got {part!r}")
    return tuple(dict.fromkeys(out))


def model_row(model: str, codes: np.ndarray, tokens: np.ndarray, sizes: np.ndarray, gold: np.ndarray,
              rule: VoteRule, ns: tuple = (), draws: int = 64, seed: int = 0) -> ModelRow:
    """One model's row; a pool walk is made only when an n between 1 and the pool is asked."""
    right = ((codes == gold[:, None]) & (gold[:, None] >= 0)).sum(axis=1)
    whole = whole_pool_credit(codes, gold, rule.ties)
    single = right / sizes
    width = codes.shape[1]
    curve = None
    majority = []
    for n in ns:
        if n == ALL or n >= width:
            majority.append(Majority(n, float(whole.mean()), 0.0, True))
        elif n == 1:
            majority.append(Majority(n, float(single.mean()), 0.0, True))
        else:
            if curve is None:
                walks = walk(codes, tokens, sizes, gold, orderings(sizes, width, draws, seed))
                curve = majority_curve(walks, tokens, whole_pool=whole)
            error = float(curve.error[n - 1])
            majority.append(Majority(n, float(curve.accuracy[n - 1]), error, False))
    return ModelRow(model, len(sizes), int(sizes.min()), int(sizes.max()), float(right.sum() / sizes.sum()),
                    float(whole.mean()), tuple(majority))


def pool_table(workload, ns: tuple = (), draws: int = 64, seed: int = 0) -> PoolTable:
    """The table of a replay workload (`workloads.replay.Replay`): every model, under the workload's vote rule."""
    pools, rule = workload.pools, workload.vote_rule
    rows = tuple(model_row(m, p.codes, p.tokens, p.sizes, pools.gold_codes, rule, ns, draws, seed)
                 for m, p in pools.pools.items())
    return PoolTable(workload.benchmark, rule, tuple(ns), draws, seed, rows)


def _head(n) -> str:
    return f"maj@{n}"


def _cell(m: Majority) -> str:
    return f"{m.value:.3f}" if m.exact else f"{m.value:.3f} ± {m.error:.4f}"  # an estimate always shows its error


def render_md(table: PoolTable) -> str:
    from tabulate import tabulate

    head = ["model", "problems", "samples/problem", "Bo1", "Bo∞"] + [_head(n) for n in table.ns]
    rows = [[r.model, r.problems, r.samples, f"{r.bo1:.3f}", f"{r.boinf:.3f}"] + [_cell(m) for m in r.majority]
            for r in table.rows]
    notes = (f"{table.benchmark}: vote rule {table.rule.name}: {table.rule.describe()}. Bo1 = right samples / all "
             "samples; Bo∞ = share of problems whose whole-pool majority is right (exact).")
    if any(not m.exact for r in table.rows for m in r.majority):
        notes += (f" A ± is the Monte Carlo standard error of majority@n over {table.draws} random orderings per "
                  f"problem (seed {table.seed}); n = 1 and n = all are exact.")
    return notes + "\n\n" + tabulate(rows, head, tablefmt="github", disable_numparse=True) + "\n"


def table_records(table: PoolTable) -> list[dict]:
    """One flat dict per model: the CSV's rows and the JSON's ``rows``."""
    out = []
    for r in table.rows:
        row = {"benchmark": table.benchmark, "model": r.model, "problems": r.problems, "samples_min": r.samples_min,
               "samples_max": r.samples_max, "bo1": round(r.bo1, 6), "boinf": round(r.boinf, 6),
               "vote_rule": table.rule.name}
        for m in r.majority:
            row[f"maj@{m.n}"] = round(m.value, 6)
            row[f"maj@{m.n}_se"] = round(m.error, 6)
        out.append(row)
    return out


def render_csv(table: PoolTable) -> str:
    records = table_records(table)
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(records[0]) if records else ["model"], lineterminator="\n")
    writer.writeheader()
    writer.writerows(records)
    return buffer.getvalue()


def render_json(table: PoolTable) -> str:
    rule = table.rule
    body = {"benchmark": table.benchmark,
            "vote_rule": {"name": rule.name, "empty": rule.empty, "ties": rule.ties, "description": rule.describe()},
            "n": list(table.ns), "draws": table.draws, "seed": table.seed, "rows": table_records(table)}
    return json.dumps(body, indent=1, ensure_ascii=False) + "\n"


RENDERERS = {"md": render_md, "csv": render_csv, "json": render_json}


def render_table(table: PoolTable, fmt: str = "md") -> str:
    """The table as markdown, CSV or JSON (each names the vote rule)."""
    if fmt not in RENDERERS:
        raise ValueError(f"format must be one of {', '.join(RENDERERS)}, got {fmt!r}")
    return RENDERERS[fmt](table)


def render_tables(tables: list[PoolTable], fmt: str = "md") -> str:
    """Several datasets' tables as one output: markdown one after another, CSV under one header (each row
    names its benchmark), JSON as ``{"tables": [...]}``."""
    if len(tables) == 1:
        return render_table(tables[0], fmt)
    if fmt == "md":
        return "\n".join(render_md(t) for t in tables)
    if fmt == "csv":
        return render_csv(tables[0]) + "".join(render_csv(t).split("\n", 1)[1] for t in tables[1:])
    return json.dumps({"tables": [json.loads(render_json(t)) for t in tables]}, indent=1, ensure_ascii=False) + "\n"
