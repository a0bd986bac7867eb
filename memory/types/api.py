"""The memory type registry over HTTP: agents read the types (and their schemas) to know what they may record
or propose; organisation administrators (memory_type:write) add and revise their own."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.response import Response

from core.api import ScopedAPIView
from core.errors import NotFound
from core.serializers import StrictSerializer
from memory.models import MemoryClass, MemoryType
from memory.types import services
from memory.types.registry import builtin_catalogue, type_get, type_public, types_visible
from memory.types.spec import NAME, PURPOSE_VALUES, WRITERS


class MemoryTypeOut(serializers.Serializer):
    name = serializers.CharField()
    version = serializers.IntegerField()
    builtin = serializers.BooleanField()
    memory_class = serializers.ChoiceField(choices=MemoryClass.choices)
    label = serializers.CharField()
    purposes = serializers.ListField(child=serializers.CharField())
    writers = serializers.ListField(child=serializers.CharField())
    encrypted = serializers.BooleanField()
    review = serializers.BooleanField()
    fetch_live = serializers.BooleanField()
    default_validity_days = serializers.IntegerField(allow_null=True)
    retention_days = serializers.IntegerField(allow_null=True)
    supersession = serializers.ListField(child=serializers.CharField())
    text = serializers.JSONField(help_text="A sentence template, or one per kind")
    kinds = serializers.ListField(child=serializers.CharField())
    schema = serializers.JSONField(help_text="JSON Schema (draft 2020-12) of the fact")


class MemoryTypeIn(StrictSerializer):
    """A type definition. Checked as a whole by memory.types.definition_check (closed schema, template fields,
    supersession fields); DRF only checks the shape of each field."""

    name = serializers.CharField(max_length=50, required=False, help_text="lower_snake_case; fixed on revision")
    memory_class = serializers.ChoiceField(choices=MemoryClass.choices)
    label = serializers.CharField(max_length=80)
    purposes = serializers.ListField(child=serializers.ChoiceField(choices=PURPOSE_VALUES), max_length=4)
    writers = serializers.ListField(child=serializers.ChoiceField(choices=WRITERS), max_length=4)
    encrypted = serializers.BooleanField(required=False)
    review = serializers.BooleanField(required=False, help_text="review_by required on each memory")
    fetch_live = serializers.BooleanField(required=False, help_text="served with the fetch-live guardrail")
    default_validity_days = serializers.IntegerField(required=False, allow_null=True)
    retention_days = serializers.IntegerField(required=False, allow_null=True)
    supersession = serializers.ListField(child=serializers.CharField(max_length=100), max_length=3)
    text = serializers.JSONField()
    schema = serializers.JSONField()


class MemoryTypeRevisionIn(MemoryTypeIn):
    based_on_version = serializers.IntegerField(
        min_value=1, required=False, help_text="The version this revision was made from: 409 version_conflict "
        "when another revision came first (recommended; without it the revision follows whatever is latest)")


def _definition(request, serializer=MemoryTypeIn) -> tuple[dict, dict]:
    """The body as given (after DRF's shape check), so definition_check sees exactly what the client sent; and
    the request's other fields."""
    body = serializer(data=request.data)
    body.is_valid(raise_exception=True)
    others = {"based_on_version"}
    return ({k: request.data[k] for k in body.validated_data if k not in others},
            {k: v for k, v in body.validated_data.items() if k in others})


class _TypeView(ScopedAPIView):
    abstract = True
    resource_type = "memory_type"

    def audit_resource_id(self) -> str | None:
        return self.kwargs.get("name")


class MemoryTypesView(_TypeView):
    idempotent_create = True
    required_scopes = {"GET": ["memory:read"], "POST": ["memory_type:write"]}
    audit_actions = {"POST": "memory_type.create"}

    @extend_schema(operation_id="memory_types_list",
                   responses={200: inline_serializer("MemoryTypeList", {"items": MemoryTypeOut(many=True)})})
    def get(self, request):
        """The latest version of every type the caller's organisation may use (built-in and its own)."""
        return Response({"items": [type_public(s) for s in types_visible(org_id=self.identity.org_id)]})

    @extend_schema(operation_id="memory_types_create", request=MemoryTypeIn, responses={201: MemoryTypeOut})
    def post(self, request):
        spec = services.memory_type_create(identity=self.identity, definition=_definition(request)[0])
        return Response(type_public(spec), status=status.HTTP_201_CREATED)


class MemoryTypeDetailView(_TypeView):
    required_scopes = {"GET": ["memory:read"]}

    @extend_schema(operation_id="memory_types_read",
                   responses={200: inline_serializer("MemoryTypeVersions", {
                       "name": serializers.CharField(), "versions": MemoryTypeOut(many=True)})})
    def get(self, request, name):
        """Every version of one type, newest first (old memories keep the version they were written with)."""
        if not NAME.fullmatch(name):  # NUL or other characters no type name has: never reach the database
            raise NotFound()
        builtin = builtin_catalogue().get(name)
        if builtin is not None:
            specs = [builtin[v] for v in sorted(builtin, reverse=True)]
        else:
            rows = MemoryType.objects.filter(organization_id=self.identity.org_id, name=name).order_by("-version")
            specs = [type_get(name, row.version) for row in rows]
        if not specs:
            raise NotFound()
        return Response({"name": name, "versions": [type_public(s) for s in specs]})


class MemoryTypeVersionsView(_TypeView):
    idempotent_create = True
    required_scopes = {"POST": ["memory_type:write"]}
    audit_actions = {"POST": "memory_type.revise"}

    @extend_schema(operation_id="memory_types_revise", request=MemoryTypeRevisionIn,
                   responses={201: MemoryTypeOut, 200: MemoryTypeOut})
    def post(self, request, name):
        """A new version. Refused (409 revision_breaks_memories) when current memories would not satisfy it:
        ``errors`` lists each memory id and failing field path. The latest version's definition again is that
        version (200), not a copy of it; a revision based on an older version is 409 version_conflict."""
        definition, others = _definition(request, MemoryTypeRevisionIn)
        spec, created = services.memory_type_revise(identity=self.identity, name=name, definition=definition,
                                                    based_on_version=others.get("based_on_version"))
        return Response(type_public(spec), status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class MemoryTypeVersionView(_TypeView):
    required_scopes = {"GET": ["memory:read"]}

    @extend_schema(operation_id="memory_types_version_read", responses={200: MemoryTypeOut})
    def get(self, request, name, version):
        spec = type_get(name, version)
        if spec is None:
            raise NotFound()
        return Response(type_public(spec))
