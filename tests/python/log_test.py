"""tetune.log: the SQLite tuning log from Python (records, best per workload, JSONL)."""
import json

import pytest

import tetune
from tetune import log, te

from conftest import matmul


def record(workload_key, target_key, schedule_json, median_ms, when, error_code=0):
    r = log.Record()
    r.workload_key, r.target_key, r.schedule_json = workload_key, target_key, schedule_json
    r.costs_ms, r.median_ms, r.error_code, r.timestamp_unix_ms = [median_ms], median_ms, error_code, when
    return r


@pytest.fixture
def filled_log(tmp_path):
    """A log with three schedules of one matmul on this CPU, the second the fastest, and one failure."""
    _, _, C = matmul(16, 16, 16)
    key = te.workload_key([C])
    target = log.host_target_info(2)
    schedules = []
    for factor in (2, 4, 8):
        s = tetune.Schedule(C)
        s.split(C, "j", factor)
        schedules.append(s.trace_json())
    with log.open(str(tmp_path / "t.db")) as db:
        db.upsert_target(target)
        db.upsert_workload(log.Workload(key, "matmul", '{"name": "matmul_16"}'))
        for i, (text, ms) in enumerate(zip(schedules, [3.0, 1.0, 2.0])):
            assert db.add_record(record(key, target.key, text, ms, 1000 + i)) == i + 1
        db.add_record(record(key, target.key, schedules[0], float("inf"), 2000, error_code=1))
    return tmp_path / "t.db", key, target, schedules, C


def test_records_best_and_workload_summary(filled_log):
    path, key, target, schedules, _ = filled_log
    with log.open_read_only(str(path)) as db:
        assert db.read_only and db.count_all_records() == 4
        records = db.records(key, target.key)
        assert [r.median_ms for r in records] == [3.0, 1.0, 2.0, float("inf")]
        assert [r.ok for r in records] == [True, True, True, False]
        best = db.best(key, target.key, k=2)
        assert [r.schedule_json for r in best] == [schedules[1], schedules[2]]
        (summary,) = db.list_workloads()
        assert summary == {"workload_key": key, "op_name": "matmul", "target_key": target.key,
                           "num_records": 4, "num_valid": 3, "best_median_ms": 1.0}
        assert db.workload(key).op_name == "matmul" and db.target(target.key) == target
        host = db.best_for_host(key, threads=2)
        assert host.exact_target and host.record.schedule_json == schedules[1] and host.note
        d = best[0].to_dict()
        assert d["median_ms"] == 1.0 and d["error_name"] == "no_error" and d["workload_key"] == key
        with pytest.raises(tetune.TuningLogError):
            db.add_record(best[0])  # read-only


def test_best_record_replays_onto_the_compute(filled_log):
    path, key, target, schedules, C = filled_log
    with log.open(str(path)) as db:
        s = tetune.Schedule.from_json(C, db.best(key, target.key)[0].schedule_json)
    assert s.stage(C).loops == ["i", "j_o", "j_i", "k"] and s.stage(C).leaves[2].extent == 4


def test_export_import_jsonl_round_trip(filled_log, tmp_path):
    path, key, target, _, _ = filled_log
    out = tmp_path / "records.jsonl"
    with log.open(str(path)) as db:
        assert db.export_jsonl(str(out), only_valid=True) == 3
        lines = db.export_dicts(workload_key=key, top=1)
        originals = db.records(key, target.key)
    assert len(lines) == 1 and lines[0]["format"] == "tetune.record.v1" and lines[0]["record"]["median_ms"] == 1.0
    assert [json.loads(l)["record"]["median_ms"] for l in out.read_text().splitlines()] == [3.0, 1.0, 2.0]
    with log.open(str(tmp_path / "copy.db")) as copy:
        assert copy.import_jsonl(str(out)) == 3
        assert copy.import_jsonl(str(out)) == 0  # idempotent
        imported = copy.records(key, target.key)
        assert copy.workload(key).description_json == '{"name": "matmul_16"}'
    # Same records, new ids (Record.__eq__ compares ids too).
    for a, b in zip(imported, originals[:3]):
        b.id = a.id
        assert a == b


def test_errors_name_the_file_and_line(tmp_path):
    with pytest.raises(tetune.TuningLogError, match="no such tuning log"):
        log.open_read_only(str(tmp_path / "missing.db"))
    not_a_db = tmp_path / "text.db"
    not_a_db.write_text("hello, not sqlite\n" * 100)
    with pytest.raises(tetune.TuningLogError, match="text.db"):
        log.open(str(not_a_db))
    assert not_a_db.read_text().startswith("hello")  # left unchanged
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"format": "tetune.record.v1"}\n')
    with log.open(str(tmp_path / "new.db")) as db:
        with pytest.raises(tetune.ParseError, match="JSONL line 1"):
            db.import_jsonl(str(bad))
        with pytest.raises(FileNotFoundError):
            db.import_jsonl(str(tmp_path / "none.jsonl"))
        assert db.count_all_records() == 0
    db.close()
    with pytest.raises(tetune.TuningLogError, match="closed"):
        db.count_all_records()


def test_default_log_is_the_users(tmp_path, monkeypatch):
    monkeypatch.setenv("TETUNE_DB", str(tmp_path / "mine.db"))
    assert log.user_log_path() == str(tmp_path / "mine.db")
    with log.open() as db:
        assert db.path == str(tmp_path / "mine.db") and db.count_all_records() == 0
