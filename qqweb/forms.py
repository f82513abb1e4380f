from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth import get_user_model

from qqweb.services import token_owner_allowed


class ApiTokenCreateForm(forms.Form):
    name = forms.CharField(
        max_length=100, help_text="What the token is for, e.g. 'nightly export'."
    )
    user = forms.ModelChoiceField(
        queryset=get_user_model().objects.filter(is_active=True).order_by("username"),
        help_text="The token acts with this user's role: yourself, or a user who is not an admin.",
    )

    def __init__(self, *args: Any, creator: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        users = self.fields["user"].queryset  # type: ignore[attr-defined]
        self.fields["user"].queryset = users.filter(  # type: ignore[attr-defined]
            pk__in=[u.pk for u in users if token_owner_allowed(creator=creator, owner=u)]
        )
