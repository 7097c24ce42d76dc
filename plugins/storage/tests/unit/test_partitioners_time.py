"""Time-based partitioning: Joda-Time patterns, zones, Confluent's bucket rule, locale names, ISO parsing.

Every expected string and instant below was printed by Joda-Time 2.14.1 on Java 17 running
Confluent's ``TimeBasedPartitioner.getPartition`` and ``DateTimeFormat.forPattern(p)
.withZone(z).withLocale(new Locale(locale))`` (the same calls Confluent's partitioner makes), or
by ``ISODateTimeFormat.dateTimeParser().parseMillis`` for the ISO strings.
"""

from __future__ import annotations

import datetime

import pytest
from kconnect.errors import DataError
from kconnect_storage.partitioners.iso_dates import parse_iso_millis
from kconnect_storage.partitioners.joda_format import JodaPattern
from kconnect_storage.partitioners.locales import JAVA_ROOT_SYMBOLS, date_symbols, java_language
from kconnect_storage.partitioners.timezones import bucket_start, zone_for_id

HOUR = 3600000
DAY = 24 * HOUR


def ms(text: str) -> int:
    """Epoch milliseconds of an ISO text with an offset."""
    instant = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    return (instant - datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)) // datetime.timedelta(
        milliseconds=1
    )


def printed(pattern: str, zone: str, duration_ms: int, timestamp_ms: int, locale: str = "en") -> str:
    joda_zone = zone_for_id(zone)
    start = bucket_start(duration_ms, timestamp_ms, joda_zone)
    return JodaPattern(pattern).format(start, joda_zone, date_symbols(locale))


# --- buckets: Confluent's getPartition, DST gaps and overlaps, Java's division ---------------------


@pytest.mark.parametrize(
    ("zone", "duration", "timestamp", "expected", "expected_start"),
    [
        ("UTC", HOUR, "2017-07-14T02:40:00Z", "2017-07-14 02:00 +00:00", 1499997600000),
        ("UTC", 900000, "2017-07-14T02:40:00Z", "2017-07-14 02:30 +00:00", 1499999400000),
        # weeks count from the epoch, a Thursday
        ("UTC", 7 * DAY, "2017-07-14T02:40:00Z", "2017-07-13 00:00 +00:00", 1499904000000),
        ("UTC", HOUR, "1969-12-31T22:59:59.999Z", "1969-12-31 23:00 +00:00", -3600000),
        ("Asia/Kolkata", DAY, "2017-07-14T02:40:00Z", "2017-07-14 00:00 +05:30", 1499970600000),
        ("America/Los_Angeles", DAY, "2017-07-14T02:40:00Z", "2017-07-13 00:00 -07:00", 1499929200000),
        ("-03:00", DAY, "2017-07-14T02:40:00Z", "2017-07-13 00:00 -03:00", 1499914800000),
        ("Pacific/Chatham", DAY, "2023-03-12T06:30:00Z", "2023-03-12 00:00 +13:45", 1678529700000),
        # New York, spring forward (02:00 EST -> 03:00 EDT at 07:00Z): the 02:00 bucket does not exist
        ("America/New_York", HOUR, "2023-03-12T06:59:59.999Z", "2023-03-12 01:00 -05:00", 1678600800000),
        ("America/New_York", HOUR, "2023-03-12T07:00:00Z", "2023-03-12 03:00 -04:00", 1678604400000),
        ("America/New_York", 1800000, "2023-03-12T07:00:00Z", "2023-03-12 03:00 -04:00", 1678604400000),
        ("America/New_York", HOUR, "2023-03-12T08:15:00Z", "2023-03-12 04:00 -04:00", 1678608000000),
        ("America/New_York", DAY, "2023-03-12T06:30:00Z", "2023-03-12 00:00 -05:00", 1678597200000),
        # New York, fall back (02:00 EDT -> 01:00 EST at 06:00Z): both 01:xx hours share the EDT bucket
        ("America/New_York", HOUR, "2023-11-05T05:30:00Z", "2023-11-05 01:00 -04:00", 1699160400000),
        ("America/New_York", HOUR, "2023-11-05T06:00:00Z", "2023-11-05 01:00 -04:00", 1699160400000),
        ("America/New_York", HOUR, "2023-11-05T06:30:00Z", "2023-11-05 01:00 -04:00", 1699160400000),
        ("America/New_York", HOUR, "2023-11-05T07:10:00Z", "2023-11-05 02:00 -05:00", 1699167600000),
        # Paris, spring forward (02:00 CET -> 03:00 CEST at 01:00Z)
        ("Europe/Paris", HOUR, "2023-03-26T00:30:00Z", "2023-03-26 01:00 +01:00", 1679788800000),
        ("Europe/Paris", HOUR, "2023-03-26T01:00:00Z", "2023-03-26 03:00 +02:00", 1679792400000),
        # Paris, fall back (03:00 CEST -> 02:00 CET at 01:00Z): east of Greenwich Joda takes the later
        # offset, so the bucket of 02:30 CEST starts at 02:00 CET, after the record
        ("Europe/Paris", HOUR, "2023-10-29T00:30:00Z", "2023-10-29 02:00 +01:00", 1698541200000),
        ("Europe/Paris", DAY, "2023-10-29T00:30:00Z", "2023-10-29 00:00 +02:00", 1698530400000),
        # Lord Howe moves by 30 minutes
        ("Australia/Lord_Howe", HOUR, "2023-04-02T14:45:00Z", "2023-04-03 01:00 +10:30", 1680445800000),
        # Java's integer division rounds towards zero: before the local epoch, buckets start later
        ("America/New_York", DAY, "1970-01-01T00:00:00Z", "1970-01-01 00:00 -05:00", 18000000),
        ("America/New_York", HOUR, "1969-12-31T22:59:59.999Z", "1969-12-31 18:00 -05:00", -3600000),
        ("Europe/Paris", HOUR, "1969-12-31T23:59:59.999Z", "1970-01-01 00:00 +01:00", -3600000),
        # 1900 in Paris: local mean time, +00:09:21 (Joda prints hours and minutes only)
        ("Europe/Paris", DAY, "1900-06-15T10:00:00Z", "1900-06-16 00:00 +00:09", -2194646961000),
    ],
)
def test_bucket_as_confluent_computes_it(
    zone: str, duration: int, timestamp: str, expected: str, expected_start: int
) -> None:
    joda_zone = zone_for_id(zone)
    start = bucket_start(duration, ms(timestamp), joda_zone)
    assert start == expected_start
    assert JodaPattern("yyyy-MM-dd HH:mm ZZ").format(start, joda_zone, date_symbols("en")) == expected


# --- pattern letters -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("pattern", "zone", "timestamp_ms", "expected"),
    [
        (
            "'year'=YYYY/'month'=MM/'day'=dd/'hour'=HH",
            "UTC",
            1500000000000,
            "year=2017/month=07/day=14/hour=02",
        ),
        ("y yy yyy yyyy yyyyy", "UTC", 1500000000000, "2017 17 2017 2017 02017"),
        ("Y YY YYY YYYY", "Europe/Paris", ms("0005-03-01T00:00:00Z"), "5 05 005 0005"),
        ("C CC G GG GGGG", "Europe/Paris", 1500000000000, "20 20 AD AD AD"),
        ("C CC G GG GGGG", "Europe/Paris", 0, "19 19 AD AD AD"),
        # ISO week-year and week: 2020-12-31 is in week 53 of 2020, and so is 2021-01-03 (a Sunday)
        (
            "x xx xxxx w ww e E EE EEE EEEE",
            "Europe/Paris",
            ms("2021-01-03T12:00:00Z"),
            "2020 20 2020 53 53 7 Sun Sun Sun Sunday",
        ),
        ("x xx xxxx w ww e E EE EEE EEEE", "Europe/Paris", 0, "1970 70 1970 1 01 4 Thu Thu Thu Thursday"),
        # YYYY is the year of era, not the week-year: 2021-01-03 prints 2021
        ("YYYY-'W'ww", "Europe/Paris", ms("2021-01-03T12:00:00Z"), "2021-W53"),
        (
            "D DDD M MM MMM MMMM d dd",
            "Europe/Paris",
            ms("2000-02-29T12:00:00Z"),
            "60 060 2 02 Feb February 29 29",
        ),
        (
            "a K KK h hh H HH k kk m mm s ss",
            "Europe/Paris",
            946681200000,
            "AM 0 00 12 12 0 00 24 24 0 00 0 00",
        ),
        (
            "a K KK h hh H HH k kk m mm s ss",
            "Europe/Paris",
            ms("2023-04-02T14:45:00Z"),
            "PM 4 04 4 04 16 16 16 16 45 45 0 00",
        ),
        # fractions are cut, never rounded
        ("S SS SSS SSSS", "Europe/Paris", 1500000000978, "9 97 978 9780"),
        ("S SS SSS SSSS", "Europe/Paris", -1, "9 99 999 9990"),
        ("Z ZZ ZZZ ZZZZ", "Europe/Paris", 1500000000000, "+0200 +02:00 Europe/Paris Europe/Paris"),
        ("Z ZZ ZZZ", "UTC", 0, "+0000 +00:00 UTC"),
        ("Z ZZ ZZZ", "+05:30", 0, "+0530 +05:30 +05:30"),
        ("Z ZZ ZZZ", "US/Eastern", 0, "-0500 -05:00 America/New_York"),
        # quotes: '' is a quote inside and outside quoted text; an unclosed quote runs to the end
        ("'it''s' '' x", "Europe/Paris", 1500000000000, "it's ' 2017"),
        ("dd'T'HH 'unterminated", "Europe/Paris", 1500000000000, "14T04 unterminated"),
        ("..//--", "UTC", 0, "..//--"),
        ("日付 yyyy", "UTC", 0, "日付 1970"),
    ],
)
def test_pattern_letters_print_as_joda(pattern: str, zone: str, timestamp_ms: int, expected: str) -> None:
    assert printed(pattern, zone, 1, timestamp_ms) == expected


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        ("Q", "Illegal pattern component: Q"),
        ("yyyyQ", "Illegal pattern component: Q"),
        ("bb", "Illegal pattern component: bb"),
        ("dt=yyyyMMdd", "Illegal pattern component: t"),
        ("T", "Illegal pattern component: T"),
        ("", "Invalid pattern specification: Pattern is null or empty"),
        ("'", "Both printing and parsing not supported"),
    ],
)
def test_bad_patterns_fail_with_jodas_text(pattern: str, message: str) -> None:
    with pytest.raises(ValueError, match="^" + message.replace("(", r"\(") + "$"):
        JodaPattern(pattern)


@pytest.mark.parametrize("pattern", ["z", "zzzz", "yyyy z"])
def test_zone_names_are_refused(pattern: str) -> None:
    with pytest.raises(ValueError, match=r"Unsupported pattern component: z+ \(time zone names\)"):
        JodaPattern(pattern)


@pytest.mark.parametrize(
    ("zone", "timestamp_ms"),
    [("UTC", -62135596800001), ("America/New_York", -62135596800000), ("UTC", 2**62)],
)
def test_instants_outside_python_years_are_a_data_error(zone: str, timestamp_ms: int) -> None:
    # Java prints them (year 0 in New York); Python's datetimes stop at the years 1 and 9999
    with pytest.raises(DataError, match=f"^Timestamp {timestamp_ms} is outside the years 1 to 9999"):
        printed("yyyy", zone, 1, timestamp_ms)


# --- zones -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("zone_id", "joda_id"),
    [
        ("UTC", "UTC"),
        ("Europe/Paris", "Europe/Paris"),
        ("US/Eastern", "America/New_York"),
        ("Asia/Calcutta", "Asia/Kolkata"),
        ("Etc/UTC", "Etc/UTC"),
        ("+05:30", "+05:30"),
        ("+0530", "+05:30"),
        ("+05", "+05:00"),
        ("+23:59", "+23:59"),
        ("+05:30:15", "+05:30:15"),
        ("+05:30:15.123", "+05:30:15.123"),
        ("-00:00", "UTC"),
        ("+00", "UTC"),
    ],
)
def test_zone_ids_as_joda_reads_them(zone_id: str, joda_id: str) -> None:
    assert zone_for_id(zone_id).id == joda_id


@pytest.mark.parametrize(
    ("zone_id", "message"),
    [
        ("utc", "The datetime zone id 'utc' is not recognised"),
        (" UTC", "The datetime zone id ' UTC' is not recognised"),
        ("Mars/Olympus", "The datetime zone id 'Mars/Olympus' is not recognised"),
        ("posixrules", "The datetime zone id 'posixrules' is not recognised"),
        ("localtime", "The datetime zone id 'localtime' is not recognised"),
        ("+5:00", 'Invalid format: "+5:00" is malformed at "5:00"'),
        ("+24:00", 'Invalid format: "+24:00" is malformed at "24:00"'),
        ("-05:7", 'Invalid format: "-05:7" is malformed at "7"'),
        ("+0530:15", 'Invalid format: "+0530:15" is malformed at ":15"'),
    ],
)
def test_unknown_zone_ids_fail_with_jodas_text(zone_id: str, message: str) -> None:
    with pytest.raises(ValueError) as raised:
        zone_for_id(zone_id)
    assert str(raised.value) == message


# --- locales ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("locale", "pattern", "expected"),
    [
        ("en", "MMM|MMMM|EEE|EEEE|a|G", "Jul|July|Fri|Friday|AM|AD"),
        ("EN", "MMMM", "July"),
        ("fr", "YYYY/MMMM/EEEE", "2017/juillet/vendredi"),
        ("fr", "MMM|EEE", "juil.|ven."),
        ("de", "YYYY/MMM/EEE/a", "2017/Juli/Fr./AM"),
        ("ja", "YYYY/MMMM/EEEE|a|G", "2017/7月/金曜日|午前|西暦"),
        ("ko", "MMM|EEE|a", "7월|금|오전"),
        ("ar", "MMM|EEE", "يوليو|الجمعة"),
        ("ru", "MMM|MMMM|EEEE", "июл.|июля|пятница"),
        ("zh", "MMM|MMMM|EEE|EEEE|a", "7月|七月|周五|星期五|上午"),
        ("iw", "YYYY/MMMM", "2017/יולי"),
        # Confluent's new Locale(value): a country makes the value an unknown language -> Java's root
        ("en-US", "MMM|MMMM|EEE|EEEE|a|G", "Jul|Jul|Fri|Fri|AM|CE"),
        ("fr-FR", "YYYY/MMMM/EEEE", "2017/Jul/Fri"),
        ("fr_FR", "MMMM", "Jul"),
        ("US", "MMMM|EEEE", "Jul|Fri"),
    ],
)
def test_text_fields_in_the_locale_as_java_17_prints_them(locale: str, pattern: str, expected: str) -> None:
    assert printed(pattern, "UTC", 1, 1500000000000, locale) == expected


def test_an_unknown_language_gets_java_root_names() -> None:
    assert date_symbols("xx") == JAVA_ROOT_SYMBOLS
    assert date_symbols("root") == JAVA_ROOT_SYMBOLS
    assert JAVA_ROOT_SYMBOLS.eras == ("BCE", "CE")


@pytest.mark.parametrize(
    ("locale", "language"), [("en-US", "en-us"), ("FR", "fr"), ("iw", "he"), ("in", "id")]
)
def test_java_language_of_a_locale_value(locale: str, language: str) -> None:
    assert java_language(locale) == language


# --- ISO-8601 strings (RecordField) ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2017-07-14T02:40:00.000Z", 1500000000000),
        ("2017-07-14T02:40:00Z", 1500000000000),
        ("2017-07-14T02:40Z", 1500000000000),
        ("2017-07-14T02Z", 1499997600000),
        ("2017-07-14T02:40:00.123456789Z", 1500000000123),
        ("2017-07-14T02:40:00,5Z", 1500000000500),
        ("2017-07-14T02.5Z", 1499999400000),
        ("2017-07-14T02:40.5Z", 1500000030000),
        ("2017-07-14T02:40:00+02:00", 1499992800000),
        ("2017-07-14T02:40:00+0200", 1499992800000),
        ("2017-07-14T02:40:00-05", 1500018000000),
        ("2017-07-14T02:40:00+05:30:15", 1499980185000),
        ("2017-07-14T02:40:00z", 1500000000000),
        ("2017-07-14", 1499990400000),
        ("2017-07", 1498867200000),
        ("2017", 1483228800000),
        ("2017-195", 1499990400000),
        ("2017-W28-5", 1499990400000),
        ("2017-W28", 1499644800000),
        ("2017-07-14T", 1499990400000),
        ("2017-07-14TZ", 1499990400000),
        ("T02:40:00Z", 9600000),
        ("T02:40", 9600000),
        ("2017-7-14", 1499990400000),
        ("17-07-14", -61613913600000),
        ("-0005-01-01T00:00:00Z", -62324985600000),
        ("+2017-07-14", 1499990400000),
        ("12345-01-01T00:00:00Z", 327403382400000),
    ],
)
def test_iso_strings_as_joda_parses_them(text: str, expected: int) -> None:
    assert parse_iso_millis(text) == expected


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("2017-07-14 02:40:00", 'Invalid format: "2017-07-14 02:40:00"'),
        ("20170714T024000Z", 'Invalid format: "20170714T024000Z"'),
        ("", 'Invalid format: ""'),
        ("T", 'Invalid format: "T"'),
        (
            "2017-07-14T24:00:00Z",
            'Cannot parse "2017-07-14T24:00:00Z": Value 24 for hourOfDay must be in the range [0,23]',
        ),
        ("2017-02-30", 'Cannot parse "2017-02-30": Value 30 for dayOfMonth must be in the range [1,28]'),
    ],
)
def test_bad_iso_strings_fail_with_jodas_text(text: str, message: str) -> None:
    # Joda adds where the text went wrong (' is malformed at " 02:40:00"'); kconnect leaves it out.
    with pytest.raises(ValueError) as raised:
        parse_iso_millis(text)
    assert str(raised.value) == message
