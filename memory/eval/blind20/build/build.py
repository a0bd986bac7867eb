#!/usr/bin/env python3
"""Builds ../train.json and ../heldout.json from the patients in pop_*.py.  Usage: python3 build/build.py"""

import glob
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import importlib  # noqa: E402

import defs  # noqa: E402
from type_descriptions import DESCRIPTIONS  # noqa: E402

# each module registers its patients on import
POPULATIONS = [
    m
    for m in ("pop_train_a", "pop_train_b", "pop_heldout_a", "pop_heldout_b")
    if os.path.exists(os.path.join(HERE, m + ".py"))
]
for module in POPULATIONS:
    importlib.import_module(module)

OUT = os.path.normpath(os.path.join(HERE, ".."))
DESCRIPTION = {
    "train": "Anamnesis retrieval evaluation set 20 (blind20), training split: patients d-prefixed, whole patients "
    "per split. Tune ranking and confidence thresholds on this file only.",
    "heldout": "Anamnesis retrieval evaluation set 20 (blind20), held-out split: different patients from train.json. "
    "Do not tune on this file.",
}


def supersession_lists():
    """type name -> supersession list, from the built-in catalogue and this set's org_types.json"""
    out = {}
    for path in glob.glob(os.path.join(HERE, "..", "..", "..", "catalogue", "*.json")):
        with open(path) as f:
            d = json.load(f)
        if isinstance(d, dict) and "supersession" in d:
            out[d["name"]] = d["supersession"]
    with open(os.path.join(OUT, "org_types.json")) as f:
        out.update({d["name"]: d["supersession"] for d in json.load(f)})
    return out


def attribute(supersession, memory):
    """(type, the values that identify 'the same attribute'): two current memories with equal ones hold the same fact"""
    fact = memory["fact"]
    values = []
    for prop in supersession[memory["memory_type"]]:
        values.append(next((str(fact[a]).lower() for a in prop.split("|") if a in fact), None))
    return (memory["memory_type"], *values)


def main():
    supersession = supersession_lists()
    by_pid = {p["pid"]: p for p in defs.PATIENTS}
    if len(by_pid) != len(defs.PATIENTS):
        sys.exit("duplicate patient id")
    files = {s: {"description": DESCRIPTION[s], "k": 3, "patients": {}, "questions": []} for s in DESCRIPTION}
    problems = []
    for p in defs.PATIENTS:
        keys = {alias: f"m{i:02d}" for i, alias in enumerate(p["memories"], 1)}
        out = files[p["split"]]
        out["patients"][p["pid"]] = {keys[a]: m for a, m in p["memories"].items()}
        for n, (kind, text, expected) in enumerate(p["questions"], 1):
            qid = f"{p['pid']}-{n:02d}"
            if kind == "other":
                other, alias = expected.split(":")
                op = by_pid.get(other)
                if op is None or other == p["pid"] or op["split"] != p["split"]:
                    problems.append(
                        f"{qid}: other_patient reference {expected} is not another patient of the same split"
                    )
                elif alias not in op["memories"] or op["memories"][alias].get("stale"):
                    problems.append(f"{qid}: {expected} is not a current memory")
                else:
                    # the decoy must be a fact the asking patient does not hold in the same attribute (a type
                    # with no supersession list is one attribute: then the asking patient must not have the type)
                    own = {attribute(supersession, m) for m in p["memories"].values() if not m.get("stale")}
                    if attribute(supersession, op["memories"][alias]) in own:
                        problems.append(f"{qid}: the asking patient holds the same attribute as {expected}")
                exp = []
            else:
                missing = [a for a in expected if a not in keys]
                if missing:
                    problems.append(f"{qid}: unknown aliases {missing}")
                exp = [keys[a] for a in expected if a in keys]
            out["questions"].append(
                {
                    "id": qid,
                    "patient": p["pid"],
                    "question": text,
                    "kind": defs.KIND[kind],
                    "expected": exp,
                    "split": p["split"],
                }
            )
    if problems:
        sys.exit("\n".join(problems))
    for split, data in files.items():
        with open(os.path.join(OUT, split + ".json"), "w") as f:
            json.dump(data, f, indent=1, ensure_ascii=False)
            f.write("\n")
        print(f"{split}: {len(data['patients'])} patients, {len(data['questions'])} questions")
    with open(os.path.join(OUT, "type_descriptions.json"), "w") as f:
        json.dump(DESCRIPTIONS, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
