#!/usr/bin/env python3
"""Loro peer for Strata's benchmarks (Tools/Benchmarks): run by the Swift runner as a
child process, one unit per process; prints one JSON object {"figures": {...}} on stdout.

Data are generated exactly as in Sources/StrataBenchmarks/BenchData.swift. Each employee
is a LoroMap inside one LoroList; W2 uses Loro's UndoManager (one undo step per commit).

Usage: loro_bench.py UNIT --objects N --edit-objects N --edits N --edits-per-group N --data DIR
Units: w1 (bulk create, snapshot/updates sizes), w2 (edit/undo/redo), w2-noundo.
"""
import argparse
import json
import os
import resource
import sys
import time

import loro
from loro import ExportMode, LoroDoc, LoroMap, UndoManager

CONSONANTS = "bcdfghjklmnpqrstvwz"
VOWELS = "aeiou"
DEPARTMENTS = 100
BASE_DATE = 600_000_000.0


def syllable(value):
    index = value % (len(CONSONANTS) * len(VOWELS))
    return CONSONANTS[index // len(VOWELS)] + VOWELS[index % len(VOWELS)]


def last_name(index, count):
    distinct = max(count // 20, 1)
    k = (index % distinct) * 7919 % distinct
    name = syllable(k) + syllable(k // 95) + syllable(k // 9025)
    return name[0].upper() + name[1:]


def first_name(index):
    name = syllable(index) + syllable(index // 95)
    return name[0].upper() + name[1:]


def salary(index):
    return 20_000 + (index * 7919) % 100_000


def peak_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def populate(doc, count, name_count):
    """Inserts `count` employees (and the departments) and returns the employee maps."""
    departments = doc.get_list("departments")
    for index in range(DEPARTMENTS):
        department = departments.push_container(LoroMap())
        department.insert("name", "Department %d" % index)
    employees = doc.get_list("employees")
    maps = []
    for index in range(count):
        employee = employees.push_container(LoroMap())
        employee.insert("firstName", first_name(index))
        employee.insert("lastName", last_name(index, name_count))
        employee.insert("salary", salary(index))
        employee.insert("employeeID", index)
        employee.insert("startDate", BASE_DATE + index * 60.0)
        employee.insert("department", index % DEPARTMENTS)
        maps.append(employee)
    doc.commit()
    return maps


def write_durably(path, data):
    with open(path, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


def bulk_create(args):
    count = args.objects
    doc = LoroDoc()
    start = time.perf_counter()
    populate(doc, count, count)
    insert_s = time.perf_counter() - start
    start = time.perf_counter()
    snapshot = doc.export(ExportMode.Snapshot())
    write_durably(os.path.join(args.data, "w1-loro.snapshot"), snapshot)
    save_s = time.perf_counter() - start
    updates = doc.export(ExportMode.Updates(loro.VersionVector()))
    return {
        "W1.insert_s": insert_s,
        "W1.save_s": save_s,
        "W1.insert_save_s": insert_s + save_s,
        "W1.peak_mib": peak_mib(),
        "W7.snapshot_bytes_per_object": len(snapshot) / count,
        "W7.segment_bytes_per_object": len(updates) / count,
    }


def edit_undo(args, undo_enabled):
    doc = LoroDoc()
    maps = populate(doc, args.edit_objects, args.edit_objects)
    groups = args.edits // args.edits_per_group
    undo = None
    if undo_enabled:
        undo = UndoManager(doc)
        undo.set_max_undo_steps(groups + 10)
        undo.set_merge_interval(0)
    before = doc.oplog_vv
    objects = args.edit_objects
    per_group = args.edits_per_group
    start = time.perf_counter()
    for edit in range(args.edits):
        maps[edit % objects].insert("salary", edit)
        if edit % per_group == per_group - 1:
            doc.commit()
    doc.commit()
    edit_s = time.perf_counter() - start
    figures = {"W2.edit_ops_per_s": args.edits / edit_s}
    if undo is not None:
        steps = 0
        start = time.perf_counter()
        while undo.can_undo():
            undo.undo()
            steps += 1
        undo_s = time.perf_counter() - start
        start = time.perf_counter()
        while undo.can_redo():
            undo.redo()
        redo_s = time.perf_counter() - start
        check = maps[(args.edits - 1) % objects].get_value()["salary"]
        if check != args.edits - 1:
            raise SystemExit("loro: redo did not restore the last edit (%r)" % check)
        updates = doc.export(ExportMode.Updates(before))
        figures.update({
            "W2.undo_ops_per_s": args.edits / undo_s,
            "W2.redo_ops_per_s": args.edits / redo_s,
            "W2.groups": steps,
            "W7.segment_bytes_per_edit": len(updates) / (3 * args.edits),
        })
    figures["W2.peak_mib"] = peak_mib()
    return figures


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("unit", choices=["w1", "w2", "w2-noundo"])
    parser.add_argument("--objects", type=int, default=20_000)
    parser.add_argument("--edit-objects", type=int, default=2_000)
    parser.add_argument("--edits", type=int, default=50_000)
    parser.add_argument("--edits-per-group", type=int, default=100)
    parser.add_argument("--data", default=".")
    args, _ = parser.parse_known_args()
    if args.unit == "w1":
        figures = bulk_create(args)
    else:
        figures = edit_undo(args, args.unit == "w2")
    json.dump({"figures": figures, "peak_mib": peak_mib(), "loro": getattr(loro, "LORO_VERSION", "?")}, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
