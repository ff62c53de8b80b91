"""SQLCipher 4 (PyPI sqlcipher3-binary) on the other side of the interoperability tests.

  query DB KEY KDF_ITER SQL...     prints a JSON array: the rows of each SQL statement
  write DB KEY KDF_ITER SQL_FILE [--leave-wal]
                                   runs the statements in WAL mode, one transaction each;
                                   with --leave-wal the process ends without closing, so the
                                   log stays behind uncheckpointed (as after a crash)
"""
import json
import os
import sys

import sqlcipher3


def connect(path, key, kdf_iter):
    connection = sqlcipher3.connect(path, isolation_level=None)
    escaped = key.replace('"', '""')
    connection.execute(f'PRAGMA key = "{escaped}"')
    connection.execute(f"PRAGMA kdf_iter = {int(kdf_iter)}")
    header = os.environ.get("SQLCIPHER_PLAINTEXT_HEADER")
    if header:
        connection.execute(f"PRAGMA cipher_plaintext_header_size = {int(header)}")
    return connection


def main():
    mode, path, key, kdf_iter = sys.argv[1:5]
    connection = connect(path, key, kdf_iter)
    if mode == "query":
        results = [connection.execute(sql).fetchall() for sql in sys.argv[5:]]
        print(json.dumps(results))
    elif mode == "write":
        connection.execute("PRAGMA journal_mode = WAL")
        connection.execute("PRAGMA wal_autocheckpoint = 0")
        with open(sys.argv[5]) as script:
            for statement in script.read().split(";\n"):
                if statement.strip():
                    connection.execute("BEGIN")
                    connection.execute(statement)
                    connection.execute("COMMIT")
        if "--leave-wal" in sys.argv:
            sys.stdout.flush()
            os._exit(0)
        connection.close()
    else:
        raise SystemExit(f"unknown mode {mode}")


main()
