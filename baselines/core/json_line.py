"""One line of a results file as JSON: the strict parse and the words of its errors.

Why apart from the record fields (`records.py`): these rules are about the
text, not the run (nesting depth, repeated keys, byte-order marks, lone
surrogates, numbers past Python's digit limit), and they are where a
user's broken file gets a message that names the fix. `quote` and `show`
put a value in such a message.
"""
from __future__ import annotations

import json
import re
from typing import Any

try:  # orjson parses several times faster; the stdlib parser is the fallback.
    import orjson as _orjson
except ImportError:  # pragma: no cover - orjson is a declared dependency
    _orjson = None

from .errors import InputError

MAX_DEPTH = 64            # nesting of objects and lists in one line (pyarrow segfaults near 10^4)
_SHOW = 60                # longest value quoted in an error message
_STRING = re.compile(rb'"(?:[^"\\]|\\.)*+"', re.S)
_SURROGATE = re.compile(rb"\\u[dD][89abcdefABCDEF]")


def _digits(value: int) -> str:
    """A long integer described by its length (str() refuses past Python's digit limit)."""
    try:
        return f"an integer of {len(str(abs(value)))} digits"
    except ValueError:  # past Python's digit limit for str(int)
        return "an integer of thousands of digits"


def _repr(value: Any) -> str:
    """repr that cannot fail: an integer past the digit limit inside a list, or a list nested too deep."""
    try:
        return repr(value)
    except (ValueError, RecursionError):
        return f"a {type(value).__name__} too large to print"


def show(value: Any) -> str:
    """repr of a value for a one-line message, cut to a readable length (suite files; records use `quote`)."""
    text = _digits(value) if isinstance(value, int) and abs(value) >= 10**30 else _repr(value)
    return text if len(text) <= _SHOW else text[:_SHOW - 5] + "...'" + f" ({len(text)} characters)"


def quote(value: Any) -> str:
    """A value of a results line as JSON text for a one-line message (null, true, "x"), cut to a readable length.

    Why JSON: the user wrote JSON; Python's None, True and 'x' name values
    that are not in their file. Long integers are described by their length.
    """
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**30:
        return _digits(value)
    try:
        text = json.dumps(value, ensure_ascii=False)
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: escaped, so the message stays printable
        text = json.dumps(value)
    except (TypeError, ValueError, RecursionError):
        text = _repr(value)
    if len(text) <= _SHOW:
        return text
    return text[:_SHOW - 5] + "..." + ('"' if text.startswith('"') else "") + f" ({len(text)} characters)"


def json_depth(line: bytes, limit: int = MAX_DEPTH) -> int:
    """Nesting depth of one JSON text (brackets inside strings do not count), exact whenever it is above
    `limit`, so `json_depth(line, limit) > limit` is the exact test.

    A cheap upper bound (the number of opening brackets) settles ordinary lines: at or below `limit` it
    is returned as it is. Why the caller names its limit: a suite's params are checked against
    MAX_DEPTH - 2, and the bound of 63 or 64 (a string of brackets) read as nesting refused them.
    """
    opens = line.count(b"{") + line.count(b"[")
    if opens <= limit:
        return opens
    depth = best = 0
    for char in re.findall(rb"[\[\]{}]", _STRING.sub(b"", line)):
        depth += 1 if char in b"[{" else -1
        if depth > best:
            best = depth
    return best


def has_surrogate_escape(data: bytes) -> bool:
    """True when the text may hold a \\uD800-\\uDFFF escape (paired or not); cheap prefilter."""
    return _SURROGATE.search(data) is not None


def lone_surrogate(obj: Any) -> str | None:
    """The first string (key or value) that is not valid Unicode, else None."""
    stack = [obj]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                return item
        elif isinstance(item, dict):
            stack.extend(item.keys())
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return None


# -- files -------------------------------------------------------------------
_CONTROL_NAMES = {"\t": "a tab", "\n": "a line feed", "\r": "a carriage return", "\x00": "a NUL byte"}


def loads_line(line: str, where: str, exact: bool = False) -> Any:
    """The parsed line; `exact` parses with the stdlib, which keeps integers past 64 bits exact (orjson
    reads them as floats)."""
    if _orjson is not None and not exact:
        try:
            return _orjson.loads(line)
        except _orjson.JSONDecodeError:
            pass  # fall through for a precise message (and NaN literals)
    try:
        return json.loads(line)
    except json.JSONDecodeError as exc:
        raise InputError(f"{where}: {_json_problem(exc)}") from None
    except (ValueError, RecursionError) as exc:  # e.g. an integer of more than 4,300 digits
        raise InputError(f"{where}: {_value_problem(line, exc)}") from None


def _json_problem(exc: json.JSONDecodeError) -> str:
    """What is wrong with a line the JSON parser refused, and the fix, in the user's terms."""
    text, pos = exc.doc, exc.pos
    pieces = [p.strip() for p in text.split("\r") if p.strip()]
    if len(pieces) > 1 and all(p.startswith("{") and p.endswith("}") for p in pieces):
        return ("not valid JSON: the line ends are CR only (\\r), so several runs read as one line; "
                "convert the line ends to LF (\\n)")
    if exc.msg == "Extra data" and text[pos:].lstrip().startswith("{"):
        return (f"two runs on one line (the second starts at column {exc.colno}); put each run on its own "
                "line (a file without a final newline may have been joined to the next)")
    if exc.msg.startswith("Expecting") and text[:1] == "{" and not text[pos:].strip():
        return (f"not valid JSON: the line ends at column {exc.colno} before its object closes (a run cut "
                "short, or wrapped over two lines); put each whole run on one line")
    msg = exc.msg[:-3] if exc.msg.endswith(" at") else exc.msg  # the stdlib says "Invalid control character at"
    if msg.startswith("Invalid control character") and pos < len(text):
        char = text[pos]
        name = _CONTROL_NAMES.get(char, "a control character")
        return (f"not valid JSON ({name} (U+{ord(char):04X}) inside a string at column {exc.colno}); "
                f"write it escaped as {json.dumps(char)[1:-1]}")
    return f"not valid JSON ({msg} at column {exc.colno}); each line must be one JSON object"


def _value_problem(text: str, exc: Exception) -> str:
    """The message for a parse that failed past the grammar (a number too long for Python's int)."""
    long = re.search(r"\d{4301,}", text)
    if long is not None:
        return (f"a number of {len(long.group())} digits at column {long.start() + 1} is longer than any "
                "field takes; fix the writer")
    first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if len(first) > 100:
        first = first[:100].rsplit(" ", 1)[0] + " ..."
    return f"not valid JSON ({first}); each line must be one JSON object"


#: byte-order marks at the start of a line, and what to do (pyarrow skips a UTF-8 BOM; neither reader may)
_BOMS = {
    b"\xef\xbb\xbf": "saved with a byte-order mark (BOM) before this line; save the file as UTF-8 without BOM",
    b"\xff\xfe": "saved as UTF-16 (it starts with a UTF-16 byte-order mark); save the file as UTF-8 without BOM",
    b"\xfe\xff": "saved as UTF-16 (it starts with a UTF-16 byte-order mark); save the file as UTF-8 without BOM",
}


def dumped(obj: Any) -> bytes | None:
    try:
        return _orjson.dumps(obj)
    except (TypeError, _orjson.JSONEncodeError):
        return None


class _RepeatedKey(Exception):
    pass


def _unique_pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _RepeatedKey(key)
            seen.add(key)
    return obj


def refuse_repeated_key(text: str, where: str) -> None:
    """Refuse a line with a key twice in one JSON object (at any depth): the rule both readers share.

    Why: every JSON parser here keeps the last value of a repeated key, so
    appending `,"reward":0.0` to a line changed an arm's mean with exit 0
    (issue 31). orjson cannot report repeats, so `parse_line` first checks
    the cheap proof that there is none: orjson writes the parsed object back
    byte for byte as the line (true of every line `costmatch run` writes).
    Only other lines are parsed again here, by the stdlib with a pairs hook.
    Arrow, the columnar reader's parser, refuses a repeated key itself, and
    that block is then read line by line through this rule.
    """
    try:
        json.loads(text, object_pairs_hook=_unique_pairs)
    except _RepeatedKey as exc:
        raise InputError(f"{where}: the key {quote(exc.args[0])} appears twice in one JSON object (a reader "
                         "would keep only the last); remove one of the two") from None
    except (ValueError, RecursionError):  # what the stdlib cannot read was read by orjson; no repeat to find
        pass


def refuse_bom(line: bytes, where: str) -> None:
    """A line that failed to decode or parse because it starts with a byte-order mark: say so."""
    for bom, problem in _BOMS.items():
        if line.startswith(bom):
            raise InputError(f"{where}: {problem}") from None
