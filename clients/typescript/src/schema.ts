/**
 * This file was generated from openapi.json by scripts/generate.mjs (npm run generate).
 * Do not make direct changes to the file.
 */

export interface paths {
    "/v1/audit-events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * @description Access history, newest first. A patient sees their own; an auditor (audit:read) sees the organisation's.
         *     Older pages: pass the answer's ``next_cursor`` as ``cursor`` (null when there is nothing older).
         *
         *     Requires scopes: `audit:read`.
         */
        get: operations["audit_events_list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/event-subscriptions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description Requires scopes: `webhook:admin`. */
        get: operations["event_subscriptions_list"];
        put?: never;
        /** @description Requires scopes: `webhook:admin`. */
        post: operations["event_subscriptions_create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/event-subscriptions/{subscription_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description Requires scopes: `webhook:admin`. */
        get: operations["event_subscriptions_read"];
        put?: never;
        post?: never;
        /** @description Requires scopes: `webhook:admin`. */
        delete: operations["event_subscriptions_delete"];
        options?: never;
        head?: never;
        /** @description Requires scopes: `webhook:admin`. */
        patch: operations["event_subscriptions_update"];
        trace?: never;
    };
    "/v1/event-subscriptions/{subscription_id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * @description Every delivery of one subscription, newest first, a page at a time (its read shows the 100 newest only).
         *
         *     Requires scopes: `webhook:admin`.
         */
        get: operations["event_subscriptions_deliveries_list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/grants": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description Requires scopes: `grant:write`. */
        get: operations["grants_list"];
        put?: never;
        /** @description Requires scopes: `grant:write`. */
        post: operations["grants_create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/grants/{grant_id}/revoke": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** @description Requires scopes: `grant:write`. */
        post: operations["grants_revoke"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/memory-types": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * @description The latest version of every type the caller's organisation may use (built-in and its own).
         *
         *     Requires scopes: `memory:read`.
         */
        get: operations["memory_types_list"];
        put?: never;
        /** @description Requires scopes: `memory_type:write`. */
        post: operations["memory_types_create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/memory-types/{name}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * @description Every version of one type, newest first (old memories keep the version they were written with).
         *
         *     Requires scopes: `memory:read`.
         */
        get: operations["memory_types_read"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/memory-types/{name}/serves": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * @description Reword what a type answers, for the caller's organisation only: any type it may use, built-in
         *     included, with no new version (the phrases steer search, not what a fact means). The answer is the type
         *     as it now reads, ``serves`` in effect. ``null`` goes back to the type's own phrases; so do the type's own
         *     phrases sent again. 422 lists every problem (``too_many``, ``max_length``, ``duplicate``, ``blank``,
         *     ``control_character``, ``empty``).
         *
         *     Requires scopes: `memory_type:write`.
         */
        put: operations["memory_types_serves_set"];
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/memory-types/{name}/versions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * @description A new version. Refused (409 revision_breaks_memories) when current memories would not satisfy it:
         *     ``message`` says how many, ``errors`` lists each failing field path and rule with how many memories fail
         *     it (``memories``), never which memories nor their values. The latest version's definition again is that
         *     version (200), not a copy of it; a revision based on an older version is 409 version_conflict.
         *
         *     Requires scopes: `memory_type:write`.
         */
        post: operations["memory_types_revise"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/memory-types/{name}/versions/{version}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description Requires scopes: `memory:read`. */
        get: operations["memory_types_version_read"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/organizations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * @description The organisation registry, for its administrators: ``organization:admin`` in a token of an organisation the
         *     operator flagged as administrator (``manage.py register_organization --administrator``). Anyone else sees
         *     only their own organisation, by RLS, even with the scope.
         *
         *     Requires scopes: `organization:admin`.
         */
        get: operations["organizations_list"];
        put?: never;
        /**
         * @description The organisation registry, for its administrators: ``organization:admin`` in a token of an organisation the
         *     operator flagged as administrator (``manage.py register_organization --administrator``). Anyone else sees
         *     only their own organisation, by RLS, even with the scope.
         *
         *     Requires scopes: `organization:admin`.
         */
        post: operations["organizations_register"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/patients": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description Requires scopes: `patient:read`. */
        get: operations["patients_search"];
        put?: never;
        /** @description Requires scopes: `patient:write`. */
        post: operations["patients_register"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/patients/{patient_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description Requires scopes: `patient:read`. */
        get: operations["patients_read"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/patients/{patient_id}/care-team-flags": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * @description Clinical remarks routed to the care team from the patient's conversations (codes, never what was said),
         *     for whoever may see those conversations: urgent first. Nothing the caller may not see: an empty list. A page at
         *     a time: pass the answer's ``next_cursor`` as ``cursor`` (null on the last page).
         *
         *     Requires scopes: `memory:read`.
         */
        get: operations["care_team_flags_list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/patients/{patient_id}/consents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description Requires scopes: `consent:read`. */
        get: operations["consents_list"];
        put?: never;
        /** @description Requires scopes: `consent:write`. */
        post: operations["consents_create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/patients/{patient_id}/consents/{consent_id}/revoke": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** @description Requires scopes: `consent:write`. */
        post: operations["consents_revoke"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/patients/{patient_id}/context": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * @description A context pack for a question, recorded as a release for its purpose of use. purpose: Why the caller reads (purpose of use). Default: the token's purpose_of_use claim when it names exactly one. A purpose the caller holds no consent or grant for is 403 purpose_not_permitted. Required when the token names none.
         *
         *     Requires scopes: `memory:read`.
         */
        post: operations["memories_context_pack"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/patients/{patient_id}/deletions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description Requires scopes: `memory:read`. */
        get: operations["memories_deletions_list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/patients/{patient_id}/export": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * @description A copy of everything held about the patient (right of access, portability), streamed.
         *
         *     ``?format=json`` (default): every record, in sections. ``?format=fhir`` (or ``Accept: application/fhir+json``):
         *     an HL7 FHIR R4 ``collection`` Bundle (docs/fhir.md). The export is audited before the first byte is sent.
         *
         *     Requires scopes: `export:read`.
         */
        get: operations["patient_export"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/patients/{patient_id}/fhir-import": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * @description Staff import care context from the EHR: one FHIR ``AllergyIntolerance`` or ``MedicationStatement``.
         *
         *     Stored as ``ehr_import`` with ``source_ref`` ``<type>/<id>/_history/<versionId>``; the same resource version
         *     imported twice is one memory (the second answer is 200 with the first memory).
         *
         *     Requires scopes: `memory:write`.
         */
        post: operations["patient_fhir_import"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/patients/{patient_id}/memories": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * @description Long-term memories of one patient (compatible with the seed's reference service).
         *
         *     Requires scopes: `memory:read`.
         */
        get: operations["memories_list"];
        put?: never;
        /**
         * @description Long-term memories of one patient (compatible with the seed's reference service).
         *
         *     Requires scopes: `memory:write`.
         */
        post: operations["memories_create"];
        /**
         * @description Long-term memories of one patient (compatible with the seed's reference service).
         *
         *     Requires scopes: `memory:write`.
         */
        delete: operations["memories_erase_all"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/patients/{patient_id}/memories/{memory_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description Requires scopes: `memory:read`. */
        get: operations["memories_read"];
        put?: never;
        post?: never;
        /** @description Requires scopes: `memory:write`. */
        delete: operations["memories_delete"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/patients/{patient_id}/memories/{memory_id}/confirm": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** @description Requires scopes: `memory:write`. */
        post: operations["memories_confirm"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/patients/{patient_id}/memories/{memory_id}/correct": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** @description Requires scopes: `memory:write`. */
        post: operations["memories_correct"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/patients/{patient_id}/memories/{memory_id}/history": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description Requires scopes: `memory:read`. */
        get: operations["memories_history"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/patients/{patient_id}/memories/{memory_id}/quarantine": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** @description Requires scopes: `memory:write`. */
        post: operations["memories_quarantine"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/patients/{patient_id}/memories/{memory_id}/reject": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** @description Requires scopes: `memory:write`. */
        post: operations["memories_reject"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/patients/{patient_id}/memories/{memory_id}/release": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * @description Staff release a quarantined memory: current again, superseding the value made current while it was aside.
         *
         *     Requires scopes: `memory:write`.
         */
        post: operations["memories_release"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/patients/{patient_id}/memories/proposals": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description Requires scopes: `memory:read`. */
        get: operations["memories_proposals_list"];
        put?: never;
        /** @description Requires scopes: `memory:write`. */
        post: operations["memories_propose"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/patients/{patient_id}/memories/search": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * @description Deterministic filters first (organisation, patient, purpose, class, state, validity, consent), then exact
         *     ranking by cosine similarity blended with full-text rank.
         *
         *     Requires scopes: `memory:read`.
         */
        get: operations["memories_search"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/patients/{patient_id}/releases": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * @description What was disclosed: which memories went to which agent, for which purpose, when.
         *
         *     Requires scopes: `memory:read`.
         */
        get: operations["memories_releases_list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * @description Start a conversation for one patient and one purpose.
         *
         *     Requires scopes: `memory:write`.
         */
        post: operations["sessions_create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * @description A session's state: slots, next action, open questions, care-team flags (no turn text).
         *
         *     Requires scopes: `memory:read`.
         */
        get: operations["sessions_read"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}/context": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * @description The model context within a token budget: slots, standing preferences, the newest turns that fit and a structured summary of the older ones. Never holds the patient identifier.
         *
         *     Requires scopes: `memory:read`.
         */
        get: operations["sessions_context"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}/end": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * @description End as completed or abandoned: slots, summary and tool results are cleared now; the sweep removes the turns later. Ending again with the same outcome is a no-op.
         *
         *     Requires scopes: `memory:write`.
         */
        post: operations["sessions_end"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}/offers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * @description Search the scheduling system with the conversation's slots and the patient's long-term scheduling preferences; the result is recorded as a tool turn.
         *
         *     Requires scopes: `memory:read memory:write`.
         */
        post: operations["sessions_offers_search"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}/turns": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * @description Append a user, assistant or tool turn. Slots are updated from every user turn; clinical remarks are flagged for the care team, never stored as memory.
         *
         *     Requires scopes: `memory:write`.
         */
        post: operations["sessions_turns_append"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{session_id}/turns/{seq}/propose": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * @description Propose the durable scheduling preferences stated in this user turn as long-term memories (state proposed; needs the patient's active consent; source_ref points at the turn). Nothing is used until the patient or staff confirm it.
         *
         *     Requires scopes: `memory:write`.
         */
        post: operations["sessions_turns_propose"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/staff": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * @description Administrators find staff subjects (people and agents) by name to grant them access.
         *
         *     Requires scopes: `grant:write`.
         */
        get: operations["staff_search"];
        put?: never;
        /**
         * @description Administrators find staff subjects (people and agents) by name to grant them access.
         *
         *     Requires scopes: `grant:write`.
         */
        post: operations["staff_register"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workflows": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** @description Requires scopes: `workflow:write`. */
        post: operations["workflows_create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workflows/{workflow_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * @description The workflow's step and version, its unsettled operations and the next safe action: what an agent coming back after a crash reads first.
         *
         *     Requires scopes: `workflow:read`.
         */
        get: operations["workflows_read"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workflows/{workflow_id}/checkpoint": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** @description Requires scopes: `workflow:write`. */
        post: operations["workflows_checkpoint"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workflows/{workflow_id}/operations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** @description Requires scopes: `workflow:read`. */
        get: operations["workflow_operations_list"];
        put?: never;
        /**
         * @description Queue a non-read action against an outside system at the workflow's current step (the transactional outbox). It is sent by the worker with its own idempotency key, bound to the payload's hash.
         *
         *     Requires scopes: `workflow:write`.
         */
        post: operations["workflow_operations_request"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workflows/{workflow_id}/operations/{operation_id}/resolve": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * @description Staff, from the reconciliation queue: record what the outside system answered when asked about an operation whose outcome is unknown. sent (with its external_id) settles it as succeeded and moves the workflow on; not_sent settles it as failed (staff_confirmed_not_sent), so it may be asked for again with a new key. The worker never attempts it again. The same resolution again answers the operation (Idempotent-Replayed: true); another one of a settled operation is 409 operation_not_resolvable.
         *
         *     Requires scopes: `workflow:reconcile workflow:write`.
         */
        post: operations["workflow_operations_resolve"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workflows/{workflow_id}/operations/{operation_id}/retry": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * @description Give an operation whose retries ran out with an unknown outcome a new budget. It keeps its key: the worker asks the outside system first and resubmits only if the key is unknown there.
         *
         *     Requires scopes: `workflow:write`.
         */
        post: operations["workflow_operations_retry"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/workflows/reconciliation": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * @description Staff: workflows stuck in needs_reconciliation, and cancelled ones whose operation is parked with an unknown
         *     outcome (no state, no payloads), of the patients and purposes the caller holds grants for; with
         *     ``workflow:reconcile:org`` the whole organisation's, labelled ``"view": "organization"``.
         *
         *     Requires scopes: `workflow:reconcile`.
         */
        get: operations["workflows_reconciliation_queue"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /**
         * @description * `wait_for_operation` - wait_for_operation
         *     * `wait_for_reconciliation` - wait_for_reconciliation
         *     * `staff_reconciliation` - staff_reconciliation
         *     * `request_operation` - request_operation
         *     * `checkpoint` - checkpoint
         *     * `undo_at_outside_system` - undo_at_outside_system
         *     * `none` - none
         * @enum {string}
         */
        ActionEnum: "wait_for_operation" | "wait_for_reconciliation" | "staff_reconciliation" | "request_operation" | "checkpoint" | "undo_at_outside_system" | "none";
        /** @description The payload of kind book_appointment (refuses fields it does not declare). */
        AppointmentBookingPayloadRequest: {
            /** @description a slot offered by the scheduling system */
            slot_id: string;
            appointment_type: string;
        };
        AuditEventList: {
            view: components["schemas"]["AuditEventListViewEnum"];
            items: components["schemas"]["AuditEventOut"][];
            /** @description null on the last page */
            next_cursor: string | null;
        };
        /**
         * @description * `own` - own
         *     * `organization` - organization
         * @enum {string}
         */
        AuditEventListViewEnum: "own" | "organization";
        /**
         * @description A ModelSerializer whose fields are worked out from the model once per class, not once per instance.
         *
         *     ``ModelSerializer.get_fields`` introspects the model for every instance it makes (each field's class, its
         *     keyword arguments, its validators): 0.2 of the 0.6 ms that rendering one memory took. Here the
         *     fields built the first time are kept unbound on the class, and every instance gets its own deep copy of them,
         *     as DRF gives every instance a deep copy of the declared fields. Nothing in a field's construction depends on
         *     the instance, its data or its context.
         */
        AuditEventOut: {
            /** Format: uuid */
            readonly id: string;
            /** Format: date-time */
            occurred_at: string;
            /** Format: uuid */
            patient_id: string | null;
            actor_sub: string;
            actor_kind: string;
            agent_client_id: string | null;
            /** Format: uuid */
            on_behalf_of: string | null;
            action: string;
            resource_type: string;
            resource_id: string | null;
            purpose: string | null;
            outcome: string;
            reason: string | null;
            correlation_id: string;
        };
        BudgetOut: {
            max_tokens: number;
            /** @description Tokens of the JSON-serialised context (compact separators) */
            used_tokens: number;
            tokenizer: string;
            turns_total: number;
            turns_included: number;
            turns_summarised: number;
            truncated: boolean;
            summariser: string | null;
        };
        /**
         * @description * `no_grant_for_patient` - no_grant_for_patient
         *     * `missing_scope_workflow_write` - missing_scope_workflow_write
         * @enum {string}
         */
        CannotActReasonEnum: "no_grant_for_patient" | "missing_scope_workflow_write";
        CareTeamFlagOut: {
            /** Format: uuid */
            session_id: string;
            purpose: string;
            session_status: string;
            /** @description e.g. medication_anticoagulant, urgent_symptom: a code, never text */
            category: string;
            urgent: boolean;
            source_id: string;
            /** Format: date-time */
            flagged_at: string | null;
        };
        CareTeamFlags: {
            items: components["schemas"]["CareTeamFlagOut"][];
            /** @description null on the last page */
            next_cursor: string | null;
        };
        /** @description Refuses fields it does not declare. */
        CheckpointInRequest: {
            expected_version: number;
            next_step: string;
            /** @description At most 20 values (a string, number, boolean or null), under keys of 1 to 64 characters */
            state_patch?: {
                [key: string]: string | number | boolean | (never | null);
            };
            /** @description An operation to queue in the same transaction as this step (the outbox): allowed when the new step is one at which its kind may be requested. */
            request_operation?: components["schemas"]["OperationRequestInRequest"];
        };
        /** @description Refuses fields it does not declare. */
        ConsentInRequest: {
            purpose: components["schemas"]["PurposeEnum"];
            evidence_ref?: string;
            /** Format: date-time */
            expires_at?: string | null;
        };
        ConsentList: {
            items: components["schemas"]["ConsentOut"][];
            /** @description null on the last page */
            next_cursor: string | null;
        };
        /**
         * @description A ModelSerializer whose fields are worked out from the model once per class, not once per instance.
         *
         *     ``ModelSerializer.get_fields`` introspects the model for every instance it makes (each field's class, its
         *     keyword arguments, its validators): 0.2 of the 0.6 ms that rendering one memory took. Here the
         *     fields built the first time are kept unbound on the class, and every instance gets its own deep copy of them,
         *     as DRF gives every instance a deep copy of the declared fields. Nothing in a field's construction depends on
         *     the instance, its data or its context.
         */
        ConsentOut: {
            /** Format: uuid */
            readonly consent_record_id: string;
            /** Format: uuid */
            patient_id: string;
            purpose: components["schemas"]["PurposeEnum"];
            status: components["schemas"]["ConsentOutStatusEnum"];
            /** Format: date-time */
            granted_at: string;
            /** Format: date-time */
            revoked_at: string | null;
            /** Format: date-time */
            expires_at: string | null;
            evidence_ref: string;
            policy_revision: string;
            recorded_by: string;
            revoked_by: string | null;
        };
        /**
         * @description * `granted` - Granted
         *     * `revoked` - Revoked
         *     * `expired` - Expired
         * @enum {string}
         */
        ConsentOutStatusEnum: "granted" | "revoked" | "expired";
        ConstraintsOut: {
            preferred_days: string[];
            preferred_period: string | null;
            excluded_days: string[];
            excluded_periods: string[];
            /** @description A day and a part of the day said together ('not Monday morning', 'Tuesday morning or Thursday afternoon'): one constraint on both, not on every such day or every such part of the day */
            preferred_day_periods: components["schemas"]["DayPeriodOut"][];
            /** @description A day and a part of the day said together ('not Monday morning', 'Tuesday morning or Thursday afternoon'): one constraint on both, not on every such day or every such part of the day */
            excluded_day_periods: components["schemas"]["DayPeriodOut"][];
            earliest_time: string | null;
            latest_time: string | null;
            /** @description Where each constraint came from: turn:N or memory:<id> */
            sources: {
                [key: string]: string[];
            };
        };
        ContextFactOut: {
            /** Format: uuid */
            memory_id: string;
            text: string;
            memory_class: string;
            memory_type: string;
            /** @description The purpose of use it is kept for (care context kept for another purpose than the pack's comes in for safety) */
            consent_purpose: string;
            source: string;
            source_ref: string;
            /** @description the agent that proposed it, if one did */
            agent_client_id: string | null;
            created_by: string;
            /** Format: date-time */
            valid_from: string;
            /** Format: date-time */
            valid_until: string | null;
            /** Format: double */
            score: number;
            guardrails: {
                [key: string]: unknown;
            };
            /** @description high or low */
            confidence: string;
            /** @description relevance or safety_rule */
            included_by: string;
        };
        /** @description Refuses fields it does not declare. */
        ContextInRequest: {
            question: string;
            purpose?: components["schemas"]["PurposeEnum"];
            limit?: number;
            /** Format: uuid */
            session_id?: string | null;
        };
        ContextOut: {
            /** Format: uuid */
            session_id: string;
            /** Format: date-time */
            expires_at: string;
            context: components["schemas"]["ModelContextOut"];
            budget: components["schemas"]["BudgetOut"];
        };
        ContextPackOut: {
            /** Format: uuid */
            release_id: string;
            purpose: string;
            facts: components["schemas"]["ContextFactOut"][];
            guardrail_notes: string[];
            /** @description As for search, over what was found before best guesses were left out */
            confidence: string;
            safety_rule_applied: boolean;
            /** @description The safety rule applied, but allergies and long-term medicines (care context) could not be included: the caller may not read them for any purpose they are kept for. Said whether or not any are on record; check them in the clinical record before acting */
            safety_facts_filtered_out: boolean;
            /** @description Best guesses under the threshold left out */
            left_out_low_confidence: number;
            /** @description Facts that reached the threshold but were left out by the limit (limit, default 5): the facts are then not the whole answer; ask again with a higher limit */
            left_out_over_limit: number;
            /** @description Ready to insert into a prompt; never contains the patient identifier */
            text: string;
        };
        /** @description Refuses fields it does not declare. */
        CorrectionInRequest: {
            fact: {
                [key: string]: unknown;
            };
            /** Format: date-time */
            valid_until?: string | null;
            /** Format: date-time */
            review_by?: string | null;
        };
        DayPeriodOut: {
            day: string;
            period: string;
        };
        DecisionOut: {
            decision: string;
            source_id: string;
        };
        DeletionList: {
            items: components["schemas"]["DeletionReceipt"][];
            /** @description null on the last page */
            next_cursor: string | null;
        };
        DeletionReceipt: {
            /** Format: uuid */
            deletion_id: string;
            /** Format: uuid */
            patient_id: string;
            scope: components["schemas"]["ScopeEnum"];
            reason_code: string;
            requested_by: string;
            /** Format: date-time */
            requested_at: string;
            /** Format: date-time */
            completed_at: string;
            memory_ids: string[];
            representations: components["schemas"]["RepresentationReceipt"][];
            retained: {
                [key: string]: unknown;
            }[];
            /** @description Other copies reached: erase-all's conversations, workflow state and payloads; one memory's deletion, the conversation tool results that held it */
            other_copies?: {
                [key: string]: unknown;
            }[];
            /** @description Stored responses of safe retries (Idempotency-Key) about this patient, of every caller, removed: a replay cannot give the deleted values back; those keys act as new ones */
            stored_responses_removed: number;
        };
        DeliveryOut: {
            /** Format: uuid */
            delivery_id: string;
            /**
             * Format: uuid
             * @description the webhook-id header: the same on every attempt
             */
            event_id: string;
            event_type: string;
            status: components["schemas"]["DeliveryOutStatusEnum"];
            attempts: number;
            last_status_code: number | null;
            last_error_code: string | null;
            /** Format: date-time */
            last_attempt_at: string | null;
            /** Format: date-time */
            next_attempt_at: string | null;
            /** Format: date-time */
            delivered_at: string | null;
            /** Format: date-time */
            created_at: string;
        };
        /**
         * @description * `pending` - Waiting for its next attempt
         *     * `in_flight` - Claimed by a worker (until its lease ends)
         *     * `delivered` - The endpoint answered 2xx
         *     * `failed` - No 2xx within the attempt limit, or the endpoint may not be called
         * @enum {string}
         */
        DeliveryOutStatusEnum: "pending" | "in_flight" | "delivered" | "failed";
        /** @description Refuses fields it does not declare. */
        EndInRequest: {
            outcome: components["schemas"]["OutcomeEnum"];
        };
        EventDeliveryList: {
            items: components["schemas"]["DeliveryOut"][];
            /** @description null on the last page */
            next_cursor: string | null;
        };
        EventSubscriptionDetail: {
            subscription: components["schemas"]["SubscriptionOut"];
            /** @description the 100 newest; every one, a page at a time: GET /v1/event-subscriptions/{subscription_id}/deliveries */
            deliveries: components["schemas"]["DeliveryOut"][];
        };
        EventSubscriptionList: {
            items: components["schemas"]["SubscriptionOut"][];
        };
        /**
         * @description * `proposed` - Proposed
         *     * `confirmed` - Confirmed
         *     * `rejected` - Rejected
         *     * `corrected` - Corrected
         *     * `superseded` - Superseded
         *     * `expired` - Expired
         *     * `quarantined` - Quarantined
         *     * `reinstated` - Reinstated
         *     * `released` - Released
         *     * `consent_revoked` - Consent Revoked
         *     * `deletion_requested` - Deletion Requested
         *     * `deleted` - Deleted
         * @enum {string}
         */
        EventTypeEnum: "proposed" | "confirmed" | "rejected" | "corrected" | "superseded" | "expired" | "quarantined" | "reinstated" | "released" | "consent_revoked" | "deletion_requested" | "deleted";
        /**
         * @description * `memory.proposed` - memory.proposed
         *     * `memory.confirmed` - memory.confirmed
         *     * `memory.deleted` - memory.deleted
         *     * `patient.erased` - patient.erased
         *     * `consent.revoked` - consent.revoked
         *     * `grant.revoked` - grant.revoked
         *     * `workflow.needs_reconciliation` - workflow.needs_reconciliation
         * @enum {string}
         */
        EventTypesEnum: "memory.proposed" | "memory.confirmed" | "memory.deleted" | "patient.erased" | "consent.revoked" | "grant.revoked" | "workflow.needs_reconciliation";
        FactOut: {
            fact: string;
            source_id: string;
            /** Format: double */
            confidence: number;
        };
        /** @description Refuses fields it does not declare. */
        FhirImportInRequest: {
            /** @description A FHIR R4 AllergyIntolerance or MedicationStatement */
            resource: {
                [key: string]: unknown;
            };
            /**
             * Format: date-time
             * @description When the care team reviews the imported fact
             */
            review_by: string;
        };
        FhirImported: {
            /** Format: uuid */
            memory_id: string;
            status: components["schemas"]["FhirImportedStatusEnum"];
            memory: components["schemas"]["MemoryOut"];
        };
        /**
         * @description * `stored` - stored
         *     * `already_imported` - already_imported
         * @enum {string}
         */
        FhirImportedStatusEnum: "stored" | "already_imported";
        FlagOut: {
            /** @description e.g. medication_anticoagulant, urgent_symptom: a code, never text */
            category: string;
            urgent: boolean;
            source_id: string;
        };
        /** @description Refuses fields it does not declare. */
        GrantInRequest: {
            /** Format: uuid */
            patient_id: string;
            actor_sub: string;
            purpose: components["schemas"]["PurposeEnum"];
            /**
             * Format: date-time
             * @description none: until revoked
             */
            expires_at?: string | null;
            /** @default  */
            reason?: string;
        };
        GrantList: {
            items: components["schemas"]["GrantOut"][];
            /** @description null on the last page */
            next_cursor: string | null;
        };
        /**
         * @description A ModelSerializer whose fields are worked out from the model once per class, not once per instance.
         *
         *     ``ModelSerializer.get_fields`` introspects the model for every instance it makes (each field's class, its
         *     keyword arguments, its validators): 0.2 of the 0.6 ms that rendering one memory took. Here the
         *     fields built the first time are kept unbound on the class, and every instance gets its own deep copy of them,
         *     as DRF gives every instance a deep copy of the declared fields. Nothing in a field's construction depends on
         *     the instance, its data or its context.
         */
        GrantOut: {
            /** Format: uuid */
            readonly grant_id: string;
            /** Format: uuid */
            patient_id: string;
            actor_sub: string;
            purpose: components["schemas"]["PurposeEnum"];
            /** Format: date-time */
            expires_at: string | null;
            /** Format: date-time */
            revoked_at: string | null;
            granted_by: string;
            revoked_by: string | null;
            reason: string;
            /** Format: date-time */
            readonly created_at: string;
        };
        /** @description Refuses fields it does not declare. */
        GrantRevokeInRequest: {
            /** @default  */
            reason?: string;
        };
        /** @description Refuses fields it does not declare. */
        Identifier: {
            /** @description e.g. urn:oid:... or https://... */
            system: string;
            /** @description e.g. an MRN */
            value: string;
        };
        /** @description Refuses fields it does not declare. */
        IdentifierRequest: {
            /** @description e.g. urn:oid:... or https://... */
            system: string;
            /** @description e.g. an MRN */
            value: string;
        };
        /**
         * @description * `book` - book
         *     * `reschedule` - reschedule
         *     * `cancel` - cancel
         * @enum {string}
         */
        IntentEnum: "book" | "reschedule" | "cancel";
        /**
         * @description * `book_appointment` - book_appointment
         *     * `submit_prior_authorization` - submit_prior_authorization
         * @enum {string}
         */
        KindEnum: "book_appointment" | "submit_prior_authorization";
        LastOfferOut: {
            source_id: string;
            slots: components["schemas"]["OfferOut"][];
        };
        /**
         * @description A ModelSerializer whose fields are worked out from the model once per class, not once per instance.
         *
         *     ``ModelSerializer.get_fields`` introspects the model for every instance it makes (each field's class, its
         *     keyword arguments, its validators): 0.2 of the 0.6 ms that rendering one memory took. Here the
         *     fields built the first time are kept unbound on the class, and every instance gets its own deep copy of them,
         *     as DRF gives every instance a deep copy of the declared fields. Nothing in a field's construction depends on
         *     the instance, its data or its context.
         */
        LifecycleEventOut: {
            /** Format: uuid */
            readonly event_id: string;
            /** Format: uuid */
            readonly memory_id: string;
            event_type: components["schemas"]["EventTypeEnum"];
            from_state: string | null;
            to_state: string;
            actor_sub: string;
            reason_code: string;
            policy_revision: string;
            source_ref: string;
            value_digest: string | null;
            /** Format: date-time */
            occurred_at: string;
        };
        /**
         * @description * `working` - Working
         *     * `preference` - Preference
         *     * `account_fact` - Account Fact
         *     * `care_context` - Care Context
         * @enum {string}
         */
        MemoryClassEnum: "working" | "preference" | "account_fact" | "care_context";
        MemoryHistory: {
            versions: components["schemas"]["MemoryOut"][];
            events: components["schemas"]["LifecycleEventOut"][];
            /** @description null on the last page */
            next_cursor: string | null;
        };
        /** @description Refuses fields it does not declare. */
        MemoryInRequest: {
            /** @description A type from GET /v1/memory-types */
            memory_type: string;
            /** @description Typed fact; `kind` names the attribute, e.g. {"kind": "earliest_time", "time": "10:00"} */
            fact: {
                [key: string]: unknown;
            };
            consent_purpose: components["schemas"]["PurposeEnum"];
            /**
             * Format: uuid
             * @description Required except for care context
             */
            consent_record_id?: string | null;
            /** Format: date-time */
            valid_until?: string | null;
            /**
             * Format: date-time
             * @description Types with review (care context)
             */
            review_by?: string | null;
            /**
             * @description Types that staff or an EHR import write
             *
             *     * `staff_entered` - staff_entered
             *     * `ehr_import` - ehr_import
             */
            source?: components["schemas"]["MemoryInSourceEnum"];
            /** @description Types that staff or an EHR import write */
            source_ref?: string;
        };
        /**
         * @description * `staff_entered` - staff_entered
         *     * `ehr_import` - ehr_import
         * @enum {string}
         */
        MemoryInSourceEnum: "staff_entered" | "ehr_import";
        MemoryList: {
            items: components["schemas"]["MemoryOut"][];
            /** @description null on the last page */
            next_cursor: string | null;
        };
        /** @description A remembered fact: its value and text, where it came from, what it is kept for, until when, and its state. */
        MemoryOut: {
            /** Format: uuid */
            readonly memory_id: string;
            /** Format: uuid */
            patient_id: string;
            memory_class: components["schemas"]["MemoryClassEnum"];
            memory_type: string;
            type_version: number;
            attribute: string;
            readonly fact: {
                [key: string]: unknown;
            } | null;
            readonly text: string | null;
            state: components["schemas"]["StateEnum"];
            source: components["schemas"]["MemoryOutSourceEnum"];
            source_ref: string;
            /** Format: double */
            confidence: number;
            policy_revision: string;
            consent_purpose: components["schemas"]["PurposeEnum"];
            /** Format: uuid */
            consent_record_id: string | null;
            /** Format: date-time */
            valid_from: string;
            /** Format: date-time */
            valid_until: string | null;
            /** Format: date-time */
            expires_at: string;
            /** Format: date-time */
            review_by: string | null;
            /** Format: uuid */
            superseded_by: string | null;
            readonly guardrails: {
                [key: string]: unknown;
            };
            created_by: string;
            agent_client_id: string | null;
            /** Format: date-time */
            readonly created_at: string;
        };
        /**
         * @description * `patient_stated` - Patient Stated
         *     * `staff_entered` - Staff Entered
         *     * `agent_extracted` - Agent Extracted
         *     * `ehr_import` - Ehr Import
         * @enum {string}
         */
        MemoryOutSourceEnum: "patient_stated" | "staff_entered" | "agent_extracted" | "ehr_import";
        MemoryStored: {
            /** Format: uuid */
            memory_id: string;
            /**
             * @description stored, proposed (an agent's write), or already_proposed (200: the agent's identical proposal still waiting; nothing new written)
             *
             *     * `stored` - stored
             *     * `proposed` - proposed
             *     * `already_proposed` - already_proposed
             */
            status: components["schemas"]["MemoryStoredStatusEnum"];
            memory: components["schemas"]["MemoryOut"];
        };
        /**
         * @description * `stored` - stored
         *     * `proposed` - proposed
         *     * `already_proposed` - already_proposed
         * @enum {string}
         */
        MemoryStoredStatusEnum: "stored" | "proposed" | "already_proposed";
        /**
         * @description A type definition. Checked as a whole by memory.types.definition_check (closed schema, template fields,
         *     supersession fields); DRF only checks the shape of each field.
         */
        MemoryTypeInRequest: {
            /** @description lower_snake_case; fixed on revision */
            name?: string;
            memory_class: components["schemas"]["MemoryClassEnum"];
            label: string;
            purposes: components["schemas"]["PurposesEnum"][];
            writers: components["schemas"]["WritersEnum"][];
            encrypted?: boolean;
            /** @description review_by required on each memory */
            review?: boolean;
            /** @description served with the fetch-live guardrail */
            fetch_live?: boolean;
            default_validity_days?: number | null;
            retention_days?: number | null;
            supersession: string[];
            text: unknown;
            schema: unknown;
            /** @description Short phrases naming the situations and questions the type answers (e.g. "how to address the patient"); search embeds them to decide which types could answer a question: at most 8, distinct */
            serves?: string[];
        };
        MemoryTypeList: {
            items: components["schemas"]["MemoryTypeOut"][];
        };
        MemoryTypeOut: {
            name: string;
            version: number;
            builtin: boolean;
            memory_class: components["schemas"]["MemoryClassEnum"];
            label: string;
            purposes: string[];
            writers: string[];
            encrypted: boolean;
            review: boolean;
            fetch_live: boolean;
            default_validity_days: number | null;
            retention_days: number | null;
            supersession: string[];
            /** @description A sentence template, or one per kind */
            text: unknown;
            kinds: string[];
            /** @description JSON Schema (draft 2020-12) of the fact */
            schema: unknown;
            /** @description Short phrases naming the situations and questions the type answers (e.g. "how to address the patient"); search embeds them to decide which types could answer a question. For the latest version, the organisation's own wording when it has one */
            serves: string[];
            /**
             * @description Where serves comes from: the organisation's wording, the type's definition, or (a definition without serves) the type's label
             *
             *     * `organization` - organization
             *     * `definition` - definition
             *     * `label` - label
             */
            serves_source: components["schemas"]["ServesSourceEnum"];
        };
        /**
         * @description A type definition. Checked as a whole by memory.types.definition_check (closed schema, template fields,
         *     supersession fields); DRF only checks the shape of each field.
         */
        MemoryTypeRevisionInRequest: {
            /** @description lower_snake_case; fixed on revision */
            name?: string;
            memory_class: components["schemas"]["MemoryClassEnum"];
            label: string;
            purposes: components["schemas"]["PurposesEnum"][];
            writers: components["schemas"]["WritersEnum"][];
            encrypted?: boolean;
            /** @description review_by required on each memory */
            review?: boolean;
            /** @description served with the fetch-live guardrail */
            fetch_live?: boolean;
            default_validity_days?: number | null;
            retention_days?: number | null;
            supersession: string[];
            text: unknown;
            schema: unknown;
            /** @description Short phrases naming the situations and questions the type answers (e.g. "how to address the patient"); search embeds them to decide which types could answer a question: at most 8, distinct */
            serves?: string[];
            /** @description The version this revision was made from: 409 version_conflict when another revision came first (recommended; without it the revision follows whatever is latest) */
            based_on_version?: number;
        };
        /** @description What a type answers, in the organisation's own words. */
        MemoryTypeServesInRequest: {
            /** @description Short phrases naming the situations and questions the type answers (e.g. "how to address the patient"); search embeds them to decide which types could answer a question: 1 to 8, distinct, for this organisation only (built-in types too; no new version). null goes back to the type's own phrases */
            serves: string[] | null;
        };
        MemoryTypeVersions: {
            name: string;
            versions: components["schemas"]["MemoryTypeOut"][];
        };
        MessageOut: {
            source_id: string;
            role: components["schemas"]["RoleEnum"];
            content: string;
            tool_name?: string;
            tool_result?: {
                [key: string]: unknown;
            };
        };
        /** @description What the model sees. It never holds the patient identifier. */
        ModelContextOut: {
            purpose: components["schemas"]["PurposeEnum"];
            slots: components["schemas"]["SlotsOut"];
            /** @description Current long-term scheduling preferences */
            standing_preferences: components["schemas"]["StandingPreferenceOut"][];
            next_action: string;
            clarifying_questions: components["schemas"]["QuestionOut"][];
            care_team_flags: components["schemas"]["FlagOut"][];
            care_team_note: string | null;
            /** @description Older turns that did not fit, summarised */
            summary: components["schemas"]["SummaryOut"] | (never | null);
            summarised_through: string | null;
            /** @description The newest turns that fit, oldest first */
            messages: components["schemas"]["MessageOut"][];
        };
        NextSafeActionOut: {
            action: components["schemas"]["ActionEnum"];
            message: string;
            /** Format: uuid */
            operation_id: string | null;
            operation_kind: string | null;
            /** Format: date-time */
            not_before: string | null;
            allowed_next_steps: string[];
        };
        /** @enum {unknown} */
        NullEnum: null;
        OfferOut: {
            slot_id: string;
            /** @description Clinic-local wall-clock time, YYYY-MM-DDTHH:MM */
            start: string;
            day: string;
            time: string;
        };
        OffersOut: {
            offers: components["schemas"]["OfferOut"][];
            /** @description Slots the scheduling system returned */
            considered: number;
            constraints: components["schemas"]["ConstraintsOut"];
            next_action: string;
            /** @description The tool turn that records these offers */
            turn: components["schemas"]["TurnOut"];
        };
        /** @description Refuses fields it does not declare. */
        OperationCreateInRequest: {
            kind: components["schemas"]["KindEnum"];
            payload: components["schemas"]["OperationPayloadRequest"];
            expected_version: number;
        };
        /**
         * @description A ModelSerializer whose fields are worked out from the model once per class, not once per instance.
         *
         *     ``ModelSerializer.get_fields`` introspects the model for every instance it makes (each field's class, its
         *     keyword arguments, its validators): 0.2 of the 0.6 ms that rendering one memory took. Here the
         *     fields built the first time are kept unbound on the class, and every instance gets its own deep copy of them,
         *     as DRF gives every instance a deep copy of the declared fields. Nothing in a field's construction depends on
         *     the instance, its data or its context.
         */
        OperationOut: {
            /** Format: uuid */
            readonly operation_id: string;
            /** Format: uuid */
            readonly workflow_id: string;
            kind: string;
            system: string;
            status: components["schemas"]["OperationOutStatusEnum"];
            idempotency_key: string;
            payload_hash: string;
            attempts: number;
            attempt_limit: number;
            /** Format: date-time */
            next_attempt_at: string | null;
            last_error_code: string | null;
            result: unknown;
            /** @description who asked for it: patient (in person), agent (an AI agent, for the patient or staff), staff, or service; null for operations requested before it was recorded */
            requested_by_kind: string | null;
            /** Format: date-time */
            readonly created_at: string;
            /** Format: date-time */
            readonly updated_at: string;
            /** Format: date-time */
            completed_at: string | null;
        };
        /**
         * @description * `pending` - Pending: not yet sent, or known not to have arrived
         *     * `in_flight` - Claimed by a worker (until its lease ends)
         *     * `succeeded` - The outside system confirmed it
         *     * `failed` - The outside system refused it, or it never reached it within the retry budget
         *     * `outcome_unknown` - It may have arrived: the next attempt asks before resubmitting
         *     * `cancelled` - Withdrawn before it could have reached the outside system
         * @enum {string}
         */
        OperationOutStatusEnum: "pending" | "in_flight" | "succeeded" | "failed" | "outcome_unknown" | "cancelled";
        OperationPayloadRequest: components["schemas"]["PriorAuthorizationPayloadRequest"] | components["schemas"]["AppointmentBookingPayloadRequest"];
        /** @description Refuses fields it does not declare. */
        OperationRequestInRequest: {
            kind: components["schemas"]["KindEnum"];
            payload: components["schemas"]["OperationPayloadRequest"];
        };
        /** @description Refuses fields it does not declare. */
        OperationResolveInRequest: {
            /** @description the workflow's version you read */
            expected_version: number;
            /**
             * @description what the outside system holds: sent (it has the request; give its id as external_id) or not_sent
             *
             *     * `not_sent` - not_sent
             *     * `sent` - sent
             */
            outcome: components["schemas"]["ResolutionOutcomeEnum"];
            /** @description sent only: the outside system's id for it (the authorization_id or appointment_id) */
            external_id?: string;
        };
        /** @description Refuses fields it does not declare. */
        OrganizationInRequest: {
            /**
             * Format: uuid
             * @description generated when absent
             */
            id?: string;
            /** @default  */
            name?: string;
            trusted_issuers: string[];
        };
        OrganizationList: {
            items: components["schemas"]["OrganizationOut"][];
            /** @description null on the last page */
            next_cursor: string | null;
        };
        /**
         * @description A ModelSerializer whose fields are worked out from the model once per class, not once per instance.
         *
         *     ``ModelSerializer.get_fields`` introspects the model for every instance it makes (each field's class, its
         *     keyword arguments, its validators): 0.2 of the 0.6 ms that rendering one memory took. Here the
         *     fields built the first time are kept unbound on the class, and every instance gets its own deep copy of them,
         *     as DRF gives every instance a deep copy of the declared fields. Nothing in a field's construction depends on
         *     the instance, its data or its context.
         */
        OrganizationOut: {
            /** Format: uuid */
            id: string;
            name: string;
            trusted_issuers: string[];
            administrator: boolean;
            /** Format: date-time */
            readonly created_at: string;
        };
        /**
         * @description * `completed` - completed
         *     * `abandoned` - abandoned
         * @enum {string}
         */
        OutcomeEnum: "completed" | "abandoned";
        /** @description Refuses fields it does not declare. */
        PatchedSubscriptionPatchRequest: {
            url?: string;
            event_types?: components["schemas"]["EventTypesEnum"][];
            description?: string;
            enabled?: boolean;
        };
        /** @description Refuses fields it does not declare. */
        PatientInRequest: {
            /**
             * Format: uuid
             * @description An existing patient id; new when absent
             */
            patient_id?: string;
            /** @description The name staff know the patient by: one line of visible text (no control, invisible formatting or direction characters; 422 unstorable_character names the code point); trimmed of spaces at both ends */
            display_name: string;
            /** Format: date */
            birth_date?: string | null;
            identifiers?: components["schemas"]["IdentifierRequest"][];
        };
        PatientList: {
            items: components["schemas"]["PatientOut"][];
            /** @description true when more patients match than the 20 listed (the first by name): pass next_cursor as cursor (with the same q) for the next ones, or narrow q (more of the name, a date of birth as YYYY-MM-DD, an identifier value) */
            truncated: boolean;
            /** @description null on the last page */
            next_cursor: string | null;
        };
        PatientOut: {
            /** Format: uuid */
            patient_id: string;
            display_name: string;
            /** Format: date */
            birth_date: string | null;
            identifiers: components["schemas"]["Identifier"][];
        };
        /** @description The payload of kind submit_prior_authorization (refuses fields it does not declare). */
        PriorAuthorizationPayloadRequest: {
            referral_id: string;
            diagnosis_code: string;
            medication_code: string;
            /** @description the patient's reference at the insurer */
            member_ref: string;
        };
        /** @description Refuses fields it does not declare. */
        ProposalInRequest: {
            /** @description A type from GET /v1/memory-types */
            memory_type: string;
            fact: {
                [key: string]: unknown;
            };
            consent_purpose: components["schemas"]["PurposeEnum"];
            /** Format: uuid */
            consent_record_id: string;
            /** @description The conversation turn it was extracted from */
            source_ref: string;
            /**
             * Format: double
             * @default 0.8
             */
            confidence?: number;
            /** Format: date-time */
            valid_until?: string | null;
        };
        ProposalList: {
            items: components["schemas"]["ProposalOut"][];
            /** @description null on the last page */
            next_cursor: string | null;
        };
        /**
         * @description A proposal waiting for review, and whether it is stale: made before its attribute's current value became
         *     current (a value written, confirmed or made current again since), so confirming it is 409 ``proposal_stale``;
         *     it is rejected, and a new proposal is made against the current value.
         */
        ProposalOut: {
            /** Format: uuid */
            readonly memory_id: string;
            /** Format: uuid */
            patient_id: string;
            memory_class: components["schemas"]["MemoryClassEnum"];
            memory_type: string;
            type_version: number;
            attribute: string;
            readonly fact: {
                [key: string]: unknown;
            } | null;
            readonly text: string | null;
            state: components["schemas"]["StateEnum"];
            source: components["schemas"]["MemoryOutSourceEnum"];
            source_ref: string;
            /** Format: double */
            confidence: number;
            policy_revision: string;
            consent_purpose: components["schemas"]["PurposeEnum"];
            /** Format: uuid */
            consent_record_id: string | null;
            /** Format: date-time */
            valid_from: string;
            /** Format: date-time */
            valid_until: string | null;
            /** Format: date-time */
            expires_at: string;
            /** Format: date-time */
            review_by: string | null;
            /** Format: uuid */
            superseded_by: string | null;
            readonly guardrails: {
                [key: string]: unknown;
            };
            created_by: string;
            agent_client_id: string | null;
            /** Format: date-time */
            readonly created_at: string;
            /** @description Confirming it is 409 proposal_stale */
            readonly stale: boolean;
            /**
             * Format: uuid
             * @description The current value that became current after it was proposed
             */
            readonly overtaken_by: string | null;
        };
        ProposalsOut: {
            proposed: components["schemas"]["MemoryOut"][];
            skipped: components["schemas"]["SkippedOut"][];
        };
        /**
         * @description * `appointment_scheduling` - Appointment scheduling
         *     * `communication` - Communication with the patient
         *     * `prior_authorization` - Prior authorisation
         *     * `care_coordination` - Care coordination
         * @enum {string}
         */
        PurposeEnum: "appointment_scheduling" | "communication" | "prior_authorization" | "care_coordination";
        /**
         * @description * `appointment_scheduling` - appointment_scheduling
         *     * `communication` - communication
         *     * `prior_authorization` - prior_authorization
         *     * `care_coordination` - care_coordination
         * @enum {string}
         */
        PurposesEnum: "appointment_scheduling" | "communication" | "prior_authorization" | "care_coordination";
        /** @description Refuses fields it does not declare. */
        QuarantineInRequest: {
            /** @description e.g. disputed_by_patient */
            reason_code: string;
        };
        QuestionOut: {
            question: string;
            source_id: string;
        };
        /**
         * @description * `needs_clarification` - needs_clarification
         *     * `already_current` - already_current
         *     * `already_proposed` - already_proposed
         *     * `not_kept_long_term` - not_kept_long_term
         * @enum {string}
         */
        ReasonEnum: "needs_clarification" | "already_current" | "already_proposed" | "not_kept_long_term";
        ReconciliationItemOut: {
            /** Format: uuid */
            workflow_id: string;
            /** Format: uuid */
            patient_id: string;
            workflow_type: string;
            purpose: string;
            current_step: string;
            version: number;
            /** Format: date-time */
            updated_at: string;
            /** Format: uuid */
            operation_id: string | null;
            operation_kind: string | null;
            system: string | null;
            operation_status: string | null;
            attempts: number | null;
            /** Format: date-time */
            next_attempt_at: string | null;
            last_error_code: string | null;
            /** @description who asked for it: patient (in person), agent (an AI agent, for the patient or staff), staff, or service; null for operations requested before it was recorded */
            requested_by_kind: string | null;
            /** @description retries ran out with an unknown outcome: a person must act */
            parked: boolean;
            /** @description whether the caller may act on it (retry, resolve, checkpoint): a grant for its patient and purpose, and workflow:write; the organisation's view also lists items the caller may only see */
            can_act: boolean;
            /**
             * @description why not, when can_act is false: no grant for the patient and purpose, or no workflow:write
             *
             *     * `no_grant_for_patient` - no_grant_for_patient
             *     * `missing_scope_workflow_write` - missing_scope_workflow_write
             */
            cannot_act_reason: (components["schemas"]["CannotActReasonEnum"] | components["schemas"]["NullEnum"]) | null;
        };
        ReconciliationQueue: {
            /**
             * @description granted_patients, or organization with the workflow:reconcile:org scope
             *
             *     * `granted_patients` - granted_patients
             *     * `organization` - organization
             */
            view: components["schemas"]["ReconciliationQueueViewEnum"];
            items: components["schemas"]["ReconciliationItemOut"][];
            /** @description null on the last page */
            next_cursor: string | null;
        };
        /**
         * @description * `granted_patients` - granted_patients
         *     * `organization` - organization
         * @enum {string}
         */
        ReconciliationQueueViewEnum: "granted_patients" | "organization";
        /** @description Refuses fields it does not declare. */
        ReleaseInRequest: {
            /** @description quarantine_released if none */
            reason_code?: string;
        };
        ReleaseList: {
            items: components["schemas"]["ReleaseOut"][];
            /** @description null on the last page */
            next_cursor: string | null;
        };
        ReleaseOut: {
            /** Format: uuid */
            release_id: string;
            actor_sub: string;
            /** @description the agent it went to, acting for actor_sub */
            agent_client_id: string | null;
            purpose: string;
            /** Format: date-time */
            created_at: string;
            members: {
                [key: string]: unknown;
            }[];
        };
        RepresentationReceipt: {
            /** Format: uuid */
            memory_id: string;
            target: string;
            external_id: string;
            state: string;
            /** Format: date-time */
            deleted_at: string;
            /** Format: date-time */
            verified_at: string;
        };
        /**
         * @description * `not_sent` - not_sent
         *     * `sent` - sent
         * @enum {string}
         */
        ResolutionOutcomeEnum: "not_sent" | "sent";
        /**
         * @description * `user` - user
         *     * `assistant` - assistant
         *     * `tool` - tool
         * @enum {string}
         */
        RoleEnum: "user" | "assistant" | "tool";
        /**
         * @description * `memory` - memory
         *     * `patient` - patient
         * @enum {string}
         */
        ScopeEnum: "memory" | "patient";
        SearchHitOut: {
            memory: components["schemas"]["MemoryOut"];
            /**
             * Format: double
             * @description The probability that this memory answers the question (the learned scoring head), 0-1
             */
            score: number;
            /** Format: double */
            cosine: number;
            /** Format: double */
            text_rank: number;
            /**
             * Format: double
             * @description How directly the question's medicines, foods, materials or procedures concern this memory (clinical lexicon), 0-1
             */
            concept: number;
            /**
             * Format: double
             * @description How closely the question matches what this memory's type says it serves (its phrases), cosine
             */
            intent: number;
            /** @description high: reached the threshold fitted for its type; low: a best guess, or an alternative to the confident answer */
            confidence: string;
            /** @description safety_rule: an allergy or long-term medicine included because the question names something the patient could be given or exposed to, whatever its score */
            included_by: string;
        };
        SearchResult: {
            items: components["schemas"]["SearchHitOut"][];
            /** Format: double */
            min_score: number;
            /** @description high: some hit reached the threshold; low: only best guesses (or safety inclusions) are returned; none: nothing on record that the caller may see */
            confidence: string;
            safety_rule_applied: boolean;
            /** @description The safety rule applied, but this search's filters (memory_class, memory_type or a purpose care context is not kept for) left out the allergies and long-term medicines it would have included: their absence is not a negative answer. Said whether or not any are on record; search again without the filters (or with memory_type care_context) to check them */
            safety_facts_filtered_out: boolean;
            /** @description Hits that reached their threshold but were left out by limit: the items are then not the whole answer; ask again with a higher limit */
            left_out_over_limit: number;
        };
        /**
         * @description * `organization` - organization
         *     * `definition` - definition
         *     * `label` - label
         * @enum {string}
         */
        ServesSourceEnum: "organization" | "definition" | "label";
        /**
         * @description A ModelSerializer whose fields are worked out from the model once per class, not once per instance.
         *
         *     ``ModelSerializer.get_fields`` introspects the model for every instance it makes (each field's class, its
         *     keyword arguments, its validators): 0.2 of the 0.6 ms that rendering one memory took. Here the
         *     fields built the first time are kept unbound on the class, and every instance gets its own deep copy of them,
         *     as DRF gives every instance a deep copy of the declared fields. Nothing in a field's construction depends on
         *     the instance, its data or its context.
         */
        SessionOut: {
            /** Format: uuid */
            readonly session_id: string;
            /** Format: uuid */
            patient_id: string;
            purpose: components["schemas"]["PurposeEnum"];
            status: components["schemas"]["SessionOutStatusEnum"];
            turn_count: number;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            last_activity_at: string;
            /** Format: date-time */
            expires_at: string;
            /** Format: date-time */
            absolute_expires_at: string;
            readonly idle_timeout_seconds: number;
            /** Format: date-time */
            ended_at: string | null;
        };
        /**
         * @description * `active` - Active
         *     * `completed` - Completed
         *     * `abandoned` - Abandoned
         * @enum {string}
         */
        SessionOutStatusEnum: "active" | "completed" | "abandoned";
        /** @description Refuses fields it does not declare. */
        SessionStartInRequest: {
            /** Format: uuid */
            patient_id: string;
            purpose: components["schemas"]["PurposeEnum"];
        };
        SessionStateOut: {
            session: components["schemas"]["SessionOut"];
            slots: components["schemas"]["SlotsOut"];
            next_action: string;
            clarifying_questions: components["schemas"]["QuestionOut"][];
            care_team_flags: components["schemas"]["FlagOut"][];
        };
        SideEffectOut: {
            effect: string;
            status: string;
            source_id: string;
        };
        SkippedOut: {
            kind: string;
            /**
             * @description not_kept_long_term: a day and a part of the day said together ('not Monday morning') apply to this conversation only; kept long-term they would be widened to every Monday or every morning
             *
             *     * `needs_clarification` - needs_clarification
             *     * `already_current` - already_current
             *     * `already_proposed` - already_proposed
             *     * `not_kept_long_term` - not_kept_long_term
             */
            reason: components["schemas"]["ReasonEnum"];
        };
        SlotsOut: {
            intent: (components["schemas"]["IntentEnum"] | components["schemas"]["NullEnum"]) | null;
            specialty: (components["schemas"]["SpecialtyEnum"] | components["schemas"]["NullEnum"]) | null;
            visit_type: (components["schemas"]["VisitTypeEnum"] | components["schemas"]["NullEnum"]) | null;
            preferred_days: string[];
            excluded_days: string[];
            preferred_period: string | null;
            excluded_periods: string[];
            /** @description A day and a part of the day said together ('not Monday morning', 'Tuesday morning or Thursday afternoon'): one constraint on both, not on every such day or every such part of the day */
            preferred_day_periods: components["schemas"]["DayPeriodOut"][];
            /** @description A day and a part of the day said together ('not Monday morning', 'Tuesday morning or Thursday afternoon'): one constraint on both, not on every such day or every such part of the day */
            excluded_day_periods: components["schemas"]["DayPeriodOut"][];
            earliest_time: string | null;
            latest_time: string | null;
            selected_slot_id: string | null;
            /** @description The latest offers (a tool result; cleared at the end) */
            last_offer: components["schemas"]["LastOfferOut"] | (never | null);
        };
        /**
         * @description * `cardiology` - cardiology
         *     * `dermatology` - dermatology
         *     * `endocrinology` - endocrinology
         *     * `gastroenterology` - gastroenterology
         *     * `general_practice` - general_practice
         *     * `gynaecology` - gynaecology
         *     * `nephrology` - nephrology
         *     * `neurology` - neurology
         *     * `oncology` - oncology
         *     * `ophthalmology` - ophthalmology
         *     * `orthopaedics` - orthopaedics
         *     * `paediatrics` - paediatrics
         *     * `psychiatry` - psychiatry
         *     * `pulmonology` - pulmonology
         *     * `rheumatology` - rheumatology
         *     * `urology` - urology
         * @enum {string}
         */
        SpecialtyEnum: "cardiology" | "dermatology" | "endocrinology" | "gastroenterology" | "general_practice" | "gynaecology" | "nephrology" | "neurology" | "oncology" | "ophthalmology" | "orthopaedics" | "paediatrics" | "psychiatry" | "pulmonology" | "rheumatology" | "urology";
        /** @description Refuses fields it does not declare. */
        StaffInRequest: {
            actor_sub: string;
            /** @description The name administrators find the subject by; the same characters as a patient's name */
            display_name: string;
            /** @description person (default) or agent */
            kind?: string;
        };
        StaffList: {
            items: components["schemas"]["StaffOut"][];
            /** @description true when more subjects match than the 20 listed (the first by name): pass next_cursor as cursor (with the same q) for the next ones, or narrow q (more of the name, a date of birth as YYYY-MM-DD, an identifier value) */
            truncated: boolean;
            /** @description null on the last page */
            next_cursor: string | null;
        };
        StaffOut: {
            actor_sub: string;
            display_name: string;
            /** @description person or agent */
            kind: string;
        };
        StandingPreferenceOut: {
            kind: string;
            time?: string;
            days?: string[];
            periods?: string[];
        };
        /**
         * @description * `proposed` - Proposed
         *     * `active` - Active
         *     * `superseded` - Superseded
         *     * `expired` - Expired
         *     * `quarantined` - Quarantined
         *     * `deleted` - Deleted
         * @enum {string}
         */
        StateEnum: "proposed" | "active" | "superseded" | "expired" | "quarantined" | "deleted";
        SubscriptionCreatedOut: {
            /** Format: uuid */
            subscription_id: string;
            url: string;
            description: string;
            event_types: components["schemas"]["EventTypesEnum"][];
            enabled: boolean;
            created_by: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
            /** @description whsec_<base64>: the signing secret, shown only in this answer */
            secret: string;
        };
        /** @description Refuses fields it does not declare. */
        SubscriptionInRequest: {
            /** @description https only, without credentials */
            url: string;
            event_types: components["schemas"]["EventTypesEnum"][];
            /** @default  */
            description?: string;
            /** @description whsec_<base64 of 24-64 bytes>; generated when absent */
            secret?: string;
        };
        SubscriptionOut: {
            /** Format: uuid */
            subscription_id: string;
            url: string;
            description: string;
            event_types: components["schemas"]["EventTypesEnum"][];
            enabled: boolean;
            created_by: string;
            /** Format: date-time */
            created_at: string;
            /** Format: date-time */
            updated_at: string;
        };
        /** @description The structured summary of the older turns (summaries.SUMMARY_SCHEMA). */
        SummaryOut: {
            confirmed_facts: components["schemas"]["FactOut"][];
            open_questions: components["schemas"]["QuestionOut"][];
            decisions: components["schemas"]["DecisionOut"][];
            side_effects: components["schemas"]["SideEffectOut"][];
            source_ids: string[];
            next_action: string;
        };
        TurnAppendedOut: {
            session: components["schemas"]["SessionOut"];
            slots: components["schemas"]["SlotsOut"];
            next_action: string;
            clarifying_questions: components["schemas"]["QuestionOut"][];
            care_team_flags: components["schemas"]["FlagOut"][];
            turn: components["schemas"]["TurnOut"];
            new_care_team_flags: components["schemas"]["FlagOut"][];
        };
        /** @description Refuses fields it does not declare. */
        TurnInRequest: {
            role: components["schemas"]["RoleEnum"];
            /** @description At most CONVERSATION_MAX_CONTENT_CHARS (default 8000) characters */
            content: string;
            tool_name?: string | null;
            /** @description Tool turns only; an object of at most CONVERSATION_MAX_TOOL_RESULT_BYTES (default 16 KiB) as JSON */
            tool_result?: {
                [key: string]: unknown;
            } | null;
        };
        TurnOut: {
            seq: number;
            source_id: string;
            role: components["schemas"]["RoleEnum"];
            tool_name: string | null;
            token_count: number;
            /** Format: date-time */
            created_at: string;
        };
        /**
         * @description * `followup` - followup
         *     * `new` - new
         * @enum {string}
         */
        VisitTypeEnum: "followup" | "new";
        /** @description Refuses fields it does not declare. */
        WorkflowCreateInRequest: {
            workflow_type: components["schemas"]["WorkflowTypeEnum"];
            /** Format: uuid */
            patient_id: string;
            /** @description At most 20 values (a string, number, boolean or null), under keys of 1 to 64 characters */
            state?: {
                [key: string]: string | number | boolean | (never | null);
            };
        };
        WorkflowOperationList: {
            items: components["schemas"]["OperationOut"][];
            /** @description null on the last page */
            next_cursor: string | null;
        };
        /**
         * @description A workflow with what an agent resuming it needs: step, version, unsettled operations, next safe action.
         *     Serialise with ``context={"resume": selectors.Resume}``.
         */
        WorkflowOut: {
            /** Format: uuid */
            readonly workflow_id: string;
            /** Format: uuid */
            patient_id: string;
            workflow_type: string;
            purpose: components["schemas"]["PurposeEnum"];
            current_step: string;
            state: unknown;
            /** Format: int64 */
            version: number;
            readonly allowed_next_steps: string[];
            readonly terminal: boolean;
            readonly pending_operations: components["schemas"]["OperationOut"][];
            readonly next_safe_action: components["schemas"]["NextSafeActionOut"];
            created_by: string;
            /** Format: date-time */
            readonly created_at: string;
            /** Format: date-time */
            readonly updated_at: string;
        };
        /**
         * @description * `appointment_booking` - appointment_booking
         *     * `prior_authorization` - prior_authorization
         * @enum {string}
         */
        WorkflowTypeEnum: "appointment_booking" | "prior_authorization";
        /**
         * @description * `patient` - patient
         *     * `staff` - staff
         *     * `ehr_import` - ehr_import
         *     * `agent_proposal` - agent_proposal
         * @enum {string}
         */
        WritersEnum: "patient" | "staff" | "ehr_import" | "agent_proposal";
        /** @description RFC 9457 problem details; `code` is stable and machine-readable (README: error codes). */
        Problem: {
            type: string;
            title: string;
            status: number;
            code: string;
            detail: string;
            message?: string;
            request_id?: string;
            /** @description The first 100 problems, in the order found */
            errors?: {
                field?: string | null;
                message?: string;
                code?: string;
                /** @description With revision_breaks_memories: how many current memories fail this field's rule */
                memories?: number;
            }[];
            /** @description How many problems there were, when more than the 100 `errors` lists */
            errors_total?: number;
            /** @description With a workflow's version_conflict: its version now (read it again, then send this expected_version) */
            current_version?: number;
            /** @description With a workflow's illegal_transition or operation_not_allowed: the step it is at */
            current_step?: string;
            /** @description With a workflow's illegal_transition: the steps a checkpoint may move it to now */
            allowed_next_steps?: string[];
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: never;
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    audit_events_list: {
        parameters: {
            query?: {
                /** @description the next_cursor of the previous page: the events before it */
                cursor?: string;
                /** @description 1-500, default 100 */
                limit?: number;
                patient_id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["AuditEventList"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    event_subscriptions_list: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventSubscriptionList"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    event_subscriptions_create: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request answers the first response again; with another request, 409 idempotency_key_reused. Kept at least 24 h, per caller. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SubscriptionInRequest"];
            };
        };
        responses: {
            201: {
                headers: {
                    /** @description `true` when this is the stored answer to an earlier request with the same Idempotency-Key (nothing was done again) */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SubscriptionCreatedOut"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (concurrent update, version, transition, idempotency_key_reused, ...) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The session expired or ended */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Length required */
            411: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Send application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    event_subscriptions_read: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                subscription_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventSubscriptionDetail"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    event_subscriptions_delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                subscription_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description No response body */
            204: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (concurrent update, version, transition, idempotency_key_reused, ...) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The session expired or ended */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Length required */
            411: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Send application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    event_subscriptions_update: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                subscription_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["PatchedSubscriptionPatchRequest"];
            };
        };
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SubscriptionOut"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (concurrent update, version, transition, idempotency_key_reused, ...) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The session expired or ended */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Length required */
            411: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Send application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    event_subscriptions_deliveries_list: {
        parameters: {
            query?: {
                /** @description the next_cursor of the previous page: older deliveries */
                cursor?: string;
                /** @description 1-500, default 100 */
                limit?: number;
            };
            header?: never;
            path: {
                subscription_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["EventDeliveryList"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    grants_list: {
        parameters: {
            query?: {
                /** @description the next_cursor of the previous page: older grants */
                cursor?: string;
                /** @description 1-500, default 500 */
                limit?: number;
                /** @description one patient's */
                patient_id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GrantList"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    grants_create: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request answers the first response again; with another request, 409 idempotency_key_reused. Kept at least 24 h, per caller. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["GrantInRequest"];
            };
        };
        responses: {
            200: {
                headers: {
                    /** @description `true` when this is the stored answer to an earlier request with the same Idempotency-Key (nothing was done again) */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GrantOut"];
                };
            };
            201: {
                headers: {
                    /** @description `true` when this is the stored answer to an earlier request with the same Idempotency-Key (nothing was done again) */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GrantOut"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (concurrent update, version, transition, idempotency_key_reused, ...) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The session expired or ended */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Length required */
            411: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Send application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    grants_revoke: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                grant_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["GrantRevokeInRequest"];
            };
        };
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["GrantOut"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (concurrent update, version, transition, idempotency_key_reused, ...) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The session expired or ended */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Length required */
            411: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Send application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    memory_types_list: {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryTypeList"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    memory_types_create: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request answers the first response again; with another request, 409 idempotency_key_reused. Kept at least 24 h, per caller. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["MemoryTypeInRequest"];
            };
        };
        responses: {
            201: {
                headers: {
                    /** @description `true` when this is the stored answer to an earlier request with the same Idempotency-Key (nothing was done again) */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryTypeOut"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (concurrent update, version, transition, idempotency_key_reused, ...) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The session expired or ended */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Length required */
            411: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Send application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    memory_types_read: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryTypeVersions"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    memory_types_serves_set: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["MemoryTypeServesInRequest"];
            };
        };
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryTypeOut"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (concurrent update, version, transition, idempotency_key_reused, ...) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The session expired or ended */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Length required */
            411: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Send application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    memory_types_revise: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request answers the first response again; with another request, 409 idempotency_key_reused. Kept at least 24 h, per caller. */
                "Idempotency-Key"?: string;
            };
            path: {
                name: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["MemoryTypeRevisionInRequest"];
            };
        };
        responses: {
            200: {
                headers: {
                    /** @description `true` when this is the stored answer to an earlier request with the same Idempotency-Key (nothing was done again) */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryTypeOut"];
                };
            };
            201: {
                headers: {
                    /** @description `true` when this is the stored answer to an earlier request with the same Idempotency-Key (nothing was done again) */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryTypeOut"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (concurrent update, version, transition, idempotency_key_reused, ...) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The session expired or ended */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Length required */
            411: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Send application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    memory_types_version_read: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                name: string;
                version: number;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryTypeOut"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    organizations_list: {
        parameters: {
            query?: {
                /** @description the next_cursor of the previous page: the organisations before it */
                cursor?: string;
                /** @description 1-500, default 100 */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OrganizationList"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    organizations_register: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request answers the first response again; with another request, 409 idempotency_key_reused. Kept at least 24 h, per caller. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["OrganizationInRequest"];
            };
        };
        responses: {
            201: {
                headers: {
                    /** @description `true` when this is the stored answer to an earlier request with the same Idempotency-Key (nothing was done again) */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OrganizationOut"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (concurrent update, version, transition, idempotency_key_reused, ...) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The session expired or ended */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Length required */
            411: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Send application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    patients_search: {
        parameters: {
            query?: {
                /** @description the next_cursor of the previous answer (with the same q): the next 20 by name */
                cursor?: string;
                /** @description system|value, e.g. an MRN */
                identifier?: string;
                /** @description name, identifier value or YYYY-MM-DD */
                q?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PatientList"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    patients_register: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request answers the first response again; with another request, 409 idempotency_key_reused. Kept at least 24 h, per caller. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["PatientInRequest"];
            };
        };
        responses: {
            201: {
                headers: {
                    /** @description `true` when this is the stored answer to an earlier request with the same Idempotency-Key (nothing was done again) */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PatientOut"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (concurrent update, version, transition, idempotency_key_reused, ...) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The session expired or ended */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Length required */
            411: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Send application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    patients_read: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                patient_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["PatientOut"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    care_team_flags_list: {
        parameters: {
            query?: {
                /** @description the next_cursor of the previous page: the flagged sessions after those (a page holds every flag of up to limit sessions) */
                cursor?: string;
                /** @description 1-500, default 100 */
                limit?: number;
                /** @description Why the caller reads (purpose of use). Default: the token's purpose_of_use claim when it names exactly one. A purpose the caller holds no consent or grant for is 403 purpose_not_permitted. Only conversations held for it are read. */
                purpose?: "appointment_scheduling" | "care_coordination" | "communication" | "prior_authorization";
            };
            header?: never;
            path: {
                patient_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["CareTeamFlags"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    consents_list: {
        parameters: {
            query?: {
                /** @description the next_cursor of the previous page: older consents */
                cursor?: string;
                /** @description 1-500, default 100 */
                limit?: number;
            };
            header?: never;
            path: {
                patient_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConsentList"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    consents_create: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request answers the first response again; with another request, 409 idempotency_key_reused. Kept at least 24 h, per caller. */
                "Idempotency-Key"?: string;
            };
            path: {
                patient_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ConsentInRequest"];
            };
        };
        responses: {
            200: {
                headers: {
                    /** @description `true` when this is the stored answer to an earlier request with the same Idempotency-Key (nothing was done again) */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConsentOut"];
                };
            };
            201: {
                headers: {
                    /** @description `true` when this is the stored answer to an earlier request with the same Idempotency-Key (nothing was done again) */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConsentOut"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (concurrent update, version, transition, idempotency_key_reused, ...) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The session expired or ended */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Length required */
            411: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Send application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    consents_revoke: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                consent_id: string;
                patient_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ConsentOut"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (concurrent update, version, transition, idempotency_key_reused, ...) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The session expired or ended */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Length required */
            411: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Send application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    memories_context_pack: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request answers the first response again; with another request, 409 idempotency_key_reused. Kept at least 24 h, per caller. */
                "Idempotency-Key"?: string;
            };
            path: {
                patient_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ContextInRequest"];
            };
        };
        responses: {
            200: {
                headers: {
                    /** @description `true` when this is the stored answer to an earlier request with the same Idempotency-Key (nothing was done again) */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ContextPackOut"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (concurrent update, version, transition, idempotency_key_reused, ...) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The session expired or ended */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Length required */
            411: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Send application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    memories_deletions_list: {
        parameters: {
            query?: {
                /** @description the next_cursor of the previous page: older receipts */
                cursor?: string;
                /** @description 1-500, default 100 */
                limit?: number;
                /** @description Why the caller reads (purpose of use). Default: the token's purpose_of_use claim when it names exactly one. A purpose the caller holds no consent or grant for is 403 purpose_not_permitted. Receipts hold no values and no purposes: every receipt is read, for this purpose. */
                purpose?: "appointment_scheduling" | "care_coordination" | "communication" | "prior_authorization";
            };
            header?: never;
            path: {
                patient_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeletionList"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    patient_export: {
        parameters: {
            query?: {
                format?: "fhir" | "json";
                /** @description Why the caller reads (purpose of use). Default: the token's purpose_of_use claim when it names exactly one. A purpose the caller holds no consent or grant for is 403 purpose_not_permitted. The export holds what the caller may see; the purpose is recorded. */
                purpose?: "appointment_scheduling" | "care_coordination" | "communication" | "prior_authorization";
            };
            header?: never;
            path: {
                patient_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The export: JSON sections (format=json, the default), or an HL7 FHIR R4 collection Bundle (format=fhir, or Accept: application/fhir+json) */
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": {
                        [key: string]: unknown;
                    };
                    "application/fhir+json": {
                        [key: string]: unknown;
                    };
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    patient_fhir_import: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request answers the first response again; with another request, 409 idempotency_key_reused. Kept at least 24 h, per caller. */
                "Idempotency-Key"?: string;
            };
            path: {
                patient_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["FhirImportInRequest"];
            };
        };
        responses: {
            /** @description Already imported (same resource version) */
            200: {
                headers: {
                    /** @description `true` when this is the stored answer to an earlier request with the same Idempotency-Key (nothing was done again) */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FhirImported"];
                };
            };
            /** @description Imported */
            201: {
                headers: {
                    /** @description `true` when this is the stored answer to an earlier request with the same Idempotency-Key (nothing was done again) */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["FhirImported"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (concurrent update, version, transition, idempotency_key_reused, ...) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The session expired or ended */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Length required */
            411: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Send application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    memories_list: {
        parameters: {
            query?: {
                /** @description The older name of purpose (both, differing: 422) */
                consent_purpose?: "" | "appointment_scheduling" | "care_coordination" | "communication" | "prior_authorization";
                /** @description the next_cursor of the previous page: the memories after those */
                cursor?: string;
                /** @description 1-500, default 100 */
                limit?: number;
                /** @description Only memories of this type (GET /v1/memory-types); empty: any. A type the organisation does not have: 422 unknown_memory_type */
                memory_type?: string;
                /** @description Why the caller reads (purpose of use). Default: the token's purpose_of_use claim when it names exactly one. A purpose the caller holds no consent or grant for is 403 purpose_not_permitted. */
                purpose?: "appointment_scheduling" | "care_coordination" | "communication" | "prior_authorization";
            };
            header?: never;
            path: {
                patient_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryList"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    memories_create: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request answers the first response again; with another request, 409 idempotency_key_reused. Kept at least 24 h, per caller. */
                "Idempotency-Key"?: string;
            };
            path: {
                patient_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["MemoryInRequest"];
            };
        };
        responses: {
            200: {
                headers: {
                    /** @description `true` when this is the stored answer to an earlier request with the same Idempotency-Key (nothing was done again) */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryStored"];
                };
            };
            201: {
                headers: {
                    /** @description `true` when this is the stored answer to an earlier request with the same Idempotency-Key (nothing was done again) */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryStored"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (concurrent update, version, transition, idempotency_key_reused, ...) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The session expired or ended */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Length required */
            411: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Send application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    memories_erase_all: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                patient_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeletionReceipt"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (concurrent update, version, transition, idempotency_key_reused, ...) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The session expired or ended */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Length required */
            411: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Send application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    memories_read: {
        parameters: {
            query?: {
                /** @description Why the caller reads (purpose of use). Default: the token's purpose_of_use claim when it names exactly one. A purpose the caller holds no consent or grant for is 403 purpose_not_permitted. */
                purpose?: "appointment_scheduling" | "care_coordination" | "communication" | "prior_authorization";
            };
            header?: never;
            path: {
                memory_id: string;
                patient_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryOut"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    memories_delete: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                memory_id: string;
                patient_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeletionReceipt"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (concurrent update, version, transition, idempotency_key_reused, ...) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The session expired or ended */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Length required */
            411: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Send application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    memories_confirm: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                memory_id: string;
                patient_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryOut"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (concurrent update, version, transition, idempotency_key_reused, ...) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The session expired or ended */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Length required */
            411: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Send application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    memories_correct: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request answers the first response again; with another request, 409 idempotency_key_reused. Kept at least 24 h, per caller. */
                "Idempotency-Key"?: string;
            };
            path: {
                memory_id: string;
                patient_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CorrectionInRequest"];
            };
        };
        responses: {
            201: {
                headers: {
                    /** @description `true` when this is the stored answer to an earlier request with the same Idempotency-Key (nothing was done again) */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryOut"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (concurrent update, version, transition, idempotency_key_reused, ...) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The session expired or ended */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Length required */
            411: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Send application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    memories_history: {
        parameters: {
            query?: {
                /** @description the next_cursor of the previous page: the older versions after those */
                cursor?: string;
                /** @description 1-500, default 100 */
                limit?: number;
                /** @description Why the caller reads (purpose of use). Default: the token's purpose_of_use claim when it names exactly one. A purpose the caller holds no consent or grant for is 403 purpose_not_permitted. A memory kept for another purpose is not found; only the versions kept for it are shown. */
                purpose?: "appointment_scheduling" | "care_coordination" | "communication" | "prior_authorization";
            };
            header?: never;
            path: {
                memory_id: string;
                patient_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryHistory"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    memories_quarantine: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                memory_id: string;
                patient_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["QuarantineInRequest"];
            };
        };
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryOut"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (concurrent update, version, transition, idempotency_key_reused, ...) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The session expired or ended */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Length required */
            411: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Send application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    memories_reject: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                memory_id: string;
                patient_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DeletionReceipt"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (concurrent update, version, transition, idempotency_key_reused, ...) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The session expired or ended */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Length required */
            411: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Send application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    memories_release: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                memory_id: string;
                patient_id: string;
            };
            cookie?: never;
        };
        requestBody?: {
            content: {
                "application/json": components["schemas"]["ReleaseInRequest"];
            };
        };
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryOut"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (concurrent update, version, transition, idempotency_key_reused, ...) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The session expired or ended */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Length required */
            411: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Send application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    memories_proposals_list: {
        parameters: {
            query?: {
                /** @description the next_cursor of the previous page: the proposals made after those */
                cursor?: string;
                /** @description 1-500, default 100 */
                limit?: number;
                /** @description Why the caller reads (purpose of use). Default: the token's purpose_of_use claim when it names exactly one. A purpose the caller holds no consent or grant for is 403 purpose_not_permitted. Only proposals kept for it are read. */
                purpose?: "appointment_scheduling" | "care_coordination" | "communication" | "prior_authorization";
            };
            header?: never;
            path: {
                patient_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProposalList"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    memories_propose: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request answers the first response again; with another request, 409 idempotency_key_reused. Kept at least 24 h, per caller. */
                "Idempotency-Key"?: string;
            };
            path: {
                patient_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["ProposalInRequest"];
            };
        };
        responses: {
            200: {
                headers: {
                    /** @description `true` when this is the stored answer to an earlier request with the same Idempotency-Key (nothing was done again) */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryOut"];
                };
            };
            201: {
                headers: {
                    /** @description `true` when this is the stored answer to an earlier request with the same Idempotency-Key (nothing was done again) */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["MemoryOut"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (concurrent update, version, transition, idempotency_key_reused, ...) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The session expired or ended */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Length required */
            411: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Send application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    memories_search: {
        parameters: {
            query: {
                /** @description The older name of purpose (both, differing: 422) */
                consent_purpose?: "appointment_scheduling" | "care_coordination" | "communication" | "prior_authorization";
                /** @description 1-20 */
                limit?: number;
                memory_class?: "account_fact" | "care_context" | "preference" | "working";
                /** @description Only memories of this type (GET /v1/memory-types), or of these types separated by commas, are searched, before ranking; the safety rule's allergies and medicines come only when their type (care_context) is named (safety_facts_filtered_out says when they were left out). A type the organisation does not have: 422 unknown_memory_type */
                memory_type?: string;
                /** @description 0-1, a probability; by default each type's fitted threshold */
                min_score?: number;
                /** @description Why the caller reads (purpose of use). Default: the token's purpose_of_use claim when it names exactly one. A purpose the caller holds no consent or grant for is 403 purpose_not_permitted. */
                purpose?: "appointment_scheduling" | "care_coordination" | "communication" | "prior_authorization";
                /** @description The agent's question (1-500 chars) */
                q: string;
            };
            header?: never;
            path: {
                patient_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SearchResult"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    memories_releases_list: {
        parameters: {
            query?: {
                /** @description the next_cursor of the previous page: older releases */
                cursor?: string;
                /** @description 1-500, default 200 */
                limit?: number;
                /** @description Why the caller reads (purpose of use). Default: the token's purpose_of_use claim when it names exactly one. A purpose the caller holds no consent or grant for is 403 purpose_not_permitted. Only context packs released for it are read. */
                purpose?: "appointment_scheduling" | "care_coordination" | "communication" | "prior_authorization";
            };
            header?: never;
            path: {
                patient_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ReleaseList"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    sessions_create: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request answers the first response again; with another request, 409 idempotency_key_reused. Kept at least 24 h, per caller. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["SessionStartInRequest"];
            };
        };
        responses: {
            201: {
                headers: {
                    /** @description `true` when this is the stored answer to an earlier request with the same Idempotency-Key (nothing was done again) */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionStateOut"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (concurrent update, version, transition, idempotency_key_reused, ...) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The session expired or ended */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Length required */
            411: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Send application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    sessions_read: {
        parameters: {
            query?: {
                /** @description Why the caller reads (purpose of use). Default: the token's purpose_of_use claim when it names exactly one. A purpose the caller holds no consent or grant for is 403 purpose_not_permitted. A conversation is read for the purpose it is held for. */
                purpose?: "appointment_scheduling" | "care_coordination" | "communication" | "prior_authorization";
            };
            header?: never;
            path: {
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionStateOut"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (concurrent update, version, transition, idempotency_key_reused, ...) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The session expired or ended */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    sessions_context: {
        parameters: {
            query?: {
                /** @description Token budget of the context (cl100k_base); default CONVERSATION_CONTEXT_DEFAULT_TOKENS (2000) */
                max_tokens?: number;
                /** @description Why the caller reads (purpose of use). Default: the token's purpose_of_use claim when it names exactly one. A purpose the caller holds no consent or grant for is 403 purpose_not_permitted. A conversation is read for the purpose it is held for. */
                purpose?: "appointment_scheduling" | "care_coordination" | "communication" | "prior_authorization";
            };
            header?: never;
            path: {
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ContextOut"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (concurrent update, version, transition, idempotency_key_reused, ...) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The session expired or ended */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    sessions_end: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                session_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["EndInRequest"];
            };
        };
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["SessionStateOut"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (concurrent update, version, transition, idempotency_key_reused, ...) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The session expired or ended */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Length required */
            411: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Send application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    sessions_offers_search: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request answers the first response again; with another request, 409 idempotency_key_reused. Kept at least 24 h, per caller. */
                "Idempotency-Key"?: string;
            };
            path: {
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    /** @description `true` when this is the stored answer to an earlier request with the same Idempotency-Key (nothing was done again) */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OffersOut"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (concurrent update, version, transition, idempotency_key_reused, ...) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The session expired or ended */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Length required */
            411: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Send application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    sessions_turns_append: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request answers the first response again; with another request, 409 idempotency_key_reused. Kept at least 24 h, per caller. */
                "Idempotency-Key"?: string;
            };
            path: {
                session_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["TurnInRequest"];
            };
        };
        responses: {
            201: {
                headers: {
                    /** @description `true` when this is the stored answer to an earlier request with the same Idempotency-Key (nothing was done again) */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["TurnAppendedOut"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (concurrent update, version, transition, idempotency_key_reused, ...) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The session expired or ended */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Length required */
            411: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Send application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    sessions_turns_propose: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request answers the first response again; with another request, 409 idempotency_key_reused. Kept at least 24 h, per caller. */
                "Idempotency-Key"?: string;
            };
            path: {
                seq: number;
                session_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            201: {
                headers: {
                    /** @description `true` when this is the stored answer to an earlier request with the same Idempotency-Key (nothing was done again) */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ProposalsOut"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (concurrent update, version, transition, idempotency_key_reused, ...) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The session expired or ended */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Length required */
            411: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Send application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    staff_search: {
        parameters: {
            query: {
                /** @description the next_cursor of the previous answer (with the same q): the next 20 by name */
                cursor?: string;
                /** @description name or subject */
                q: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StaffList"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    staff_register: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request answers the first response again; with another request, 409 idempotency_key_reused. Kept at least 24 h, per caller. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["StaffInRequest"];
            };
        };
        responses: {
            201: {
                headers: {
                    /** @description `true` when this is the stored answer to an earlier request with the same Idempotency-Key (nothing was done again) */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["StaffOut"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (concurrent update, version, transition, idempotency_key_reused, ...) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The session expired or ended */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Length required */
            411: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Send application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    workflows_create: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request answers the first response again; with another request, 409 idempotency_key_reused. Kept at least 24 h, per caller. */
                "Idempotency-Key"?: string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["WorkflowCreateInRequest"];
            };
        };
        responses: {
            201: {
                headers: {
                    /** @description `true` when this is the stored answer to an earlier request with the same Idempotency-Key (nothing was done again) */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkflowOut"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (concurrent update, version, transition, idempotency_key_reused, ...) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The session expired or ended */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Length required */
            411: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Send application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    workflows_read: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                workflow_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkflowOut"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    workflows_checkpoint: {
        parameters: {
            query?: never;
            header?: {
                /** @description Makes a retry safe: the same key with the same request answers the first response again; with another request, 409 idempotency_key_reused. Kept at least 24 h, per caller. */
                "Idempotency-Key"?: string;
            };
            path: {
                workflow_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["CheckpointInRequest"];
            };
        };
        responses: {
            200: {
                headers: {
                    /** @description `true` when this is the stored answer to an earlier request with the same Idempotency-Key (nothing was done again) */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkflowOut"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (concurrent update, version, transition, idempotency_key_reused, ...) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The session expired or ended */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Length required */
            411: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Send application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    workflow_operations_list: {
        parameters: {
            query?: {
                /** @description the next_cursor of the previous page: older operations */
                cursor?: string;
                /** @description 1-500, default 100 */
                limit?: number;
            };
            header?: never;
            path: {
                workflow_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WorkflowOperationList"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    workflow_operations_request: {
        parameters: {
            query?: never;
            header?: {
                /** @description Your key for this request (1-100 of A-Z a-z 0-9 . _ : -). Sent again with the same body, the same operation is returned (200); with a different body, 409 idempotency_key_reused. Without it, the same kind and payload still return the existing operation. */
                "Idempotency-Key"?: string;
            };
            path: {
                workflow_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["OperationCreateInRequest"];
            };
        };
        responses: {
            /** @description the same request again: the operation it created */
            200: {
                headers: {
                    /** @description `true` when this is the stored answer to an earlier request with the same Idempotency-Key (nothing was done again) */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OperationOut"];
                };
            };
            201: {
                headers: {
                    /** @description `true` when this is the stored answer to an earlier request with the same Idempotency-Key (nothing was done again) */
                    "Idempotent-Replayed"?: "true";
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OperationOut"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (concurrent update, version, transition, idempotency_key_reused, ...) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The session expired or ended */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Length required */
            411: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Send application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    workflow_operations_resolve: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                operation_id: string;
                workflow_id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["OperationResolveInRequest"];
            };
        };
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OperationOut"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (concurrent update, version, transition, idempotency_key_reused, ...) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The session expired or ended */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Length required */
            411: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Send application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    workflow_operations_retry: {
        parameters: {
            query?: never;
            header?: never;
            path: {
                operation_id: string;
                workflow_id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OperationOut"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Conflict (concurrent update, version, transition, idempotency_key_reused, ...) */
            409: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description The session expired or ended */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Length required */
            411: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request body too large */
            413: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Send application/json */
            415: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
    workflows_reconciliation_queue: {
        parameters: {
            query?: {
                /** @description the next_cursor of the previous page: the items after it */
                cursor?: string;
                /** @description 1-500, default 100 */
                limit?: number;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            200: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["ReconciliationQueue"];
                };
            };
            /** @description Malformed request (bad JSON or Content-Length) */
            400: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Missing, invalid or expired access token (invalid_token) */
            401: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Insufficient scope, no consent or access, or an unregistered organisation (unknown_organization) */
            403: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not found (also when it exists but is not the caller's) */
            404: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Not acceptable */
            406: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Query string too long */
            414: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Invalid request (validation_error), including over-long query parameters */
            422: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Rate limited (rate_limited; see Retry-After) */
            429: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description Request headers too large */
            431: {
                headers: {
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
            /** @description A dependency is unavailable (service_unavailable, identity_provider_unavailable, ...: nothing was changed; or commit_outcome_unknown: a write may have been saved, retry it only under its Idempotency-Key); see Retry-After */
            503: {
                headers: {
                    /** @description Seconds to wait before trying again */
                    "Retry-After": number;
                    [name: string]: unknown;
                };
                content: {
                    "application/problem+json": components["schemas"]["Problem"];
                };
            };
        };
    };
}
