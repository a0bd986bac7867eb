"""What row-level security costs per row: the policies read the caller's identity (the transaction-local settings)
once per statement, as scalar sub-selects PostgreSQL evaluates once (InitPlans), never once per row. Through
``app_may_access`` and a bare ``app_setting(...)`` each row of a memory list read the settings four or five times
(``current_setting`` and a uuid cast): about a fifth of the database's CPU for a list of 100 memories. Whom the
rules admit is tested with the rules (test_foundation, test_governance_access, test_directory)."""

from __future__ import annotations

import re
import uuid

import pytest
from django.db import connection
from django.utils import timezone

from core.identity import ACTOR_PATIENT, Identity, identity_context
from memory.selectors import _current_rows_sql

READERS = re.compile(r"\bapp_(setting|org_id|actor_sub|patient_self_id|has_scope|service_patient_id|service_purpose"
                     r"|may_access|may_see_patient)\(")


def without_sub_selects(expression: str) -> str:
    """``expression`` (as pg_policies shows it) with every parenthesised sub-select, ``( SELECT ...)``, cut out."""
    out, depth, cut_at = [], 0, None
    for i, char in enumerate(expression):
        if char == "(":
            depth += 1
            if cut_at is None and re.match(r"\(\s*SELECT\b", expression[i:]):
                cut_at = depth
        if cut_at is None:
            out.append(char)
        if char == ")":
            if cut_at == depth:
                cut_at = None
            depth -= 1
    return "".join(out)


@pytest.mark.django_db
def test_no_policy_reads_the_identity_for_each_row():
    """Every policy reads the identity settings only inside scalar sub-selects, and asks the access and directory
    rules as ``app_may_access_as`` / ``app_may_see_patient_as`` with those sub-selects: a setting reader (or
    ``app_may_access``, which reads them in its body) left bare is evaluated for every row the policy filters. The
    ``_as`` rules decide for a row of the caller's organisation: a policy that asks one tests the organisation
    first."""
    with connection.cursor() as cur:
        cur.execute("SELECT tablename, policyname, qual, with_check FROM pg_policies WHERE schemaname = 'public'")
        policies = cur.fetchall()
    assert len(policies) > 40
    per_row = [(table, name, READERS.findall(without_sub_selects(expression)))
               for table, name, *expressions in policies for expression in expressions
               if expression and READERS.search(without_sub_selects(expression))]
    assert per_row == []
    unscoped = [name for _, name, *expressions in policies for expression in expressions
                if expression and "_as(" in expression
                and not expression.startswith("((organization_id = ( SELECT app_org_id() AS app_org_id)) AND ")
                and "(organization_id = ( SELECT app_org_id() AS app_org_id)) AND app_may_access_as(" not in expression]
    assert unscoped == []


def test_the_sub_select_cutter_keeps_what_is_read_per_row():
    assert without_sub_selects("((a = ( SELECT app_org_id() AS x)) AND f(b, ( SELECT (app_setting('y') IS NULL))))"
                               ) == "((a = ) AND f(b, ))"
    assert READERS.search(without_sub_selects("(app_setting('app.maintenance'::text) = 'x'::text)"))


@pytest.mark.django_db
@pytest.mark.parametrize("caller", ["patient", "staff"])
def test_a_memory_list_reads_each_setting_once_per_statement(caller):
    """The memory list's statement as the API sends it, planned as the runtime role: ``current_setting`` appears
    only in the InitPlans (evaluated once), in no filter that runs for each memory or each consent joined to it."""
    org, patient = uuid.uuid4(), uuid.uuid4()
    identity = Identity(org_id=org, actor_sub="nurse-1")
    if caller == "patient":
        identity = Identity(org_id=org, actor_sub=f"patient-{patient}", patient_self_id=patient,
                            actor_kind=ACTOR_PATIENT)
    sql, params = _current_rows_sql(org_id=org, patient_id=patient, memory_type=None, consent_purpose=None,
                                    now=timezone.now())
    with identity_context(identity), connection.cursor() as cur:
        cur.execute(f"EXPLAIN (VERBOSE, COSTS OFF) {sql}", params)
        plan = [line.strip() for line, in cur.fetchall()]
    assert any("Index Cond" in line for line in plan), plan
    per_row = [line for line in plan if "current_setting" in line and not line.startswith("Output:")]
    assert per_row == [], "\n".join(plan)


@pytest.mark.django_db
def test_the_directory_grant_check_keeps_its_plan_for_the_session():
    """``app_has_any_grant`` (staff's directory reads, for each row of another patient) is PL/pgSQL, so a session
    keeps its query's plan, as ``app_has_grant`` does: as an SQL function PostgreSQL cannot inline (its body holds a
    sub-query), it was planned again in every statement that asked it. Whom it admits: test_directory."""
    with connection.cursor() as cur:
        cur.execute("SELECT p.proname, l.lanname FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang "
                    "WHERE p.proname IN ('app_has_any_grant', 'app_has_grant') ORDER BY 1")
        assert cur.fetchall() == [("app_has_any_grant", "plpgsql"), ("app_has_grant", "plpgsql")]
