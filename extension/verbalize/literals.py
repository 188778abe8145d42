"""Literal values as a reader writes them: ``"1972-03-24"^^xsd:date`` -> "24 March 1972",
``1234567`` -> "1,234,567" (:func:`render_literal`); anything unrecognised is shown as
it is.
"""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation

_MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
           "September", "October", "November", "December")
_INTEGER_TYPES = frozenset({
    "integer", "int", "long", "short", "byte", "nonNegativeInteger", "positiveInteger",
    "negativeInteger", "nonPositiveInteger", "unsignedInt", "unsignedLong", "unsignedShort",
    "unsignedByte"})
_DECIMAL_TYPES = frozenset({"decimal", "double", "float"})
_ZONE = r"(Z|[+-]\d{2}:\d{2})?"
_DATE = re.compile(r"([+-]?)(\d+)-(\d{2})-(\d{2})" + _ZONE)
_DATE_TIME = re.compile(r"([+-]?)(\d+)-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?"
                        + _ZONE)
_YEAR_MONTH = re.compile(r"([+-]?)(\d+)-(\d{2})" + _ZONE)
_YEAR = re.compile(r"([+-]?)(\d+)" + _ZONE)
_MONTH_DAY = re.compile(r"--(\d{2})-(\d{2})" + _ZONE)
_TIME = re.compile(r"(\d{2}):(\d{2})(?::(\d{2})(?:\.\d+)?)?" + _ZONE)


def is_number_datatype(datatype: str | None) -> bool:
    """Whether ``datatype`` (short ``xsd:integer`` or a full IRI) is an XSD number."""
    kind = (datatype or "").rpartition("#")[2].removeprefix("xsd:")
    return kind in _INTEGER_TYPES or kind in _DECIMAL_TYPES


def render_literal(value: str, datatype: str | None, lang: str | None = None) -> str:
    """A literal as a person writes it. ``datatype`` is an XSD type, short
    (``xsd:date``) or full IRI; ``lang`` tags plain text, which is returned as is.

    * ``date`` "1972-03-24" -> "24 March 1972"; ``gYearMonth`` "1972-03" -> "March
      1972"; ``gYear`` "-0044" -> "44 BC"; ``gMonthDay`` "--03-24" -> "24 March";
      ``dateTime`` "1972-03-24T00:00:00Z" -> "24 March 1972" (midnight is Wikidata's
      "no time of day"), else "24 March 1972, 14:30 UTC"; Wikidata's "+1952-00-00"
      (month/day 0: year precision) -> "1952";
    * integers with thousands separators ("1,234,567"); ``decimal``/``double``/``float``
      without trailing zeros or exponent ("194.0" -> "194", "1.5E3" -> "1,500");
    * ``boolean`` -> "yes"/"no";
    * anything else, or a value that does not parse as its type, unchanged.
    """
    del lang   # a language tag does not change how the text reads
    if not datatype:
        return value
    kind = datatype.rpartition("#")[2].removeprefix("xsd:")
    text = value.strip()
    rendered: str | None
    if kind == "date":
        rendered = _render_date(_DATE.fullmatch(text))
    elif kind == "dateTime":
        rendered = _render_date_time(_DATE_TIME.fullmatch(text))
    elif kind == "gYearMonth":
        m = _YEAR_MONTH.fullmatch(text)
        rendered = m and _render_ymd(m.group(1), m.group(2), m.group(3), "00")
    elif kind == "gYear":
        m = _YEAR.fullmatch(text)
        rendered = m and _render_year(m.group(1), m.group(2))
    elif kind == "gMonthDay":
        m = _MONTH_DAY.fullmatch(text)
        rendered = m and _render_month_day(int(m.group(1)), int(m.group(2)))
    elif kind == "time":
        m = _TIME.fullmatch(text)
        rendered = m and _render_clock(m.group(1), m.group(2), m.group(3), m.group(4))
    elif kind in _INTEGER_TYPES:
        rendered = _render_integer(text)
    elif kind in _DECIMAL_TYPES:
        rendered = _render_decimal(text)
    elif kind == "boolean":
        rendered = {"true": "yes", "1": "yes", "false": "no", "0": "no"}.get(text.lower())
    else:
        rendered = None
    return rendered or value


_NUMBER = re.compile(r"-?\d[\d,]*(?:\.\d+)?")


def with_unit(text: str, unit: str | None) -> str:
    """A rendered number with the unit its relation stores it in: "116" + "minutes" ->
    "116 minutes", "1" -> "1 minute"; anything that is not a number, or no unit, as it
    is."""
    if not unit or not _NUMBER.fullmatch(text):
        return text
    if text == "1" and unit.endswith("s"):
        unit = unit[:-1]
    return f"{text} {unit}"


def _render_year(sign: str, digits: str) -> str:
    year = int(digits)
    if sign == "-" or (year == 0 and len(digits) >= 4):
        # Wikidata writes 44 BC as -0044; XSD 1.1's year 0000 is 1 BC
        return f"{year or 1} BC"
    return str(year)


def _render_month_day(month: int, day: int) -> str | None:
    if not 1 <= month <= 12 or not 1 <= day <= 31:
        return None
    return f"{day} {_MONTHS[month - 1]}"


def _render_ymd(sign: str, year: str, month: str, day: str) -> str | None:
    y, mo, d = _render_year(sign, year), int(month), int(day)
    if mo == 0:   # Wikidata year precision: "1952-00-00"
        return y if d == 0 else None
    if not 1 <= mo <= 12:
        return None
    if d == 0:
        return f"{_MONTHS[mo - 1]} {y}"
    day_month = _render_month_day(mo, d)
    return day_month and f"{day_month} {y}"


def _render_date(m: re.Match[str] | None) -> str | None:
    return m and _render_ymd(m.group(1), m.group(2), m.group(3), m.group(4))


def _render_clock(hours: str, minutes: str, seconds: str | None, zone: str | None) -> str | None:
    if int(hours) > 24 or int(minutes) > 59 or (seconds and int(seconds) > 60):
        return None
    clock = f"{hours}:{minutes}" + (f":{seconds}" if seconds and seconds != "00" else "")
    if zone:
        clock += " UTC" if zone == "Z" else f" UTC{zone}"
    return clock


def _render_date_time(m: re.Match[str] | None) -> str | None:
    if m is None:
        return None
    date = _render_ymd(m.group(1), m.group(2), m.group(3), m.group(4))
    hours, minutes, seconds, zone = m.group(5, 6, 7, 8)
    if date is None:
        return None
    if hours == "00" and minutes == "00" and seconds in (None, "00"):
        return date
    clock = _render_clock(hours, minutes, seconds, zone)
    return clock and f"{date}, {clock}"


def _render_integer(text: str) -> str | None:
    try:
        return f"{int(text):,}"
    except ValueError:
        return None


def _render_decimal(text: str) -> str | None:
    try:
        number = Decimal(text)
    except InvalidOperation:
        return None
    if not number.is_finite():
        return None
    rendered = format(number, ",f")
    if "." in rendered:
        rendered = rendered.rstrip("0").rstrip(".")
    return "0" if rendered == "-0" else rendered


__all__ = ["render_literal", "with_unit"]
