"""Forms generated from a type's schema, as a browser sends them back."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


def test_an_optional_group_of_fields_left_alone_is_not_half_filled():
    """An allergy's coded substance is optional, but its code system is a required choice inside it: the select
    offers "Not stated" first, so a browser that sends the untouched form adds no half-filled coded substance."""
    from memory.types import type_get
    from portal.forms import FactForm

    spec = type_get("care_context")
    form = FactForm(data={"substance": "penicillin", "severity": "moderate", "coded_substance__system": "",
                          "coded_substance__code": "", "review_by": "2099-01-01"}, spec=spec, kind="allergy")
    assert form.fields["coded_substance__system"].choices[0] == ("", "Not stated")
    assert form.is_valid(), form.errors
    assert "coded_substance" not in form.cleaned_data["fact"]
