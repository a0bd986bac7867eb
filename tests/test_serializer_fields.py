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
