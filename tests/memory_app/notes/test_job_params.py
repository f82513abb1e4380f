"""Job parameters are validated at the edge, by the one schema each job declares: through
the API (a 422 naming the field), the Maintenance page (the message next to the field) and
the commands (a CommandError naming the option). A bad or unknown parameter starts
nothing; a good one reaches the job, and what is left out takes today's setting."""

import json

import pytest
from django.core.management import CommandError, call_command, get_commands, load_command_class
from django.core.management.base import BaseCommand
from django.urls import reverse

from memory_app.notes.job_params import MAX_DAYS
from memory_app.notes.stores import notes_store
from qqweb.api import api
from qqweb.jobs.models import Run
from qqweb.jobs.params import InvalidJobParams
from qqweb.jobs.registry import JOBS
from qqweb.jobs.runner import job_create, job_run
from qqweb.lib.actors import Actor
from tests.helpers import plant_note as plant
from tests.services import free_port

pytestmark = pytest.mark.django_db
ADA = Actor("user", "ada-admin", role="admin")
NO_PARAMS = [
    "decay",
    "promotion_scan",
    "vector_index_rebuild",
    "graph_orphan_scan",
    "graph_reembed",
]
COMMANDS = {  # the command of each job
    "decay": "decay_pass",
    "dedup_scan": "dedup_scan",
    "archival": "archival_pass",
    "promotion_scan": "promotion_scan",
    "archive_purge": "archive_purge",
    "reembed": "reembed",
    "auto_consolidation": "auto_consolidation",
    "vector_index_rebuild": "vector_index_rebuild",
    "graph_orphan_scan": "graph_orphan_scan",
    "graph_reembed": "graph_reembed",
}
BAD = [  # job, parameter, a value out of its schema; the jobs with none take no parameter
    ("archival", "threshold", "abc"),
    ("archival", "threshold", 0),
    ("archival", "threshold", 1.5),
    ("archival", "threshold", "NaN"),
    ("archival", "threshold", True),
    ("dedup_scan", "threshold", -0.1),
    ("dedup_scan", "threshold", "Infinity"),
    ("auto_consolidation", "threshold", 2),
    ("auto_consolidation", "force", "maybe"),
    ("archive_purge", "days", -1),
    ("archive_purge", "days", MAX_DAYS + 1),
    ("archive_purge", "days", 1.5),
    ("archive_purge", "days", "ninety"),
    ("reembed", "scope", "some"),
    *[(kind, "threshold", 0.5) for kind in NO_PARAMS],
]


def start(client, kind, body):
    return client.post(
        f"/api/maintenance/{kind}", json.dumps(body), content_type="application/json"
    )


def fields(response):
    return response.json()["error"]["fields"]


@pytest.fixture
def notes(stores):
    plant("note_0000000000a1", 0.15)  # effective 0.15: below 0.2
    plant("note_0000000000a2", 0.25)  # above 0.2
    plant("note_0000000000a3", 0.9, embedding=[])


# --- the API ---------------------------------------------------------------------------------


def test_every_job_is_covered_here():
    assert {kind for kind, _, _ in BAD} == set(JOBS) == set(COMMANDS)


@pytest.mark.parametrize(("kind", "name", "value"), BAD)
def test_a_bad_parameter_is_a_422_naming_it_and_starts_nothing(
    admin_client_, stores, kind, name, value
):
    response = start(admin_client_, kind, {"params": {name: value}})
    assert response.status_code == 422, response.content
    assert fields(response) == [f"body.params.{name}"]
    assert Run.objects.count() == 0


@pytest.mark.parametrize("kind", list(JOBS))
def test_every_job_refuses_an_unknown_parameter(admin_client_, stores, kind):
    response = start(admin_client_, kind, {"params": {"$set": 1}})
    assert response.status_code == 422 and fields(response) == ["body.params.$set"]
    misplaced = start(admin_client_, kind, {"dry_run": True, "threshold": 0.5})  # not in params
    assert misplaced.status_code == 422 and fields(misplaced) == ["body.threshold"]
    assert Run.objects.count() == 0


def test_a_valid_parameter_reaches_the_job(admin_client_, notes):
    response = start(admin_client_, "archival", {"params": {"threshold": 0.2}})
    assert response.status_code == 202, response.content
    assert response.json()["params"] == {"threshold": 0.2}
    run = Run.objects.get(pk=response.json()["id"])
    job_run(run=run)  # here rather than in the worker, to look at the notes
    assert run.stats["threshold"] == 0.2 and run.stats["archived"] == 1
    assert notes_store().get_full_note("note_0000000000a1") is None
    assert notes_store().get_full_note("note_0000000000a2") is not None


def test_what_is_left_out_takes_the_setting_of_the_time(admin_client_, stores, settings):
    settings.QQ_ARCHIVE_THRESHOLD = 0.07
    settings.QQ_DEDUP_THRESHOLD = 0.91
    settings.QQ_ARCHIVE_RETENTION_DAYS = 30
    settings.QQ_CONSOLIDATION_THRESHOLD = 0.97
    assert {kind: job_create(kind=kind, actor=ADA).params for kind in JOBS} == {
        "decay": {},
        "dedup_scan": {"threshold": 0.91, "full": False},
        "archival": {"threshold": 0.07},
        "promotion_scan": {},
        "archive_purge": {"days": 30},
        "reembed": {"scope": "missing"},
        "auto_consolidation": {
            "threshold": 0.97,
            "merge": "copies",
            "force": False,
            "use_llm": False,
        },
        "vector_index_rebuild": {},
        "graph_orphan_scan": {},
        "graph_reembed": {},
    }
    scan = admin_client_.post("/api/duplicates/scan", "{}", content_type="application/json")
    assert scan.json()["params"] == {"threshold": 0.91, "full": False}


def test_the_duplicates_scan_uses_the_same_schema(admin_client_, stores):
    for body, field in [({"threshold": 0}, "body.threshold"), ({"limit": 3}, "body.limit")]:
        response = admin_client_.post(
            "/api/duplicates/scan", json.dumps(body), content_type="application/json"
        )
        assert response.status_code == 422 and fields(response) == [field]
    assert Run.objects.count() == 0


def test_a_run_stored_without_parameters_reads_the_setting_when_it_runs(notes, settings):
    run = Run.objects.create(kind="archival", started_by="user:ada-admin")
    settings.QQ_ARCHIVE_THRESHOLD = 0.2
    assert job_run(run=run)["threshold"] == 0.2


def test_a_setting_out_of_bounds_fails_the_run_before_it_starts(stores, settings):
    settings.QQ_DEDUP_THRESHOLD = 1.5
    with pytest.raises(InvalidJobParams, match="threshold"):
        job_create(kind="dedup_scan", actor=ADA)
    assert Run.objects.count() == 0


def test_each_jobs_parameters_are_in_the_openapi_document():
    schema = api.get_openapi_schema(path_prefix="/api")
    components = schema["components"]["schemas"]
    for kind, job in JOBS.items():
        body = schema["paths"][f"/api/maintenance/{kind}"]["post"]["requestBody"]
        job_in = components[body["content"]["application/json"]["schema"]["$ref"].split("/")[-1]]
        params = components[job_in["properties"]["params"]["allOf"][0]["$ref"].split("/")[-1]]
        assert params["additionalProperties"] is False and job_in["additionalProperties"] is False
        assert set(params["properties"]) == set(job.params.model_fields), kind
    threshold = components["ArchivalParams"]["properties"]["threshold"]
    assert (threshold["exclusiveMinimum"], threshold["maximum"]) == (0, 1)
    assert components["ArchivePurgeParams"]["properties"]["days"]["maximum"] == MAX_DAYS
    assert components["ReembedParams"]["properties"]["scope"]["enum"] == ["missing", "all"]


# --- the Maintenance page --------------------------------------------------------------------


def test_the_page_shows_each_jobs_parameters_with_todays_defaults(admin_client_, stores, settings):
    settings.QQ_ARCHIVE_THRESHOLD = 0.07
    page = admin_client_.get(reverse("memory_app:maintenance")).content.decode()
    assert 'id="id_archival_threshold"' in page and 'value="0.07"' in page
    assert 'id="id_archive_purge_days"' in page and 'id="id_reembed_scope"' in page
    assert 'id="id_auto_consolidation_force"' in page
    assert 'id="id_decay_threshold"' not in page


@pytest.mark.parametrize(
    ("kind", "data", "field"),
    [
        ("archival", {"threshold": "1.5"}, "threshold"),
        ("archival", {"threshold": "abc"}, "threshold"),
        ("dedup_scan", {"threshold": "0"}, "threshold"),
        ("archive_purge", {"days": str(MAX_DAYS + 1)}, "days"),
        ("reembed", {"scope": "some"}, "scope"),
    ],
)
def test_a_bad_value_on_the_page_is_shown_next_to_its_field(
    admin_client_, stores, kind, data, field
):
    url = reverse("memory_app:maintenance_start", args=[kind])
    page = admin_client_.post(url, {**data, "dry_run": "on"})
    assert page.status_code == 400
    html = page.content.decode()
    assert "<h1>Jobs</h1>" in html
    assert f'id="id_{kind}_{field}_error"' in html
    fragment = admin_client_.post(url, data, HTTP_HX_REQUEST="true")
    assert fragment.status_code == 400
    html = fragment.content.decode()
    assert "<h1>" not in html and html.lstrip().startswith(f'<form method="post" action="{url}"')
    assert f'id="id_{kind}_{field}_error"' in html
    assert Run.objects.count() == 0


def test_a_valid_value_on_the_page_reaches_the_run(admin_client_, stores, settings):
    settings.QQ_ARCHIVE_THRESHOLD = 0.07
    url = reverse("memory_app:maintenance_start", args=["archival"])
    response = admin_client_.post(url, {"threshold": "0.2", "dry_run": "on"})
    assert response.status_code == 302
    admin_client_.post(url, {"threshold": ""})  # empty: the setting
    first, second = Run.objects.order_by("pk")
    assert (first.params, first.dry_run) == ({"threshold": 0.2}, True)
    # archival is destructive: even "Run" starts with the plan, which the admin then applies
    assert (second.params, second.dry_run) == ({"threshold": 0.07}, True)
    assert (
        admin_client_.post(reverse("memory_app:maintenance_start", args=["vacuum"])).status_code
        == 404
    )


# --- the commands ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("command", "args", "option"),
    [
        ("archival_pass", ["--threshold", "abc"], "--threshold"),
        ("archival_pass", ["--threshold", "nan"], "--threshold"),
        ("dedup_scan", ["--threshold", "0"], "--threshold"),
        ("auto_consolidation", ["--threshold", "1.01"], "--threshold"),
        ("archive_purge", ["--days", "-1"], "--days"),
        ("archive_purge", ["--days", str(MAX_DAYS + 1)], "--days"),
        ("reembed", ["--scope", "some"], "--scope"),
        *[(COMMANDS[kind], ["--threshold", "0.5"], "--threshold") for kind in NO_PARAMS],
    ],
)
def test_a_command_with_a_bad_option_fails_naming_it(stores, command, args, option):
    with pytest.raises(CommandError, match=option):
        call_command(command, *args)
    assert Run.objects.count() == 0


@pytest.mark.parametrize("kind", list(JOBS))
def test_each_commands_options_are_its_jobs_parameters(kind):
    app = get_commands()[COMMANDS[kind]]  # the app whose management/commands has it
    parser = load_command_class(app, COMMANDS[kind]).create_parser("manage.py", kind)
    standard = BaseCommand().create_parser("manage.py", kind)
    options = {a.dest for a in parser._actions} - {a.dest for a in standard._actions}
    # a destructive job's command also confirms lost pins (services/jobs/pins_first.py)
    confirm = {"confirm_lost_pins"} if JOBS[kind].apply is not None else set()
    assert options == {"dry_run", *confirm, *JOBS[kind].params.model_fields}


def test_a_commands_valid_option_reaches_the_job(notes, capsys):
    call_command("archival_pass", "--threshold", "0.2")
    assert '"archived": 1' in capsys.readouterr().out
    assert notes_store().get_full_note("note_0000000000a1") is None
    assert notes_store().get_full_note("note_0000000000a2") is not None
    call_command("reembed", "--scope", "all", "--dry-run")
    assert '"candidates": 2' in capsys.readouterr().out  # every note left, not the missing
    assert [r.params for r in Run.objects.order_by("pk")] == [
        {"threshold": 0.2},
        {"scope": "all"},
    ]


def test_a_command_that_finds_the_store_down_fails_its_run_naming_the_outage(stores, settings):
    settings.MONGODB_URI = f"mongodb://127.0.0.1:{free_port()}"
    settings.QQ_STORE_TIMEOUT_MS = 200
    with pytest.raises(CommandError, match="mongodb is unavailable"):
        call_command("decay_pass")
    run = Run.objects.get(kind="decay")
    assert run.status == Run.FAILED  # not left running until the reaper closes it
    assert run.error.startswith("mongodb is unavailable") and run.finished_at is not None
