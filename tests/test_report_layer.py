"""reports/ renders one analysis; it computes no statistic, no grouping and no interval (issue 36).

Why a test: the report layer re-derived from raw records (31 stops in 13
modules, 9 climbs back from analysis into reports), so one pair printed two
intervals and the HTML headline took a ratio to the median of two arms.
Walking every module of reports/ with `ast` makes a new statistics import,
an imported analysis function, or a call of a grouping or interval routine
fail at once; the numbers come from `baselines.analysis.result`.
"""
from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: analysis modules a view may not import at all: statistics, the table and its grouping, the compare step's
#: computations, the curve computations, the analysis builder itself
FORBIDDEN_MODULES = ("baselines.analysis.statistics", "baselines.analysis.tables.group_runs",
                     "baselines.analysis.tables.columns", "baselines.analysis.tables.table",
                     "baselines.analysis.compare.comparing", "baselines.analysis.compare.pairing",
                     "baselines.analysis.compare.pair_verdict", "baselines.analysis.compare.frontier",
                     "baselines.analysis.curves.anytime", "baselines.analysis.result.build",
                     "baselines.analysis.result.suite", "baselines.analysis.result.ranges.ranges_for",
                     "scipy", "statistics")
#: calls that group records or compute a statistic or an interval (by name, whatever they were imported as)
FORBIDDEN_CALLS = {"compare", "as_index", "RunIndex", "group_ranking", "supported_frontier", "decimals_for",
                   "ranges_for", "reward_ranges", "binary_ranges", "analyse", "all_pairs", "paired_test", "decide",
                   "holm", "mean_bounds", "best_at", "anytime_series", "unit_verdicts", "order_flips", "reversals",
                   "mean", "nanmean", "median", "nanmedian", "std", "percentile", "quantile", "overall", "clip"}


#: analysis functions a view may import: ones that put the analysis's numbers into words (the analysis layer
#: owns the sentences; a view prints them), never ones that compute
SENTENCE_SUFFIXES = ("_sentence", "_text", "_words", "_label", "_phrase")


#: analysis modules whose functions say how a number prints (one rule for every format), never compute one
PRINTING_MODULES = ("baselines.analysis.result.precision",)


def _violations(source: str, where: str) -> list[str]:
    tree = ast.parse(source)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            module = node.module if isinstance(node, ast.ImportFrom) else None
            names = [module] if module else []
            names += [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [f"{module}.{a.name}" for a in node.names]
            for name in names:
                if name and any(name == m or name.startswith(m + ".") for m in FORBIDDEN_MODULES):
                    out.append(f"{where}:{node.lineno}: imports {name}")
            if isinstance(node, ast.ImportFrom) and module and module.startswith("baselines.analysis"):
                target = importlib.import_module(module)
                for alias in node.names:
                    value = getattr(target, alias.name, None)
                    if inspect.isfunction(value) and not alias.name.endswith(SENTENCE_SUFFIXES) \
                            and module not in PRINTING_MODULES:
                        out.append(f"{where}:{node.lineno}: imports the function {module}.{alias.name}")
        elif isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if name in FORBIDDEN_CALLS:
                out.append(f"{where}:{node.lineno}: calls {name}()")
    return out


def test_reports_compute_no_statistic_grouping_or_interval():
    found = []
    for path in sorted((ROOT / "reports").rglob("*.py")):
        found += _violations(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    assert found == [], "reports/ must render baselines.analysis.result, not compute:\n" + "\n".join(found)


def test_the_rule_catches_each_kind_of_computation():
    """A test that cannot fail is a defect: each kind of violation is caught."""
    assert _violations("from baselines.analysis.statistics.stats import all_pairs\n", "x")
    assert _violations("from baselines.analysis.tables.group_runs import RunIndex\n", "x")
    assert _violations("from baselines.analysis.curves.ranking import group_ranking\n", "x")  # a function
    assert _violations("import numpy as np\nnp.nanmean([1.0])\n", "x")
    assert _violations("rows = as_index(records).of(group)\n", "x")
    assert _violations("import scipy.stats\n", "x")
    assert not _violations("from baselines.analysis.result.model import Analysis, PairRow\n", "x")
    assert not _violations("from baselines.analysis.curves.ranking import Ranking, RANK_UNITS\n", "x")
    assert _violations("from baselines.analysis.result.build import p_label\n", "x")  # the builder: forbidden
