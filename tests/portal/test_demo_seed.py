"""The demo seed, through the API as a staff member would use it. Real commits: the seed registers the demo
organisation as the owner role, which a rolled-back test transaction on the runtime connection could not see."""

from __future__ import annotations

from tests.support import Api, mint


def test_the_demo_seed_gives_patients_names_and_mrns(committed_db, keyring):
    from django.core.management import call_command

    from demo.management.commands.seed_demo import ALICE, DEMO_ORG

    call_command("seed_demo")
    call_command("seed_demo")  # idempotent
    # The demo nurse holds a scheduling grant for Alice only.
    api = Api(mint(keyring, sub="nurse-demo", org_id=DEMO_ORG, scope="patient:read"))
    found = api.get("/v1/patients", {"q": "Alice"}).json()["items"]
    assert [(p["patient_id"], p["display_name"]) for p in found] == [(str(ALICE), "Alice Nowak")]
    assert found[0]["identifiers"][0]["value"] == "MRN-100001"
