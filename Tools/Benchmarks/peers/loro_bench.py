#!/usr/bin/env python3
"""Loro peer for Strata's benchmarks (Tools/Benchmarks): run by the Swift runner as a
child process, one unit per process; prints one JSON object {"figures": {...}} on stdout.

Data are generated exactly as in Sources/StrataBenchmarks/BenchData.swift. Each employee
is a LoroMap inside one LoroList; W2 uses Loro's UndoManager (one undo step per commit).

W15 applies a real editing trace (Tests/StrataTests/Fixtures/editing-traces, read with
gzip and json as the Swift side reads it) keystroke by keystroke into a LoroText.

Usage: loro_bench.py UNIT --objects N --edit-objects N --edits N --edits-per-group N --data DIR
       loro_bench.py w15 --trace NAME --key KEY --text-keystrokes N (0: the whole trace) [--commit-every N]
Units: w1 (bulk create, snapshot/updates sizes), w2 (edit/undo/redo), w2-noundo,
w15 (text trace: apply, undo all + redo all, snapshot bytes, import + read).
"""
import argparse
import gc
import gzip
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


def reset_peak():
    """Resets the peak resident size (Linux: VmHWM) to the current one, so that W15's peak
    is the editing's, not the trace's JSON (as the Swift side does). False elsewhere."""
    gc.collect()
    try:
        with open("/proc/self/clear_refs", "w") as handle:
            handle.write("5")
        return True
    except OSError:
        return False


def vm_hwm_mib():
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return peak_mib()


TRACES = os.environ.get("STRATA_BENCH_TRACES", "Tests/StrataTests/Fixtures/editing-traces")
KEYSTROKES_PER_COMMIT = 100  # W15's default; --commit-every sets it (1: Strata's flush per keystroke)


def load_trace(name):
    """(startContent, endContent, patches as (position, deleted, inserted) tuples)."""
    with gzip.open(os.path.join(TRACES, name + ".json.gz"), "rt", encoding="utf-8") as handle:
        trace = json.load(handle)
    patches = [(p[0], p[1], p[2]) for txn in trace["txns"] for p in txn["patches"]]
    return trace["startContent"], trace["endContent"], patches


def text_trace(args):
    """W15: the trace into a LoroText, a commit every 100 keystrokes (--commit-every; one undo step each,
    merge interval 0), then undo all and redo all; the snapshot with history exported, then
    imported into a new document and its text read."""
    start_content, end_content, patches = load_trace(args.trace)
    if args.text_keystrokes > 0:
        patches = patches[:args.text_keystrokes]
    expected = list(start_content)
    for position, deleted, inserted in patches:
        expected[position:position + deleted] = inserted
    expected = "".join(expected)
    if args.text_keystrokes <= 0 and expected != end_content:
        raise SystemExit("loro w15: the trace's patches do not give its endContent")
    reset_peak()
    key = args.key
    doc = LoroDoc()
    text = doc.get_text("text")
    if start_content:
        text.insert(0, start_content)
        doc.commit()
    undo = UndoManager(doc)
    every = args.commit_every
    undo.set_max_undo_steps(len(patches) // every + 10)
    undo.set_merge_interval(0)
    start = time.perf_counter()
    for index, (position, deleted, inserted) in enumerate(patches):
        if deleted:
            text.delete(position, deleted)
        if inserted:
            text.insert(position, inserted)
        if index % every == every - 1:
            doc.commit()
    doc.commit()
    apply_s = time.perf_counter() - start
    if text.to_string() != expected:
        raise SystemExit("loro w15 %s: the text after applying differs" % args.trace)
    # The snapshot of the history as typed, as Strata's document is measured (Strata does
    # not save the undo and redo below; Loro would keep them as operations).
    snapshot = doc.export(ExportMode.Snapshot())
    write_durably(os.path.join(args.data, "w15-%s-loro.snapshot" % key), snapshot)
    # Loro's undo costs more per step the longer the history (seconds per step on a whole
    # trace): --undo-steps caps the steps undone and redone (the last ones); the figure is
    # then `undo_redo_last_s` over `undo_steps_measured`, not undo all + redo all.
    total_steps = undo.undo_count()
    cap = args.undo_steps if args.undo_steps > 0 else total_steps
    steps = 0
    start = time.perf_counter()
    while undo.can_undo() and steps < cap:
        undo.undo()
        steps += 1
    undo_s = time.perf_counter() - start
    if steps == total_steps and text.to_string() != start_content:
        raise SystemExit("loro w15 %s: the text after undo all differs" % args.trace)
    start = time.perf_counter()
    while undo.can_redo():
        undo.redo()
    redo_s = time.perf_counter() - start
    if text.to_string() != expected:
        raise SystemExit("loro w15 %s: the text after redo all differs" % args.trace)
    start = time.perf_counter()
    reopened = LoroDoc()
    reopened.import_(snapshot)
    read = reopened.get_text("text").to_string()
    open_read_s = time.perf_counter() - start
    if read != expected:
        raise SystemExit("loro w15 %s: the imported text differs" % args.trace)
    return {
        "W15.%s_keystrokes" % key: len(patches),
        "W15.%s_apply_s" % key: apply_s,
        "W15.%s_keystrokes_per_s" % key: len(patches) / apply_s,
        "W15.%s_undo_steps" % key: total_steps,
        "W15.%s_undo_steps_measured" % key: steps,
        "W15.%s_%s" % (key, "undo_redo_s" if steps == total_steps else "undo_redo_last_s"): undo_s + redo_s,
        "W15.%s_bytes" % key: len(snapshot),
        "W15.%s_bytes_per_keystroke" % key: len(snapshot) / len(patches),
        "W15.%s_open_read_ms" % key: open_read_s * 1000,
        "W15.%s_peak_mib" % key: vm_hwm_mib(),
    }


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
    parser.add_argument("unit", choices=["w1", "w2", "w2-noundo", "w15"])
    parser.add_argument("--trace", default="automerge-paper")
    parser.add_argument("--key", default="ap")
    parser.add_argument("--text-keystrokes", type=int, default=0)
    parser.add_argument("--undo-steps", type=int, default=0)
    parser.add_argument("--commit-every", type=int, default=KEYSTROKES_PER_COMMIT)
    parser.add_argument("--objects", type=int, default=20_000)
    parser.add_argument("--edit-objects", type=int, default=2_000)
    parser.add_argument("--edits", type=int, default=50_000)
    parser.add_argument("--edits-per-group", type=int, default=100)
    parser.add_argument("--data", default=".")
    args, _ = parser.parse_known_args()
    if args.unit == "w1":
        figures = bulk_create(args)
    elif args.unit == "w15":
        figures = text_trace(args)
    else:
        figures = edit_undo(args, args.unit == "w2")
    json.dump({"figures": figures, "peak_mib": peak_mib(), "loro": getattr(loro, "LORO_VERSION", "?")}, sys.stdout)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
