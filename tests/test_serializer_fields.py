"""Model renderings work their fields out once per class (core.serializers.ModelOutSerializer): the same fields
DRF's ModelSerializer builds, and every instance still gets fields of its own."""

import threading

import pytest
from rest_framework import serializers

from consent.api import ConsentOut, GrantOut
from conversations.api import SessionOut
from core.api_views import AuditEventOut, OrganizationOut
from core.serializers import ModelOutSerializer
from memory.api import LifecycleEventOut, MemoryOut
from workflows.api import OperationOut, WorkflowOut

RENDERINGS = [MemoryOut, LifecycleEventOut, ConsentOut, GrantOut, AuditEventOut, OrganizationOut, SessionOut,
              OperationOut, WorkflowOut]


def _described(fields) -> dict[str, str]:
    return {name: repr(field) for name, field in fields.items()}


@pytest.mark.parametrize("rendering", RENDERINGS, ids=lambda cls: cls.__name__)
def test_the_fields_are_those_modelserializer_builds(rendering):
    assert issubclass(rendering, ModelOutSerializer)
    built_by_drf = serializers.ModelSerializer.get_fields(rendering())
    for _ in range(2):  # the first call builds the prototypes, the second copies them
        assert _described(rendering().get_fields()) == _described(built_by_drf)


def test_every_instance_gets_fields_of_its_own_bound_to_itself():
    first, second = MemoryOut(), MemoryOut()
    for name, field in first.fields.items():
        assert field is not second.fields[name]
        assert field.parent is first and second.fields[name].parent is second
    prototypes = MemoryOut.__dict__["_field_prototypes"]
    assert all(field.parent is None for field in prototypes.values()), "prototypes are never bound"


def test_a_subclass_keeps_its_own_fields():
    class Narrower(MemoryOut):
        class Meta(MemoryOut.Meta):
            fields = ["memory_id", "state"]

    MemoryOut().fields  # noqa: B018 (builds MemoryOut's prototypes first)
    assert list(Narrower().fields) == ["memory_id", "state"]
    assert len(MemoryOut().fields) > 2


def test_threads_rendering_at_once_each_see_their_own_data():
    class Row:
        def __init__(self, i):
            self.event_id, self.memory_id, self.patient_id = i, i, i

    class Small(ModelOutSerializer):
        class Meta:
            model = LifecycleEventOut.Meta.model
            fields = ["event_type", "actor_sub"]

    errors = []

    def render(i):
        for _ in range(200):
            row = Row(i)
            row.event_type, row.actor_sub = f"type-{i}", f"actor-{i}"
            data = Small(row).data
            if data != {"event_type": f"type-{i}", "actor_sub": f"actor-{i}"}:
                errors.append(data)

    threads = [threading.Thread(target=render, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def _request_serializers() -> list[type[serializers.Serializer]]:
    import django.urls  # noqa: F401  (the URLconf imports every API module, and so every request serializer)
    from django.urls import get_resolver

    from core.serializers import StrictSerializer

    get_resolver().url_patterns  # noqa: B018
    found, pending = [], [StrictSerializer]
    while pending:
        cls = pending.pop()
        found.append(cls)
        pending.extend(cls.__subclasses__())
    return [cls for cls in found if cls is not StrictSerializer]


def test_every_uuid_a_request_takes_must_be_sent_as_a_string():
    """A request's UUID fields are core.serializers.UUIDIn: DRF's UUIDField reads the number 5 as the UUID
    00000000-0000-0000-0000-000000000005, and a client that sent a number would be answered about a record nobody
    meant instead of being told the field is not a UUID."""
    from core.serializers import UUIDIn

    classes = _request_serializers()
    assert len(classes) > 20, "the request serializers were not found"
    lax = []
    for cls in classes:
        for name, field in cls().fields.items():
            for f in (field, getattr(field, "child", None)):
                if isinstance(f, serializers.UUIDField) and not isinstance(f, UUIDIn):
                    lax.append(f"{cls.__module__}.{cls.__name__}.{name}")
    assert lax == []


def test_a_refused_choice_of_any_serializer_never_repeats_what_was_sent():
    """DRF words a refused choice as '"<what was sent>" is not a valid choice.'; the problem document does not."""
    from core.errors import problem_exception_handler

    class Plain(serializers.Serializer):
        purpose = serializers.ChoiceField(choices=["communication"])

    refused = Plain(data={"purpose": "I have HIV"})
    assert not refused.is_valid()
    body = problem_exception_handler(serializers.ValidationError(refused.errors), {}).data
    assert body["errors"] == [{"field": "purpose", "message": "not one of the accepted values",
                               "code": "invalid_choice"}]
