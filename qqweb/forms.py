from __future__ import annotations

from django import forms
from django.contrib.auth import get_user_model


class ApiTokenCreateForm(forms.Form):
    name = forms.CharField(
        max_length=100, help_text="What the token is for, e.g. 'nightly export'."
    )
    user = forms.ModelChoiceField(
        queryset=get_user_model().objects.filter(is_active=True).order_by("username"),
        help_text="The token acts with this user's role.",
    )
