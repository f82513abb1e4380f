"""Forms of the graph curation pages: the same bounds as the API's schemas
(``graph_app.schemas``), checked at the edge, so a bad field is a 400 naming it and never
reaches a service or a URL."""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.validators import RegexValidator

# The pattern of graph_app.knowledge.identifiers, for the form's message; the store
# checks it again before any Cypher is formatted with it.
IDENTIFIER = RegexValidator(
    r"\A[A-Za-z][A-Za-z0-9_]{0,63}\Z",
    "letters, digits and _ only, starting with a letter, at most 64",
)


def _label(**kwargs: Any) -> forms.CharField:
    return forms.CharField(max_length=64, validators=[IDENTIFIER], strip=False, **kwargs)


def _name() -> forms.CharField:
    return forms.CharField(max_length=300, strip=False)


def _text() -> forms.CharField:
    return forms.CharField(required=False, max_length=4000, strip=False)


class MergeForm(forms.Form):
    source_label = _label()
    source_name = _name()
    target_label = _label()
    target_name = _name()
    description = _text()


class RelationshipForm(forms.Form):
    """Edit (``action=edit``) or delete (``action=delete``) ``(start)-[:type]->(end)``.
    A text field left out of the POST is left as it is; sent empty, it is removed."""

    action = forms.ChoiceField(required=False, choices=[("edit", "edit"), ("delete", "delete")])
    start_label = _label()
    start_name = _name()
    type = _label()
    end_label = _label()
    end_name = _name()
    new_type = _label(required=False)
    description = _text()
    evidence = _text()
    notes = _text()
    confidence = forms.FloatField(required=False, min_value=0, max_value=1)
    back = forms.ChoiceField(required=False, choices=[("start", "start"), ("end", "end")])

    def changes(self, sent: Any, text_fields: tuple[str, ...]) -> dict[str, Any]:
        """The properties to change: the text fields that were sent, and the confidence
        when it was given."""
        data = self.cleaned_data
        changes: dict[str, Any] = {k: data[k] for k in text_fields if k in sent}
        if data["confidence"] is not None:
            changes["confidence"] = data["confidence"]
        return changes


def form_errors(form: forms.Form) -> str:
    """Every error of a bound, invalid form in one line, each naming its field."""
    return "; ".join(
        f"{field}: {' '.join(str(m) for m in messages)}" for field, messages in form.errors.items()
    )
