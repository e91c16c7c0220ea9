"""The cost-to-target tables of `compare --target`: ERT and cost-of-pass per arm, instance and function.

Apart from the comparison tables: these render the dicts of
`analysis.curves.anytime.cost_tables`, not a `Comparison`.
"""
from __future__ import annotations

from baselines.core.units import nouns_of, unit_noun

from .text import md, pipe_table, quantity


def cost_markdown(groups: list[dict], unit: str, target: float) -> str:
    """The cost-to-target table of `compare --target`, each group in its workload's words for the unit."""
    parts = []
    for g in groups:
        with nouns_of(g.get("unit_nouns") or None):
            parts += _cost_group(g, unit, target)
    return "\n".join(parts)


def _cost_fmt(v):
    return {"inf": "∞", "-inf": "−∞"}.get(v) if isinstance(v, str) else ("n/a" if v is None else quantity(v))


def _cost_ci(v):
    return "n/a" if v is None else f"[{_cost_fmt(v[0])}, {_cost_fmt(v[1])}]"


def _cost_group(g: dict, unit: str, target: float) -> list[str]:
    fmt, ci = _cost_fmt, _cost_ci
    parts = [f"Cost to reach reward {target:g} in {unit_noun(unit)} ({md(g['workload'])}): ERT counts "
             "runs that never reached it at their whole spend; cost-of-pass is mean spend over the pass "
             "rate. Intervals: seeded paired bootstrap over seeds (they under-cover at small n)."]
    table_rows = [[md(r["arm"]), f"{r['reached']}/{r['runs']}", fmt(r["ert"]), ci(r["ert_ci"]),
                   fmt(r["cost_of_pass"]), ci(r["cost_of_pass_ci"]),
                   (f"{fmt(r['ert_diff_vs_baseline'])} {ci(r.get('ert_diff_ci'))}"
                    if "ert_diff_vs_baseline" in r else "")]
                  for r in g["arms"]]
    parts.append(pipe_table(table_rows, ["arm", "reached", "ERT", "95% CI", "cost-of-pass", "95% CI",
                                         "ERT − baseline"], align="lrrrrrr"))
    parts += _instance_lines(g["arms"], fmt)
    parts += _function_lines(g["arms"], fmt, unit)
    parts.append("")
    return parts


def _function_lines(arms: list[dict], fmt, unit: str) -> list[str]:
    """ERT per function, instances as trials (COCO's convention), when the instances name their function."""
    rows_with = [r for r in arms if r.get("functions")]
    if not rows_with:
        return []
    names = sorted({f["function"] for r in rows_with for f in r["functions"]}, key=lambda f: (len(f), f))
    rows = []
    for r in rows_with:
        by = {f["function"]: f for f in r["functions"]}
        rows.append([md(r["arm"])] + [f"{fmt(by[n]['ert'])} ({by[n]['reached']}/{by[n]['runs']})" if n in by else ""
                                      for n in names])
    return ["", f"ERT per function in {unit_noun(unit)}, its instances as trials (COCO's convention: the spend of "
            "all runs on the function's instances, unsuccessful ones in full, over the runs that reached the "
            "target; ∞: none did; in parentheses runs reached / runs):", "",
            pipe_table(rows, ["arm"] + [md(n) for n in names], align="l" + "r" * len(names))]


def _instance_lines(arms: list[dict], fmt) -> list[str]:
    """Per-instance ERT (COCO-style: never pooled across problems) and which score the rows used."""
    out = []
    notes = sorted({f"{k}: {r[k]}" for r in arms for k in ("score", "aggregation") if isinstance(r.get(k), str)})
    out += [f"- {md(n)}" for n in notes]
    per_instance = [r for r in arms if r.get("instances")]
    if per_instance:
        names = sorted({i["instance"] for r in per_instance for i in r["instances"]})
        rows = []
        for r in per_instance:
            by_name = {i["instance"]: i for i in r["instances"]}
            rows.append([md(r["arm"]), f"{r.get('instances_solved', 0)}/{r.get('instances_total', len(names))}"]
                        + [fmt(by_name[n]["ert"]) if n in by_name else "" for n in names])
        out += ["", "ERT per instance (runs that never reached the target count at their whole spend; ∞: none "
                "reached it):", "", pipe_table(rows, ["arm", "solved"] + [md(n) for n in names])]
    return out
