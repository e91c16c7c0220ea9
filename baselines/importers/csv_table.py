"""Any CSV: columns mapped to record fields with ``--map arm=col,seed=col,...``.

An empty cell is unreported (null), never 0. Every mapped name that is not
a record field (workload, arm, seed, reward, dev_reward, instance: the
problem a row ran, e.g. a BBOB function and instance) is a spend unit;
``budget.UNIT=col`` maps the allowance. Every row is validated by the reader
`compare` uses (a negative token count, a NaN, a seed that is not an
integer stop the import with the file, line and column named), a row with
more or fewer cells than the header is refused (a cell too many or lost
shifts the columns after it), and a file that is not UTF-8 or not CSV (a
quote never closed) is a one-line error, never a traceback.
"""
from __future__ import annotations

import csv
import io
import math
import re
import sys
from pathlib import Path

from ..core.errors import InputError
from ..core.file_kind import foreign_kind
from ..core.input_files import open_input
from ..core.records import RunRecord
from .common import make_record

FIELDS = ("workload", "arm", "seed", "reward", "dev_reward", "instance")


def parse_mapping(text: str) -> dict[str, str]:
    mapping = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        if "=" not in part:
            raise InputError(f"--map: '{part}' is not FIELD=COLUMN (e.g. --map arm=policy,seed=seed,reward=acc)")
        key, col = (s.strip() for s in part.split("=", 1))
        if not key or not col:
            raise InputError(f"--map: '{part}' has an empty side; write FIELD=COLUMN with both named")
        if key in mapping:  # the last one won: a typo then lost a column in silence
            raise InputError(f"--map: {key!r} is mapped twice ({mapping[key]!r} and {col!r}); map each field once")
        mapping[key] = col
    for required in ("arm", "seed", "reward"):
        if required not in mapping:
            raise InputError(f"--map: no column for '{required}'; add {required}=COLUMN")
    return mapping


_INTEGER = re.compile(r"\s*[+-]?[0-9]+\s*")


def _number(text: str | None, where: str, name: str):
    """A cell as a number: integer literals exactly (a seed 9007199254740993 stays itself), others as float."""
    if text is None or text.strip() == "":
        return None
    if _INTEGER.fullmatch(text):
        try:
            return int(text)
        except ValueError:  # more digits than Python converts
            raise InputError(f"{where}: column for '{name}' holds an integer of {len(text.strip())} digits; "
                             "fix the column") from None
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"{where}: column for '{name}' holds {text!r}, not a number; leave it empty when unknown") from None
    if not math.isfinite(value):
        raise InputError(f"{where}: column for '{name}' is {text!r}, which is not finite; leave it empty when unknown")
    return int(value) if value.is_integer() else value


def import_csv(path: str | Path, mapping: dict[str, str] | str, workload: str | None = None) -> list[RunRecord]:
    path = Path(path)
    if isinstance(mapping, str):
        mapping = parse_mapping(mapping)
    raw = open_input(path, "source file")
    kind = foreign_kind(raw.peek(16)[:16])   # a .csv.gz or a zip handed over as it was downloaded
    if kind is not None:
        raw.close()
        raise InputError(f"{path}: is {kind[0]}, not a CSV file; {kind[1]}")
    handle = io.TextIOWrapper(raw, encoding="utf-8-sig", newline="")  # -sig: Excel's "CSV UTF-8" starts with a BOM
    with handle:
        try:
            return _rows(path, handle, mapping, workload)
        except UnicodeDecodeError as exc:
            raise InputError(f"{path}: not UTF-8 text (byte {exc.start}); save the CSV as UTF-8") from None
        except csv.Error as exc:
            raise InputError(f"{path}: not a readable CSV file ({exc}); save it as plain comma-separated UTF-8") from None


def _amount(text: str | None, where: str, name: str, column: str):
    """A spend or budget cell: a number >= 0, or None when empty (unreported, never 0)."""
    value = _number(text, where, name)
    if value is not None and value < 0:
        raise InputError(f"{where}: column {column!r} ('{name}') holds {text.strip()!r}, a negative amount; spend "
                         "and budgets are amounts >= 0; fix the column (leave it empty when unknown)")
    return value


def _rows(path: Path, handle, mapping: dict[str, str], workload: str | None) -> list[RunRecord]:
    csv.field_size_limit(min(sys.maxsize, 2**31 - 1))
    reader = csv.reader(handle, strict=True)  # strict: an unclosed quote is an error, not the rest of the file
    header = next(reader, None) or []
    missing = [c for c in mapping.values() if c not in header]
    if missing:
        raise InputError(f"{path}: no column {missing[0]!r}; columns are {', '.join(map(str, header)) or 'none'}")
    out = []
    for cells in reader:
        if not cells:  # an empty line is no row
            continue
        where = f"{path}:{reader.line_num}"
        if len(cells) != len(header):  # a comma inside an unquoted cell, or a lost cell, shifted the columns after it
            fix = "quote a cell that holds a comma" if len(cells) > len(header) else \
                "write every cell (leave one empty when unknown)"
            raise InputError(f"{where}: {len(cells)} cells where the header names {len(header)}; {fix}, or fix the row")
        row = dict(zip(header, cells))
        cell = {key: row[col] for key, col in mapping.items()}
        seed = _number(cell["seed"], where, "seed")
        if not isinstance(seed, int):
            raise InputError(f"{where}: seed must be an integer, got {cell['seed']!r}; fix column {mapping['seed']!r}")
        arm = cell["arm"].strip()
        if not arm:
            raise InputError(f"{where}: empty arm name in column {mapping['arm']!r}; every row needs one")
        spend, budget = {}, {}
        for key, text in cell.items():
            if key in FIELDS:
                continue
            value = _amount(text, where, key, mapping[key])
            if key.startswith("budget."):
                if value is not None:
                    budget[key[7:]] = value
            else:
                spend[key] = value
        name = cell["workload"].strip() if "workload" in mapping else (workload or path.stem)
        if not name:
            raise InputError(f"{where}: empty workload name in column {mapping['workload']!r}; every row needs one "
                             "(or map no workload column and pass --workload NAME)")
        out.append(make_record(
            where, workload=name, arm=arm, seed=seed, spend=spend,
            reward=_number(cell["reward"], where, "reward"), budget=budget,
            dev_reward=_number(cell["dev_reward"], where, "dev_reward") if "dev_reward" in mapping else None,
            instance=cell["instance"].strip() or None if "instance" in mapping else None,
            source=f"csv:{path.name}"))
    return out
