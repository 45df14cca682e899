"""Queries results.parquet (written by `cargo agents batch retailer_a_pdp --out results.parquet`)
with DuckDB, as an analyst would, and checks that the typed columns arrived as types:
`python query.py results.parquet ROWS`."""

import sys

import duckdb

path, rows = sys.argv[1], int(sys.argv[2])
con = duckdb.connect()
con.read_parquet(path).create_view("results")

types = dict(con.execute("SELECT column_name, column_type FROM (DESCRIBE results)").fetchall())
assert types["web_price"] == "DOUBLE", types["web_price"]
assert types["availability"] == "BOOLEAN", types["availability"]
assert types["_row"] == "UBIGINT", types["_row"]
assert types["top_reviews"].startswith("STRUCT(") and types["top_reviews"].endswith("[]"), types["top_reviews"]
assert "_unknown_fields" in types and "_mismatches" in types

(count, distinct_rows) = con.execute("SELECT count(*), count(DISTINCT _row) FROM results").fetchone()
assert count == rows and distinct_rows == rows, (count, distinct_rows, rows)

# Each result carries the input it came from: row N of the CSV is the asin B{N:09}.
assert types["_input"].startswith("STRUCT(asin VARCHAR"), types["_input"]
(joined,) = con.execute(
    "SELECT count(*) FROM results WHERE _input.asin = printf('B%09d', _row)"
).fetchone()
assert joined == rows, (joined, rows)

print("average web_price per brand (top 5 by count):")
for brand, n, avg in con.execute(
    """SELECT brand, count(*) AS n, round(avg(web_price), 2)
       FROM results GROUP BY brand ORDER BY n DESC, brand LIMIT 5"""
).fetchall():
    print(f"  {brand:<45} {n:>4} products  {avg:>8}")

(reviews, stars) = con.execute(
    "SELECT count(*), round(avg(r.stars), 2) FROM (SELECT unnest(top_reviews) AS r FROM results)"
).fetchone()
print(f"{reviews} reviews in nested lists, average stars {stars}")
assert reviews > 0
print(f"sql: {count} rows read by DuckDB {duckdb.__version__}")
