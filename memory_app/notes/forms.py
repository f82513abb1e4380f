"""Forms of the notes pages: they validate at the edge and hand typed values on."""

from __future__ import annotations

from typing import Any

from django import forms

from memory_app.notes.lib.archive.filters import ArchiveFilter
from memory_app.notes.lib.constants import CORE_CATEGORIES, SECTIONS
from memory_app.notes.lib.listing import MAX_STALE_DAYS, SORT_FIELDS, SOURCE_TYPES, NoteFilter
from qqweb.jobs.params import InvalidJobParams, JobParams, params_validate
from qqweb.lib.errors import InvalidInput
from qqweb.lib.words import key_words

SECTION_CHOICES = [("", "any section"), *[(s, s) for s in SECTIONS]]


class NoteFilterForm(forms.Form):
    text = forms.CharField(
        required=False,
        max_length=500,
        label="Contains",
        help_text="Text at the start of a word, any case: lumen finds Lumens, not illumen.",
    )
    section = forms.ChoiceField(required=False, choices=SECTION_CHOICES)
    min_importance = forms.FloatField(
        required=False, min_value=0, max_value=1, label="Importance from"
    )
    max_importance = forms.FloatField(required=False, min_value=0, max_value=1, label="to")
    min_effective = forms.FloatField(
        required=False, min_value=0, max_value=1, label="Effective from"
    )
    max_effective = forms.FloatField(required=False, min_value=0, max_value=1, label="to")
    # Strict bounds and creation dates: what the Overview's bars and counts link to.
    importance_below = forms.FloatField(
        required=False, min_value=0, max_value=1, label="Importance below"
    )
    effective_below = forms.FloatField(
        required=False, min_value=0, max_value=1, label="Effective below"
    )
    created_after = forms.DateTimeField(
        required=False, label="Created after", widget=forms.DateTimeInput(attrs={"size": 16})
    )
    created_until = forms.DateTimeField(
        required=False, label="Created until", widget=forms.DateTimeInput(attrs={"size": 16})
    )
    source_type = forms.ChoiceField(
        required=False,
        label="Source",
        choices=[("", "any source"), *[(s, s) for s in SOURCE_TYPES]],
    )
    source_file = forms.CharField(required=False, max_length=500, label="Source file")
    no_source = forms.BooleanField(required=False, label="No source")
    never_accessed = forms.BooleanField(required=False)
    stale_days = forms.IntegerField(
        required=False, min_value=0, max_value=MAX_STALE_DAYS, label="Stale over (days)"
    )
    no_embedding = forms.BooleanField(required=False)
    sort = forms.ChoiceField(
        required=False, choices=[(k, k.replace("_", " ")) for k in SORT_FIELDS]
    )
    direction = forms.ChoiceField(
        required=False,
        choices=[("desc", "high → low / new → old"), ("asc", "low → high / old → new")],
    )
    cursor = forms.CharField(required=False, max_length=512, widget=forms.HiddenInput)

    # What the list uses when the URL names no order; the dropdowns show the same.
    DEFAULT_ORDER = {"sort": "updated", "direction": "desc"}

    def __init__(self, data: Any = None, *args: Any, **kwargs: Any) -> None:
        if data is not None:
            data = data.copy()
            for name, value in self.DEFAULT_ORDER.items():
                if not data.get(name):
                    data[name] = value
        super().__init__(data, *args, **kwargs)

    def note_filter(self) -> NoteFilter:
        data = self.cleaned_data
        values: dict[str, Any] = {
            k: data.get(k) or None for k in ("text", "section", "source_type", "source_file")
        }
        for name in (
            "min_importance",
            "max_importance",
            "min_effective",
            "max_effective",
            "importance_below",
            "effective_below",
            "created_after",
            "created_until",
            "stale_days",
        ):
            values[name] = data.get(name)
        values["never_accessed"] = bool(data.get("never_accessed"))
        values["no_embedding"] = bool(data.get("no_embedding"))
        values["no_source"] = bool(data.get("no_source"))
        try:
            return NoteFilter(**values)
        except InvalidInput as e:
            self.add_error(e.field if e.field in self.fields else None, e.message)
            raise


class NoteEditForm(forms.Form):
    expected_updated_at = forms.DateTimeField(
        widget=forms.HiddenInput, input_formats=["%Y-%m-%dT%H:%M:%S.%f", "%Y-%m-%dT%H:%M:%S"]
    )
    content = forms.CharField(widget=forms.Textarea(attrs={"rows": 4}), max_length=20_000)
    section = forms.ChoiceField(choices=[(s, s) for s in SECTIONS])
    importance = forms.FloatField(min_value=0, max_value=1)
    # What the form was loaded with: a field submitted unchanged is not written, so a
    # "Save my version" after a stale edit writes only what the curator changed.
    base_content = forms.CharField(widget=forms.HiddenInput, required=False, strip=False)
    base_section = forms.CharField(widget=forms.HiddenInput, required=False)
    base_importance = forms.FloatField(widget=forms.HiddenInput, required=False)

    def base(self) -> dict[str, object] | None:
        """The loaded values, when the form carried them (an older form did not)."""
        data = self.cleaned_data
        if data.get("base_section") in (None, "") or data.get("base_importance") is None:
            return None
        return {
            "content": data.get("base_content") or "",
            "section": data["base_section"],
            "importance": data["base_importance"],
        }


class NoteCreateForm(forms.Form):
    content = forms.CharField(widget=forms.Textarea(attrs={"rows": 4}), max_length=20_000)
    section = forms.ChoiceField(choices=[(s, s) for s in SECTIONS])
    importance = forms.FloatField(
        min_value=0,
        max_value=1,
        required=False,
        help_text="Empty: the agent's own score of the text.",
    )


class CoreItemForm(forms.Form):
    """A note's "Promote to core": the suggested category selected (core_suggest), or
    "Choose…" when none fits; nothing is promoted until one is picked."""

    category = forms.ChoiceField(choices=[("", "Choose…"), *[(c, c) for c in CORE_CATEGORIES]])
    content = forms.CharField(max_length=2_000)


class PromoteForm(forms.Form):
    """A note's "Promote to core": the suggested category selected (core_suggest), or
    "Choose…" when none fits; nothing is promoted until one is picked."""

    category = forms.ChoiceField(choices=[("", "Choose…"), *[(c, c) for c in CORE_CATEGORIES]])


class SearchForm(forms.Form):
    q = forms.CharField(max_length=2000, label="Search")
    section = forms.ChoiceField(required=False, choices=SECTION_CHOICES)
    min_score = forms.FloatField(required=False, min_value=-1, max_value=1, label="Minimum score")


class BulkForm(forms.Form):
    action = forms.ChoiceField(
        choices=[
            ("archive", "Archive"),
            ("set_importance", "Set importance"),
            ("move_section", "Move to section"),
        ]
    )
    importance = forms.FloatField(required=False, min_value=0, max_value=1)
    to_section = forms.ChoiceField(required=False, choices=SECTION_CHOICES)
    scope = forms.ChoiceField(
        choices=[("selected", "selected notes"), ("matching", "every note matching the filter")]
    )
    note_ids = forms.MultipleChoiceField(required=False, choices=[])
    confirmed = forms.BooleanField(required=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        ids = self.data.getlist("note_ids") if hasattr(self.data, "getlist") else []
        field = self.fields["note_ids"]
        assert isinstance(field, forms.MultipleChoiceField)
        field.choices = [(i, i) for i in ids]

    def clean(self) -> dict[str, Any]:
        """An action's value is checked before its confirm asks "Yes, apply to N"."""
        data = super().clean() or {}
        if data.get("action") == "set_importance" and data.get("importance") is None:
            raise forms.ValidationError("Give the new importance, a number from 0 to 1.")
        if data.get("action") == "move_section" and not data.get("to_section"):
            raise forms.ValidationError("Choose the section to move the notes to.")
        return data

    def error_words(self) -> str:
        """The form's errors as a sentence, each named by its field's label."""
        said = []
        for name, errors in self.errors.items():
            label = "" if name == "__all__" else f"{self[name].label}: "
            said += [f"{label}{e}" for e in errors]
        return " ".join(said)


class JobForm(forms.Form):
    """Start a job. Its parameter fields are made from the job's schema, which
    also converts and checks the values (as for the API and the commands); a field left
    empty takes its setting's value."""

    dry_run = forms.BooleanField(required=False)

    def __init__(
        self,
        *args: Any,
        schema: type[JobParams],
        kind: str,
        destructive: bool = False,
        **kwargs: Any,
    ) -> None:
        kwargs.setdefault("auto_id", f"id_{kind}_%s")  # a form per job on the page
        super().__init__(*args, **kwargs)
        self.schema, self.kind = schema, kind
        self.destructive = destructive  # the page previews it first (a dry run's plan)
        self.params: JobParams | None = None
        try:
            defaults = params_validate(schema, None).model_dump()
        except InvalidJobParams:  # a setting out of bounds: the run will say so
            defaults = {}
        for name, prop in schema.model_json_schema().get("properties", {}).items():
            self.fields[name] = _param_field(
                {**prop, "title": _capital(key_words(name))}, defaults.get(name)
            )

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        given = {n: data[n] for n in self.schema.model_fields if data.get(n) not in (None, "")}
        try:
            self.params = params_validate(self.schema, given)
        except InvalidJobParams as e:
            for name, message in e.errors:
                self.add_error(name if name in self.fields else None, message)
        return data


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _param_field(prop: dict[str, Any], initial: Any) -> forms.Field:
    """A form field for one property of a job's JSON schema; it only collects the text."""
    label, attrs = prop.get("title"), {"title": prop.get("description", "")}
    if prop.get("type") == "boolean":
        return forms.BooleanField(
            required=False, label=label, initial=initial, widget=forms.CheckboxInput(attrs)
        )
    if "enum" in prop:
        widget: forms.Widget = forms.Select(attrs, choices=[(v, v) for v in prop["enum"]])
    else:
        attrs["step"] = "1" if prop.get("type") == "integer" else "any"
        attrs["style"] = "width:6rem"
        if "minimum" in prop:
            attrs["min"] = str(prop["minimum"])
        if "maximum" in prop:
            attrs["max"] = str(prop["maximum"])
        widget = forms.NumberInput(attrs)
    return forms.CharField(required=False, label=label, initial=initial, widget=widget)


class AuditFilterForm(forms.Form):
    """The Audit page's filters; ``action`` is one of the actions the log holds."""

    actor = forms.CharField(required=False, max_length=200, label="Who")
    action = forms.ChoiceField(required=False, choices=[])
    target = forms.CharField(required=False, max_length=200)
    batch = forms.UUIDField(required=False)
    before = forms.IntegerField(required=False, min_value=1, widget=forms.HiddenInput)

    def __init__(self, *args: Any, actions: list[str], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["action"]
        assert isinstance(field, forms.ChoiceField)
        field.choices = [("", "any action"), *[(a, a) for a in actions]]


def archive_filter(data: Any) -> tuple[ArchiveFilter, int | None]:
    """The Archive page's filter (what its counts link to) and where its page starts
    (``before``, a byte offset), from the query string; InvalidInput names a bad value."""
    before = data.get("before", "")
    if before and not (before.isascii() and before.isdigit()):
        raise InvalidInput(
            "before", "must be a place in the archive file (a whole number, 0 or more)"
        )
    flt = ArchiveFilter(
        reason=data.get("reason") or None,
        section=data.get("section") or None,
        month=data.get("month") or None,
        include_restored=data.get("include_restored") == "on",
        restored_only=data.get("restored_only") == "on",
    )
    return flt, int(before) if before else None
