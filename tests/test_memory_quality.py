import pytest

from memory.quality import run


@pytest.mark.django_db
def test_generated_population_has_no_stale_memories_and_no_leakage():
    report = run(patients=60, seed=3)
    assert report.served > 0 and report.expected == report.served
    assert report.stale_served == 0 and report.missing == 0
    assert report.cross_patient_leaks == 0 and report.cross_org_leaks == 0
    assert all(count > 0 for count in report.scenarios.values()), report.scenarios
