"""The portal's pages spend the signed-in person's allowance in the API's shared rate-limit counters: a script
holding a session cookie read pages (or guessed ids) without end."""

from __future__ import annotations

import uuid

import pytest

pytestmark = pytest.mark.django_db


@pytest.fixture
def limited(settings):
    settings.API_RATE_LIMIT_WINDOW_SECONDS = 3600
    settings.API_RATE_LIMIT_PER_SUBJECT = 3
    return settings


def test_pages_past_the_persons_limit_are_a_429_page_saying_how_long_to_wait(world, people, signed_in, limited):
    client = signed_in(people.patient(world.patient_a, name="Alice"))
    for _ in range(3):
        assert client.get("/me/").status_code == 200
    page = client.get("/me/")
    assert page.status_code == 429
    assert 1 <= int(page["Retry-After"]) <= 3600
    text = page.content.decode()
    assert "Too many requests" in text and f"Wait {page['Retry-After']} second" in text
    assert "no-store" in page["Cache-Control"]
    # another person of the organisation has their own allowance
    assert signed_in(people.patient(world.patient_b)).get("/me/").status_code == 200
    limited.API_RATE_LIMIT_PER_SUBJECT = 0
    assert client.get("/me/").status_code == 200


def test_refused_pages_count_too_so_guessing_ids_is_throttled(world, people, signed_in, limited):
    client = signed_in(people.staff())
    for _ in range(3):
        assert client.get(f"/staff/patients/{uuid.uuid4()}/").status_code == 404
    assert client.get(f"/staff/patients/{uuid.uuid4()}/").status_code == 429
    assert client.get("/staff/").status_code == 429
