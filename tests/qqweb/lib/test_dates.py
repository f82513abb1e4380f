"""Every page shows a moment one way: "28 Nov 2026, 14:05 UTC", the exact stored value in
the title (qqweb.lib.dates, filter when)."""

from datetime import UTC, datetime, timedelta, timezone

import pytest
from django.template import Context, Template

from qqweb.lib.dates import moment


@pytest.mark.parametrize(
    ("value", "text", "exact"),
    [
        # MongoDB's dates: naive UTC
        (
            datetime(2026, 11, 28, 14, 5, 3, 700239),
            "28 Nov 2026, 14:05 UTC",
            "2026-11-28T14:05:03.700239 UTC",
        ),
        # an aware datetime elsewhere is said in UTC
        (
            datetime(2026, 11, 28, 15, 5, tzinfo=timezone(timedelta(hours=1))),
            "28 Nov 2026, 14:05 UTC",
            "2026-11-28T14:05:00+00:00",
        ),
        # the agent's ISO text with an offset, microseconds kept in the title
        (
            "2026-03-07T04:40:02.700239+00:00",
            "7 Mar 2026, 04:40 UTC",
            "2026-03-07T04:40:02.700239+00:00",
        ),
        ("2026-03-07T04:40:02Z", "7 Mar 2026, 04:40 UTC", "2026-03-07T04:40:02Z"),
        # a naive ISO text (archive.jsonl, the file analyzer) is the agent's clock: no "UTC"
        (
            "2026-11-04T15:13:09.125000",
            "4 Nov 2026, 15:13",
            "2026-11-04T15:13:09.125000 (no time zone)",
        ),
        # a graph page's own "2026-03-01 12:00 UTC" (values.shown) reads the same way
        ("2026-03-01 12:00 UTC", "1 Mar 2026, 12:00 UTC", "2026-03-01 12:00 UTC"),
    ],
)
def test_a_moment_reads_as_one_human_format_and_keeps_its_exact_value(value, text, exact):
    found = moment(value)
    assert found is not None
    assert (found.text, found.exact) == (text, exact)


@pytest.mark.parametrize(
    "value", [None, "", "conversation", "2026-12-03", "session:2026-01-01T", 7]
)
def test_what_is_not_a_moment_is_not_turned_into_one(value):
    assert moment(value) is None


def test_the_filter_puts_the_exact_value_in_the_title_of_a_time_that_does_not_wrap():
    html = Template("{% load qqweb_words %}{{ at|when }}").render(
        Context({"at": datetime(2026, 11, 28, 14, 5, 3, 700239, tzinfo=UTC)})
    )
    assert html == (
        '<time class="when" datetime="2026-11-28T14:05:03.700239Z" '
        'title="2026-11-28T14:05:03.700239+00:00">28 Nov 2026, 14:05 UTC</time>'
    )


def test_the_filter_leaves_other_values_as_they_are_escaped_and_none_empty_for_default():
    page = Template('{% load qqweb_words %}{{ a|when }}|{{ b|when|default:"never" }}').render(
        Context({"a": "<b>file</b>", "b": None})
    )
    assert page == "&lt;b&gt;file&lt;/b&gt;|never"
