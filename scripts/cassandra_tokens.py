#!/usr/bin/env python3
"""Writes tests/fixtures/cassandra_tokens.csv: Murmur3Partitioner tokens of test keys as the
official Cassandra Python driver computes them (cassandra-driver on PyPI,
cassandra.metadata.Murmur3Token.from_key), so the Rust test needs no driver.

Usage: pip install cassandra-driver && python3 scripts/cassandra_tokens.py

Keys (hex, deterministic): every length 1..=40 of ASCII text, of bytes >= 0x80 (the tail bytes
Cassandra sign-extends, unlike the reference MurmurHash3), and of mixed random bytes, plus
UTF-8 text. The empty key is left out: the driver hashes it to 0, while Cassandra gives an
empty key the minimum token (and refuses empty partition keys anyway).
"""
import csv
import random
import sys

import cassandra
from cassandra.metadata import Murmur3Token

OUT = "tests/fixtures/cassandra_tokens.csv"


def keys():
    rng = random.Random(20150)
    for length in range(1, 41):
        for _ in range(25):
            yield bytes(rng.choice(b"abcdefghijklmnopqrstuvwxyz0123456789:_-") for _ in range(length))
            yield bytes(rng.randrange(0x80, 0x100) for _ in range(length))
            yield bytes(rng.randrange(0, 0x100) for _ in range(length))
    for i in range(1000):
        yield f"user{i}".encode()
    for text in ["héllo", "日本語のキー", "ключ", "🔑key", "naïve café"]:
        yield text.encode("utf-8")
    for length in (64, 100, 255, 1000):
        yield bytes(rng.randrange(0, 0x100) for _ in range(length))


def main():
    rows = [(k.hex(), Murmur3Token.from_key(k).value) for k in keys()]
    with open(OUT, "w", newline="") as f:
        f.write(f"# Murmur3Token.from_key of cassandra-driver {cassandra.__version__}; "
                "made by scripts/cassandra_tokens.py\n")
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["key_hex", "token"])
        w.writerows(rows)
    print(f"wrote {len(rows)} tokens to {OUT}", file=sys.stderr)


if __name__ == "__main__":
    main()
