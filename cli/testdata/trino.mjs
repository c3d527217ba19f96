// Parses SQL with the Trino grammar (the SQL Athena engine 3 speaks) for
// locktable's tests (cli/sql_test.go), through the npm package
// dt-sql-parser installed under $TRINO_PARSER_NODE_DIR (the Makefile's
// .tools/dt-sql-parser-*). Nothing runs the SQL: it checks that Athena
// would read it, which DuckDB (the other dialect, run in the tests)
// cannot tell.
//
// stdin: {"NAME": "SELECT ...", ...}
// stdout: {"NAME": [errors...], ...}, an empty list for SQL that parses.
import { register } from 'node:module';
import path from 'node:path';
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';

// dt-sql-parser's ES modules import their siblings without the .js a
// bundler adds; node resolves them with this hook.
const hooks = `export async function resolve(specifier, context, next) {
  try { return await next(specifier, context); } catch (err) {
    if (!specifier.startsWith('.')) throw err;
    for (const tail of ['.js', '/index.js']) {
      try { return await next(specifier + tail, context); } catch {}
    }
    throw err;
  }
}`;
register('data:text/javascript,' + encodeURIComponent(hooks));

const dir = path.join(process.env.TRINO_PARSER_NODE_DIR, 'node_modules', 'dt-sql-parser', 'dist', 'index.js');
const { TrinoSQL } = await import(pathToFileURL(dir).href);
const input = JSON.parse(fs.readFileSync(0, 'utf8'));
const parser = new TrinoSQL();
const out = {};
for (const [name, sql] of Object.entries(input)) {
  out[name] = parser.validate(sql).map((e) => `line ${e.startLine}:${e.startColumn}: ${e.message}`);
}
process.stdout.write(JSON.stringify(out));
