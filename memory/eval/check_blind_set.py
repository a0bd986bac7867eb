#!/usr/bin/env python3
"""Checker shared by the retrieval evaluation sets from blind3 on (first written for blind3, adapted from
memory/eval/blind2/check.py; each set's check.py runs it with its own patient-id letter).

Validates org_types.json, type_descriptions.json, train.json and heldout.json:
  * organisation types: definition fields, names, JSON Schema validity, placeholders, no clash with built-ins
  * every memory fact against its type's schema (built-ins from catalogue/*.json, highest version unless the
    memory gives "version"; organisation types from org_types.json)
  * stale markers (superseded memories must have a current memory of the same type and attribute)
  * questions: fields, kinds, expected keys exist for that patient and are not stale, split consistency
  * counts: patients, memories per patient, organisation-type share, questions per kind and split,
    the share of no_answer questions and a 55-65% train share of questions (whole patients per split)
  * no question repeats five consecutive words of a type description ("serves" phrase)
Prints a summary; exits 1 if any check fails.   Usage: python3 check_blind_set.py EVALSET_DIR PATIENT_LETTER"""

# ruff: noqa: UP031  (kept in the original checker's %-format style so the two checkers diff cleanly)
import glob
import json
import os
import re
import sys
from collections import Counter, defaultdict

try:
    from jsonschema import Draft202012Validator
except ImportError:  # pragma: no cover
    sys.exit("the jsonschema package is required: pip install jsonschema")

if len(sys.argv) != 3 or not re.fullmatch(r"[a-z]", sys.argv[2]):
    sys.exit("usage: check_blind_set.py EVALSET_DIR PATIENT_LETTER")
ROOT = os.path.abspath(sys.argv[1])
PATIENT_ID = re.compile(r"^%s\d{3}$" % sys.argv[2])
KINDS = ["paraphrase", "brand_name", "indirect", "safety_critical", "no_answer", "other_patient", "stale_decoy"]
MIN_PER_KIND, MIN_QUESTIONS, MIN_PATIENTS = 20, 280, 20
MIN_MEMORIES, MAX_MEMORIES = 10, 16
SPLITS = ("train", "heldout")
# built-in schemas: the catalogue next to this set (memory/catalogue), or a catalogue/ copy inside the set
CATALOGUE = os.path.join(ROOT, "catalogue")
if not os.path.isdir(CATALOGUE):
    CATALOGUE = os.path.normpath(os.path.join(ROOT, "..", "..", "catalogue"))
NAME_RE = re.compile(r"^[a-z][a-z0-9_]{2,49}$")
errors = []


def err(msg):
    errors.append(msg)


# ---------------------------------------------------------------- types
builtin = defaultdict(dict)
for f in sorted(glob.glob(os.path.join(CATALOGUE, "*.json"))):
    d = json.load(open(f))
    if isinstance(d, dict) and "name" in d and "schema" in d:
        builtin[d["name"]][d["version"]] = d
cat_purposes = {p for vs in builtin.values() for d in vs.values() for p in d["purposes"]}
WRITERS = {"patient", "staff", "ehr_import", "agent_proposal"}
CLASSES = {"working", "preference", "account_fact", "care_context"}

org_list = json.load(open(os.path.join(ROOT, "org_types.json")))
org = {}
if not (8 <= len(org_list) <= 12):
    err("org_types.json: expected 8-12 types, found %d" % len(org_list))
FIELDS = [
    "name",
    "version",
    "memory_class",
    "label",
    "purposes",
    "writers",
    "encrypted",
    "review",
    "fetch_live",
    "default_validity_days",
    "retention_days",
    "supersession",
    "text",
    "schema",
]


def placeholders(text):
    texts = text.values() if isinstance(text, dict) else [text]
    out = set()
    for t in texts:
        for m in re.finditer(r"\{([^{}]+)\}", t):
            out.add(re.split(r"[|?]", m.group(1))[0])
    return out


def walk_strings(schema, path, where):
    """every string property needs maxLength and pattern (enums/consts are fine)"""
    for pname, ps in schema.get("properties", {}).items():
        if ps.get("type") == "string" and "enum" not in ps and "const" not in ps:
            if "maxLength" not in ps or "pattern" not in ps:
                err(f"{where}: string property {path}.{pname} lacks maxLength/pattern")
        if ps.get("type") == "object":
            walk_strings(ps, path + "." + pname, where)


for d in org_list:
    n = d.get("name", "?")
    where = f"org type {n}"
    missing = [f for f in FIELDS if f not in d]
    if missing:
        err(f"{where}: missing fields {missing}")
        continue
    if set(d) - set(FIELDS):
        err(f"{where}: unexpected fields {sorted(set(d) - set(FIELDS))}")
    if not NAME_RE.match(n):
        err(f"{where}: bad name")
    if n in builtin:
        err(f"{where}: collides with a built-in type")
    if n in org:
        err(f"{where}: duplicate")
    if d["version"] != 1:
        err(f"{where}: version must be 1")
    if d["memory_class"] not in CLASSES:
        err(f"{where}: bad memory_class")
    if not d["purposes"] or not set(d["purposes"]) <= cat_purposes:
        err(f"{where}: purposes must be a non-empty subset of {sorted(cat_purposes)}")
    if not d["writers"] or not set(d["writers"]) <= WRITERS:
        err(f"{where}: bad writers")
    if d["encrypted"] or d["review"] or d["fetch_live"]:
        err(f"{where}: encrypted/review/fetch_live must be false")
    if d["default_validity_days"] is not None or d["retention_days"] is not None:
        err(f"{where}: default_validity_days/retention_days must be null")
    s = d["schema"]
    try:
        Draft202012Validator.check_schema(s)
    except Exception as e:  # noqa
        err(f"{where}: invalid JSON Schema: {e}")
    if s.get("$schema") != "https://json-schema.org/draft/2020-12/schema":
        err(f"{where}: $schema must be draft 2020-12")
    if s.get("type") != "object" or s.get("additionalProperties") is not False:
        err(f"{where}: schema must be an object with additionalProperties false")
    props = set(s.get("properties", {}))
    for r in s.get("required", []):
        if r not in props:
            err(f"{where}: required {r} not a property")
    for sp in d["supersession"]:
        for alt in sp.split("|"):
            if alt not in props:
                err(f"{where}: supersession property {alt} not in schema")
    bad = placeholders(d["text"]) - props
    if bad:
        err(f"{where}: text placeholders not in schema: {sorted(bad)}")
    walk_strings(s, "", where)
    org[n] = {1: d}

types = dict(builtin)
types.update({n: vs for n, vs in org.items() if n not in builtin})  # a colliding org type is reported above
validators = {(n, v): Draft202012Validator(d["schema"]) for n, vs in types.items() for v, d in vs.items()}

desc = json.load(open(os.path.join(ROOT, "type_descriptions.json")))
for n in types:
    if n not in desc:
        err(f"type_descriptions.json: no entry for {n}")
    elif not (3 <= len(desc[n]) <= 6) or not all(isinstance(x, str) and x.strip() for x in desc[n]):
        err(f"type_descriptions.json: {n} needs 3-6 non-empty phrases")
for n in desc:
    if n not in types:
        err(f"type_descriptions.json: unknown type {n}")


def attribute(mtype, fact, version):
    """identity of 'the same attribute' according to the type's supersession list"""
    sup = types[mtype][version]["supersession"]
    out = []
    for sp in sup:
        alts = sp.split("|")
        out.append(next((str(fact.get(a)) for a in alts if a in fact), None))
    return tuple(out)


# ---------------------------------------------------------------- splits
STOP = set(
    """the and for with from that this have has into over under when what which while their there about
after before other than then them they used uses need needs needed only also every kind none true false""".split()
)


def fact_tokens(fact):
    toks = set()
    for v in fact.values():
        vals = v if isinstance(v, list) else [v]
        for x in vals:
            if isinstance(x, str):
                for t in re.findall(r"[a-z]+", x.lower().replace("_", " ")):
                    if len(t) >= 4 and t not in STOP:
                        toks.add(t)
    return toks


def reuses(question, facts):
    qt = set(re.findall(r"[a-z]+", question.lower()))
    for f in facts:
        for t in fact_tokens(f):
            if any(w == t or (len(t) >= 5 and w.startswith(t[:5]) and len(w) >= 5) for w in qt):
                return True
    return False


all_patients, all_questions, qids = {}, [], set()
split_of = {}
stats = {"memories": 0, "org": 0, "stale": Counter(), "types": Counter(), "reuse": 0, "answerable": 0}
for split in SPLITS:
    path = os.path.join(ROOT, split + ".json")
    data = json.load(open(path))
    if data.get("k") != 3:
        err(f"{split}: k must be 3")
    if not isinstance(data.get("description"), str) or not data["description"]:
        err(f"{split}: description missing")
    for pid, mems in data["patients"].items():
        if pid in all_patients:
            err(f"patient {pid} appears in both splits")
        if not PATIENT_ID.match(pid):
            err(f"bad patient id {pid}")
        split_of[pid] = split
        all_patients[pid] = mems
        if not (MIN_MEMORIES <= len(mems) <= MAX_MEMORIES):
            err("%s: %d memories (need %d-%d)" % (pid, len(mems), MIN_MEMORIES, MAX_MEMORIES))
        current_attrs = set()
        for key, m in mems.items():
            mt = m.get("memory_type")
            if mt not in types:
                err(f"{pid}/{key}: unknown memory_type {mt}")
                continue
            v = m.get("version", max(types[mt]))
            if v not in types[mt]:
                err(f"{pid}/{key}: unknown version {v}")
                continue
            if mt == "care_context" and v != 2:
                err(f"{pid}/{key}: care_context must use version 2")
            if set(m) - {"memory_type", "fact", "stale", "version"}:
                err(f"{pid}/{key}: unexpected fields")
            for e in validators[(mt, v)].iter_errors(m["fact"]):
                err(f"{pid}/{key} ({mt} v{v}): {e.message}")
            st = m.get("stale")
            if st is not None and st not in ("superseded", "expired", "quarantined"):
                err(f"{pid}/{key}: bad stale value {st}")
            if not st:
                current_attrs.add((mt, attribute(mt, m["fact"], v)))
            stats["memories"] += 1
            stats["org"] += mt in org and mt not in builtin
            stats["types"][mt] += 1
            stats["stale"][st or "current"] += 1
        for key, m in mems.items():
            if m.get("stale") == "superseded" and m.get("memory_type") in types:
                mt = m["memory_type"]
                v = m.get("version", max(types[mt]))
                if (mt, attribute(mt, m["fact"], v)) not in current_attrs:
                    err(f"{pid}/{key}: superseded but no current {mt} memory with the same attribute")
    for q in data["questions"]:
        qid = q.get("id")
        if set(q) != {"id", "patient", "question", "kind", "expected", "split"}:
            err(f"question {qid}: fields {sorted(q)}")
            continue
        if qid in qids:
            err(f"duplicate question id {qid}")
        qids.add(qid)
        if q["split"] != split:
            err("question {}: split field {} in {}.json".format(qid, q["split"], split))
        if q["patient"] not in data["patients"]:
            err("question {}: patient {} not in {}.json".format(qid, q["patient"], split))
            continue
        if q["kind"] not in KINDS:
            err("question {}: bad kind {}".format(qid, q["kind"]))
        if not q["question"].strip():
            err(f"question {qid}: empty text")
        mems = data["patients"][q["patient"]]
        for k in q["expected"]:
            if k not in mems:
                err("question {}: expected key {} not a memory of {}".format(qid, k, q["patient"]))
            elif mems[k].get("stale"):
                err(f"question {qid}: expected key {k} is stale")
        if len(set(q["expected"])) != len(q["expected"]):
            err(f"question {qid}: duplicate expected keys")
        kind, exp = q["kind"], [k for k in q["expected"] if k in mems]
        if kind in ("no_answer", "other_patient") and exp:
            err(f"question {qid}: {kind} must have expected []")
        if kind in ("paraphrase", "brand_name", "indirect", "safety_critical") and not exp:
            err(f"question {qid}: {kind} needs at least one expected memory")
        if kind == "safety_critical" and any(mems[k]["memory_type"] != "care_context" for k in exp):
            err(f"question {qid}: safety_critical expects allergy / long-term medicine memories")
        if kind == "stale_decoy":
            stale_types = {m["memory_type"] for m in mems.values() if m.get("stale")}
            if not stale_types:
                err(f"question {qid}: stale_decoy but patient has no stale memory")
            elif exp and not any(mems[k]["memory_type"] in stale_types for k in exp):
                err(f"question {qid}: stale_decoy expected memories share no type with a stale memory")
        if exp:
            stats["answerable"] += 1
            stats["reuse"] += reuses(q["question"], [mems[k]["fact"] for k in exp])
        all_questions.append(q)

# other_patient: the patient must not share the topic... we can at least require the population to be larger than 1
# ---------------------------------------------------------------- global counts
kinds = Counter(q["kind"] for q in all_questions)
by_split = {s: Counter(q["kind"] for q in all_questions if q["split"] == s) for s in SPLITS}
if len(all_patients) < MIN_PATIENTS:
    err("only %d patients (need >= %d)" % (len(all_patients), MIN_PATIENTS))
if len(all_questions) < MIN_QUESTIONS:
    err("only %d questions (need >= %d)" % (len(all_questions), MIN_QUESTIONS))
for k in KINDS:
    if kinds[k] < MIN_PER_KIND:
        err("kind %s: %d questions (need >= %d)" % (k, kinds[k], MIN_PER_KIND))
if stats["org"] * 3 < stats["memories"]:
    err("organisation-type memories %d of %d (< one third)" % (stats["org"], stats["memories"]))
ncal = sum(1 for s in split_of.values() if s == "train")
qtrain = sum(1 for q in all_questions if q["split"] == "train")
if not (0.55 <= qtrain / max(1, len(all_questions)) <= 0.65):
    err("split is not 55-65%% train: %d train vs %d heldout questions" % (qtrain, len(all_questions) - qtrain))
for s in SPLITS:
    for k in KINDS:
        if by_split[s][k] == 0:
            err("kind %s missing from the %s split" % (k, s))
for pid in all_patients:
    if not any(m.get("stale") for m in all_patients[pid].values()):
        err("%s has no stale memory" % pid)
if not (0.12 <= kinds["no_answer"] / max(1, len(all_questions)) <= 0.18):
    err("no_answer questions are %d of %d (want about 15%%)" % (kinds["no_answer"], len(all_questions)))


def ngrams(text, n=5):
    words = re.findall(r"[a-z0-9']+", text.lower())
    return {tuple(words[i : i + n]) for i in range(len(words) - n + 1)}


serves_grams = set().union(*(ngrams(x) for phrases in desc.values() for x in phrases))
for q in all_questions:
    if ngrams(q["question"]) & serves_grams:
        err("question {} repeats five words of a serves phrase".format(q["id"]))
qp = Counter(q["patient"] for q in all_questions)
for pid in all_patients:
    if qp[pid] == 0:
        err(f"patient {pid} has no questions")

# ---------------------------------------------------------------- summary
print("Anamnesis retrieval evaluation set -", ROOT)
print("types: %d built-in, %d organisation-defined (%s)" % (len(builtin), len(org), ", ".join(sorted(org))))
print("patients: %d  (train %d, heldout %d)" % (len(all_patients), ncal, len(all_patients) - ncal))
print(
    "memories: %d  (organisation types %d = %.1f%%; stale: %s)"
    % (
        stats["memories"],
        stats["org"],
        100.0 * stats["org"] / max(1, stats["memories"]),
        ", ".join("%s %d" % kv for kv in sorted(stats["stale"].items())),
    )
)
print("questions: %d" % len(all_questions))
print("  %-16s %11s %8s %6s" % ("kind", "train", "heldout", "total"))
for k in KINDS:
    print("  %-16s %11d %8d %6d" % (k, by_split["train"][k], by_split["heldout"][k], kinds[k]))
print(
    "  %-16s %11d %8d %6d"
    % ("all", sum(by_split["train"].values()), sum(by_split["heldout"].values()), len(all_questions))
)
print(
    "answerable questions reusing a content word of an expected fact: %d/%d (%.0f%%)"
    % (stats["reuse"], stats["answerable"], 100.0 * stats["reuse"] / max(1, stats["answerable"]))
)
print("memories per type: " + ", ".join("%s %d" % kv for kv in stats["types"].most_common()))
if errors:
    print("\nFAILED: %d problem(s)" % len(errors))
    for e in errors[:200]:
        print("  -", e)
    sys.exit(1)
print("\nOK: all checks passed")
