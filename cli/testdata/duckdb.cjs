// Runs SQL in DuckDB for locktable's tests (cli/sql_test.go), through the
// npm package @duckdb/node-api installed under $DUCKDB_NODE_DIR (the
// Makefile's .tools/duckdb).
//
// stdin: {"setup": ["CREATE VIEW ...", ...], "query": "SELECT ..."}
// stdout: the query's rows as one JSON array of objects; a MAP column
// becomes an object.
const path = require('path');
const fs = require('fs');
const { DuckDBInstance } = require(path.join(process.env.DUCKDB_NODE_DIR, 'node_modules', '@duckdb', 'node-api'));

(async () => {
  const input = JSON.parse(fs.readFileSync(0, 'utf8'));
  const db = await DuckDBInstance.create(':memory:');
  const conn = await db.connect();
  for (const sql of input.setup) {
    await conn.run(sql);
  }
  const result = await conn.runAndReadAll(input.query);
  const rows = result.getRowObjectsJson().map((row) => {
    for (const [k, v] of Object.entries(row)) {
      if (Array.isArray(v) && v.length > 0 && v.every((e) => e && typeof e === 'object' && 'key' in e && 'value' in e)) {
        row[k] = Object.fromEntries(v.map((e) => [e.key, e.value]));
      }
    }
    return row;
  });
  process.stdout.write(JSON.stringify(rows));
})().catch((err) => {
  process.stderr.write(String(err && err.message ? err.message : err) + '\n');
  process.exit(1);
});
