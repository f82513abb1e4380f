"""Forms of the notes pages: they validate at the edge and hand typed values on."""

from __future__ import annotations

from typing import Any

from django import forms

from memory_app.memory import InvalidNote
from memory_app.memory.constants import CORE_CATEGORIES, SECTIONS
from memory_app.memory.listing import SORT_FIELDS, SOURCE_TYPES, NoteFilter

SECTION_CHOICES = [("", "any section"), *[(s, s) for s in SECTIONS]]


class NoteFilterForm(forms.Form):
    text = forms.CharField(required=False, max_length=500, label="Contains")
    section = forms.ChoiceField(required=False, choices=SECTION_CHOICES)
    min_importance = forms.FloatField(
        required=False, min_value=0, max_value=1, label="Importance from"
    )
    max_importance = forms.FloatField(required=False, min_value=0, max_value=1, label="to")
    min_effective = forms.FloatField(
        required=False, min_value=0, max_value=1, label="Effective from"
    )
    max_effective = forms.FloatField(required=False, min_value=0, max_value=1, label="to")
    source_type = forms.ChoiceField(
        required=False,
        label="Source",
        choices=[("", "any source"), *[(s, s) for s in SOURCE_TYPES]],
    )
    source_file = forms.CharField(required=False, max_length=500, label="Source file")
    never_accessed = forms.BooleanField(required=False)
    stale_days = forms.IntegerField(required=False, min_value=0, label="Stale over (days)")
    no_embedding = forms.BooleanField(required=False)
    sort = forms.ChoiceField(
        required=False, choices=[(k, k.replace("_", " ")) for k in SORT_FIELDS]
    )
    direction = forms.ChoiceField(
        required=False,
        choices=[("desc", "high → low / new → old"), ("asc", "low → high / old → new")],
    )
    cursor = forms.CharField(required=False, widget=forms.HiddenInput)

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
            "stale_days",
        ):
            values[name] = data.get(name)
        values["never_accessed"] = bool(data.get("never_accessed"))
        values["no_embedding"] = bool(data.get("no_embedding"))
        try:
            return NoteFilter(**values)
        except InvalidNote as e:
            self.add_error(e.field if e.field in self.fields else None, e.message)
            raise


class NoteEditForm(forms.Form):
    expected_updated_at = forms.DateTimeField(
        widget=forms.HiddenInput, input_formats=["%Y-%m-%dT%H:%M:%S.%f", "%Y-%m-%dT%H:%M:%S"]
    )
    content = forms.CharField(widget=forms.Textarea(attrs={"rows": 4}), max_length=20_000)
    section = forms.ChoiceField(choices=[(s, s) for s in SECTIONS])
    importance = forms.FloatField(min_value=0, max_value=1)


class PromoteForm(forms.Form):
    category = forms.ChoiceField(choices=[(c, c) for c in CORE_CATEGORIES])


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
