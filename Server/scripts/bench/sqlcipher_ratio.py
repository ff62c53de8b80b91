"""SQLCipher's own cost of encryption, on the workload `msync-bench store --encrypted` runs.

  sqlcipher_ratio.py SOURCE_DB SAMPLES ROWS_PER_TRANSACTION

SOURCE_DB is the plaintext store the benchmark wrote (its soup table TABLE_1 and indexes).
With SQLCipher 4 (PyPI sqlcipher3-binary) and its default settings, the script writes every
row of that table into a new plaintext database and a new encrypted one (a raw key, so no key
derivation; WAL, synchronous NORMAL, ROWS_PER_TRANSACTION rows per transaction), then reads
both with the benchmark's point lookups and 50-row pages, samples taken in turn. It prints one
JSON line per scenario: SQLCipher encrypted against SQLCipher plaintext, as the benchmark
prints its own store against a plaintext one.

Python's per-call cost is in both sides of every latency (so it pulls the ratio towards 1);
`python_call_us` is the median of a query that reads nothing, for reading the numbers.
"""
import json
import os
import random
import sys
import tempfile
import time

import sqlcipher3

RAW_KEY = "x'" + "00112233445566778899aabbccddeeff" * 2 + "'"


def connect(path, encrypted):
    connection = sqlcipher3.connect(path, isolation_level=None)
    if encrypted:
        connection.execute(f'PRAGMA key = "{RAW_KEY}"')
    connection.execute("PRAGMA journal_mode = WAL")
    connection.execute("PRAGMA synchronous = NORMAL")
    return connection


def schema(source):
    rows = source.execute(
        "SELECT sql FROM sqlite_master WHERE tbl_name = 'TABLE_1' AND sql IS NOT NULL ORDER BY type DESC"
    ).fetchall()
    return [row[0] for row in rows]


def bulk(path, encrypted, statements, rows, per_transaction):
    connection = connect(path, encrypted)
    for statement in statements:
        connection.execute(statement)
    columns = "soup, created, lastModified, TABLE_1_0, TABLE_1_1, TABLE_1_2, TABLE_1_3"
    insert = f"INSERT INTO TABLE_1 ({columns}) VALUES (?, ?, ?, ?, ?, ?, ?)"
    started = time.perf_counter()
    for start in range(0, len(rows), per_transaction):
        connection.execute("BEGIN")
        connection.executemany(insert, rows[start:start + per_transaction])
        connection.execute("COMMIT")
    return connection, time.perf_counter() - started


def paired_medians(samples, ours, theirs):
    mine, baseline = [], []
    for sample in range(samples):
        pair = [(mine, ours), (baseline, theirs)]
        if sample % 2:
            pair.reverse()
        for durations, call in pair:
            started = time.perf_counter()
            call(sample)
            durations.append((time.perf_counter() - started) * 1e6)
    mine.sort()
    baseline.sort()
    return mine[len(mine) // 2], baseline[len(baseline) // 2]


def main():
    source_path, samples, per_transaction = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    source = sqlcipher3.connect(source_path)
    statements = schema(source)
    rows = source.execute(
        "SELECT soup, created, lastModified, TABLE_1_0, TABLE_1_1, TABLE_1_2, TABLE_1_3 FROM TABLE_1 ORDER BY id"
    ).fetchall()
    source.close()
    generator = random.Random(7)
    ids = [rows[generator.randrange(len(rows))][3] for _ in range(samples)]
    names = [rows[generator.randrange(len(rows))][4] for _ in range(samples)]
    folder = tempfile.mkdtemp(prefix="sqlcipher-ratio-", dir=os.path.dirname(os.path.abspath(source_path)))
    plain, plain_seconds = bulk(os.path.join(folder, "plain.db"), False, statements, rows, per_transaction)
    encrypted, encrypted_seconds = bulk(os.path.join(folder, "encrypted.db"), True, statements, rows, per_transaction)
    version = encrypted.execute("PRAGMA cipher_version").fetchone()[0]

    def lookup(connection):
        return lambda sample: connection.execute("SELECT soup FROM TABLE_1 WHERE TABLE_1_0 = ?", (ids[sample],)).fetchall()

    def page(connection):
        sql = "SELECT soup FROM TABLE_1 WHERE TABLE_1_1 >= ? ORDER BY TABLE_1_1 LIMIT 50"
        return lambda sample: connection.execute(sql, (names[sample],)).fetchall()

    lookups = paired_medians(samples, lookup(encrypted), lookup(plain))
    pages = paired_medians(samples, page(encrypted), page(plain))
    nothing = paired_medians(samples, lambda _: plain.execute("SELECT 1 WHERE 0").fetchall(), lambda _: None)[0]
    common = {"sqlcipher_version": version, "baseline": "SQLCipher plaintext", "python_call_us": round(nothing, 1)}
    lines = [
        {
            "scenario": "sqlcipher-bulk", "records": len(rows), "seconds": round(encrypted_seconds, 3),
            "baseline_seconds": round(plain_seconds, 3), "ratio": round(plain_seconds / encrypted_seconds, 3),
        },
        {
            "scenario": "sqlcipher-lookup", "records": len(rows), "samples": samples, "median_us": round(lookups[0], 1),
            "baseline_median_us": round(lookups[1], 1), "ratio": round(lookups[1] / lookups[0], 3),
        },
        {
            "scenario": "sqlcipher-page", "records": len(rows), "samples": samples, "median_us": round(pages[0], 1),
            "baseline_median_us": round(pages[1], 1), "ratio": round(pages[1] / pages[0], 3), "page_rows": 50,
        },
    ]
    for line in lines:
        line.update(common)
        print(json.dumps(line))
    for name in ("plain.db", "encrypted.db"):
        for suffix in ("", "-wal", "-shm"):
            try:
                os.remove(os.path.join(folder, name + suffix))
            except FileNotFoundError:
                pass
    os.rmdir(folder)


if __name__ == "__main__":
    main()
