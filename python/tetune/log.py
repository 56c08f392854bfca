"""The tuning log: a SQLite database of measured schedules (tuning_logs/).

    with tetune.log.open("my.db") as db:           # open(): the user's log, $TETUNE_DB or ~/.cache/tetune/tetune.db
        for w in db.list_workloads(): print(w)     # dicts: workload_key, op_name, target_key, counts, best_median_ms
        best = db.best_for_host(key)               # BestResult: .record, .exact_target, .note
        s = tetune.Schedule.from_json(C, best.record.schedule_json)
        db.export_jsonl("out.jsonl"); db.import_jsonl("in.jsonl")

Costs are milliseconds. Failures raise TuningLogError (database) or
ParseError (a malformed JSONL line, named).
"""
from ._core.log import (
    BestResult,
    Record,
    Target,
    TuningLog,
    Workload,
    host_target_info,
    shipped_log_path,
    user_log_path,
)

__all__ = ["open", "open_read_only", "TuningLog", "Record", "Target", "Workload", "BestResult", "host_target_info",
           "user_log_path", "shipped_log_path"]


def open(path=None, read_only=False):  # noqa: A001 (module-level open, as gzip.open / sqlite3.connect)
    """Opens the log at path (default: the user's log). read_only: an existing log, nothing written."""
    if read_only:
        if path is None:
            path = user_log_path()
        return TuningLog.open_read_only(path)
    return TuningLog.open(path)


def open_read_only(path):
    """Opens an existing log for reading only (TuningLogError when it does not exist)."""
    return TuningLog.open_read_only(path)
