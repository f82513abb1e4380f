"""How two texts differ (memory/differences.py, pure functions): each kind read from
sentences as an agent's memory holds them, with both values side by side, and the
rewordings that must not be flagged."""

import pytest

from qqweb.lib.differences import Difference, differences, pair_judgment


def kinds(left: str, right: str) -> list[str]:
    return [d.kind for d in differences(left, right)]


def only(left: str, right: str) -> Difference:
    found = differences(left, right)
    assert len(found) == 1, found
    return found[0]


# --- negation: a contradiction -------------------------------------------------------------


@pytest.mark.parametrize(
    ("left", "right", "said", "plain"),
    [
        (
            "Two pandas are lying together",
            "Two pandas are not lying together",
            "lying",
            "not lying",
        ),
        (
            "Priya drinks coffee in the morning",
            "Priya never drinks coffee",
            "drinks",
            "never drinks",
        ),
        ("Dana works at Tidepool", "Dana no longer works at Tidepool", "works", "no longer works"),
        (
            "The backup job runs with encryption",
            "The backup job runs without encryption",
            "encryption",
            "without encryption",
        ),
        (
            "The staging server is reachable over VPN",
            "The staging server isn't reachable over VPN",
            "reachable",
            "n't reachable",
        ),
    ],
)
def test_a_negated_statement_contradicts_the_plain_one(left, right, said, plain):
    found = only(left, right)
    assert (found.kind, found.left, found.right) == ("negation", (said,), (plain,))
    assert found.contradiction
    judgment = pair_judgment(left, right)
    assert judgment.contradiction and judgment.verdict == "contradiction"


def test_an_un_antonym_is_a_contradiction_too():
    found = only("The agent is able to read the wiki", "The agent is unable to read the wiki")
    assert (found.kind, found.left, found.right) == ("negation", ("able",), ("unable",))


def test_a_negation_of_something_the_other_text_never_says_is_not_a_contradiction():
    # the second only adds a detail ("not released") the first does not speak of
    assert (
        differences(
            "The two men were seen together at the airport",
            "The two men, whose names were not released, were seen together at the airport",
        )
        == ()
    )


def test_both_texts_negating_the_same_thing_agree():
    assert differences("Ada does not eat meat", "Ada doesn't eat meat") == ()


# --- dates ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("left", "right", "before", "after"),
    [
        (
            "The band was most popular in the 1970s",
            "The band was most popular in the 1990s",
            ("1970s",),
            ("1990s",),
        ),
        (
            "The offsite is planned for March",
            "The offsite is planned for June",
            ("March",),
            ("June",),
        ),
        ("The sync moved to Tuesday", "The sync moved to Thursday", ("Tuesday",), ("Thursday",)),
        ("The demo is tomorrow", "The demo is next week", ("tomorrow",), ("next week",)),
        ("Taxes are due Aug. 15", "Taxes are due Aug. 22", ("Aug. 15",), ("Aug. 22",)),
        ("Lumen was founded in 2019", "Lumen was founded in 2021", ("2019",), ("2021",)),
    ],
)
def test_dates_decades_months_weekdays_and_relative_words_are_dates(left, right, before, after):
    found = only(left, right)
    assert (found.kind, found.left, found.right) == ("date", before, after)
    assert not found.contradiction and pair_judgment(left, right).verdict == "possible update"


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("The beta ships in 2027", "The beta ships on 2027-02-01"),  # more precise
        ("The archive starts in the 1970s", "The archive starts in 1975"),  # within the decade
        ("The beta ships in February", "The beta ships on 2027-02-01"),  # the same month
        ("The report came out yesterday", "The report came out on Friday"),  # no calendar
        ("You may keep two copies", "You can keep two copies"),  # "may" is not May
    ],
)
def test_dates_that_agree_are_not_a_change(left, right):
    assert differences(left, right) == ()


# --- numbers -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("left", "right", "before", "after"),
    [
        ("Lumen runs four workers", "Lumen runs 8 workers", ("4",), ("8",)),
        ("Twenty-five people signed up", "Thirty people signed up", ("25",), ("30",)),
        ("Ada finished third in the race", "Ada finished 5th in the race", ("3rd",), ("5th",)),
        ("Churn fell 5 percent last quarter", "Churn fell 7% last quarter", ("5%",), ("7%",)),
        (
            "The index is 1.5 million rows",
            "The index is 2 million rows",
            ("1500000",),
            ("2000000",),
        ),
        (
            "The office is 5 km from the station",
            "The office is 5 miles from the station",
            ("5km",),
            ("5mi",),
        ),
        ("The plan costs $20 a month", "The plan costs $25 a month", ("20$",), ("25$",)),
    ],
)
def test_digits_number_words_ordinals_percentages_and_units_are_numbers(left, right, before, after):
    found = only(left, right)
    assert (found.kind, found.left, found.right) == ("number", before, after)


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("Churn fell 5 percent", "Churn fell 5%"),
        ("The plan costs $20", "The plan costs 20 dollars"),
        ("We hired seven people", "We hired 7 people"),
        ("Xerox paid a $10 million fine", "Xerox paid a $10-million penalty"),
    ],
)
def test_the_same_number_written_otherwise_is_not_a_change(left, right):
    assert differences(left, right) == ()


# --- versions and identifiers --------------------------------------------------------------


def test_a_models_version_is_a_version():
    found = only(
        "The agent answers with Gemini 2.0 Flash", "The agent answers with Gemini 2.5 Flash"
    )
    assert (found.kind, found.left, found.right) == ("version", ("Gemini 2.0",), ("Gemini 2.5",))


@pytest.mark.parametrize(
    ("left", "right", "before", "after"),
    [
        (
            "The API listens on port 9000",
            "The API listens on port 9100",
            ("port 9000",),
            ("port 9100",),
        ),
        (
            "The NAS is at 192.168.1.20",
            "The NAS is at 192.168.1.25",
            ("192.168.1.20",),
            ("192.168.1.25",),
        ),
        (
            "Ada's Discord id is 284112345678901456",
            "Ada's Discord id is 284112345678901457",
            ("284112345678901456",),
            ("284112345678901457",),
        ),
        (
            "The runbook is at https://wiki.example.org/runbook-v1",
            "The runbook is at https://wiki.example.org/runbook-v2",
            ("https://wiki.example.org/runbook-v1",),
            ("https://wiki.example.org/runbook-v2",),
        ),
        (
            "Send invoices to billing@example.com",
            "Send invoices to finance@example.com",
            ("billing@example.com",),
            ("finance@example.com",),
        ),
        (
            "Redis runs on cache01:6379",
            "Redis runs on cache01:6380",
            ("port 6379",),
            ("port 6380",),
        ),
    ],
)
def test_ports_addresses_ids_urls_and_emails_are_identifiers(left, right, before, after):
    found = only(left, right)
    assert (found.kind, found.left, found.right) == ("id", before, after)


# --- names ---------------------------------------------------------------------------------


def test_names_are_compared_word_by_word():
    found = only("The on-call lead is Priya Sharma", "The on-call lead is Priya Patel")
    assert (found.kind, found.left, found.right) == ("name", ("Sharma",), ("Patel",))


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("Claudia Gonzles runs the case", "Claudia Gonzales runs the case"),  # a misspelling
        ("The lab moved to Iraq", "The Iraqi lab moved"),  # a word it starts
        ("Staff in the United States were told", "Staff in the US were told"),  # an abbreviation
        (
            "The test was run by the University of California at Los Angeles",
            "The test was run by UCLA",
        ),  # initials
        ("Gen. Edward Aritonang confirmed it", "General Edward Aritonang confirmed it"),  # a title
    ],
)
def test_spellings_abbreviations_and_titles_of_one_name_are_not_a_change(left, right):
    assert differences(left, right) == ()


def test_a_name_one_text_only_adds_elsewhere_is_not_a_change():
    # each text names someone the other does not, but neither name replaces the other
    assert (
        differences(
            "Mason said the suspect was arrested at Dulles on Sunday",
            "The suspect was arrested at Dulles after a British Airways flight on Sunday",
        )
        == ()
    )


# --- opposite words and colours ------------------------------------------------------------


@pytest.mark.parametrize(
    ("left", "right", "before", "after"),
    [
        (
            "Latency is higher since the upgrade",
            "Latency is lower since the upgrade",
            ("higher",),
            ("lower",),
        ),
        (
            "Backups run in the morning",
            "Backups run in the afternoon",
            ("morning",),
            ("afternoon",),
        ),
        (
            "The feature flag is enabled in production",
            "The feature flag is disabled in production",
            ("enabled",),
            ("disabled",),
        ),
    ],
)
def test_a_word_and_its_opposite_are_a_polarity_change(left, right, before, after):
    found = only(left, right)
    assert (found.kind, found.left, found.right) == ("polarity", before, after)
    assert not found.contradiction


def test_a_colour_changed_is_a_colour():
    found = only("The status light on the NAS is green", "The status light on the NAS is red")
    assert (found.kind, found.left, found.right) == ("colour", ("green",), ("red",))


# --- together ------------------------------------------------------------------------------


def test_several_kinds_come_in_order_negation_first():
    found = differences(
        "Priya ships v2.0.0 on 2027-01-10 with the cache enabled",
        "Dana does not ship v2.1.0 on 2027-02-01 with the cache disabled",
    )
    assert [d.kind for d in found] == ["negation", "date", "version", "name", "polarity"]
    assert pair_judgment("a", "b").verdict == ""


@pytest.mark.parametrize(
    ("left", "right"),
    [
        ("A man is slicing a potato", "A potato is being sliced by a man"),
        ("Lumen uses MongoDB", "Lumen uses MongoDB for vector search"),
        ("The children are playing in the yard", "Kids are playing in the yard"),
    ],
)
def test_rewordings_and_added_details_have_no_difference(left, right):
    assert kinds(left, right) == []


def test_the_corrections_the_facts_demo_plants_are_flagged_and_its_added_details_are_not():
    from memory_app.facts.demo_data import VALUE_CHANGED

    found = {old: [d.kind for d in differences(old, new)] for old, new, _ in VALUE_CHANGED}
    assert found == {
        "Lily uses Gemini 2.0 Flash as her model.": ["version"],
        "The TTS-Provider service runs on port 9000.": ["id"],
        "The master's Discord ID is 284716395028371456.": ["id"],
        "The user's favorite color is blue.": [],  # "dark blue" only says more
        "The user's birthday is March 3.": ["date"],
        "Lily should answer in Japanese.": [],
    }


@pytest.mark.parametrize(
    ("left", "right", "unattended"),
    [
        ("Lumen uses MongoDB for vector search.", "Lumen uses MongoDB for vector search", True),
        ("The user prefers dark mode", "The user prefers the dark mode!", True),
        ("The woman is picking up the kangaroo", "The kangaroo is picking up the woman", False),
        ("Lumen uses MongoDB", "Lumen uses MongoDB for vector search", False),  # says more
        ("The children are playing in the yard", "Kids are playing in the yard", False),
        (
            "Deadline for the Lumen beta is 2027-01-10",
            "Deadline for the Lumen beta is 2027-02-01",
            False,
        ),
    ],
)
def test_only_copies_apart_from_punctuation_case_and_small_words_merge_unattended(
    left, right, unattended
):
    assert pair_judgment(left, right).unattended_merge is unattended


def test_a_verb_form_opening_a_sentence_is_a_rewording_not_a_changed_name():
    assert (
        differences(
            "Researching the Lumen migration this week",
            "Reading about the Lumen migration this week",
        )
        == ()
    )
    assert differences("Deployed Lumen on Friday", "Released Lumen on Friday") == ()
    [name] = differences("Led by Priya", "Led by Dana")  # a name later in the text still is
    assert (name.kind, name.left, name.right) == ("name", ("Priya",), ("Dana",))
