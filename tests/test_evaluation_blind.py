"""The blind evaluation harness (memory.evaluation_blind) loads the set through the real services and measures.

Only a few calibration patients are used, and the held-out file is never opened: ranking quality is what
``make eval`` reports, not something a test asserts."""

from __future__ import annotations

import builtins
import pathlib

import pytest

from core.identity import identity_context
from memory import evaluation_blind, selectors

SUBSET = ["q001", "q003", "q007"]
RATIOS = ("p@1", "hit@3", "mrr", "answer_kept_high", "no_answer_kept_low")


@pytest.fixture
def heldout_sealed(monkeypatch):
    """Any attempt to open heldout.json fails the test."""
    real_open, real_read = builtins.open, pathlib.Path.read_text

    def guarded_open(file, *args, **kwargs):
        assert not str(file).endswith("heldout.json"), "the held-out split was opened"
        return real_open(file, *args, **kwargs)

    def guarded_read(self, *args, **kwargs):
        assert self.name != "heldout.json", "the held-out split was read"
        return real_read(self, *args, **kwargs)

    monkeypatch.setattr(builtins, "open", guarded_open)
    monkeypatch.setattr(pathlib.Path, "read_text", guarded_read)


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)  # committed, so the memories' vectors are written as in service
def test_harness_loads_a_calibration_subset_and_measures_it(heldout_sealed):
    """Three calibration patients: every organisation type is either registered or reported as refused, every
    memory of theirs loads (stale ones made stale by the service, the rest current with a vector), every question
    is asked, the figures are ratios in [0, 1], and no hit is another patient's memory."""
    data = evaluation_blind.subset(evaluation_blind.load_split("calibration"), SUBSET)
    assert set(data["patients"]) == set(SUBSET) and data["questions"]
    org_types = evaluation_blind.load_org_types()
    assert len(org_types) == 12
    assert {d["name"] for d in org_types} <= set(evaluation_blind.load_type_descriptions())

    report = evaluation_blind.evaluate(data, split="calibration", org_types=org_types)

    assert len(report["types_registered"]) + len(report["types_refused"]) == 12
    used = {m["memory_type"] for ms in data["patients"].values() for m in ms.values()}
    builtin_or_registered = used - {d["name"] for d in org_types} | set(report["types_registered"])
    assert used <= builtin_or_registered, "this subset only uses types that register"
    assert report["load_failures"] == []
    assert report["memories_loaded"] == report["memories"] == sum(len(ms) for ms in data["patients"].values())
    assert report["overall"]["questions"] == len(data["questions"])
    assert sum(f["questions"] for f in report["by_kind"].values()) == len(data["questions"])
    for figures in [report["overall"], *report["by_kind"].values()]:
        for name in RATIOS:
            assert figures[name] is None or 0.0 <= figures[name] <= 1.0, (name, figures)
        assert figures["leakage"] == 0
        assert figures["unloaded"] == 0
    assert report["overall"]["answerable"] > 0 and report["overall"]["no_answer"] > 0
    assert report["latency_ms"]["p50"] is not None

    text = evaluation_blind.format_report(report, title="calibration subset")
    assert "safety_critical" in text and "all" in text


def test_format_report_shows_refusals_and_failures_without_values():
    """The printed table names types and error codes only."""
    figures = {"questions": 2, "answerable": 1, "no_answer": 1, "p@1": 1.0, "hit@3": 1.0, "mrr": 1.0,
               "answer_kept_high": 1.0, "no_answer_kept_low": 0.0, "leakage": 0, "stale_returned": 0, "unloaded": 0}
    report = {"k": 3, "types_registered": ["a_type"], "types_refused": [{"type": "b_type", "code": "validation_error"}],
              "patients": 1, "memories": 2, "memories_loaded": 1,
              "load_failures": [{"type": "b_type", "stage": "record", "code": "validation_error[memory_type:invalid]",
                                 "count": 1}],
              "by_kind": {"paraphrase": figures}, "overall": figures, "safety_critical_p@1": None,
              "latency_ms": {"p50": 1.0, "p95": 2.0, "max": 3.0}, "seconds": {"load": 1.0, "ask": 1.0}}
    text = evaluation_blind.format_report(report, title="t")
    assert "refused type b_type: validation_error" in text
    assert "b_type  record  validation_error[memory_type:invalid]" in text
    assert "memories loaded 1/2" in text


@pytest.mark.django_db(transaction=True)  # committed, as the harness runs
def test_a_superseded_value_listed_after_its_successor_is_written_first():
    """A set that lists the value it says was superseded after the value that superseded it: the loader writes the
    superseded one first, so the service supersedes it (it wrote them in the set's order, and the service then
    superseded the current value by the decoy, which stayed current and was counted a stale hit)."""
    data = {"patients": {"p1": {
        "m1": {"memory_type": "preferred_name", "fact": {"preferred_name": "Dot"}},
        "m2": {"memory_type": "preferred_name", "fact": {"preferred_name": "Dorothy"}, "stale": "superseded"},
    }}, "questions": []}
    pop = evaluation_blind.load_population(data, org_types=[])
    assert not pop.failures  # the harness's own check: the set's stale value is out of the current ones
    with identity_context(pop.clinician):
        current = set(selectors.memory_list_current(identity=pop.clinician, patient_id=pop.patient_ids["p1"])
                      .values_list("memory_id", flat=True))
    assert {pop.keys[m] for m in current} == {("p1", "m1")}
