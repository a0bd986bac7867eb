"""The memory type registry over HTTP: agents read the types (and their schemas) to know what they may record
or propose; organisation administrators (memory_type:write) add and revise their own, and reword what any type
they may use answers (``serves``)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, extend_schema_field, inline_serializer
from rest_framework import serializers, status
from rest_framework.response import Response

from core.api import ScopedAPIView
from core.errors import NotFound
from core.serializers import StrictSerializer
from memory.models import MemoryClass, MemoryType
from memory.types import services
from memory.types.registry import (
    SERVES_SOURCES,
    builtin_catalogue,
    serves_overrides,
    type_get,
    type_public,
    types_visible,
)
from memory.types.spec import MAX_SERVES, MAX_SERVES_CHARS, NAME, PURPOSE_VALUES, WRITERS

SERVES_HELP = ("Short phrases naming the situations and questions the type answers (e.g. \"how to address the "
               "patient\"); search embeds them to decide which types could answer a question")


@extend_schema_field({"type": "array", "maxItems": MAX_SERVES,
                      "items": {"type": "string", "minLength": 1, "maxLength": MAX_SERVES_CHARS}})
class ServesField(serializers.JSONField):
    """Phrases as the client sent them: memory.types.serves_problems checks them (every problem at once, with its
    own codes), so DRF checks nothing here; the OpenAPI document still says what they are."""


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
    serves = serializers.ListField(child=serializers.CharField(), help_text=(
        f"{SERVES_HELP}. For the latest version, the organisation's own wording when it has one"))
    serves_source = serializers.ChoiceField(choices=SERVES_SOURCES, help_text=(
        "Where serves comes from: the organisation's wording, the type's definition, or (a definition without "
        "serves) the type's label"))


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
    serves = ServesField(required=False, help_text=f"{SERVES_HELP}: at most {MAX_SERVES}, distinct")


class MemoryTypeServesIn(StrictSerializer):
    """What a type answers, in the organisation's own words."""

    serves = ServesField(allow_null=True, help_text=(
        f"{SERVES_HELP}: 1 to {MAX_SERVES}, distinct, for this organisation only (built-in types too; no new "
        "version). null goes back to the type's own phrases"))


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
        name = self.kwargs.get("name")  # a name no type has (NUL, 300 characters) is refused, unnamed in the trail
        return name if name is not None and NAME.fullmatch(name) else None


class MemoryTypesView(_TypeView):
    idempotent_create = True
    required_scopes = {"GET": ["memory:read"], "POST": ["memory_type:write"]}
    audit_actions = {"POST": "memory_type.create"}

    @extend_schema(operation_id="memory_types_list",
                   responses={200: inline_serializer("MemoryTypeList", {"items": MemoryTypeOut(many=True)})})
    def get(self, request):
        """The latest version of every type the caller's organisation may use (built-in and its own)."""
        org_id = self.identity.org_id
        overrides = serves_overrides(org_id=org_id)
        return Response({"items": [type_public(s, override=overrides.get(s.name))
                                   for s in types_visible(org_id=org_id)]})

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
            specs = [spec for row in rows if (spec := type_get(name, row.version)) is not None]
        if not specs:
            raise NotFound()
        override = serves_overrides(org_id=self.identity.org_id).get(name)
        return Response({"name": name, "versions": [type_public(s, override=override if i == 0 else None)
                                                    for i, s in enumerate(specs)]})


class MemoryTypeVersionsView(_TypeView):
    idempotent_create = True
    required_scopes = {"POST": ["memory_type:write"]}
    audit_actions = {"POST": "memory_type.revise"}

    @extend_schema(operation_id="memory_types_revise", request=MemoryTypeRevisionIn,
                   responses={201: MemoryTypeOut, 200: MemoryTypeOut})
    def post(self, request, name):
        """A new version. Refused (409 revision_breaks_memories) when current memories would not satisfy it:
        ``message`` says how many, ``errors`` lists each failing field path and rule with how many memories fail
        it (``memories``), never which memories nor their values. The latest version's definition again is that
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
        latest = type_get(name)
        override = serves_overrides(org_id=self.identity.org_id).get(name) if (
            latest is not None and latest.version == spec.version) else None
        return Response(type_public(spec, override=override))


class MemoryTypeServesView(_TypeView):
    required_scopes = {"PUT": ["memory_type:write"]}
    audit_actions = {"PUT": "memory_type.serves_set"}

    @extend_schema(operation_id="memory_types_serves_set", request=MemoryTypeServesIn,
                   responses={200: MemoryTypeOut})
    def put(self, request, name):
        """Reword what a type answers, for the caller's organisation only: any type it may use, built-in
        included, with no new version (the phrases steer search, not what a fact means). The answer is the type
        as it now reads, ``serves`` in effect. ``null`` goes back to the type's own phrases; so do the type's own
        phrases sent again. 422 lists every problem (``too_many``, ``max_length``, ``duplicate``, ``blank``,
        ``control_character``, ``empty``)."""
        MemoryTypeServesIn(data=request.data).is_valid(raise_exception=True)
        spec, phrases = services.memory_type_serves_set(identity=self.identity, name=name,
                                                        serves=request.data["serves"])
        return Response(type_public(spec, override=phrases))
