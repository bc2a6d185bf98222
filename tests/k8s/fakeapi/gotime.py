# SPDX-License-Identifier: LGPL-2.1-or-later
"""metav1.Time and metav1.MicroTime: formatting, and parsing with Go's time.Parse errors.

The API server decodes MicroTime with time.Parse("2006-01-02T15:04:05.000000Z07:00", s), so a
value must carry exactly six fractional digits; a decode error is a 400 whose message embeds
Go's text, e.g. `parsing time "2024-01-01T00:00:00.123Z" as "2006-01-02T15:04:05.000000Z07:00":
cannot parse ".123Z" as ".000000"`.
"""

import calendar
import datetime
import json

MICRO_LAYOUT = "2006-01-02T15:04:05.000000Z07:00"


class GoTimeError(ValueError):
    pass


def now_utc():
    return datetime.datetime.now(datetime.timezone.utc)


def format_time(dt=None):
    """metav1.Time: RFC 3339 with seconds, always UTC."""
    return (dt or now_utc()).astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def format_micro(dt=None):
    return (dt or now_utc()).astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _q(s):
    return json.dumps(s, ensure_ascii=False)


def _fail(value, elem, rest):
    raise GoTimeError(f"parsing time {_q(value)} as {_q(MICRO_LAYOUT)}: cannot parse "
                      f"{_q(rest)} as {_q(elem)}")


def _range(value, what):
    raise GoTimeError(f"parsing time {_q(value)}: {what} out of range")


# (literal prefix, layout element, digits (min, max))
_FIELDS = [("", "2006", (4, 4)), ("-", "01", (2, 2)), ("-", "02", (2, 2)), ("T", "15", (1, 2)),
           (":", "04", (2, 2)), (":", "05", (2, 2))]
_LIMITS = {"01": (1, 12, "month"), "15": (0, 23, "hour"), "04": (0, 59, "minute"),
           "05": (0, 59, "second")}


def _number(value, rest, elem, lo, hi):
    n = 0
    while n < hi and n < len(rest) and rest[n].isdigit():
        n += 1
    if n < lo:
        _fail(value, elem, rest)
    return int(rest[:n]), rest[n:]


def _zone(value, rest):
    if rest.startswith("Z"):
        return 0, rest[1:]
    if len(rest) < 6 or rest[0] not in "+-" or rest[3] != ":" or not (
            rest[1:3].isdigit() and rest[4:6].isdigit()):
        _fail(value, "Z07:00", rest)
    minutes = int(rest[1:3]) * 60 + int(rest[4:6])
    return (minutes if rest[0] == "+" else -minutes), rest[6:]


def parse_micro(value):
    """A timezone-aware datetime, or GoTimeError with Go's message."""
    rest, nums = value, {}
    for prefix, elem, (lo, hi) in _FIELDS:
        if not rest.startswith(prefix):
            _fail(value, prefix, rest)
        rest = rest[len(prefix):]
        nums[elem], rest = _number(value, rest, elem, lo, hi)
        if elem in _LIMITS:
            low, high, what = _LIMITS[elem]
            if not low <= nums[elem] <= high:
                _range(value, what)
    if len(rest) < 7 or rest[0] not in ".," or not rest[1:7].isdigit():
        _fail(value, ".000000", rest)
    micros, rest = int(rest[1:7]), rest[7:]
    offset, rest = _zone(value, rest)
    if rest:
        raise GoTimeError(f"parsing time {_q(value)}: extra text: {_q(rest)}")
    year, month, day = nums["2006"], nums["01"], nums["02"]
    if year < 1:
        _range(value, "year")  # Go accepts year 0; Python cannot represent it
    if not 1 <= day <= calendar.monthrange(year, month)[1]:
        _range(value, "day")
    tz = datetime.timezone(datetime.timedelta(minutes=offset))
    return datetime.datetime(year, month, day, nums["15"], nums["04"], nums["05"], micros, tz)


def parse_time(value):
    """metav1.Time as this server writes it (seconds, UTC); None when it does not parse."""
    try:
        return datetime.datetime.strptime(value, "%Y-%m-%dT%H:%M:%SZ").replace(
            tzinfo=datetime.timezone.utc)
    except (TypeError, ValueError):
        return None
