"""Any CSV: columns mapped to record fields with ``--map arm=col,seed=col,...``.

An empty cell is unreported (null), never 0. Every mapped name that is not
a record field (workload, arm, seed, reward, dev_reward) is a spend unit;
``budget.UNIT=col`` maps the allowance.
"""
from __future__ import annotations

import csv
import math
from pathlib import Path

from ..errors import InputError
from ..records import RunRecord

FIELDS = ("workload", "arm", "seed", "reward", "dev_reward")


def parse_mapping(text: str) -> dict[str, str]:
    mapping = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        if "=" not in part:
            raise InputError(f"--map: '{part}' is not FIELD=COLUMN (e.g. --map arm=policy,seed=seed,reward=acc)")
        key, col = (s.strip() for s in part.split("=", 1))
        mapping[key] = col
    for required in ("arm", "seed", "reward"):
        if required not in mapping:
            raise InputError(f"--map: no column for '{required}'; add {required}=COLUMN")
    return mapping


def _number(text: str, where: str, name: str):
    if text is None or text.strip() == "":
        return None
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"{where}: column for '{name}' holds {text!r}, not a number; leave it empty when unknown") from None
    if not math.isfinite(value):
        raise InputError(f"{where}: column for '{name}' is {text!r}; leave it empty when unknown")
    return int(value) if value.is_integer() else value


def import_csv(path: str | Path, mapping: dict[str, str] | str, workload: str | None = None) -> list[RunRecord]:
    path = Path(path)
    if isinstance(mapping, str):
        mapping = parse_mapping(mapping)
    try:
        handle = open(path, newline="", encoding="utf-8")
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror})") from None
    with handle:
        reader = csv.DictReader(handle)
        header = reader.fieldnames or []
        missing = [c for c in mapping.values() if c not in header]
        if missing:
            raise InputError(f"{path}: no column {missing[0]!r}; columns are {', '.join(header)}")
        out = []
        for line, row in enumerate(reader, 2):
            where = f"{path}:{line}"
            seed = _number(row[mapping["seed"]], where, "seed")
            if not isinstance(seed, int):
                raise InputError(f"{where}: seed must be an integer, got {row[mapping['seed']]!r}")
            arm = row[mapping["arm"]].strip()
            if not arm:
                raise InputError(f"{where}: empty arm name")
            spend, budget = {}, {}
            for key, col in mapping.items():
                if key in FIELDS:
                    continue
                if key.startswith("budget."):
                    value = _number(row[col], where, key)
                    if value is not None:
                        budget[key[7:]] = value
                else:
                    spend[key] = _number(row[col], where, key)
            name = row[mapping["workload"]] if "workload" in mapping else (workload or path.stem)
            out.append(RunRecord(name, arm, seed, spend, _number(row[mapping["reward"]], where, "reward"),
                                 budget, {}, _number(row[mapping["dev_reward"]], where, "dev_reward")
                                 if "dev_reward" in mapping else None, extra={"source": f"csv:{path.name}"}))
        return out
