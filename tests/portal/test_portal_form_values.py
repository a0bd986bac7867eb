"""Date inputs in the portal and the staff console. An ``<input type="date">`` only holds ``yyyy-mm-dd``: any other
value (say en-GB's ``12/05/2027``) is shown as an empty box and sent back empty, so a correction that changed
something else would silently drop the date. Every date input renders its value in ISO, and a form sent back as a
browser sends it keeps its dates."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from html.parser import HTMLParser

import pytest
from django import forms
from django.forms.widgets import DateTimeBaseInput

from tests.conftest import memory_body
from tests.test_memory_lifecycle import care_body

pytestmark = pytest.mark.django_db

ISO_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")


class _BrowserForm(HTMLParser):
    """What a browser would submit from the page's one ``method="post"`` form, untouched by the user: enabled
    fields only, checked boxes, selected options, and a date input's value after the HTML value sanitisation
    (anything but a valid ``yyyy-mm-dd`` becomes empty)."""

    def __init__(self):
        super().__init__()
        self.data: dict[str, list[str]] = {}
        self.date_values: dict[str, str] = {}  # the value attributes as rendered
        self._in_form = False
        self._select: str | None = None
        self._select_first: str | None = None
        self._select_chosen = False

    def _add(self, name, value):
        self.data.setdefault(name, []).append(value)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form" and (a.get("method") or "").lower() == "post":
            self._in_form = True
        if not self._in_form or "disabled" in a:
            return
        if tag == "input" and a.get("name"):
            kind = (a.get("type") or "text").lower()
            if kind in ("checkbox", "radio") and "checked" not in a:
                return
            value = a.get("value") or ""
            if kind == "date":
                self.date_values[a["name"]] = value
                value = value if _valid_iso_date(value) else ""
            self._add(a["name"], value)
        elif tag == "select" and a.get("name"):
            self._select, self._select_first, self._select_chosen = a["name"], None, False
        elif tag == "option" and self._select:
            if self._select_first is None:
                self._select_first = a.get("value", "")
            if "selected" in a:
                self._add(self._select, a.get("value", ""))
                self._select_chosen = True

    def handle_endtag(self, tag):
        if tag == "form":
            self._in_form = False
        elif tag == "select" and self._select:
            if not self._select_chosen and self._select_first is not None:
                self._add(self._select, self._select_first)
            self._select = None


def _valid_iso_date(value: str) -> bool:
    if not ISO_DATE.fullmatch(value):
        return False
    try:
        date.fromisoformat(value)
    except ValueError:
        return False
    return True


def browser_form(html: str) -> _BrowserForm:
    parser = _BrowserForm()
    parser.feed(html)
    return parser


def _day(days: int) -> date:
    return (datetime.now(UTC) + timedelta(days=days)).date()


def test_a_preferences_keep_until_date_is_iso_and_survives_a_correction_of_the_time(world, people, signed_in):
    consent = world.consent(world.patient_a)
    keep_until = _day(200)
    r = world.patient(world.patient_a).post(f"/v1/patients/{world.patient_a}/memories", memory_body(
        consent, valid_until=f"{keep_until.isoformat()}T23:59:00+00:00"))
    assert r.status_code == 201, r.content
    memory_id = r.json()["memory_id"]
    client = signed_in(people.patient(world.patient_a))

    page = client.get(f"/me/preferences/{memory_id}/correct/").content.decode()
    form = browser_form(page)
    assert form.date_values == {"valid_until": keep_until.isoformat()}
    form.data["time"] = ["11:30"]  # the only change the patient made
    assert client.post(f"/me/preferences/{memory_id}/correct/", form.data).status_code == 302

    items = world.patient(world.patient_a).get(f"/v1/patients/{world.patient_a}/memories").json()["items"]
    assert [i["fact"]["time"] for i in items] == ["11:30"]
    assert items[0]["valid_until"] and items[0]["valid_until"].startswith(keep_until.isoformat())


def test_the_staff_review_by_date_is_iso_and_a_first_save_keeps_it(world, people, signed_in):
    nurse = people.staff("nurse")
    world.grant(world.patient_a, nurse, "care_coordination")
    review_by = _day(180)
    r = world.staff(nurse).post(f"/v1/patients/{world.patient_a}/memories",
                                care_body(review_by=f"{review_by.isoformat()}T23:59:00+00:00"))
    assert r.status_code == 201, r.content
    memory_id = r.json()["memory_id"]
    client = signed_in(nurse)
    url = f"/staff/patients/{world.patient_a}/memories/{memory_id}/correct/"

    form = browser_form(client.get(url).content.decode())
    assert form.date_values == {"valid_until": "", "review_by": review_by.isoformat()}
    form.data["reaction"] = ["hives"]
    response = client.post(url, form.data)
    assert response.status_code == 302, response.content.decode()
    item = world.staff(nurse).get(f"/v1/patients/{world.patient_a}/memories/{r.json()['memory_id']}").json()
    new = world.staff(nurse).get(f"/v1/patients/{world.patient_a}/memories/{item['superseded_by']}").json()
    assert new["fact"]["reaction"] == "hives" and new["review_by"].startswith(review_by.isoformat())


def test_a_refused_form_shows_the_dates_it_was_sent_as_iso(world, people, signed_in):
    """A bound form re-shows what was sent: a browser's ISO date comes back as it went."""
    consent = world.consent(world.patient_a)
    memory_id = world.patient(world.patient_a).post(f"/v1/patients/{world.patient_a}/memories",
                                                    memory_body(consent)).json()["memory_id"]
    client = signed_in(people.patient(world.patient_a))
    sent = _day(30).isoformat()
    refused = client.post(f"/me/preferences/{memory_id}/correct/", {"time": "25:99", "valid_until": sent})
    assert refused.status_code == 422
    assert browser_form(refused.content.decode()).date_values == {"valid_until": sent}


def _portal_forms():
    from memory.types import type_get
    from portal import forms as portal_forms
    from portal.views import consent, memory, types

    for module in (portal_forms, consent, memory, types):
        for obj in vars(module).values():
            if (isinstance(obj, type) and issubclass(obj, forms.BaseForm) and obj.__module__ == module.__name__
                    and obj is not portal_forms.FactForm):
                yield obj()
    for name in ("care_context", "scheduling_preference"):
        spec = type_get(name)
        yield portal_forms.FactForm(spec=spec, kind=None, correcting=True)


def test_every_date_input_of_the_portal_renders_iso():
    """A structural guard: a new date field with Django's plain DateInput (the locale's format) fails here."""
    seen = 0
    for form in _portal_forms():
        for name, field in form.fields.items():
            if not isinstance(field.widget, DateTimeBaseInput):
                continue
            seen += 1
            html = str(form[name].as_widget(attrs={}))
            if isinstance(field, forms.DateTimeField):
                assert 'type="datetime-local"' in html, (type(form).__name__, name)
                expected, value = "2027-05-12T09:30", datetime(2027, 5, 12, 9, 30)
            else:
                assert 'type="date"' in html, (type(form).__name__, name)
                expected, value = "2027-05-12", date(2027, 5, 12)
            assert field.widget.format_value(value) == expected, (type(form).__name__, name)
    assert seen >= 4  # keep until, review by, and the two "expires on" fields


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
